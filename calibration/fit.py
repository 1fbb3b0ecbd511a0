"""Fitting the camera model to the pitch lines.

Three fits, coarse to fine, all by ``scipy.optimize.least_squares``:

- ``initial_camera``: a pose from the four outer corners of the playing area (``cv2.solvePnP``)
  with a focal length guessed from the pitch's size in the image.
- ``fit_to_distance_map``: chamfer matching. Points sampled on every model line are projected
  and the distance transform of the detected white ridges is read there; minimising it pulls the
  whole line network onto the ridges, with a basin of many pixels (strong barrel distortion
  bends the outer lines tens of pixels away from the corner-based guess).
- ``fit_camera``: the fine fit. Each sample is a sub-pixel line centre found in the image on the
  normal of a model line; its residual is its distance, along the projected normal, from the
  projection of the model line (point-to-line ICP in the image). A robust loss keeps figures,
  the ball and shadows on the lines from pulling the fit.

Samples are line *centres* (the midpoint of the two edges found on each profile): where a line
really lies on a cloth varies by a few tenths of a millimetre, its painted width by more, and
the centre does not depend on the width. The edges are measured after the fit (``calibrate``).

The camera has square pixels (fx = fy = f). One flat view pins down only two of f, cx and cy
(Zhang 2000), and none of them when the camera looks straight down; weak priors keep the
principal point near the image centre and f near a plausible mount height, so they matter only
where the data say nothing. Distortion is OpenCV's: k1, k2 and the decentring p1, p2 of a lens
mounted a little off its axis (k3 stays 0: the lines do not reach far enough into the corners).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray
from scipy.optimize import least_squares

from calibration.camera import CameraModel
from rules.pitch import LineBand, Pitch

PARAMS = ("f", "cx", "cy", "k1", "k2", "rx", "ry", "rz", "tx", "ty", "tz", "p1", "p2")
POSE = ("rx", "ry", "rz", "tx", "ty", "tz")
# The distortion a picture shows is that of pixel radii: at a focal length f, k1 of the
# normalized coordinates bends them by k1 (r_px / f)^2, k2 by (r_px / f)^4, p1 and p2 by
# r_px / f. The priors on the lens (``Priors``) hold those coefficients at the prior's f
# (each times (f_prior / f)^power): held at the fit's own f, a view straight down, which
# sets only f over the height and the lens in pixels, let the decentring's prior pull f: a
# lens decentred 1.5 of that prior's sigmas took f 21 % short, a camera 1.3 m up for 1.03 m.
_LENS_POWER = np.array([0, 0, 0, 2, 4, 0, 0, 0, 0, 0, 0, 1, 1], dtype=np.float64)
# The camera of a Subuteo table hangs about this high; only used to guess f (see module doc).
TYPICAL_HEIGHT_MM = 1350.0
_FAR_PX = 1e4  # residual for points that project behind the camera
# Barrel distortion tried for a first pose: from none to beyond the strongest we support.
K1_GRID = tuple(np.linspace(0.0, -0.45, 10))


@dataclass(frozen=True, slots=True)
class Priors:
    """Weak Gaussian priors for parameters the data may not determine.

    Attributes:
        f_px: expected focal length; ``f_sigma`` its relative standard deviation.
        k2_sigma: spread of k2 around 0 (k2 is only seen in the far corners of the image).
        centre_sigma: spread of the principal point around the image centre, fraction of width.
        tangential_sigma: spread of p1 and p2 around 0 (a lens mounted a little off its axis:
            a few thousandths; their pattern across the image is partly that of a tilt).

    The lens priors hold the coefficients rescaled to ``f_px`` (``_LENS_POWER``), the lens
    as the picture shows it, so that they say nothing of f itself.
    """

    f_px: float
    f_sigma: float = 0.3
    k2_sigma: float = 0.3
    centre_sigma: float = 0.03
    tangential_sigma: float = 0.002


@dataclass(frozen=True, slots=True)
class ModelSamples:
    """Points on the centre geometry of the model lines, where to look for the lines; n samples.

    Attributes:
        line: (n,) int, index into ``Pitch.lines``.
        foot_mm: (n, 2) point on the line's centre geometry (the centre for a spot), z = 0.
        normal_mm: (n, 2) unit normal there, toward increasing offset (outer edge).
    """

    line: NDArray[np.int64]
    foot_mm: NDArray[np.float64]
    normal_mm: NDArray[np.float64]

    def __post_init__(self) -> None:
        n = len(self.line)
        if self.foot_mm.shape != (n, 2) or self.normal_mm.shape != (n, 2):
            raise ValueError(
                f"ModelSamples: expected foot_mm and normal_mm of shape ({n}, 2), got "
                f"{self.foot_mm.shape} and {self.normal_mm.shape}"
            )

    def __len__(self) -> int:
        return len(self.line)

    def take(self, keep: NDArray) -> ModelSamples:
        """The samples selected by a boolean mask or index array."""
        return ModelSamples(self.line[keep], self.foot_mm[keep], self.normal_mm[keep])


def is_spot(band: LineBand) -> bool:
    """Spots are arcs of radius 0: a disc, measured by its diameter."""
    return band.shape == "arc" and band.radius_mm == 0.0


def sample_lines(pitch: Pitch, spacing_mm: float, clearance_mm: float = 0.0) -> ModelSamples:
    """Samples every ``spacing_mm`` along every line, keeping clear of the other lines.

    A sample is dropped when another line's paint comes within ``clearance_mm`` of it: the
    profile across it would see both lines (crossings, corners, box lines meeting the goal line).
    Spots get four samples through their centre, in directions 45 degrees apart.
    """
    lines, feet, normals = [], [], []
    for i, band in enumerate(pitch.lines):
        foot, normal = _samples_on(band, spacing_mm)
        if clearance_mm > 0.0 and len(foot):
            others = [b.paint_distance_mm(foot) for j, b in enumerate(pitch.lines) if j != i]
            near = np.minimum.reduce(others) - 0.5 * band.width_mm < clearance_mm
            foot, normal = foot[~near], normal[~near]
        lines.append(np.full(len(foot), i, np.int64))
        feet.append(foot)
        normals.append(normal)
    return ModelSamples(np.concatenate(lines), np.concatenate(feet), np.concatenate(normals))


def _samples_on(band: LineBand, spacing_mm: float) -> tuple[NDArray, NDArray]:
    if is_spot(band):
        angles = np.arange(4) * (math.pi / 4.0)
        normal = np.stack([np.cos(angles), np.sin(angles)], axis=1)
        return np.tile(np.asarray(band.a_mm, float), (4, 1)), normal
    n = max(2, int(band.length_mm / spacing_mm) + 1)
    t = (np.arange(n) + 0.5) / n
    a = np.asarray(band.a_mm, float)
    if band.shape == "segment":
        d = np.subtract(band.b_mm, band.a_mm) / band.length_mm
        return a + np.outer(t * band.length_mm, d), np.tile([-d[1], d[0]], (n, 1))
    angles = band.start_rad + t * band.sweep_rad
    normal = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    return a + band.radius_mm * normal, normal


# --------------------------------------------------------------------------- parameters
def camera_params(camera: CameraModel) -> NDArray[np.float64]:
    """The fit's parameter vector (``PARAMS`` order) of a camera; f is the mean of fx and fy."""
    k1, k2, p1, p2 = camera.dist[:4]
    f = 0.5 * (camera.fx_px + camera.fy_px)
    return np.array(
        [f, camera.cx_px, camera.cy_px, k1, k2, *camera.rvec_rad, *camera.tvec_mm, p1, p2]
    )


def camera_from_params(p: NDArray[np.float64], like: CameraModel) -> CameraModel:
    """A camera from a parameter vector; k3 is kept from ``like``."""
    f = float(abs(p[0]))
    return CameraModel(
        size_px=like.size_px,
        fx_px=f,
        fy_px=f,
        cx_px=float(p[1]),
        cy_px=float(p[2]),
        dist=(float(p[3]), float(p[4]), float(p[11]), float(p[12]), *like.dist[4:]),
        rvec_rad=(float(p[5]), float(p[6]), float(p[7])),
        tvec_mm=(float(p[8]), float(p[9]), float(p[10])),
    )


def _free_mask(free: Sequence[str]) -> NDArray[np.bool_]:
    names = set(free)
    if "pose" in names:
        names |= set(POSE)
        names.discard("pose")
    unknown = names - set(PARAMS)
    if unknown:
        raise ValueError(f"unknown fit parameters {sorted(unknown)}; expected {PARAMS} or 'pose'")
    return np.array([n in names for n in PARAMS])


def _prior_residuals(p: NDArray, camera: CameraModel, priors: Priors | None, free: NDArray):
    if priors is None:
        return np.zeros(0)
    w, h = camera.size_px
    centre = np.zeros(len(PARAMS))
    centre[:3] = (priors.f_px, (w - 1) / 2.0, (h - 1) / 2.0)
    scales = _prior_scales(camera, priors)
    on = free & (scales != 0.0)
    q = p.copy()
    q[0] = abs(p[0])
    q *= (priors.f_px / q[0]) ** _LENS_POWER
    return (q[on] - centre[on]) * scales[on]


def prior_residuals(camera: CameraModel, priors: Priors, free: Sequence[str]) -> NDArray:
    """The priors' residuals (in sigmas) of the ``free`` parameters of ``camera``."""
    return _prior_residuals(camera_params(camera), camera, priors, _free_mask(free))


def _prior_scales(camera: CameraModel, priors: Priors) -> NDArray[np.float64]:
    """1 / sigma (``PARAMS`` order) of each parameter's prior; 0 where there is none."""
    scales = np.zeros(len(PARAMS))
    scales[0] = 1.0 / (priors.f_sigma * priors.f_px)
    scales[1] = scales[2] = 1.0 / (priors.centre_sigma * camera.size_px[0])
    scales[4] = 1.0 / priors.k2_sigma
    scales[11] = scales[12] = 1.0 / priors.tangential_sigma
    return scales


def _prior_rows(
    camera: CameraModel, priors: Priors, mask: NDArray, skip: NDArray | None = None
) -> NDArray[np.float64]:
    """Derivatives (m, k) of the priors' residuals by the k free parameters: one row per prior
    on a free parameter, those on ``skip`` (a ``PARAMS`` mask) left out.

    A distortion prior moves with f too (``_LENS_POWER``): the lens it holds is the one seen
    in the picture, whatever f the fit settles on.
    """
    p = camera_params(camera)
    f = abs(p[0])
    scales = _prior_scales(camera, priors)
    on = mask & (scales != 0.0)
    if skip is not None:
        on &= ~skip
    rows = np.zeros((int(on.sum()), len(PARAMS)))
    ratio = (priors.f_px / f) ** _LENS_POWER
    for row, j in zip(rows, np.flatnonzero(on), strict=True):
        row[j] = scales[j] * ratio[j]
        if j != 0:
            row[0] = -_LENS_POWER[j] * p[j] * ratio[j] / f * scales[j]
    return rows[:, mask]


def _optimise(residual_fn, camera: CameraModel, free: Sequence[str], max_nfev: int):
    mask = _free_mask(free)
    p0 = camera_params(camera)

    def full(x: NDArray) -> NDArray:
        p = p0.copy()
        p[mask] = x
        return p

    result = least_squares(
        lambda x: residual_fn(full(x), mask),
        p0[mask],
        x_scale="jac",
        # Levenberg-Marquardt (MINPACK, QR): an order faster here than the SVD-based "trf";
        # the robust loss is applied in the residuals, which "lm" allows.
        method="lm",
        max_nfev=max_nfev * (int(mask.sum()) + 1),
    )
    return camera_from_params(full(result.x), camera)


# --------------------------------------------------------------------------- fine fit
def residuals_px(camera: CameraModel, model: ModelSamples, centre_px: NDArray) -> NDArray:
    """Signed distance ``(n,)`` in pixels of each measured centre from its projected model line.

    Measured along the projected normal of the model line at the sample's foot point, so a
    sample may slide along its line (the foot point need not correspond exactly).
    """
    n = len(model)
    pts = np.concatenate([model.foot_mm, model.foot_mm + model.normal_mm])
    try:
        px = camera.project(pts)
    except ValueError:
        return np.full(n, _FAR_PX)
    u = px[n:] - px[:n]
    u /= np.maximum(np.hypot(u[:, 0], u[:, 1]), 1e-9)[:, None]
    return np.sum((centre_px - px[:n]) * u, axis=1)


def fit_camera(
    model: ModelSamples,
    centre_px: NDArray,
    camera: CameraModel,
    *,
    free: Sequence[str],
    scale_px: float,
    priors: Priors | None = None,
    max_nfev: int = 30,
) -> CameraModel:
    """Fit the ``free`` parameters so the model lines pass through the measured centres.

    Args:
        model: the model samples; ``centre_px`` (n, 2) the line centres measured on them.
        camera: starting point; parameters not in ``free`` keep its values.
        free: names from ``PARAMS`` or ``"pose"`` (the six pose parameters).
        scale_px: expected spread of good residuals; the soft-L1 loss turns linear beyond it.
        priors: weak priors on f, the principal point and k2 (``Priors``).
    """
    if len(model) != len(centre_px):
        raise ValueError(f"{len(model)} model samples but {len(centre_px)} centres")

    def residual_fn(p: NDArray, mask: NDArray) -> NDArray:
        cam = camera_from_params(p, camera)
        r = residuals_px(cam, model, centre_px) / scale_px
        return np.concatenate([_soft_l1_sqrt(r), _prior_residuals(p, camera, priors, mask)])

    return _optimise(residual_fn, camera, free, max_nfev)


def focal_sigma(
    model: ModelSamples,
    centre_px: NDArray,
    camera: CameraModel,
    *,
    free: Sequence[str],
    priors: Priors | None = None,
    inflation: float = 1.0,
) -> float:
    """Relative 1-sigma uncertainty of f that the line samples leave (``data_covariance``).

    Large (tens of percent) when the camera looks straight down: f and the height trade off.
    0 when f is not free.
    """
    if "f" not in free:
        return 0.0
    cov = data_covariance(
        model, centre_px, camera, free=free, of=("f",), priors=priors, inflation=inflation
    )
    return math.sqrt(float(cov[0, 0])) / camera.fx_px


def data_covariance(
    model: ModelSamples,
    centre_px: NDArray,
    camera: CameraModel,
    *,
    free: Sequence[str],
    of: Sequence[str],
    priors: Priors | None = None,
    inflation: float = 1.0,
) -> NDArray[np.float64]:
    """Covariance (k, k) of the free parameters ``of`` that the line samples leave, from the
    fit's Jacobian at ``camera`` and the spread of the residuals; inf where they say nothing.

    The priors on the other free parameters count, those on ``of`` do not: this is what the
    data say of them. Neighbouring samples are not independent (they share the paint's and
    the lens' errors): ``inflation`` scales the samples' noise, not the priors.
    """
    mask = _free_mask(free)
    wanted = np.isin(np.array(PARAMS), list(of))
    if (wanted & ~mask).any():
        raise ValueError(f"data_covariance: {of} must be among the free parameters {free}")
    jac = _line_jacobian(model, centre_px, camera, mask, inflation)
    if priors is not None:
        # Each prior is one more row: d(prior residual) / d(parameter); none on ``of``.
        jac = np.concatenate([jac, _prior_rows(camera, priors, mask, skip=wanted)])
    # The information on ``of`` is that of the part of their columns no other parameter can
    # mimic (Schur complement), stable where they trade off exactly (then it is infinite).
    sel = wanted[mask]
    own, others = jac[:, sel], jac[:, ~sel]
    others = others / np.maximum(np.linalg.norm(others, axis=0), 1e-300)
    unique = own - others @ np.linalg.lstsq(others, own, rcond=1e-10)[0]
    info = unique.T @ unique
    scale = np.maximum(np.sum(own * own, axis=0), 1e-300)
    if np.linalg.cond(info) > 1e12 or (np.diag(info) <= 1e-24 * scale).any():
        return np.full((len(of), len(of)), math.inf)
    return np.linalg.inv(info)


def posterior_covariance(
    model: ModelSamples,
    centre_px: NDArray,
    camera: CameraModel,
    *,
    free: Sequence[str],
    priors: Priors | None = None,
    inflation: float = 1.0,
    log_f_sigma: float | None = None,
    principal_along: tuple[NDArray, float] | None = None,
) -> NDArray[np.float64]:
    """Covariance (k, k) of the ``k`` free parameters (``PARAMS`` order) given the line
    samples and every prior, f's included: what is known of the camera after the fit.

    Where the lines do not pin f (a camera looking nearly straight down) its uncertainty is
    that of its prior, the guess of a usual mount height, and the height's with it.
    ``log_f_sigma``: one more measurement of log f of that sigma (the goals' balance).
    ``principal_along``: (unit image direction (2,), sigma px), one more measurement of the
    principal point along that direction (the goals' balance in a view straight down).
    Samples' noise as in ``data_covariance``.
    """
    mask = _free_mask(free)
    jac = _line_jacobian(model, centre_px, camera, mask, inflation)
    rows = []
    if priors is not None:
        rows.append(_prior_rows(camera, priors, mask))
    if log_f_sigma is not None and mask[0]:
        row = np.zeros(len(PARAMS))
        row[0] = 1.0 / (camera.fx_px * log_f_sigma)
        rows.append(row[mask][None])
    if principal_along is not None and mask[1] and mask[2]:
        direction, sigma_px = principal_along
        row = np.zeros(len(PARAMS))
        row[1:3] = np.asarray(direction, dtype=np.float64) / sigma_px
        rows.append(row[mask][None])
    if rows:
        jac = np.concatenate([jac, *rows])
    # Columns scaled to unit norm: the parameters' units differ by many orders of magnitude.
    norm = np.maximum(np.linalg.norm(jac, axis=0), 1e-300)
    info = (jac / norm).T @ (jac / norm)
    return np.linalg.pinv(info, rcond=1e-12) / np.outer(norm, norm)


def centre_covariance(
    camera: CameraModel, params_cov: NDArray[np.float64], free: Sequence[str]
) -> NDArray[np.float64]:
    """Covariance (3, 3) mm^2 of the camera centre (pitch x, y, height) from that of the free
    parameters (``posterior_covariance``), by the centre's derivatives."""
    mask = _free_mask(free)
    p0 = camera_params(camera)
    c0 = camera.centre_mm
    grad = []
    for k in np.flatnonzero(mask):
        h = 1e-6 * max(abs(p0[k]), 1.0)
        p = p0.copy()
        p[k] += h
        grad.append((camera_from_params(p, camera).centre_mm - c0) / h)
    g = np.stack(grad, axis=1)
    return g @ params_cov @ g.T


def _line_jacobian(model, centre_px, camera, mask, inflation: float) -> NDArray[np.float64]:
    """Derivatives (n, k) of the samples' residuals by the free parameters, over the samples'
    noise (their robust spread times ``inflation``)."""
    p0 = camera_params(camera)
    r0 = residuals_px(camera, model, centre_px)
    cols = []
    for k in np.flatnonzero(mask):
        h = 1e-6 * max(abs(p0[k]), 1.0)
        p = p0.copy()
        p[k] += h
        cols.append((residuals_px(camera_from_params(p, camera), model, centre_px) - r0) / h)
    sigma_px = inflation * max(1.4826 * float(np.median(np.abs(r0 - np.median(r0)))), 0.02)
    return np.stack(cols, axis=1) / sigma_px


def _soft_l1_sqrt(r: NDArray) -> NDArray:
    """Residuals whose squares are the soft-L1 loss 2(sqrt(1 + r^2) - 1), signs kept.

    Applying the loss here rather than through ``least_squares(loss=...)`` leaves the priors
    quadratic, which is what a Gaussian prior is.
    """
    return np.sign(r) * np.sqrt(2.0 * (np.sqrt(1.0 + r * r) - 1.0))


# --------------------------------------------------------------------------- coarse fits
def initial_camera(
    corners_px: NDArray, corners_mm: NDArray, intrinsics: CameraModel
) -> CameraModel:
    """``intrinsics`` (its pose ignored) posed by the four outer corners of the playing area.

    A flat target has two poses that fit its corners nearly as well (IPPE returns both), and
    OpenCV's IPPE breaks down on a view exactly straight down with the pitch square to the
    image (both of its answers then put the camera under the cloth, hundreds of pixels off).
    So the candidates of IPPE and SQPnP are pooled and the best fitting one with the camera
    above the cloth, looking down at it (``is_above_cloth``), is kept: the corners are ordered
    with the pitch frame right-handed and home at x < 0, which a camera above the cloth sees
    only one way round.

    Args:
        corners_px: (4, 2) image corners; corners_mm: (4, 2) the matching pitch corners, mm.
        intrinsics: focal length, principal point and distortion to assume.

    Raises:
        ValueError: no pose with the camera above the cloth fits the corners.
    """
    obj = np.concatenate([corners_mm, np.zeros((4, 1))], axis=1).astype(np.float64)
    img = np.asarray(corners_px, np.float64)
    best, best_err = None, math.inf
    for rvec, tvec in _pose_candidates(obj, img, intrinsics):
        camera = replace(
            intrinsics,
            rvec_rad=tuple(float(v) for v in rvec.ravel()),
            tvec_mm=tuple(float(v) for v in tvec.ravel()),
        )
        # A pose found for a strongly warped lens guess may put part of the pitch behind the
        # camera (the distortion folds back inside the picture): not a physical answer.
        if not (is_above_cloth(camera) and is_in_front(camera, obj)):
            continue
        err = float(np.max(np.hypot(*(camera.project(obj) - img).T)))
        if err < best_err:
            best, best_err = camera, err
    if best is None:
        raise ValueError(
            "no camera pose above the cloth fits the four corners of the pitch: the outline "
            "found in the picture is not the playing area"
        )
    return best


def _pose_candidates(obj: NDArray, img: NDArray, intrinsics: CameraModel):
    """(rvec, tvec) pairs of every solver's solutions for the corners; failures give none."""
    k = intrinsics.camera_matrix
    dist = np.asarray(intrinsics.dist, np.float64)
    for flags in (cv2.SOLVEPNP_IPPE, cv2.SOLVEPNP_SQPNP):
        try:
            n, rvecs, tvecs, _ = cv2.solvePnPGeneric(obj, img, k, dist, flags=flags)
        except cv2.error:
            continue
        yield from zip(rvecs[:n], tvecs[:n], strict=True)


def is_above_cloth(camera: CameraModel) -> bool:
    """The physical pose: camera centre above the cloth (z > 0) and optical axis pointing down.

    The pitch is symmetric, so its lines fit the mirror pose under the cloth (pitch +y toward
    the image bottom) just as well; only this tells the two apart.
    """
    axis_z = camera.rotation[2, 2]  # pitch z of the optical axis (third row of R)
    return bool(camera.centre_mm[2] > 0.0 and axis_z < 0.0)


def is_in_front(camera: CameraModel, xyz_mm: NDArray) -> bool:
    """Whether every point (n, 3) mm lies in front of the camera (it can project them)."""
    depth = np.asarray(xyz_mm, np.float64) @ camera.rotation[2] + camera.tvec_mm[2]
    return bool(np.all(depth > 0.0))


def start_from_corners(
    distance_px: NDArray[np.float32],
    scale: float,
    points_mm: NDArray,
    corners_px: NDArray,
    corners_mm: NDArray,
    intrinsics: CameraModel,
    k1_grid: Sequence[float] = K1_GRID,
    truncate_px: float = 12.0,
) -> CameraModel:
    """The corner pose (``initial_camera``) for each k1 of a grid; the one nearest the ridges.

    The corners fix where the four outer corners go whatever k1 is, so strong barrel distortion
    shows only along the lines between them: a local fit from k1 = 0 stalls far from it.
    """
    best, best_cost = None, math.inf
    for k1 in k1_grid:
        lens = replace(intrinsics, dist=(float(k1), *intrinsics.dist[1:]))
        camera = initial_camera(corners_px, corners_mm, lens)
        cost = float(np.sum(chamfer_distances(distance_px, scale, points_mm, camera, truncate_px)))
        if cost < best_cost:
            best, best_cost = camera, cost
    return best


def guess_focal_px(corners_px: NDArray, corners_mm: NDArray) -> float:
    """Focal length that puts the camera ``TYPICAL_HEIGHT_MM`` above a pitch this size."""
    side_px = np.hypot(*(np.roll(corners_px, -1, axis=0) - corners_px).T)
    side_mm = np.hypot(*(np.roll(corners_mm, -1, axis=0) - corners_mm).T)
    return float(TYPICAL_HEIGHT_MM * side_px.sum() / side_mm.sum())


def fit_to_distance_map(
    distance_px: NDArray[np.float32],
    scale: float,
    points_mm: NDArray,
    camera: CameraModel,
    *,
    free: Sequence[str],
    truncate_px: float,
    priors: Priors | None = None,
    max_nfev: int = 40,
) -> CameraModel:
    """Chamfer fit: move the projected model points onto the detected ridges.

    Args:
        distance_px: distance transform of the ridge mask, in its own pixels, of an image
            downscaled by ``scale`` (full-resolution pixel = ``scale`` x map pixel).
        points_mm: (n, 2) points on the model lines' centres.
        camera: starting point (full-resolution pixels).
        free: as ``fit_camera``.
        truncate_px: distances are capped here (map pixels): a point far from every ridge (a
            hidden line, a line off the image) pulls no harder than this.
    """

    def residual_fn(p: NDArray, mask: NDArray) -> NDArray:
        cam = camera_from_params(p, camera)
        r = chamfer_distances(distance_px, scale, points_mm, cam, truncate_px)
        return np.concatenate([r, _prior_residuals(p, camera, priors, mask)])

    return _optimise(residual_fn, camera, free, max_nfev)


def chamfer_distances(
    distance_px: NDArray[np.float32],
    scale: float,
    points_mm: NDArray,
    camera: CameraModel,
    truncate_px: float,
) -> NDArray[np.float64]:
    """Distance (n,) from each projected model point to the nearest ridge, capped (map pixels).

    Points off the map (or behind the camera) read the cap, so they pull no harder than a point
    far from every ridge.
    """
    pts = np.concatenate([points_mm, np.zeros((len(points_mm), 1))], axis=1)
    try:
        xy = camera.project(pts) / scale
    except ValueError:
        return np.full(len(pts), truncate_px)
    d = bilinear(distance_px, xy, outside=truncate_px)
    # A smooth cap (tanh) rather than a hard one keeps the cost differentiable for the fit.
    return truncate_px * np.tanh(d.astype(np.float64) / truncate_px)


def bilinear(image: NDArray, xy: NDArray, outside: float) -> NDArray[np.float64]:
    """Bilinear samples (n,) of a single-channel image at points (n, 2), float64 throughout.

    (``cv2.remap`` rounds positions to 1/32 pixel, which leaves the fit's finite-difference
    derivatives zero.) Points off the image read ``outside``.
    """
    h, w = image.shape
    x, y = xy[:, 0], xy[:, 1]
    ok = (x >= 0) & (y >= 0) & (x <= w - 1) & (y <= h - 1)  # False for NaN too
    x, y = np.where(ok, x, 0.0), np.where(ok, y, 0.0)
    x0 = np.clip(np.floor(x), 0, w - 2).astype(np.int64)
    y0 = np.clip(np.floor(y), 0, h - 2).astype(np.int64)
    fx, fy = np.where(ok, x - x0, 0.0), np.where(ok, y - y0, 0.0)
    img = image.astype(np.float64, copy=False)
    top = img[y0, x0] * (1 - fx) + img[y0, x0 + 1] * fx
    bottom = img[y0 + 1, x0] * (1 - fx) + img[y0 + 1, x0 + 1] * fx
    return np.where(ok, top * (1 - fy) + bottom * fy, outside)
