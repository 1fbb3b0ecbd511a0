"""Silhouette edges and circle fits (``vision/edges.py``): edges past a contact shadow and
toward the ball's colour; circles of known radius, also on points that barely fix a circle;
refits weighted by contrast."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.edges import (
    PAST_SHADOWS,
    PLAIN,
    TOWARD_BALL,
    edge_views,
    fit_circles,
    radial_edge_sets,
    radial_edges,
    refit_by_contrast,
    sample_rays,
)

CLOTH = np.array([48.0, 128.0, 38.0])  # BGR


def disc_on_cloth(colour_top, colour_bottom, *, shadow, centre=(32.3, 31.7), r_px=6.0, ss=8):
    """A 64x64 view of a disc shaded from ``colour_top`` to ``colour_bottom`` down the image,
    with a contact shadow (the cloth darkened to ``shadow``) reaching 4 px beyond its bottom;
    drawn 8 times finer and averaged down, so its edges are blurred as a camera's are."""
    n = 64 * ss
    y, x = (np.mgrid[0:n, 0:n] + 0.5) / ss - 0.5  # pixel centres at whole numbers
    cx, cy = centre
    inside = np.hypot(x - cx, y - cy) <= r_px
    shade = np.clip((y - (cy - r_px)) / (2 * r_px), 0.0, 1.0)[..., None]
    disc = (1 - shade) * np.asarray(colour_top, float) + shade * np.asarray(colour_bottom, float)
    dark = np.hypot(x - cx, y - cy - 2.0) <= r_px + 2.0
    img = np.where(dark[..., None], shadow * CLOTH, CLOTH)
    img = np.where(inside[..., None], disc, img)
    img = img.reshape(64, ss, 64, ss, 3).mean((1, 3))
    noisy = img + np.random.default_rng(1).normal(0.0, 2.0, img.shape)
    return np.clip(np.round(noisy), 0, 255).astype(np.uint8), np.array(centre), r_px


def edge_offsets_px(img, centre, r_px, **kw):
    """How far each of 32 rays' edges lies outside the true circle, px."""
    background = np.broadcast_to(CLOTH.astype(np.uint8), img.shape).copy()
    edges, valid, _ = radial_edges(
        img, background, centre[None], np.array([r_px]), rays=32, min_level=18.0, **kw
    )
    assert valid.all()
    return np.hypot(*(edges[0] - centre).T) - r_px


@pytest.mark.parametrize(
    ("lit", "dim"),
    [
        ((240, 240, 240), (80, 80, 80)),
        ((20, 120, 245), (7, 40, 80)),
        ((40, 215, 245), (13, 70, 80)),
    ],
    ids=["white", "orange", "yellow"],
)
def test_a_ball_edge_is_read_past_its_contact_shadow(lit, dim):
    """Under a hard light the cloth beyond the ball's dim side lies in its shadow, darker
    than the cloth: taken for the ball, it pushed the edges there out by up to 4 px. A shadow
    keeps the cloth's colour and the ball does not, so with ``ignore_shadows`` the edges lie
    on the ball; where there is no shadow they are the same as without."""
    img, centre, r_px = disc_on_cloth(lit, dim, shadow=0.4)
    assert edge_offsets_px(img, centre, r_px).max() > 3.0
    past = edge_offsets_px(img, centre, r_px, ignore_shadows=True)
    assert np.abs(past).max() < 0.7 and np.median(np.abs(past)) < 0.3
    img, centre, r_px = disc_on_cloth(lit, dim, shadow=1.0)
    assert np.array_equal(
        edge_offsets_px(img, centre, r_px), edge_offsets_px(img, centre, r_px, ignore_shadows=True)
    )


def arc(centre, radius, deg_from, deg_to, n=16, noise=0.0, seed=0):
    a = np.radians(np.linspace(deg_from, deg_to, n))
    pts = np.asarray(centre) + radius * np.stack([np.cos(a), np.sin(a)], 1)
    return pts + np.random.default_rng(seed).normal(0, noise, pts.shape)


def colour_subsampled(img):
    """``img`` with its colour at half resolution, as 4:2:0 video carries it."""
    ycc = cv2.cvtColor(img, cv2.COLOR_BGR2YCrCb)
    h, w = img.shape[:2]
    half = cv2.resize(ycc[..., 1:], (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    ycc[..., 1:] = cv2.resize(half, (w, h), interpolation=cv2.INTER_LINEAR)
    return cv2.cvtColor(ycc, cv2.COLOR_YCrCb2BGR)


@pytest.mark.parametrize(
    ("lit", "dim", "named"),
    [
        ((20, 120, 245), (10, 60, 120), True),
        ((40, 215, 245), (20, 105, 120), True),
        ((20, 120, 245), (10, 60, 120), False),
        ((40, 215, 245), (20, 105, 120), False),
    ],
    ids=["orange", "yellow", "orange-own-colour", "yellow-own-colour"],
)
def test_a_ball_whose_colour_bleeds_into_its_shadow_is_read_toward_its_colour(lit, dim, named):
    """With colour at half resolution a coloured ball's colour bleeds a pixel or two into
    its shadow, which then no longer keeps the cloth's colour: past the shadow by its colour
    the edges there read out by over a pixel. Read toward the ball's colour the shadow is
    below any level, and the edges lie on the ball; with no colour named, toward the colour
    the candidate shows inside, alike."""
    img, centre, r_px = disc_on_cloth(lit, dim, shadow=0.4)
    img = colour_subsampled(img)
    background = np.broadcast_to(CLOTH.astype(np.uint8), img.shape).copy()
    sets = radial_edge_sets(
        img,
        background,
        centre[None],
        np.array([r_px]),
        rays=32,
        min_level=18.0,
        views=(PAST_SHADOWS, TOWARD_BALL),
        ball_bgr=np.array(lit, np.float32) if named else None,
    )
    (past, past_ok, _), (toward, toward_ok, _) = sets
    assert past_ok.all() and toward_ok.all()
    assert (np.hypot(*(past[0] - centre).T) - r_px).max() > 1.0
    off = np.hypot(*(toward[0] - centre).T) - r_px
    assert np.abs(off).max() < 0.5 and np.median(np.abs(off)) < 0.25


def test_the_toward_ball_view_reads_each_candidates_own_colour():
    """Two candidates of other colours in one call, no colour named: each is read toward its
    own (a colour hypothesis learnt under another light may be neither)."""
    white, centre, r_px = disc_on_cloth((240, 240, 240), (150, 150, 150), shadow=0.5)
    orange, _, _ = disc_on_cloth((20, 120, 245), (10, 60, 120), shadow=0.5)
    img = np.concatenate([white, orange], axis=1)
    background = np.broadcast_to(CLOTH.astype(np.uint8), img.shape).copy()
    centres = np.stack([centre, centre + np.array([64.0, 0.0])])
    ((edges, ok, _),) = radial_edge_sets(
        img, background, centres, np.full(2, r_px), rays=32, min_level=18.0, views=(TOWARD_BALL,)
    )
    assert ok.all()
    off = np.hypot(*(edges - centres[:, None, :]).transpose(2, 0, 1)) - r_px
    assert np.abs(off).max() < 0.5


def test_every_view_of_one_sampling_reads_as_a_sampling_of_its_own():
    """The three views of one sampling of the rays, found in one call (``edge_views``, as a
    ball's fit reads them), give bit for bit what one sampling and call per view gives, for
    each of two candidates of other colours."""
    white, centre, r_px = disc_on_cloth((240, 240, 240), (150, 150, 150), shadow=0.5)
    orange, _, _ = disc_on_cloth((20, 120, 245), (10, 60, 120), shadow=0.5)
    img = np.concatenate([white, orange], axis=1)
    background = np.broadcast_to(CLOTH.astype(np.uint8), img.shape).copy()
    centres = np.stack([centre, centre + np.array([64.3, 0.4])])
    radii = np.array([r_px, r_px + 0.3])
    views = (PLAIN, PAST_SHADOWS, TOWARD_BALL)
    found = sample_rays(img, background, centres, radii, rays=32)
    together = edge_views(found, views, min_level=18.0)
    for view, got in zip(views, together, strict=True):
        ((edges, ok, contrast),) = radial_edge_sets(
            img, background, centres, radii, rays=32, min_level=18.0, views=(view,)
        )
        assert ok.sum() > 40
        assert np.array_equal(got[0], edges)
        assert np.array_equal(got[1], ok)
        assert np.array_equal(got[2], contrast)


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


def test_sure_edges_decide_where_shading_bends_the_outline():
    """A shaded ball on a pale cloth: its dim side (weak contrast) reads 0.4 mm out, its lit
    side 0.2 mm in. A circle of fixed radius through all edges is pulled toward the dim side;
    weighted by contrast, with the radius free, the fit is pulled less than half as far."""
    a = np.radians(np.arange(32) * 360.0 / 32)
    dim = np.sin(a) > 0
    r = np.where(dim, 10.9, 10.3)
    pts = np.array([3.0, -2.0]) + r[:, None] * np.stack([np.cos(a), np.sin(a)], 1)
    contrast = np.where(dim, 30.0, 200.0)
    valid = np.ones((1, 32), bool)
    fixed, _, inliers = fit_circles(pts[None], valid, np.array([10.5]))
    refit, _ = refit_by_contrast(pts[None], inliers, contrast[None], fixed, np.array([10.5]))
    off_fixed, off_refit = (np.linalg.norm(c - (3.0, -2.0)) for c in (fixed[0], refit[0]))
    assert off_fixed > 0.3
    assert off_refit < 0.5 * off_fixed


def test_an_arc_too_short_for_a_free_radius_keeps_its_centre():
    pts = arc((3.0, -2.0), 10.5, -20.0, 20.0, noise=0.05, seed=4)
    valid = np.ones((1, len(pts)), bool)
    fixed, _, inliers = fit_circles(pts[None], valid, np.array([10.5]))
    refit, _ = refit_by_contrast(
        pts[None], inliers, np.ones((1, len(pts))), fixed, np.array([10.5])
    )
    assert np.array_equal(refit, fixed)


def test_blocks_fitted_at_once_match_each_block_fitted_alone():
    """``parts``: one outline's edges read two ways, fitted in one call, give what two calls
    give, bit for bit, though one block converges in fewer rounds than the other (a clean
    full circle beside a noisy arc with a stray edge that the trims drop)."""
    clean = [arc((3.0, -2.0), 10.5, 0.0, 359.0, noise=0.01, seed=s) for s in (1, 2)]
    rough = [arc((3.4, -1.6), 10.5, -60.0, 200.0, noise=0.3, seed=s) for s in (3, 4)]
    rough[1][5] += 4.0  # a finger's edge
    blocks = [np.stack(clean), np.stack(rough)]
    valid = [np.ones(b.shape[:2], bool) for b in blocks]
    radius = np.full(2, 10.5)
    alone = [fit_circles(b, v, radius) for b, v in zip(blocks, valid, strict=True)]
    both = fit_circles(np.concatenate(blocks), np.concatenate(valid), np.full(4, 10.5), parts=2)
    for got, want in zip(both, alone[0], strict=True):
        assert np.array_equal(got[:2], want)
    for got, want in zip(both, alone[1], strict=True):
        assert np.array_equal(got[2:], want)
    assert not both[2][3, 5]  # the stray edge was trimmed
