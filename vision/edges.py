"""Sub-pixel silhouette edges along rays, and robust circle fits in millimetres.

Edges are found on radial colour-difference profiles sampled with ``cv2.remap`` (bilinear, so
sub-pixel) for every candidate and ray at once: an edge is where the difference from the
background falls through half of its value just inside the silhouette.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray


def radial_edges(
    image: NDArray[np.uint8],
    background: NDArray[np.uint8],
    centres_px: NDArray,
    r_ref_px: NDArray,
    *,
    rays: int,
    reach: float = 2.2,
    samples: int = 40,
    min_level: float = 10.0,
) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.float64]]:
    """Outermost silhouette edge along ``rays`` rays from each centre.

    Args:
        image, background: (h, w, 3) uint8 BGR.
        centres_px: (n, 2) rough centres.
        r_ref_px: (n,) expected silhouette radius; rays run from 0.3 r to ``reach`` r and the
            reference contrast is the weakest one inside 0.85 r.
        rays: number of directions.

    Returns:
        edges_px (n, rays, 2), valid (n, rays), and the unit directions (rays, 2).
    """
    c = np.asarray(centres_px, np.float64).reshape(-1, 2)
    r = np.asarray(r_ref_px, np.float64).reshape(-1)
    n = len(c)
    ang = np.arange(rays) * (2 * np.pi / rays)
    u = np.stack([np.cos(ang), np.sin(ang)], 1)  # (rays, 2)
    frac = np.linspace(0.3, reach, samples)  # in radii
    s = r[:, None] * frac[None, :]  # (n, samples)
    pts = c[:, None, None, :] + u[None, :, None, :] * s[:, None, :, None]  # (n, rays, S, 2)
    mapx = pts[..., 0].reshape(n * rays, samples).astype(np.float32)
    mapy = pts[..., 1].reshape(n * rays, samples).astype(np.float32)
    a = cv2.remap(
        image, map1=mapx, map2=mapy, interpolation=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    ).astype(np.float32)
    b = cv2.remap(
        background,
        map1=mapx,
        map2=mapy,
        interpolation=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    ).astype(np.float32)
    d = np.sqrt(((a - b) ** 2).sum(axis=2)).reshape(n, rays, samples)
    # Half of the weakest contrast inside: the shaded limb of a ball, not its highlight.
    j_ref = int(np.argmin(np.abs(frac - 0.85)))
    level = 0.5 * np.min(d[:, :, : j_ref + 1], axis=2)  # (n, rays)
    above = d >= level[..., None]
    last = samples - 1 - np.argmax(above[..., ::-1], axis=2)  # outermost sample above
    nxt = np.minimum(last + 1, samples - 1)
    d0 = np.take_along_axis(d, last[..., None], 2)[..., 0]
    d1 = np.take_along_axis(d, nxt[..., None], 2)[..., 0]
    t = np.clip((d0 - level) / np.maximum(d0 - d1, 1e-6), 0.0, 1.0)
    step = s[:, 1] - s[:, 0]
    radius = s[np.arange(n)[:, None], last] + t * step[:, None]
    valid = (
        above.any(axis=2)
        & (last < samples - 3)
        & (level >= min_level)
        & (d[:, :, -1] < 0.5 * level)  # the ray ends on the background
    )
    edges = c[:, None, :] + u[None] * radius[..., None]
    return edges, valid, u


def fit_circles(
    points: NDArray, valid: NDArray[np.bool_], radius: NDArray, *, trims=(3.0, 1.0)
) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.bool_]]:
    """Centres ``(n, 2)`` of circles of known ``radius`` ``(n,)`` through ``points (n, m, 2)``.

    Gauss-Newton with trimming: after each round, points farther than the next trim distance
    from the circle are dropped (an occluding finger, a touching base, a figure's body
    sticking out beyond its rim). Returns the centres, which fits kept >= 5 points and stayed
    within 1.5 radii of the points' mean (a failed fit returns that mean instead of a wild
    point), and the inlier mask ``(n, m)``.
    """
    p = np.asarray(points, np.float64)
    px, py = p[..., 0], p[..., 1]
    w = valid.astype(np.float64)
    cnt = np.maximum(w.sum(1), 1)
    cx, cy = (px * w).sum(1) / cnt, (py * w).sum(1) / cnt
    sx, sy = cx.copy(), cy.copy()
    rad = np.asarray(radius, np.float64)
    # Two Gauss-Newton steps on all points, then one after each trim (the centre moves little
    # once the outliers are gone).
    for i, trim in enumerate((*trims, trims[-1])):
        for _ in range(2 if i == 0 else 1):
            vx, vy = px - cx[:, None], py - cy[:, None]
            dist = np.maximum(np.sqrt(vx * vx + vy * vy), 1e-9)
            jx, jy = vx / dist, vy / dist  # minus d res / d c
            wres = w * (dist - rad[:, None])
            wjx, wjy = w * jx, w * jy
            a, b, d = (wjx * jx).sum(1), (wjx * jy).sum(1), (wjy * jy).sum(1)
            gx, gy = (jx * wres).sum(1), (jy * wres).sum(1)
            det = np.maximum(a * d - b * b, 1e-12)  # 2x2 normal equations, solved in closed form
            stx, sty = (d * gx - b * gy) / det, (a * gy - b * gx) / det
            # Points on a short arc (or on one line) leave the normal equations nearly
            # singular: never jump farther than a radius in one step.
            f = np.minimum(1.0, rad / np.maximum(np.sqrt(stx * stx + sty * sty), 1e-12))
            cx, cy = cx + stx * f, cy + sty * f
        vx, vy = px - cx[:, None], py - cy[:, None]
        res = np.sqrt(vx * vx + vy * vy) - rad[:, None]
        w = (valid & (np.abs(res) <= trim)).astype(np.float64)
    c, start = np.stack([cx, cy], 1), np.stack([sx, sy], 1)
    # The centre of points on a circle lies within a radius of their mean.
    near = np.hypot(cx - sx, cy - sy) <= 1.5 * rad
    ok = (w.sum(1) >= 5) & near & np.isfinite(c).all(1)
    c = np.where(ok[:, None], c, start)
    return c, ok, w.astype(bool)
