"""When a ball's edge fit stops passing again (``vision.refine.edge_passes``).

Each pass casts rays from the last pass's centre; these tests stand a pass in with a rule of
where it lands, so that every way a fit can go (settling, circling, wandering, failing) is
exact. The passes on rendered balls are tested with the detector (``test_detector_rendered``).
"""

from __future__ import annotations

import itertools

import numpy as np

import vision.refine as refine
from vision.config import VisionConfig

AGAIN_PX = 0.05


def passes_with(monkeypatch, land):
    """Run ``edge_passes`` from (0, 0) and (100, 0) with each pass landing where
    ``land(start (k, 2), pass number) -> (centres (k, 2), ok (k,))`` says; returns the
    result and the starts of every pass."""
    starts = []

    def one_pass(image, model, rough, config):
        starts.append(np.array(rough, copy=True))
        centre, ok = land(np.asarray(rough), len(starts))
        return {
            "centre_px": np.array(centre, float),
            "ok": np.array(ok, bool),
            "pass": np.full(len(rough), len(starts)),
        }

    monkeypatch.setattr(refine, "_ball_pass", one_pass)
    rough = np.array([[0.0, 0.0], [100.0, 0.0]])
    out = refine.edge_passes(None, None, rough, VisionConfig(), AGAIN_PX)
    return out, starts


def test_a_fit_that_settles_passes_until_it_moves_less_than_again(monkeypatch):
    target = np.array([[3.0, 1.0], [97.0, -2.0]])
    # Each pass goes 80 % of the way: moves shrink five-fold a pass.
    out, starts = passes_with(monkeypatch, lambda s, n: (s + 0.8 * (target - s), [True, True]))
    assert np.all(np.hypot(*(out["centre_px"] - target).T) < AGAIN_PX)
    assert 4 <= len(starts) < refine.MAX_PASSES


def test_a_fit_that_settles_slowly_reaches_where_its_passes_go(monkeypatch):
    # A small ball under a wide blur: each pass goes a tenth of the way. Pass after pass,
    # 8 passes would end more than 1.5 px short.
    target = np.array([[3.0, 1.0], [97.0, -2.0]])
    rate = 0.1

    def land(s, n):  # each ball's own target (they may stop at different passes)
        own = np.where(s[:, :1] < 50, target[0], target[1])
        return s + rate * (own - s), [True] * len(s)

    out, starts = passes_with(monkeypatch, land)
    assert np.all(np.hypot(*(out["centre_px"] - target).T) < AGAIN_PX)
    assert len(starts) <= refine.MAX_PASSES


def test_a_fit_moving_by_pixels_starts_where_its_last_pass_ended(monkeypatch):
    # A ball rolling out of its fit's rays: moves of pixels, shrinking slowly, say nothing of
    # where the passes end; each pass starts where the last one ended.
    def land(s, n):
        return s + 3.0 * 0.9**n * np.array([1.0, 0.0]), [True] * len(s)

    _, starts = passes_with(monkeypatch, land)
    steps = [np.hypot(*(b - a)[0]) for a, b in itertools.pairwise(starts)]
    np.testing.assert_allclose(steps, [3.0 * 0.9**n for n in range(1, len(steps) + 1)])


def test_a_fit_that_circles_or_wanders_stops_once_its_moves_stop_shrinking(monkeypatch):
    def land(s, n):
        # Ball 0 circles a point a pixel away (a smeared ball); ball 1 wanders off at a
        # growing pace (a hand): neither settles.
        angle = n * 2.0
        circle = np.array([np.cos(angle), np.sin(angle)])
        return np.stack([circle, s[1] + [0.3 * n, 0.0]]), [True, True]

    out, starts = passes_with(monkeypatch, land)
    assert len(starts) == 2  # the second pass moved no less than the first
    assert np.all(out["pass"] == 2)


def test_a_fit_that_swings_about_a_point_settles_there(monkeypatch):
    # Passes that land 0.15 px to either side of where they started, by turns
    # (noise near the centre): the point they swing about is where the fit settles.
    def land(s, n):
        return s + 0.15 * np.array([(-1.0) ** n, 0.0]), [True] * len(s)

    _, starts = passes_with(monkeypatch, land)
    np.testing.assert_allclose(starts[2], [[-0.075, 0.0], [99.925, 0.0]], atol=1e-9)
    assert len(starts) == 3


def test_each_ball_stops_on_its_own_and_keeps_its_last_good_pass(monkeypatch):
    def land(s, n):
        centre = s.copy()
        ok = np.ones(len(s), bool)
        for i, start in enumerate(s):
            if start[0] < 50:  # ball 0: settles at once
                centre[i] = [2.0, 2.0]
            else:  # ball 1: halves its way to (110, 0); its fourth pass fails
                centre[i] = start + 0.5 * (np.array([110.0, 0.0]) - start)
                ok[i] = n != 4
        return centre, ok

    out, starts = passes_with(monkeypatch, land)
    assert [len(s) for s in starts] == [2, 2, 1, 1]  # ball 0 is not passed again once settled
    assert out["pass"][0] == 2 and out["ok"][0]
    # Ball 1's failed fourth pass starts nothing new: it keeps its third and stops there.
    assert out["pass"][1] == 3 and out["ok"][1]
    np.testing.assert_allclose(out["centre_px"][1], [108.75, 0.0])
