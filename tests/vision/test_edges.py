"""Circle fits of known radius (``vision/edges.py``), also on points that barely fix a circle."""

from __future__ import annotations

import numpy as np
import pytest

from vision.edges import fit_circles


def arc(centre, radius, deg_from, deg_to, n=16, noise=0.0, seed=0):
    a = np.radians(np.linspace(deg_from, deg_to, n))
    pts = np.asarray(centre) + radius * np.stack([np.cos(a), np.sin(a)], 1)
    return pts + np.random.default_rng(seed).normal(0, noise, pts.shape)


@pytest.mark.parametrize(
    ("deg_from", "deg_to", "tol_mm"),
    [(0.0, 359.0, 0.02), (0.0, 180.0, 0.05), (-40.0, 40.0, 0.3)],
)
def test_centre_of_full_and_partial_circles(deg_from, deg_to, tol_mm):
    pts = arc((3.0, -2.0), 10.5, deg_from, deg_to, noise=0.02)
    centre, ok, inliers = fit_circles(pts[None], np.ones((1, len(pts)), bool), np.array([10.5]))
    assert ok[0] and inliers.all()
    assert np.linalg.norm(centre[0] - (3.0, -2.0)) < tol_mm


@pytest.mark.parametrize(
    ("points", "fits"),
    [
        (np.stack([np.linspace(0.0, 20.0, 12), np.zeros(12)], 1), False),  # a straight edge
        # One point: any circle through it fits; the singular first step must not fly off.
        (np.tile([[5.0, 5.0]], (12, 1)) + 1e-9 * np.arange(24).reshape(12, 2), True),
    ],
)
def test_points_that_fix_no_circle_stay_near_them(points, fits):
    centre, ok, _ = fit_circles(points[None], np.ones((1, len(points)), bool), np.array([10.5]))
    assert ok[0] == fits and np.all(np.isfinite(centre))
    assert np.linalg.norm(centre[0] - points.mean(0)) <= 1.5 * 10.5 + 1e-9
