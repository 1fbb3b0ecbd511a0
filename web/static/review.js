/* The review page: frames from the server, overlays drawn here from the JSON. */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const root = $("review");
  const name = root.dataset.recording;
  const base = `/api/recordings/${encodeURIComponent(name)}`;
  let info = null;
  let frame = 0;
  let selected = null; // index of the selected call
  let playing = false;
  let playTimer = null;
  let loading = false;
  let tracksRequest = null;
  let radarObjects = null;
  const layers = {};

  const clamp = (i) => Math.max(0, Math.min(info.frames - 1, i));
  const pts = (list) => list.map((p) => p.join(",")).join(" ");

  function buildOverlay() {
    const overlay = $("overlay");
    overlay.setAttribute("viewBox", `0 0 ${info.size_px[0]} ${info.size_px[1]}`);
    for (const name of ["lines", "figures", "ball", "margin"]) {
      layers[name] = TV.svg("g", { class: `layer-${name}` });
      overlay.append(layers[name]);
    }
    for (const line of info.lines_px || []) {
      layers.lines.append(TV.svg("polyline", { points: pts(line.inner), class: "edge" }));
      layers.lines.append(TV.svg("polyline", { points: pts(line.outer), class: "edge" }));
    }
    for (const id of ["show-ball", "show-figures", "show-lines", "show-margin"]) {
      $(id).addEventListener("change", applyToggles);
    }
    applyToggles();
  }

  function applyToggles() {
    layers.ball.style.display = $("show-ball").checked ? "" : "none";
    layers.figures.style.display = $("show-figures").checked ? "" : "none";
    layers.lines.style.display = $("show-lines").checked ? "" : "none";
    layers.margin.style.display = $("show-margin").checked ? "" : "none";
  }

  function drawTracks(data) {
    layers.ball.replaceChildren();
    layers.figures.replaceChildren();
    layers.margin.replaceChildren();
    if (data.ball_px) layers.ball.append(TV.svg("polygon", { points: pts(data.ball_px), class: "footprint" }));
    for (const fig of data.figures_px) {
      layers.figures.append(TV.svg("polygon", { points: pts(fig.outline), class: `base ${fig.team}` }));
    }
    for (const m of data.margins) {
      if (selected !== null && m.call !== selected) continue;
      if (!m.from_px) continue;
      const [a, b] = [m.from_px, m.to_px];
      layers.margin.append(TV.svg("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: "margin" }));
      const label = TV.svg("text", { x: (a[0] + b[0]) / 2, y: Math.min(a[1], b[1]) - 8, class: "margin-label" });
      label.textContent = TV.fmtMm(m.call_margin_mm ?? m.margin_mm);
      layers.margin.append(label);
    }
    if (radarObjects) TV.drawObjects(radarObjects, data.record, info.pitch);
  }

  async function loadTracks(index) {
    if (tracksRequest) tracksRequest.abort();
    tracksRequest = new AbortController();
    try {
      const response = await fetch(`${base}/tracks/${index}`, { signal: tracksRequest.signal });
      if (response.ok) drawTracks(await response.json());
      else drawTracks({ ball_px: null, figures_px: [], margins: [], record: null });
    } catch (err) {
      if (err.name !== "AbortError") throw err;
    }
  }

  function show(index) {
    frame = clamp(index);
    loading = true;
    $("frame").src = `${base}/frames/${frame}.jpg`;
    const number = $("frame-number");
    number.textContent = frame;
    number.dataset.frame = frame;
    $("scrub").value = frame;
    $("frame-time").textContent = `${(frame / info.fps).toFixed(3)} s`;
    for (const item of document.querySelectorAll("#review-calls li")) {
      item.classList.toggle("at-frame", Number(item.dataset.frame) === frame);
    }
    loadTracks(frame);
  }

  function selectCall(index) {
    selected = index;
    for (const item of document.querySelectorAll("#review-calls li, #timeline .mark")) {
      item.classList.toggle("selected", Number(item.dataset.index) === index);
    }
    show(info.calls[index].frame);
  }

  function buildCalls() {
    const list = $("review-calls");
    $("review-calls-count").textContent = `${info.calls.length} in this recording`;
    const timeline = $("timeline");
    for (const call of info.calls) {
      const item = TV.el("li", {
        class: `call kind-${call.kind}`, "data-index": call.index, "data-frame": call.frame,
        tabindex: 0, onclick: () => selectCall(call.index),
      },
      TV.el("div", { class: "call-main" },
        TV.el("div", { class: "call-head" }, TV.el("span", { class: "kind", text: TV.kindLabel(call.kind) }), ...TV.callBadges(call)),
        TV.el("div", { class: "call-facts", text: TV.callFacts(call) }),
        TV.el("div", { class: "call-time muted", text: `frame ${call.frame} · ${Number(call.t_s || 0).toFixed(2)} s` })));
      if (call.evidence_rel) {
        item.append(TV.el("img", {
          class: "evidence", alt: `Evidence, frame ${call.frame}`, loading: "lazy",
          src: `${base}/evidence/${call.evidence_rel.split("/").map(encodeURIComponent).join("/")}`,
        }));
      }
      list.append(item);
      const left = info.frames > 1 ? (100 * call.frame) / (info.frames - 1) : 0;
      timeline.append(TV.el("button", {
        class: `mark kind-${call.kind}`, style: `left:${left}%`, "data-index": call.index,
        title: `${TV.kindLabel(call.kind)} · frame ${call.frame}`, onclick: () => selectCall(call.index),
      }));
    }
    if (!info.calls.length) list.append(TV.el("li", { class: "empty", text: "No calls in this recording." }));
  }

  function setPlaying(on) {
    playing = on;
    $("play").textContent = on ? "⏸ Pause" : "▶ Play";
    clearTimeout(playTimer);
    if (on) tick();
  }

  function tick() {
    if (!playing) return;
    const interval = 1000 / (info.fps * Number($("speed").value));
    if (!loading) {
      if (frame >= info.frames - 1) { setPlaying(false); return; }
      show(frame + 1);
    }
    playTimer = setTimeout(tick, interval);
  }

  function buildAsk() {
    const select = $("ask-line");
    const kinds = ["goal_line", "touchline", "shooting_line", "halfway_line", "penalty_area", "goal_area"];
    for (const kind of kinds) select.append(TV.el("option", { value: kind, text: `nearest ${kind.replace(/_/g, " ")}` }));
    for (const line of info.pitch.lines) select.append(TV.el("option", { value: line.name, text: line.name.replace(/_/g, " ") }));
    $("ask-question").addEventListener("change", () => {
      const offside = $("ask-question").value === "offside";
      $("ask-line").hidden = offside;
      $("ask-team").hidden = !offside;
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

  function onKey(event) {
    if (event.target.closest("input[type=text], input[type=password], select, textarea")) return;
    const step = event.shiftKey ? 10 : 1;
    if (event.key === "ArrowRight") { setPlaying(false); show(frame + step); }
    else if (event.key === "ArrowLeft") { setPlaying(false); show(frame - step); }
    else if (event.key === " " && !event.target.closest("button")) setPlaying(!playing);
    else if (event.key === "Home") show(0);
    else if (event.key === "End") show(info.frames - 1);
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
    const summary = info.summary || {};
    $("rec-info").textContent = [
      `${info.frames} frames`, `${Number(info.fps).toFixed(1)} fps`,
      summary.score ? `score ${summary.score.home}–${summary.score.away}` : null,
    ].filter(Boolean).join(" · ");
    $("frame-count").textContent = info.frames - 1;
    $("scrub").max = info.frames - 1;
    $("scrub").addEventListener("input", () => { setPlaying(false); show(Number($("scrub").value)); });
    $("frame").addEventListener("load", () => { loading = false; });
    $("frame").addEventListener("error", () => { loading = false; });
    $("prev").addEventListener("click", () => { setPlaying(false); show(frame - 1); });
    $("next").addEventListener("click", () => { setPlaying(false); show(frame + 1); });
    $("play").addEventListener("click", () => setPlaying(!playing));
    document.addEventListener("keydown", onKey);
    radarObjects = TV.drawPitch($("review-radar"), info.pitch);
    buildOverlay();
    buildCalls();
    buildAsk();
    show(0);
  });
})();
