"""Ball tracker: moving-state hysteresis, onset and stop frames, coasting, gating."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from tracking.ball import BallTracker, BallTrackerConfig, TimestampError
from vision.detections import Detections

FPS = 60.0


def roll(
    n_rest: int,
    v0_mm_s: float,
    decel_mm_s2: float,
    n_after: int,
    *,
    angle: float = 0.3,
    fps: float = FPS,
):
    """Truth for a ball at rest, flicked after frame ``n_rest - 1``, then rolling to a stop.

    Returns positions (n, 2), moving flags (n,) and the index of the first rest frame after.
    As in the simulator's truth, a frame is moving when the ball moved since the frame before.
    """
    dt = 1.0 / fps
    d = np.array([np.cos(angle), np.sin(angle)])
    xy, moving = [], []
    p, v = np.array([-100.0, 40.0]), 0.0
    for i in range(n_rest + n_after):
        if i == n_rest:
            v = v0_mm_s  # struck just after frame n_rest - 1
        moved = v > 0
        if v > 0:
            nv = max(0.0, v - decel_mm_s2 * dt)
            p = p + d * (v * v - nv * nv) / (2 * decel_mm_s2)
            v = nv
        xy.append(p.copy())
        moving.append(moved)
    moving = np.array(moving)
    first_rest = n_rest + int(np.argmin(moving[n_rest:]))
    return np.array(xy), moving, first_rest


def run(xy, *, noise_mm=0.1, drop=(), seed=0, tracker=None, fps=FPS):
    rng = np.random.default_rng(seed)
    tracker = tracker or BallTracker()
    out = []
    for i, p in enumerate(xy):
        if i in drop or p is None:
            det = Detections.empty()
        else:
            det = Detections.build(ball_xy_mm=[p + rng.normal(0, noise_mm, 2)])
        out.append(tracker.update(det, i / fps))
    return out


@pytest.mark.parametrize(
    ("v0", "decel", "fps"),
    [
        (800.0, 300.0, FPS),
        (300.0, 300.0, FPS),
        (1500.0, 500.0, FPS),
        (120.0, 200.0, FPS),
        # Frame rates whose frames do not span the 0.1 s stop window exactly.
        (800.0, 300.0, 24.0),
        (300.0, 300.0, 25.0),
        (1500.0, 500.0, 50.0),
    ],
)
def test_flick_onset_and_stop_frames(v0, decel, fps):
    xy, _, first_rest = roll(40, v0, decel, int(fps * v0 / decel) + 40, fps=fps)
    tracks = run(xy, fps=fps)
    onsets = [t.onset_frame for t in tracks if t.onset_frame is not None]
    assert onsets == [39]  # the last frame at rest before the strike
    started = next(t for t in tracks if t.moving)
    assert started.state_since_frame == 40
    assert started.frame <= 42  # confirmed within two frames
    stopped = next(t for t in tracks[41:] if not t.moving)
    assert abs(stopped.state_since_frame - first_rest) <= 2
    # Confirmed within the 0.1 s stop window (and the frame that covers it).
    assert stopped.frame - first_rest <= 0.1 * fps + 4
    assert np.linalg.norm(tracks[-1].xy_mm - xy[-1]) < 0.1


@pytest.mark.parametrize(("noise_mm", "outlier_mm"), [(0.1, 0.0), (0.3, 0.0), (0.1, 3.0)])
def test_noise_and_single_outliers_do_not_start_a_movement(noise_mm, outlier_mm):
    xy = np.tile([50.0, -20.0], (200, 1))
    xy[100] += outlier_mm  # one bad detection (a finger over half the ball)
    tracks = run(xy, noise_mm=noise_mm)
    assert not any(t.moving for t in tracks)
    assert all(t.onset_frame is None for t in tracks)
    assert np.linalg.norm(tracks[-1].xy_mm - xy[0]) < 0.05 + noise_mm / 5


def test_rest_point_averages_noise():
    xy = np.tile([10.0, 10.0], (120, 1))
    tracks = run(xy, noise_mm=0.3)
    assert np.linalg.norm(tracks[-1].xy_mm - xy[0]) < 0.1


def test_coasts_through_a_short_occlusion_while_rolling():
    xy, _, _ = roll(20, 900.0, 200.0, 120)
    tracks = run(xy, drop=set(range(40, 48)))  # 8 frames, 0.13 s hidden
    for i in range(40, 48):
        assert tracks[i].moving and not tracks[i].measured
        assert np.linalg.norm(tracks[i].xy_mm - xy[i]) < 3.0
    assert tracks[50].measured and np.linalg.norm(tracks[50].xy_mm - xy[50]) < 1.0


def test_loses_a_rolling_ball_after_the_coast_time_and_reacquires_it():
    xy, _, _ = roll(20, 900.0, 200.0, 120)
    tracks = run(xy, drop=set(range(40, 70)))  # 0.5 s hidden > coast_moving_s
    assert tracks[69].xy_mm is None
    assert tracks[72].xy_mm is not None
    assert np.linalg.norm(tracks[75].xy_mm - xy[75]) < 2.0


def test_a_roll_faster_than_its_first_sightings_said_is_followed():
    """The striking figure pushes the ball a few millimetres on the first two frames (a slow
    start, 180 mm/s), then hides it for four frames as the flick sends it at 900 mm/s: the
    ball is next seen 60 mm beyond where that slow start predicted. Its filter knew the
    speed only from two sightings, so the ball is taken up there and followed, not lost
    with the gate of a steady roll."""
    x = [0.0] * 30 + [2.0, 5.0] + [None] * 4 + [5.0 + 900.0 * k / FPS for k in range(5, 30)]
    tracker = BallTracker()
    for i, v in enumerate(x):
        det = Detections.empty() if v is None else Detections.build(ball_xy_mm=[[v, 0.0]])
        track = tracker.update(det, i / FPS, vouched=True)
        if i >= 36:
            assert track.measured and track.moving
            assert abs(track.xy_mm[0] - x[i]) < 3.0


def test_a_candidate_near_a_ball_just_struck_is_not_taken_unless_vouched_for():
    """Among every candidate on the cloth, one 55 mm beside where a ball just struck and
    unseen for two frames was predicted is another object: the gate of a roll is what its
    speed carries it, not what its doubt might."""
    tracker = BallTracker()
    for i, v in enumerate([0.0] * 30 + [4.0, 10.0]):
        tracker.update(Detections.build(ball_xy_mm=[[v, 0.0]]), i / FPS)
    for i in (32, 33):
        track = tracker.update(Detections.empty(), i / FPS)
    other = track.xy_mm + np.array([0.0, 55.0])
    track = tracker.update(Detections.build(ball_xy_mm=[other]), 34 / FPS)
    assert not track.measured and track.moving


def test_a_steady_roll_does_not_take_a_candidate_far_off_its_way():
    """Once the roll has been seen for a while, its filter is sure of it: a candidate 45 mm
    ahead of the ball (another object) is not taken for it when the ball is unseen."""
    xy, _, _ = roll(20, 900.0, 200.0, 60)
    tracker = BallTracker()
    run(xy[:50], tracker=tracker)
    ahead = xy[50] + 45.0 * (xy[50] - xy[49]) / np.hypot(*(xy[50] - xy[49]))
    track = tracker.update(Detections.build(ball_xy_mm=[ahead]), 50 / FPS)
    assert not track.measured
    assert np.linalg.norm(track.xy_mm - xy[50]) < 3.0


def test_ball_at_rest_keeps_its_place_under_a_finger():
    xy = np.tile([0.0, 0.0], (200, 1))
    tracks = run(xy, drop=set(range(50, 150)))  # hidden 1.7 s, under coast_rest_s
    assert all(t.xy_mm is None for t in tracks[:2])  # taken up on the third sighting ...
    assert tracks[2].state_since_frame == 0  # ... dated back to the first
    assert all(t.xy_mm is not None and not t.moving for t in tracks[2:])


@pytest.mark.parametrize(
    ("sightings", "score", "found"),
    [
        ([(0.0, 0.0)] * 2 + [None] * 5, 1.0, False),  # two glints are not a ball
        ([(0.0, 0.0)] * 5, 0.2, False),  # a weak candidate never starts a track
        ([(0.0, 0.0), (40.0, 0.0), (200.0, 0.0), (240.0, 0.0)], 1.0, False),  # no steady path
        ([(0.0, 0.0), (0.1, 0.0), (0.0, 0.1)], 1.0, True),
        ([(0.0, 0.0), (10.0, 0.0), (20.0, 0.0)], 1.0, True),  # a rolling ball
    ],
)
def test_a_lost_ball_is_taken_up_after_steady_strong_sightings(sightings, score, found):
    tracker = BallTracker()
    tracks = [
        tracker.update(
            Detections.empty()
            if p is None
            else Detections.build(ball_xy_mm=[p], ball_score=[score]),
            i / FPS,
        )
        for i, p in enumerate(sightings)
    ]
    assert (tracks[-1].xy_mm is not None) == found


@pytest.mark.parametrize(
    ("unseen_frames", "place_bare", "moved"),
    [
        (30, False, True),  # out of sight for half a second: carried there
        (6, True, True),  # its place bare: lifted
        (6, False, False),  # missed at its place for a tenth of a second: still there
    ],
)
def test_a_ball_lifted_and_put_down_elsewhere_moves_without_a_flick(
    unseen_frames, place_bare, moved
):
    """A ball at rest lifted and put down 455 mm away is followed there on its third
    sighting, without a flick, once it was out of sight as long as carrying it takes or its
    place showed the bare cloth. Missed at its place for a few frames with no bare cloth
    showing, it is still there (a red ball read as a red kit's base), and a still candidate
    elsewhere (a goalkeeper of its colour) is not taken for it."""
    tracker = BallTracker()
    away = np.array([430.0, 150.0])
    tracks = []
    back_at = 60 + unseen_frames
    for i in range(back_at + 30):
        if i < 60:
            det = Detections.build(ball_xy_mm=[[0.0, 0.0]])
        elif i < back_at:
            det = Detections.build(ball_vacated=place_bare)
        else:
            det = Detections.build(ball_xy_mm=[away])
        tracks.append(tracker.update(det, i / FPS))
    assert all(t.onset_frame is None and not t.moving for t in tracks)
    back = tracks[back_at + 2]  # third sighting at the new place
    if moved:
        assert np.linalg.norm(back.xy_mm - away) < 0.3
        assert back.state_since_frame == back_at
        assert np.array_equal(back.rest_xy_mm, back.xy_mm)
    else:
        assert np.linalg.norm(back.xy_mm) < 0.3


def test_a_ball_at_rest_whose_place_shows_the_bare_cloth_is_gone_not_hidden():
    """A ball at rest not seen keeps its place while something may hide it (a finger). When
    its place shows the bare cloth two frames running, it was struck away unseen (a codec
    smears a rolling ball beyond recognition): the place says nothing sure any more, the
    ball may be anywhere a flick took it since; the roll, once seen, is taken up."""

    def after_rest(vacated):
        tracker = BallTracker()
        for i in range(10):
            tracker.update(Detections.build(ball_xy_mm=[[50.0, -20.0]]), i / FPS)
        empty = Detections.build(ball_vacated=vacated)
        gone = [tracker.update(empty, (10 + k) / FPS) for k in range(3)]
        seen = [
            tracker.update(Detections.build(ball_xy_mm=[[80.0 + 8 * k, -20.0]]), (13 + k) / FPS)
            for k in range(3)
        ]
        return gone, seen

    (hidden, _), (gone, seen) = after_rest(False), after_rest(True)
    assert all(t.sigma_mm < 1.0 for t in hidden)
    assert gone[0].sigma_mm < 1.0  # one frame may be a glitch
    travel = BallTrackerConfig().max_speed_mm_s * 2 / FPS
    assert gone[1].sigma_mm >= travel and gone[2].sigma_mm > gone[1].sigma_mm
    assert seen[-1].xy_mm is not None and seen[-1].moving
    assert np.hypot(*(seen[-1].xy_mm - (96.0, -20.0))) < 3.0


def test_gate_ignores_a_far_candidate():
    tracker = BallTracker()
    for i in range(30):
        tracker.update(Detections.build(ball_xy_mm=[[0.0, 0.0]]), i / FPS)
    far = Detections.build(ball_xy_mm=[[300.0, 0.0], [0.05, 0.0]], ball_score=[1.0, 0.4])
    track = tracker.update(far, 30 / FPS)
    assert np.linalg.norm(track.xy_mm) < 0.1 and not track.moving


def test_timestamps_going_backwards_are_an_error():
    tracker = BallTracker()
    tracker.update(Detections.empty(), 1.0)
    with pytest.raises(TimestampError, match="backwards"):
        tracker.update(Detections.empty(), 0.5)


def test_empty_detections_from_the_start_give_no_ball():
    tracker = BallTracker()
    tracks = [tracker.update(Detections.empty(), i / FPS) for i in range(5)]
    assert all(t.xy_mm is None and not t.moving for t in tracks)
    assert [t.frame for t in tracks] == [0, 1, 2, 3, 4]


# ---------------------------------------------------------------- position uncertainty (sigma)


@pytest.mark.parametrize(("noise_mm", "frames"), [(0.05, 100), (0.2, 30), (0.2, 100), (0.4, 100)])
def test_rest_sigma_is_the_standard_error_of_the_rest_point(noise_mm, frames):
    """sigma_mm at rest: the scatter of the rest over sqrt(n), once n outweighs the prior."""
    tracks = run(np.tile([30.0, -5.0], (frames, 1)), noise_mm=noise_mm)
    cfg = BallTracker().config
    n = frames - 2  # the track is taken up on the third sighting, dated back to the first
    assert tracks[-1].sigma_mm == pytest.approx(
        max(noise_mm / np.sqrt(n), cfg.rest_floor_mm), rel=0.35
    )


def test_rest_sigma_covers_the_rest_point_error():
    """Over many rests, the rest point lies within 2 sigma per axis about 95 % of the time."""
    tracker_cfg = BallTrackerConfig(rest_floor_mm=0.0)
    z = []
    for seed in range(200):
        track = run(
            np.tile([0.0, 0.0], (25, 1)), noise_mm=0.2, seed=seed, tracker=BallTracker(tracker_cfg)
        )[-1]
        z.append(np.abs(track.xy_mm) / track.sigma_mm)
    inside = np.mean(np.array(z) <= 2.0)
    assert 0.9 <= inside <= 0.995


def test_repeated_fits_count_once():
    """A detector repeating its fit of an unchanged view adds no information."""
    fresh = np.tile([0.0, 0.0], (60, 1)) + np.random.default_rng(3).normal(0, 0.2, (60, 2))
    repeated = np.repeat(fresh[:8], 8, axis=0)[:60]  # 8 distinct fits, each seen 8 times
    cfg = BallTrackerConfig(rest_floor_mm=0.0)
    a = run(fresh, noise_mm=0.0, tracker=BallTracker(cfg))[-1]
    b = run(repeated, noise_mm=0.0, tracker=BallTracker(cfg))[-1]
    assert b.sigma_mm > 2.0 * a.sigma_mm
    assert np.allclose(b.rest_xy_mm, fresh[:8].mean(axis=0))


@pytest.mark.parametrize("fit_sigma_mm", [0.05, 0.4])
def test_rest_sigma_never_falls_below_what_the_detector_says_its_fits_share(fit_sigma_mm):
    """Averaging 100 fits of a still ball shrinks their scatter, not what they share (the
    detector's ``ball_sigma_mm``): the rest's sigma stays at least that."""
    rng = np.random.default_rng(5)
    tracker = BallTracker()
    for i in range(100):
        det = Detections.build(ball_xy_mm=[rng.normal(0.0, 0.1, 2)], ball_sigma_mm=[fit_sigma_mm])
        track = tracker.update(det, i / FPS)
    floor = tracker.config.rest_floor_mm
    assert track.sigma_mm == pytest.approx(max(fit_sigma_mm, floor), rel=0.05)


def test_a_few_doubtful_fits_of_a_rest_count_by_their_share():
    """The detector's uncertainty of a fit grows where its edges are in doubt (a finger
    over the ball for a few frames). The rest point is the mean of its fits, so its floor is
    their root mean square uncertainty, not the worst one's: 90 fits of 0.2 mm and 10 of
    1.0 mm share 0.37 mm, not 1.0."""
    rng = np.random.default_rng(6)
    tracker = BallTracker()
    for i in range(100):
        sigma = 1.0 if 40 <= i < 50 else 0.2
        det = Detections.build(ball_xy_mm=[rng.normal(0.0, 0.05, 2)], ball_sigma_mm=[sigma])
        track = tracker.update(det, i / FPS)
    assert track.sigma_mm == pytest.approx(np.sqrt(0.9 * 0.2**2 + 0.1 * 1.0**2), rel=0.05)


def test_the_same_placing_restated_less_surely_takes_its_larger_uncertainty_in():
    """The detector places a rolling ball along its motion and a still one as it is: the same
    centre, no longer rolling, may come with a larger uncertainty (a spotted ball read as a
    short streak: 0.7 mm rolling, 2.4 mm still). A repeated placing is no new measurement,
    but its restated doubt is the one that stands; a smaller one changes nothing."""
    tracker = BallTracker()
    for i, sigma in enumerate([0.7] * 10 + [2.4] * 5 + [0.3] * 5):
        det = Detections.build(ball_xy_mm=[[0.0, 0.0]], ball_sigma_mm=[sigma])
        track = tracker.update(det, i / FPS)
        if i == 9:
            assert track.sigma_mm == pytest.approx(0.7)
    assert track.sigma_mm == pytest.approx(2.4)


def test_a_single_measurement_at_rest_has_the_configured_noise():
    tracks = run(np.tile([0.0, 0.0], (10, 1)), noise_mm=0.0)  # one fit, repeated
    assert tracks[-1].sigma_mm == pytest.approx(BallTracker().config.measurement_sigma_mm)


@pytest.mark.parametrize("fit_sigma_mm", [0.06, 0.2, 0.5])
def test_a_single_fit_at_rest_is_as_sure_as_the_detector_says(fit_sigma_mm):
    """A sharp view's fit (0.06 mm) is not held to the configured 0.3 mm of a coarse one, and
    a coarse view's (0.5 mm) is not trusted beyond what its detector claims."""
    tracker = BallTracker()
    for i in range(10):  # one fit, repeated: a single measurement
        det = Detections.build(ball_xy_mm=[[0.0, 0.0]], ball_sigma_mm=[fit_sigma_mm])
        track = tracker.update(det, i / FPS)
    assert track.sigma_mm == pytest.approx(max(fit_sigma_mm, tracker.config.rest_floor_mm))


def test_moving_sigma_comes_from_the_filter_and_grows_while_coasting():
    xy, _, _ = roll(20, 900.0, 200.0, 120)
    tracks = run(xy, drop=set(range(40, 48)))
    rolling = [t.sigma_mm for t in tracks[30:40]]
    assert all(0.0 < s < BallTracker().config.measurement_sigma_mm for s in rolling)
    coasting = [t.sigma_mm for t in tracks[40:48]]
    assert all(b > a for a, b in itertools.pairwise(coasting))
    assert coasting[-1] > 5 * rolling[-1]


def _covered_share(rng, error_mm: float, claim) -> float:
    """Share of a roll's frames whose track error along x (a line's normal, as a line call
    reads it) lies within twice the stated sigma: fits off by ``error_mm`` (normal), each
    claiming ``claim()``."""
    xy, moving, _ = roll(20, 900.0, 200.0, 60)
    tracker = BallTracker()
    err, sigma = [], []
    for i, p in enumerate(xy):
        fit = p + rng.normal(0, error_mm, 2)
        t = tracker.update(Detections.build(ball_xy_mm=[fit], ball_sigma_mm=[claim()]), i / FPS)
        if t.moving and moving[i]:
            err.append(abs(float(t.xy_mm[0] - p[0])))
            sigma.append(t.sigma_mm)
    assert len(err) >= 30
    return float(np.mean(np.array(err) <= 2.0 * np.array(sigma)))


def test_a_rolling_ball_fitted_doubtfully_is_no_surer_than_its_fits_allow():
    """Fits that say they are doubtful by 1.5 mm (a ball a few pixels across), and are: the
    rolling track weighs each by its own uncertainty, where a filter that took them for
    0.3 mm fits would claim far less."""
    assert _covered_share(np.random.default_rng(3), 1.5, lambda: 1.5) >= 0.9


def test_a_rolling_ball_whose_fits_claim_at_random_is_no_surer_than_their_average():
    """Fits whose stated uncertainties are right on average but not one by one (a compressed
    spotted ball: a fit 3 mm off may claim 0.4 mm): the rolling track weighs each by at least
    the recent fits' RMS, where a filter that believed each claim would follow the
    sharp-claiming strays and state 0.4 mm."""
    rng = np.random.default_rng(5)
    claims = (0.4, 1.6)
    rms = math.sqrt(np.mean(np.square(claims)))  # each fit's true error, whatever it claims
    assert _covered_share(rng, rms, lambda: rng.choice(claims)) >= 0.9


def test_sigma_of_a_ball_displaced_but_not_yet_moving_is_one_measurement():
    xy = np.tile([0.0, 0.0], (60, 1))
    xy[50:] += [5.0, 0.0]  # flicked: the first displaced frame is not yet a movement
    tracks = run(xy, noise_mm=0.0)
    assert not tracks[50].moving and np.allclose(tracks[50].xy_mm, xy[50])
    assert tracks[50].sigma_mm == BallTracker().config.measurement_sigma_mm
    assert tracks[-1].sigma_mm is not None and tracks[-1].sigma_mm > 0


def _struck(phase: float, v0_mm_s: float, decel_mm_s2: float, fps: float, n: int):
    """A ball at rest struck at ``(20 + phase) / fps`` and rolling to a stop: (n, 2) positions."""
    t_a = (20 + phase) / fps
    tau = np.clip(np.arange(n) / fps - t_a, 0.0, v0_mm_s / decel_mm_s2)
    s = v0_mm_s * tau - 0.5 * decel_mm_s2 * tau * tau
    return np.array([-200.0, 50.0]) + np.outer(s, [np.cos(0.4), np.sin(0.4)])


def _final_flags(tracks) -> np.ndarray:
    """Moving flags as a consumer holding records back sees them (states dated back; a
    movement's start dated later than first thought unflags the frames between, as
    ``tablevar.pipeline`` does)."""
    flags = np.array([t.moving for t in tracks])
    moving_since = None
    for t in tracks:
        if t.moving and moving_since is not None and moving_since < t.state_since_frame:
            flags[moving_since : t.state_since_frame] = False
        moving_since = t.state_since_frame if t.moving else None
        flags[t.state_since_frame : t.frame + 1] = t.moving
    return flags


@pytest.mark.parametrize("fps", [24.0, 30.0, 60.0])
def test_moving_flags_time_a_roll_without_bias(fps):
    """The clock's trapezoid over the flags (rules.clock) gives the true rolling time.

    A switch between two frames is dated to the first frame at or after it, at the start
    (the flick) and at the end (the stop) alike: half a frame early or late on average, which
    the trapezoid's half intervals cancel. Over strikes at random phases the mean error stays
    under a sixth of a frame and no roll is off by more than one and a half.
    """
    rng = np.random.default_rng(int(fps))
    errors = []
    for _ in range(40):
        v0, decel = rng.uniform(200.0, 1200.0), rng.uniform(250.0, 500.0)
        n = int(fps * (v0 / decel + 1.5)) + 20
        flags = _final_flags(run(_struck(rng.uniform(), v0, decel, fps, n), fps=fps))
        f = flags.astype(float)
        counted = np.sum(0.5 * (f[1:] + f[:-1])) / fps
        errors.append((counted - v0 / decel) * fps)
    assert abs(np.mean(errors)) < 0.15
    assert np.max(np.abs(errors)) < 1.5


def test_stop_dating_stays_unbiased_with_noisier_fits():
    """Fits of 0.3 mm noise (a slow ball near its stop): the clock errs by under a third of a
    frame on average over rolls at 30 fps (fitting only the last 8 mm, unweighted: 0.36)."""
    rng = np.random.default_rng(5)
    errors = []
    for k in range(40):
        v0, decel = rng.uniform(200.0, 1200.0), rng.uniform(250.0, 500.0)
        n = int(30.0 * (v0 / decel + 1.5)) + 20
        xy = _struck(rng.uniform(), v0, decel, 30.0, n)
        f = _final_flags(run(xy, fps=30.0, noise_mm=0.3, seed=k)).astype(float)
        errors.append((np.sum(0.5 * (f[1:] + f[:-1])) / 30.0 - v0 / decel) * 30.0)
    assert abs(np.mean(errors)) < 0.3


@pytest.mark.parametrize("fps", [24.0, 30.0, 60.0])
def test_strike_and_stop_are_dated_between_frames(fps):
    """The strike is traced back along the first roll to the rest point and the stop found
    from the roll's deceleration: both land within a fraction of a frame of the truth, which
    lets the clock count a roll closer than whole or half frames."""
    rng = np.random.default_rng(int(fps) + 1)
    start_err, stop_err = [], []
    for _ in range(40):
        v0, decel, phase = rng.uniform(200.0, 1200.0), rng.uniform(250.0, 500.0), rng.uniform()
        n = int(fps * (v0 / decel + 1.5)) + 20
        tracks = run(_struck(phase, v0, decel, fps, n), fps=fps)
        t_a = (20 + phase) / fps
        started = next(t for t in tracks if t.moving)
        stopped = next(t for t in tracks if t.frame > started.frame and not t.moving)
        assert started.state_since_s is not None and stopped.state_since_s is not None
        start_err.append((started.state_since_s - t_a) * fps)
        stop_err.append((stopped.state_since_s - t_a - v0 / decel) * fps)
    assert abs(np.mean(start_err)) < 0.1 and np.max(np.abs(start_err)) < 0.25
    assert abs(np.mean(stop_err)) < 0.1 and np.max(np.abs(stop_err)) < 0.75


@pytest.mark.parametrize("shift_frames", [2, 3])
def test_a_fit_shifted_by_a_figure_before_the_strike_does_not_start_the_roll(shift_frames):
    """A figure arriving beside the resting ball shifts its fit by ~1.2 mm for a few frames
    before the strike: the movement starts at the strike (traced back along the roll), not at
    the shift, so the ball-moving clock counts only the roll (DESIGN.md section 6)."""
    n_rest, rest = 30, np.array([-100.0, 40.0])
    strike_s = (n_rest - 0.5) / FPS  # half a frame before the first frame that shows the roll
    t = np.arange(30) / FPS + 0.5 / FPS  # time since the strike of the frames after it
    u = np.array([np.cos(0.3), np.sin(0.3)])
    rolled = rest + u * (600.0 * t - 0.5 * 1000.0 * t**2)[:, None]
    before = np.repeat(rest[None], n_rest, axis=0)
    before[n_rest - shift_frames :] += [1.2, 0.0]  # the figure beside the ball
    tracks = run(list(np.concatenate([before, rolled])), noise_mm=0.05)
    last = tracks[n_rest + 4]
    assert last.moving
    assert last.state_since_frame == n_rest
    assert last.state_since_s == pytest.approx(strike_s, abs=0.25 / FPS)


def test_a_doubtful_rest_read_anew_within_its_doubt_dates_the_strike_at_the_strike():
    """Doubtful fits (0.7 mm: a compressed clip) of a resting ball read it 1.3 mm off its
    rest point from some frame on, the same each frame (the detector refits once, then reuses
    it). That is no movement, and the strike 30 frames later is dated to the last of those
    frames, where the striking figure stands, not to the last frame before the new reading."""
    n_rest, jump_at, rest = 60, 20, np.array([-100.0, 40.0])
    before = np.repeat(rest[None], n_rest, axis=0)
    before[jump_at:] += [1.3, 0.0]
    t = np.arange(1, 20) / FPS
    rolled = before[-1] + np.array([-1.0, 0.0]) * (500.0 * t)[:, None]
    tracker = BallTracker()
    tracks = [
        tracker.update(Detections.build(ball_xy_mm=[p], ball_sigma_mm=[0.7]), i / FPS)
        for i, p in enumerate(np.concatenate([before, rolled]))
    ]
    assert not any(t.moving for t in tracks[:n_rest])
    assert [t.onset_frame for t in tracks if t.onset_frame is not None] == [n_rest - 1]


def test_a_ball_found_rolling_is_taken_up_moving_since_its_first_sighting():
    # A clip picked up in play: the ball rolls from the first frame; its start was never seen.
    xy, _, _ = roll(0, 900.0, 1000.0, 60)
    tracks = run(xy)
    k = BallTrackerConfig().acquire_frames - 1  # the update that takes it up
    assert tracks[k].moving and tracks[k].state_since_frame == 0
    assert all(t.moving for t in tracks[k:30])
    assert np.linalg.norm(tracks[k].xy_mm - xy[k]) < 1.0
    # Where it rolled before: its sightings, handed over once, for the frames reported
    # without a ball.
    assert [t.rolled_mm is not None for t in tracks[: k + 2]] == [False] * k + [True, False]
    rolled = tracks[k].rolled_mm
    assert rolled[:, 0].tolist() == list(range(k + 1))
    assert np.abs(rolled[:, 1:3] - xy[: k + 1]).max() < 0.5
    assert not tracks[-1].moving  # and it still comes to rest


def test_a_slow_start_confirmed_late_hands_over_where_the_ball_rolled_meanwhile():
    """Doubtful fits (0.6 mm) of a ball creeping off its rest point at 1 mm a frame: the
    first millimetres are leans the fits' doubt allows, reported at the rest point; once the
    roll is confirmed and dated back, the frames since are handed over where they were
    measured, not left at the rest point a few millimetres behind the ball."""
    n_rest, speed_mm_frame = 30, 1.0
    xy = np.array([[-100.0 + speed_mm_frame * max(i - n_rest + 1, 0), 40.0] for i in range(45)])
    rng = np.random.default_rng(2)
    tracker = BallTracker()
    tracks = []
    for i, p in enumerate(xy):
        det = Detections.build(ball_xy_mm=[p + rng.normal(0, 0.1, 2)], ball_sigma_mm=[0.6])
        tracks.append(tracker.update(det, i / FPS))
    confirmed = next(t for t in tracks if t.moving)
    since = confirmed.state_since_frame
    assert n_rest - 1 <= since < confirmed.frame - 1  # frames reported before the roll was sure
    assert any(np.hypot(*(tracks[f].xy_mm - xy[f])) > 1.5 for f in range(since, confirmed.frame))
    rolled = confirmed.rolled_mm
    assert rolled[:, 0].tolist() == list(range(since, confirmed.frame + 1))
    assert np.abs(rolled[:, 1:3] - xy[since : confirmed.frame + 1]).max() < 0.5
    assert all(t.rolled_mm is None for t in tracks if t.frame != confirmed.frame)


def test_a_ball_found_still_is_taken_up_at_rest():
    xy = np.tile([30.0, -20.0], (10, 1))
    tracks = run(xy, noise_mm=0.3)
    assert not any(t.moving for t in tracks)
    assert tracks[2].state_since_frame == 0


@pytest.mark.parametrize("shift_mm", [0.0, 1.4])
def test_a_rest_placed_anew_by_the_whole_patch_is_no_movement(shift_mm):
    """A roll's last frames are placed by their edges; once at rest the detector places the
    ball by its whole patch, up to about a millimetre away (a dim side moves the edges). The
    change of placing is no movement: the rest goes on from the patch's point, the clock
    stays stopped, and a real strike after it still starts a roll."""
    xy, _, first_rest = roll(10, 400.0, 800.0, 90)
    tracker = BallTracker()
    shift = np.array([shift_mm, 0.0])
    placed_at = first_rest + 20  # the detector's first refit, once the rest is seen
    tracks = []
    for i, p in enumerate(xy):
        patch = i >= placed_at
        det = Detections.build(ball_xy_mm=[p + (shift if patch else 0.0)], ball_whole_patch=[patch])
        tracks.append(tracker.update(det, i / FPS))
    assert not any(t.moving or t.onset_frame is not None for t in tracks[placed_at - 1 :])
    assert np.linalg.norm(tracks[-1].rest_xy_mm - (xy[-1] + shift)) < 1e-9
    # A strike after the new placing is seen as ever.
    strike = [
        tracker.update(
            Detections.build(
                ball_xy_mm=[xy[-1] + shift + (4.0 * k, 0.0)], ball_whole_patch=[False]
            ),
            (len(xy) + k) / FPS,
        )
        for k in range(1, 6)
    ]
    assert any(t.moving for t in strike)


def test_a_fit_leaning_off_a_doubtful_rest_widens_its_uncertainty():
    """A roll ends half under a crossbar: its edges place the ball 1.4 mm doubtful, and once
    at rest its whole patch places it 3.8 mm on, sure to 0.3 mm. Within the edges' doubt that
    is no movement; but one of the two placings is millimetres off, and the fits do not say
    which: the rest's uncertainty reaches the lean (two sigmas, as a call counts it), where
    it claimed the edges' 1.4 mm while the ball lay 4 mm from its rest point."""
    xy, _, first_rest = roll(10, 400.0, 800.0, 90)
    tracker = BallTracker()
    shift = np.array([3.8, 0.0])
    placed_at = first_rest + 20
    tracks = []
    for i, p in enumerate(xy):
        patch = i >= placed_at
        det = Detections.build(
            ball_xy_mm=[p + (shift if patch else 0.0)],
            ball_sigma_mm=[0.3 if patch else 1.4],
            ball_whole_patch=[patch],
        )
        tracks.append(tracker.update(det, i / FPS))
    assert not any(t.moving or t.onset_frame is not None for t in tracks[placed_at - 1 :])
    assert np.linalg.norm(tracks[-1].xy_mm - xy[-1]) < 0.5  # the rest point holds
    assert tracks[placed_at - 1].sigma_mm < 1.5
    assert 2.0 * tracks[-1].sigma_mm >= 3.8 - 0.5


def test_a_ball_seen_leaving_its_rest_and_then_lost_is_not_sure_of_its_place():
    """The ball is struck so hard that the detector sees only its first step off the rest
    point and then nothing: the track holds the rest point, but may no longer state the
    rest's sub-millimetre uncertainty there (the ball is somewhere along its roll)."""
    xy = [np.array([0.0, 0.0])] * 40 + [np.array([12.0, 3.0])] + [None] * 100  # < coast_rest_s
    tracks = run(xy, noise_mm=0.05)
    assert tracks[39].sigma_mm < 0.2
    for t in tracks[41:]:
        assert t.xy_mm is not None and np.hypot(*t.xy_mm) < 0.2  # held at the rest point
        assert t.sigma_mm > np.hypot(12.0, 3.0)


def test_a_ball_nudged_by_a_figure_and_then_hidden_keeps_its_rest_sigma():
    """A figure arriving beside the ball shifts its fit by a millimetre or so, then covers
    it: the ball has not left, and keeps the rest's uncertainty."""
    xy = [np.array([0.0, 0.0])] * 40 + [np.array([1.5, 0.0])] + [None] * 30
    tracks = run(xy, noise_mm=0.05)
    for t in tracks[41:]:
        assert t.sigma_mm == pytest.approx(tracks[39].sigma_mm)


@pytest.mark.parametrize("hidden", [1, 2, 3])
def test_a_strike_whose_first_frames_show_no_ball_is_still_dated(hidden):
    """The striking button hides or blurs the ball on the ``hidden`` frames right after the
    strike: the start is still dated between the last frame at rest and the first moving
    frame, traced back along the roll once it shows (before: left undated, the clock counted
    half a frame for it, up to 10 ms off at 50 fps, 1.5 % of a 0.65 s pass)."""
    fps, n = 50.0, 120
    rng = np.random.default_rng(hidden)
    for _ in range(10):
        phase, v0, decel = rng.uniform(0.1, 0.9), rng.uniform(250.0, 900.0), 500.0
        xy = _struck(phase, v0, decel, fps, n)
        tracks = run(xy, fps=fps, drop=range(21, 21 + hidden), noise_mm=0.05)
        started = tracks[21 + hidden + 4]
        assert started.moving and started.state_since_frame == 21
        assert started.state_since_s is not None
        assert 20.0 / fps <= started.state_since_s <= 21.0 / fps
        assert abs(started.state_since_s - (20 + phase) / fps) < 0.5 / fps


def test_fits_leaning_within_their_stated_doubt_are_no_movement():
    """A small compressed ball at rest, fitted with a stated sigma of 0.8 mm; as a figure
    comes up to strike it, its fits lean 3 mm off (its shadow and base in the window; seen
    on a 960x720 clip at 1.5 Mbit/s, where the movement so started made the strike a
    collision, and no offside was judged). That is no movement, and the rest keeps its
    place; the strike that follows starts a roll dated to it."""
    tracker = BallTracker()
    rest = np.array([100.0, 40.0])
    lean = rest + np.array([1.6, 2.5])
    tracks = []
    for i in range(60):
        at = rest if i < 30 else lean + np.array([0.3 * (i % 2), 0.0])
        det = Detections.build(ball_xy_mm=[at], ball_sigma_mm=[0.8], ball_whole_patch=[True])
        tracks.append(tracker.update(det, i / FPS))
    assert not any(t.moving for t in tracks)
    assert np.hypot(*(tracks[-1].xy_mm - rest)) < 1e-9
    strike = [
        tracker.update(
            Detections.build(ball_xy_mm=[lean + np.array([6.0 * k, 0.0])], ball_sigma_mm=[0.8]),
            (60 + k) / FPS,
        )
        for k in range(1, 5)
    ]
    assert strike[-1].moving and strike[-1].state_since_frame == 60
