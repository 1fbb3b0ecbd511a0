/* Shared by every page: the PIN, JSON requests, small DOM helpers and the pitch drawing. */
"use strict";

const TV = (() => {
  const PIN_KEY = "tablevar-pin";
  const SVG_NS = "http://www.w3.org/2000/svg";
  const KIND_LABELS = {
    ball_out: "Ball out", goal: "Goal", goal_disallowed: "Goal disallowed", offside: "Offside",
    foul: "Foul", close_call: "Close call", half_time: "Half time", full_time: "Full time",
    turnover: "Turnover", shot_called: "Shot called", set_piece_fault: "Set-piece fault",
  };
  const RESTART_LABELS = {
    throw_in: "throw-in", corner: "corner", goal_kick: "goal kick", kick_off: "kick-off",
    free_kick: "free kick", penalty: "penalty",
  };

  const pin = () => sessionStorage.getItem(PIN_KEY) || "";

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }

  function svg(tag, attrs = {}) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
    return node;
  }

  let toastTimer = null;
  function toast(text, kind = "info") {
    const box = document.getElementById("toast");
    if (!box) return;
    box.textContent = text;
    box.className = `toast ${kind}`;
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { box.hidden = true; }, 4000);
  }

  function setUnlocked(on) {
    document.body.classList.toggle("unlocked", on);
    document.getElementById("pin-input").hidden = on;
    document.getElementById("pin-button").hidden = on;
    document.getElementById("pin-state").hidden = !on;
  }

  function lock() {
    sessionStorage.removeItem(PIN_KEY);
    setUnlocked(false);
  }

  /* POST JSON with the PIN; resolves to the JSON answer, rejects with the server's message. */
  async function post(url, body = {}, pinOverride = null) {
    let response;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Tablevar-PIN": pinOverride ?? pin() },
        body: JSON.stringify(body),
      });
    } catch (_) {
      const message = "The table's server cannot be reached: nothing was changed.";
      toast(message, "error");
      throw new Error(message);
    }
    let data = null;
    try { data = await response.json(); } catch (_) { /* not JSON */ }
    if (!response.ok) {
      const message = (data && data.message) || `${response.status} ${response.statusText}`;
      if (response.status === 403) lock();
      toast(message, "error");
      throw new Error(message);
    }
    return data;
  }

  async function getJSON(url) {
    const response = await fetch(url);
    const data = await response.json();
    if (!response.ok) throw new Error(data.message || response.statusText);
    return data;
  }

  function initPin() {
    const form = document.getElementById("pin-form");
    if (!form) return;
    setUnlocked(Boolean(pin()));
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const input = document.getElementById("pin-input");
      try {
        await post("/api/auth", {}, input.value.trim());
        sessionStorage.setItem(PIN_KEY, input.value.trim());
        input.value = "";
        setUnlocked(true);
        toast("Controls unlocked", "ok");
      } catch (_) { /* toast already says why */ }
    });
    document.getElementById("pin-lock").addEventListener("click", lock);
  }

  const fmtClock = (seconds) => {
    const s = Math.max(0, Math.floor(seconds || 0));
    return `${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}`;
  };
  const fmtMm = (mm) => (mm === null || mm === undefined ? "–" : `${mm > 0 ? "+" : ""}${Number(mm).toFixed(2)} mm`);
  const kindLabel = (kind) => KIND_LABELS[kind] || String(kind || "call").replace(/_/g, " ");
  const restartLabel = (restart) => RESTART_LABELS[restart] || restart;
  const tooClose = (call) => call.margin_mm !== null && call.margin_mm !== undefined &&
    call.uncertainty_mm !== null && call.uncertainty_mm !== undefined &&
    Math.abs(call.margin_mm) <= call.uncertainty_mm;

  const TEAM_NAMES = { home: "Home", away: "Away" };
  const teamName = (team) => TEAM_NAMES[team] || team;
  const otherTeam = (team) => (team === "home" ? "away" : team === "away" ? "home" : null);
  // The rules say so on a live call (a referee's decision on it is no longer too close); a
  // recorded match's calls.jsonl only has the margin and its uncertainty.
  const tooCloseCall = (call) =>
    call.too_close_to_call === undefined ? tooClose(call) : Boolean(call.too_close_to_call);

  /* The call in a player's words: "Goal for Home · kick-off Away", "Offside: Home #8 · free
     kick Away", "Too close to call · the referee decides". The restart goes to call.team,
     except after a goal, where call.team is the scorer and the other team kicks off. */
  function callWords(call) {
    if (call.kind === "shot_called") {  // the rules' word on it, where the ball lay
      const refused = String(call.note || "").startsWith("refused");
      const close = tooCloseCall(call) ? " · too close to call" : "";
      return `Shot called by ${teamName(call.team)} · ${refused ? call.note : "accepted"}${close}`;
    }
    if (tooCloseCall(call)) {
      const settled = call.status === "upheld" || call.status === "rejected";
      return `Too close to call · the referee ${settled ? "decided" : "decides"}`;
    }
    const restart = call.restart
      ? `${restartLabel(call.restart)} ${teamName(call.kind === "goal" ? otherTeam(call.team) : call.team) || ""}`.trim()
      : null;
    const fig = call.figure ? `${teamName(call.figure.team)} #${call.figure.id}` : null;
    let head;
    if (call.kind === "turnover") return `Turnover · ${teamName(call.team)}'s turn${call.note ? " (" + call.note + ")" : ""}`;
    if (call.kind === "goal") head = `Goal for ${teamName(call.team)}`;
    else if (call.kind === "goal_disallowed") head = "No goal";
    else if (call.kind === "ball_out") head = "Out";
    else if ((call.kind === "offside" || call.kind === "foul") && fig) head = `${kindLabel(call.kind)}: ${fig}`;
    else if (call.kind === "close_call" && call.margin_mm !== null && call.margin_mm !== undefined) {
      head = `Close call · ${Math.abs(call.margin_mm).toFixed(1)} mm`;
    } else head = kindLabel(call.kind);
    return restart ? `${head} · ${restart}` : head;
  }

  /* One line of facts about a call: law, line, margin with uncertainty, restart. */
  function callFacts(call) {
    const parts = [];
    if (call.law) parts.push(call.law);
    if (call.line) parts.push(call.line.replace(/_/g, " "));
    if (call.margin_mm !== null && call.margin_mm !== undefined) {
      const unc = call.uncertainty_mm !== null && call.uncertainty_mm !== undefined ? ` ± ${Number(call.uncertainty_mm).toFixed(2)}` : "";
      parts.push(`margin ${fmtMm(call.margin_mm)}${unc}`);
    }
    // After a goal call.team is the scorer: the other team kicks off.
    const to = call.kind === "goal" ? otherTeam(call.team) : call.team;
    if (call.restart) parts.push(`${restartLabel(call.restart)}${to ? " to " + to : ""}`);
    return parts.join(" · ");
  }

  function callBadges(call) {
    const badges = [];
    // call.team is the scorer of a goal but the team restarting after any other call: the tag
    // says which, so "Away" on an offside is never read as the offender.
    if (call.team) {
      const text = call.kind === "goal" ? `${teamName(call.team)} scores`
        : call.kind === "shot_called" ? `${teamName(call.team)} calls`
        : call.kind === "turnover" ? `${teamName(call.team)}'s turn`
        : `${teamName(call.team)} restarts`;
      badges.push(el("span", { class: `team-tag ${call.team}`, text }));
    }
    if (tooCloseCall(call)) badges.push(el("span", { class: "badge close", text: "too close to call" }));
    if (call.status === "overruled") badges.push(el("span", { class: "badge overruled", text: "overruled" }));
    return badges;
  }

  /* Draw the cloth, lines and goals (all in pitch mm, +y up) and return the layer for objects. */
  function drawPitch(svgEl, pitch) {
    const [hx, hy] = pitch.cloth_half_mm;
    svgEl.setAttribute("viewBox", `${-hx} ${-hy} ${2 * hx} ${2 * hy}`);
    svgEl.replaceChildren();
    const world = svg("g", { transform: "scale(1,-1)" });
    world.append(svg("rect", { x: -hx, y: -hy, width: 2 * hx, height: 2 * hy, class: "cloth" }));
    const stripes = 12;
    const step = pitch.length_mm / stripes;
    for (let i = 0; i < stripes; i += 2) {
      world.append(svg("rect", {
        x: -pitch.length_mm / 2 + i * step, y: -pitch.width_mm / 2, width: step,
        height: pitch.width_mm, class: "stripe",
      }));
    }
    for (const goal of pitch.goals) {
      const x = Math.min(goal.x0, goal.x1);
      world.append(svg("rect", {
        x, y: goal.y0, width: Math.abs(goal.x1 - goal.x0), height: goal.y1 - goal.y0, class: "goal",
      }));
    }
    for (const line of pitch.lines) {
      if (line.disc) {
        world.append(svg("circle", { cx: line.disc[0], cy: line.disc[1], r: line.disc[2], class: "paint" }));
        continue;
      }
      const pts = [...line.inner, ...line.outer.slice().reverse()];
      world.append(svg("polygon", { points: pts.map((p) => p.join(",")).join(" "), class: "paint" }));
    }
    const objects = svg("g", { class: "objects" });
    world.append(objects);
    svgEl.append(world);
    return objects;
  }

  /* Draw the ball and every figure of one tracks.jsonl record into the objects layer. */
  function drawObjects(layer, record, pitch) {
    layer.replaceChildren();
    if (!record) return;
    for (const fig of record.figures || []) {
      layer.append(svg("circle", {
        cx: fig.x_mm, cy: fig.y_mm, r: pitch.base_radius_mm, class: `figure ${fig.team}`,
      }));
    }
    if (record.ball) {
      layer.append(svg("circle", {
        cx: record.ball.x_mm, cy: record.ball.y_mm, r: pitch.ball_radius_mm,
        class: `ball${record.ball.moving ? " moving" : ""}`,
      }));
    }
  }

  /* Like drawObjects, but each figure (by id) and the ball keep their circle from record to
     record, so a CSS transition on cx and cy glides them between the server's updates. */
  function moveObjects(layer, record, pitch) {
    const old = new Map([...layer.children].map((c) => [c.dataset.key, c]));
    const place = (key, xy, r, cls, before) => {
      let c = old.get(key);
      old.delete(key);
      if (!c) {
        c = svg("circle", { "data-key": key });
        layer.insertBefore(c, before);
      }
      c.setAttribute("cx", xy.x_mm);
      c.setAttribute("cy", xy.y_mm);
      c.setAttribute("r", r);
      c.setAttribute("class", cls);
    };
    const ballEl = record && record.ball ? old.get("ball") || null : null;
    (record ? record.figures || [] : []).forEach((fig, i) => place(
      `f${fig.id ?? `#${i}`}`, fig, pitch.base_radius_mm, `figure ${fig.team}`, ballEl));
    if (record && record.ball) {
      place("ball", record.ball, pitch.ball_radius_mm, `ball${record.ball.moving ? " moving" : ""}`, null);
    }
    for (const gone of old.values()) gone.remove();
  }

  document.addEventListener("DOMContentLoaded", initPin);
  return {
    el, svg, post, getJSON, toast, pin, fmtClock, fmtMm, kindLabel, restartName: restartLabel, callFacts, callBadges,
    tooClose, tooCloseCall, callWords, teamName, drawPitch, drawObjects, moveObjects,
  };
})();
