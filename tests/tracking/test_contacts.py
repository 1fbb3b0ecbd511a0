"""Contacts: the flicking figure and its onset frame, collisions while rolling."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.tables import load_pitch
from tracking.tracker import Tracker
from vision.detections import Detections

FPS = 60.0
REACH = 10.5 + 12.0  # ball + base radius on the fistf table


def run(ball_xy, fig_xy, teams):
    """Feed per-frame ball (n, 2) and figure (n, k, 2) positions; return all contacts."""
    tracker = Tracker(pitch=load_pitch("fistf"))
    contacts = []
    for i in range(len(ball_xy)):
        det = Detections.build(ball_xy_mm=[ball_xy[i]], base_xy_mm=fig_xy[i], base_team=teams)
        contacts.extend(tracker.update(det, i / FPS).contacts)
    return contacts


@pytest.mark.parametrize(("striker", "team"), [(0, 0), (1, 1)])
def test_flick_names_the_striking_figure_and_the_onset(striker, team):
    n, hit = 120, 50
    ball = np.zeros((n, 2))
    figs = np.array([[[-60.0, 0.0], [0.0, 60.0]]] * n)  # home left of the ball, away above it
    direction = -figs[0, striker] / np.linalg.norm(figs[0, striker])
    # The striker slides in and touches the ball at frame ``hit``, then the ball rolls.
    for i in range(n):
        if i <= hit:
            reach = np.interp(i, [20, hit], [np.linalg.norm(figs[0, striker]), REACH])
            figs[i, striker] = -direction * reach
        else:
            figs[i, striker] = -direction * REACH + direction * 3.0
            ball[i] = direction * 600.0 * (i - hit) / FPS
    contacts = run(ball, figs, [0, 1])
    flicks = [c for c in contacts if c.kind == "flick"]
    assert len(flicks) == 1
    assert flicks[0].frame == hit
    assert flicks[0].team == team
    assert flicks[0].gap_mm < 2.0


def test_flick_by_a_figure_whose_track_lost_it_just_before_the_strike():
    """A figure runs at the ball at 360 mm/s; blurred, it is not seen on the last frames before
    it strikes (its track stands a base's width short of the ball): the flick is still its."""
    fps, n, hit = 30.0, 40, 20
    ball = np.zeros((n, 2))
    figs = np.array([[[-60.0, 0.0], [0.0, 200.0]]] * n)
    for i in range(n):
        figs[i, 0, 0] = min(-60.0 + 12.0 * max(i - hit + 4, 0), -REACH)  # 12 mm a frame
        if i > hit:
            ball[i, 0] = 600.0 * (i - hit) / fps
    tracker = Tracker(pitch=load_pitch("fistf"))
    contacts = []
    for i in range(n):
        seen = not (hit - 2 <= i <= hit + 3)  # the runner unseen around the strike
        bases = figs[i] if seen else figs[i, 1:]
        det = Detections.build(
            ball_xy_mm=[ball[i]], base_xy_mm=bases, base_team=[0, 1][-len(bases) :]
        )
        contacts.extend(tracker.update(det, i / fps).contacts)
    flicks = [c for c in contacts if c.kind == "flick"]
    assert [(c.frame, c.team) for c in flicks] == [(hit, 0)]


def test_collision_with_a_figure_while_rolling():
    n = 90
    ball = np.zeros((n, 2))
    figs = np.array([[[-200.0, 0.0], [100.0 + REACH, 0.0]]] * n)
    v = 600.0
    t_hit = 100.0 / v
    for i in range(n):
        t = i / FPS
        ball[i] = (v * t, 0.0) if t <= t_hit else (100.0 - 0.5 * v * (t - t_hit), 0.0)
    ball[:5] = 0.0
    contacts = run(ball, figs, [0, 1])
    collisions = [c for c in contacts if c.kind == "collision"]
    assert len(collisions) == 1
    assert collisions[0].team == 1
    assert abs(collisions[0].frame - t_hit * FPS) <= 3


def test_rolling_past_a_figure_is_no_collision():
    n = 90
    ball = np.stack([np.linspace(-200, 200, n), np.zeros(n)], axis=1)
    figs = np.array([[[0.0, REACH + 15.0]]] * n)  # 15 mm clear of the ball's path
    contacts = run(ball, figs, [0])
    assert [c for c in contacts if c.kind == "collision"] == []


@pytest.mark.parametrize("drift_mm", [0.0, 1.5, -2.5])
def test_a_pass_coming_to_rest_short_of_a_base_is_no_collision(drift_mm):
    """A pass decelerating (500 mm/s^2) to rest 6 mm short of a team-mate: its last slow
    millimetres, read off a blob beside the base, bend sideways by ``drift_mm``; the ball
    still heads for the base, and no base turned it (before: a collision on every such pass)."""
    n, t_roll, decel = 120, 0.9, 500.0
    t = np.arange(n) / FPS - 0.1
    tr = np.clip(t, 0.0, t_roll)
    x = decel * t_roll * tr - 0.5 * decel * tr**2  # from rest at 0 to rest at 202.5 mm
    stop_x = 0.5 * decel * t_roll**2
    late = np.clip((tr - (t_roll - 0.25)) / 0.25, 0.0, 1.0)  # the last 0.25 s of the roll
    ball = np.stack([x, drift_mm * late**2], axis=1)
    figs = np.array([[[-200.0, 0.0], [stop_x + REACH + 6.0, 0.0]]] * n)
    contacts = run(ball, figs, [0, 0])
    assert [c.kind for c in contacts] == ["flick"]


def test_a_pass_coming_to_rest_beside_a_base_is_no_collision():
    """A pass decelerating (500 mm/s^2) to rest beside a team-mate, 6 mm clear of its base
    (within ``touch_gap_mm``), its last slow millimetres bending 2.5 mm away from the base:
    the ball turns and leaves the base at ~20 mm/s, but at that speed a touch would have shown
    a gap within the uncertainty of ball and base (~3 mm) plus a frame's travel (< 1 mm), and
    6 mm is not: no collision (before: a collision with the team-mate)."""
    n, t_roll, decel = 120, 0.9, 500.0
    t = np.arange(n) / FPS - 0.1
    tr = np.clip(t, 0.0, t_roll)
    x = decel * t_roll * tr - 0.5 * decel * tr**2
    stop_x = 0.5 * decel * t_roll**2
    late = np.clip((tr - (t_roll - 0.25)) / 0.25, 0.0, 1.0)
    ball = np.stack([x, 2.5 * late**2], axis=1)
    beside = [stop_x - 5.0, -np.sqrt((REACH + 6.0) ** 2 - 5.0**2)]
    figs = np.array([[[-200.0, 0.0], beside]] * n)
    contacts = run(ball, figs, [0, 0])
    assert [c.kind for c in contacts] == ["flick"]


@pytest.mark.parametrize("v", [150.0, 600.0])
def test_a_ball_bouncing_off_a_base_is_a_collision_at_any_speed(v):
    """A ball rolling at ``v`` into a base (gap 0) bounces back at 40 % of its speed: a
    collision, also when slow (its gap at the nearest frame lies within the allowance)."""
    n = 150
    x_hit = 100.0
    t_hit = x_hit / v
    t = np.arange(n) / FPS - 5 / FPS
    x = np.where(t <= t_hit, v * np.clip(t, 0.0, None), x_hit - 0.4 * v * (t - t_hit))
    ball = np.stack([x, np.zeros(n)], axis=1)
    figs = np.array([[[-200.0, 50.0], [x_hit + REACH, 0.0]]] * n)
    contacts = run(ball, figs, [0, 1])
    collisions = [c for c in contacts if c.kind == "collision"]
    assert [c.team for c in collisions] == [1]
    assert abs(collisions[0].frame - t_hit * FPS - 5) <= 3


@pytest.mark.parametrize("back_mm", [0.3, 0.6])
def test_a_pass_reading_back_a_little_as_it_stops_beside_a_base_is_no_collision(back_mm):
    """A pass decelerating to rest 1.5 mm from a team-mate's base (within the touch allowance),
    its last reading ``back_mm`` back from the base before the ball is seen at rest, as a
    ball's blob beside a base may read: the step is a turn and, at frame rate, a speed away
    from the base, but no farther than the readings' noise: no figure touched it, so no
    collision is filed (one would hand possession over, FISTF 5.1)."""
    n, t_roll, decel = 120, 0.9, 500.0
    t = np.arange(n) / FPS - 0.1
    tr = np.clip(t, 0.0, t_roll)
    x = decel * t_roll * tr - 0.5 * decel * tr**2
    stop_x = 0.5 * decel * t_roll**2
    ball = np.stack([x, np.zeros(n)], axis=1)
    last = int(np.argmax(t >= t_roll))
    ball[last:, 0] -= back_mm
    figs = np.array([[[-200.0, 0.0], [stop_x + REACH + 1.5, 0.0]]] * n)
    contacts = run(ball, figs, [0, 0])
    assert [c.kind for c in contacts] == ["flick"]


def test_a_strike_after_a_start_confirmed_early_names_its_striker():
    """The ball's fits jitter millimetres off its rest point for a dozen frames before the
    strike (a low-bitrate clip garbling the ball as a hand reaches in; seen on an offside
    clip encoded again at 1.5 Mbit/s), which confirms a movement with no base near. The
    striker then runs in and the ball rolls off it: that is the flick, the striker's (it was
    taken for a collision with a ball already rolling, and no offside was judged)."""
    n, hit = 90, 50
    ball = np.zeros((n, 2))
    figs = np.array([[[-60.0, 0.0], [0.0, 200.0]]] * n)
    for i in range(n):
        if 36 <= i <= hit:
            ball[i] = (3.0 + 2.0 * (i % 2), 1.5 * (i % 3 == 0))
        if i > hit:
            ball[i, 0] = 600.0 * (i - hit) / FPS
        figs[i, 0, 0] = -60.0 if i < hit - 6 else min(-60.0 + 6.0 * (i - hit + 6), -REACH)
    contacts = run(ball, figs, [0, 1])
    assert [(c.kind, c.team) for c in contacts if c.figure_id is not None] == [("flick", 0)]
    struck = next(c for c in contacts if c.figure_id is not None)
    assert hit - 2 <= struck.frame <= hit


def test_a_ball_struck_unseen_that_rolls_into_a_base_meets_it_in_a_collision():
    """A flick with no base near (a hand) leaves its rest point unclaimed; the base the ball
    then rolls into stood far from that point: a collision, not the strike."""
    n, t_hit = 90, 100.0 / 600.0
    ball = np.zeros((n, 2))
    figs = np.array([[[-200.0, 0.0], [100.0 + REACH, 0.0]]] * n)
    for i in range(n):
        t = max(i - 5, 0) / FPS
        ball[i] = (600.0 * t, 0.0) if t <= t_hit else (100.0 - 300.0 * (t - t_hit), 0.0)
    contacts = run(ball, figs, [0, 1])
    assert [(c.kind, c.figure_id) for c in contacts] == [("flick", None), ("collision", 1)]
