from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from web.hub import MatchHub, Subscription
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


def test_subscriber_gets_state_first_then_calls_in_order_and_only_the_newest_frame(hub):
    sub = hub.subscribe()
    for i in range(5):
        hub.push_frame({"frame": i, "t_s": i / 60, "ball": None, "figures": []})
    hub.push_call({"frame": 3, "kind": "ball_out", "evidence": "evidence/3.jpg"})
    hub.push_call({"frame": 4, "kind": "goal", "team": "home"})
    events = parse(sub.take(0.1))
    assert [kind for kind, _ in events] == ["state", "call", "call", "frame"]
    assert [data["frame"] for kind, data in events if kind != "state"] == [3, 4, 4]
    assert events[1][1]["id"] < events[2][1]["id"]
    assert sub.take(0.01) == []


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


def test_subscription_close_wakes_a_waiting_reader():
    sub = Subscription()
    got = []
    reader = threading.Thread(target=lambda: got.append(sub.take(5.0)))
    reader.start()
    time.sleep(0.05)
    sub.close()
    reader.join(2.0)
    assert got == [None]


def test_frames_reach_a_reader_at_most_at_the_rate_cap_but_calls_at_once():
    sub = Subscription(max_pending=64, min_interval_s=0.25)  # 4 Hz
    deliveries: list[list[bytes]] = []
    done = threading.Event()

    def read():
        while not done.is_set():
            items = sub.take(0.5)
            if items:
                deliveries.append(items)

    reader = threading.Thread(target=read)
    reader.start()
    t0 = time.perf_counter()
    i = 0
    while time.perf_counter() - t0 < 1.0:
        sub.offer("frame", f"f{i}".encode(), coalesce=True)
        i += 1
        time.sleep(0.002)
    time.sleep(0.3)
    frame_deliveries = len(deliveries)
    sub.offer("frame", b"newest", coalesce=True)  # the interval has passed: delivered at once
    while len(deliveries) == frame_deliveries and time.perf_counter() - t0 < 5.0:
        time.sleep(0.001)
    t_call = time.perf_counter()
    sub.offer("call", b"c", coalesce=False)  # inside the interval, yet not held back
    while [b"c"] not in deliveries and time.perf_counter() - t_call < 1.0:
        time.sleep(0.001)
    call_latency_s = time.perf_counter() - t_call
    done.set()
    reader.join(2.0)
    assert i > 100  # hundreds of frames offered ...
    assert 2 <= frame_deliveries <= 5  # ... delivered at most every 0.25 s
    assert deliveries[-2:] == [[b"newest"], [b"c"]]
    assert call_latency_s < 0.2
