from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from web.hub import Feed, MatchHub, sse_message
from web.matchlog import MatchLog


def parse(messages: list[bytes]) -> list[tuple[str, dict]]:
    """SSE messages -> (event, data) pairs."""
    out = []
    for message in messages:
        for block in message.decode().split("\n\n"):
            if block.startswith("event: "):
                head, data = block.split("\n", 1)
                out.append((head.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    return out


@pytest.fixture
def hub(tmp_path: Path):
    hub = MatchHub(MatchLog(tmp_path / "m.sqlite"), output_dir=tmp_path, max_pending=8)
    yield hub
    hub.close()


@pytest.fixture
def play(hub, sample):
    hub.control("start")  # the referee starts the match: the rules judge, the clock may run
    return sample.Play(hub)


def frame(i: int) -> dict:
    return {"frame": i, "t_s": i / 60, "ball": None, "figures": []}


def take_until(sub, want, timeout_s: float = 2.0) -> list[tuple[str, dict]]:
    """Events from ``sub`` until one satisfies ``want(kind, data)`` (or the time is up)."""
    events: list[tuple[str, dict]] = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        events += parse(sub.take(0.05) or [])
        if any(want(kind, data) for kind, data in events):
            break
    return events


def test_subscriber_gets_state_first_then_calls_in_order_and_only_the_newest_frame(hub, play):
    sub = hub.subscribe()
    out = play.ball_out()
    hub.control("overrule", call_id=out.id)  # play goes on: the ball is put back in
    play.rest(2)
    goal = play.goal()
    for i in range(5):  # after the state, which supersedes older frames
        hub.push_frame(frame(i))
    events = parse(sub.take(0.1))
    kinds = [kind for kind, _ in events if kind != "scoreboard"]
    assert kinds[:4] == ["state", "call", "state", "call"]
    calls = [data for kind, data in events if kind == "call"]
    assert [(c["id"], c["kind"]) for c in calls] == [(out.id, "ball_out"), (goal.id, "goal")]
    # Frames are coalesced: the first is published at once, the newest after the interval,
    # none in between, and nothing is sent twice.
    events += take_until(sub, lambda kind, data: kind == "frame" and data["frame"] == 4)
    assert [data["frame"] for kind, data in events if kind == "frame"] in ([0, 4], [4])


def test_a_slow_subscriber_never_blocks_the_pipeline_and_is_closed_not_silently_thinned(hub):
    slow = hub.subscribe()
    t0 = time.perf_counter()
    for _ in range(20):  # more ordered messages than max_pending=8
        hub.control("added_time", seconds=1)
    assert time.perf_counter() - t0 < 5.0
    assert slow.lost and slow.take(0.01) is None
    assert hub.subscriber_count == 0
    # The page reconnects and starts from a full state that holds everything.
    fresh = parse(hub.subscribe().take(0.1))
    assert fresh[0][0] == "state" and fresh[0][1]["added_time_s"] == 20


def test_take_wakes_up_when_something_is_pushed(hub, play):
    sub = hub.subscribe()
    sub.take(0.01)
    got = []
    reader = threading.Thread(target=lambda: got.append(sub.take(5.0)))
    reader.start()
    time.sleep(0.05)
    t0 = time.perf_counter()
    play.goal()
    reader.join(5.0)
    assert time.perf_counter() - t0 < 1.0
    assert parse(got[0])  # woken by the first news (the scoreboard or the call) ...
    later = [kind for kind, _ in parse(got[0] + (sub.take(0.1) or []))]
    assert "call" in later  # ... and the call is there at the next take


def test_an_overrule_goes_through_the_rules_score_and_restart_follow(hub, play):
    """FISTF 7.2.1: the page shows what the rules' state says after the referee's word."""
    goal = play.goal()
    before = hub.snapshot()
    assert before["score"] == {"home": 1, "away": 0}
    assert before["restart"]["kind"] == "kick_off" and before["restart"]["team"] == "away"
    sub = hub.subscribe()
    sub.take(0.01)
    hub.control("overrule", call_id=goal.id, reason="hand ball")
    events = parse(sub.take(0.1))
    assert [k for k, _ in events] == ["state"]
    state = events[0][1]
    assert state["score"] == {"home": 0, "away": 0}
    assert state["restart"] == {
        "kind": "goal_kick",
        "team": "away",
        "law": "FISTF 7.2",
        "call_id": goal.id,
    }
    assert state["calls"][0]["status"] == "overruled"
    assert state["calls"][0]["reason"] == "hand ball"
    assert hub.match.score == (0, 0)  # the rules' own state, not a correction beside it
    hub.control("undo")
    assert hub.snapshot()["score"] == {"home": 1, "away": 0}


def test_a_too_close_goal_waits_for_the_referee_and_upheld_counts(hub, play):
    """FISTF 7.1 / 4.1: the page says which call waits; upheld, the goal counts and the other
    team kicks off."""
    close = play.close_goal()
    state = hub.snapshot()
    assert state["awaiting_referee"] == close.id and state["score"] == {"home": 0, "away": 0}
    state = hub.control("uphold", call_id=close.id)
    assert state["score"] == {"home": 1, "away": 0} and state["awaiting_referee"] is None
    assert state["restart"]["kind"] == "kick_off" and state["restart"]["team"] == "away"
    assert [c["status"] for c in state["calls"]][-1:] == ["standing"]
    assert {c["id"]: c["status"] for c in state["calls"]}[close.id] == "upheld"
    assert state["calls"][0]["note"] == "given by the referee"


@pytest.mark.parametrize("mode", ["ball-moving", "running"])
def test_the_clock_stands_before_the_start_and_while_paused(tmp_path: Path, sample, mode):
    """FISTF 3.2: what the page shows is the rules' clock, held by the referee."""
    hub = MatchHub(MatchLog(tmp_path / "m.sqlite", clock_mode=mode))
    play = sample.Play(hub)
    play.roll(1.0)
    assert hub.snapshot()["clock"] == {"clock_s": 0.0, "half": 1, "status": "not_started"}
    hub.control("start")
    play.roll(1.0)
    running = hub.snapshot()["clock"]
    assert running["status"] == "running" and 0.9 < running["clock_s"] < 1.0
    hub.control("pause")
    play.roll(2.0)
    assert hub.snapshot()["clock"] == {**running, "status": "paused"}
    hub.control("resume")
    play.roll(1.0)
    assert hub.snapshot()["clock"]["clock_s"] > running["clock_s"] + 0.9
    hub.close()


def test_controls_reach_the_pipeline_listener_and_bad_ones_raise(hub, play):
    seen = []
    hub.on_control(lambda action, payload: seen.append((action, dict(payload))))
    hub.control("added_time", seconds=30)
    hub.control("undo")
    assert seen == [("added_time", {"seconds": 30}), ("undo", {})]
    with pytest.raises(ValueError, match="nothing to undo"):
        hub.control("undo")
    with pytest.raises(ValueError, match="no call 5"):
        hub.control("overrule", call_id=5)
    with pytest.raises(ValueError, match="unknown action"):
        hub.control("dance")
    out = play.ball_out()
    with pytest.raises(ValueError, match="does not wait for the referee"):
        hub.control("uphold", call_id=out.id)


def test_reset_starts_a_new_match_in_the_same_log_waiting_for_its_start(hub, play):
    play.goal()
    old = hub.match_id
    snap = hub.control("reset")
    assert snap["match_id"] != old and snap["calls"] == []
    assert snap["score"] == {"home": 0, "away": 0}
    assert snap["clock"]["status"] == "not_started"
    hub.control("start")
    assert hub.match.restart.kind == "kick_off"  # the new match begins with its kick-off (4.1)
    assert len(hub.log.events(old, kind="call")) == 1


def test_call_evidence_is_made_relative_to_the_output_folder(hub, play, tmp_path: Path):
    (tmp_path / "evidence").mkdir()
    (tmp_path / "evidence" / "7.jpg").write_bytes(b"jpeg")
    out = play.ball_out()
    hub.control("overrule", call_id=out.id)
    play.rest(2)
    goal = play.goal()
    inside, outside = hub.publish_calls(
        [(out, str(tmp_path / "evidence/7.jpg"), None), (goal, "/etc/passwd", None)]
    )
    assert inside["evidence_rel"] == "evidence/7.jpg"
    assert outside["evidence_rel"] is None
    # Logged with the call: a restarted server shows it too.
    assert hub.log.events(hub.match_id, kind="call")[0].payload["evidence"].endswith("7.jpg")


@pytest.mark.parametrize("end", ["unsubscribe", "hub close"])
def test_ending_a_subscription_wakes_a_waiting_reader(hub, end):
    sub = hub.subscribe()
    sub.take(0.01)
    got = []
    reader = threading.Thread(target=lambda: got.append(sub.take(5.0)))
    reader.start()
    time.sleep(0.05)
    hub.unsubscribe(sub) if end == "unsubscribe" else hub.close()
    reader.join(2.0)
    assert got == [None] and hub.subscriber_count == 0


def test_frames_reach_a_reader_at_most_at_the_rate_cap(tmp_path):
    hub = MatchHub(MatchLog(tmp_path / "m.sqlite"), max_rate_hz=4.0)  # every 0.25 s
    sub = hub.subscribe()
    deliveries: list[list[tuple[str, dict]]] = []
    done = threading.Event()

    def read():
        while not done.is_set():
            items = sub.take(0.5)
            if items:
                deliveries.append(parse(items))

    reader = threading.Thread(target=read)
    reader.start()
    t0 = time.perf_counter()
    i = 0
    while time.perf_counter() - t0 < 1.0:
        hub.push_frame(frame(i))
        i += 1
        time.sleep(0.002)
    hub.push_frame(frame(10_000))  # the newest, and then the pipeline goes quiet
    while time.perf_counter() - t0 < 2.0 and deliveries[-1][-1][1].get("frame") != 10_000:
        time.sleep(0.005)
    frame_deliveries = len(deliveries) - 1  # the first holds the state
    done.set()
    reader.join(2.0)
    hub.close()
    assert i > 100  # hundreds of frames pushed ...
    assert 4 <= frame_deliveries <= 7  # ... published every 0.25 s, the last one after
    with_frames = [d for d in deliveries if any(kind == "frame" for kind, _ in d)]
    assert with_frames[-1] == [("frame", frame(10_000))]  # the newest, nothing pushed after


def test_a_call_is_not_held_back_by_the_frame_rate_cap(tmp_path, sample):
    """Frames wait for the rate cap's next slot; a call goes out at once. With a slot every
    2 s, a goal played just after a frame was published reaches the reader while the frame
    pushed after that one is still held for the next slot (an order, not a time: a busy
    machine delays both)."""
    hub = MatchHub(MatchLog(tmp_path / "m.sqlite"), max_rate_hz=0.5)
    hub.control("start")
    play = sample.Play(hub)
    sub = hub.subscribe()
    hub.push_frame(frame(0))
    take_until(sub, lambda kind, data: kind == "frame")  # published: the next slot is 2 s on
    hub.push_frame(frame(1))  # held for it
    play.goal()
    events = take_until(sub, lambda kind, data: kind == "call", timeout_s=1.5)
    hub.close()
    kinds = [kind for kind, _ in events]
    assert "call" in kinds, kinds
    assert ("frame", frame(1)) not in events[: kinds.index("call")]


def test_calls_are_never_coalesced_every_reader_gets_each_once_in_order():
    feed = Feed(max_pending=64, min_interval_s=0.02)
    subs = [feed.subscribe(sse_message("state", {"calls": []})) for _ in range(3)]
    got: list[list[int]] = [[] for _ in subs]
    done = threading.Event()

    def read(sub, calls: list[int]) -> None:
        while True:
            last = done.is_set()  # one more take after the last push
            for kind, data in parse(sub.take(0.02) or []):
                calls += [data["frame"]] if kind == "call" else []
            if last:
                return

    readers = [threading.Thread(target=read, args=pair) for pair in zip(subs, got, strict=True)]
    for reader in readers:
        reader.start()
    for i in range(300):  # a call with every third frame, far faster than the frame cap
        feed.store("frame", frame(i))
        feed.store("scoreboard", {"clock": {"clock_s": i / 60}})
        if i % 3 == 0:
            feed.append("call", sse_message("call", {"frame": i, "kind": "close_call"}))
        time.sleep(0.0005)
    done.set()
    for reader in readers:
        reader.join(5.0)
    feed.close()
    assert got == [list(range(0, 300, 3))] * 3


def test_readers_share_one_encoded_message(hub, play):
    subs = [hub.subscribe() for _ in range(3)]
    for sub in subs:
        sub.take(0.01)
    hub.push_frame(frame(1))  # the first after a quiet spell: published at once
    play.ball_out()
    batches = [sub.take(0.1) for sub in subs]
    assert "call" in [kind for kind, _ in parse(batches[0])]
    for batch in batches[1:]:
        assert all(a is b for a, b in zip(batch, batches[0], strict=True))


@pytest.mark.parametrize(
    ("push", "expect"),
    [
        (lambda play: play.rest(2), lambda b: b["clock"]["status"] == "stopped"),
        (lambda play: play.goal(), lambda b: b["score"] == {"home": 1, "away": 0}),
        (
            lambda play: play.hub.set_source(False, "cable"),
            lambda b: b["source"]["message"] == "cable" and b["clock"]["status"] == "stopped",
        ),
    ],
)
def test_clock_status_score_and_source_changes_are_not_held_back(tmp_path, sample, push, expect):
    hub = MatchHub(MatchLog(tmp_path / "m.sqlite"), max_rate_hz=0.5)  # every 2 s
    hub.control("start")
    play = sample.Play(hub)
    sub = hub.subscribe()
    sub.take(0.01)
    play.roll(0.1)  # the clock starts running: published at once
    boards = [d for k, d in parse(sub.take(0.1)) if k == "scoreboard"]
    assert boards[-1]["clock"]["status"] == "running"
    play.roll(0.1)  # only seconds: waits for the interval
    assert sub.take(0.1) == []
    push(play)
    boards = [d for k, d in parse(sub.take(0.1)) if k == "scoreboard"]
    hub.close()
    assert boards and expect(boards[-1])


@pytest.mark.parametrize(
    ("action", "restart"),
    [
        pytest.param("uphold", ("free_kick", "away"), id="FISTF 13.1 upheld: a free kick"),
        pytest.param("reject", None, id="FISTF 13.1 rejected: play goes on"),
    ],
)
def test_a_too_close_offside_is_offered_to_the_referee(hub, play, action, restart):
    """FISTF 13.1: play goes on from a too-close offside; the page offers the referee the
    decision (the rules say which calls wait for one) and the rules apply it."""
    hub.control("start")
    close = play.close_offside()
    state = hub.snapshot()
    (entry,) = [c for c in state["calls"] if c["id"] == close.id]
    assert entry["awaiting_referee"] and state["restart"] is None
    state = hub.control(action, call_id=close.id)
    entry = next(c for c in state["calls"] if c["id"] == close.id)
    assert entry["status"] == ("upheld" if action == "uphold" else "rejected")
    assert not entry["awaiting_referee"]
    got = state["restart"] and (state["restart"]["kind"], state["restart"]["team"])
    assert got == restart


def test_dropped_frames_ride_with_the_next_scoreboard_never_urgently(tmp_path):
    hub = MatchHub(MatchLog(tmp_path / "m.sqlite"), max_rate_hz=0.5)  # every 2 s
    sub = hub.subscribe()
    sub.take(0.01)
    hub.set_source(True, "camera open")  # published at once: the interval starts
    sub.take(0.1)
    hub.set_dropped(3)
    assert sub.take(0.1) == []  # a count is no reason to wake every page
    hub.set_source(False, "cable")  # an urgent change publishes, the count with it
    boards = [d for k, d in parse(sub.take(0.1)) if k == "scoreboard"]
    hub.close()
    assert boards[-1]["dropped_frames"] == 3
