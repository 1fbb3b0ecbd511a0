"""Choosing the ball among candidates until motion settles it (``tracking/hypotheses.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from tracking.hypotheses import BallHypotheses, HypothesisConfig
from tracking.tracker import Tracker
from vision.detections import Detections

FPS = 60.0
KEEPER = np.array([-520.0, 10.0])  # a goalkeeper in a plain kit, as round as a ball
BALL = np.array([200.0, -50.0])


def frames(n, *, keeper_score=0.9, ball_score=0.7, roll_from=None, v=(600.0, 0.0)):
    """(t_s, xy (m, 2), score (m,)) per frame: a still keeper and a ball struck at frame
    ``roll_from`` (rolling at ``v`` mm/s), the keeper listed first."""
    out = []
    for k in range(n):
        t = k / FPS
        ball = BALL.copy()
        if roll_from is not None and k > roll_from:
            ball = ball + np.asarray(v) * (k - roll_from) / FPS
        out.append((t, np.array([KEEPER, ball]), np.array([keeper_score, ball_score])))
    return out


def run(hyp, seq):
    picked = []
    for t, xy, score in seq:
        i = hyp.update(xy, score, t)
        picked.append(None if i is None else xy[i])
    return picked


def test_the_better_ranked_candidate_is_chosen_while_nothing_moves():
    hyp = BallHypotheses()
    picked = run(hyp, frames(20))
    assert np.allclose(picked[-1], KEEPER)
    assert not hyp.confirmed


def test_a_candidate_that_rolls_is_the_ball_whatever_its_rank():
    hyp = BallHypotheses()
    picked = run(hyp, frames(40, roll_from=10))
    assert hyp.confirmed
    assert np.hypot(*(picked[-1] - BALL)) > 40.0  # following the rolled ball, not the keeper
    assert np.hypot(*(picked[-1] - KEEPER)) > 500.0


def test_a_jitter_is_not_a_roll():
    """Fits of a still candidate scatter by a fraction of a millimetre: never a roll."""
    rng = np.random.default_rng(0)
    hyp = BallHypotheses()
    for t, xy, score in frames(120):
        hyp.update(xy + rng.normal(0.0, 0.3, xy.shape), score, t)
    assert not hyp.confirmed


def test_a_candidate_next_seen_standing_a_flicks_travel_away_has_not_rolled():
    """A kit's patch stands, is hidden for a few frames, and the next sighting stands 150 mm
    away (another patch uncovered): within a flick's travel, so it may be that one struck
    away, but it was never seen on its way: no roll, nothing settled. Seen rolling on from
    there, it is the ball."""
    hyp = BallHypotheses()
    patch = np.array([100.0, 0.0])
    far = patch + np.array([150.0, 0.0])
    for k in range(40):
        if 10 <= k < 13:  # hidden
            hyp.update(KEEPER[None], np.array([0.9]), k / FPS)
        else:
            hyp.update(np.array([KEEPER, patch if k < 10 else far]), np.array([0.9, 0.7]), k / FPS)
    assert not hyp.confirmed
    for k in range(40, 60):
        rolled = far + np.array([600.0 * (k - 39) / FPS, 0.0])
        hyp.update(np.array([KEEPER, rolled]), np.array([0.9, 0.7]), k / FPS)
    assert hyp.confirmed


@pytest.mark.parametrize(
    "lead, switches",
    [
        (0.05, False),  # a small lead does not flip the choice (no flicker)
        (0.4, True),  # a clearly better one takes over
    ],
)
def test_the_choice_switches_only_on_a_clear_lead(lead, switches):
    hyp = BallHypotheses()
    run(hyp, frames(10, keeper_score=0.6, ball_score=0.5))
    assert np.allclose(hyp.chosen_xy_mm, KEEPER)
    run(
        hyp,
        [
            (1.0 + k / FPS, xy, np.array([0.5, 0.5 + lead]))
            for k, (_, xy, _) in enumerate(frames(60))
        ],
    )
    assert np.allclose(hyp.chosen_xy_mm, BALL) == switches


@pytest.mark.parametrize(("stands_s", "switches"), [(0.3, False), (1.0, True)])
def test_the_choice_switches_only_on_a_lead_held_a_while(stands_s, switches):
    """The ball stands chosen, dimly lit (a low lamp leaves half of it dark: a weak score).
    A figure of a colour the ball may have stops beside it to strike it, round and evenly
    lit: it ranks better for as long as it stands there, a moment, and the ball stays the
    choice. A candidate that keeps the lead for longer than a striker stands takes it."""
    hyp = BallHypotheses()
    run(hyp, frames(60, keeper_score=0.0, ball_score=0.7))
    assert np.allclose(hyp.chosen_xy_mm, BALL)
    striker = BALL + np.array([-55.0, 18.0])
    n = int(stands_s * FPS)
    for k in range(n):
        hyp.update(np.array([BALL, striker]), np.array([0.7, 1.0]), 1.0 + k / FPS)
    assert np.allclose(hyp.chosen_xy_mm, striker) == switches


def test_a_lead_is_held_through_the_frames_the_leader_is_missed():
    """A candidate clearly better than the chosen keeper is missed on every fourth frame (a
    ball blurred as it rolls): its lead still counts from when it began, and it takes the
    choice (before, each missed frame started the lead again, and it never did)."""
    hyp = BallHypotheses()
    for k in range(20):
        hyp.update(KEEPER[None], np.array([0.6]), k / FPS)
    assert np.allclose(hyp.chosen_xy_mm, KEEPER)
    for k in range(20, 20 + int(1.5 * FPS)):
        xy, score = ([KEEPER, BALL], [0.6, 0.95]) if k % 4 else ([KEEPER], [0.6])
        hyp.update(np.array(xy), np.array(score), k / FPS)
    assert np.allclose(hyp.chosen_xy_mm, BALL)


def test_a_candidate_ranks_by_how_it_looks_now_not_since_the_clip_began():
    """A figure was scored as a ball for the clip's first seconds, while the ball was a blur;
    then it scores poorly and the ball shows, well but not twice as well: the ball takes the
    choice within a second and a half (an average since the clip began would have the
    figure lead for many seconds more)."""
    hyp = BallHypotheses()
    for k in range(int(3 * FPS)):
        hyp.update(KEEPER[None], np.array([0.8]), k / FPS)
    assert np.allclose(hyp.chosen_xy_mm, KEEPER)
    for k in range(int(1.5 * FPS)):
        hyp.update(np.array([KEEPER, BALL]), np.array([0.35, 0.75]), 3.0 + k / FPS)
    assert np.allclose(hyp.chosen_xy_mm, BALL)


def test_a_ball_under_a_hand_for_a_moment_stays_the_choice():
    """The chosen ball goes out of sight for a quarter of a second (a hand over it) while a
    better-ranked candidate stands in view elsewhere: the ball keeps the choice, and is the
    choice again when it shows."""
    hyp = BallHypotheses()
    run(hyp, frames(60, keeper_score=0.0, ball_score=0.7))
    other = BALL + np.array([200.0, 100.0])
    for k in range(15):
        hyp.update(other[None], np.array([1.0]), 1.0 + k / FPS)
    assert np.allclose(hyp.chosen_xy_mm, BALL)
    i = hyp.update(np.array([other, BALL]), np.array([1.0, 0.7]), 1.0 + 15 / FPS)
    assert i == 1


def test_a_struck_ball_unseen_for_frames_is_found_again_on_its_way():
    """At 30 fps a ball struck hard blurs out of the detector's sight for a few frames, and
    two sightings give its heading only roughly: seen again further on, slower and a few
    millimetres off the line of its first frames, it is the chosen ball rolling on, not a
    new candidate left waiting while the chosen one is remembered where it vanished."""
    fps = 30.0
    hyp = BallHypotheses()
    v = np.array([300.0, 0.0])
    picked = []
    for k in range(40):
        xy, score = [KEEPER], [0.6]
        if k < 10:
            xy.append(BALL)
        elif k < 12:  # struck: two sightings rolling
            xy.append(BALL + v * (k - 9) / fps)
        elif k >= 16:  # unseen for four frames, then on its way, slowing and drifting
            xy.append(BALL + 0.8 * v * (k - 9) / fps + np.array([0.0, 6.0]))
        if len(xy) == 2:
            score.append(0.9)
        i = hyp.update(np.array(xy), np.array(score), k / fps)
        picked.append(None if i is None else i)
    assert all(i == 1 for i in picked[16:])  # the ball, from its first sighting on
    assert hyp.confirmed


def test_a_slow_ball_unseen_for_frames_is_found_again_off_its_jittered_heading():
    """A ball slowing to rest (150 mm/s, 2.5 mm a frame at 60 fps) sighted with a couple of
    millimetres of jitter across its way: its last two sightings point it across the cloth.
    Unseen for five frames (crossing a line of its own colour), it is next seen 11 mm on
    along its real way, nowhere near that heading: the chosen ball, not a new candidate
    left beside a remembered one."""
    hyp = BallHypotheses()
    v = np.array([150.0, 0.0])
    jitter = np.array([0.0, 2.5])
    picked = []
    for k in range(60):
        xy, score = [KEEPER], [0.9]
        if k < 30 or k >= 35:  # rolling from the clip's start; unseen in frames 30-34
            xy.append(BALL + v * k / FPS + (jitter if k % 2 else -jitter))
            score.append(0.9)
        i = hyp.update(np.array(xy), np.array(score), k / FPS)
        picked.append(i)
    assert all(i == 1 for i in picked[35:])
    assert np.hypot(*(hyp.chosen_xy_mm - (BALL + v * 59 / FPS))) < 3.0


def _hidden_then(second, n_after: int = 12):
    """The keeper and the chosen ball standing for half a second, then the ball unseen for
    eight frames (the striking figure over it, longer than a flick's gap) while ``second(j)``
    gives the ``j``-th sighting of a new candidate near it from then on. Returns the
    hypotheses and the indices picked in the last frames."""
    hyp = BallHypotheses()
    run(hyp, frames(30, keeper_score=0.6, ball_score=0.9))
    picked = []
    for k in range(8 + n_after):
        xy, score = [KEEPER], [0.6]
        if k >= 8:
            xy.append(second(k - 8))
            score.append(0.9)
        picked.append(hyp.update(np.array(xy), np.array(score), (30 + k) / FPS))
    return hyp, picked


def test_a_ball_struck_while_hidden_keeps_its_identity_and_settles():
    """The striking figure hides the ball for longer than a flick's gap as it strikes: the
    ball is first seen again 20 mm from its place and rolls straight on. It is the chosen
    ball struck away, and its roll settles it."""
    way = np.array([0.6, 0.8])
    hyp, picked = _hidden_then(lambda j: BALL + way * (20.0 + 9.0 * j))
    assert hyp.confirmed
    assert all(i == 1 for i in picked[-5:])
    assert hyp.rival_mm(hyp.chosen_xy_mm) == 0.0


def test_a_ball_struck_while_hidden_and_seen_twice_in_one_place_still_settles():
    """A codec short of bits repeats its picture of the rolling ball for a frame: the ball is
    seen twice at its first place away from its own, then rolls on. Twice in one place is no
    step back toward where it stood: it is the chosen ball struck away, and its roll settles
    it (a step required of every sighting left the ball where it stood, and a pass unseen)."""
    way = np.array([0.6, 0.8])
    hyp, picked = _hidden_then(lambda j: BALL + way * (20.0 + 9.0 * max(j - 1, 0)))
    assert hyp.confirmed
    assert all(i == 1 for i in picked[-5:])


@pytest.mark.parametrize(
    "second",
    [
        lambda j: BALL + np.array([30.0, 0.0]),  # a kit's patch uncovered beside it, standing
        lambda j: BALL + np.array([120.0 - 9.0 * j, 0.0]),  # a figure's part coming towards it
        lambda j: BALL + np.array([30.0, 9.0 * j]),  # passing by across its way from there
    ],
)
def test_a_candidate_near_a_hidden_ball_that_does_not_roll_away_from_it_is_not_it(second):
    """Near the chosen ball while a hand hides it, a candidate that stands, comes towards
    its place or passes by has not been struck from there: the hidden ball stays the
    choice and nothing is settled."""
    hyp, _ = _hidden_then(second)
    assert not hyp.confirmed
    assert np.allclose(hyp.chosen_xy_mm, BALL)


def test_a_candidate_unseen_for_long_is_forgotten():
    hyp = BallHypotheses(HypothesisConfig(forget_s=0.5))
    run(hyp, frames(10))
    for k in range(60):  # only the ball from now on: the keeper left the view
        hyp.update(BALL[None], np.array([0.7]), 1.0 + k / FPS)
    assert len(hyp) == 1
    assert np.allclose(hyp.chosen_xy_mm, BALL)


def test_tracker_reports_the_ball_that_rolled_after_following_a_keeper():
    """Through the whole tracker: first the keeper is the ball (it ranks better), then the
    real ball is struck; the track follows the ball and is confirmed."""
    tracker = Tracker()
    tracks = None
    for t, xy, score in frames(60, roll_from=20):
        tracks = tracker.update(Detections.build(ball_xy_mm=xy, ball_score=score), t)
        if t < 15 / FPS and tracks.ball.xy_mm is not None:
            assert np.hypot(*(tracks.ball.xy_mm - KEEPER)) < 1.0
    assert tracker.ball_confirmed
    assert tracks.ball.xy_mm is not None
    assert tracks.ball.xy_mm[0] > BALL[0] + 100.0  # on the roll, far from the keeper


def test_a_striker_running_up_is_not_taken_for_the_ball():
    """A figure's part of the ball's colour shows only as the figure runs up to strike: it is
    never a candidate seen standing, so its slide is no roll; nor is it a keeper seen long ago
    (identity is not carried over a gap longer than a flick's). The ball struck away is the
    ball."""
    hyp = BallHypotheses()
    t = 0.0
    for _ in range(5):  # the keeper, then only the ball for a while (the keeper hidden)
        hyp.update(np.array([KEEPER, BALL]), np.array([0.9, 0.8]), t)
        t += 1 / FPS
    for _ in range(20):
        hyp.update(BALL[None], np.array([0.8]), t)
        t += 1 / FPS
    striker = BALL + np.array([-70.0, 0.0])
    for k in range(15):  # the striker slides 60 mm up to the ball; then the ball rolls
        run = striker + np.array([min(k, 6) * 10.0, 0.0])
        ball = BALL + np.array([max(k - 6, 0) * 20.0, 0.0])
        i = hyp.update(np.array([run, ball]), np.array([0.8, 0.8]), t)
        t += 1 / FPS
    assert hyp.confirmed
    assert i == 1  # the ball, 160 mm on


def test_a_ball_struck_from_where_it_stood_a_frame_ago_is_not_a_part_that_went_out_of_sight():
    """A figure's part of the ball's colour seen running up toward the ball, then hidden (on
    its base, or under the hand) a third of a second before the flick: its way, extrapolated,
    leads past the ball. The ball struck from where it stood a frame ago is the ball, not that
    part found again; it rolls and settles the choice."""
    hyp = BallHypotheses()
    t = 0.0
    part = BALL + np.array([-60.0, 10.0])
    for k in range(40):  # the ball stands; the part runs up at 300 mm/s, then is hidden
        xy, score = [BALL], [0.9]
        if 10 <= k < 16:
            xy.append(part + np.array([5.0 * (k - 10), 0.0]))
            score.append(0.6)
        hyp.update(np.array(xy), np.array(score), t)
        t += 1 / FPS
    picked = []
    for k in range(1, 25):  # struck: 600 mm/s away, along the part's heading
        ball = BALL + np.array([10.0 * k, 0.0])
        i = hyp.update(ball[None], np.array([0.9]), t)
        picked.append(i)
        t += 1 / FPS
    assert hyp.confirmed
    assert picked[-1] == 0
    assert np.allclose(hyp.chosen_xy_mm, BALL + np.array([240.0, 0.0]))


def _rolling_from_the_start(k: int, travel_mm: float, start=BALL, decel_mm_s2: float = 1000.0):
    """Frame ``k`` of a candidate rolling from the clip's first frame from ``start`` along x,
    decelerating to rest ``travel_mm`` on."""
    v0 = np.sqrt(2.0 * decel_mm_s2 * travel_mm)
    t = min(k / FPS, v0 / decel_mm_s2)
    return start + np.array([v0 * t - 0.5 * decel_mm_s2 * t * t, 0.0])


def test_a_ball_rolling_from_the_first_frame_beats_a_still_keeper():
    """A clip picked up in play: the ball already rolls beside a keeper of its colour that
    ranks better. The candidate seen rolling from the start is the ball, and stays the ball
    when it comes to rest (the keeper never moved). Rolled well past a nudge, it settles the
    ball: no identity doubt is left to hold every call of the clip back."""
    tracker = Tracker()
    found, doubt = [], []
    for k in range(90):
        ball = _rolling_from_the_start(k, 180.0)
        det = Detections.build(ball_xy_mm=np.array([KEEPER, ball]), ball_score=[0.95, 0.7])
        tracks = tracker.update(det, k / FPS)
        found.append(tracks.ball.xy_mm is not None and np.hypot(*(tracks.ball.xy_mm - ball)) < 3)
        doubt.append(tracks.ball_doubt_mm)
    assert all(found[10:])  # from a few frames in, to the end
    assert tracker.ball_confirmed
    assert doubt[-1] == 0.0 and max(doubt[10:]) > 500.0  # the keeper was a rival until then


@pytest.mark.parametrize(("fps", "first_seen", "settles"), [(120.0, 8, True), (30.0, 8, False)])
def test_a_ball_rolling_when_the_clip_began_may_show_only_after_its_first_frames(
    fps, first_seen, settles
):
    """At a high frame rate a ball rolling when the clip begins is a streak, no candidate,
    for its first frames: first seen in the clip's first 0.1 s, rolled 180 mm and the only
    one, it settles the ball. First seen later than that (0.27 s at 30 fps) it may be a
    figure's part run up to the ball: it settles nothing."""
    hyp = BallHypotheses()
    for k in range(int(1.5 * fps)):
        t = k / fps
        ball = _rolling_from_the_start(round(t * FPS), 180.0)
        xy = [KEEPER, ball] if k >= first_seen else [KEEPER]
        hyp.update(np.array(xy), np.array([0.95, 0.7][: len(xy)]), t)
    assert hyp.confirmed == settles


@pytest.mark.parametrize(("travel_mm", "beside"), [(60.0, False), (180.0, True)])
def test_a_roll_from_the_start_settles_nothing_while_it_is_short_or_not_the_only_one(
    travel_mm, beside
):
    """A candidate sliding 60 mm from the start may be a nudge; two candidates rolling from
    the start (``beside``: a second one rolling 90 mm, 150 mm away) may be the ball and a part
    of a figure whose base was not found: either way the choice stays open, and its doubt
    with it."""
    hyp = BallHypotheses()
    other = BALL + np.array([0.0, 150.0])
    for k in range(90):
        xy = [KEEPER, _rolling_from_the_start(k, travel_mm)]
        if beside:
            xy.append(_rolling_from_the_start(k, 90.0, start=other))
        hyp.update(np.array(xy), np.full(len(xy), 0.8), k / FPS)
    assert not hyp.confirmed


def test_a_striker_running_up_mid_clip_is_not_a_ball_rolling_from_the_start():
    hyp = BallHypotheses()
    t = 0.0
    for _ in range(10):
        hyp.update(np.array([KEEPER]), np.array([0.9]), t)
        t += 1 / FPS
    striker = BALL + np.array([-70.0, 0.0])
    for k in range(8):  # a part of the ball's colour slides 60 mm, first seen moving
        run_xy = striker + np.array([min(k, 6) * 10.0, 0.0])
        i = hyp.update(np.array([KEEPER, run_xy]), np.array([0.9, 0.7]), t)
        t += 1 / FPS
    assert i == 0 and not hyp.confirmed


@pytest.mark.parametrize("rest_score", [0.85, 0.5])
def test_a_ball_first_seen_rolling_mid_clip_is_chosen_once_at_rest_and_settles_nothing(rest_score):
    """A ball among bases of its colour is no candidate until it is struck out of them: first
    seen moving mid-clip, it rolls 200 mm and rests. A streak while it rolls, it ranks below
    the still keeper chosen so far; at rest, looking no less a ball, it is the choice; a
    figure's part run as far would pass too, so nothing is settled. Resting looking less of
    a ball (``rest_score`` 0.5 against the keeper's 0.8), the keeper stays the choice."""
    hyp = BallHypotheses()
    picked = []
    for k in range(120):
        xy, score = [KEEPER], [0.8]
        if k >= 30:
            xy.append(_rolling_from_the_start(k - 30, 200.0, decel_mm_s2=2000.0))
            score.append(0.6 if k < 50 else rest_score)  # a streak while it rolls fast
        picked.append(hyp.update(np.array(xy), np.array(score), k / FPS))
    assert picked[40] == 0  # a streak: the keeper still
    assert picked[-1] == (1 if rest_score > 0.8 else 0)
    assert not hyp.confirmed


@pytest.mark.parametrize(("roll_mm", "chosen"), [(600.0, True), (250.0, False)])
def test_a_ball_seen_rolling_a_shot_s_length_is_chosen_over_a_better_ranked_still_one(
    roll_mm, chosen
):
    """A ball struck out of bases of its colour, first seen moving mid-clip, rolls
    ``roll_mm``, a streak all the way, ranked below a still figure of its colour (round as a
    ball from above). Seen rolling as far as a shot carries a ball (``long_roll_mm``), farther
    than a figure is flicked, it is the choice from there on, however it ranks; a roll no
    longer than a flick leaves the better-ranked one chosen. Nothing is settled."""
    cfg = HypothesisConfig()
    hyp = BallHypotheses(cfg)
    picked, along = [], []
    for k in range(150):
        xy, score = [KEEPER], [0.9]
        if k >= 30:
            ball = _rolling_from_the_start(k - 30, roll_mm, decel_mm_s2=1500.0)
            xy.append(ball)
            score.append(0.6)
            along.append(np.hypot(*(ball - BALL)))
        picked.append(hyp.update(np.array(xy), np.array(score), k / FPS))
    # (Its way is counted from its first sighting off its place, a frame's roll on.)
    far = next((30 + k for k, a in enumerate(along) if a >= cfg.long_roll_mm + 50.0), None)
    if chosen:
        assert all(p == 0 for p in picked[30 : far - 8])  # not yet that far: the figure
        assert all(p == 1 for p in picked[far:])  # rolling on, and at rest
    else:
        assert all(p == 0 for p in picked)
    assert not hyp.confirmed


def test_a_ball_first_seen_rolling_mid_clip_is_chosen_on_its_way_if_it_vanishes_at_rest():
    """A ball of a kit's colour struck out of bases of that colour is a candidate only while
    it rolls: come to rest among them, it is read as a base again. Looking no less a ball
    than the keeper as it rolls, it is the choice once it has rolled a long way, and stays it
    where it was last seen after it is gone (the ball's own track follows it to rest); a
    figure's part would pass too, so nothing is settled. Before it has rolled that far, the
    keeper is the choice."""
    cfg = HypothesisConfig()
    hyp = BallHypotheses(cfg)
    picked, along = [], []
    for k in range(100):
        xy, score = [KEEPER], [0.8]
        ball = _rolling_from_the_start(max(k - 30, 0), 200.0)
        moving = k >= 30 and np.hypot(*(ball - _rolling_from_the_start(k - 31, 200.0))) > 0.5
        if moving:  # a candidate only while it rolls
            xy.append(ball)
            score.append(0.85)
        picked.append(hyp.update(np.array(xy), np.array(score), k / FPS))
        along.append(np.hypot(*(ball - BALL)))
    far = next(k for k in range(100) if along[k] >= cfg.settle_roll_mm + 2 * cfg.reach_mm)
    assert all(picked[k] == 0 for k in range(30, far - 5))  # not yet a long way: the keeper
    assert picked[far] == 1  # rolling still: the ball
    assert np.allclose(hyp.chosen_xy_mm, BALL + np.array([200.0, 0.0]), atol=1.0)  # its stop
    assert not hyp.confirmed


@pytest.mark.parametrize("second_roll_mm", [100.0, 20.0])
def test_a_ball_first_seen_rolling_that_rests_and_is_struck_again_is_the_ball(second_roll_mm):
    """A clip picked up in play whose ball shows only a moment after its first frames (its
    colour learnt from its roll): first seen rolling fast, it rests 60 mm on, ranked below
    the still keeper, is struck from there and rolls ``second_roll_mm``. A roll from where it
    came to rest is a roll from a stand: the ball, settled. A nudge of 20 mm is no roll."""
    hyp = BallHypotheses()
    stop = BALL + np.array([60.0, 0.0])
    picked = []
    for k in range(200):
        xy, score = [KEEPER], [0.95]
        if k >= 16:
            if k < 120:
                ball = _rolling_from_the_start(k - 16, 60.0, decel_mm_s2=6000.0)
            else:
                ball = _rolling_from_the_start(k - 120, second_roll_mm, start=stop)
            xy.append(ball)
            score.append(0.75)
        picked.append(hyp.update(np.array(xy), np.array(score), k / FPS))
    assert picked[110] == 0  # at rest after its first roll: the keeper still ranks first
    rolled = second_roll_mm >= HypothesisConfig().roll_mm
    assert hyp.confirmed == rolled
    assert picked[-1] == (1 if rolled else 0)


def test_a_ball_reported_twice_as_it_is_struck_is_followed_and_settles():
    """The detector may report one ball twice in a frame (two fits of it): that is one
    object, not a second candidate that takes the struck ball's history while the chosen
    identity stays behind where it stood (the ball was then lost for its whole roll)."""
    hyp = BallHypotheses()
    seq = frames(40, roll_from=10, v=(300.0, 0.0))
    t, xy, score = seq[12]
    seq[12] = (t, np.concatenate([xy, xy[1:]]), np.concatenate([score, score[1:]]))
    picked = run(hyp, seq)
    rolled = [p for p in picked[12:] if p is not None]
    assert len(rolled) == len(picked[12:])
    np.testing.assert_allclose(rolled[-1], seq[-1][1][1])
    assert hyp.confirmed


def test_an_unsettled_choice_reports_the_distance_to_its_rival_as_doubt():
    """Two ball-like candidates, nothing struck yet: the tracked one (the better ranked) may
    be the wrong object, so the tracker reports the distance to the other as the ball's
    identity doubt, while its own sigma (which steers its search) is that of the lone
    candidate. Once the other is struck and rolls, it is the ball and the doubt is gone."""
    rival_mm = float(np.hypot(*(KEEPER - BALL)))
    both, alone = Tracker(), Tracker()
    seq = frames(80, roll_from=40)
    for k, (t, xy, score) in enumerate(seq[:40]):
        tracks = both.update(Detections.build(ball_xy_mm=xy, ball_score=score), t)
        lone = alone.update(Detections.build(ball_xy_mm=xy[:1], ball_score=score[:1]), t)
        if k >= 10:
            assert np.hypot(*(tracks.ball.xy_mm - KEEPER)) < 1.0
            assert tracks.ball_doubt_mm == pytest.approx(rival_mm, abs=1.0)
            assert tracks.ball.sigma_mm == pytest.approx(lone.ball.sigma_mm)
            assert lone.ball_doubt_mm == 0.0  # no rival: no doubt
    for t, xy, score in seq[40:]:
        tracks = both.update(Detections.build(ball_xy_mm=xy, ball_score=score), t)
    assert both.ball_confirmed
    assert np.hypot(*(tracks.ball.xy_mm - seq[-1][1][1])) < 3.0
    assert tracks.ball_doubt_mm == 0.0


def test_a_glint_raises_no_doubt():
    """A ball-coloured speck seen in one frame is no rival: the doubt needs a candidate seen
    as long as one must be to be chosen."""
    hyp = BallHypotheses()
    for t, xy, score in frames(20):
        hyp.update(xy[:1], score[:1], t)
    hyp.update(np.array([KEEPER, BALL]), np.array([0.9, 0.9]), 20 / FPS)
    assert hyp.rival_mm(KEEPER) == 0.0


def test_a_candidate_glimpsed_a_while_ago_does_not_take_the_choice():
    """A patch of a kit's colour seen in a few frames as a figure passes, then not again,
    ranks on those few sightings; it must not take the choice from the candidate in view
    (whose mean score sank a little over a long rest), or the ball is placed where nothing
    is seen."""
    hyp = BallHypotheses()
    t = 0.0
    for _ in range(30):
        hyp.update(BALL[None], np.array([0.7]), t)
        t += 1 / FPS
    for _ in range(3):  # glimpsed, scored better than the ball but not clearly
        i = hyp.update(np.array([BALL, KEEPER]), np.array([0.7, 0.8]), t)
        t += 1 / FPS
        assert i == 0
    for _ in range(60):  # then only the ball is seen again, less sharply
        i = hyp.update(BALL[None], np.array([0.5]), t)
        t += 1 / FPS
        assert i == 0
        assert np.allclose(hyp.chosen_xy_mm, BALL)
    assert hyp.rival_mm(BALL) == pytest.approx(np.hypot(*(KEEPER - BALL)))


@pytest.mark.parametrize(("keeper_score", "since_start"), [(0.0, True), (0.9, False)])
def test_the_choice_knows_how_long_it_has_held(keeper_score, since_start):
    """``chosen_for`` counts the updates since the current choice was made: the pipeline clears
    the identity doubt of the frames since then once the choice rolls. A ball chosen from the
    first frame and struck keeps its count through the strike; one that takes the choice
    from a better-ranked keeper by rolling counts from then."""
    hyp = BallHypotheses()
    run(hyp, frames(40, keeper_score=keeper_score, roll_from=20))
    assert hyp.confirmed and np.hypot(*(hyp.chosen_xy_mm - BALL)) > 40.0
    if since_start:
        assert hyp.chosen_for == 39
    else:
        assert hyp.chosen_for < 40 - 20


def test_the_settled_ball_s_trail_says_where_it_stood_while_another_was_chosen():
    """While the keeper is the choice, the ball stands jittering, then rolls: its trail is one
    run where it stood (the mean of its fits, from its first sighting until it left) and a
    run per sighting of its roll, flagged moving; the keeper's place is in none of it."""
    rng = np.random.default_rng(1)
    hyp = BallHypotheses()
    seq = frames(40, roll_from=20)
    for t, xy, score in seq:
        hyp.update(xy + rng.normal(0.0, 0.3, xy.shape), score, t)
    assert hyp.confirmed
    trail = hyp.chosen_trail()
    stood = trail[0]
    assert stood.first_s == 0.0 and not stood.moving and stood.sightings >= 20
    assert np.hypot(stood.x_mm - BALL[0], stood.y_mm - BALL[1]) < 0.3
    rolled = [r for r in trail[1:] if r.moving]
    assert rolled and all(r.first_s == r.last_s for r in rolled)
    assert rolled[-1].last_s == seq[-1][0]
    assert all(np.hypot(r.x_mm - KEEPER[0], r.y_mm - KEEPER[1]) > 500.0 for r in trail)


def test_a_ball_struck_while_hidden_takes_over_the_trail_of_where_it_stood():
    way = np.array([0.6, 0.8])
    hyp, _ = _hidden_then(lambda j: BALL + way * (20.0 + 9.0 * j))
    trail = hyp.chosen_trail()
    assert hyp.confirmed and trail[0].first_s == 0.0
    assert np.allclose((trail[0].x_mm, trail[0].y_mm), BALL)
    assert trail[-1].moving and trail[-1].first_s > trail[0].last_s


@pytest.mark.parametrize("vacated", [True, False])
def test_a_ball_whose_place_emptied_is_the_ball_found_next_at_rest(vacated):
    """The chosen ball is struck away unseen (its roll hidden, or too blurred to be a
    candidate) and is next found at rest 150 mm off, looking less of a ball than a still
    keeper. Its place showing the bare cloth (``Detections.ball_vacated``), the ball found
    next is it: the track is there, not at the empty place nor on the keeper. While its
    place is not bare (a hand over the ball), a candidate appearing elsewhere is not it."""
    tracker = Tracker()
    found = BALL + np.array([150.0, 0.0])
    tracks = None
    for k in range(150):
        if k < 30:
            det = Detections.build(ball_xy_mm=[KEEPER, BALL], ball_score=[0.9, 0.95])
        elif k < 60:
            det = Detections.build(ball_xy_mm=[KEEPER], ball_score=[0.9], ball_vacated=vacated)
        else:
            det = Detections.build(ball_xy_mm=[KEEPER, found], ball_score=[0.9, 0.8])
        tracks = tracker.update(det, k / FPS)
        if k == 29:
            assert np.hypot(*(tracks.ball.xy_mm - BALL)) < 1.0
    assert tracks.ball.xy_mm is not None
    expected = found if vacated else BALL
    assert np.hypot(*(tracks.ball.xy_mm - expected)) < 1.0


@pytest.mark.parametrize(
    ("found_off_mm", "taken"),
    [
        ((100.0, 3.0), True),  # ahead on its way: where it slowed to a stop unseen
        ((-60.0, 0.0), False),  # behind where it was last seen: something else
        ((60.0, 80.0), False),  # off its way
        ((900.0, 0.0), False),  # farther than its pace carried it in the time
    ],
)
def test_a_ball_lost_rolling_is_the_candidate_found_next_ahead_on_its_way(found_off_mm, taken):
    """A clip picked up in a roll's last frames: the chosen ball is seen rolling for 0.1 s at
    300 mm/s (too short to settle anything), then not at all (blurred, its colours drawn into
    the cloth's) while its place shows the bare cloth; a second later a ball-like candidate
    appears. Ahead on its way, within its pace's reach, it is the ball come to rest unseen:
    chosen with the ball's history from its first sighting. Elsewhere it is a new candidate,
    and the bare place gives it nothing: the ball had left its place rolling."""
    hyp = BallHypotheses()
    v = np.array([300.0, 0.0])
    picked = []
    for k in range(100):
        xy, score = [KEEPER], [0.6]
        if k < 6:
            xy.append(BALL + v * k / FPS)
            score.append(0.9)
        elif k == 6:
            hyp.vacate(k / FPS)
        if k >= 66:
            xy.append(BALL + v * 5 / FPS + np.asarray(found_off_mm))
            score.append(0.8)
        picked.append(hyp.update(np.array(xy), np.array(score), k / FPS))
    assert picked[5] == 1  # the ball, rolling
    assert (picked[66] == 1) == taken
    if taken:
        assert hyp.chosen_trail()[0].first_s == 0.0


@pytest.mark.parametrize("on_the_path", [True, False])
def test_a_blob_left_where_the_ball_just_rolled_is_no_rival(on_the_path):
    """A clip picked up in play: the ball rolls its last 50 mm (too short to settle it) and
    comes to rest. From frame 12 a ball-like blob ranked better stands still where the ball
    was at frame 4: what a codec leaves of a ball that rolled on, held in blocks it has not
    refreshed. Nothing was there before the ball passed: it is no rival (an identity doubt
    of 20 mm left every call on the ball to the referee) and never the choice. The same blob
    off the ball's path is a rival as ever."""
    tracker = Tracker()
    ghost = _rolling_from_the_start(4, 50.0) + (0.0 if on_the_path else 30.0)
    doubt, off = [], []
    for k in range(90):
        ball = _rolling_from_the_start(k, 50.0)
        xy, score = [ball], [0.7]
        if k >= 12:
            xy, score = [ghost, ball], [0.95, 0.7]
        tracks = tracker.update(
            Detections.build(ball_xy_mm=np.array(xy), ball_score=score), k / FPS
        )
        doubt.append(tracks.ball_doubt_mm)
        at = tracks.ball.xy_mm
        off.append(np.inf if at is None else np.hypot(*(at - ball)))
    assert max(off[12:]) < 3.0  # the ball stays the choice
    if on_the_path:
        assert max(doubt) == 0.0
    else:
        assert min(doubt[20:]) > 20.0


@pytest.mark.parametrize("v0_mm_s", [110.0, 600.0])
def test_a_clip_picked_up_in_a_roll_s_last_millimetres_places_its_first_frames_on_it(v0_mm_s):
    """A clip begins as the ball rolls its last millimetres (110 mm/s: under 2 mm a frame,
    slowing, within a candidate's reach of its first sighting for a few frames), or faster.
    It is taken up moving since its first sighting, and the frames before are handed over
    where it was measured: taken for a ball standing, they were placed where it had got to,
    at rest, millimetres on."""
    decel = 1000.0
    tracker = Tracker()
    taken = None
    for k in range(40):
        ball = BALL + np.array([1.0, 0.0]) * min(
            v0_mm_s * k / FPS - 0.5 * decel * (k / FPS) ** 2, v0_mm_s**2 / (2 * decel)
        )
        tracks = tracker.update(Detections.build(ball_xy_mm=np.array([ball])), k / FPS)
        if taken is None and tracks.ball.xy_mm is not None:
            taken = tracks.ball
    assert taken is not None and taken.moving and taken.state_since_frame == 0
    assert taken.rolled_mm is not None and taken.rolled_mm[0, 0] == 0
    first = BALL  # where it was seen first, not where it had got to
    assert np.hypot(*(taken.rolled_mm[0, 1:3] - first)) < 0.5


def test_a_ball_slowing_to_rest_unseen_is_found_again_where_its_pace_took_it():
    """A ball first seen rolling mid-clip slows down; the detector gives its last fit again
    for a frame (its part of the frame barely changed), so its last velocity is nought. It
    goes unseen for 0.3 s as it creeps on, and is next seen at rest 10 mm on: the ball that
    rolled, at the pace of its last moments, not a new candidate that never moved. At rest
    it is the choice over the still keeper (before, the rolled one was left behind where it
    was last seen and the keeper stayed the choice)."""
    hyp = BallHypotheses()
    step = np.array([1.0, 0.0])  # mm along its way
    way = [BALL + 5.0 * k * step for k in range(30)]
    end = way[-1] + 2.0 * step
    way += [end, end + 1.5 * step, end + 1.5 * step]  # slowing; the last fit given twice
    rest = way[-1] + 10.0 * step
    picked = []
    for k in range(140):
        xy, score = [KEEPER], [0.8]
        j = k - 30
        if 0 <= j < len(way):
            xy.append(way[j])
            score.append(0.9)
        elif k >= 30 + len(way) + 18:  # unseen for 18 frames, then at rest
            xy.append(rest)
            score.append(0.9)
        picked.append(hyp.update(np.array(xy), np.array(score), k / FPS))
    assert picked[-1] == 1
    assert np.hypot(*(hyp.chosen_xy_mm - rest)) < 0.5
    assert len(hyp) == 2  # the keeper and the ball: no candidate left where it was lost


@pytest.mark.parametrize(("next_mm", "rolled"), [(115.0, True), (75.0, False)])
def test_what_comes_back_toward_the_place_at_once_was_not_struck_from_it(next_mm, rolled):
    """A candidate standing for a second, at 30 fps, is next seen 95 mm away (a flick's
    travel in a frame: struck between two frames, or a figure's part flicked past taken up
    for it). Going on away (115 mm from its place a frame later), it was struck and rolled:
    the ball. Seen 20 mm back toward its place and standing there, it was the flicked
    figure's part, which stops: no roll settles anything (before, its two sightings away were
    a roll, and the ball's colour was narrowed to that kit's)."""
    hyp = BallHypotheses()
    dt = 1.0 / 30.0
    for k in range(30):
        hyp.update(np.array([KEEPER, BALL]), np.array([0.9, 0.7]), k * dt)
    way = [95.0] + [next_mm] * 10
    for j, x in enumerate(way):
        ball = BALL + np.array([x, 0.0])
        hyp.update(np.array([KEEPER, ball]), np.array([0.9, 0.7]), (30 + j) * dt)
    assert hyp.confirmed == rolled


@pytest.mark.parametrize(("turn_deg", "rolled"), [(0.0, True), (30.0, True), (90.0, False)])
def test_a_way_that_turns_from_the_one_it_left_by_is_no_roll(turn_deg, rolled):
    """A kit's patch stands, is missed for a few frames (fitted in turn with its colour's
    other patches), is taken up 180 mm off (another patch, within a flick's travel) and a few
    frames later 150 mm on, square to that way: patch after patch among bases of the ball's
    colour, each farther from the first, which settled the choice on a figure (stress clip:
    the ball was never followed). A ball struck from its place rolls on the way it left by,
    give or take the fits' scatter and a glancing touch."""
    hyp = BallHypotheses()
    patch = np.array([100.0, 0.0])
    for k in range(30):
        hyp.update(np.array([KEEPER, patch]), np.array([0.9, 0.7]), k / FPS)
    first = patch + np.array([180.0, 0.0])
    a = np.radians(turn_deg)
    then = first + 150.0 * np.array([np.cos(a), np.sin(a)])
    for k, seen in ((34, first), (41, then)):
        hyp.update(np.array([KEEPER, seen]), np.array([0.9, 0.7]), k / FPS)
    assert hyp.confirmed == rolled


def test_a_ball_that_came_to_rest_after_a_roll_and_is_struck_while_hidden_is_followed():
    """A clip picked up as the ball rolls: it is chosen, comes to rest, is hidden under the
    striking figure for a few frames and is first seen again going straight away from where
    it rested. It is the chosen ball struck away wherever it first stood (before, only a ball
    seen at its first place was: the ball stood for two seconds where it had rested while
    it rolled on in view)."""
    hyp = BallHypotheses()
    rest = BALL + np.array([100.0, 0.0])
    picked = []
    for k in range(70):
        t = k / FPS
        if k <= 10:  # rolling when the clip begins, 100 mm
            xy = [KEEPER, BALL + np.array([10.0 * k, 0.0])]
        elif k < 40:  # at rest
            xy = [KEEPER, rest]
        elif k < 48:  # hidden under the striking figure
            xy = [KEEPER]
        else:  # struck: first seen 20 mm away, then rolling on
            xy = [KEEPER, rest + np.array([0.0, 20.0 + 9.0 * (k - 48)])]
        score = np.array([0.9, 0.7][: len(xy)])
        i = hyp.update(np.array(xy), score, t)
        picked.append(i)
    assert all(i == 1 for i in picked[-10:])
    assert hyp.chosen_xy_mm[1] > rest[1] + 150.0
