/* The calibration page: the report of calibration.json and the recalibrate control. */
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const recording = $("calibration").dataset.recording;
  const query = recording ? `?recording=${encodeURIComponent(recording)}` : "";

  const row = (label, value) => TV.el("tr", {}, TV.el("th", { text: label }), TV.el("td", { text: value }));
  const num = (v, unit) => (typeof v === "number" ? `${v.toFixed(3)} ${unit}` : "–");

  function render(report) {
    const status = $("calib-status");
    const box = $("calib-report");
    box.replaceChildren();
    const c = report.calibration;
    if (!c) {
      status.hidden = false;
      status.className = "banner warn";
      status.textContent = "No calibration yet. Point the camera at the whole pitch and recalibrate.";
    } else {
      status.hidden = true;
      const res = c.residuals || {};
      const size = c.image_size_px || (c.camera && c.camera.size_px) || [];
      box.append(TV.el("table", { class: "table kv" },
        row("Table", c.table || "–"),
        row("Image", size.length ? `${size[0]} × ${size[1]} px` : "–"),
        row("Home goal", c.home || "left"),
        row("Residual (RMS)", `${num(res.rms_px, "px")} · ${num(res.rms_mm, "mm")}`),
        row("Lines used", `${(c.lines_used || []).length} of ${Object.keys(c.line_edges_mm || {}).length || "–"}`)));
      const perMm = res.per_line_mm || {};
      const perPx = res.per_line_px || {};
      const names = [...new Set([...(c.lines_used || []), ...Object.keys(perMm), ...Object.keys(perPx)])];
      if (names.length) {
        box.append(TV.el("h3", { text: "Lines" }), TV.el("table", { class: "table lines" },
          TV.el("thead", {}, TV.el("tr", {}, ...["Line", "Used", "Residual px", "Residual mm", "Edges (inner / outer) mm"].map((t) => TV.el("th", { text: t })))),
          TV.el("tbody", {}, ...names.map((name) => {
            const edge = (c.line_edges_mm || {})[name];
            const edges = edge ? `${Number(edge.inner_mm ?? edge[0]).toFixed(2)} / ${Number(edge.outer_mm ?? edge[1]).toFixed(2)}` : "–";
            const used = (c.lines_used || []).includes(name);
            return TV.el("tr", { class: used ? "" : "unused" },
              TV.el("td", { text: name.replace(/_/g, " ") }), TV.el("td", { text: used ? "✓" : "–" }),
              TV.el("td", { text: num(perPx[name], "") }), TV.el("td", { text: num(perMm[name], "") }),
              TV.el("td", { text: edges }));
          }))));
      }
    }
    const img = $("calib-overlay");
    img.hidden = !report.overlay;
    $("calib-no-overlay").hidden = report.overlay;
    if (report.overlay) img.src = `/api/calibration/overlay.png${query}${query ? "&" : "?"}t=${Date.now()}`;
    const named = c && c.ball_colour;
    $("ball-colour").replaceChildren(named
      ? TV.el("span", {}, "The ball is the colour picked: ", TV.el("span", { class: "swatch", style: `background:${named}` }), ` ${named}`)
      : "The ball's colour is found by itself.");
    const ask = $("ball-ask");
    const seen = report.ball_seen;
    ask.hidden = !(c && typeof seen === "number" && seen < 0.9);
    if (!ask.hidden) {
      ask.textContent = recording
        ? `The ball was found in only ${Math.round(seen * 100)} % of the frames: unlock with the PIN and click the ball in the picture below, then analyze again.`
        : "The ball is not seen right now: if it is on the table, unlock with the PIN and click it in the picture below.";
    }
    const view = $("calib-view");
    view.hidden = !report.view;
    $("calib-no-view").hidden = report.view;
    if (report.view) view.src = `/api/calibration/view.png${query}${query ? "&" : "?"}t=${Date.now()}`;
    $("recalibrate").disabled = !report.recalibrate;
    $("recalibrate-hint").hidden = report.recalibrate;
  }

  async function load() {
    try { render(await TV.getJSON(`/api/calibration${query}`)); } catch (err) { TV.toast(err.message, "error"); }
  }

  async function pickBall(event) {
    if (!document.body.classList.contains("unlocked")) {
      TV.toast("Unlock the controls with the PIN to pick the ball", "error");
      return;
    }
    const img = event.currentTarget;
    const box = img.getBoundingClientRect();
    // The click in the picture's own pixels, whatever size it is shown at.
    const x = ((event.clientX - box.left) / box.width) * img.naturalWidth;
    const y = ((event.clientY - box.top) / box.height) * img.naturalHeight;
    const out = $("ball-result");
    out.hidden = false;
    try {
      const answer = await TV.post(`/api/calibration/ball${query}`, { x_px: x, y_px: y });
      out.className = "answer yes";
      out.textContent = `Ball colour saved: ${answer.ball_colour}`;
      load();
    } catch (err) {
      out.className = "answer error";
      out.textContent = err.message;
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    $("calib-view").addEventListener("click", pickBall);
    $("recalibrate").addEventListener("click", async () => {
      const out = $("recalibrate-result");
      out.hidden = false;
      out.className = "answer";
      out.textContent = "Recalibrating…";
      try {
        await TV.post("/api/calibration/recalibrate");
        out.className = "answer yes";
        out.textContent = "Recalibrated.";
        load();
      } catch (err) {
        out.className = "answer error";
        out.textContent = err.message;
      }
    });
    load();
  });
})();
