"""A recording keeps the game refereed on it (``meta.json`` ``game``): ``tablevar live
--game button-football --record`` stores it, and a later ``analyze`` (and so ``review``) of the
recording referees that game, not the one its table profile names; a stored game tablevar does
not know is refused in one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hardware.frame_source import Frame
from hardware.recording import read_meta
from simulator.sim_source import SimSource
from tablevar.cli import main
from tablevar.live_record import LiveRecorder
from web.games import page_words
from web.hub import MatchHub
from web.matchlog import MatchLog
from web.recordings import Analysis


@pytest.fixture
def both_games(tmp_path) -> str:
    """A table profile that names FISTF but has the pieces of button football too."""
    fistf = Path("calibration/tables/fistf.toml").read_text(encoding="utf-8")
    button = Path("calibration/tables/button-football.toml").read_text(encoding="utf-8")
    pieces = button[button.index("[button]") :]
    pieces = pieces[: pieces.index("\n[", 1)] + pieces[pieces.index("[keeper]") - 1 :]
    path = tmp_path / "club.toml"
    path.write_text(fistf.replace('name = "fistf"', 'name = "club"') + "\n" + pieces)
    return str(path)


def _set_meta(folder: Path, **values) -> None:
    meta = json.loads((folder / "meta.json").read_text())
    (folder / "meta.json").write_text(json.dumps(meta | values))


def test_the_live_recorder_stores_the_game(tmp_path):
    hub = MatchHub(MatchLog(tmp_path / "match.sqlite"), output_dir=tmp_path / "out")
    source = SimSource("kickoff_pass", realtime=False, size_px=(320, 240), fps=20.0)
    recorder = LiveRecorder(tmp_path / "rec", hub, "club.toml", "button-football")
    try:
        image = np.zeros((240, 320, 3), np.uint8)
        for i in range(3):
            recorder.write(Frame(i, i * 50_000_000, image), i / 20.0, source)
    finally:
        recorder.close()
        source.close()
        hub.close()
        hub.log.close()
    meta = read_meta(tmp_path / "rec")
    assert (meta.table, meta.game, meta.frames) == ("club.toml", "button-football", 3)


def test_analyze_referees_the_recorded_game(sim_recording, both_games, tmp_path):
    """The table names FISTF; the recording says button football was played on it."""
    _set_meta(sim_recording, game="button-football")
    out = tmp_path / "out"
    argv = ["analyze", str(sim_recording), "--out", str(out), "--table", both_games]
    assert main([*argv, "--no-progress"]) == 0
    assert json.loads((out / "summary.json").read_text())["game"] == "button-football"
    # the review page of that analysis speaks of button football, not of the table's FISTF
    analysis = Analysis(out)
    assert page_words(analysis.table(), analysis.game())["game"].name == "button-football"


def test_a_recorded_game_tablevar_does_not_know_is_one_line(sim_recording, tmp_path, capsys):
    _set_meta(sim_recording, game="carrom")
    assert main(["analyze", str(sim_recording), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert (
        err.count("\n") == 1 and "refereed as 'carrom', a game this tablevar does not know" in err
    )
    # --game says which game to referee instead.
    assert read_meta(sim_recording).game == "carrom"
