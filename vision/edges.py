"""Sub-pixel silhouette edges along rays, and robust circle fits in millimetres.

Edges are found on radial colour-difference profiles sampled with ``cv2.remap`` (bilinear, so
sub-pixel) for every candidate and ray at once: an edge is where the difference from the
background falls through half of its value just inside the silhouette.

A ray's edge is only as sure as its contrast: where a shaded limb is nearly the colour of the
cloth the half-way point slides along a shallow slope, by up to half a pixel. So each edge
carries its contrast, and a fit can weigh edges by its square (noise over slope: the inverse
variance of where the profile crosses its level).

Under a hard light the ball's contact shadow lies beyond its dim side, darker than the cloth
and so different from the background, and a profile's edge slid out onto it by up to two
pixels (onto a white line, which a shadow darkens most, by more). A shadow darkens what it
falls on and keeps its colour: its difference from the background lies along the background's
colour. With ``ignore_shadows`` a sample darker than the background (down to ``SHADOW_FLOOR``
of its brightness) is shadow when less than ``SHADOW_SHARE`` of its difference (or of
``min_level``, for faint ones in noise) lies off that colour, and its difference is only that
part. A ball's dim side is far off the cloth's colour; a black object is not, and its edges
are not read so.

That test fails where the colour of a ball bleeds into its shadow: 4:2:0 colour and a codec
carry an orange ball's chroma a pixel or two out into the shadow beside it, which then no
longer keeps the cloth's colour, and the edge slid out onto it by a pixel. What does not
fail is the direction: the silhouette is where the colour turns from the ball's toward the
cloth's, and a shadow moves the cloth's colour away from the ball's (darker, where a ball is
brighter or more saturated than the cloth). So the ``TOWARD_BALL`` view reads each sample's
difference from the background along the unit direction from the background toward the
ball's colour (``ball_bgr``, else the colour each candidate shows inside ``INSIDE_REACH``
radii): the ball reads positive, its dim limb less so, and shadow
beyond it negative, below any level. Measured on rest frames of an independent renderer
(with its true camera), the centre read along the nadir direction (the contact shadow shows
only on the nadir side) strayed 0.25 px RMS with the shadow test, 0.15 px with this view.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

SHADOW_FLOOR = 0.25  # the darkest shadow: a quarter of the light on the cloth
SHADOW_SHARE = 0.25  # how much of a shadow's difference may lie off the cloth's colour
RAY_REACH = 2.2  # rays run out to this many radii of a candidate, by default
INSIDE_REACH = 0.6  # a candidate's own colour is read within this many radii of its centre
# Views of a radial profile (``radial_edge_sets``): the colour distance from the background,
# the same with shadows taken out, and the difference along the direction toward the ball.
PLAIN, PAST_SHADOWS, TOWARD_BALL = "plain", "past_shadows", "toward_ball"


@functools.lru_cache(maxsize=8)
def _rays(rays: int, reach: float, samples: int) -> tuple[NDArray, NDArray, int]:
    """Unit directions (rays, 2), sample radii in radii (samples,), and the index of the
    sample nearest 0.85 radii (the reference contrast is taken inside it)."""
    ang = np.arange(rays) * (2 * np.pi / rays)
    u = np.stack([np.cos(ang), np.sin(ang)], 1)
    frac = np.linspace(0.3, reach, samples)
    u.flags.writeable = frac.flags.writeable = False
    return u, frac, int(np.argmin(np.abs(frac - 0.85)))


def radial_edges(
    image: NDArray[np.uint8],
    background: NDArray[np.uint8],
    centres_px: NDArray,
    r_ref_px: NDArray,
    *,
    rays: int,
    reach: float = RAY_REACH,
    samples: int = 40,
    min_level: float = 10.0,
    ignore_shadows: bool = False,
) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.float64]]:
    """Outermost silhouette edge along ``rays`` rays from each centre.

    Args:
        image, background: (h, w, 3) uint8 BGR.
        centres_px: (n, 2) rough centres.
        r_ref_px: (n,) expected silhouette radius; rays run from 0.3 r to ``reach`` r and the
            reference contrast is the weakest one inside 0.85 r.
        rays: number of directions.
        min_level: least contrast inside (a colour distance, grey levels): a ray whose
            weakest contrast inside 0.85 r is below it does not stand on foreground there
            and gives no edge.
        ignore_shadows: a shadow on the background is no silhouette (see the module
            docstring).

    Returns:
        edges_px (n, rays, 2), valid (n, rays), and contrast (n, rays): each ray's weakest
        contrast inside 0.85 r, the step its edge was found on.
    """
    (found,) = radial_edge_sets(
        image,
        background,
        centres_px,
        r_ref_px,
        rays=rays,
        reach=reach,
        samples=samples,
        min_level=min_level,
        views=(PAST_SHADOWS if ignore_shadows else PLAIN,),
    )
    return found


@dataclass(frozen=True, slots=True)
class RaySamples:
    """The image and the background sampled along the rays of ``sample_rays``.

    ``image`` and ``background`` are ``(n * rays, samples, 3)`` float32 (BGR, bilinear);
    ``centres_px (n, 2)`` and ``r_ref_px (n,)`` say where the rays of each candidate start and
    how long they are (``reach`` radii), for ``edge_views`` to turn into edges.
    """

    image: NDArray[np.float32]
    background: NDArray[np.float32]
    centres_px: NDArray[np.float64]
    r_ref_px: NDArray[np.float64]
    rays: int
    reach: float


def sample_rays(
    image: NDArray[np.uint8],
    background: NDArray[np.uint8],
    centres_px: NDArray,
    r_ref_px: NDArray,
    *,
    rays: int,
    reach: float = RAY_REACH,
    samples: int = 40,
) -> RaySamples:
    """Image and background along ``rays`` rays from each centre ``(n, 2)`` px, from 0.3 to
    ``reach`` times ``r_ref_px (n,)``: one sampling, for as many ``edge_views`` as needed."""
    c = np.asarray(centres_px, np.float64).reshape(-1, 2)
    r = np.asarray(r_ref_px, np.float64).reshape(-1)
    n = len(c)
    u, frac, _ = _rays(rays, reach, samples)
    s = r[:, None] * frac[None, :]  # (n, samples) px
    # Sample points (n * rays, samples): centre + direction x distance, per coordinate.
    us = u[None, :, None, :] * s[:, None, :, None]
    mapx = (us[..., 0] + c[:, 0, None, None]).reshape(n * rays, samples).astype(np.float32)
    mapy = (us[..., 1] + c[:, 1, None, None]).reshape(n * rays, samples).astype(np.float32)
    kw = {"interpolation": cv2.INTER_LINEAR, "borderMode": cv2.BORDER_REPLICATE}
    a = cv2.remap(image, map1=mapx, map2=mapy, **kw).astype(np.float32)
    b = cv2.remap(background, map1=mapx, map2=mapy, **kw).astype(np.float32)
    return RaySamples(a, b, c, r, rays, reach)


def radial_edge_sets(
    image: NDArray[np.uint8],
    background: NDArray[np.uint8],
    centres_px: NDArray,
    r_ref_px: NDArray,
    *,
    rays: int,
    views: tuple[str, ...],
    reach: float = RAY_REACH,
    samples: int = 40,
    min_level: float = 10.0,
    ball_bgr: NDArray | None = None,
) -> list[tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.float64]]]:
    """``radial_edges`` for each of ``views`` (``PLAIN``, ``PAST_SHADOWS``, ``TOWARD_BALL``
    with the ball's colour ``ball_bgr (3,)``; see the module docstring), from one sampling of
    the rays."""
    found = sample_rays(
        image, background, centres_px, r_ref_px, rays=rays, reach=reach, samples=samples
    )
    return edge_views(found, views, min_level=min_level, ball_bgr=ball_bgr)


def edge_views(
    found: RaySamples,
    views: tuple[str, ...],
    *,
    min_level: float = 10.0,
    ball_bgr: NDArray | None = None,
) -> list[tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.float64]]]:
    """Edges, valid and contrast (as ``radial_edges``) of rays sampled once
    (``sample_rays``), for each of ``views``."""
    a, b, c, r = found.image, found.background, found.centres_px, found.r_ref_px
    n, rays, samples = len(c), found.rays, a.shape[1]
    u, frac, j_ref = _rays(rays, found.reach, samples)
    diff = a - b
    plain = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
    profiles = []
    for view in views:
        if view == PAST_SHADOWS:
            d = _past_shadows(a, b, plain, min_level)
        elif view == TOWARD_BALL:
            if ball_bgr is None:  # each candidate's own colour, rows (n * rays, 1, 3)
                colour = np.repeat(_inside_colours(a, n, frac), rays, axis=0)[:, None, :]
            else:
                colour = np.asarray(ball_bgr, np.float32)
            d = _toward(diff, colour - b)
        else:
            d = plain
        profiles.append(d)
    # The edges of every view in one go: each row's edge is its own, so this is the same as
    # one call per view, for the fixed cost of one.
    v = len(views)
    if v > 1:
        profiles, c, r = [np.concatenate(profiles)], np.tile(c, (v, 1)), np.tile(r, v)
    d = profiles[0].reshape(v * n, rays, samples)
    edges, valid, contrast = _outermost_edges(d, c, r, u, frac, j_ref, min_level)
    return [
        (edges[i * n : (i + 1) * n], valid[i * n : (i + 1) * n], contrast[i * n : (i + 1) * n])
        for i in range(v)
    ]


def _inside_colours(samples: NDArray, n: int, frac: NDArray) -> NDArray:
    """Median colour ``(n, 3)`` of each candidate's samples ``(n * rays, s, 3)`` within
    ``INSIDE_REACH`` radii of its centre: the ball as this frame shows it, whatever light,
    white balance or colour hypothesis (a ball seen under one lamp is not the colour it was
    learnt as under another, and a candidate may be tested for a colour it does not have)."""
    inner = samples[:, frac <= INSIDE_REACH, :].reshape(n, -1, 3)
    # np.median's own way (the middle one or two of a partition), without its checks for
    # NaN, which samples of a uint8 image never hold: a third of its cost on a few balls.
    h = inner.shape[1] // 2
    if inner.shape[1] % 2:
        return np.partition(inner, h, axis=1)[:, h]
    part = np.partition(inner, (h - 1, h), axis=1)
    return (part[:, h - 1] + part[:, h]) / 2


def _toward(diff: NDArray, direction: NDArray) -> NDArray:
    """The component of each difference ``diff (..., 3)`` along its ``direction (..., 3)``."""
    norm = np.sqrt(np.einsum("ijk,ijk->ij", direction, direction))
    return np.einsum("ijk,ijk->ij", diff, direction) / np.maximum(norm, 1.0)


def _past_shadows(a: NDArray, b: NDArray, plain: NDArray, min_level: float) -> NDArray:
    """The difference of samples ``a`` from the background ``b``, a shadow's only the part
    of it off the background's colour (see the module docstring)."""
    gain = np.einsum("ijk,ijk->ij", a, b) / np.maximum(np.einsum("ijk,ijk->ij", b, b), 1.0)
    # (np.minimum / np.maximum: np.clip costs several times more)
    off = a - np.minimum(np.maximum(gain, SHADOW_FLOOR), 1.0)[..., None] * b
    off_darkened = np.sqrt(np.einsum("ijk,ijk->ij", off, off))
    shadow = (gain < 1.0) & (off_darkened < SHADOW_SHARE * np.maximum(plain, min_level))
    return np.where(shadow, off_darkened, plain)


def _outermost_edges(d, c, r, u, frac, j_ref, min_level):
    """Edges, valid and contrast of difference profiles ``d (n, rays, samples)``."""
    n, rays, samples = d.shape
    # Half of the weakest contrast inside: the shaded limb of a ball, not its highlight.
    contrast = d[:, :, : j_ref + 1].min(axis=2)  # (n, rays)
    level = 0.5 * contrast
    above = d >= level[..., None]
    last = samples - 1 - np.argmax(above[:, :, ::-1], axis=2)  # outermost sample above
    flat = d.reshape(-1, samples)
    row = np.arange(n * rays)
    d0 = flat[row, last.ravel()].reshape(n, rays)
    d1 = flat[row, np.minimum(last + 1, samples - 1).ravel()].reshape(n, rays)
    t = np.minimum(np.maximum((d0 - level) / np.maximum(d0 - d1, 1e-6), 0.0), 1.0)
    radius = (frac[last] + t * (frac[1] - frac[0])) * r[:, None]
    valid = (
        (d0 >= level)
        & (last < samples - 3)
        & (contrast >= min_level)
        & (d[:, :, -1] < 0.5 * level)  # the ray ends on the background
    )
    edges = c[:, None, :] + u[None] * radius[..., None]
    return edges, valid, contrast.astype(np.float64)


def fit_circles(
    points: NDArray,
    valid: NDArray[np.bool_],
    radius: NDArray,
    *,
    trims=(3.0, 1.0),
    parts: int = 1,
) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_]]:
    """Centres ``(n, 2)`` of circles of known ``radius`` ``(n,)`` through ``points (n, m, 2)``.

    Gauss-Newton with trimming: after each round, points farther than the next trim distance
    from the circle are dropped (an occluding finger, a touching base, a figure's body
    sticking out beyond its rim). Returns the centres, which fits kept >= 5 points and stayed
    within 1.5 radii of the points' mean (a failed fit returns that mean instead of a wild
    point), and the inlier mask ``(n, m)``.

    The rows may be ``parts`` equal blocks (one outline's edges read in different ways), fitted
    in one go: each block stops after the round it would stop after if fitted alone, so the
    result is that of one call per block, for the cost of one.
    """
    p = np.asarray(points, np.float64)
    # Points and centres as complex numbers x + iy: a few array operations per step, which
    # is what a fit of one ball or a few bases costs.
    z = p[..., 0] + 1j * p[..., 1]
    w = valid.astype(np.float64)
    cnt = np.maximum(w.sum(1), 1)
    c = (z * w).sum(1) / cnt
    start = c
    rad = np.asarray(radius, np.float64)
    # Two Gauss-Newton steps on all points, then one after each trim (the centre moves little
    # once the outliers are gone).
    rounds = (*trims, trims[-1])
    block = np.arange(len(z)) // max(len(z) // parts, 1)  # the block of each row
    active = np.ones(len(z), bool)  # rows whose block goes on
    every = True  # every row goes on (most fits): no masking needed
    radc = rad[:, None]
    # The points' offsets from the centre and their lengths; those a round ends with (for its
    # residuals) are the next round's first.
    v = z - c[:, None]
    off = np.abs(v)
    for i, trim in enumerate(rounds):
        sw = w.sum(1)
        for step in range(2 if i == 0 else 1):
            if step:
                v = z - c[:, None]
                off = np.abs(v)
            dist = np.maximum(off, 1e-9)
            j = v / dist  # unit vectors, minus d res / d c
            wj = w * j
            # Normal equations M st = g with M = sum w j j^T and g = sum w j res. In complex
            # numbers M g = (sw g + j2 conj(g)) / 2 with sw = sum w (|j| = 1) and j2 = sum w j^2,
            # so the 2x2 system is solved in closed form: st = (sw g - j2 conj(g)) / (2 det M),
            # det M = (sw^2 - |j2|^2) / 4.
            j2 = (wj * j).sum(1)
            g = (wj * (dist - radc)).sum(1)
            det = np.maximum(0.25 * (sw * sw - (j2 * j2.conj()).real), 1e-12)
            st = (sw * g - j2 * g.conj()) / (2.0 * det)
            # Points on a short arc (or on one line) leave the normal equations nearly
            # singular: never jump farther than a radius in one step.
            st = st * np.minimum(1.0, rad / np.maximum(np.abs(st), 1e-12))
            c = c + st if every else np.where(active, c + st, c)
        v = z - c[:, None]
        off = np.abs(v)
        res = off - radc
        kept = (valid & (np.abs(res) <= trim)).astype(np.float64)
        # Converged (the last step a ten-thousandth of a radius, so the next would move the
        # centre by far less) and the trim dropped nothing: more rounds would change nothing.
        settled = (kept == w).all(1) & (np.abs(st) < 1e-4 * rad)
        if parts == 1:
            if settled.all():
                w = kept if every else np.where(active[:, None], kept, w)
                break
            done = None
        else:
            done = np.bincount(block, ~settled, minlength=parts)[block] == 0
        w = kept if every else np.where(active[:, None], kept, w)
        if done is not None and done.any():
            active &= ~done
            every = False
            if not active.any():
                break
    # The centre of points on a circle lies within a radius of their mean.
    near = np.abs(c - start) <= 1.5 * rad
    ok = (w.sum(1) >= 5) & near & np.isfinite(c)
    c = np.where(ok, c, start)
    return np.stack([c.real, c.imag], 1), ok, w.astype(bool)


def refit_by_contrast(
    points: NDArray,
    inliers: NDArray[np.bool_],
    contrast: NDArray,
    centres: NDArray,
    radius: NDArray,
    *,
    steps: int = 4,
    stretch: float = 0.15,
    max_resultant: float = 0.75,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Centres ``(n, 2)`` and radii ``(n,)`` refitted to the ``inliers`` of ``points (n, m,
    2)``, each edge weighted by its ``contrast`` squared and the radius let free.

    Shading bends a ball's outline where it meets the cloth: its weak-contrast side reads out
    or in by up to half a pixel, and a circle of fixed radius through all edges is pulled
    along. Weighted, the sure edges decide; with the radius free, a bias they share all round
    (the limb a little darker than the ball) changes the radius, not the centre. Centre and
    radius are told apart only by edges well round the circle: where the weighted edges
    span less than about 150 degrees (the mean of their unit directions from the centre longer
    than ``max_resultant``), or the fit moves the centre or radius more than ``stretch``
    radii, the given centre and radius stay.
    """
    p = np.asarray(points, np.float64)
    w = np.where(inliers, np.asarray(contrast, np.float64) ** 2, 0.0)
    c0 = np.asarray(centres, np.float64)
    r0 = np.asarray(radius, np.float64)
    u = p - c0[:, None]
    u /= np.maximum(np.hypot(u[..., 0], u[..., 1]), 1e-9)[..., None]
    mean_dir = (w[..., None] * u).sum(1) / np.maximum(w.sum(1), 1e-12)[:, None]
    spread = np.hypot(*mean_dir.T) <= max_resultant
    c, r = c0.copy(), r0.copy()
    eye = 1e-9 * np.eye(3)
    # The Jacobian (n, m, 3) of the residuals by (cx, cy, r): minus the unit vectors and -1.
    # Its sums are matrix products (a fit costs its number of array operations, not its size).
    jac = np.full((*p.shape[:2], 3), -1.0)
    for _ in range(steps):
        v = p - c[:, None]
        dist = np.maximum(np.hypot(v[..., 0], v[..., 1]), 1e-9)
        np.divide(v, -dist[..., None], out=jac[..., :2])
        wjt = (jac * w[..., None]).transpose(0, 2, 1)  # (n, 3, m)
        a = wjt @ jac + eye
        g = wjt @ (dist - r[:, None])[..., None]
        st = -np.linalg.solve(a, g)[..., 0]
        c, r = c + st[:, :2], r + st[:, 2]
    good = (
        spread
        & (inliers.sum(1) >= 8)
        & np.isfinite(c).all(1)
        & (np.abs(r - r0) <= stretch * r0)
        & (np.hypot(*(c - c0).T) <= stretch * r0)
    )
    return np.where(good[:, None], c, c0), np.where(good, r, r0)
