/* The live page: one EventSource, no polling. */
"use strict";

(() => {
  const STATUS = {
    not_started: "Not started", running: "Running", stopped: "Stopped · ball at rest",
    paused: "Paused", half_time: "Half time", ended: "Full time",
  };
  const $ = (id) => document.getElementById(id);
  const known = new Set();
  let pitch = null;
  let objects = null;
  let lastFrame = null;
  let lastFrameMs = null;
  let actions = null;  // the actions the match's game takes (null: all of FISTF's)
  let spotLayer = null;  // the restart spot on the radar (button football)
  let lastRestart = null;
  const GLIDE_MAX_MS = 250;
  const OFFLINE_AFTER_MS = 1500;  // a longer gap (a pause, a reconnect) jumps instead of gliding

  function halfLabel(half) {
    return half === 1 ? "1st half" : half === 2 ? "2nd half" : `Extra time ${half - 2}`;
  }

  function showScoreboard(board) {
    $("score-home").textContent = board.score.home;
    $("score-away").textContent = board.score.away;
    $("clock").textContent = TV.fmtClock(board.clock.clock_s);
    const added = $("added-time");
    added.hidden = !board.added_time_s;
    added.textContent = `+${TV.fmtClock(board.added_time_s)} added`;
    $("half").textContent = halfLabel(board.clock.half);
    const status = $("clock-status");
    status.textContent = STATUS[board.clock.status] || board.clock.status;
    status.className = `status status-${board.clock.status}`;
    const warning = $("source-warning");
    warning.hidden = board.source.ok;
    warning.textContent = `Camera: ${board.source.message || "no frames"} — the clock is paused meanwhile.`;
    showRecording(board.recording);
    const dropped = $("dropped");
    dropped.hidden = !board.dropped_frames;
    dropped.textContent = `${board.dropped_frames} frames dropped`;
    if ($("turn-panel")) showTurn(board);
  }

  /* Button football: whose turn, its contacts, the shot called, and the restart: where the
     ball goes (also on the radar) and the buttons moved for it against each allowance. */
  function showTurn(board) {
    const turn = board.turn || {};
    $("turn-team").textContent = turn.team ? TV.teamName(turn.team) : "not known yet";
    $("turn-contacts").textContent = turn.contacts ?? 0;
    $("turn-per").textContent = turn.per_turn ?? 7;
    $("shot-state").textContent = board.shot_called ? `${TV.teamName(board.shot_called)} called a shot`
      : board.shot_under_way ? `${TV.teamName(board.shot_under_way)}'s called shot under way` : "no shot called";
    const r = board.restart;
    $("restart-box").hidden = !r;
    lastRestart = r && r.spot ? r : null;
    drawSpot();
    if (!r) return;
    const spot = r.spot ? ` at x ${r.spot.x_mm.toFixed(0)} mm, y ${r.spot.y_mm.toFixed(0)} mm` : "";
    $("restart-line").textContent = `Restart: ${TV.restartName(r.kind)}${r.team ? " " + TV.teamName(r.team) : ""}${spot} · ${r.law}`;
    for (const team of ["home", "away"]) {
      const m = (r.moves || {})[team] || {};
      const over = m.allowed !== null && m.allowed !== undefined && m.moved > m.allowed;
      const cell = $(`moves-${team}`);
      cell.textContent = `${m.moved ?? 0} of ${m.allowed ?? "any"}${over ? " — too many" : ""}`;
      cell.classList.toggle("over", over);
    }
  }

  function drawSpot() {
    if (!spotLayer) return;
    spotLayer.replaceChildren();
    if (!lastRestart) return;
    const { x_mm: x, y_mm: y } = lastRestart.spot;
    const r = 2 * pitch.ball_radius_mm;
    const mark = TV.svg("g", { class: "spot-mark", "data-kind": lastRestart.kind });
    const title = TV.svg("title");
    title.textContent = `Restart spot: ${TV.restartName(lastRestart.kind)}`;
    mark.append(title, TV.svg("circle", { cx: x, cy: y, r }),
      TV.svg("line", { x1: x - r, y1: y, x2: x + r, y2: y }),
      TV.svg("line", { x1: x, y1: y - r, x2: x, y2: y + r }));
    spotLayer.append(mark);
  }

  async function callShot(team) {
    try { showState(await TV.post("/api/match/shot-call", { team })); }
    catch (_) { /* TV.post showed the message */ }
  }

  function initShotCalls() {
    if (!$("turn-panel")) return;
    for (const button of document.querySelectorAll(".shot-call")) {
      button.addEventListener("click", () => callShot(button.dataset.team));
    }
    // H and A call a shot from a keyboard at the table (not while typing, e.g. the PIN).
    document.addEventListener("keydown", (event) => {
      if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
      const target = event.target;
      if (target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return;
      const team = { h: "home", a: "away" }[event.key.toLowerCase()];
      if (!team) return;
      event.preventDefault();
      callShot(team);
    });
  }

  /* Controls of actions the match's game does not take are hidden (button football has no
     added time, overrule or undo). */
  function showActions(list) {
    actions = list || null;
    for (const button of document.querySelectorAll("#controls button")) {
      const action = button.dataset.added ? "added_time" : button.dataset.action;
      button.hidden = actions !== null && !actions.includes(action);
    }
  }

  /* "● REC" while --record writes; a banner once it stopped (refereeing goes on). */
  function showRecording(recording) {
    $("recording").hidden = !recording || !recording.ok;
    const warning = $("recording-warning");
    warning.hidden = !recording || recording.ok;
    if (recording && !recording.ok) warning.textContent = `Recording: ${recording.message}`;
  }

  /* While the event stream is down the server is unreachable: say so, switch the controls off. */
  function setOnline(online) {
    $("offline-banner").hidden = online;
    document.body.classList.toggle("offline", !online);
    for (const button of document.querySelectorAll(".controls button, .call-actions button, .shot-call")) {
      button.disabled = !online;
    }
  }

  const mediaUrl = (rel) => `/evidence/${rel.split("/").map(encodeURIComponent).join("/")}`;

  function showLarge(kind, src) {
    const img = $("evidence-large");
    const video = $("replay-large");
    img.hidden = kind !== "picture";
    video.hidden = kind !== "replay";
    if (kind === "picture") { video.pause(); img.src = src; }
    else { video.src = src; video.play().catch(() => {}); }
    if (!$("evidence-dialog").open) $("evidence-dialog").showModal();
  }

  function replayButton(call) {
    return TV.el("button", {
      class: "replay-button", text: "▶ Replay",
      onclick: () => showLarge("replay", mediaUrl(call.replay_rel)),
    });
  }

  /* A replay clip written after its call was shown: add its button to that call. */
  function addReplay(data) {
    const item = document.querySelector(`#feed li[data-id="${data.id}"]`);
    if (!item || item.querySelector(".replay-button")) return;
    item.querySelector(".call-main").append(replayButton(data));
  }

  /* A goal the rules left to the referee gets Uphold / Reject (the rules' decision, FISTF 7.1);
     once settled, or too close but not waiting, the rules take no other word on it. Any
     other call: Overrule, or Reinstate once overruled. */
  function callActions(call) {
    if (actions !== null && !actions.includes("overrule")) return [];
    const button = (text, action, cls) => TV.el("button", { text, class: cls, onclick: () => verdict(call, action) });
    if (call.awaiting_referee) {
      return [button("Uphold", "uphold", "primary"), button("Reject", "reject", "danger")];
    }
    if (TV.tooCloseCall(call) || call.status === "upheld" || call.status === "rejected") return [];
    return [call.status === "overruled" ? button("Reinstate", "reinstate") : button("Overrule", "overrule")];
  }

  const VERDICTS = { upheld: "upheld by the referee", rejected: "rejected by the referee" };

  function callItem(call) {
    const actions = TV.el("div", { class: "call-actions needs-pin" }, ...callActions(call));
    const main = TV.el("div", { class: "call-main" },
      TV.el("div", { class: "call-head" }, TV.el("span", { class: "kind", text: TV.callWords(call) }), ...TV.callBadges(call)),
      TV.el("div", { class: "call-facts", text: TV.callFacts(call) }),
      TV.el("div", { class: "call-time muted", text: `frame ${call.frame ?? "–"} · ${Number(call.t_s || 0).toFixed(2)} s${call.reason || VERDICTS[call.status] ? " · " + (call.reason || VERDICTS[call.status]) : ""}` }),
      actions);
    if (call.replay_rel) main.append(replayButton(call));
    const item = TV.el("li", { class: `call kind-${call.kind} status-${call.status}`, "data-id": call.id }, main);
    if (call.evidence_rel) {
      const src = mediaUrl(call.evidence_rel);
      item.append(TV.el("img", {
        class: "evidence", src, alt: `Evidence for ${TV.kindLabel(call.kind)} at frame ${call.frame}`,
        onclick: () => showLarge("picture", src),
      }));
    }
    if (document.body.classList.contains("offline")) {
      for (const b of actions.querySelectorAll("button")) b.disabled = true;
    }
    return item;
  }

  function updateCount(total) {
    $("calls-count").textContent = total ? `${total} so far` : "none yet";
    $("feed-empty").hidden = total > 0;
  }

  function showState(state) {
    showActions(state.actions);
    showScoreboard(state);
    $("export-json").href = `/api/match/${state.match_id}/export.json`;
    $("export-csv").href = `/api/match/${state.match_id}/export.csv`;
    known.clear();
    $("feed").replaceChildren(...state.calls.map((call) => { known.add(call.id); return callItem(call); }));
    updateCount(state.calls_total);
    if (state.frame) showFrame(state.frame);
  }

  function addCall(call) {
    if (known.has(call.id)) {
      // A call made by a control (a shot call) comes first without, then with its picture.
      const old = document.querySelector(`#feed li[data-id="${call.id}"]`);
      if (old && call.evidence_rel && !old.querySelector(".evidence")) old.replaceWith(callItem(call));
      return;
    }
    known.add(call.id);
    const item = callItem(call);
    item.classList.add("fresh");
    $("feed").prepend(item);
    updateCount(known.size);
  }

  function showFrame(record) {
    lastFrame = record;
    if (!objects) return;
    // The server sends the radar ~15 times a second: glide each disc over the time since the
    // last update, so it moves smoothly and arrives as the next one comes.
    const now = performance.now();
    const glide = lastFrameMs === null ? 0 : Math.min(now - lastFrameMs, GLIDE_MAX_MS);
    lastFrameMs = now;
    objects.style.setProperty("--glide", `${glide >= GLIDE_MAX_MS ? 0 : glide.toFixed(0)}ms`);
    TV.moveObjects(objects, record, pitch);
    $("radar-info").textContent = `frame ${record.frame} · ${Number(record.t_s).toFixed(2)} s`;
  }

  async function verdict(call, action) {
    const body = {};
    if (action === "uphold" || action === "reject") {
      showState(await TV.post(`/api/calls/${call.id}/${action}`, body));
      return;
    }
    if (action === "overrule") {
      const reason = prompt(`Overrule ${TV.kindLabel(call.kind)} at frame ${call.frame}? Reason (optional):`);
      if (reason === null) return;
      if (reason.trim()) body.reason = reason.trim();
    }
    showState(await TV.post(`/api/calls/${call.id}/${action}`, body));
  }

  function initControls() {
    for (const button of document.querySelectorAll("#controls button")) {
      button.addEventListener("click", async () => {
        try {
          if (button.dataset.added) {
            showState(await TV.post("/api/match/added-time", { seconds: Number(button.dataset.added) }));
            return;
          }
          const action = button.dataset.action;
          if (action === "reset" && !confirm("Start a new match? The score and calls go back to zero.")) return;
          showState(await TV.post(`/api/match/${action}`));
        } catch (_) { /* TV.post showed the message */ }
      });
    }
  }

  function connect() {
    const source = new EventSource("/events");
    const conn = $("conn");
    // A stream the server ends on purpose reconnects within a second: only a longer outage
    // puts the banner up and the controls off.
    let offline = null;
    source.onopen = () => {
      conn.textContent = "● live"; conn.className = "conn live";
      clearTimeout(offline); offline = null; setOnline(true);
    };
    source.onerror = () => {
      conn.textContent = "● reconnecting"; conn.className = "conn down";
      if (offline === null) offline = setTimeout(() => setOnline(false), OFFLINE_AFTER_MS);
    };
    source.addEventListener("replay", (e) => addReplay(JSON.parse(e.data)));
    source.addEventListener("state", (e) => showState(JSON.parse(e.data)));
    source.addEventListener("call", (e) => addCall(JSON.parse(e.data)));
    source.addEventListener("scoreboard", (e) => showScoreboard(JSON.parse(e.data)));
    source.addEventListener("frame", (e) => showFrame(JSON.parse(e.data)));
  }

  document.addEventListener("DOMContentLoaded", async () => {
    initControls();
    initShotCalls();
    connect();
    pitch = await TV.getJSON("/api/pitch");
    objects = TV.drawPitch($("radar"), pitch);
    spotLayer = TV.svg("g", { class: "restart-spot" });
    objects.parentNode.insertBefore(spotLayer, objects);
    drawSpot();
    if (lastFrame) showFrame(lastFrame);
  });
})();
