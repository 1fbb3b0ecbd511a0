/* The TV view: the score big, the last call in words, and each goal again in slow motion. */
"use strict";

(() => {
  const SLOW = 0.4;  // replay speed: a 3 s clip plays for 7.5 s
  const $ = (id) => document.getElementById(id);
  const calls = new Map();
  const queue = [];
  let playing = false;

  function showBoard(board) {
    $("tv-home").textContent = board.score.home;
    $("tv-away").textContent = board.score.away;
    $("tv-clock").textContent = TV.fmtClock(board.clock.clock_s);
  }

  function showCall(call) {
    calls.set(call.id, call);
    $("tv-call").textContent = TV.callWords(call);
  }

  function playNext() {
    if (playing || !queue.length) return;
    const { src, title } = queue.shift();
    playing = true;
    const box = $("tv-replay-box");
    const video = $("tv-replay");
    $("tv-replay-title").textContent = title;
    box.hidden = false;
    const done = () => {
      if (!playing) return;
      playing = false;
      box.hidden = true;
      playNext();
    };
    video.onended = done;
    video.onerror = done;
    video.defaultPlaybackRate = SLOW;  // a new source starts at the default rate
    video.src = src;
    video.playbackRate = SLOW;
    video.play().catch(done);
  }

  /* Each goal's replay plays once, slowly, as soon as its clip is written. */
  function onReplay(data) {
    if (data.kind !== "goal") return;
    const call = calls.get(data.id);
    const src = `/evidence/${data.replay_rel.split("/").map(encodeURIComponent).join("/")}`;
    queue.push({ src, title: call ? TV.callWords(call) : "Goal" });
    playNext();
  }

  function connect() {
    const source = new EventSource("/events");
    source.onopen = () => { $("tv-offline").hidden = true; };
    source.onerror = () => { $("tv-offline").hidden = false; };
    source.addEventListener("state", (e) => {
      const state = JSON.parse(e.data);
      showBoard(state);
      for (const call of [...state.calls].reverse()) showCall(call);
      if (!state.calls.length) $("tv-call").textContent = "";
    });
    source.addEventListener("scoreboard", (e) => showBoard(JSON.parse(e.data)));
    source.addEventListener("call", (e) => showCall(JSON.parse(e.data)));
    source.addEventListener("replay", (e) => onReplay(JSON.parse(e.data)));
  }

  document.addEventListener("DOMContentLoaded", connect);
})();
