"""Calibrate a table from its own pitch lines: no markers, no clicks.

The procedure (``calibrate``):

1. find the cloth and the thin white ridges on it (``lines``);
2. outline the line network: its four outer corners are the playing area's corners, which end
   is home's follows from ``home`` (DESIGN.md section 3: home at x < 0; by default the
   picture's left, or its bottom when the goal lines run across its top and bottom), and a
   first pose comes from those corners (``fit.initial_camera``);
3. chamfer-match every model line onto the ridges, freeing focal length and k1 on the way
   (``fit.fit_to_distance_map``);
4. three rounds with shrinking search windows: project the model lines, find each line's two
   edges on profiles across it (sub-pixel), fit the camera to the line centres with a robust
   loss, drop the outliers (figures, the ball, shadows) and fit again (``fit.fit_camera``);
   the principal point is free, held near the image centre by a weak prior;
   then f is settled from the lines' perspective and the balance of the two goals' parallax
   (``_settle_focal``; the goals' real height is not assumed); where neither pins f (a view
   straight down), a principal point the lines do not pin is held at the image centre, then
   moved along the pitch's length to where the two goals stand equally tall (the nadir);
5. back-project every edge sample to the cloth and take, per line, the median offsets of its
   two edges from the nominal centre: the measured edges calls use;
6. check that the playing area lies inside the picture and that the lines that decide calls
   were found and fit well; otherwise a ``CalibrationError`` that names what is missing and
   what to do (a line network running into the picture's border names the line cut off).

A video is calibrated from ``lines.clean_view`` of its first seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration import fit, lines
from calibration.calibration_file import (
    HOME_SIDES,
    Calibration,
    CalibrationError,
    EdgeSamples,
    FocalCheck,
    LensModel,
    width_doubt_mm,
)
from calibration.camera import CameraModel
from calibration.fit import ModelSamples, Priors, is_spot
from calibration.goals import measure_goals
from calibration.lines import clean_view
from calibration.tables import shipped_tables
from rules.pitch import Pitch

__all__ = ["CalibrationOptions", "calibrate", "clean_view"]

# Lines that decide calls and are long enough to be found on any cloth: calibration fails
# without them rather than guess.
REQUIRED_KINDS = ("touchline", "goal_line", "halfway_line", "shooting_line")
# The line samples are not independent (neighbours share the paint's and the lens' errors):
# their noise, times this, in the formal uncertainty of f matches the errors measured on
# rendered views.
LINE_SIGMA_INFLATION = 4.0
# What the lines fix of a lens not calibrated apart: focal length, principal point (real
# lenses sit a few pixels off the centre; a weak prior holds it where the view does not pin
# it), barrel distortion and the decentring (p1, p2) of a lens mounted a little off its axis,
# which bends the lines by up to a millimetre when left out.
LENS_FREE = ("pose", "f", "cx", "cy", "k1", "k2", "p1", "p2")
# A fitted lens parameter this many sigmas of its prior away means the lines are not the
# profile's (``_check_lens``): another table's lines take a principal point tens of sigmas
# off, while a camera looking straight down pins the principal point only loosely (its shift
# trades against a tilt), and a sound view may fit it 5 sigmas off.
LENS_PRIOR_MAX_SIGMA = 10.0
_PROFILE_HINT = (
    f"is --table right (shipped profiles: {', '.join(shipped_tables())})? If it is, make "
    "sure nothing covers the lines and the whole pitch is lit, then calibrate again"
)
# The profile of the fit along log f (``_profile_focal``), around the prior's f: two of its
# sigmas either way (a mount 0.75-2.4 m high), fine enough for its parabola.
PROFILE_LOG_F = tuple(np.linspace(-0.6, 0.6, 9))
# The goals' balance is a straight line through two readings of f a step apart: it says
# nothing of an f more than this many steps away.
GOAL_BALANCE_REACH = 3.0
# The goals' balance (``_goal_balance``) is read again at f this much larger; and a crossbar
# is placed to about this fraction of a pixel (the RMS error of one bar's apparent height
# times its lever: 0.036 px over 16 bars of 8 rendered views seen through the true camera,
# 1.1-1.7 m up, 960x720 to 1920x1080; the scatter of its edge along the mouth says less than
# 0.02 px: what a bar's outline shares along it does not average out).
GOAL_BALANCE_STEP = 0.05
GOAL_EDGE_PX = 0.04
# The goals' balance along the pitch (``_goal_nadir``) is read again with the principal
# point moved this far (pixels) along the image of the pitch's length.
GOAL_NADIR_STEP_PX = 10.0
# The crossbars' placing (``GOAL_EDGE_PX``) alone understates what the goals' balance says
# of the nadir: on two stress views straight down it put the nadir 2.6 and 0.0 mm off along
# the pitch for a sigma of 1.0 mm so reckoned; this many times it is stated. (At a ball's
# centre the nadir's error counts r / H of itself: a few hundredths of a millimetre.)
GOAL_NADIR_INFLATION = 3.0
# A call reads a line's edge beside the ball: the calibration's error there is how far the
# measured edges stray from the model over a stretch about two balls long (``local_mm``).
LOCAL_STRETCH_MM = 40.0


@dataclass(frozen=True, slots=True)
class CalibrationOptions:
    """Tunables of the procedure, with the defaults the benchmark was measured with.

    Attributes:
        work_width_px: the cloth and the ridges are found at about this width (faster).
        windows_px: half widths of the edge search windows, one fit round each, pixels.
        loss_scales_px: per round, the residual beyond which the soft-L1 loss turns linear:
            small at the end, so that a line painted a little off its nominal place does not
            pull the camera but is measured where it is.
        spacing_px: distance between profiles along a line, pixels.
        min_coverage: a line is used when at least this fraction of its profiles found it.
        max_rms_px: edge residuals above this RMS mean the profile does not fit the cloth
            (a good fit stays near 0.1 px; the quality bar is 0.3 px). A wrong profile is
            refused before, by the lens it would take; a right one seen small and coarse (a
            pitch at 0.4 px/mm in a 1280x720 MPEG-4 stream, a faint paint under a codec)
            reaches 0.6 px, and the scatter of its lines goes into every call's uncertainty
            (``Calibration.local_mm``) instead of refusing the whole recording.
        centre_sigma: spread of the principal point's prior around the image centre, as a
            fraction of the width (lenses and sensors sit off by up to about 1 %).
        focal_sigma_max: f counts as fixed by the data when its 1-sigma uncertainty is at
            most this (the bar is 1 %).
    """

    work_width_px: int = 800
    windows_px: tuple[float, ...] = (8.0, 5.0, 3.5)
    loss_scales_px: tuple[float, ...] = (0.6, 0.3, 0.1)
    spacing_px: float = 6.0
    min_coverage: float = 0.25
    max_rms_px: float = 0.75
    centre_sigma: float = 0.015
    focal_sigma_max: float = 0.01


def calibrate(
    image_bgr: NDArray[np.uint8],
    pitch: Pitch,
    *,
    home: str | None = None,
    lens: LensModel | None = None,
    options: CalibrationOptions | None = None,
) -> Calibration:
    """Calibrate the camera and measure the line edges from one picture of the empty pitch.

    Args:
        image_bgr: (h, w, 3) uint8 picture of the table (figures may stand on it).
        pitch: the nominal pitch of the table's profile.
        home: image side of home's goal line (``left``, ``right``, ``top``, ``bottom``);
            None: the left, or the bottom when the goal lines are at the top and bottom
            (``default_home``). Which kit is home is read from the figures either way.
        lens: intrinsics from ``tablevar calibrate-lens``; then only the pose is solved.
        options: tunables (``CalibrationOptions``).

    Raises:
        CalibrationError: no cloth, too dark, part of the pitch outside the picture, lines
            missing or not fitting the profile; the message says what to do.
    """
    opts = options or CalibrationOptions()
    if home is not None and home not in HOME_SIDES:
        raise CalibrationError(f"--home must be one of {', '.join(HOME_SIDES)}, got {home!r}")
    h, w = image_bgr.shape[:2]
    if lens is not None and tuple(lens.size_px) != (w, h):
        raise CalibrationError(
            f"the lens was calibrated at {lens.size_px[0]}x{lens.size_px[1]} but the picture is "
            f"{w}x{h}: calibrate the lens at the resolution you film at"
        )
    cloth = lines.find_cloth(image_bgr)
    white = lines.whiteness(image_bgr, cloth)
    cut: list[tuple[str, str]] = []
    try:
        camera, priors, home = _coarse_camera(white, cloth, pitch, home, lens, opts, cut)
        free = ("pose",) if lens is not None else LENS_FREE
        for window, scale in zip(opts.windows_px, opts.loss_scales_px, strict=True):
            found = _find_edges(white, pitch, camera, window, opts.spacing_px)
            camera, found = _robust_fit(found, camera, free, priors, scale_px=scale)
        if lens is None:
            camera = _profile_focal(found, camera, free, priors, opts.loss_scales_px[-1])
            camera, found, focal = _settle_focal(
                image_bgr, white, pitch, camera, found, free, priors, opts
            )
        else:
            focal = _focal_check("lens", camera, found, free, None, goals=0)
        _check_pose(camera, home)
        if priors is not None:
            _check_lens(pitch, camera, priors)
        found = _bar_edges(white, pitch, camera, found, opts.windows_px[-1])
        return replace(_finish(pitch, home, camera, found, opts), focal=focal)
    except (CalibrationError, ValueError) as exc:
        # Lines (or goals) running into the picture's border and a failed fit: the picture most
        # likely cuts off part of the pitch. Goals alone reaching the border do no harm.
        if cut:
            raise _outside_error(*cut[0]) from exc
        if isinstance(exc, CalibrationError):
            raise
        # The camera model refused a fitted pose (part of the pitch behind the camera): the
        # lines found do not make a pitch seen from above.
        raise CalibrationError(
            "no camera looking down at the pitch fits the lines found in the picture: make "
            "sure the whole pitch is in view with a margin of cloth, its lines show clearly "
            "(not faded into the cloth, nor smudged by a low video bitrate) and --table is "
            "right, then calibrate again"
        ) from exc


# Image direction (x right, y down) of each side of the picture home's goal may be on.
_TOWARD = {"left": (-1, 0), "right": (1, 0), "top": (0, -1), "bottom": (0, 1)}


# --------------------------------------------------------------------------- coarse pose
def default_home(long_axis: NDArray) -> str:
    """The image side of home's goal when none is given: the left, or, where the goal lines
    run across the top and bottom of the picture (``long_axis``, the pitch's long axis in the
    image, is nearer vertical), the bottom: turning such a picture a quarter turn clockwise
    brings it to the usual view with that end on the left. Only the pitch frame's sense
    follows from this; which kit is home is read from where the figures stand."""
    return "left" if abs(long_axis[0]) >= abs(long_axis[1]) else "bottom"


def _coarse_camera(white, cloth, pitch, home, lens, opts, cut: list):
    """The chamfer-fitted first camera, the priors of the fits (None with a lens file) and
    the image side of home's goal (``home``, or ``default_home`` when that is None).

    Appends to ``cut`` the (line, image side) of each side of the outline that runs into the
    picture's border. The prior on f is the guess from the pitch's size in the picture
    (``fit.guess_focal_px``), kept for every later fit: re-centring it on each fit's result
    would let a view that does not pin f drift from the guess a little more every round.
    """
    h, w = white.shape
    scale = max(1.0, w / opts.work_width_px)
    size = (round(w / scale), round(h / scale))
    white_s = cv2.resize(white, dsize=size, interpolation=cv2.INTER_AREA)
    cloth_s = cv2.resize(cloth.mask.astype(np.uint8), dsize=size, interpolation=cv2.INTER_NEAREST)
    kernel = 2 * round(size[0] / 180) + 1
    ridges = lines.ridge_mask(white_s, cloth_s.astype(bool), kernel)
    out = lines.outline(ridges, border_px=kernel // 2 + 3)
    # Scale corners to full-resolution pixel centres.
    corners_px = (out.corners_px + 0.5) * scale - 0.5
    if home is None:
        home = default_home(out.long_axis)
    corners_mm, sides = _pitch_corners(out, corners_px, pitch, home)
    cut.extend(side for side, touching in zip(sides, out.touches_border, strict=True) if touching)
    if lens is None:
        f0 = fit.guess_focal_px(corners_px, corners_mm)
        k, dist = np.array([[f0, 0, (w - 1) / 2], [0, f0, (h - 1) / 2], [0, 0, 1]]), (0.0,) * 5
    else:
        k, dist = np.asarray(lens.camera_matrix), lens.dist
    intrinsics = CameraModel(
        (w, h), k[0, 0], k[1, 1], k[0, 2], k[1, 2], dist, (0.0, 0.0, 0.0), (0.0, 0.0, 1.0)
    )
    distance = cv2.distanceTransform(
        (~ridges).astype(np.uint8), distanceType=cv2.DIST_L2, maskSize=5
    )
    points = fit.sample_lines(pitch, spacing_mm=6.0).foot_mm
    k1_grid = fit.K1_GRID if lens is None else (lens.dist[0],)
    camera = fit.start_from_corners(
        distance, scale, points, corners_px, corners_mm, intrinsics, k1_grid
    )
    free = ("pose",) if lens is not None else ("pose", "f", "k1")
    priors = None if lens is not None else Priors(f_px=k[0, 0], centre_sigma=opts.centre_sigma)
    for truncate in (12.0, 4.0):
        camera = fit.fit_to_distance_map(
            distance, scale, points, camera, free=free, truncate_px=truncate, priors=priors
        )
    return camera, priors, home


def _pitch_corners(out: lines.Outline, corners_px, pitch: Pitch, home: str):
    """Pitch corners (4, 2) mm matching ``out.corners_px``, and the line beyond each side.

    Returns the corners and, for the outline's sides [end A, side 1, end B, side 2], the line
    name and the image side it is on.
    """
    toward = _TOWARD[home]
    axis = out.long_axis
    if abs(axis @ toward) < abs(axis @ toward[::-1]):
        across = "top or bottom" if home in ("left", "right") else "left or right"
        raise CalibrationError(
            f"--home {home} puts home's goal at the {home} of the image, but the goal lines are "
            f"at its {across}: pass --home with the side of the image where home's goal is"
        )
    # End A is home when the long axis (A -> B) points away from home's side.
    a_is_home = axis @ toward < 0
    ex = axis if a_is_home else -axis  # image direction of pitch +x
    ey = np.array([ex[1], -ex[0]])  # pitch +y: +x turned a quarter anticlockwise on screen
    centre = corners_px.mean(axis=0)
    half_l, half_w = 0.5 * pitch.profile.length_mm, 0.5 * pitch.profile.width_mm
    rel = corners_px - centre
    corners_mm = np.stack([np.sign(rel @ ex) * half_l, np.sign(rel @ ey) * half_w], axis=1)
    end_a, end_b = ("left", "right") if a_is_home else ("right", "left")
    side_1 = "bottom" if (rel[0] + rel[1]) @ ey < 0 else "top"
    side_2 = "top" if side_1 == "bottom" else "bottom"
    names = (
        f"goal_line_{end_a}",
        f"touchline_{side_1}",
        f"goal_line_{end_b}",
        f"touchline_{side_2}",
    )
    midpoints = 0.5 * (corners_px + np.roll(corners_px, 1, axis=0))
    # Sides in outline order: end A is corners 3-0, side 1 is 0-1, end B 1-2, side 2 2-3.
    sides = [(n, _image_side(m - centre)) for n, m in zip(names, midpoints, strict=True)]
    return corners_mm, sides


def _check_pose(camera: CameraModel, home: str) -> None:
    """Refuse a fit in the pitch's mirror pose.

    The lines are symmetric, so a camera under the cloth with pitch +y toward the image bottom
    fits them as well; its ground points would be corrected for parallax the wrong way. The
    camera must be above the cloth looking down, pitch +x pointing away from home's side of the
    picture and +y a quarter turn anticlockwise from it on screen (DESIGN.md section 3).
    """
    px = camera.project(np.array([[0.0, 0.0, 0.0], [100.0, 0.0, 0.0], [0.0, 100.0, 0.0]]))
    ex, ey = px[1] - px[0], px[2] - px[0]
    right_handed = ey @ np.array([ex[1], -ex[0]]) > 0
    if not (fit.is_above_cloth(camera) and right_handed and ex @ np.array(_TOWARD[home]) < 0):
        raise CalibrationError(
            f"the fitted camera does not look down on the pitch with home's goal at the {home} "
            "of the picture (it came out mirrored): check --home, make sure the whole outline "
            "of the pitch is visible, then calibrate again"
        )


def _check_lens(pitch: Pitch, camera: CameraModel, priors: Priors) -> None:
    """Refuse a fit that needs a lens no camera has.

    The principal point, k2 and the decentring are free so that the lines can tell them; a
    picture of another table's lines is fitted too, by bending them as far as it takes (a
    principal point hundreds of pixels off). Beyond ``LENS_PRIOR_MAX_SIGMA`` of its prior a
    parameter says the lines are not this profile's.
    """
    w, h = camera.size_px
    centre = max(abs(camera.cx_px - (w - 1) / 2.0), abs(camera.cy_px - (h - 1) / 2.0))
    _, k2, p1, p2, _ = camera.dist
    sigmas = (
        centre / (priors.centre_sigma * w),
        abs(k2) / priors.k2_sigma,
        max(abs(p1), abs(p2)) / priors.tangential_sigma,
    )
    if max(sigmas) > LENS_PRIOR_MAX_SIGMA:
        raise CalibrationError(
            f"the lines do not fit the {pitch.profile.name!r} profile: only a lens bent far "
            f"beyond any camera's would map them onto it: {_PROFILE_HINT}"
        )


def _image_side(d: NDArray) -> str:
    if abs(d[0]) >= abs(d[1]):
        return "right" if d[0] > 0 else "left"
    return "bottom" if d[1] > 0 else "top"


def _describe(name: str) -> str:
    """``goal_line_right`` -> ``goal line``: how the messages name a line."""
    words = [w for w in name.split("_") if w not in ("left", "right", "top", "bottom")]
    return " ".join(words)


# --------------------------------------------------------------------------- fine fit
@dataclass(frozen=True, slots=True)
class _Found:
    """Profiles across the model lines and what was found on them; n profiles in the picture.

    ``origin_px`` is where a profile crosses the projected model line, ``normal_px`` its unit
    direction (toward the line's outer edge), ``inlier`` the profiles the fit kept.
    """

    model: ModelSamples
    origin_px: NDArray[np.float64]
    normal_px: NDArray[np.float64]
    profiles: lines.Profiles
    inlier: NDArray[np.bool_]

    def along(self, s_px: NDArray) -> NDArray[np.float64]:
        """Image points (n, 2) at ``s_px`` (n,) along each profile."""
        return self.origin_px + s_px[:, None] * self.normal_px

    def with_inliers(self, inlier: NDArray[np.bool_]) -> _Found:
        return _Found(self.model, self.origin_px, self.normal_px, self.profiles, inlier)


def _find_edges(white, pitch: Pitch, camera: CameraModel, window_px: float, spacing_px: float):
    h, w = white.shape
    mm_px = float(camera.mm_per_px(np.zeros((1, 2)))[0])
    model = fit.sample_lines(pitch, spacing_px * mm_px, clearance_mm=(window_px + 2.0) * mm_px)
    n = len(model)
    px = camera.project(np.concatenate([model.foot_mm, model.foot_mm + model.normal_mm]))
    origin, step = px[:n], px[n:] - px[:n]
    px_per_mm = np.hypot(step[:, 0], step[:, 1])
    widths = np.array([b.width_mm for b in pitch.lines])[model.line] * px_per_mm
    margin = window_px + 2.0 * widths + 6.0
    inside = (
        (origin[:, 0] >= margin)
        & (origin[:, 1] >= margin)
        & (origin[:, 0] <= w - 1 - margin)
        & (origin[:, 1] <= h - 1 - margin)
    )
    normal = step[inside] / px_per_mm[inside, None]
    spread = np.array([0.0 if is_spot(b) else 1.0 for b in pitch.lines])[model.line[inside]]
    prof = lines.measure_profiles(
        white, origin[inside], normal, window_px, widths[inside], spread_px=spread
    )
    valid = prof.valid.copy()
    if valid.any():
        valid &= prof.contrast >= 0.3 * np.median(prof.contrast[valid])
    return _Found(model.take(inside), origin[inside], normal, prof, valid)


def _bar_edges(white, pitch: Pitch, camera: CameraModel, found: _Found, window_px: float):
    """``found`` with its edges measured again by fitting a blurred bar to each profile (the
    derivative's peaks read lines of a few pixels too wide; ``lines.measure_profiles``).

    Only the edges change, where the bar fit found the line too; the fit used the centres.
    """
    n = len(found.model)
    px = camera.project(
        np.concatenate([found.model.foot_mm, found.model.foot_mm + found.model.normal_mm])
    )
    px_per_mm = np.hypot(*(px[n:] - px[:n]).T)
    widths = np.array([b.width_mm for b in pitch.lines])[found.model.line] * px_per_mm
    spread = np.array([0.0 if is_spot(b) else 1.0 for b in pitch.lines])[found.model.line]
    prof = lines.measure_profiles(
        white, found.origin_px, found.normal_px, window_px, widths, spread_px=spread, fit_bar=True
    )
    old = found.profiles
    take = prof.valid & old.valid
    lo, hi = np.where(take, prof.lo_px, old.lo_px), np.where(take, prof.hi_px, old.hi_px)
    edges = lines.Profiles(lo, hi, old.contrast, old.valid)
    return _Found(found.model, found.origin_px, found.normal_px, edges, found.inlier)


def _robust_fit(found: _Found, camera, free, priors, scale_px: float):
    """Fit to the valid profiles, then twice drop outliers and refit.

    An outlier lies more than 3 robust sigmas from the other samples of its own line: a line
    painted a little off its nominal place is kept whole (and measured where it is), a figure
    standing on it is not.
    """
    centres = found.along(found.profiles.centre_px)
    keep = found.inlier
    for _ in range(3):
        if keep.sum() < 20:
            raise CalibrationError(
                f"only {int(keep.sum())} pieces of pitch line were found where the lines should "
                "be: check the lighting and the table profile (--table), then calibrate again"
            )
        camera = fit.fit_camera(
            found.model.take(keep),
            centres[keep],
            camera,
            free=free,
            scale_px=scale_px,
            priors=priors,
        )
        r = fit.residuals_px(camera, found.model, centres)
        r -= _line_medians(found.model.line, r, keep)
        sigma = 1.4826 * float(np.median(np.abs(r[keep])))
        keep = found.inlier & (np.abs(r) <= max(3.0 * sigma, 0.3))
    return camera, found.with_inliers(keep)


def _line_medians(line: NDArray, values: NDArray, keep: NDArray) -> NDArray:
    """Per sample (n,), the median of ``values`` over the kept samples of its line (0 if none)."""
    out = np.zeros(len(values))
    for i in np.unique(line[keep]):
        out[line == i] = np.median(values[keep & (line == i)])
    return out


def _hold_principal_point(image_bgr, pitch: Pitch, found: _Found, camera, free, priors, opts):
    """The camera, with each coordinate of its principal point that the lines do not pin held
    at the image centre where nothing else pins f either, the found edges, and what the two
    goals then say of the principal point along the pitch's length (``_goal_nadir``; None
    when they say nothing).

    Looking straight down at a flat pitch, a shift of the principal point and one of the
    camera sideways map the cloth alike (exactly so without distortion): only the prior holds
    it. The fit weighs thousands of neighbouring samples as independent (they are not:
    ``LINE_SIGMA_INFLATION``), so their noise and the lens model's small errors carry it far
    past its prior: rendered straight views at 1640x1232 and 1920x1080 fitted it 100-150 px
    off (4-6 prior sigmas) and put the camera 95-135 mm sideways, a millimetre of parallax at
    a ball, where the lines' own sigma of it was twice the prior's. Where the lines, counted
    as the posterior counts them, say less of a coordinate than its prior does, it stays at
    the prior's centre, the other parameters refitted and f profiled again
    (``_profile_focal``); the prior's spread still counts in what the camera's centre is
    known to (``_focal_check`` keeps it free). Where the goals' balance pins f it pins the
    principal point with it (on an independent renderer's view the balance fitted it 1 px
    from the truth and f 0.5 % off; held first, it was 8 px off and f 12 %): only a view
    that nothing pins is held. Held whole, it is then moved along the pitch's length to where
    the two goals stand equally tall (``_goal_nadir``): that places the nadir, whatever f.
    """
    keep = found.inlier
    model, centres = found.model.take(keep), found.along(found.profiles.centre_px)[keep]
    cov = fit.data_covariance(
        model,
        centres,
        camera,
        free=free,
        of=("cx", "cy"),
        priors=priors,
        inflation=LINE_SIGMA_INFLATION,
    )
    prior_px = priors.centre_sigma * camera.size_px[0]
    held = [
        name
        for name, var in zip(("cx", "cy"), np.diag(cov), strict=True)
        if not var < prior_px**2  # inf where the lines say nothing
    ]
    if not held:
        return camera, found, None
    w, h = camera.size_px
    centre = {"cx": (w - 1) / 2.0, "cy": (h - 1) / 2.0}
    camera = replace(camera, **{f"{name}_px": centre[name] for name in held})
    fitted = tuple(p for p in free if p not in held)
    scale_px = opts.loss_scales_px[-1]
    camera, found = _robust_fit(found, camera, fitted, priors, scale_px)
    # Only where the lines say nothing of it: where they pin it a little (a view a few
    # degrees off straight, f known to 18 %), the goals' balance reads f's error too, and
    # taken for the nadir's it sent f 42 % short.
    nadir = None
    if len(held) == 2:
        nadir = _goal_nadir(image_bgr, pitch, camera, found, fitted, priors, scale_px)
    if nadir is not None:
        shift_px, _, along = nadir
        cx, cy = np.array([camera.cx_px, camera.cy_px]) + shift_px * along
        camera, found = _robust_fit(
            found, replace(camera, cx_px=cx, cy_px=cy), fitted, priors, scale_px
        )
    return _profile_focal(found, camera, fitted, priors, scale_px), found, nadir


def _goal_nadir(image_bgr, pitch: Pitch, camera, found: _Found, free, priors, scale_px: float):
    """(shift px, its sigma px, unit image direction (2,)) of the principal point along the
    image of the pitch's length that puts the nadir where the two goals stand equally tall;
    None without two goals, or where they say no more than the prior.

    Looking straight down, a goal's crossbar stands out from the nadir by its height times
    d / (H - h), d its distance from the nadir: the ratio of the two goals' apparent heights
    is d_left / d_right, whatever their height and the camera's (they are alike). The lines
    leave the nadir where the principal point is held; moved along the pitch's length with
    the camera refitted to the lines, the ratio turns 1 where the nadir is. On two stress
    views with the principal point 21 and 23 px off along the pitch, held at the centre the
    nadir was 25 and 28 mm off and the goals' log ratio read -0.085 and -0.089; through the
    true camera -0.004 and +0.001.
    """
    goals = measure_goals(image_bgr, pitch, camera)
    if len({g.end for g in goals}) < 2:
        return None
    ends = camera.project(np.array([[0.0, 0.0], [100.0, 0.0]]))
    along = (ends[1] - ends[0]) / np.hypot(*(ends[1] - ends[0]))
    keep = found.inlier
    model, centres = found.model.take(keep), found.along(found.profiles.centre_px)[keep]
    cx, cy = np.array([camera.cx_px, camera.cy_px]) + GOAL_NADIR_STEP_PX * along
    stepped = fit.fit_camera(
        model,
        centres,
        replace(camera, cx_px=cx, cy_px=cy),
        free=free,
        scale_px=scale_px,
        priors=priors,
    )
    moved = measure_goals(image_bgr, pitch, stepped)
    if len({g.end for g in moved}) < 2:
        return None
    slope = (_log_ratio(moved) - _log_ratio(goals)) / GOAL_NADIR_STEP_PX
    reading = math.hypot(*(GOAL_EDGE_PX / g.lever_px for g in goals))
    sigma = GOAL_NADIR_INFLATION * reading / max(abs(slope), 1e-12)
    shift = -_log_ratio(goals) / slope if slope != 0.0 else math.inf
    prior_px = priors.centre_sigma * camera.size_px[0]
    if sigma >= prior_px or abs(shift) > GOAL_BALANCE_REACH * prior_px:
        return None
    return shift, sigma, along


# --------------------------------------------------------------------------- focal length
def _profile_focal(found: _Found, camera, free, priors: Priors, scale_px: float):
    """The camera at the f that fits best, searched along f with everything else refitted.

    Where the view is nearly straight, f lies in a long, flat and curved valley (f trades
    with the height, k1 and the tilt) along which the joint fit stops well short of its
    floor: on rendered views tilted 0.7 degrees it stayed 30 % off where the floor was 10 %
    off. The profile is the cost of the samples (Gaussian, at their noise as the posterior
    counts it: ``LINE_SIGMA_INFLATION``) and of every prior, f's too, at each f of a grid in
    log f around the prior's f (``PROFILE_LOG_F``: the joint fit may have wandered far from
    both the truth and the prior), refined by a parabola through the lowest point and its
    neighbours. The joint fit is kept where no point of the profile beats it.
    """
    keep = found.inlier
    model, centres = found.model.take(keep), found.along(found.profiles.centre_px)[keep]
    r0 = fit.residuals_px(camera, model, centres)
    noise_px = LINE_SIGMA_INFLATION * max(1.4826 * float(np.median(np.abs(r0))), 0.02)

    def cost(cam) -> float:
        r = fit.residuals_px(cam, model, centres) / noise_px
        prior = fit.prior_residuals(cam, priors, free)
        return float(np.sum(r * r) + np.sum(prior * prior))

    def at(log_f: float):
        f = priors.f_px * math.exp(log_f)
        # From the joint fit's view of the cloth at this f: the camera's distance scaled with
        # f (the same view for a camera straight down), so each fit starts in the valley.
        k = f / camera.fx_px
        tx, ty, tz = camera.tvec_mm
        cam = fit.fit_camera(
            model,
            centres,
            replace(camera, fx_px=f, fy_px=f, tvec_mm=(tx, ty, tz * k)),
            free=_without_f(free),
            scale_px=scale_px,
            priors=priors,
        )
        return cost(cam), cam

    best_cost, best = cost(camera), camera
    grid = [(k, *at(k)) for k in PROFILE_LOG_F]
    i = int(np.argmin([c for _, c, _ in grid]))
    if 0 < i < len(grid) - 1:
        (k0, c0, _), (k1, c1, _), (_, c2, _) = grid[i - 1 : i + 2]
        curvature = c0 - 2.0 * c1 + c2
        if curvature > 0.0:
            grid.append((k1, *at(k1 + 0.5 * (k1 - k0) * (c0 - c2) / curvature)))
    for _, c, cam in grid:
        if c < best_cost:
            best_cost, best = c, cam
    return best


def _settle_focal(
    image_bgr, white, pitch: Pitch, camera, found: _Found, free, priors: Priors, opts
):
    """What fixed f: the lines' perspective, the two goals' parallax, or nothing.

    The lines' own uncertainty of f comes from the fit's Jacobian (``fit.focal_sigma``).
    The goals' crossbars are not taken at the profile's height: real goals stand taller or
    lower (a 40 % taller pair made f 20 % short), and a view straight down shows only the
    ratio of a vertical thing's height to the camera's, never either alone. So the goal height
    is free, and what the crossbars still tell is how their parallax differs between the two
    ends, which the nadir's place, and so f, sets (``_goal_balance``). Without either, f stays
    the guess from the pitch's size, reported as ``none``, and a principal point the lines
    do not pin is held at the image centre (``_hold_principal_point``).
    """
    keep = found.inlier
    centres = found.along(found.profiles.centre_px)
    sigma_lines = fit.focal_sigma(
        found.model.take(keep),
        centres[keep],
        camera,
        free=free,
        priors=priors,
        inflation=LINE_SIGMA_INFLATION,
    )
    goals = measure_goals(image_bgr, pitch, camera)
    # Where the lines say nothing of f, the fit's tilt and principal point wander along the
    # valley with f, and the balance reads that wandering, not f (a straight view read f
    # 19 % off with a 2 % sigma): it counts only where the lines pin f better than its prior.
    balance = None
    if sigma_lines < priors.f_sigma:
        balance = _goal_balance(image_bgr, pitch, camera, found, free, priors, opts, goals)
    if balance is None:
        source = "lines" if sigma_lines <= opts.focal_sigma_max else "none"
        nadir = None
        if source == "none":
            camera, found, nadir = _hold_principal_point(
                image_bgr, pitch, found, camera, free, priors, opts
            )
        check = _focal_check(source, camera, found, free, priors, len(goals), nadir=nadir)
        return camera, found, check
    f_goals, sigma_goals = balance
    # The fitted f (the lines and the guess) and the goals' balance, each by its weight; then
    # one more round at that f. (Weighing inside the fit would take the lines' samples for
    # independent, which they are not: LINE_SIGMA_INFLATION.)
    sigma_fit = (sigma_lines**-2 + priors.f_sigma**-2) ** -0.5
    w_fit, w_goals = sigma_fit**-2, sigma_goals**-2
    log_f = (w_fit * math.log(camera.fx_px) + w_goals * math.log(f_goals)) / (w_fit + w_goals)
    f = math.exp(log_f)
    found = _find_edges(white, pitch, camera, opts.windows_px[-1], opts.spacing_px)
    camera, found = _robust_fit(
        found, replace(camera, fx_px=f, fy_px=f), _without_f(free), priors, opts.loss_scales_px[-1]
    )
    sigma = (sigma_lines**-2 + sigma_goals**-2) ** -0.5
    source = "goals" if sigma_goals < sigma_lines else "lines"
    if sigma > opts.focal_sigma_max:
        source = "none"
    check = _focal_check(source, camera, found, free, priors, len(goals), sigma_goals)
    return camera, found, check


def _focal_check(
    source, camera, found: _Found, free, priors, goals: int, log_f_sigma=None, nadir=None
):
    """``FocalCheck`` with what the fit leaves known of f and of the camera's centre.

    The uncertainty is the posterior one (``fit.posterior_covariance``): the lines, the
    goals' balance when it was used, and the priors, f's too: where nothing else pins f it is
    the guess of a usual mount height, and the camera's height (so every parallax correction)
    is as loose as that guess. Its centre's covariance is what calls carry of it
    (``Calibration.parallax_sigma_mm``).
    """
    keep = found.inlier
    cov = fit.posterior_covariance(
        found.model.take(keep),
        found.along(found.profiles.centre_px)[keep],
        camera,
        free=free,
        priors=priors,
        inflation=LINE_SIGMA_INFLATION,
        log_f_sigma=log_f_sigma,
        principal_along=None if nadir is None else (nadir[2], nadir[1]),
    )
    sigma_f = math.sqrt(max(float(cov[0, 0]), 0.0)) / camera.fx_px if "f" in free else 0.0
    centre = fit.centre_covariance(camera, cov, free)
    return FocalCheck(
        source, 100.0 * sigma_f, goals, tuple(tuple(float(v) for v in row) for row in centre)
    )


def _goal_balance(image_bgr, pitch: Pitch, camera, found: _Found, free, priors, opts, goals):
    """(f, its relative sigma) at which both goals stand equally tall; None without two goals.

    Whatever their height, the two goals of a table are alike. Under a camera with the wrong
    f (the lines fitted all the same), the nadir sits elsewhere, and one goal's parallax is
    overrated against the other's in a tilted view: the log ratio of their apparent heights
    is read at the fitted f and at f a step away (lines refitted), and f is where the ratio
    is 1. Looking straight down the ratio hardly moves with f and the sigma is large.
    """
    if len({g.end for g in goals}) < 2:
        return None
    keep = found.inlier
    model, centres = found.model.take(keep), found.along(found.profiles.centre_px)[keep]
    f_step = camera.fx_px * (1.0 + GOAL_BALANCE_STEP)
    stepped = fit.fit_camera(
        model,
        centres,
        replace(camera, fx_px=f_step, fy_px=f_step),
        # Everything else free, as in the fit itself: the balance's slope is then the profile
        # of the fit in f. Holding the principal point at the fit's value would take it as
        # known where a nearly straight view pins it only loosely (it trades against a tilt):
        # the balance then reads a slope that is not there and claims f tens of % off.
        free=_without_f(free),
        scale_px=opts.loss_scales_px[-1],
        priors=priors,
    )
    moved = measure_goals(image_bgr, pitch, stepped)
    if len({g.end for g in moved}) < 2:
        return None
    slope = (_log_ratio(moved) - _log_ratio(goals)) / math.log1p(GOAL_BALANCE_STEP)
    sigma = math.hypot(*(GOAL_EDGE_PX / g.lever_px for g in goals)) / max(abs(slope), 1e-9)
    log_step = -_log_ratio(goals) / slope
    if sigma >= priors.f_sigma or abs(log_step) > GOAL_BALANCE_REACH * GOAL_BALANCE_STEP:
        # No better than the guess, or beyond the reach of the straight line through two
        # readings (a stress view read f 46 % off there and the lines no longer fitted).
        return None
    return camera.fx_px * math.exp(log_step), sigma


def _without_f(free: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(p for p in free if p != "f")


def _log_ratio(goals) -> float:
    """log(apparent height of the left goal / that of the right one)."""
    scale = {g.end: g.scale for g in goals}
    return math.log(scale["left"] / scale["right"])


# --------------------------------------------------------------------------- results
def _finish(pitch: Pitch, home: str, camera: CameraModel, found: _Found, opts):
    keep = found.inlier
    model = found.model.take(keep)
    lo_px = found.along(found.profiles.lo_px)[keep]
    hi_px = found.along(found.profiles.hi_px)[keep]
    inner = _edge_offsets_mm(pitch, model, camera.back_project(lo_px))
    outer = _edge_offsets_mm(pitch, model, camera.back_project(hi_px))
    n_lines = len(pitch.lines)
    expected = np.bincount(found.model.line, minlength=n_lines)
    got = np.bincount(model.line, minlength=n_lines)
    spots = np.array([is_spot(b) for b in pitch.lines])
    used = np.where(spots, got >= 2, got >= np.maximum(3, opts.min_coverage * expected))
    edges, res_px, res_mm, local = {}, [], [], []
    per_px, per_mm = {}, {}
    spacing_mm = opts.spacing_px * float(camera.mm_per_px(np.zeros((1, 2)))[0])
    stretch = max(1, round(LOCAL_STRETCH_MM / spacing_mm))
    for i in np.flatnonzero(used):
        sel = model.line == i
        e_in, e_out = float(np.median(inner[sel])), float(np.median(outer[sel]))
        edges[pitch.lines[i].name] = (e_in, e_out)
        r_px = np.concatenate(
            [
                _edge_residual_px(camera, model.take(sel), e_in, lo_px[sel]),
                _edge_residual_px(camera, model.take(sel), e_out, hi_px[sel]),
            ]
        )
        r_in, r_out = inner[sel] - e_in, outer[sel] - e_out
        r_mm = np.concatenate([r_in, r_out])
        local += [_stretch_means(r_in, stretch), _stretch_means(r_out, stretch)]
        per_px[pitch.lines[i].name] = _rms(r_px)
        per_mm[pitch.lines[i].name] = _rms(r_mm)
        res_px.append(r_px)
        res_mm.append(r_mm)
    rms_px = _rms(np.concatenate(res_px)) if res_px else math.inf
    rms_mm = _rms(np.concatenate(res_mm)) if res_mm else math.inf
    local_mm = _rms(np.concatenate(local)) if local else math.inf
    _check_found(pitch, camera, used, rms_px, opts)
    # For the overlay: every profile that found a line, and whether the fit kept it.
    seen = found.profiles.valid
    in_fit = np.isin(found.model.line, np.flatnonzero(used)) & keep
    samples = EdgeSamples(
        found.model.line[seen],
        found.along(found.profiles.lo_px)[seen],
        found.along(found.profiles.hi_px)[seen],
        in_fit[seen],
    )
    return Calibration(
        table=pitch.profile.name,
        image_size_px=camera.size_px,
        camera=camera,
        home=home,
        line_edges_mm=edges,
        rms_px=rms_px,
        rms_mm=rms_mm,
        per_line_px=per_px,
        per_line_mm=per_mm,
        lines_used=tuple(pitch.lines[i].name for i in np.flatnonzero(used)),
        samples=samples,
        local_mm=local_mm,
        width_doubt_mm=width_doubt_mm(pitch, edges),
    )


def _edge_offsets_mm(pitch: Pitch, model: ModelSamples, xy_mm: NDArray) -> NDArray:
    """Offset (n,) of each cloth point from its line's nominal centre along the line's normal.

    A spot has no centre line: its offsets are signed along the profile through its centre.
    """
    out = np.sum((xy_mm - model.foot_mm) * model.normal_mm, axis=1)
    for i in np.unique(model.line):
        band = pitch.lines[i]
        if not is_spot(band):
            sel = model.line == i
            out[sel] = band.offset_mm(xy_mm[sel])
    return out


def _edge_residual_px(camera, model: ModelSamples, offset_mm: float, edge_px: NDArray):
    shifted = ModelSamples(model.line, model.foot_mm + offset_mm * model.normal_mm, model.normal_mm)
    return fit.residuals_px(camera, shifted, edge_px)


def _stretch_means(residuals_mm: NDArray, n: int) -> NDArray:
    """Mean residual over each run of ``n`` consecutive samples along a line (the last run
    may be shorter): how far the line's measured edge strays from the model locally."""
    starts = np.arange(0, len(residuals_mm), n)
    return np.add.reduceat(residuals_mm, starts) / np.diff(np.append(starts, len(residuals_mm)))


def _rms(values: NDArray) -> float:
    return float(np.sqrt(np.mean(np.square(values)))) if len(values) else math.inf


def _outside_error(line: str, image_side: str) -> CalibrationError:
    return CalibrationError(
        f"the {_describe(line)} at the {image_side} of the image was not found: does the camera "
        "see the whole pitch? Aim or zoom the camera out until every line is inside the "
        "picture with a margin of cloth, then calibrate again"
    )


def _check_found(pitch: Pitch, camera: CameraModel, used, rms_px: float, opts) -> None:
    name = pitch.profile.name
    centre = 0.5 * (np.asarray(camera.size_px) - 1)
    for kind in ("goal_line", "touchline"):
        for band in pitch.lines_of_kind(kind):
            ends = np.linspace(band.a_mm, band.b_mm, 9)
            px = camera.project(ends)
            off = (px < 0).any(axis=1) | (px > np.asarray(camera.size_px) - 1).any(axis=1)
            if off.any():
                raise _outside_error(band.name, _image_side(px[off][0] - centre))
    hint = _PROFILE_HINT
    missing = [
        b for b, u in zip(pitch.lines, used, strict=True) if not u and b.kind in REQUIRED_KINDS
    ]
    if missing:
        band = missing[0]
        side = _image_side(camera.project(np.array([_midpoint(band)]))[0] - centre)
        also = f" (nor {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise CalibrationError(
            f"the {_describe(band.name)} at the {side} of the image was not found where the "
            f"{name!r} profile puts it{also}: {hint}"
        )
    if rms_px > opts.max_rms_px:
        raise CalibrationError(
            f"the lines do not fit the {name!r} profile: their edges lie {rms_px:.2f} px (RMS) "
            f"from the fitted model, more than {opts.max_rms_px} px: {hint}"
        )


def _midpoint(band) -> tuple[float, float]:
    if band.shape == "segment":
        return tuple(0.5 * (np.asarray(band.a_mm) + np.asarray(band.b_mm)))
    angle = band.start_rad + 0.5 * band.sweep_rad
    return (
        band.a_mm[0] + band.radius_mm * math.cos(angle),
        band.a_mm[1] + band.radius_mm * math.sin(angle),
    )
