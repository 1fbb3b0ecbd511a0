"""The match log: events and snapshots in SQLite, what a restart reads, exports."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from web.matchlog import CSV_COLUMNS, MatchLog, MatchLogError


def goal(call_id: int, frame: int) -> dict:
    return {
        "frame": frame,
        "t_s": frame / 25,
        "kind": "goal",
        "team": "home",
        "law": "FISTF 7.1",
        "id": call_id,
        "margin_mm": 9.5,
        "uncertainty_mm": 0.5,
        "restart": "kick_off",
    }


def state(clock_s: float) -> dict:
    return {"schema_version": 1, "state": {"clock": clock_s}}


def test_events_and_snapshots_come_back_after_a_reopen(tmp_path: Path):
    path = tmp_path / "m.sqlite"
    log = MatchLog(path)
    match_id = log.new_match(settings={"start": "open_play"})
    log.record(match_id, state(0.0), None, None)
    (start,) = log.record(match_id, state(0.0), None, None, [("start", None, {})])
    for frame in range(1, 50):  # every frame brings the newest snapshot up to date
        log.record(match_id, state(frame / 25), frame, frame / 25)
    ids = log.record(
        match_id,
        state(2.0),
        50,
        2.0,
        [("call", 1, goal(1, 50)), ("overrule", 1, {"reason": "hand ball"})],
    )
    log.record(match_id, state(2.04), 51, 2.04)
    log.close()

    again = MatchLog(path)
    assert again.current_match() == match_id
    assert again.match(match_id).settings == {"start": "open_play"}
    snap = again.snapshot(match_id)
    assert (snap.event_id, snap.frame, snap.t_s, snap.state) == (ids[-1], 51, 2.04, state(2.04))
    events = again.events(match_id)
    assert [(e.id, e.kind, e.call_id) for e in events] == [
        (start, "start", None),
        (ids[0], "call", 1),
        (ids[1], "overrule", 1),
    ]
    assert events[1].payload == goal(1, 50) and events[2].payload == {"reason": "hand ball"}
    assert again.last_frame() == (51, 2.04)
    # One snapshot row per event (the state after it), not one per frame.
    rows = again._rows("SELECT event_id, frame FROM snapshots ORDER BY id", ())
    assert rows == [(0, None), (start, 49), (ids[-1], 51)]


def test_an_event_and_its_snapshot_are_written_together_or_not_at_all(tmp_path: Path):
    log = MatchLog(tmp_path / "m.sqlite")
    match_id = log.new_match()
    log.record(match_id, state(1.0), 10, 0.4)
    with pytest.raises(MatchLogError, match="unknown event 'dance'"):
        log.record(match_id, state(9.0), 11, 0.44, [("call", 1, goal(1, 11)), ("dance", None, {})])
    assert log.events(match_id) == [] and log.snapshot(match_id).state == state(1.0)


def test_evidence_is_noted_on_the_logged_call(tmp_path: Path):
    log = MatchLog(tmp_path / "m.sqlite")
    match_id = log.new_match()
    log.record(match_id, state(0.0), 7, 0.28, [("call", 1, goal(1, 7))])
    log.set_evidence(match_id, 1, "evidence/7.jpg")
    assert log.events(match_id, kind="call")[0].payload["evidence"] == "evidence/7.jpg"
    with pytest.raises(MatchLogError, match="no call 2"):
        log.set_evidence(match_id, 2, "x.jpg")


def test_export_as_json_and_csv(tmp_path: Path):
    log = MatchLog(tmp_path / "m.sqlite", table="subbuteo-classic", clock_mode="running")
    match_id = log.new_match()
    log.record(match_id, state(0.0), 50, 2.0, [("call", 1, goal(1, 50))])
    log.record(match_id, state(0.0), 50, 2.0, [("added_time", None, {"seconds": 30})])
    data = log.export_json(match_id)
    assert data["match"]["table"] == "subbuteo-classic"
    assert data["match"]["clock_mode"] == "running"
    assert [e["kind"] for e in data["events"]] == ["call", "added_time"]
    rows = list(csv.reader(io.StringIO(log.export_csv(match_id))))
    assert tuple(rows[0]) == CSV_COLUMNS
    call = dict(zip(CSV_COLUMNS, rows[1], strict=True))
    assert (call["kind"], call["call"], call["law"], call["team"], call["margin_mm"]) == (
        "call",
        "goal",
        "FISTF 7.1",
        "home",
        "9.5",
    )
    added = dict(zip(CSV_COLUMNS, rows[2], strict=True))
    assert added["kind"] == "added_time" and added["detail"] == '{"seconds":30}'


def test_log_is_in_wal_mode(tmp_path: Path):
    path = tmp_path / "m.sqlite"
    MatchLog(path).close()
    assert path.read_bytes()[18:20] == b"\x02\x02"  # file format bytes: 2 = WAL


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (lambda log, m: log.match(m + 99), "no match"),
        (lambda log, m: log.export_csv(m + 99), "no match"),
        (lambda log, m: log.record(m, {}, 1, 0.0, [("explode", None, {})]), "unknown event"),
    ],
)
def test_mistakes_raise_clear_errors(tmp_path: Path, action, message):
    log = MatchLog(tmp_path / "m.sqlite")
    with pytest.raises(MatchLogError, match=message):
        action(log, log.new_match())


def test_an_unopenable_path_is_a_clear_error(tmp_path: Path):
    with pytest.raises(MatchLogError, match="cannot open match log"):
        MatchLog(tmp_path / "missing-folder" / "m.sqlite")


def test_a_log_keeps_the_game_of_each_match_and_an_older_log_opens(tmp_path: Path):
    """A match names its game when one was chosen (``tablevar live --game``); a log written
    before matches named their game gains the column, its matches playing the profile's."""
    import sqlite3

    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE matches (id INTEGER PRIMARY KEY, started_at REAL NOT NULL, "
        "table_name TEXT NOT NULL, clock_mode TEXT NOT NULL, settings TEXT NOT NULL DEFAULT '{}')"
    )
    db.execute("INSERT INTO matches VALUES (1, 0.0, 'fistf', 'ball-moving', '{}')")
    db.commit()
    db.close()
    log = MatchLog(path, table="club", game="button-football")
    assert log.match(1).game is None and log.default_game == "button-football"
    assert log.match(log.new_match()).game == "button-football"
    assert log.match(log.new_match(game="fistf")).game == "fistf"
    log.close()
