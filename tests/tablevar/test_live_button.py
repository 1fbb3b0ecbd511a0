"""Button football refereed live: the bundled button recording played into the live runner
as a camera would deliver it, the players' shot call made from the page's control at the time
they made it (``shot_calls.jsonl``): the call is judged where the ball lay, the called goal
counts, and both calls get their evidence pictures (BF Angesagte Schüsse)."""

from __future__ import annotations

import time
from pathlib import Path

from hardware.sources import open_source
from tablevar.button_stage import read_shot_calls
from tablevar.live import LiveOptions, LiveRunner
from web.hub import MatchHub
from web.matchlog import MatchLog

RECORDING = Path(__file__).resolve().parents[2] / "recordings" / "demo-button-football"


class CallingSource:
    """The recording, and at each recorded shot call's time the call made through the hub, as
    the page's button makes it (between two frames, as a press lands)."""

    def __init__(self, hub: MatchHub, folder: Path):
        self._source, self._hub = open_source(str(folder)), hub
        self._calls = list(read_shot_calls(folder))
        self.answers: list[str] = []

    def __getattr__(self, name):
        return getattr(self._source, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self._source.close()

    def frames(self):
        t0 = None
        for frame in self._source.frames():
            t0 = frame.t_s if t0 is None else t0
            while self._calls and frame.t_s - t0 >= self._calls[0][1]:
                team = ("home", "away")[self._calls.pop(0)[0]]
                state = self._hub.control("shot_call", team=team)
                self.answers.append(state["calls"][0]["note"])
            yield frame


def test_a_shot_called_on_the_live_page_makes_the_goal_count(tmp_path):
    hub = MatchHub(MatchLog(tmp_path / "m.sqlite", table="button-football"), output_dir=tmp_path)
    hub.control("start")
    source = CallingSource(hub, RECORDING)
    runner = LiveRunner(
        lambda: source,
        hub,
        tmp_path,
        options=LiveOptions(
            table="button-football", calibration_s=0.05, calibration_frames=1, pace_files=False
        ),
    )
    runner.start()
    deadline = time.monotonic() + 300
    while not runner.ended and time.monotonic() < deadline:
        time.sleep(0.2)
    runner.stop()
    try:
        assert runner.ended and runner.error is None
        assert source.answers == ["called"]  # the ball lay wholly in the away half
        state = hub.snapshot()
        calls = {c["kind"]: c for c in state["calls"]}
        assert sorted(calls) == ["goal", "shot_called"]
        assert calls["goal"]["team"] == "home" and calls["goal"]["law"] == "BF Angesagte Schüsse"
        assert state["score"] == {"home": 1, "away": 0}
        assert state["restart"]["kind"] == "kick_off" and state["restart"]["team"] == "away"
        assert state["restart"]["spot"] == {"x_mm": 0.0, "y_mm": 0.0}
        for call in calls.values():  # the shot call's picture too, drawn by the worker
            assert (tmp_path / call["evidence_rel"]).is_file()
    finally:
        hub.close()
        hub.log.close()
