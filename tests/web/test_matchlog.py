from __future__ import annotations

from pathlib import Path

import pytest

from web.matchlog import Clock, MatchLog, MatchLogError, score_correction


def goal(team: str, frame: int = 10, kind: str = "goal") -> dict:
    return {"frame": frame, "t_s": frame / 25, "kind": kind, "team": team, "law": "FISTF 10"}


@pytest.mark.parametrize(
    ("record", "correction"),
    [
        (goal("home"), (-1, 0)),
        (goal("away"), (0, -1)),
        # A disallowed goal names the team awarded the free kick: the goal belonged to the other.
        (goal("home", kind="goal_disallowed"), (0, 1)),
        (goal("away", kind="goal_disallowed"), (1, 0)),
        ({"kind": "ball_out", "team": "home"}, (0, 0)),
        ({"kind": "goal", "team": None}, (0, 0)),
    ],
)
def test_score_correction_of_an_overruled_call(record, correction):
    assert score_correction(record) == correction


def test_reopening_the_log_resumes_score_clock_calls_and_overrules(tmp_path: Path):
    path = tmp_path / "m.sqlite"
    log = MatchLog(path)
    state = log.resume()
    first = log.add_call(state.match_id, goal("home", 100))
    log.add_call(state.match_id, goal("away", 200))
    log.set_score(state.match_id, 1, 1)
    log.set_clock(state.match_id, Clock(321.5, 2, "running"))
    log.add_action(state.match_id, "overrule", first, reason="hand ball")
    log.add_action(state.match_id, "added_time", seconds=30)
    log.close()

    resumed = MatchLog(path).resume()
    assert resumed.match_id == state.match_id
    assert [c.record["frame"] for c in resumed.calls] == [100, 200]
    assert resumed.call(first).status == "overruled"
    assert resumed.call(first).reason == "hand ball"
    assert resumed.machine_score == (1, 1)
    assert resumed.score == (0, 1)
    assert resumed.added_time_s == 30
    # Nothing watches the table after a restart: the running clock comes back paused.
    assert resumed.clock == Clock(321.5, 2, "paused")


def test_undo_takes_back_the_newest_referee_action_only(tmp_path: Path):
    log = MatchLog(tmp_path / "m.sqlite")
    match_id = log.resume().match_id
    call = log.add_call(match_id, goal("home"))
    log.set_score(match_id, 1, 0)
    log.add_action(match_id, "overrule", call)
    log.add_action(match_id, "added_time", seconds=20)
    assert log.undo_last(match_id)["kind"] == "added_time"
    state = log.load(match_id)
    assert (state.added_time_s, state.score) == (0.0, (0, 0))
    assert log.undo_last(match_id)["kind"] == "overrule"
    assert log.load(match_id).score == (1, 0)
    assert log.undo_last(match_id) is None


def test_a_new_match_starts_clean_and_becomes_the_resumed_one(tmp_path: Path):
    log = MatchLog(tmp_path / "m.sqlite", table="subbuteo-classic", clock_mode="running")
    old = log.resume().match_id
    log.add_call(old, goal("home"))
    new = log.new_match()
    state = log.resume()
    assert (state.match_id, state.calls, state.score) == (new, (), (0, 0))
    assert (state.table, state.clock_mode) == ("subbuteo-classic", "running")
    assert len(log.load(old).calls) == 1


def test_log_is_in_wal_mode(tmp_path: Path):
    path = tmp_path / "m.sqlite"
    MatchLog(path).close()
    assert path.read_bytes()[18:20] == b"\x02\x02"  # file format bytes: 2 = WAL


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (lambda log, m: log.add_action(m, "explode"), "unknown action"),
        (lambda log, m: log.load(m + 99), "no match"),
        (lambda log, m: log.load(m).call(7), "no call 7"),
        (lambda log, m: Clock(status="sleeping"), "clock status"),
    ],
)
def test_mistakes_raise_clear_errors(tmp_path: Path, action, message):
    log = MatchLog(tmp_path / "m.sqlite")
    with pytest.raises(MatchLogError, match=message):
        action(log, log.resume().match_id)


def test_an_unopenable_path_is_a_clear_error(tmp_path: Path):
    with pytest.raises(MatchLogError, match="cannot open match log"):
        MatchLog(tmp_path / "missing-folder" / "m.sqlite")
