/* The review page: the recording in a <video> element, overlays drawn here from the JSON.

   Frame numbers come from the video's own frame times (info.video.frame_times_s): a step seeks
   inside frame i's display interval, and requestVideoFrameCallback reports which frame is on
   screen while playing. */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const root = $("review");
  const name = root.dataset.recording;
  const base = `/api/recordings/${encodeURIComponent(name)}`;
  // "spot": the restart spot of a game whose ball is put on it (its toggle only on such a page).
  const LAYERS = ["lines", "figures", "ball", "margin", "offside", "shot", "spot"];
  const REPLAY_BEFORE_S = 2;
  const REPLAY_AFTER_S = 1;
  const REPLAY_RATE = 0.25;
  const ZOOM_ON_SPOT = 3;
  let info = null;
  let times = [];
  let frame = 0;
  let selected = null; // index of the selected call
  let replay = null; // {start, end, call} while a call's replay loops
  let tracksRequest = null;
  let tracksFrame = -1;
  let radarObjects = null;
  const layers = {};
  const view = { zoom: 1, x: 0, y: 0 };
  const video = () => $("video");

  const count = () => times.length;
  const clamp = (i) => Math.max(0, Math.min(count() - 1, i));
  const pts = (list) => list.map((p) => p.join(",")).join(" ");

  /* The index of the frame shown at media time t: the last frame starting at or before t. */
  function frameAt(t) {
    let lo = 0;
    let hi = count() - 1;
    const tol = 1e-4; // media times are rounded to microseconds on the way
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (times[mid] <= t + tol) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /* A time inside frame i's display interval (its middle), so a seek lands on it. */
  function timeOf(i) {
    const next = i + 1 < count() ? times[i + 1] : times[i] + 1 / info.fps;
    return (times[i] + next) / 2;
  }

  function buildOverlay() {
    const overlay = $("overlay");
    overlay.setAttribute("viewBox", `0 0 ${info.size_px[0]} ${info.size_px[1]}`);
    for (const layer of LAYERS) {
      layers[layer] = TV.svg("g", { class: `layer-${layer}` });
      overlay.append(layers[layer]);
      $(`show-${layer}`)?.addEventListener("change", applyToggles);
    }
    for (const line of info.lines_px || []) {
      layers.lines.append(TV.svg("polyline", { points: pts(line.inner), class: "edge" }));
      layers.lines.append(TV.svg("polyline", { points: pts(line.outer), class: "edge" }));
    }
    applyToggles();
  }

  function applyToggles() {
    for (const layer of LAYERS) layers[layer].style.display = $(`show-${layer}`)?.checked ? "" : "none";
  }

  function label(layer, xy, text, cls) {
    const t = TV.svg("text", { x: xy[0], y: xy[1], class: cls });
    t.textContent = text;
    layer.append(t);
  }

  function drawTracks(data) {
    for (const layer of ["ball", "figures", "margin", "offside", "shot", "spot"]) layers[layer].replaceChildren();
    drawSpots(tracksFrame);
    if (data.ball_px) layers.ball.append(TV.svg("polygon", { points: pts(data.ball_px), class: "footprint" }));
    if (data.ball_margin_px) layers.ball.append(TV.svg("polygon", { points: pts(data.ball_margin_px), class: "footprint-margin" }));
    for (const fig of data.figures_px) {
      layers.figures.append(TV.svg("polygon", { points: pts(fig.outline), class: `base ${fig.team}` }));
    }
    for (const m of data.margins) {
      if (selected !== null && m.call !== selected) continue;
      if (!m.from_px) continue;
      const [a, b] = [m.from_px, m.to_px];
      layers.margin.append(TV.svg("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: "margin" }));
      label(layers.margin, [(a[0] + b[0]) / 2, Math.min(a[1], b[1]) - 8], TV.fmtMm(m.call_margin_mm ?? m.margin_mm), "margin-label");
    }
    for (const o of data.offside || []) {
      layers.offside.append(TV.svg("polyline", { points: pts(o.line_px), class: "offside-line" }));
      for (const fig of o.compared) {
        layers.offside.append(TV.svg("polygon", { points: pts(fig.outline), class: `compared ${fig.role}` }));
        label(layers.offside, [fig.label_px[0] + 10, fig.label_px[1] - 10], `${fig.role === "attacker" ? "" : "D "}#${fig.id}`, `compared-label ${fig.role}`);
      }
    }
    for (const s of data.shots || []) {
      layers.shot.append(TV.svg("polyline", { points: pts(s.line_px), class: "shooting-line" }));
      layers.shot.append(TV.svg("polygon", { points: pts(s.ball_px), class: `shot ${s.inside ? "inside" : "outside"}` }));
      label(layers.shot, [s.ball_px[0][0] + 12, s.ball_px[0][1] - 12], `shot at frame ${s.frame}: ${s.inside ? "inside" : "outside"} ${TV.fmtMm(s.margin_mm)}`, "shot-label");
    }
    if (radarObjects) TV.drawObjects(radarObjects, data.record, info.pitch);
  }

  /* The restart spots of the calls made on frame `index` (the selected one's only, if any). */
  function drawSpots(index) {
    for (const call of info.calls) {
      const spot = call.restart_spot;
      if (call.frame !== index || !spot || !spot.px) continue;
      if (selected !== null && call.index !== selected) continue;
      const [x, y] = spot.px;
      const ring = spot.ring_px;
      const r = ring ? Math.max(...ring.map((p) => Math.hypot(p[0] - x, p[1] - y))) : 12;
      const mark = TV.svg("g", { class: "spot-mark", "data-kind": call.restart });
      mark.append(ring ? TV.svg("polygon", { points: pts(ring) }) : TV.svg("circle", { cx: x, cy: y, r }),
        TV.svg("line", { x1: x - r, y1: y, x2: x + r, y2: y }),
        TV.svg("line", { x1: x, y1: y - r, x2: x, y2: y + r }));
      layers.spot.append(mark);
      label(layers.spot, [x + r + 6, y - r - 6], `${TV.restartName(call.restart)} spot`, "spot-label");
    }
  }

  async function loadTracks(index) {
    if (index === tracksFrame) return;
    if (tracksRequest) tracksRequest.abort();
    tracksFrame = index;
    tracksRequest = new AbortController();
    try {
      const response = await fetch(`${base}/tracks/${index}`, { signal: tracksRequest.signal });
      if (response.ok) drawTracks(await response.json());
      else drawTracks({ ball_px: null, figures_px: [], margins: [], record: null });
      tracksRequest = null;
    } catch (err) {
      if (err.name !== "AbortError") throw err;
    }
  }

  /* The page's idea of the frame on screen: number, scrubber, calls at it, overlays. */
  function setFrame(index, { fetchTracks = true } = {}) {
    frame = index;
    const number = $("frame-number");
    number.textContent = frame;
    number.dataset.frame = frame;
    $("scrub").value = frame;
    $("frame-time").textContent = `${times[frame].toFixed(3)} s`;
    for (const item of document.querySelectorAll("#review-calls li")) {
      item.classList.toggle("at-frame", Number(item.dataset.frame) === frame);
    }
    // While playing, a request in flight is left to finish rather than aborted every frame.
    if (fetchTracks && (video().paused || !tracksRequest)) loadTracks(frame);
  }

  function show(index) {
    const v = video();
    if (!v.paused) v.pause();
    const i = clamp(index);
    v.currentTime = timeOf(i);
    setFrame(i);
  }

  function onVideoFrame(_now, meta) {
    root.dataset.presented = Number(root.dataset.presented || 0) + 1;
    const i = frameAt(meta.mediaTime);
    if (replay && meta.mediaTime >= replay.end) {
      video().currentTime = replay.start;
    } else if (!video().paused && i !== frame) {
      setFrame(i);
    }
    video().requestVideoFrameCallback(onVideoFrame);
  }

  function selectCall(index, { scroll = true } = {}) {
    selected = index;
    for (const item of document.querySelectorAll("#review-calls li, #timeline .mark")) {
      item.classList.toggle("selected", Number(item.dataset.index) === index);
    }
    const call = info.calls[index];
    $("status").textContent = `Call ${index + 1}: ${TV.callWords(call)}, frame ${call.frame}`;
    stopReplay();
    tracksFrame = -1;
    show(call.frame);
    // On a phone the list is below the video: bring the frame into view, below the sticky bar.
    if (scroll) bringIntoView($("viewer"));
  }

  function bringIntoView(el) {
    const bar = document.querySelector(".topbar");
    const top = bar ? bar.getBoundingClientRect().bottom : 0;
    const box = el.getBoundingClientRect();
    if (box.top >= top && box.bottom <= window.innerHeight) return;
    window.scrollTo({ top: window.scrollY + box.top - top - 8, behavior: "instant" });
  }

  function startReplay(index) {
    selectCall(index);
    const call = info.calls[index];
    const t = times[clamp(call.frame)];
    replay = { call: index, start: Math.max(0, t - REPLAY_BEFORE_S), end: Math.min(times[count() - 1], t + REPLAY_AFTER_S) };
    const v = video();
    $("speed").value = String(REPLAY_RATE);
    v.playbackRate = REPLAY_RATE;
    v.currentTime = replay.start;
    zoomOn(call);
    $("replay-text").textContent = `Replay of call ${index + 1}: ${REPLAY_BEFORE_S} s before to ${REPLAY_AFTER_S} s after, ${REPLAY_RATE}×, looping`;
    $("replay-bar").hidden = false;
    root.dataset.replay = String(index);
    v.play();
  }

  function stopReplay() {
    if (!replay) return;
    replay = null;
    $("replay-bar").hidden = true;
    delete root.dataset.replay;
    video().pause();
  }

  /* Zoom and pan: one CSS transform on the stage that holds the video and its overlay. */
  function applyView() {
    const stage = $("stage");
    const w = stage.clientWidth;
    const h = stage.clientHeight;
    view.zoom = Math.max(1, Math.min(8, view.zoom));
    view.x = Math.min(0, Math.max(w - w * view.zoom, view.x));
    view.y = Math.min(0, Math.max(h - h * view.zoom, view.y));
    stage.style.transform = `translate(${view.x}px, ${view.y}px) scale(${view.zoom})`;
    $("zoom-level").textContent = `${view.zoom.toFixed(1)}×`;
  }

  function zoomAt(zoom, cx, cy) {
    const stage = $("stage");
    const w = stage.clientWidth;
    const h = stage.clientHeight;
    view.zoom = zoom;
    view.x = w / 2 - cx * zoom;
    view.y = h / 2 - cy * zoom;
    applyView();
  }

  /* Centre the decisive spot of a call (its position, else the ball's) at ZOOM_ON_SPOT. */
  function zoomOn(call) {
    const spot = call.position_px;
    if (!spot) return;
    const stage = $("stage");
    const scale = stage.clientWidth / info.size_px[0];
    zoomAt(ZOOM_ON_SPOT, spot[0] * scale, spot[1] * scale);
  }

  function buildZoom() {
    const stage = $("stage");
    const centre = () => [(stage.clientWidth / 2 - view.x) / view.zoom, (stage.clientHeight / 2 - view.y) / view.zoom];
    $("zoom-in").addEventListener("click", () => zoomAt(view.zoom * 1.5, ...centre()));
    $("zoom-out").addEventListener("click", () => zoomAt(view.zoom / 1.5, ...centre()));
    $("zoom-fit").addEventListener("click", () => { view.zoom = 1; view.x = 0; view.y = 0; applyView(); });
    $("zoom-spot").addEventListener("click", () => { if (selected !== null) zoomOn(info.calls[selected]); });
    let drag = null;
    const viewer = $("viewer");
    viewer.addEventListener("pointerdown", (e) => {
      if (view.zoom <= 1) return;
      drag = { x: e.clientX - view.x, y: e.clientY - view.y };
      viewer.setPointerCapture(e.pointerId);
    });
    viewer.addEventListener("pointermove", (e) => {
      if (!drag) return;
      view.x = e.clientX - drag.x;
      view.y = e.clientY - drag.y;
      applyView();
    });
    viewer.addEventListener("pointerup", () => { drag = null; });
    window.addEventListener("resize", applyView);
  }

  function spotFacts(call) {
    const s = call.restart_spot;
    return s ? ` · spot x ${s.x_mm.toFixed(0)} mm, y ${s.y_mm.toFixed(0)} mm` : "";
  }

  function buildCalls() {
    const list = $("review-calls");
    $("review-calls-count").textContent = `${info.calls.length} in this recording`;
    const timeline = $("timeline");
    for (const call of info.calls) {
      const item = TV.el("li", { class: `call kind-${call.kind}`, "data-index": call.index, "data-frame": call.frame },
        TV.el("div", { class: "call-main" },
          TV.el("div", { class: "call-head" }, TV.el("span", { class: "kind", text: TV.callWords(call) }), ...TV.callBadges(call)),
          TV.el("div", { class: "call-facts", text: TV.callFacts(call) + spotFacts(call) }),
          TV.el("div", { class: "call-time muted", text: `frame ${call.frame} · ${Number(call.t_s || 0).toFixed(2)} s` }),
          TV.el("div", { class: "call-actions" },
            TV.el("button", { type: "button", class: "show-call", text: "Show frame", "aria-label": `Show the frame of call ${call.index + 1}`, onclick: () => selectCall(call.index) }),
            TV.el("button", { type: "button", class: "replay-call", text: "Replay", "aria-label": `Replay call ${call.index + 1} slowed, looping`, onclick: () => startReplay(call.index) }))));
      if (call.evidence_rel) {
        item.append(TV.el("img", {
          class: "evidence", alt: `Evidence, frame ${call.frame}`, loading: "lazy",
          src: `${base}/evidence/${call.evidence_rel.split("/").map(encodeURIComponent).join("/")}`,
        }));
      }
      list.append(item);
      const left = count() > 1 ? (100 * call.frame) / (count() - 1) : 0;
      timeline.append(TV.el("button", {
        type: "button", class: `mark kind-${call.kind}`, style: `left:${left}%`, "data-index": call.index,
        title: `${TV.callWords(call)} · frame ${call.frame}`, "aria-label": `Call ${call.index + 1}: ${TV.callWords(call)}`,
        onclick: () => selectCall(call.index),
      }));
    }
    if (!info.calls.length) list.append(TV.el("li", { class: "empty", text: "No calls in this recording." }));
  }

  function buildAsk() {
    const select = $("ask-line");
    const kinds = ["goal_line", "touchline", "shooting_line", "halfway_line", "penalty_area", "goal_area"];
    for (const kind of kinds) select.append(TV.el("option", { value: kind, text: `nearest ${kind.replace(/_/g, " ")}` }));
    for (const line of info.pitch.lines) select.append(TV.el("option", { value: line.name, text: line.name.replace(/_/g, " ") }));
    $("ask-question").addEventListener("change", () => {
      const offside = $("ask-question").value === "offside";
      $("ask-line-label").hidden = offside;
      $("ask-team-label").hidden = !offside;
    });
    $("ask-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const question = $("ask-question").value;
      const body = { frame, question };
      if (question === "offside") body.attacking = $("ask-team").value;
      else body.line = $("ask-line").value;
      const box = $("ask-answer");
      box.hidden = false;
      const response = await fetch(`${base}/ask`, {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      });
      const data = await response.json();
      box.className = `answer ${response.ok ? (data.answer ? "yes" : "no") : "error"}`;
      box.replaceChildren(
        TV.el("strong", { text: response.ok ? `${data.answer ? "Yes" : "No"} — frame ${data.frame}` : "Cannot answer" }),
        TV.el("div", { text: response.ok ? data.text : data.message }),
        response.ok && data.law ? TV.el("div", { class: "muted", text: data.law }) : null);
    });
  }

  function togglePlay() {
    const v = video();
    if (v.paused) {
      if (frame >= count() - 1) show(0);
      v.playbackRate = Number($("speed").value);
      v.play();
    } else {
      stopReplay();
      v.pause();
    }
  }

  function onKey(event) {
    if (event.target.closest("input[type=text], input[type=password], select, textarea")) return;
    const step = event.shiftKey ? 10 : 1;
    if (event.key === "ArrowRight") { stopReplay(); show(frame + step); }
    else if (event.key === "ArrowLeft") { stopReplay(); show(frame - step); }
    else if (event.key === " " && !event.target.closest("button")) togglePlay();
    else if (event.key === "Home") show(0);
    else if (event.key === "End") show(count() - 1);
    else return;
    event.preventDefault();
  }

  document.addEventListener("DOMContentLoaded", async () => {
    try {
      info = await TV.getJSON(base);
    } catch (err) {
      TV.toast(err.message, "error");
      return;
    }
    times = info.video.frame_times_s;
    const summary = info.summary || {};
    $("rec-info").textContent = [
      `${count()} frames`, `${Number(info.fps).toFixed(1)} fps`,
      summary.score ? `score ${summary.score.home}–${summary.score.away}` : null,
    ].filter(Boolean).join(" · ");
    $("frame-count").textContent = count() - 1;
    $("scrub").max = count() - 1;
    const v = video();
    v.addEventListener("play", () => { $("play").textContent = "⏸ Pause"; root.dataset.playing = "1"; });
    v.addEventListener("pause", () => {
      $("play").textContent = "▶ Play";
      delete root.dataset.playing;
      setFrame(frameAt(v.currentTime));
    });
    v.addEventListener("ended", () => { $("play").textContent = "▶ Play"; });
    v.requestVideoFrameCallback(onVideoFrame);
    v.addEventListener("error", () => TV.toast("This browser cannot play the recording's video.", "error"));
    v.src = info.video.url;
    $("speed").addEventListener("change", () => { v.playbackRate = Number($("speed").value); });
    $("scrub").addEventListener("input", () => { stopReplay(); show(Number($("scrub").value)); });
    $("prev").addEventListener("click", () => { stopReplay(); show(frame - 1); });
    $("next").addEventListener("click", () => { stopReplay(); show(frame + 1); });
    $("play").addEventListener("click", togglePlay);
    $("replay-stop").addEventListener("click", stopReplay);
    document.addEventListener("keydown", onKey);
    radarObjects = TV.drawPitch($("review-radar"), info.pitch);
    buildOverlay();
    buildZoom();
    buildCalls();
    buildAsk();
    show(0);
  });
})();
