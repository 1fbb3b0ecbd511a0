"""Sub-pixel ground points of the ball and of bases, corrected for their height (parallax).

Both fits work in millimetres: silhouette edge points (``vision/edges.py``) are carried through
the camera model onto the plane where that part of the object really is, and a circle of the
object's known radius is fitted there, robust to whatever hides part of the outline.

**Ball.** The silhouette of a sphere is the cone of rays tangent to it. On the horizontal plane
through the ball's centre (z = r) that cone cuts an ellipse with semi-axes ``r / cos(theta)``
along the direction away from the camera's nadir and ``r`` across it, where ``theta`` is the
angle of the ray to the centre from the vertical. So the edge points are squeezed by
``cos(theta)`` along that direction (edges are read past the ball's contact shadow: a shadow
keeps the cloth's colour), a circle of radius r is fitted (robust to what hides part
of the outline), refitted with its edges weighed by their contrast and its radius free (where
shading makes the limb nearly the cloth's colour, those edges stray; see ``vision/edges.py``),
and the centre is moved back by the small offset of the ellipse's centre from the sphere's::

    delta = H tan(theta) tan(alpha)^2 (1 + tan(theta)^2) / (1 - tan(theta)^2 tan(alpha)^2)

with ``H`` the camera's height above the plane and ``sin(alpha) = r / D`` the cone's half angle
(D the camera-to-centre distance). It is about 0.04 mm at the edge of a 1.3 m high view, but
it is exact and costs nothing. A motion streak (the ball moved during the exposure) is not a
circle: its centre, the ball at mid-exposure, is the centre of the streak's edge points.

**Bases.** A base is a cylinder of height h. Seen from above, the side of the outline that
faces the nadir is its bottom circle (z = 0; the near wall is visible) and the far side is its
top rim (z = h). Edge points are back-projected to the matching plane and one circle of the base
radius is fitted; the figure's body, which leans out beyond the rim by parallax, is trimmed as
outliers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from vision.colour import darkened
from vision.config import VisionConfig
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
from vision.hiders import on_mask
from vision.model import SceneModel
from vision.shading import PatchFits, fit_ball_patches

MAX_PASSES = 8  # fits of one ball, each from the last one's centre
# A ball's fit settles by passes whose moves shrink; near its centre the frame's noise keeps
# them at a tenth of a pixel or so, shrinking or not. A fit still moving more than this a pass,
# and no less than the pass before, is not settling (see ``edge_passes``).
UNSETTLED_PX = 0.2
BASE_PASSES = 3  # fits of one base, each from the last one's centre
# A ball's fit whose last two moves were shorter than this starts its next pass where they
# say the passes go, at most this many moves and this far beyond its move (``_secant_steps``).
CREEP_PX, MAX_JUMP, JUMP_PX = 0.5, 10.0, 1.0
READINGS_APART_PX = 2.0  # the two placing readings of a ball differ by less than this
EDGE_SPACING_PX = 2.0  # edges of a ball's outline this far apart err independently
# The whole patch is a ball's only where the ball shows whole: balls in the open have 0.9-1
# of their rays on the outline, one with a fifth of it under a finger 0.78.
PATCH_MIN_SUPPORT = 0.85
MAX_PAST_OUTLINE = 2  # rays whose outline may lie inside the circle read past the shadow
# ... and from this share on it is fitted, then kept where the outline round its own centre
# is whole (the edges' centre may have strayed).
PATCH_TRY_SUPPORT = 0.5
# Edges of a ball under a hard low light read up to 0.7 px off; a patch fit farther than this
# from a whole outline's centre (beyond its own uncertainty) is no better placing of it.
PATCH_AGREE_PX = 1.0
# Edges of a ball read 0.1-0.7 px off under shading; a patch fit whose own uncertainty is more
# than this is no surer. On simulated balls at rest, those beyond it placed the ball worse than
# the edges in 7 of 10 (a spotted ball 11 px across under a 1.3 px blur, 1-2 px off; those
# within it, better in 9 of 10).
PATCH_MAX_SIGMA_PX = 0.35
# A rolling ball's width across its motion is read where this share of its rays found its edge.
ROUND_SHARE = 0.75
# ... and one not seen rolling whose outline is this much longer than wide may be smeared.
MIN_SMEAR_PX = 2.0
OWN_INSIDE = 0.8  # radii where a limb's colour is read
OWN_BACKGROUND = (0.4, 0.6, 0.8, 1.1, 1.3)  # ... and where the background is compared with it
SHADOW_RADII = (1.3, 1.6)  # radii where a ray that shows no outline must cross a shadow
RIM_POINTS = 12  # points read on a base's top inside its rim (``near_rim_px``)


@dataclass(frozen=True, slots=True)
class RestPlacing:
    """What the whole patch made of one ball at rest (``refine_balls``), with the centre its
    edges gave on that frame: while later frames' edges find that same centre, the ball has
    not moved and the patch would give the same placing again.

    ``edge_px (2,)`` the edges' centre the patch fit started from; ``xy_mm (2,)`` and
    ``sigma_mm`` its placing, where ``placed`` (else the patch fit failed or was not tried,
    and the edges placed the ball); ``doubt_mm``, what the patch fit, too unsure to place
    the ball, adds to the edges' uncertainty (half the way between their placings).
    """

    edge_px: NDArray[np.float64]
    xy_mm: NDArray[np.float64]
    sigma_mm: float
    placed: bool
    doubt_mm: float = 0.0


def _radial_frame(model: SceneModel, c_mm: NDArray, z_mm: float):
    """Unit direction away from the nadir ``(n, 2)``, its normal, and tan(theta) ``(n,)``."""
    cam = model.lens.centre_mm
    off = c_mm - cam[:2]
    rho = np.maximum(np.hypot(off[:, 0], off[:, 1]), 1e-9)
    e = off / rho[:, None]
    return e, np.stack([-e[:, 1], e[:, 0]], 1), rho / (cam[2] - z_mm), cam[2] - z_mm


def refine_balls(
    image: NDArray[np.uint8],
    model: SceneModel,
    rough_px: NDArray,
    edges: dict[str, NDArray],
    config: VisionConfig,
    *,
    again_px: float = 0.5,
    whole_patch: bool = False,
    rest: RestPlacing | None = None,
    patch_reach: float | None = None,
    smear_px: float | None = 0.0,
) -> tuple:
    """Ball ground points for rough centres ``(k, 2)`` px, from their ``edges``
    (``edge_passes``).

    With ``whole_patch`` (and ``VisionConfig.patch_fit``) a round ball the edges placed is
    placed again by its whole patch, a shaded sphere on the cloth (``vision/shading.py``),
    which a dim side or a shadow does not move; where that fit fails (a ball under a net,
    half hidden, at the image border) or lands farther from a whole outline's centre than
    shading moves edges (``PATCH_AGREE_PX``), the edges' placing stands. It costs a few dozen
    model evaluations: for a ball at rest, not for every candidate of a search. ``rest``,
    what an earlier frame's patch made of a ball at rest, stands for the ball whose edges
    find again the centre they gave then (within ``again_px``), instead of a new patch fit.
    With ``patch_reach``, a ball whose edges ended farther than that many radii from where
    they started is left to its edges (a caller that drops such fits spares their patch).
    ``smear_px``: the balls are seen rolling this far a frame, their outline smeared along
    their motion by the exposure by up to that: their size is their width across it, as far
    as the smear explains (``_ball_outline``); None: how far they roll is not known (the
    candidates of a search of the whole cloth), as far as each outline is longer than wide.

    Returns:
        centre_px (k, 2) of the silhouette, r_px (k,), xy_mm (k, 2) ground points, ok (k,),
        and on_outline (k, rays): which rays (directions ``2 pi i / rays`` from the centre)
        end on the fitted ball's outline. Their share, the support, is ~1 for a ball in the
        open, less where a finger or a base hides part of it, and low for a ball-coloured
        patch that is not a ball; size_err (k,) mm, the median of how far the edges lie
        outside the fitted ball's outline (~0 for a ball, more for a larger base; of a
        rolling ball, less what its smear explains); and
        doubt_mm (k,), the standard uncertainty of each centre that its own fit shows
        (``_fit_doubt``; for a streak, whose centre is no circle's, 0 when ``smear_px`` says
        it rolls, else half its length beyond the ball's; with half the way to the placing
        of a patch fit too unsure to be taken, ``PATCH_MAX_SIGMA_PX``); whole_patch
        (k,) bool, which balls the whole patch placed; and with ``whole_patch`` the
        ``RestPlacing`` of each ball the edges fitted (else None), for a later frame's
        ``rest``.
    """
    rough = np.asarray(rough_px, np.float64).reshape(-1, 2)
    if len(rough) == 0:
        empty = np.zeros((0, config.rays), bool)
        return (
            np.zeros((0, 2)),
            np.zeros(0),
            np.zeros((0, 2)),
            np.zeros(0, bool),
            empty,
            np.zeros(0),
            np.zeros(0),
            np.zeros(0, bool),
            (),
        )
    centre_px, r_px, ground, ok, streak = (
        edges[key] for key in ("centre_px", "r_px", "ground", "ok", "streak")
    )
    r = model.pitch.profile.ball_radius_mm
    outline, size_err, sigma, between = _ball_outline(model, edges, config, smear_px)
    # What a crossbar hides no longer places the ball: the whole fit's uncertainty (this and
    # what every fit shares, which the detector adds) grows by the dilution.
    d, shared = edges["dilution"], config.fit_sigma_px * r / edges["r_px"]
    sigma = np.hypot(sigma * d, shared * np.sqrt(d * d - 1.0))
    ground = ground + between
    # A round ball in the open is placed by its whole patch (``vision/shading.py``); a streak
    # is no sphere, and the model has no finger, net or base hiding part of the ball. A ray
    # whose limb meets a background of its own colour (a white ball on a white line) shows
    # no outline there and hides nothing: the patch model holds that background.
    support = (outline | _on_own_colour(image, model, centre_px, r_px, config.rays)).mean(1)
    patch = ok & ~streak & (support >= PATCH_TRY_SUPPORT)
    if patch_reach is not None:
        patch &= np.hypot(*(centre_px - rough).T) < patch_reach * r_px
    placed = np.zeros(len(ground), bool)
    placings: list[RestPlacing | None] = [None] * len(ground)
    if not (whole_patch and config.patch_fit):
        patch[:] = False
    else:
        for i in np.flatnonzero(ok):  # the edges' placing, unless the patch's stands
            placings[i] = RestPlacing(centre_px[i].copy(), ground[i].copy(), float(sigma[i]), False)
    # The ball due for a patch fit whose edges find the centre they gave on the frame of its
    # last one (that frame's, not the last one's: a ball creeping a little a frame shows once
    # it has crept ``again_px`` in all) has not moved: that fit's outcome stands.
    if rest is not None and patch.any():
        off = np.where(patch, np.hypot(*(centre_px - rest.edge_px).T), np.inf)
        j = int(np.argmin(off))
        if off[j] < again_px:
            placings[j], patch[j] = rest, False
            if rest.placed:
                ground[j], sigma[j], placed[j] = rest.xy_mm, rest.sigma_mm, True
            else:
                sigma[j] = np.hypot(sigma[j], rest.doubt_mm)
    if patch.any():
        fits = fit_ball_patches(
            image, model.background, model.lens, ground[patch], r, model.noise_sigma
        )
        # Edges that strayed far from where the search started (a ball at rest: its last
        # fit) may leave the patch fit too far to converge: it starts again from there.
        far = ~fits.ok & (np.hypot(*(centre_px[patch] - rough[patch]).T) > 1.0)
        if far.any():
            start = model.lens.back_project(rough[patch][far], r)
            again = fit_ball_patches(
                image, model.background, model.lens, start, r, model.noise_sigma
            )
            fit_ok, fit_mm, fit_sigma = fits.ok.copy(), fits.centre_mm.copy(), fits.sigma_mm.copy()
            fit_ok[far], fit_mm[far], fit_sigma[far] = again.ok, again.centre_mm, again.sigma_mm
            fits = PatchFits(fit_mm, fit_sigma, fits.blur_px, fit_ok)
        good = fits.ok.copy()
        # A patch fit farther from a whole outline's centre than shading moves edges
        # (``PATCH_AGREE_PX``) and than its own uncertainty allows has settled on something
        # else (a marked ball's tones mistaken): the edges stand.
        px_per_mm = r_px[patch] / r
        apart_mm = np.hypot(*(fits.centre_mm - ground[patch]).T)
        strayed = apart_mm * px_per_mm > PATCH_AGREE_PX + 3.0 * fits.sigma_mm * px_per_mm
        # Only an outline that shows whole counts: rays on a line of the ball's own colour
        # show none, and there the edges stray while the patch, which holds the line, does not.
        good &= ~(strayed & (outline[patch].mean(1) >= PATCH_MIN_SUPPORT))
        # A patch fit unsure by more than ``PATCH_MAX_SIGMA_PX`` places the ball no better
        # than its edges do (a marked ball 11 px across under a wide blur and a codec), nor
        # worse: which of the two is nearer is not known, and the edges' placing stands with
        # half the way between them in its doubt (a glossy dark ball on a dark cloth: the
        # edges ring its highlight 2.5 mm off claiming 0.4 mm, the patch 2.5 mm the other way).
        unsure = fits.sigma_mm * px_per_mm >= PATCH_MAX_SIGMA_PX
        good &= ~unsure
        unsure &= fits.ok & ~strayed  # a fit that settled on something else says nothing
        doubt = 0.5 * apart_mm
        # Edges that strayed (a ball on a line of its own colour, a dark mark taken for
        # shadow) leave the outline round their centre broken: the patch fit, which holds
        # both, stands where the outline round its own centre is whole.
        check = np.flatnonzero(good & (support[patch] < PATCH_MIN_SUPPORT))
        if len(check):
            whole = _outline_share(image, model, fits.centre_mm[check], config)
            good[check] = whole >= PATCH_MIN_SUPPORT
        tried = np.flatnonzero(patch)
        for i, d in zip(tried[unsure], doubt[unsure], strict=True):
            sigma[i] = np.hypot(sigma[i], d)
            placings[i] = replace(placings[i], sigma_mm=float(sigma[i]), doubt_mm=float(d))
        idx = tried[good]
        ground[idx] = fits.centre_mm[good]
        sigma[idx] = fits.sigma_mm[good]
        placed[idx] = True
        for i in idx:
            placings[i] = RestPlacing(centre_px[i].copy(), ground[i].copy(), float(sigma[i]), True)
    centre_px = model.lens.project(np.concatenate([ground, np.full((len(ground), 1), r)], 1))
    return centre_px, r_px, ground, ok, outline, size_err, sigma, placed, tuple(placings)


def edge_passes(
    image: NDArray[np.uint8],
    model: SceneModel,
    rough_px: NDArray,
    config: VisionConfig,
    again_px: float = 0.5,
) -> dict[str, NDArray]:
    """The edge fits of balls from rough centres ``(k, 2)`` px: per ball, the last pass that
    fitted it (``_ball_pass``'s fields, first dimension k), for ``refine_balls``.

    A ball's fit runs again with rays from its own centre until the next start would be
    less than ``again_px`` from the last, so the result does not depend on how rough the first
    guess was: rays from a start a fraction of a pixel off see the ball askew (the side nearer
    the start is sampled inside its blurred edge), and one pass moves only part of the way to
    the centre (a ball's moves shrink by a factor of 2-7 a pass; a small ball's under a wide
    blur by a tenth): from the second pass on, the next starts where the last two passes say
    the passes go (``_secant_steps``). A fit whose move no longer shrinks,
    and is still ``UNSETTLED_PX`` or more, is not settling: it circles round a point (a ball
    smeared by its motion) or wanders off (a hand, a ball-coloured part of a figure, the window
    of a ball that has gone), and more passes would not settle it; it stops there. At most
    ``MAX_PASSES`` passes.
    """
    rough = np.asarray(rough_px, np.float64).reshape(-1, 2)
    if len(rough) == 0:
        return {}  # nothing to fit (``refine_balls`` reads no field then)
    passes = _ball_pass(image, model, rough, config)
    k = len(rough)
    x, moved = rough, np.full(k, np.inf)
    last_x, last_g = np.full((k, 2), np.nan), np.full((k, 2), np.nan)
    active = np.arange(k)
    for _ in range(MAX_PASSES - 1):
        g = passes["centre_px"][active] - x  # this pass's move
        move = np.hypot(*g.T)
        step = _secant_steps(x, g, last_x, last_g)
        going = (np.hypot(*step.T) >= again_px) & ((move < moved) | (move < UNSETTLED_PX))
        active, moved = active[going], move[going]
        last_x, last_g, x = x[going], g[going], (x + step)[going]
        if len(active) == 0:
            break
        again = _ball_pass(image, model, x, config)
        # Each ball keeps the last pass that fitted it, with what that pass read.
        use = again["ok"]
        for key, a in again.items():
            passes[key][active[use]] = a[use]
    return passes


def _secant_steps(x, g, last_x, last_g) -> NDArray[np.float64]:
    """Where the next pass of each fit ``(k, 2)`` starts, from its start ``x`` and move ``g``
    and those of the pass before (NaN: none): the fixed point of the passes, which move a
    start part of the way toward it. A small ball under a wide blur (11 px across, a 1.3 px
    blur) settles slowly: its passes move a tenth of the way a pass, and stop 0.5 px short.
    Two passes show how the move shrinks with the start (Anderson's mixing, one pass back:
    exact where the passes shrink the offset alike in every direction). Only a fit near its
    end, whose last two moves were shorter than ``CREEP_PX``, is taken beyond its move, by at
    most ``JUMP_PX`` and ``MAX_JUMP`` moves: a fit that follows a ball rolling out of it moves
    by pixels a pass, and no two passes tell where that ends."""
    dx, dg = x - last_x, g - last_g
    move, last = np.hypot(*g.T), np.hypot(*last_g.T)
    norm = (dg * dg).sum(1)
    near = (move < CREEP_PX) & (last < CREEP_PX) & (norm > 1e-12)  # False where NaN
    gamma = np.where(near, (dg * g).sum(1) / np.where(near, norm, 1.0), 0.0)
    beyond = -gamma[:, None] * np.where(near[:, None], dx + dg, 0.0)
    reach = np.minimum((MAX_JUMP - 1.0) * move, JUMP_PX)
    long = np.hypot(*beyond.T) / np.maximum(reach, 1e-12)
    return g + beyond / np.maximum(long, 1.0)[:, None]


def _outline_share(image, model, centres_mm: NDArray, config) -> NDArray[np.float64]:
    """Share ``(k,)`` of the rays from each ball centre ``(k, 2)`` mm that bear out that
    ball's outline: whose edge lies on it (within a pixel), as it shows or read past the
    ball's shadow, or that meet a background of the limb's own colour; among the rays that
    say anything. Under a low light the ball's dim side fades into its long shadow: read past
    the shadow, such a ray shows no edge at all, and beyond the outline it crosses the cloth
    darkened: it no more speaks against the ball than for it. Rays that show an outline
    elsewhere, or cross something else (a finger reaching past the rays' end), do. Where
    fewer than ``PATCH_TRY_SUPPORT`` of all rays bear the outline out, their share of all is
    returned: a patch that shows little is no ball."""
    r = model.pitch.profile.ball_radius_mm
    c_px = model.lens.project(np.concatenate([centres_mm, np.full((len(centres_mm), 1), r)], 1))
    r_px = r * model.px_per_mm(c_px)
    sets = radial_edge_sets(
        image,
        model.background,
        c_px,
        r_px,
        rays=config.rays,
        views=(PLAIN, PAST_SHADOWS),
        min_level=model.threshold,
    )
    e, _, tan_t, _ = _radial_frame(model, centres_mm, r)
    cos_t = 1.0 / np.sqrt(1.0 + tan_t**2)
    on = _on_own_colour(image, model, c_px, r_px, config.rays)
    for edges, valid, _ in sets:
        k, m = valid.shape
        pts = model.lens.back_project(edges.reshape(-1, 2), r).reshape(k, m, 2)
        sq = _squeeze(pts, centres_mm, e, cos_t)
        on |= valid & (np.abs(_off_circle(sq, centres_mm, r)) <= _one_px_mm(r, r_px))
    into_shadow = ~sets[1][1] & _shadowed(image, model, c_px, r_px, config.rays)
    shown = on | ~into_shadow
    share = on.sum(1) / np.maximum(shown.sum(1), 1)
    return np.where(on.mean(1) >= PATCH_TRY_SUPPORT, share, on.mean(1))


def _on_own_colour(image, model, centre_px, r_px, rays: int) -> NDArray[np.bool_]:
    """Which rays ``(k, rays)`` from each ball's centre ``(k, 2)`` px cross a background of
    the limb's own colour: the ball just inside its outline (``OWN_INSIDE`` radii) and the
    background at one of ``OWN_BACKGROUND`` radii within twice the foreground threshold. A
    white line under a white ball leaves no contrast there, and its ray no edge (its weakest
    contrast inside is too low), nor one beyond it."""
    limb = _along_rays(image, centre_px, r_px, rays, OWN_INSIDE)
    gap = limb - _along_rays(model.background, centre_px, r_px, rays, OWN_BACKGROUND)
    return (np.sqrt((gap * gap).sum(-1)) < 2.0 * model.threshold).any(axis=0)


def _shadowed(image, model, centre_px, r_px, rays: int) -> NDArray[np.bool_]:
    """Which rays ``(k, rays)`` from each ball's centre ``(k, 2)`` px cross the cloth
    darkened (a shadow) at each of ``SHADOW_RADII`` radii."""
    seen = _along_rays(image, centre_px, r_px, rays, SHADOW_RADII)
    bg = _along_rays(model.background, centre_px, r_px, rays, SHADOW_RADII)
    dark = darkened(seen.reshape(-1, 3), bg.reshape(-1, 3), model.threshold)
    return dark.reshape(seen.shape[:3]).all(axis=0)


def _along_rays(img, centre_px, r_px, rays: int, frac) -> NDArray[np.float32]:
    """The pixels ``(k, rays, 3)`` of ``img`` ``frac`` radii ``r_px (k,)`` from each centre
    ``(k, 2)`` px along ``rays`` directions ``2 pi i / rays`` (nearest pixel, clamped to the
    image); ``(f, k, rays, 3)`` for a tuple of ``f`` fractions, in one gather."""
    ang = np.arange(rays) * (2 * np.pi / rays)
    u = np.stack([np.cos(ang), np.sin(ang)], 1)
    c, r = np.asarray(centre_px, np.float64).reshape(-1, 2), np.asarray(r_px, np.float64)
    h, w = img.shape[:2]
    f = np.asarray(frac, np.float64).reshape(*np.shape(frac), 1, 1, 1)
    p = c[:, None, :] + f * r.reshape(-1)[:, None, None] * u[None]
    ix = np.minimum(np.maximum(np.rint(p[..., 0]).astype(np.intp), 0), w - 1)
    iy = np.minimum(np.maximum(np.rint(p[..., 1]).astype(np.intp), 0), h - 1)
    return img[iy, ix].astype(np.float32)


def _ball_pass(image, model, rough, config) -> dict[str, NDArray]:
    """One fit of balls from rays cast at ``rough (k, 2)`` px: its centre and what it read,
    per ball (``refine_balls`` keeps each ball's last good pass; ``_ball_outline`` reads the
    rest from it once the passes are done)."""
    r = model.pitch.profile.ball_radius_mm
    r_px = r * model.px_per_mm(rough)
    cam = model.lens
    # The outline as it shows says what a candidate is (a ball, a streak, a base of the ball's
    # colour, which is larger). Where a ball is, it is placed past its contact shadow by the
    # shadow's colour (``vision/edges.py``), and read a second way, toward the ball's colour,
    # for ``_ball_outline``. (Neither is a place to judge size from: a dark base's rim passes
    # for shadow there.)
    found = sample_rays(image, model.background, rough, r_px, rays=config.rays)
    sets = edge_views(found, (PLAIN, PAST_SHADOWS, TOWARD_BALL), min_level=model.threshold)
    cut = None  # the rays whose edge as it shows is a crossbar's
    if model.hiders is not None:  # the outline a crossbar cuts is the bar's edge, not the ball's
        bar = [on_mask(model.hiders, px) for px, _, _ in sets]
        cut = sets[0][1] & bar[0]
        sets = [(px, v & ~b, c) for (px, v, c), b in zip(sets, bar, strict=True)]
    (_, valid, contrast), (_, past_valid, past_contrast), (_, tow_valid, tow_contrast) = sets
    k, m = valid.shape
    # The three sets of edges and the rough centres cross to the plane of the ball's centre at
    # once, and the three readings are fitted at once (a circle of the ball's radius through
    # all edges, then weighted by contrast with the radius free): a fit of a few balls costs
    # its number of array operations, not its size.
    crossed = cam.back_project(np.concatenate([*(s[0].reshape(-1, 2) for s in sets), rough]), r)
    c0 = crossed[3 * k * m :]
    e, _, tan_t, height = _radial_frame(model, c0, r)
    cos_t = 1.0 / np.sqrt(1.0 + tan_t**2)
    sq = _squeeze(crossed[: 3 * k * m].reshape(3, k, m, 2), c0, e, cos_t)
    pts = crossed[: k * m].reshape(k, m, 2)
    all_valid = np.concatenate([valid, past_valid, tow_valid])
    all_contrast = np.concatenate([contrast, past_contrast, tow_contrast])
    all_pts = sq.reshape(3 * k, m, 2)
    fixed, fit_ok, inl = fit_circles(all_pts, all_valid, np.full(3 * k, r), parts=3)
    inl &= fit_ok[:, None]
    refit, refit_r = refit_by_contrast(all_pts, inl, all_contrast, fixed, np.full(3 * k, r))
    ok, use = fit_ok[:k].copy(), fit_ok[k : 2 * k]
    # The ball lies within its outline as it shows (ball, shadow and marks all differ from
    # the cloth): a circle read past the shadow that reaches beyond that outline on several
    # rays took a dark part of the ball for shadow (a marked ball's dark half), and its
    # centre strays pass after pass toward that part.
    inside = _off_circle(sq[0], refit[k : 2 * k], r)
    use = use & ((valid & (inside < -_one_px_mm(r, r_px))).sum(1) <= MAX_PAST_OUTLINE)
    # The passes follow the reading past the shadow, failing that the outline as it shows.
    place = np.where(use[:, None], refit[k : 2 * k], refit[:k])
    centre = _unsqueeze(place, c0, e, cos_t)
    fitted = centre.copy()
    # A streak: elongated, and a ball-sized circle explains less than half of its outline
    # (a half-hidden round ball is elongated too, but the circle explains all it shows).
    seen = valid.sum(1)
    maybe = (inl[:k].sum(1) < 0.6 * np.maximum(seen, 1)) & (seen >= 0.5 * m)
    streak = np.zeros(k, bool)
    if maybe.any():
        streak[maybe] = _elongation(pts[maybe], valid[maybe]) > config.blur_elongation
        if streak.any():
            centre[streak] = _principal_extents(pts[streak], valid[streak])[0]
            ok[streak] = True
    tan_a = r / np.sqrt(np.maximum(height**2 * (1 + tan_t**2) - r * r, 1.0))
    t2, a2 = tan_t**2, tan_a**2
    delta = height * tan_t * a2 * (1 + t2) / (1 - t2 * a2)
    ground = centre - delta[:, None] * e
    centre_px = cam.project(np.concatenate([ground, np.full((k, 1), r)], 1))
    return {
        "centre_px": centre_px,
        "r_px": r_px,
        "ground": ground,
        "ok": ok,
        "streak": streak,
        "c0": c0,
        "e": e,
        "cos_t": cos_t,
        "fitted": fitted,
        "squeezed": sq[0],
        "valid": valid,
        "contrast": contrast,
        "inl": inl[:k],
        "fit": refit[:k],
        "past_pts": sq[1],
        "past_contrast": past_contrast,
        "past_fixed": fixed[k : 2 * k],
        "past_fit": refit[k : 2 * k],
        "past_r": refit_r[k : 2 * k],
        "past_ok": use,
        "past_inl": inl[k : 2 * k],
        "tow_fixed": fixed[2 * k :],
        "tow_fit": refit[2 * k :],
        "tow_ok": fit_ok[2 * k :],
        "dilution": np.ones(k) if cut is None else _dilution(valid, cut),
    }


def _dilution(kept: NDArray[np.bool_], cut: NDArray[np.bool_]) -> NDArray[np.float64]:
    """``(k,)``: how much less surely a circle of known radius is centred on the rays
    ``kept (k, m)`` than on those and the ``cut`` ones: the square root of the ratio of the
    largest variances of the two fits' centres, ``(sum u u^T)^-1`` over their rays'
    directions ``u`` (1 where none was cut; 10 where too few are left to centre a circle)."""
    out = np.ones(len(kept))
    rows = np.flatnonzero(cut.any(1))
    if len(rows) == 0:
        return out
    kept, seen = kept[rows], kept[rows] | cut[rows]
    ang = np.arange(kept.shape[1]) * (2 * np.pi / kept.shape[1])  # the rays' directions
    u = np.stack([np.cos(ang), np.sin(ang)], 1)
    uu = np.stack([u[:, 0] ** 2, u[:, 0] * u[:, 1], u[:, 1] ** 2], 1)  # (m, 3)

    def largest_variance(rows):
        a, b, c = (rows.astype(np.float64) @ uu).T
        det = a * c - b * b
        half = 0.5 * (a + c)
        smallest = half - np.sqrt(np.maximum(half * half - det, 0.0))
        return 1.0 / np.maximum(smallest, 1e-9)

    ratio = largest_variance(kept) / largest_variance(seen)
    out[rows] = np.where(kept.sum(1) >= 3, np.minimum(np.sqrt(ratio), 10.0), 10.0)
    return out


def _ball_outline(model, p: dict[str, NDArray], config, smear_px: float | None = 0.0):
    """What the final passes ``p`` (``_ball_pass``) read of each ball's outline: on_outline
    (k, rays), size_err (k,) mm, sigma (k,) mm and between (k, 2) mm (see ``refine_balls``).

    Besides the reading past the contact shadow, the edges are read toward the ball's colour
    (``vision/edges.py``). Each fails somewhere: the first where the ball's colour bleeds into
    its shadow (4:2:0 colour), the second where a hard light leaves the ball's dim limb darker
    than the cloth: how far apart they place the ball is part of its doubt.
    """
    r = model.pitch.profile.ball_radius_mm
    r_px, valid, squeezed, streak = p["r_px"], p["valid"], p["squeezed"], p["streak"]
    c0, e, cos_t = p["c0"], p["e"], p["cos_t"]
    k = len(valid)
    tow_fixed, tow_fit, tow_ok = p["tow_fixed"], p["tow_fit"], p["tow_ok"]
    # The two readings fail in opposite ways: past the shadow, the ball's colour bled into its
    # shadow reads as ball, out by up to a pixel; toward the ball, a dim limb darker than the
    # cloth reads as cloth, in by as much. Only lossy frames (4:2:0 colour, a codec) bleed
    # colour: in exact ones the first reading places the ball. In lossy ones the ball lies
    # between them: where both fit and agree to within the two pixels their failures span,
    # midway (``between``, the way from the first reading's centre there). On an independent
    # renderer's clips (MPEG-4, with the true camera) this took the worst orange balls from
    # 0.6-0.9 mm to 0.3-0.45 mm off. The passes of a fit follow the first reading alone,
    # failing that the outline as it shows: the second reads toward the candidate's own
    # colour, which for a patch that is no ball (a piece of a line) is anything. Where they
    # part, the doubt grows.
    use, fit = p["past_ok"], p["fit"]
    place = np.where(use[:, None], p["past_fit"], fit)
    gap = np.hypot(*(p["past_fit"] - tow_fit).T)
    both = use & tow_ok & (gap <= READINGS_APART_PX * r / r_px) & config.lossy_frames
    both = both[:, None]
    mid = np.where(both, 0.5 * (p["past_fit"] + tow_fit), place)
    # The scatter of the placing edges about their own circle.
    use_pts = np.where(use[:, None, None], p["past_pts"], squeezed)
    use_c = np.where(use[:, None], p["past_fit"], fit)
    use_r = np.where(use, p["past_r"], r)
    inl = p["inl"]
    use_w = np.where(
        use[:, None],
        np.where(p["past_inl"], p["past_contrast"], 0.0),
        np.where(inl, p["contrast"], 0.0),
    )
    centre = p["fitted"]
    between = _unsqueeze(mid, c0, e, cos_t) - centre
    alternatives = (p["past_fixed"], p["past_fit"], tow_fixed, tow_fit)
    sigma = _fit_doubt(
        centre + between,
        _unsqueeze(
            np.concatenate(alternatives), np.tile(c0, (4, 1)), np.tile(e, (4, 1)), np.tile(cos_t, 4)
        ).reshape(4, k, 2),
        np.stack([use, use, tow_ok, tow_ok]),
        # Placed midway, each reading is half the gap off; placed by the first, the second
        # counts half: either way twice the doubt spans the gap.
        np.stack([np.ones(k), np.ones(k), *[np.where(both[:, 0], 1.0, 0.5)] * 2]),
        use_pts,
        use_c,
        use_r,
        use_w**2,
        r_px,
    )
    # Rays whose edge lies on the fitted outline, within a pixel (however few mm that is).
    signed = _off_circle(squeezed, fit, r)
    on_outline = valid & (np.abs(signed) <= _one_px_mm(r, r_px))
    # How much larger than the ball the outline is (a base of the ball's colour is larger).
    size_err = _row_medians(signed, valid)
    # Smeared along its motion by less than a streak is, a ball's outline is a ball's across
    # it only: wider all round is a base. Seen rolling, the smear is at most its travel in a
    # frame (``smear_px``), which widens the outline's median by at most half of that: beyond,
    # the outline is not the ball's (a ball under a net read in pieces). Where nothing says
    # whether it rolls (None: a ball struck while its track had it at rest, searched for on
    # the whole cloth), it may be smeared as far as its outline is longer than wide (a long
    # shutter smears a shot over nearly a ball's length, and a ball-sized circle still
    # explains most of that outline); nothing then places it along that length, so its doubt
    # spans it. Only an outline seen nearly all round tells its width (an arc's narrowest
    # extent is no width).
    round_ = np.zeros(len(valid), bool)
    if smear_px is None or smear_px > 0:  # a ball at rest (most fits) has no smear to read
        round_ = valid.sum(1) >= ROUND_SHARE * valid.shape[1]
    if round_.any():
        half = _principal_extents(squeezed[round_], valid[round_])[1]
        across, longer = half[:, 0] - r, half[:, 1] - half[:, 0]
        if smear_px is None:
            smear_mm = np.where(longer > MIN_SMEAR_PX * r / r_px[round_], 2.0 * longer, 0.0)
            sigma[round_] = np.where(smear_mm > 0, np.hypot(sigma[round_], longer), sigma[round_])
        else:
            smear_mm = smear_px * r / r_px[round_]
        smeared = size_err[round_] - 0.5 * smear_mm
        size_err[round_] = np.minimum(size_err[round_], np.maximum(across, smeared))
    if streak.any():
        on_outline[streak] = valid[streak]
        # A streak is as wide as the ball across its motion (a base with a body is wider).
        extent = _principal_extents(squeezed[streak], valid[streak])[1]
        size_err[streak] = extent[:, 0] - r
        # Seen rolling (``smear_px``), a streak is placed along its motion by the ball's
        # track. Otherwise nothing says how much of its length is smear: it may be a ball at
        # rest read on into something beside it (its contact shadow under a hard light), whose
        # middle lies up to the length beyond the ball's off its centre (twice the doubt spans
        # that).
        sigma[streak] = 0.0 if smear_px else 0.5 * np.maximum(extent[:, 1] - r, 0.0)
        between[streak] = 0.0
    return on_outline, size_err, sigma, between


def _off_circle(pts: NDArray, centres: NDArray, r: float) -> NDArray[np.float64]:
    """How far points ``(k, m, 2)`` lie outside the circle of radius ``r`` round their row's
    centre ``(k, 2)`` (negative: inside)."""
    return np.hypot(*(pts - centres[:, None, :]).transpose(2, 0, 1)) - r


def _one_px_mm(r: float, r_px: NDArray) -> NDArray[np.float64]:
    """A pixel in mm at each ball ``(k, 1)``, and never less than 1 mm: within it an edge is
    on the outline."""
    return np.maximum(1.0, r / r_px)[:, None]


def _squeeze(xy: NDArray, c0: NDArray, e: NDArray, cos_t: NDArray) -> NDArray[np.float64]:
    """Points ``(..., k, m, 2)`` on the plane of the ball's centre squeezed by cos(theta)
    along the direction ``e (k, 2)`` away from the nadir, about ``c0 (k, 2)``."""
    # In complex numbers x + iy, dividing by the unit direction e turns an offset into
    # (along e, across e): the squeeze along e is then a scaling of the real part.
    ez, c0z = (e[:, 0] + 1j * e[:, 1])[:, None], (c0[:, 0] + 1j * c0[:, 1])[:, None]
    q = ((xy[..., 0] + 1j * xy[..., 1]) - c0z) / ez
    z = (q.real * cos_t[:, None] + 1j * q.imag) * ez + c0z
    return np.stack([z.real, z.imag], -1)


def _unsqueeze(xy: NDArray, c0: NDArray, e: NDArray, cos_t: NDArray) -> NDArray[np.float64]:
    """Centres ``(k, 2)`` on the squeezed plane moved back off it (1 / cos(theta) along e)."""
    ez, c0z = e[:, 0] + 1j * e[:, 1], c0[:, 0] + 1j * c0[:, 1]
    d = ((xy[:, 0] + 1j * xy[:, 1]) - c0z) / ez
    cz = (d.real / cos_t + 1j * d.imag) * ez + c0z
    return np.stack([cz.real, cz.imag], 1)


def _fit_doubt(centre, alternatives, alt_ok, share, pts, circle, circle_r, weight, r_px):
    """Standard uncertainty ``(k,)`` mm of each ball's centre that its own fit shows.

    Two parts, in quadrature:

    - how far from ``centre (k, 2)`` the fits that read the same outline in other reasonable
      ways put it (``alternatives (a, k, 2)`` where ``alt_ok (a, k)``, each counted with its
      ``share (a, k)``): a circle of the known radius through all edges, and one weighted by
      contrast with its radius free, each on the edges read past the contact shadow and on
      those read toward the ball's colour. Where the outline is sound these agree to a few
      hundredths of a millimetre; where part of it strays (a shaded limb fading into the
      cloth or into its shadow, a hidden part, a mark, a highlight), each weighs the stray
      part differently and they part. The two readings fail in opposite ways (past the
      shadow, the ball's colour bled into its shadow reads as ball; toward the ball, a dim
      limb darker than the cloth reads as cloth), so the truth lies between them: placed
      midway (lossy frames) each counts whole, placed by the first the second counts with
      share 1/2 (``share``), and either way twice this doubt spans the gap;
    - the scatter of the used edges ``pts (k, m, 2)`` about their fitted ``circle (k, 2)`` of
      radius ``circle_r (k,)`` (``weight (k, m)``, 0 for unused edges), as the standard error
      of a centre fitted to that many independent edges. Neighbouring rays share pixels
      (blur, 4:2:0 colour), so edges count as independent only ``EDGE_SPACING_PX`` apart
      round an outline of ``r_px (k,)``.
    """
    off = share * np.hypot(*(alternatives - centre[None]).transpose(2, 0, 1))
    spread = np.where(alt_ok, off, 0.0).max(axis=0)
    res = np.hypot(*(pts - circle[:, None, :]).transpose(2, 0, 1)) - circle_r[:, None]
    total = weight.sum(1)
    var = (weight * res**2).sum(1) / np.maximum(total, 1e-12)
    kish = total**2 / np.maximum((weight**2).sum(1), 1e-12)
    independent = np.clip(np.minimum(kish, 2 * np.pi * r_px / EDGE_SPACING_PX), 1.0, None)
    noise = np.sqrt(2.0 * var / independent)
    return np.hypot(spread, noise)


def _row_medians(values: NDArray, valid: NDArray[np.bool_]) -> NDArray[np.float64]:
    """Median ``(k,)`` of each row's valid values ``(k, m)``; 0 for a row with none."""
    srt = np.sort(np.where(valid, values, np.inf), axis=1)
    cnt = valid.sum(1)
    rows = np.arange(len(srt))
    lo, hi = np.maximum(cnt - 1, 0) // 2, np.maximum(cnt, 1) // 2
    if srt.shape[1] == 0:
        return np.zeros(len(srt))
    med = 0.5 * (srt[rows, lo] + srt[rows, np.minimum(hi, srt.shape[1] - 1)])
    return np.where(cnt > 0, med, 0.0)


def _principal_extents(pts: NDArray, valid: NDArray[np.bool_]) -> tuple[NDArray, NDArray]:
    """Of each point set ``(k, m, 2)`` (its ``valid`` points): the point midway between its
    extremes along both principal axes ``(k, 2)`` (a streak's centre), and half its extent
    along its minor and its major axis ``(k, 2)``."""
    centre, half = np.zeros((len(pts), 2)), np.zeros((len(pts), 2))
    for i, (p, v) in enumerate(zip(pts, valid, strict=True)):  # a moving ball: one or two
        q = p[v]
        _, vecs = np.linalg.eigh(np.cov(q.T))
        along = q @ vecs
        lo, hi = along.min(axis=0), along.max(axis=0)
        centre[i], half[i] = vecs @ (0.5 * (lo + hi)), 0.5 * (hi - lo)
    return centre, half


def _elongation(pts: NDArray, valid: NDArray[np.bool_]) -> NDArray[np.float64]:
    """sqrt of the ratio of the principal variances of each point set ``(k, m, 2)``."""
    w = valid.astype(np.float64)
    cnt = np.maximum(w.sum(1), 1.0)
    mean = (pts * w[..., None]).sum(1) / cnt[:, None]
    q = (pts - mean[:, None, :]) * np.sqrt(w)[..., None]
    cov = np.einsum("kmi,kmj->kij", q, q) / cnt[:, None, None]
    ev = np.linalg.eigvalsh(cov)
    return np.sqrt(ev[:, 1] / np.maximum(ev[:, 0], 1e-9))


def refine_bases(
    image: NDArray[np.uint8],
    model: SceneModel,
    rough_px: NDArray,
    config: VisionConfig,
    *,
    again_px: float = 0.5,
) -> tuple[NDArray, NDArray, NDArray, NDArray[np.bool_]]:
    """Base footprint centres for rough centres ``(k, 2)`` px.

    A blob's centre is a rough start: the figure's body, a goalkeeper's wide torso and rod
    pull it off the base. As for the ball, a fit whose centre lies ``again_px`` or more from
    where its rays started runs again from there (at most ``BASE_PASSES`` passes): rays from
    a start far off the centre meet the rim askew, and a base whose far side is trimmed (a
    keeper's rod and its goal behind it) moves only part of the way in one pass.

    Returns:
        rim_px (k, 2) centre of the top rim in the image, r_px (k,), xy_mm (k, 2) footprint
        centres on the cloth, ok (k,).
    """
    rough = np.asarray(rough_px, np.float64).reshape(-1, 2)
    if len(rough) == 0:
        return np.zeros((0, 2)), np.zeros(0), np.zeros((0, 2)), np.zeros(0, bool)
    rim_px, r_px, centre, ok, start = _refine_bases_once(image, model, rough, config)
    origin = rough
    for _ in range(BASE_PASSES - 1):
        again = np.flatnonzero(ok & (np.hypot(*(start - origin).T) >= again_px))
        if len(again) == 0:
            break
        fit = _refine_bases_once(image, model, start[again], config)
        origin = start.copy()  # a pass that failed leaves its base's fit and start as they were
        done = again[fit[3]]
        for out, new in zip((rim_px, r_px, centre, start), (*fit[:3], fit[4]), strict=True):
            out[done] = new[fit[3]]
    return rim_px, r_px, centre, ok


def _refine_bases_once(image, model, rough, config):
    p = model.pitch.profile
    rb, hb = p.base_radius_mm, p.base_height_mm
    r_px = rb * model.px_per_mm(rough)
    cam = model.lens
    # Shadows count as outline here: a base may be the cloth's colour, darker (a green team).
    edges, valid, _ = radial_edges(
        image,
        model.background,
        rough,
        r_px,
        rays=config.rays,
        reach=2.0,
        min_level=model.threshold,
    )
    k, m = valid.shape
    # Edges onto the cloth and onto the rim's plane, and the rough centres, in one crossing.
    low, high = cam.back_project_planes(np.concatenate([edges.reshape(-1, 2), rough]), (0.0, hb))
    c0 = low[k * m :]
    low, high = low[: k * m].reshape(k, m, 2), high[: k * m].reshape(k, m, 2)
    e, _, _, _ = _radial_frame(model, c0, 0.0)
    inner = ((low - c0[:, None, :]) * e[:, None, :]).sum(axis=2) < 0
    pts = np.where(inner[..., None], low, high)
    centre, ok, _ = fit_circles(pts, valid, np.full(k, rb), trims=(4.0, 1.5, 1.0))
    # The rim and the base's middle (where the next pass's rays start) in the image.
    rim_mid = cam.project(
        np.concatenate(
            [np.concatenate([centre, centre]), np.repeat([[hb], [0.5 * hb]], k, axis=0)], 1
        )
    )
    return rim_mid[:k], r_px, centre, ok, rim_mid[k:]


def near_rim_px(model: SceneModel, xy_mm: NDArray, points: int = RIM_POINTS) -> NDArray[np.float64]:
    """Points ``(n, points, 2)`` px on the top of each base, inside its rim, on the side that
    faces the nadir (within 60 degrees of it).

    A figure leans away from the nadir in the image (parallax), so its body, whose colours
    may be anything (a goalkeeper's shirt of the other team's colour), never covers that side:
    what shows there is the base's own colour.
    """
    p = model.pitch.profile
    xy = np.asarray(xy_mm, np.float64).reshape(-1, 2)
    e, across, _, _ = _radial_frame(model, xy, p.base_height_mm)
    ang = np.linspace(-np.pi / 3, np.pi / 3, points)
    u = (
        -e[:, None, :] * np.cos(ang)[None, :, None]
        + across[:, None, :] * np.sin(ang)[None, :, None]
    )
    pts = (xy[:, None, :] + 0.8 * p.base_radius_mm * u).reshape(-1, 2)
    top = np.concatenate([pts, np.full((len(pts), 1), p.base_height_mm)], 1)
    return model.lens.project(top).reshape(len(xy), points, 2)
