"""Figures' bases lost as they moved (``tracking/left_bases.py``) and the ball read as a base,
struck away, that they let the hypotheses settle (``tracking/hypotheses.py``)."""

from __future__ import annotations

import numpy as np

from tracking.figures import FigureTracks
from tracking.hypotheses import BallHypotheses
from tracking.left_bases import LeftBases

FPS = 50.0
BASE_R_MM = 12.5
PLACE = np.array([-100.0, 30.0])  # where the "figure" (the ball of a kit's colour) stood
V_MM_S = np.array([0.0, 500.0])  # its flick
FIGURE = np.array([200.0, -80.0])  # a figure that stands throughout


def tracks(xy, v, seen, from_start) -> FigureTracks:
    """Two figure tracks: id 7 (at ``xy``, moving at ``v``, ``seen`` or not, born on the
    clip's first base search or not) and id 3 (still, from the start)."""
    return FigureTracks(
        np.array([7, 3], np.int64),
        np.zeros(2, np.int8),
        np.zeros(2, bool),
        np.array([xy, FIGURE], float),
        np.array([v, (0.0, 0.0)], float),
        np.array([seen, True]),
        np.zeros(2),
        np.array([from_start, True]),
    )


def flick(part=False, stand=40, move=5, lost=3, from_start=False):
    """Per frame: (t_s, figure tracks, ball candidates (m, 2)): id 7 (born on the first base
    search when ``from_start``) stands ``stand`` frames (with a ball candidate on its base when
    ``part``), moves ``move`` frames at ``V_MM_S``, then its base is lost for ``lost`` frames."""
    out = []
    for k in range(stand + move + lost):
        t = k / FPS
        if k < stand:
            xy, v, seen = PLACE, (0.0, 0.0), True
        elif k < stand + move:
            xy, v, seen = PLACE + V_MM_S * (k - stand + 1) / FPS, V_MM_S, True
        else:
            xy, v, seen = PLACE + V_MM_S * move / FPS, (0.0, 0.0), False
        balls = np.array([PLACE + np.array([2.0, 0.0])]) if part and k < stand else np.zeros((0, 2))
        # A track of the first search counts so until it moves (``FigureTracks.from_start``).
        out.append((t, tracks(xy, v, seen, from_start and k < stand), balls))
    return out


def watch(seq):
    lb = LeftBases(BASE_R_MM)
    return [lb.update(figs, balls, t) for t, figs, balls in seq]


def test_a_base_lost_right_after_it_moved_is_reported_with_where_it_stood():
    seq = flick(stand=40, move=5, lost=3)
    left = watch(seq)
    assert all(not x for x in left[:45])  # standing, then moving: nothing lost yet
    for x in left[45:]:
        assert len(x) == 1  # only the one that moved; the still figure is never reported
        (b,) = x
        assert np.allclose(b.rest_xy_mm, PLACE)
        assert b.rest_s == 0.0 and np.isclose(b.stood_s, 39 / FPS)
        assert np.allclose(b.last_xy_mm, PLACE + V_MM_S * 5 / FPS)
        assert np.isclose(b.last_s, 44 / FPS)


def test_a_base_lost_while_standing_is_not_reported():
    """A hand over a figure hides its base where it stands: nothing was struck."""
    seq = flick(stand=40, move=0, lost=5)
    assert all(not x for x in watch(seq))


def test_a_figure_that_showed_a_ball_candidate_on_its_base_is_not_reported():
    """A white shirt on a base, with a white ball: its flick, its base lost in the blur, is a
    figure's, whatever of the ball's colour goes on."""
    seq = flick(part=True)
    assert all(not x for x in watch(seq))


def test_a_figure_that_stood_there_when_the_clip_began_is_not_reported():
    """Of the figures on the table when the clip began, a flicked one whose base is lost in
    the blur is a figure's flick: what of the ball's colour goes on from it is its part."""
    seq = flick(from_start=True)
    assert all(not x for x in watch(seq))


def roll_on(left_by_frame, seq, start_k, v=V_MM_S, n=20):
    """Feed the hypotheses a still keeper and, from frame ``start_k``, a candidate rolling on
    from the lost base's last place; returns the hypotheses."""
    hyp = BallHypotheses()
    last = PLACE + V_MM_S * 5 / FPS
    for k in range(start_k + n):
        t = k / FPS
        left = left_by_frame[k] if k < len(left_by_frame) else ()
        xy = [np.array([520.0, 0.0])]
        if k >= start_k:
            xy.append(last + v * (k - start_k + 1) / FPS)
        hyp.update(np.array(xy), np.full(len(xy), 0.8), t, left)
    return hyp


def test_a_ball_rolling_on_from_a_lost_base_is_the_ball_with_its_stand_there():
    seq = flick(stand=40, move=5, lost=25)
    left = watch(seq)
    hyp = roll_on(left, seq, start_k=46)
    assert hyp.confirmed
    trail = hyp.chosen_trail()
    # In hindsight it stood where the "figure" stood, from its first sighting until it left.
    assert not trail[0].moving
    assert np.allclose((trail[0].x_mm, trail[0].y_mm), PLACE)
    assert trail[0].first_s == 0.0 and np.isclose(trail[0].last_s, 39 / FPS)


def test_without_the_lost_base_the_same_roll_settles_nothing():
    seq = flick(stand=40, move=5, lost=25)
    hyp = roll_on([()] * len(seq), seq, start_k=46)
    assert not hyp.confirmed


def test_a_candidate_going_back_past_the_place_is_not_struck_from_it():
    """Seen on the far side of where the base stood, it did not go on from there."""
    seq = flick(stand=40, move=5, lost=25)
    hyp = roll_on(watch(seq), seq, start_k=46, v=-3.0 * V_MM_S)
    assert not hyp.confirmed


def test_a_candidate_first_seen_long_after_the_base_was_lost_takes_nothing():
    seq = flick(stand=40, move=5, lost=25)
    hyp = roll_on(watch(seq), seq, start_k=60)
    assert not hyp.confirmed


def test_a_ball_candidate_read_as_a_base_from_then_on_lends_the_roll_its_history():
    """A ball of a kit's colour is a candidate for 30 frames, then read as a base where it
    stands (its candidate gone; the base's fit 9 mm off the ball's own); that base is flicked
    and lost, and a candidate rolls on. The roll is the candidate's: in hindsight the ball
    stood where its own fits placed it from its first sighting, not only while it was a base."""
    ball_at = PLACE + np.array([0.0, -9.0])
    before = 30
    seq = [
        (k / FPS, tracks(PLACE, (0.0, 0.0), False, False), np.array([ball_at]))
        for k in range(before)
    ]
    seq += [(t + before / FPS, figs, balls) for t, figs, balls in flick(stand=10, move=5, lost=25)]
    left = watch(seq)
    hyp = BallHypotheses()
    last = PLACE + V_MM_S * 5 / FPS
    start_k = before + 16
    for k in range(start_k + 20):
        xy = [np.array([520.0, 0.0])]
        if k < before:
            xy.append(ball_at)
        elif k >= start_k:
            xy.append(last + V_MM_S * (k - start_k + 1) / FPS)
        hyp.update(np.array(xy), np.full(len(xy), 0.8), k / FPS, left[k] if k < len(left) else ())
    assert hyp.confirmed
    trail = hyp.chosen_trail()
    assert trail[0].first_s == 0.0 and not trail[0].moving
    assert np.allclose((trail[0].x_mm, trail[0].y_mm), ball_at)
    # While it was read as a base it stood there too, where its own fits had placed it.
    assert np.isclose(trail[1].first_s, before / FPS)
    assert np.allclose((trail[1].x_mm, trail[1].y_mm), ball_at)
