"""``tablevar live`` killed with SIGKILL mid-match and started again resumes the match exactly.

Each test runs the real command on the simulated table (in real time, as a camera delivers
frames), drives it over HTTP as a referee would, kills the process with SIGKILL (no clean-up
runs: a power cut) and starts it again on the same output folder. The restarted process must
show the same match: score, clock (to within a frame of the last reading the page had), half,
calls, overrules, added time, possession, the pending restart, and go on from there.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

PIN = "2468"
COMMAND = (sys.executable, "-m", "tablevar", "live", "--sim-fast", "--port", "0")
FPS = 30.0  # the command's simulated camera
SETTLE_KEYS = ("score", "added_time_s", "possession", "restart", "awaiting_referee", "teams")


class Live:
    """One ``tablevar live`` process, its URL, and its API."""

    def __init__(self, out: Path, source: str, *extra: str):
        self.log_path = out.parent / f"{out.name}-{source.replace(':', '_')}.log"
        self.log = self.log_path.open("w")
        self.proc = subprocess.Popen(
            [*COMMAND, "--source", source, "--out", str(out), "--pin", PIN, *extra],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        deadline = time.monotonic() + 60
        self.url = None
        while self.url is None:
            assert self.proc.poll() is None, self.log_path.read_text()
            assert time.monotonic() < deadline, "the live command never served"
            for line in self.log_path.read_text().splitlines():
                if "serving on " in line:
                    self.url = line.split("serving on ", 1)[1].strip().rstrip("/")
            time.sleep(0.05)

    def state(self) -> dict:
        with urllib.request.urlopen(f"{self.url}/api/state", timeout=10) as response:
            return json.load(response)

    def post(self, path: str, body: dict | None = None) -> dict:
        request = urllib.request.Request(
            f"{self.url}{path}",
            data=json.dumps(body or {}).encode(),
            headers={"Content-Type": "application/json", "X-Tablevar-PIN": PIN},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.load(response)

    def wait(self, what, timeout_s: float, why: str) -> dict:
        deadline = time.monotonic() + timeout_s
        while True:
            state = self.state()
            if what(state):
                return state
            assert self.proc.poll() is None, self.log_path.read_text()
            assert time.monotonic() < deadline, f"{why}; last state: {summary(state)}"
            time.sleep(0.05)

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        self.log.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.log.close()


def summary(state: dict) -> dict:
    keep = ("score", "clock", "restart", "awaiting_referee", "source")
    calls = [(c["id"], c["kind"], c["status"]) for c in state.get("calls", [])]
    return {**{k: state.get(k) for k in keep}, "calls": calls}


def calls_of(state: dict) -> list[tuple]:
    """What must survive of each call: id, kind, frame, law, team, restart, status, reason."""
    keys = ("id", "kind", "frame", "t_s", "law", "team", "restart", "status", "reason")
    return [tuple(c.get(k) for k in keys) for c in state["calls"]]


def logged_clock(out: Path) -> tuple[float, int]:
    """The rules' clock and frame in the killed process's newest snapshot (read as is)."""
    with sqlite3.connect(out / "match.sqlite") as db:
        frame, text = db.execute(
            "SELECT frame, state FROM snapshots ORDER BY id DESC LIMIT 1"
        ).fetchone()
    clock = json.loads(text)["state"]["clock"]
    return clock["elapsed_s"], frame


@pytest.fixture
def runs():
    started: list[Live] = []

    def start(out: Path, source: str, *extra: str) -> Live:
        live = Live(out, source, *extra)
        started.append(live)
        return live

    yield start
    for live in started:
        live.stop()


def check_resumed(before: dict, after: dict, clock_at_kill_s: float, last_frame: int) -> None:
    """``after`` (the restarted process) holds the match ``before`` showed, with the clock the
    killed process logged on its last frame, ``last_frame``: every frame is logged, so that is
    the clock of the frame it was killed on, to within one frame; the page's last reading was
    taken the frames between before it."""
    assert after["match_id"] == before["match_id"]
    assert {k: after[k] for k in SETTLE_KEYS} == {k: before[k] for k in SETTLE_KEYS}
    assert after["clock"]["half"] == before["clock"]["half"]
    assert calls_of(after) == calls_of(before)  # nothing lost, nothing added
    # It resumed from the logged clock. A clock that runs on (FISTF 3.1) may already have
    # counted the frames the restarted pipeline refereed before this reading (their numbers
    # follow ``last_frame``; the first after the outage adds nothing), and no more.
    ran = 0 if after["frame"] is None else max(after["frame"]["frame"] - last_frame, 0)
    assert 0.0 <= after["clock"]["clock_s"] - clock_at_kill_s <= ran / FPS + 1e-9
    frames_since = last_frame - before["frame"]["frame"]
    assert 0.0 <= clock_at_kill_s - before["clock"]["clock_s"] <= (frames_since + 1) / FPS


def test_sigkill_after_a_goal_an_overrule_and_added_time_resumes_the_match(tmp_path, runs):
    out = tmp_path / "out"
    # The demo match from 37 s, with the FISTF clock that runs on (3.1): a ball placed for a
    # shot from inside the shooting zone, the goal.
    first = runs(out, "sim:demo@37", "--clock-mode", "running")
    first.post("/api/match/start")
    state = first.wait(lambda s: s["score"] != {"home": 0, "away": 0}, 240, "no goal was called")
    assert state["score"] == {"home": 1, "away": 0}
    (goal,) = [c for c in state["calls"] if c["kind"] == "goal"]
    # Its picture (drawn once the pipeline releases the frame) is named by the match and the
    # frame, unique across restarts.
    drawn = first.wait(
        lambda s: any(c["id"] == goal["id"] and c["evidence_rel"] for c in s["calls"]),
        30,
        "the goal's picture was never drawn",
    )
    goal = next(c for c in drawn["calls"] if c["id"] == goal["id"])
    assert goal["evidence_rel"] == f"evidence/m{state['match_id']}-{goal['frame']:06d}-goal.jpg"
    # The referee overrules it (FISTF 7.2.1: a goal kick instead of the kick-off) and adds time.
    first.post(f"/api/calls/{goal['id']}/overrule", {"reason": "hand ball"})
    first.post("/api/match/added-time", {"seconds": 30})
    goal_clock_s = state["clock"]["clock_s"]
    first.wait(lambda s: s["clock"]["clock_s"] > goal_clock_s + 1.0, 60, "the clock stood still")
    before = first.state()
    first.kill()
    clock_at_kill_s, last_frame = logged_clock(out)
    assert before["possession"] == "away"

    # Started again on the same folder, the table seen again a little later in the match.
    second = runs(out, "sim:demo@45", "--calibration", str(out / "calibration.json"))
    after = second.state()
    check_resumed(before, after, clock_at_kill_s, last_frame)
    assert before["score"] == {"home": 0, "away": 0} and before["clock"]["status"] == "running"
    assert before["restart"]["kind"] == "goal_kick" and before["restart"]["team"] == "away"
    (overruled,) = [c for c in after["calls"] if c["id"] == goal["id"]]
    assert (overruled["status"], overruled["reason"]) == ("overruled", "hand ball")
    assert overruled["evidence_rel"] == goal["evidence_rel"]  # logged with the call
    # The pipeline goes on from that state: new frames are numbered after the old ones, and
    # neither the score nor the clock starts again from zero.
    later = second.wait(
        lambda s: s["frame"] is not None and s["frame"]["frame"] > last_frame + 30,
        60,
        "the restarted pipeline never ran",
    )
    assert later["score"] == before["score"] and later["clock"]["half"] == before["clock"]["half"]
    assert later["clock"]["clock_s"] > clock_at_kill_s  # the FISTF clock runs on
    assert calls_of(later)[-len(calls_of(before)) :] == calls_of(before)


def test_sigkill_while_a_too_close_goal_waits_for_the_referee(tmp_path, runs):
    out = tmp_path / "out"
    # Picked up just after a shot into the goal: the shot was not seen, so whether it came from
    # inside the shooting zone (FISTF 7.1) is the referee's to say.
    first = runs(out, "sim:goal_inside_zone@6.75")
    first.post("/api/match/start")
    before = first.wait(
        lambda s: s["awaiting_referee"] is not None, 90, "no too-close goal waited for the referee"
    )
    time.sleep(0.5)  # frames go on while the referee thinks
    before = first.state()
    first.kill()
    clock_at_kill_s, last_frame = logged_clock(out)
    assert before["score"] == {"home": 0, "away": 0}
    assert before["restart"]["kind"] == "referee"

    second = runs(out, "sim:goal_inside_zone@9", "--calibration", str(out / "calibration.json"))
    after = second.state()
    check_resumed(before, after, clock_at_kill_s, last_frame)
    # The referee's word, given to the restarted process, goes into the rules (FISTF 7.1, 4.1).
    given = second.post(f"/api/calls/{before['awaiting_referee']}/uphold")
    assert given["score"] == {"home": 1, "away": 0} and given["awaiting_referee"] is None
    assert given["restart"]["kind"] == "kick_off" and given["restart"]["team"] == "away"
