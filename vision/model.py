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
  The detector keeps it true to the table after learning (``vision/renewal.py``): a coarse
  first frame that later frames sharpen, a lamp switched on.
- **Noise.** Robust spread of the frame against the smoothed cloth; the foreground threshold
  is a multiple of it (``VisionConfig.foreground_sigmas``). A cloth's print or weave counts
  in it: the background keeps that texture where the frame is kept, but not where it is
  synthesised under the objects of the first frame, and those places must not turn into
  objects once the objects leave. The price: on a strongly textured cloth in dim light a dull
  ball or kit close to the cloth's colour stays below the threshold. The detector keeps the
  threshold true to later frames (``vision/noise.py``): an encoder's smooth first frames.
- **Colours.** Foreground blobs of about a base's size are figures, unless they are pieces of
  the cloth itself (``_cloth_like``: a shadow standing apart from what casts it, a pool of
  light, a coarse codec block); their rim colours, read where the rim is lit (a low light's
  shadow joins a figure's blob and is the cloth's colour, darker), split the tightest way in
  two (``_two_means``): the two teams. The team whose bases stand mostly in the left half is
  home (DESIGN.md section 3), in a tie the one standing farther toward it.
- **Ball colours.** A clip may start anywhere (DESIGN.md section 4): the ball may be anywhere,
  hidden, or beside a goalkeeper in a plain kit as round and even as itself. Learning does not
  pick the ball; it lists colour *hypotheses*, best first: each round blob of a ball's size
  that is one colour inside its blurred outline and whose colour no kit's many figures share
  (a shadow standing apart is the cloth darkened: none), then the usual ball colours
  (``vision/colour.py``) no such blob showed, or all of them when each is a kit's. Motion
  settles which is the ball (``tracking/hypotheses.py``). A ball none of them explains (a
  ball of a kit's colour, smeared by its roll in the first frame) is learnt later from its roll
  (``moving_ball_colour``). A colour named by the user (``VisionConfig.ball_bgr``) is the
  only hypothesis.
Teams can be overridden in ``VisionConfig``; without figures in view learning fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from rules.keepers import KEEPER_REACH_MM
from rules.pitch import Pitch
from vision.colour import USUAL_BALLS_BGR, ball_coloured, darkened, shaded_distance
from vision.config import VisionConfig
from vision.geometry import FastCamera
from vision.hiders import fill_box, hiders_mask
from vision.noise import robust_sigma

EDGE_SLACK_PX = 0.4  # how far a line's seen edge may be from its measured one
MAX_BALL_BLOBS = 4  # learnt ball hypotheses kept (a ball, a goalkeeper or two, a stray)
# The pixels each side of an outline that blend an object with the cloth whatever its size: a
# codec's colour at half resolution and the lens's blur (at 960x720 a ball's radius is some
# 6 px, and a pixel in leaves a third of a plain ball's inside blended).
CLEAR_PX = 2
BALL_UNIFORMITY = 0.85  # least share of a ball blob's inside in one colour under shading
LIT_RING_SHARE = 0.25  # least lit share of a blob's ring for its colour to be read there
# A blob this much of the cloth's colour at a brightness in CLOTH_SHADES, and within
# CLOTH_NEAR foreground thresholds of it, is the cloth itself (``_cloth_like``).
CLOTH_SHARE = 0.75
CLOTH_SHADES = (0.3, 1.25)
CLOTH_NEAR = 2.0


class LearningError(ValueError):
    """The first frames do not show what detection needs to learn (the teams)."""


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
        ball_bgr: (3,) float32 the most likely ball colour (``ball_colours_bgr[0]``).
        team_bgr: (2, 3) float32 base colour of home (row 0) and away (row 1).
        scale_grid: (gh, gw) float32 pixels per mm on the cloth, sampled every ``grid_step``.
        grid_step: pixel spacing of ``scale_grid``.
        ball_px: (2,) the blob of ``ball_bgr`` in the learning frame, or None.
        ball_colours_bgr: (k, 3) float32 colour hypotheses of the ball, best first (k >= 1).
        ball_named: the ball's colour was named by the user (its hypotheses, settled).
        hiders: (h, w) bool, pixels where a goal's bar may hide a ball (``vision/hiders.py``),
            or None (nothing hides it).
        line_bgr: (3,) float32 the paint's colour.
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
    ball_colours_bgr: NDArray[np.float32] | None = None
    ball_named: bool = False
    hiders: NDArray[np.bool_] | None = None
    line_bgr: NDArray[np.float32] = field(default_factory=lambda: np.full(3, 235.0, np.float32))
    lens: FastCamera = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "lens", FastCamera(self.camera))
        if self.ball_colours_bgr is None:
            object.__setattr__(self, "ball_colours_bgr", self.ball_bgr.reshape(1, 3))

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
        LearningError: a frame has the wrong size, or no figures could be found and no team
            colours were given. A ball need not be in view.
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
    cloth = smooth_cloth(image, r_px)
    diff = image.astype(np.float32) - cloth
    noise = robust_sigma(diff[roi])
    thr = max(config.min_contrast, config.foreground_sigmas * noise)
    # Objects stand on the pitch at start; the cloth's edge and corners are not objects.
    in_play = pitch_area(camera, pitch) & ~goals_mask(camera, pitch)
    background, objects, line_bgr = _background(image, cloth, in_play, camera, pitch, thr, r_px)
    blobs = _blobs(image, objects, r_px, cloth, thr)
    px_mm = _lookup(scale, grid_step, blobs.centre_px)
    p = pitch.profile
    ground = camera.back_project(blobs.centre_px, p.ball_radius_mm)
    on_spot = np.hypot(ground[:, 0], ground[:, 1]) < p.ball_radius_mm
    balls, figures = _split_blobs(
        blobs, p.ball_radius_mm * px_mm, p.base_radius_mm * px_mm, on_spot
    )
    if (figures & ~blobs.cloth_like).sum() >= 2:  # else the teams' error says what is wrong
        figures = figures & ~blobs.cloth_like
    team = _teams(blobs, figures, camera, pitch, config)
    # A shadow standing apart from what casts it is the cloth darkened: no ball.
    centre = np.rint(blobs.centre_px[balls]).astype(np.intp).reshape(-1, 2)
    balls = balls[~darkened(blobs.top_bgr[balls], cloth[centre[:, 1], centre[:, 0]], thr)]
    colours, first = _ball_colours(image, blobs, balls, team, config)
    ball_px = None if first is None else blobs.centre_px[first].astype(np.float64)
    return SceneModel(
        camera,
        pitch,
        background,
        roi,
        noise,
        thr,
        colours[0],
        team,
        scale,
        grid_step,
        ball_px,
        colours,
        config.ball_bgr is not None and config.ball_named,
        hiders_mask(image, camera, pitch),
        line_bgr.astype(np.float32),
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


def pitch_area(camera: CameraModel, pitch: Pitch) -> NDArray[np.bool_]:
    """Pixels of the cloth up to 40 mm beyond the lines: where objects stand in play (the
    cloth's edge and corners beyond are none)."""
    return _cloth_roi(camera, pitch, inset_mm=pitch.profile.cloth_margin_mm - 40.0)


def goals_mask(camera: CameraModel, pitch: Pitch, margin_mm: float = 5.0) -> NDArray[np.bool_]:
    """Pixels showing either goal: the image of its box from the goal line (posts stand on
    it) to the back of the net, across the posts, from the cloth to the crossbar's top."""
    p = pitch.profile
    w, h = camera.size_px
    mask = np.zeros((h, w), np.uint8)
    for g in pitch.goals:
        sx = g.outward
        x0 = g.x_line_mm - sx * (p.line_width_mm + margin_mm)
        x1 = g.x_back_mm + sx * margin_mm
        y0 = g.y_min_mm - p.goal_post_width_mm - margin_mm
        y1 = g.y_max_mm + p.goal_post_width_mm + margin_mm
        z1 = p.goal_height_mm + p.goal_post_width_mm + margin_mm
        fill_box(mask, camera, (x0, x1), (y0, y1), (0.0, z1))
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


def smooth_cloth(image: NDArray[np.uint8], ball_px: float) -> NDArray[np.float32]:
    """The cloth without objects or lines: a median over ~3 base diameters."""
    h, w = image.shape[:2]
    med = cloth_median(image, ball_px)
    return cv2.resize(med, dsize=(w, h), interpolation=cv2.INTER_LINEAR).astype(np.float32)


def cloth_median(image: NDArray[np.uint8], ball_px: float) -> NDArray[np.uint8]:
    """``smooth_cloth`` at 1/4 size (every 4th pixel, the median over the same ground)."""
    small = np.ascontiguousarray(image[::4, ::4])
    return cv2.medianBlur(small, ksize=cloth_median_size(ball_px))


def cloth_median_size(ball_px: float) -> int:
    """``cloth_median``'s filter size at 1/4 scale: ~3 base diameters."""
    return min(int(max(5, round(7 * ball_px / 4))) | 1, 255)


def cloth_residual(image, cloth_at, ys, xs, camera, pitch, line_bgr=None):
    """What the cloth and its painted lines explain at the pixels ``ys, xs (n,)`` of
    ``image``, where the smoothed cloth is ``cloth_at (n, 3)``: their ground points
    ``(n, 2)`` mm, the cloth with the paint there ``(n, 3)``, how far each pixel's colour is
    from it ``(n,)`` (an object is what they do not explain) and the paint's colour ``(3,)``,
    read off the pixels wholly on a line unless ``line_bgr`` is given."""
    px = np.stack([xs, ys], 1).astype(np.float64)
    ground = camera.back_project(px, 0.0)
    mm_px = camera.mm_per_px(ground)
    paint_mm = pitch.paint_distance_mm(ground)
    coverage = np.clip(0.5 - paint_mm / mm_px, 0.0, 1.0)
    if line_bgr is None:
        on_line = coverage > 0.95
        line_bgr = (
            np.median(image[ys[on_line], xs[on_line]], axis=0)
            if on_line.sum() > 20
            else np.full(3, 235.0)
        )
    synth_at = cloth_at * (1 - coverage[:, None]) + line_bgr * coverage[:, None]
    resid = np.sqrt(((image[ys, xs] - synth_at) ** 2).sum(axis=1))
    # The paint's blur and a measured edge a fraction of a pixel off change how much of a
    # line an edge pixel shows: a mix of cloth and paint within EDGE_SLACK_PX of the
    # predicted one is the line, not an object (a ball of the paint's colour beside the line
    # is still far more paint than that).
    near = np.abs(paint_mm) < (0.5 + EDGE_SLACK_PX) * mm_px
    if near.any():
        c, pix = cloth_at[near], image[ys[near], xs[near]]
        span = line_bgr[None, :] - c
        share = ((pix - c) * span).sum(1) / np.maximum((span * span).sum(1), 1.0)
        slack = EDGE_SLACK_PX * mm_px[near]
        lo = np.clip(0.5 - (paint_mm[near] + slack) / mm_px[near], 0.0, 1.0)
        hi = np.clip(0.5 - (paint_mm[near] - slack) / mm_px[near], 0.0, 1.0)
        mix = c + np.clip(share, lo, hi)[:, None] * span
        resid[near] = np.minimum(resid[near], np.sqrt(((pix - mix) ** 2).sum(axis=1)))
    return ground, synth_at, resid, line_bgr


def _background(image, cloth, roi, camera, pitch, thr, ball_px):
    """Background image, the mask of objects in ``image`` (see the module docstring) and the
    paint's colour ``(3,)``."""
    dist = np.sqrt(((image.astype(np.float32) - cloth) ** 2).sum(axis=2))
    ys, xs = np.nonzero((dist > thr) & roi)
    ground, synth_at, resid, line_bgr = cloth_residual(image, cloth[ys, xs], ys, xs, camera, pitch)
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
    # A rod keeper stands against its goal line, its head over the goal (never an object
    # here): what is left of it in front of the goal may be thinner than the opening keeps,
    # and the goal area holds nothing else (FISTF 2.1).
    zone = np.zeros(len(xs), bool)
    for end in ("left", "right"):
        zone |= pitch.zone_margin_mm(f"goal_area_{end}", ground) > -KEEPER_REACH_MM
    keeper = np.zeros((h, w), np.uint8)
    keeper[ys[zone], xs[zone]] = resid[zone] > thr
    keeper = cv2.morphologyEx(keeper, op=cv2.MORPH_OPEN, kernel=np.ones((3, 3), np.uint8))
    grown = cv2.dilate(objects | keeper, kernel=np.ones((7, 7), np.uint8)).astype(bool)
    synth = cloth.copy()
    synth[ys, xs] = synth_at
    background = np.where(grown[..., None], np.clip(synth, 0, 255), image).astype(np.uint8)
    return background, objects, line_bgr


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
    uniformity: NDArray  # (n,) share of inside pixels near their mean colour (under shading)
    labels: NDArray  # (h, w) int32
    top_bgr: NDArray | None = None  # (n, 3) median colour of the inside (None: not measured)
    clear_uniformity: NDArray | None = None  # (n,) the same clear of the outline's blend
    cloth_like: NDArray | None = None  # (n,) a piece of the cloth itself (None: none is)


def _blobs(
    image: NDArray[np.uint8],
    objects: NDArray[np.uint8],
    ball_px: float,
    cloth: NDArray[np.float32],
    threshold: float,
) -> _Blobs:
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(objects, connectivity=8)
    area = stats[1:, cv2.CC_STAT_AREA].astype(np.float64)
    side = np.maximum(stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT])
    roundness = area / (np.pi * (side / 2.0) ** 2)
    # The rim: inside the anti-aliased edge, outside the body standing on the base.
    k = max(7, int(0.9 * ball_px) | 1)
    outer = cv2.erode(objects, kernel=np.ones((3, 3), np.uint8))
    ring = (outer > 0) & ~_eroded(objects, k)
    # A figure's shadow joins its blob under a low light; its colour is the cloth's, darker.
    # The ring is read where it is lit, unless hardly any of it is (a kit of a darker shade
    # of the cloth's colour is all "shadow").
    ys, xs = np.nonzero(ring)
    lit = ~darkened(image[ys, xs], cloth[ys, xs], threshold)
    lab = labels[ys, xs] - 1
    count = np.maximum(np.bincount(lab, minlength=n - 1), 1)
    use = lit | (np.bincount(lab, lit, minlength=n - 1)[lab] < LIT_RING_SHARE * count[lab])
    ys, xs, lab = ys[use], xs[use], lab[use]
    colours = image[ys, xs].astype(np.float64)
    ring_bgr = np.zeros((n - 1, 3))
    for c in range(3):  # per channel: median is not vectorisable by label, the mean is
        ring_bgr[:, c] = np.bincount(lab, colours[:, c], minlength=n - 1)
    ring_bgr /= np.maximum(np.bincount(lab, minlength=n - 1), 1)[:, None]
    # The inside: a blob's outline blends it with the cloth over a pixel or two, which for a
    # small ball is a third of it, and a colour blended with green is no shade of it.
    k_in = max(3, int(0.5 * ball_px) | 1)
    inside_labels = np.where(_eroded(objects, k_in), labels, 0)
    uniform = _uniformity(image, inside_labels, n)
    top_bgr = _inside_colours(image, inside_labels, n)
    # The same, clear of the blend whatever the ball's size (``CLEAR_PX``).
    k_clear = max(2 * CLEAR_PX + 1, k_in)
    clear = _uniformity(image, np.where(_eroded(objects, k_clear), labels, 0), n)
    cloth_like = _cloth_like(
        image, labels, area, cloth, threshold, ring_bgr, top_bgr, centroids[1:]
    )
    return _Blobs(
        area, centroids[1:], ring_bgr, roundness, uniform, labels, top_bgr, clear, cloth_like
    )


def _cloth_like(
    image: NDArray[np.uint8],
    labels: NDArray,
    area: NDArray,
    cloth: NDArray[np.float32],
    threshold: float,
    ring_bgr: NDArray,
    top_bgr: NDArray,
    centre_px: NDArray,
) -> NDArray[np.bool_]:
    """Which blobs ``(n,)``, of ``area (n,)`` px, are pieces of the cloth itself: a shadow
    standing apart from what casts it, a pool of light, a coarse weave's patch, a codec's
    block. Such a blob is mostly the cloth under it at another brightness (``CLOTH_SHADES``,
    within the tolerance of ``darkened``) and its rim and inside lie within ``CLOTH_NEAR``
    foreground thresholds of the cloth's colour. A figure differs from the cloth more (a kit
    the cloth's colour darkened is a deep shade of it), or shows other colours (its shirt,
    face and hair)."""
    ys, xs = np.nonzero(labels)
    lab = labels[ys, xs] - 1
    same = darkened(image[ys, xs], cloth[ys, xs], threshold, CLOTH_SHADES)
    share = np.bincount(lab, same, minlength=len(area)) / np.maximum(area, 1.0)
    h, w = cloth.shape[:2]
    c = np.rint(centre_px).astype(np.intp)
    there = cloth[np.clip(c[:, 1], 0, h - 1), np.clip(c[:, 0], 0, w - 1)].astype(np.float64)
    apart = np.maximum(
        np.linalg.norm(ring_bgr - there, axis=1), np.linalg.norm(top_bgr - there, axis=1)
    )
    return (share >= CLOTH_SHARE) & (apart < CLOTH_NEAR * threshold)


def _eroded(mask: NDArray[np.uint8], k: int) -> NDArray[np.bool_]:
    """``mask`` eroded by a disc ``k`` px across."""
    return cv2.erode(mask, kernel=cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))) > 0


def _inside_colours(image: NDArray[np.uint8], labels: NDArray, n: int) -> NDArray[np.float64]:
    """Median colour ``(n - 1, 3)`` of each blob's inside (``labels`` 0 elsewhere): what is on
    top (a shirt, the ball), without the outline's blend with the cloth or a line's sliver."""
    ys, xs = np.nonzero(labels)
    lab = labels[ys, xs] - 1
    order = np.argsort(lab, kind="stable")
    pix = image[ys[order], xs[order]].astype(np.float64)
    bounds = np.searchsorted(lab[order], np.arange(n))
    out = np.zeros((n - 1, 3))
    for i in range(n - 1):  # learning only: a few dozen blobs, once
        if bounds[i + 1] > bounds[i]:
            out[i] = np.median(pix[bounds[i] : bounds[i + 1]], axis=0)
    return out


def _uniformity(image: NDArray[np.uint8], labels: NDArray, n: int) -> NDArray[np.float64]:
    """Share of each blob's pixels within a shaded match of the blob's mean colour (0 for a
    blob without pixels in ``labels``).

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
) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
    """Indices of the blobs that may be the ball (best first) and the mask of figure blobs.

    Blobs are told apart by their equivalent radius against the local scale: a ball shows
    about its radius, a figure at least its base radius (more with its wall and body). The
    foreground threshold and the edge blur add about the same to every blob; figures are the
    majority, so the median excess over the base radius measures it. Size alone is unreliable
    when the ball is only a few pixels across: a ball is also one colour inside its outline (no
    hair, no shirt), and its colour is on no kit's many figures. A goalkeeper in a plain kit
    passes both: it stays a hypothesis until motion tells (a ball rolls when struck).
    """
    r_eq = np.sqrt(blobs.area / np.pi)
    if len(r_eq) == 0:
        return np.zeros(0, np.intp), np.zeros(0, bool)
    excess = float(np.clip(np.median(r_eq - r_base_px), 0.0, 0.3 * np.median(r_base_px)))
    # A ball may read up to a base's size: it stands nearer the camera than a base's rim, its
    # contact shadow reads as ball, and on the centre spot its shadow darkens the paint under
    # it. Colour and motion tell it from a figure.
    cut = r_base_px + excess + 0.1
    ball_like = (r_eq > 0.7 * r_ball_px) & (r_eq < cut) & (blobs.roundness > 0.5)
    # A kit's figures share their rims' colour and their tops': a ring blends with the cloth,
    # and an orange ball's ring alone reads as a red team's.
    alike = _same_colours(blobs.ring_bgr)
    if blobs.top_bgr is not None:
        alike &= _same_colours(blobs.top_bgr)
    kit = alike.sum(axis=1) >= 3
    # ... unless it is clearly smaller than the kit's figures: a ball of a team's colour.
    kit_r = np.array([np.median(r_eq[a]) if a.any() else 0.0 for a in alike])
    kit &= r_eq >= kit_r - 0.5 * (r_base_px - r_ball_px)
    even = (blobs.uniformity >= BALL_UNIFORMITY) | on_spot
    if blobs.clear_uniformity is not None:
        # A small ball's blended outline reads as a second colour; clear of it, a blob like no
        # other (no kit's) that is one colour is a ball or a plain goalkeeper. Not a figure
        # like others: clear of its base's rim, a plain shirt is one colour too.
        even |= (blobs.clear_uniformity >= BALL_UNIFORMITY) & ~alike.any(axis=1)
    size = np.clip(1.0 - np.abs(r_eq - r_ball_px - excess) / (r_base_px - r_ball_px + 0.5), 0, 1)
    # The centre spot ranks first (a kick-off is common; on a pale cloth a ball there reads
    # small and in pieces), but it is only a rank: motion still decides.
    fit = size + 2.0 * blobs.uniformity + 0.5 * blobs.roundness + 2.0 * on_spot
    # A ball on the centre spot may show in pieces beside the paint: neither even nor, with
    # a kit of its colour, of a colour no kit shares; the spot vouches for it.
    cand = np.flatnonzero(ball_like & ((even & ~kit) | on_spot))
    balls = cand[np.argsort(-fit[cand], kind="stable")][:MAX_BALL_BLOBS]
    figures = (r_eq > 0.7 * r_ball_px) & (r_eq < 3.0 * r_base_px)
    # Only a hypothesis that reads ball-sized (or lies on the centre spot) leaves the figures:
    # one of a base's size may be a figure in a plain kit, and the team colours need every
    # figure (two red bases of six taken for balls left both clusters blue).
    small = r_eq[balls] < 0.5 * (r_ball_px + r_base_px)[balls] + excess + 0.1
    figures[balls[small | on_spot[balls]]] = False
    return balls, figures


def _same_colours(bgr: NDArray) -> NDArray[np.bool_]:
    """Which other colours ``(n, n)`` of ``bgr (n, 3)`` each is the same colour as."""
    near = _same_colour(np.linalg.norm(bgr[:, None] - bgr[None], axis=2), bgr[:, None])
    np.fill_diagonal(near, False)
    return near


def _look_alikes(bgr: NDArray) -> NDArray[np.int64]:
    """How many other colours of ``bgr (n, 3)`` each is the same colour as."""
    return _same_colours(bgr).sum(axis=1)


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
    labels, centres = _two_means(blobs.ring_bgr[figures])
    x_mm = ground[figures, 0]
    # Mostly in the home half; in a tie (a clip picked up in play), the farther toward it.
    home_ward = [
        (np.mean(x_mm[labels == k] < 0), -np.mean(x_mm[labels == k]))
        if np.any(labels == k)
        else (0.0, -np.inf)
        for k in (0, 1)
    ]
    order = [0, 1] if home_ward[0] >= home_ward[1] else [1, 0]
    return centres[order].astype(np.float32)


def _two_means(colours: NDArray) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """The tightest split of ``colours (n, 3)`` in two (labels ``(n,)``, centres ``(2, 3)``).

    A few dozen figures at most: Lloyd's iterations from every pair of them as the two seeds,
    the split with the least squared spread kept. Randomly seeded k-means lands in a looser
    split now and then (for 3 of 300 states of OpenCV's random generator on a rendered frame
    under a low light), and the same frame must give the same teams every time.
    """
    c = np.asarray(colours, np.float64)
    n = len(c)

    def squared(centres):  # (pairs, 2, 3) -> (pairs, n, 2)
        return ((c[None, :, None, :] - centres[:, None, :, :]) ** 2).sum(-1)

    i, j = np.triu_indices(n, k=1)
    centres = np.stack([c[i], c[j]], axis=1)
    for _ in range(50):
        one = (np.argmin(squared(centres), axis=2) == 1)[..., None]
        count1 = one.sum(axis=1)  # (pairs, 1)
        count0 = n - count1
        sum1 = (one * c[None]).sum(axis=1)
        sum0 = c.sum(axis=0)[None] - sum1
        new = np.stack([sum0 / np.maximum(count0, 1), sum1 / np.maximum(count1, 1)], axis=1)
        # A seed left alone keeps its place (no empty cluster moves to the origin).
        new = np.where(np.stack([count0, count1], axis=1) > 0, new, centres)
        if np.allclose(new, centres):
            break
        centres = new
    d = squared(centres)
    spread = d.min(axis=2).sum(axis=1)
    best = int(np.argmin(spread))  # the first of equals: the same every time
    return np.argmin(d[best], axis=1), centres[best]


def _ball_colours(
    image: NDArray[np.uint8],
    blobs: _Blobs,
    balls: NDArray[np.intp],
    team_bgr: NDArray,
    config: VisionConfig,
) -> tuple[NDArray[np.float32], int | None]:
    """The ball's colour hypotheses ``(k, 3)``, best first, and the blob of the first (or None).

    Each candidate blob gives the colour of its lit top (its colour at full light, the
    reference for shading); one that the search for a better one finds adds nothing
    (``_searched``). The usual ball colours follow, those no candidate showed (the ball may be
    hidden in this frame), except one near a team's colour: searched for unseen, it would take
    that team's bases for balls (an orange ball beside a red team shows in its own blob, and is
    learnt from it). Colours given (named, or seen rolling by an earlier look at the same
    video: ``VisionConfig.ball_named``) are the only hypotheses.
    """
    if config.ball_bgr is not None:  # named, or seen rolling by an earlier look
        return np.asarray(config.ball_bgr, np.float32).reshape(-1, 3), None
    colours: list[NDArray] = []
    first = int(balls[0]) if len(balls) else None
    for i in balls:
        pix = image[blobs.labels == i + 1].astype(np.float32)
        lum = pix.sum(axis=1)
        c = np.median(pix[lum >= np.percentile(lum, 70)], axis=0)
        # A later candidate in a kit's colour is a figure the kit test missed (a keeper in
        # the other team's colour): searched for, it would take that team's bases for balls.
        if not colours or not (_searched(c, colours, config) or _near_team(c, team_bgr, config)):
            colours.append(c)
    for usual in USUAL_BALLS_BGR.values():
        u = np.asarray(usual, np.float32)
        if not (_searched(u, colours, config) or _near_team(u, team_bgr, config)):
            colours.append(u)
    if not colours:  # every usual colour is a kit's, and no blob showed another: all of them
        colours = [np.asarray(u, np.float32) for u in USUAL_BALLS_BGR.values()]
    return np.array(colours, np.float32), first


def _searched(bgr: NDArray, colours: list[NDArray], config: VisionConfig) -> bool:
    """A ball of colour ``bgr (3,)`` is found by the search for one of ``colours``: well
    inside the tolerance of the detector's pixel test (``vision/blobs.py``), not merely alike
    (the white shorts of a kit's figure read pale blue, alike to a white ball, yet the ball's
    shaded pixels fall outside that colour's search and the ball is never a candidate)."""
    if not colours:
        return False
    d = shaded_distance(bgr[None], np.array(colours, np.float32), config.shading_range)
    return bool(ball_coloured(d.min(), float(np.linalg.norm(bgr)), share=0.5))


MILD_SHADING = (0.8, 1.25)  # how much darker or brighter one colour may show in one light


def same_colour_as(bgr: NDArray, colours: list[NDArray]) -> bool:
    """``bgr (3,)`` is the same colour as one of ``colours`` under mild shading."""
    if not colours:
        return False
    known = np.array(colours, np.float32).reshape(-1, 3)
    return bool(_same_colour(shaded_distance(bgr[None], known, MILD_SHADING)[0], known).any())


def of_colour(pixels: NDArray, bgr: NDArray) -> NDArray[np.bool_]:
    """Which pixels ``(n, 3)`` are the colour ``bgr (3,)`` under mild shading."""
    ref = np.asarray(bgr, np.float32).reshape(1, 3)
    return _same_colour(shaded_distance(pixels, ref, MILD_SHADING)[:, 0], ref[0])


def _near_team(bgr: NDArray, team_bgr: NDArray, config: VisionConfig) -> bool:
    """A ball of colour ``bgr (3,)`` would be a twin of a team (``ColourBlobs``): searched
    for, that team's bases would be taken for balls."""
    d = shaded_distance(np.asarray(bgr, np.float32)[None], team_bgr, config.shading_range)[0]
    return bool((d < 0.25 * float(np.linalg.norm(bgr)) + 10.0).any())


# ---------------------------------------------------------------------- learning from motion
# Blobs of this many ball areas may be a rolling ball (a streak in a long exposure is longer).
MOVING_BALL_AREAS = (0.4, 2.5)
# Least share of a blob's pixels that were cloth in the earlier frame: it arrived there.
ARRIVED_SHARE = 0.3
# A ball, the figure that struck it and a hand arrive as a handful of blobs; dozens at once
# are the frame changing as a whole (a codec's refresh after blocky frames, the light).
MAX_ARRIVALS = 6


def moving_ball_colour(
    image: NDArray[np.uint8],
    before: NDArray[np.uint8],
    model: SceneModel,
    known_bgr: NDArray,
    step: int,
    config: VisionConfig,
) -> NDArray[np.float32] | None:
    """The colour ``(3,)`` of a ball seen rolling between two frames, when no hypothesis in
    ``known_bgr (k, 3)`` explains it (a search for it finds that colour, ``_searched`` with
    ``config``'s shading); else None.

    A ball is what gets struck and rolls (DESIGN.md section 4): when the colour learnt from
    the first frame is not the ball's (a red ball rolling beside a red team from the clip's
    first frame was taken for part of that kit), its colour is read from motion instead. The
    foreground of ``image`` against the learnt background (on every ``step``-th pixel) is
    split into blobs (shadows left out); a ball-sized blob that mostly arrived since
    ``before`` (an earlier frame, already taken on every ``step``-th pixel), one colour
    inside, is a rolling ball. Figures are larger, hands larger still; a still ball of an
    unknown colour says nothing (it may be a keeper).
    """
    bg = model.background[::step, ::step]
    roi = model.roi[::step, ::step]
    fg = _lit_objects(every_step(image, step), bg, model.threshold) & roi
    was = _lit_objects(before, bg, model.threshold) & roi
    n, labels, stats, centres = cv2.connectedComponentsWithStats(fg.astype(np.uint8), 8)
    if n <= 1:
        return None
    area_px = stats[1:, cv2.CC_STAT_AREA].astype(np.float64) * step * step
    centre_px = centres[1:] * step
    r_px = model.pitch.profile.ball_radius_mm * model.px_per_mm(centre_px)
    balls = area_px / (np.pi * r_px**2)
    arrived = np.bincount(labels[fg & ~was], minlength=n)[1:] / np.maximum(
        stats[1:, cv2.CC_STAT_AREA], 1
    )
    lo, hi = MOVING_BALL_AREAS
    cand = np.flatnonzero((balls > lo) & (balls < hi) & (arrived >= ARRIVED_SHARE))
    if len(cand) > MAX_ARRIVALS:  # the frame changed as a whole: no one blob rolled
        return None
    p = model.pitch.profile
    base_per_ball = p.base_radius_mm / p.ball_radius_mm
    known = list(np.asarray(known_bgr, np.float32).reshape(-1, 3))
    for i in cand[np.argsort(-arrived[cand])]:  # a handful at most
        # A figure flicked up to the ball arrives too, as round and as one-coloured in a
        # plain kit: as wide as its base across its way, wider than a ball, however smeared.
        if _half_width_px(labels, stats, i + 1, step) >= base_per_ball * r_px[i]:
            continue
        colour = _rolling_blob_colour(image, centre_px[i], float(r_px[i]), model)
        if colour is not None and not _searched(colour, known, config):
            return colour
    return None


def _half_width_px(labels: NDArray, stats: NDArray, label: int, step: int) -> float:
    """Half the width of blob ``label`` across its length, in full-resolution pixels, from
    its second moments (a disc of radius r gives r; a streak, its radius across).
    ``labels`` and ``stats`` are ``cv2.connectedComponentsWithStats``' of a frame taken on
    every ``step``-th pixel."""
    x, y, w, h = stats[label, :4]
    ys, xs = np.nonzero(labels[y : y + h, x : x + w] == label)
    if len(xs) < 3:
        return 0.0
    least = float(np.linalg.eigvalsh(np.cov(np.vstack([xs, ys]).astype(np.float64)))[0])
    return 2.0 * float(np.sqrt(max(least, 0.0))) * step


def every_step(image: NDArray[np.uint8], step: int) -> NDArray[np.uint8]:
    """``image[::step, ::step]`` as a contiguous copy. Where the step divides both sides,
    ``cv2.resize``'s nearest neighbour picks the same pixels several times faster than
    numpy's strided copy of a large frame."""
    h, w = image.shape[:2]
    if step > 1 and h % step == 0 and w % step == 0:
        f = 1.0 / step
        return cv2.resize(image, dsize=None, fx=f, fy=f, interpolation=cv2.INTER_NEAREST)
    return np.ascontiguousarray(image[::step, ::step])


def _rolling_blob_colour(image, centre_px, r_px: float, model: SceneModel):
    """The lit top's colour of the ball-sized blob around ``centre_px``, or None when its
    inside is not one colour (a figure's shirt and hair, a hand)."""
    h, w = image.shape[:2]
    half = int(np.ceil(2.0 * r_px)) + 1
    x0, y0 = max(int(centre_px[0]) - half, 0), max(int(centre_px[1]) - half, 0)
    x1, y1 = min(int(centre_px[0]) + half + 1, w), min(int(centre_px[1]) + half + 1, h)
    pix = image[y0:y1, x0:x1].astype(np.float32)
    lit = _lit_objects(image[y0:y1, x0:x1], model.background[y0:y1, x0:x1], model.threshold)
    # Only the blob itself: what else differs within the window (its own old place, still
    # in the background) is no colour of it; a figure's base and body are one blob.
    blob = lit
    n, labels = cv2.connectedComponents(lit.astype(np.uint8), connectivity=8)
    if n > 2:
        ys, xs = np.nonzero(labels)
        near = np.argmin(np.hypot(xs + x0 - centre_px[0], ys + y0 - centre_px[1]))
        blob = labels == labels[ys[near], xs[near]]
    # The inside, clear of the outline's blend with the cloth.
    k = max(3, int(0.5 * r_px) | 1)
    inside = _eroded(blob.astype(np.uint8), k)
    if inside.sum() < 6:
        return None
    px = pix[inside]
    mean = px.mean(axis=0)
    a = np.clip(px @ mean / max(float(mean @ mean), 1.0), 0.3, 1.6)
    even = _same_colour(np.linalg.norm(px - a[:, None] * mean, axis=1), mean[None]).mean()
    if even < BALL_UNIFORMITY:
        return None
    lum = px.sum(axis=1)
    colour = np.median(px[lum >= np.percentile(lum, 70)], axis=0).astype(np.float32)
    # A blob of the colour of the cloth round it is cloth where the background still holds
    # what stood there when it was learnt (a ball rolling in the first frame, its shadow).
    cloth = ~cv2.dilate(lit.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    if cloth.sum() >= 6 and same_colour_as(colour, [np.median(pix[cloth], axis=0)]):
        return None
    return colour


def _lit_objects(image: NDArray[np.uint8], background: NDArray[np.uint8], threshold: float):
    """Pixels ``(h, w)`` of ``image`` that differ from the ``background`` by more than
    ``threshold`` and are not its shadow (the background darkened, the same colour): a ball's
    contact shadow doubles its blob and is no colour of it."""
    # Most of the cloth matches its background: a pixel whose largest channel difference m
    # has sqrt(3) m <= threshold - 1 differs by less than the threshold, so only the others
    # (a few percent) take the exact test below, pixel by pixel as on the whole frame.
    level = int(max(float(threshold) - 1.0, 0.0) / np.sqrt(3.0))
    diff = cv2.absdiff(np.ascontiguousarray(image), np.ascontiguousarray(background))
    may_differ = cv2.inRange(diff, lowerb=(0, 0, 0), upperb=(level, level, level)) == 0
    out = np.zeros(image.shape[:2], bool)
    if not may_differ.any():
        return out
    pix = image[may_differ].astype(np.float32)
    bg = background[may_differ].astype(np.float32)
    differs = np.linalg.norm(pix - bg, axis=1) > threshold
    out[may_differ] = differs & ~darkened(pix, bg, threshold)
    return out
