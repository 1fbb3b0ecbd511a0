"""The match clock (DESIGN.md section 6): ball-moving and running modes, from timestamps only."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from rules import clock as clk
from rules.fistf import MatchConfig, MatchState, step
from rules.observation import Contact, Figures, Observation

FPS = 50.0


@pytest.mark.parametrize(
    ("flags", "elapsed"),
    [
        pytest.param([0, 1, 1, 1, 0], 3 / FPS, id="trapezoid: half an interval at start and stop"),
        pytest.param([1, 1, 1, 1, 1], 4 / FPS, id="rolling throughout"),
        pytest.param([0, 0, 0, 0, 0], 0.0, id="at rest throughout"),
        pytest.param([0, 1, 0, 1, 0], 2 / FPS, id="flickering flag counts half intervals"),
    ],
)
def test_ball_moving_trapezoid(flags, elapsed):
    c = clk.start(clk.Clock())
    for i, f in enumerate(flags):
        c = clk.tick(c, i / FPS, bool(f))
    assert c.elapsed_s == pytest.approx(elapsed)


@pytest.mark.parametrize(
    ("switches", "elapsed"),
    [
        pytest.param([None, 0.005, None, None, 0.015], 2 / FPS + 0.005 + 0.005, id="both dated"),
        pytest.param([None, 0.0, None, None, 1 / FPS], 2 / FPS, id="at the frames themselves"),
        pytest.param([None, None, None, None, 0.015], 2.5 / FPS + 0.005, id="start undated"),
        pytest.param([None, 0.5, None, None, None], 3 / FPS, id="outside the interval: undated"),
    ],
)
def test_ball_moving_clock_counts_from_dated_starts_and_stops(switches, elapsed):
    """DESIGN.md section 6 (FISTF 3.1 played as ball-moving time): a start or stop that tracking
    dates between two frames counts from or to that moment, not half the interval."""
    c = clk.start(clk.Clock())
    for i, (f, before) in enumerate(zip([0, 1, 1, 1, 0], switches, strict=True)):
        c = clk.tick(c, i / FPS, bool(f), before)
    assert c.elapsed_s == pytest.approx(elapsed)


def test_not_started_clock_does_not_run():
    c = clk.Clock()
    for i in range(10):
        c = clk.tick(c, i / FPS, True)
    assert c.elapsed_s == 0.0


def test_running_mode_runs_without_the_ball():
    c = clk.start(clk.Clock(mode="running"))
    for i in range(11):
        c = clk.tick(c, i / FPS, False)
    assert c.elapsed_s == pytest.approx(10 / FPS)


def test_camera_gap_pauses_the_clock():
    """DESIGN.md 8: a drop-out longer than max_gap_s does not count."""
    c = clk.start(clk.Clock(mode="running", max_gap_s=0.5))
    for t in (0.0, 0.02, 3.0, 3.02):
        c = clk.tick(c, t, True)
    assert c.elapsed_s == pytest.approx(0.04)


def test_time_going_backwards_is_an_error():
    c = clk.tick(clk.Clock(), 1.0, False)
    with pytest.raises(ValueError, match="time went backwards"):
        clk.tick(c, 0.5, False)


@pytest.mark.parametrize(
    ("mode", "elapsed", "added", "out", "penalty", "ends"),
    [
        pytest.param("ball-moving", 899.0, 0, True, False, False, id="FISTF 3.1 time not up"),
        pytest.param("ball-moving", 900.0, 0, False, False, False, id="ball-moving: wait for out"),
        pytest.param("ball-moving", 900.0, 0, True, False, True, id="ball-moving: up and out"),
        pytest.param("running", 900.0, 0, False, False, True, id="FISTF 3.1 running: time up"),
        pytest.param("running", 930.0, 60, False, False, False, id="FISTF 3.2 added time"),
        pytest.param("running", 960.0, 60, False, False, True, id="FISTF 3.2 added time up"),
        pytest.param("running", 960.0, 0, False, True, False, id="FISTF 12.1.2 penalty first"),
    ],
)
def test_period_end(mode, elapsed, added, out, penalty, ends):
    c = replace(clk.Clock(mode=mode, length_s=900.0), elapsed_s=elapsed, added_s=added)
    assert clk.period_ends_now(c, out, penalty) == ends


def test_bad_clock_values():
    with pytest.raises(ValueError, match="clock mode 'sundial'"):
        clk.Clock(mode="sundial")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="added time"):
        clk.add_time(clk.Clock(), -1.0)


def _rolls(rng: np.random.Generator, total_s: float) -> list[tuple[float, float]]:
    """Random rolls (start, end) in seconds: 0.3-3 s rolling, 0.5-5 s at rest."""
    t, rolls = 1.0 + rng.uniform(0, 1), []
    while True:
        start = t
        end = start + rng.uniform(0.3, 3.0)
        if end > total_s:
            return rolls
        rolls.append((start, end))
        t = end + rng.uniform(0.5, 5.0)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_ball_moving_clock_error_within_one_percent(fistf_pitch, seed):
    """DESIGN.md 5: over 3 min of play the clock errs by <= 1 % of the true moving time.

    The rolls start and stop between frames; frame times jitter by up to 2 ms.
    """
    rng = np.random.default_rng(seed)
    total_s = 180.0
    rolls = _rolls(rng, total_s)
    truth = sum(b - a for a, b in rolls)
    figs = Figures.build([7, 8], ["home", "home"], [False, False], [(-40, 0), (-40, 50)], 12.0)
    state = MatchState.new(MatchConfig(fistf_pitch, half_length_s=10_000.0))
    state = replace(state, restart=None, possession=0, clock=clk.start(state.clock))
    n = int(total_s * FPS)
    t = np.arange(n) / FPS + rng.uniform(-0.002, 0.002, n)
    starts = np.array([a for a, _ in rolls])
    ends = np.array([b for _, b in rolls])
    roll_of = np.searchsorted(starts, t, side="right") - 1
    moving = (roll_of >= 0) & (t < ends[np.maximum(roll_of, 0)])
    flicked = set()
    for i in range(n):
        contacts = ()
        k = int(roll_of[i])
        if moving[i] and k not in flicked:  # the flick that starts roll k
            flicked.add(k)
            contacts = (Contact(7 + k % 2, "flick", i),)
        angle = 0.7 * t[i]
        xy = (100 * np.cos(angle), 100 * np.sin(angle))
        obs = Observation(float(t[i]), i, xy, 10.5, 0.3, bool(moving[i]), figs, contacts)
        state, calls = step(state, obs)
        assert [c for c in calls if c.kind != "close_call"] == []
    assert abs(state.clock.elapsed_s - truth) <= 0.01 * truth
    assert len(rolls) > 25


def test_running_clock_with_added_time(fistf_pitch):
    """FISTF 3.2: in running mode the half lasts its length plus the added time."""
    cfg = MatchConfig(fistf_pitch, half_length_s=2.0, clock_mode="running", added_time_s=0.5)
    state = MatchState.new(cfg)
    state = replace(state, restart=None, possession=0, clock=clk.start(state.clock))
    ends = []
    for i in range(200):
        obs = Observation(i / FPS, i, (0.0, 0.0), 10.5)
        state, calls = step(state, obs)
        ends += [(c.kind, c.t_s) for c in calls]
    assert ends == [("half_time", pytest.approx(2.5))]


@pytest.mark.parametrize(
    ("elapsed", "running", "at", "expected"),
    [
        pytest.param(10.0, True, None, 10.0, id="stopped at this observation"),
        pytest.param(10.0, True, 9.7, 9.7, id="stopped earlier: the time after it is taken back"),
        pytest.param(10.0, True, 10.4, 10.0, id="a later reading changes nothing"),
        pytest.param(10.0, False, -1.0, 0.0, id="never below zero"),
    ],
)
def test_stop_takes_back_the_time_after_play_stopped(elapsed, running, at, expected):
    """DESIGN.md 6 (ball-moving clock): the clock runs only while the ball is in play."""
    c = replace(clk.Clock(), elapsed_s=elapsed, last_running=running, started=True)
    stopped = clk.stop(c, at)
    assert stopped.elapsed_s == pytest.approx(expected)
    assert not stopped.last_running
    assert clk.tick(replace(stopped, last_t_s=1.0), 1.1, False).elapsed_s == stopped.elapsed_s


@pytest.mark.parametrize(
    ("speed_mm_s", "bound_mm", "called_frame", "crossed_s"),
    [
        (600.0, 0.3, 8, 0.1425),  # wholly over at 0.1425 s; the frame showing it is 0.16 s
        (100.0, 3.0, 45, 0.855),  # a slow ball with a wide bound: called two frames late
    ],
)
def test_ball_out_stops_the_clock_when_it_wholly_crossed(
    fistf_pitch, speed_mm_s, bound_mm, called_frame, crossed_s
):
    """FISTF 14.1 and DESIGN.md 6: the clock stops at the crossing, between two frames, also
    when the call comes later because the margin had to exceed its uncertainty.

    The ball rolls toward the top touchline (outer edge y = 375 mm, r = 10.5 mm) from
    y = 300 mm.
    """
    state = MatchState.new(MatchConfig(fistf_pitch))
    state = replace(state, restart=None, possession=0, clock=clk.start(state.clock))
    outs = []
    for i in range(called_frame + 5):
        t = i / FPS
        obs = Observation(t, i, (50.0, 300.0 + speed_mm_s * t), 10.5, bound_mm, True)
        state, calls = step(state, obs)
        outs += [c.frame for c in calls if c.kind == "ball_out"]
    assert outs == [called_frame]
    assert state.clock.elapsed_s == pytest.approx(crossed_s, abs=1e-6)


def test_a_restart_taken_between_frames_counts_half_the_interval(fistf_pitch):
    """FISTF 4.2 and DESIGN.md 6: the kick-off flick falls between two frames, like any start."""
    home = Figures.build([7], ["home"], [False], [(-30.0, 0.0)], 12.0)
    state = MatchState.new(MatchConfig(fistf_pitch, start="kick_off"))
    for i in range(10):
        moving = i >= 5
        contacts = (Contact(7, "flick", 4),) if i == 5 else ()
        xy = (8.0 * (i - 4), 0.0) if moving else (0.0, 0.0)
        state, _ = step(state, Observation(i / FPS, i, xy, 10.5, 0.3, moving, home, contacts))
    assert state.clock.started
    assert state.clock.elapsed_s == pytest.approx(4.5 / FPS)
