from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from web.hub import MatchHub
from web.matchlog import MatchLog, MatchLogError


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


def test_subscriber_gets_state_first_then_calls_in_order_and_only_the_newest_frame(hub):
    sub = hub.subscribe()
    for i in range(5):
        hub.push_frame(frame(i))
    hub.push_call({"frame": 3, "kind": "ball_out", "evidence": "evidence/3.jpg"})
    hub.push_call({"frame": 4, "kind": "goal", "team": "home"})
    events = parse(sub.take(0.1))
    assert [kind for kind, _ in events[:3]] == ["state", "call", "call"]
    assert [data["frame"] for _, data in events[1:3]] == [3, 4]
    assert events[1][1]["id"] < events[2][1]["id"]
    # Frames are coalesced: the first is published at once, the newest after the interval,
    # none in between, and nothing is sent twice.
    events += take_until(sub, lambda kind, data: kind == "frame" and data["frame"] == 4)
    assert [data["frame"] for kind, data in events if kind == "frame"] in ([0, 4], [4])
    assert sub.take(0.1) == []


def test_a_slow_subscriber_never_blocks_the_pipeline_and_is_closed_not_silently_thinned(hub):
    slow = hub.subscribe()
    t0 = time.perf_counter()
    for i in range(20):  # more calls than max_pending=8
        hub.push_call({"frame": i, "kind": "close_call"})
    assert time.perf_counter() - t0 < 2.0
    assert slow.lost and slow.take(0.01) is None
    assert hub.subscriber_count == 0
    # The page reconnects and starts from a full state that holds every call.
    fresh = parse(hub.subscribe().take(0.1))
    assert [c["frame"] for c in fresh[0][1]["calls"]] == list(range(19, -1, -1))


def test_take_wakes_up_when_something_is_pushed(hub):
    sub = hub.subscribe()
    sub.take(0.01)
    got = []
    reader = threading.Thread(target=lambda: got.append(sub.take(5.0)))
    reader.start()
    time.sleep(0.05)
    t0 = time.perf_counter()
    hub.push_call({"frame": 1, "kind": "goal"})
    reader.join(5.0)
    assert time.perf_counter() - t0 < 1.0
    assert parse(got[0])[0][0] == "call"


def test_state_from_a_control_supersedes_an_older_pending_scoreboard(hub):
    sub = hub.subscribe()
    sub.take(0.01)
    hub.push_call({"frame": 9, "kind": "goal", "team": "home"})
    hub.push_score(1, 0)
    call_id = hub.state.calls[-1].id
    hub.control("overrule", call_id=call_id, reason="offside")
    events = parse(sub.take(0.1))
    assert [k for k, _ in events] == ["call", "state"]
    assert events[-1][1]["score"] == {"home": 0, "away": 0}
    assert events[-1][1]["calls"][0]["status"] == "overruled"


@pytest.mark.parametrize(
    ("held", "pushed", "shown"),
    [
        ("paused", "running", "paused"),
        ("not_started", "stopped", "not_started"),
        ("running", "stopped", "stopped"),
    ],
)
def test_the_referee_holds_the_clock_status_but_time_still_moves_on(hub, held, pushed, shown):
    if held == "paused":
        hub.control("pause")
    elif held == "running":
        hub.control("start")
    hub.push_clock(12.5, 1, pushed)
    assert hub.snapshot()["clock"] == {"clock_s": 12.5, "half": 1, "status": shown}


def test_clock_is_logged_on_changes_and_at_intervals_not_every_frame(hub):
    hub.control("start")
    for i in range(721):  # 12 s of match time at 60 fps, the ball stops after 5 s
        hub.push_clock(i / 60, 1, "running" if i < 300 else "stopped")
    rows = hub.log._rows("SELECT clock_s, status FROM clock", ())
    # The start, the status change, then one row per 5 s of match time (the default interval).
    assert rows == [(0.0, "running"), (5.0, "stopped"), (10.0, "stopped")]


def test_controls_reach_the_pipeline_listener_and_bad_ones_raise(hub):
    seen = []
    hub.on_control(lambda action, payload: seen.append((action, dict(payload))))
    hub.control("added_time", seconds=30)
    hub.control("undo")
    assert seen == [("added_time", {"seconds": 30}), ("undo", {})]
    with pytest.raises(MatchLogError, match="nothing to undo"):
        hub.control("undo")
    with pytest.raises(MatchLogError, match="no call 5"):
        hub.control("overrule", call_id=5)
    with pytest.raises(MatchLogError, match="unknown action"):
        hub.control("dance")


def test_reset_starts_a_new_match_in_the_same_log(hub):
    hub.push_call({"frame": 1, "kind": "goal", "team": "away"})
    hub.push_score(0, 1)
    old = hub.state.match_id
    snap = hub.control("reset")
    assert (
        snap["match_id"] != old and snap["calls"] == [] and snap["score"] == {"home": 0, "away": 0}
    )


def test_call_evidence_is_made_relative_to_the_output_folder(hub, tmp_path: Path):
    (tmp_path / "evidence").mkdir()
    (tmp_path / "evidence" / "7.jpg").write_bytes(b"jpeg")
    absolute = hub.push_call(
        {"frame": 7, "kind": "ball_out", "evidence": str(tmp_path / "evidence/7.jpg")}
    )
    outside = hub.push_call({"frame": 8, "kind": "ball_out", "evidence": "/etc/passwd"})
    assert absolute["evidence_rel"] == "evidence/7.jpg"
    assert outside["evidence_rel"] is None


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


def test_frames_reach_a_reader_at_most_at_the_rate_cap_but_calls_at_once(tmp_path: Path):
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
    t_call = time.perf_counter()
    hub.push_call({"frame": 10_001, "kind": "goal"})  # inside the interval, yet not held back
    while deliveries[-1][-1][0] != "call" and time.perf_counter() - t_call < 1.0:
        time.sleep(0.001)
    call_latency_s = time.perf_counter() - t_call
    done.set()
    reader.join(2.0)
    hub.close()
    assert i > 100  # hundreds of frames pushed ...
    assert 4 <= frame_deliveries <= 7  # ... published every 0.25 s, the last one after
    assert deliveries[-2] == [("frame", frame(10_000))]  # the newest, with nothing pushed after
    assert deliveries[-1][0][0] == "call" and call_latency_s < 0.2


def test_calls_are_never_coalesced_every_reader_gets_each_once_in_order(tmp_path: Path):
    hub = MatchHub(MatchLog(tmp_path / "m.sqlite"), max_pending=64, max_rate_hz=50.0)
    subs = [hub.subscribe() for _ in range(3)]
    got: list[list[int]] = [[] for _ in subs]
    done = threading.Event()

    def read(sub, calls: list[int]) -> None:
        while True:
            last = done.is_set()  # one more take after the last push
            for kind, data in parse(sub.take(0.02) or []):
                calls += [c["frame"] for c in data["calls"]] if kind == "state" else []
                calls += [data["frame"]] if kind == "call" else []
            if last:
                return

    readers = [threading.Thread(target=read, args=pair) for pair in zip(subs, got, strict=True)]
    for reader in readers:
        reader.start()
    for i in range(300):  # a call with every third frame, far faster than the frame cap
        hub.push_frame(frame(i))
        hub.push_clock(i / 60, 1, "running")
        if i % 3 == 0:
            hub.push_call({"frame": i, "kind": "close_call"})
        time.sleep(0.0005)
    done.set()
    for reader in readers:
        reader.join(5.0)
    hub.close()
    assert got == [list(range(0, 300, 3))] * 3


def test_readers_share_one_encoded_message(hub):
    subs = [hub.subscribe() for _ in range(3)]
    for sub in subs:
        sub.take(0.01)
    hub.push_frame(frame(1))  # the first after a quiet spell: published at once
    hub.push_call({"frame": 1, "kind": "goal"})
    batches = [sub.take(0.1) for sub in subs]
    assert [kind for kind, _ in parse(batches[0])] == ["call", "frame"]
    for batch in batches[1:]:
        assert all(a is b for a, b in zip(batch, batches[0], strict=True))


@pytest.mark.parametrize(
    ("push", "expect"),
    [
        (
            lambda hub: hub.push_clock(3.0, 1, "stopped"),
            lambda b: b["clock"]["status"] == "stopped",
        ),
        (lambda hub: hub.push_clock(0.5, 2, "running"), lambda b: b["clock"]["half"] == 2),
        (lambda hub: hub.push_score(1, 0), lambda b: b["score"] == {"home": 1, "away": 0}),
        (lambda hub: hub.set_source(False, "cable"), lambda b: b["source"]["message"] == "cable"),
    ],
)
def test_clock_status_score_and_source_changes_are_not_held_back(tmp_path: Path, push, expect):
    hub = MatchHub(MatchLog(tmp_path / "m.sqlite"), max_rate_hz=0.5)  # every 2 s
    hub.control("start")
    sub = hub.subscribe()
    sub.take(0.01)
    hub.push_clock(2.0, 1, "running")  # published at once: the first after a quiet spell
    assert parse(sub.take(0.1))[0][1]["clock"]["clock_s"] == 2.0
    hub.push_clock(2.5, 1, "running")  # only seconds: waits for the interval
    assert sub.take(0.1) == []
    push(hub)
    events = parse(sub.take(0.1))
    hub.close()
    assert [kind for kind, _ in events] == ["scoreboard"] and expect(events[0][1])
