"""The live runner on real sources: the simulator, a camera that is not there, a late file."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from calibration.calibration_file import read_calibration
from hardware.gpio import SignalPins
from hardware.recording import read_meta
from hardware.sources import SourceError, open_source
from simulator.sim_source import SimSource, open_sim
from tablevar import cli
from tablevar.live import LiveOptions, LiveRunner
from tablevar.live_signals import LiveSignals
from web.hub import MatchHub
from web.matchlog import MatchLog

SIM = {"size_px": (800, 600), "fps": 20.0, "lead_s": 0.4}


class WatchedHub(MatchHub):
    """A real hub, started by the referee, that also keeps, in order, what the runner pushed
    into it and the rules' clock after each observation."""

    def __init__(self, log: MatchLog, **kwargs):
        super().__init__(log, **kwargs)
        self.pushed: list[tuple[str, object]] = []
        self.control("start")

    def push_frame(self, record):
        self.pushed.append(("frame", record))
        super().push_frame(record)

    def observe(self, obs, **kwargs):
        calls = super().observe(obs, **kwargs)
        self.pushed.append(("obs", obs.ball_moving and obs.ball_xy_mm is not None))
        self.pushed.append(("clock", self.match.clock.elapsed_s))
        return calls


@pytest.fixture
def hub(tmp_path: Path):
    hub = WatchedHub(MatchLog(tmp_path / "match.sqlite"), output_dir=tmp_path / "out")
    yield hub
    hub.close()
    hub.log.close()


def run_until(runner: LiveRunner, done, timeout_s: float) -> None:
    runner.start()
    deadline = time.monotonic() + timeout_s
    try:
        while not done() and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        runner.stop()


@pytest.fixture(scope="module")
def sim_pins() -> MockFactory:
    """The GPIO pins of the signals at the simulated table (gpiozero's mock pins)."""
    factory = MockFactory()
    factory.reset()  # gpiozero 1.6 shares the mock pins between factories
    return factory


@pytest.fixture(scope="module")
def sim_run(tmp_path_factory, sim_pins):
    """A kick-off, passes and the ball out over a touchline from the simulator, refereed live
    (frames as fast as they render), with a clock LED on GPIO 17 and a buzzer on GPIO 22."""
    tmp = tmp_path_factory.mktemp("live")
    hub = WatchedHub(MatchLog(tmp / "match.sqlite"), output_dir=tmp / "out")
    source = SimSource("touchline_out", realtime=False, **SIM)
    pins = SignalPins(clock_led=17, buzzer=22, pause_button=None)
    runner = LiveRunner(
        lambda: source,
        hub,
        tmp / "out",
        options=LiveOptions(calibration_s=0.05, calibration_frames=1),
        record_dir=tmp / "rec",
        signals=LiveSignals(hub, pins, pin_factory=sim_pins),
    )
    run_until(runner, lambda: runner.ended, timeout_s=120)
    yield runner, hub, tmp, source
    hub.close()
    hub.log.close()


def test_sim_frames_calls_and_calibration_reach_the_hub(sim_run):
    runner, hub, tmp, source = sim_run
    assert runner.ended and runner.error is None
    frames = [rec for kind, rec in hub.pushed if kind == "frame"]
    assert runner.frames == source.frame_count
    # Every frame after calibration reaches the radar, in order, numbered like the recording.
    numbers = [rec["frame"] for rec in frames]
    assert numbers == list(range(numbers[0], runner.frames)) and numbers[0] <= 2
    assert sum(rec["ball"] is not None for rec in frames) > 0.9 * len(frames)
    state = hub.snapshot()
    assert state["source"] == {"ok": False, "message": "the simulated match has ended"}
    # The scripted throw-in (FISTF 14.1) is called, with its evidence picture.
    outs = [c for c in state["calls"] if c["kind"] == "ball_out"]
    assert [(c["line"], c["restart"]) for c in outs] == [("touchline", "throw_in")]
    for call in state["calls"]:
        assert (tmp / "out" / call["evidence_rel"]).is_file()
    assert (tmp / "out" / "calibration.json").is_file()
    assert (tmp / "out" / "calibration_overlay.png").is_file()
    # --record wrote every frame, calibration frames too.
    assert len((tmp / "rec" / "timestamps.csv").read_text().splitlines()) == runner.frames + 1


def test_the_clock_runs_only_while_the_ball_moves(sim_run):
    _, hub, _, source = sim_run
    moving: list[bool] = []
    last_clock, advanced, stood_still = 0.0, 0, 0
    for kind, value in hub.pushed:
        if kind == "frame":
            continue
        if kind == "obs":
            moving.append(value)
        elif value > last_clock + 1e-9:
            # The clock counts an interval by its two ends: one of them rolled.
            assert any(moving[-2:]), f"the clock ran to {value} s with the ball at rest"
            advanced += 1
            last_clock = value
        elif not any(moving[-2:]):
            stood_still += 1
    assert advanced >= 5 and stood_still >= 20
    assert 0.3 < hub.match.clock.elapsed_s < source.scene.duration_s


def test_the_signals_at_the_table_follow_the_live_match(sim_run, sim_pins):
    _, hub, _, _ = sim_run
    led = [s.state for s in sim_pins.pin(17).states]
    # Lit while the clock ran, dark while it stood, and off once the worker ended.
    assert led[0] is False and led.count(True) >= 2 and led[-1] is False
    outs = [c for c in hub.calls if c.record["kind"] in ("ball_out", "goal")]
    deadline = time.monotonic() + 5.0
    buzzer = sim_pins.pin(22).states
    while sum(s.state for s in buzzer) < len(outs) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(outs) == 1 and sum(s.state for s in buzzer) == 1  # one beep for the throw-in


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("opencv:99", "cannot open camera 99"),
        ("file:{tmp}/gone.mp4", "no such file or folder"),
    ],
)
def test_a_source_that_fails_pauses_with_a_clear_message_and_retries(hub, tmp_path, spec, message):
    spec = spec.replace("{tmp}", str(tmp_path))
    options = LiveOptions(reopen_first_s=0.05, reopen_max_s=0.2)
    runner = LiveRunner(lambda: open_source(spec), hub, tmp_path / "out", options=options)
    run_until(runner, lambda: "0.2 s" in hub.snapshot()["source"]["message"], timeout_s=10)
    source = hub.snapshot()["source"]
    assert source["ok"] is False
    assert message in source["message"] and "retrying in 0.2 s" in source["message"]
    assert runner.frames == 0 and not runner.ended


def test_a_file_that_turns_up_is_opened_at_the_next_attempt(hub, tmp_path, make_recording):
    folder = make_recording(6)
    late = tmp_path / "late"
    options = LiveOptions(reopen_first_s=0.05, reopen_max_s=0.1, pace_files=False)
    runner = LiveRunner(lambda: open_source(f"file:{late}"), hub, tmp_path / "out", options=options)
    runner.start()
    try:
        deadline = time.monotonic() + 10
        while "no such file" not in hub.snapshot()["source"]["message"]:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        shutil.copytree(folder, late)
        while not runner.ended:
            assert time.monotonic() < deadline
            time.sleep(0.02)
    finally:
        runner.stop()
    assert runner.frames == 6
    # The synthetic frames hold no pitch: the page says what is missing instead of refereeing.
    assert hub.snapshot()["source"]["message"] == "the video has ended"


def test_sim_source_paces_frames_to_the_wall_clock():
    source = SimSource("kickoff_pass", size_px=(160, 120), fps=20.0, end_s=0.5)
    start = time.monotonic()
    times = [frame.t_s for frame in source.frames()]
    elapsed = time.monotonic() - start
    # On the frame grid; a frame rendered too late to be on time is skipped, as a camera would.
    steps = [round(t * 20.0) for t in times]
    assert times == pytest.approx([k / 20.0 for k in steps]) and steps == sorted(set(steps))
    assert steps[0] == 0 and steps[-1] == 9 and len(times) + source.dropped == 10
    assert elapsed >= 0.45


@pytest.mark.parametrize(
    ("spec", "message"),
    [("sim:nowhere", "unknown simulated scene 'nowhere'"), ("cam:0", "not a simulator spec")],
)
def test_open_sim_refuses_bad_specs(spec, message):
    with pytest.raises(SourceError, match=message):
        open_sim(spec)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--source", "sim:nowhere"], "unknown simulated scene 'nowhere'"),
        (["--source", "opencv:99"], "cannot open camera 99"),
        (["--source", "sim", "--calibration", "{tmp}/none.json"], "none.json"),
        (["--source", "sim", "--table", "nope"], "nope"),
        (["--source", "sim", "--port", "70000"], "--port must be within"),
    ],
)
def test_live_command_refuses_what_cannot_work_in_one_line(tmp_path, capsys, extra, message):
    argv = [
        "live",
        "--out",
        str(tmp_path / "out"),
        *(a.replace("{tmp}", str(tmp_path)) for a in extra),
    ]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablevar: error: ") and message in err and err.count("\n") == 1


def test_recalibrate_and_a_picked_ball_answer_from_the_next_frames_and_play_goes_on(hub, tmp_path):
    runner = LiveRunner(
        lambda: SimSource("kickoff_pass", end_s=2.0, realtime=False, **SIM),
        hub,
        tmp_path / "out",
        options=LiveOptions(calibration_s=0.05, calibration_frames=1),
    )
    runner.start()
    try:
        # A bound on waiting, not on speed: on a loaded machine the three stages (learning,
        # the recalibration, the clip's end) took over 30 s.
        deadline = time.monotonic() + 120
        while hub.snapshot()["frame"] is None:  # the first pipeline runs
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert (tmp_path / "out" / "calibration_view.png").is_file()  # to pick the ball on
        with pytest.raises(ValueError, match="not one of"):
            runner.set_ball_colour("tartan")
        runner.set_ball_colour("white")
        while read_calibration(tmp_path / "out" / "calibration.json").ball_colour != "white":
            assert time.monotonic() < deadline
            time.sleep(0.02)
        written = (tmp_path / "out" / "calibration.json").stat().st_mtime_ns
        at_frame = runner.frames
        result = runner.recalibrate()
        assert result["table"] == "fistf" and result["image_size_px"] == [800, 600]
        assert result["ball_colour"] == "white"  # a picked ball outlives a recalibration
        assert (tmp_path / "out" / "calibration.json").stat().st_mtime_ns > written
        while not runner.ended:
            assert time.monotonic() < deadline
            time.sleep(0.02)
    finally:
        runner.stop()
    # The radar carried on after the new calibration, in order and without repeats.
    numbers = [rec["frame"] for kind, rec in hub.pushed if kind == "frame"]
    assert numbers == sorted(set(numbers)) and numbers[-1] == runner.frames - 1 > at_frame + 5


def test_recalibrate_without_frames_is_a_clear_error(hub, tmp_path):
    options = LiveOptions(recalibrate_timeout_s=0.2)
    runner = LiveRunner(lambda: open_source("opencv:99"), hub, tmp_path / "out", options=options)
    with pytest.raises(ValueError, match="no frames arrive from the camera"):
        runner.recalibrate()


def test_a_stalling_source_is_reported_until_frames_come_again(hub, tmp_path):
    # One frame a second: between two frames the source stalls inside frames(), as a camera
    # that reopens itself does.
    options = LiveOptions(stall_s=0.3, calibration_s=100.0)
    runner = LiveRunner(
        lambda: SimSource("kickoff_pass", size_px=(160, 120), fps=1.0, end_s=2.5),
        hub,
        tmp_path / "out",
        options=options,
    )
    seen: list[dict] = []
    runner.start()
    try:
        deadline = time.monotonic() + 10
        while not runner.ended:
            assert time.monotonic() < deadline
            source = hub.snapshot()["source"]
            if not seen or source != seen[-1]:
                seen.append(source)
            time.sleep(0.02)
    finally:
        runner.stop()
    seen.append(hub.snapshot()["source"])
    assert seen[0] == {"ok": True, "message": ""}
    stalls = [m for ok, m in (x.values() for x in seen) if not ok and m.startswith("no frames")]
    assert stalls and all(
        re.fullmatch(r"no frames for 0\.\d s: reopening the camera", m) for m in stalls
    )
    assert seen[-1] == {"ok": False, "message": "the simulated match has ended"}
    assert runner.frames == 2


def test_a_full_disk_stops_the_recording_and_refereeing_goes_on(hub, tmp_path, disk_fills_up):
    source = SimSource("touchline_out", realtime=False, **SIM)
    rec = tmp_path / "rec"
    runner = LiveRunner(
        lambda: disk_fills_up(source, rec, at_frame=10),
        hub,
        tmp_path / "out",
        options=LiveOptions(calibration_s=0.05, calibration_frames=1),
        record_dir=rec,
    )
    run_until(runner, lambda: runner.ended, timeout_s=120)
    # Every frame was refereed and the scripted throw-in (FISTF 14.1) still called.
    assert runner.error is None and runner.frames == source.frame_count
    frames = [rec_["frame"] for kind, rec_ in hub.pushed if kind == "frame"]
    assert frames[-1] == runner.frames - 1
    state = hub.snapshot()
    assert [c["restart"] for c in state["calls"] if c["kind"] == "ball_out"] == ["throw_in"]
    # The page says the recording stopped, and why; the frames before it stay readable.
    assert state["recording"]["ok"] is False
    assert "No space left on device" in state["recording"]["message"]
    assert "refereeing goes on" in state["recording"]["message"]
    meta = read_meta(rec)
    assert meta.complete is False and 0 < meta.frames <= 10


def _record_folder(tmp: Path, case: str) -> Path:
    if case == "under a file":
        (tmp / "file").write_text("x")
        return tmp / "file" / "rec"
    if case == "a recording already":
        (tmp / "old").mkdir()
        (tmp / "old" / "meta.json").write_text("{}")
        return tmp / "old"
    return Path("/proc/tablevar-rec")  # a file system nobody writes recordings on


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("under a file", "Not a directory"),
        ("on /proc", "cannot record into /proc/tablevar-rec"),
        ("a recording already", "already holds a recording"),
    ],
)
def test_a_record_folder_that_cannot_be_written_is_refused_at_start(
    tmp_path, capsys, case, message
):
    folder = _record_folder(tmp_path, case)
    argv = ["live", "--source", "sim", "--out", str(tmp_path / "out"), "--record", str(folder)]
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablevar: error: ") and message in err and err.count("\n") == 1


class BrokenRadarHub(WatchedHub):
    """A hub whose radar fails on every frame: a fault of ours, not of the camera."""

    def push_frame(self, record):
        raise RuntimeError("the radar cannot draw this frame")


def test_a_failure_that_is_not_the_sources_is_not_retried_for_ever(tmp_path):
    hub = BrokenRadarHub(MatchLog(tmp_path / "match.sqlite"), output_dir=tmp_path / "out")
    opened = []

    def open_source():
        opened.append(SimSource("touchline_out", realtime=False, **SIM))
        return opened[-1]

    options = LiveOptions(calibration_s=0.05, calibration_frames=1, reopen_first_s=0.01)
    runner = LiveRunner(open_source, hub, tmp_path / "out", options=options)
    run_until(runner, lambda: runner.ended, timeout_s=60)
    try:
        # Tried again max_failures times (one bad frame must not end a match), then stopped.
        assert runner.ended and len(opened) == options.max_failures
        assert runner.frames < opened[0].frame_count
        source = hub.snapshot()["source"]
        assert source["ok"] is False
        assert source["message"] == (
            "refereeing stopped after 3 errors: the radar cannot draw this frame"
        )
    finally:
        hub.close()
        hub.log.close()
