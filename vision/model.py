"""What detection learns about one table before it starts: background, noise, colours, sizes.

``learn_model(frames_bgr, camera, pitch, config) -> SceneModel`` looks at the first frame(s):

- **Background.** The cloth with its light fall-off is a large median filter of the frame
  (objects are small, lines thin); the lines are painted into it from the pitch model through
  the camera model, with their colour read off the frame. Where the frame matches that
  synthesis (no object) the frame itself is kept, so the background holds the real texture of
  the lines and nets; under the objects standing there it holds the synthesis. The goals
  (posts, crossbar, nets: their box, from the pitch's goals through the camera) are never
  synthesised: nothing in the model paints them, and a goal's frame or net taken for an object
  would stay foreground for ever.
- **Noise.** Robust spread of the frame against the background on the cloth; the foreground
  threshold is a multiple of it (``VisionConfig.foreground_sigmas``).
- **Colours.** Foreground blobs of about a base's size are figures: their rim colours fall in
  two clusters (``cv2.kmeans``), the two teams; the team whose bases stand mostly in the left
  half is home (DESIGN.md section 3). The ball is the round, even blob of a ball's size
  (on the centre spot at kick-off), in a colour that no kit's many figures share. Any of
  these can be overridden in ``VisionConfig``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from rules.pitch import Pitch
from vision.config import VisionConfig
from vision.geometry import FastCamera

EDGE_SLACK_PX = 0.4  # how far a line's seen edge may be from its measured one
KEEPER_REACH_MM = 15.0  # a goalkeeper may stand on its goal line, in front of the net


class LearningError(ValueError):
    """The first frames do not show what detection needs to learn (teams, ball)."""


@dataclass(frozen=True, slots=True)
class SceneModel:
    """Everything detection knows about the table, fixed after learning.

    Attributes:
        camera: the calibrated camera.
        pitch: the table's pitch model (ball and base sizes, lines).
        background: (h, w, 3) uint8 BGR, the table without ball and figures.
        roi: (h, w) bool, pixels whose ground point lies on the cloth.
        noise_sigma: sensor noise per channel, grey levels.
        threshold: foreground colour distance, grey levels.
        ball_bgr: (3,) float32 learnt ball colour.
        team_bgr: (2, 3) float32 base colour of home (row 0) and away (row 1).
        scale_grid: (gh, gw) float32 pixels per mm on the cloth, sampled every ``grid_step``.
        grid_step: pixel spacing of ``scale_grid``.
        ball_px: (2,) where the ball was in the learning frame (a first hint), or None.
        lens: the camera's mapping for the hot loop (``vision/geometry.py``), derived.
    """

    camera: CameraModel
    pitch: Pitch
    background: NDArray[np.uint8]
    roi: NDArray[np.bool_]
    noise_sigma: float
    threshold: float
    ball_bgr: NDArray[np.float32]
    team_bgr: NDArray[np.float32]
    scale_grid: NDArray[np.float32]
    grid_step: int
    ball_px: NDArray[np.float64] | None = None
    lens: FastCamera = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "lens", FastCamera(self.camera))

    @property
    def size_px(self) -> tuple[int, int]:
        return self.camera.size_px

    def px_per_mm(self, xy_px: NDArray) -> NDArray[np.float64]:
        """Local scale ``(n,)`` on the cloth at pixels ``(n, 2)``, nearest grid sample."""
        return _lookup(self.scale_grid, self.grid_step, xy_px)


def _lookup(grid: NDArray, step: int, xy_px: NDArray) -> NDArray[np.float64]:
    ij = np.rint(np.asarray(xy_px, np.float64).reshape(-1, 2) / step).astype(np.intp)
    gh, gw = grid.shape
    # (np.minimum / np.maximum: np.clip costs several times more on a few points)
    i = np.minimum(np.maximum(ij[:, 1], 0), gh - 1)
    j = np.minimum(np.maximum(ij[:, 0], 0), gw - 1)
    return grid[i, j].astype(np.float64)


def learn_model(
    frames_bgr: list[NDArray[np.uint8]],
    camera: CameraModel,
    pitch: Pitch,
    config: VisionConfig | None = None,
) -> SceneModel:
    """Learn background, noise and colours from the first frame(s); see the module docstring.

    Raises:
        LearningError: a frame has the wrong size, or no figures / no ball could be found and
            no colour override was given.
    """
    config = config or VisionConfig()
    if not frames_bgr:
        raise LearningError("no frames to learn the table from")
    image = frames_bgr[0]
    w, h = camera.size_px
    if image.shape != (h, w, 3):
        raise LearningError(
            f"frame is {image.shape[1]}x{image.shape[0]} but the calibration is for {w}x{h}; "
            "calibrate again for this camera mode"
        )
    roi = _cloth_roi(camera, pitch)
    grid_step = 16
    scale = _scale_grid(camera, grid_step, roi)
    r_px = pitch.profile.ball_radius_mm * float(np.median(scale))  # a typical ball radius
    cloth = _smooth_cloth(image, r_px)
    diff = image.astype(np.float32) - cloth
    noise = _robust_sigma(diff[roi])
    thr = max(config.min_contrast, config.foreground_sigmas * noise)
    # Objects stand on the pitch at start; the cloth's edge and corners are not objects.
    pitch_area = _cloth_roi(camera, pitch, inset_mm=pitch.profile.cloth_margin_mm - 40.0)
    pitch_area &= ~_goals_mask(camera, pitch)
    background, objects = _background(image, cloth, pitch_area, camera, pitch, thr, r_px)
    blobs = _blobs(image, objects, r_px)
    px_mm = _lookup(scale, grid_step, blobs.centre_px)
    p = pitch.profile
    ground = camera.back_project(blobs.centre_px, p.ball_radius_mm)
    on_spot = np.hypot(ground[:, 0], ground[:, 1]) < p.ball_radius_mm
    ball, figures = _split_blobs(blobs, p.ball_radius_mm * px_mm, p.base_radius_mm * px_mm, on_spot)
    team = _teams(blobs, figures, camera, pitch, config)
    ball_bgr = _ball_colour(image, blobs, ball, config)
    ball_px = None if ball is None else blobs.centre_px[ball].astype(np.float64)
    return SceneModel(
        camera, pitch, background, roi, noise, thr, ball_bgr, team, scale, grid_step, ball_px
    )


# ---------------------------------------------------------------------- geometry helpers
def _cloth_roi(camera: CameraModel, pitch: Pitch, inset_mm: float = 5.0) -> NDArray[np.bool_]:
    """Pixels whose ground point lies on the cloth (lines, margin and goals included)."""
    hx, hy = pitch.cloth_half_extent_mm
    hx, hy = hx - inset_mm, hy - inset_mm  # clear of the cloth's edge
    t = np.linspace(-1.0, 1.0, 64)
    edge = np.concatenate(
        [
            np.stack([hx * t, np.full_like(t, -hy)], 1),
            np.stack([np.full_like(t, hx), hy * t], 1),
            np.stack([-hx * t, np.full_like(t, hy)], 1),
            np.stack([np.full_like(t, -hx), -hy * t], 1),
        ]
    )
    px = camera.project(edge)
    w, h = camera.size_px
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, pts=[np.rint(px).astype(np.int32)], color=1)
    return mask.astype(bool)


def _goals_mask(camera: CameraModel, pitch: Pitch, margin_mm: float = 5.0) -> NDArray[np.bool_]:
    """Pixels showing either goal: the image of its box from the goal line (posts stand on
    it) to the back of the net, across the posts, from the cloth to the crossbar's top."""
    p = pitch.profile
    w, h = camera.size_px
    mask = np.zeros((h, w), np.uint8)
    for g in pitch.goals:
        sx = 1.0 if g.x_back_mm > g.x_line_mm else -1.0
        x0 = g.x_line_mm - sx * (p.line_width_mm + margin_mm)
        x1 = g.x_back_mm + sx * margin_mm
        y0 = g.y_min_mm - p.goal_post_width_mm - margin_mm
        y1 = g.y_max_mm + p.goal_post_width_mm + margin_mm
        z1 = p.goal_height_mm + p.goal_post_width_mm + margin_mm
        corners = np.array([[x, y, z] for x in (x0, x1) for y in (y0, y1) for z in (0.0, z1)])
        px = camera.project(corners).astype(np.float32)
        hull = cv2.convexHull(px).reshape(-1, 2)
        cv2.fillConvexPoly(mask, points=np.rint(hull).astype(np.int32), color=1)
    return mask.astype(bool)


def _scale_grid(camera: CameraModel, step: int, roi: NDArray[np.bool_]) -> NDArray[np.float32]:
    """Pixels per mm every ``step`` px, held to the range seen over the cloth ``roi``.

    A strong barrel lens folds back beyond the image circle it was fitted on: the corners'
    back-projections there are meaningless, their scales can be thousands of px per mm, and
    some land behind the camera (no scale at all).
    """
    w, h = camera.size_px
    gx, gy = np.meshgrid(np.arange(0, w + step, step), np.arange(0, h + step, step))
    px = np.stack([gx.ravel(), gy.ravel()], 1).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        xy = camera.back_project(px, 0.0)
        depth = (np.c_[xy, np.zeros(len(xy))] @ camera.rotation.T + camera.tvec_mm)[:, 2]
    ahead = np.isfinite(xy).all(axis=1) & (depth > 0.25 * camera.centre_mm[2])
    scale = np.full(len(px), np.nan)
    scale[ahead] = 1.0 / camera.mm_per_px(xy[ahead])
    scale = scale.reshape(gx.shape)
    on_cloth = roi[np.minimum(gy, h - 1), np.minimum(gx, w - 1)] & np.isfinite(scale)
    if on_cloth.any():
        scale = np.clip(np.nan_to_num(scale), scale[on_cloth].min(), scale[on_cloth].max())
    return scale.astype(np.float32)


def _smooth_cloth(image: NDArray[np.uint8], ball_px: float) -> NDArray[np.float32]:
    """The cloth without objects or lines: a median over ~3 base diameters, at 1/4 size."""
    small = np.ascontiguousarray(image[::4, ::4])
    k = int(max(5, round(7 * ball_px / 4))) | 1
    med = cv2.medianBlur(small, ksize=min(k, 255))
    h, w = image.shape[:2]
    return cv2.resize(med, dsize=(w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)


def _robust_sigma(values: NDArray[np.float32]) -> float:
    med = np.median(values, axis=0)
    return float(1.4826 * np.median(np.abs(values - med)))


def _background(image, cloth, roi, camera, pitch, thr, ball_px):
    """Background image and the mask of objects in ``image`` (see the module docstring)."""
    dist = np.sqrt(((image.astype(np.float32) - cloth) ** 2).sum(axis=2))
    ys, xs = np.nonzero((dist > thr) & roi)
    px = np.stack([xs, ys], 1).astype(np.float64)
    ground = camera.back_project(px, 0.0)
    mm_px = camera.mm_per_px(ground)
    paint_mm = pitch.paint_distance_mm(ground)
    coverage = np.clip(0.5 - paint_mm / mm_px, 0.0, 1.0)
    on_line = coverage > 0.95
    line_bgr = (
        np.median(image[ys[on_line], xs[on_line]], axis=0)
        if on_line.sum() > 20
        else np.full(3, 235.0)
    )
    synth_at = cloth[ys, xs] * (1 - coverage[:, None]) + line_bgr * coverage[:, None]
    resid = np.sqrt(((image[ys, xs] - synth_at) ** 2).sum(axis=1))
    # The paint's blur and a measured edge a fraction of a pixel off change how much of a
    # line an edge pixel shows: a mix of cloth and paint within EDGE_SLACK_PX of the
    # predicted one is the line, not an object (a ball of the paint's colour beside the line
    # is still far more paint than that).
    near = np.abs(paint_mm) < (0.5 + EDGE_SLACK_PX) * mm_px
    if near.any():
        c, pix = cloth[ys[near], xs[near]], image[ys[near], xs[near]]
        span = line_bgr[None, :] - c
        share = ((pix - c) * span).sum(1) / np.maximum((span * span).sum(1), 1.0)
        slack = EDGE_SLACK_PX * mm_px[near]
        lo = np.clip(0.5 - (paint_mm[near] + slack) / mm_px[near], 0.0, 1.0)
        hi = np.clip(0.5 - (paint_mm[near] - slack) / mm_px[near], 0.0, 1.0)
        mix = c + np.clip(share, lo, hi)[:, None] * span
        resid[near] = np.minimum(resid[near], np.sqrt(((pix - mix) ** 2).sum(axis=1)))
    h, w = image.shape[:2]
    objects = np.zeros((h, w), np.uint8)
    objects[ys, xs] = resid > thr
    # Line edges a fraction of a pixel off leave slivers; objects are blobs.
    k = max(3, int(ball_px * 0.8) | 1)
    unopened = objects
    objects = cv2.morphologyEx(
        objects, op=cv2.MORPH_OPEN, kernel=cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    )
    # Only ball- and figure-sized blobs are objects; nets, posts and the cloth's edge stay.
    _, labels, stats, _ = cv2.connectedComponentsWithStats(objects, connectivity=8)
    area = stats[:, cv2.CC_STAT_AREA] / (np.pi * ball_px**2)
    area[0] = 0.0
    spot = _spot_disc((h, w), camera, pitch, ball_px)
    on_spot = np.isin(np.arange(len(area)), labels[spot > 0]) & (area > 0.2)
    objects = ((area > 0.4) & (area < 8.0))[labels].astype(np.uint8)
    # The ball on the centre spot at kick-off (FISTF 4.2): one of the paint's colour shows
    # only in pieces beside the paint under it (on a pale cloth all of them may be thinner
    # than the opening keeps), and all that differs from the cloth there is ball.
    pieces = np.count_nonzero(unopened & spot)
    if on_spot.any() or pieces > 0.5 * np.pi * ball_px**2:
        differs = np.zeros((h, w), np.uint8)
        differs[ys, xs] = 1
        objects |= differs & spot
    grown = cv2.dilate(objects, kernel=np.ones((7, 7), np.uint8)).astype(bool)
    synth = cloth.copy()
    synth[ys, xs] = synth_at
    background = np.where(grown[..., None], np.clip(synth, 0, 255), image).astype(np.uint8)
    return background, objects


def _spot_disc(shape, camera: CameraModel, pitch: Pitch, ball_px: float) -> NDArray[np.uint8]:
    """Mask of a ball on the centre spot, with a fifth of a radius to spare."""
    disc = np.zeros(shape, np.uint8)
    centre = camera.project(np.array([[0.0, 0.0, pitch.profile.ball_radius_mm]]))[0]
    cv2.circle(disc, np.round(centre).astype(int).tolist(), int(np.ceil(1.2 * ball_px)), 1, -1)
    return disc


@dataclass(frozen=True, slots=True)
class _Blobs:
    area: NDArray  # (n,)
    centre_px: NDArray  # (n, 2)
    ring_bgr: NDArray  # (n, 3) median colour of the outer ring
    roundness: NDArray  # (n,) area / area of the enclosing square's circle
    uniformity: NDArray  # (n,) share of pixels near the blob's mean colour (under shading)
    labels: NDArray  # (h, w) int32


def _blobs(image: NDArray[np.uint8], objects: NDArray[np.uint8], ball_px: float) -> _Blobs:
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(objects, connectivity=8)
    area = stats[1:, cv2.CC_STAT_AREA].astype(np.float64)
    side = np.maximum(stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT])
    roundness = area / (np.pi * (side / 2.0) ** 2)
    # The rim: inside the anti-aliased edge, outside the body standing on the base.
    k = max(7, int(0.9 * ball_px) | 1)
    outer = cv2.erode(objects, kernel=np.ones((3, 3), np.uint8))
    inner = cv2.erode(objects, kernel=cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    ring = (outer > 0) & (inner == 0)
    lab = labels[ring] - 1
    colours = image[ring].astype(np.float64)
    ring_bgr = np.zeros((n - 1, 3))
    for c in range(3):  # per channel: median is not vectorisable by label, the mean is
        ring_bgr[:, c] = np.bincount(lab, colours[:, c], minlength=n - 1)
    ring_bgr /= np.maximum(np.bincount(lab, minlength=n - 1), 1)[:, None]
    return _Blobs(area, centroids[1:], ring_bgr, roundness, _uniformity(image, labels, n), labels)


def _uniformity(image: NDArray[np.uint8], labels: NDArray, n: int) -> NDArray[np.float64]:
    """Share of each blob's pixels within a shaded match of the blob's mean colour.

    A ball is one colour under its shading; a figure shows a base, a shirt and dark hair.
    """
    ys, xs = np.nonzero(labels)
    lab = labels[ys, xs] - 1
    pix = image[ys, xs].astype(np.float32)
    count = np.maximum(np.bincount(lab, minlength=n - 1), 1)
    mean = np.stack([np.bincount(lab, pix[:, c], minlength=n - 1) for c in range(3)], 1)
    mean = (mean / count[:, None]).astype(np.float32)
    ref = mean[lab]
    a = np.clip((pix * ref).sum(1) / np.maximum((ref * ref).sum(1), 1.0), 0.3, 1.6)
    near = _same_colour(np.linalg.norm(pix - a[:, None] * ref, axis=1), ref)
    return np.bincount(lab, near.astype(np.float64), minlength=n - 1) / count


def _same_colour(distance: NDArray, ref_bgr: NDArray) -> NDArray[np.bool_]:
    """Whether colours ``distance`` away from ``ref_bgr (..., 3)`` are that colour."""
    return distance < 0.2 * np.linalg.norm(ref_bgr, axis=-1) + 10.0


def _split_blobs(
    blobs: _Blobs, r_ball_px: NDArray, r_base_px: NDArray, on_spot: NDArray[np.bool_]
) -> tuple[int | None, NDArray[np.bool_]]:
    """Index of the ball blob (or None) and the mask of figure blobs.

    Blobs are told apart by their equivalent radius against the local scale: a ball shows
    about its radius, a figure at least its base radius (more with its wall and body). The
    foreground threshold and the edge blur add about the same to every blob; figures are the
    majority, so the median excess over the base radius measures it.
    """
    r_eq = np.sqrt(blobs.area / np.pi)
    excess = float(np.clip(np.median(r_eq - r_base_px), 0.0, 0.3 * np.median(r_base_px)))
    # Size alone is unreliable when the ball is only a few pixels across: its colour is
    # also uniform (no hair, no shirt), so that counts as much as the size.
    # A match starts with the ball on the centre spot (FISTF 4.2): there it may read up to a
    # base's size (its shadow darkens the halfway line under it, and that reads as ball).
    cut = np.where(on_spot, r_base_px, 0.5 * (r_ball_px + r_base_px)) + excess + 0.1
    ball_like = (r_eq > 0.7 * r_ball_px) & (r_eq < cut) & (blobs.roundness > 0.5)
    ball = None
    if ball_like.any():
        size = np.clip(
            1.0 - np.abs(r_eq - r_ball_px - excess) / (r_base_px - r_ball_px + 0.5), 0, 1
        )
        # The spot outweighs size: a ball of the lines' colour there loses its pixels over the
        # halfway line and spot and reads small, while a figure in a plain kit is as round and
        # even as a ball (and on a cloth near its colour reads as small). What the spot does
        # not show, colour does: there is one ball, and a team's kit is on many figures.
        kit = _look_alikes(blobs.ring_bgr) >= 3
        fit = size + 2.0 * blobs.uniformity + 0.5 * blobs.roundness + 2.0 * on_spot - kit
        ball = int(np.argmax(np.where(ball_like, fit, -9.0)))
        if blobs.uniformity[ball] < 0.93 and not on_spot[ball]:
            ball = None  # the best looks like a figure: the ball is not on the table yet
    figures = (r_eq > 0.7 * r_ball_px) & (r_eq < 3.0 * r_base_px)
    if ball is not None:
        figures[ball] = False
    return ball, figures


def _look_alikes(bgr: NDArray) -> NDArray[np.int64]:
    """How many other colours of ``bgr (n, 3)`` each is the same colour as."""
    near = _same_colour(np.linalg.norm(bgr[:, None] - bgr[None], axis=2), bgr[:, None])
    return near.sum(axis=1) - 1


def _teams(
    blobs: _Blobs,
    figures: NDArray[np.bool_],
    camera: CameraModel,
    pitch: Pitch,
    config: VisionConfig,
) -> NDArray[np.float32]:
    """Base colours ``(2, 3)`` of home and away: the two clusters of the figures' rim colours.

    Goalkeepers are left out: a rod keeper has no base, and its shirt may be any colour (white,
    orange, the cloth's); two of them would pull a cluster their way, or take one for
    themselves when the two teams' colours are near each other. Field figures may not stand
    in a goal area (FISTF 2.1), so a figure there is a keeper.
    """
    if config.home_bgr is not None and config.away_bgr is not None:
        return np.array([config.home_bgr, config.away_bgr], np.float32)
    if figures.sum() < 2:
        raise LearningError(
            "could not find figure bases in the first frame to learn the team colours; "
            "set home_bgr and away_bgr in the vision config"
        )
    ground = camera.back_project(blobs.centre_px, 0.0)
    keeper = np.zeros(len(ground), bool)
    for end in ("left", "right"):
        keeper |= pitch.zone_margin_mm(f"goal_area_{end}", ground) > -KEEPER_REACH_MM
    if (figures & ~keeper).sum() >= 2:
        figures = figures & ~keeper
    data = blobs.ring_bgr[figures].astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 50, 0.1)
    _, labels, centres = cv2.kmeans(
        data, K=2, bestLabels=None, criteria=criteria, attempts=5, flags=cv2.KMEANS_PP_CENTERS
    )
    x_mm = ground[figures, 0]
    labels = labels.ravel()
    left = [np.mean(x_mm[labels == k] < 0) if np.any(labels == k) else 0.0 for k in (0, 1)]
    order = [0, 1] if left[0] >= left[1] else [1, 0]
    return centres[order].astype(np.float32)


def _ball_colour(
    image: NDArray[np.uint8], blobs: _Blobs, ball: int | None, config: VisionConfig
) -> NDArray[np.float32]:
    if config.ball_bgr is not None:
        return np.asarray(config.ball_bgr, np.float32)
    if ball is None:
        raise LearningError(
            "could not find the ball in the first frame to learn its colour; "
            "start with the ball in view or set ball_bgr in the vision config"
        )
    colours = image[blobs.labels == ball + 1].astype(np.float32)
    # The lit top of the ball: its colour at full light, the reference for shading.
    lum = colours.sum(axis=1)
    return np.median(colours[lum >= np.percentile(lum, 70)], axis=0).astype(np.float32)
