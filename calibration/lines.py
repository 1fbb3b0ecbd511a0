"""Finding the white lines on the cloth: the cloth, the line ridges, sub-pixel edges.

Nothing here is tuned to one cloth or one light. The cloth's colour is learnt from the picture
(the coloured chroma cluster, k-means on Lab a*b*, that fills the picture's centre: bright or
dark green, olive, teal, blue, whatever the dye and the light's tint make of it), and the
"whiteness" signal weighs each colour channel by how far the cloth is from white in it (for a
green cloth mostly red and blue, so paint stands out and green figures or shadows do not).
Thresholds are relative to the picture's own levels, so a lighting gradient or a dim corner
only scales them.

Arrays are images ``(h, w)`` indexed [row, col]; points are ``(n, 2)`` in x, y pixel order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray
from scipy.ndimage import gaussian_filter1d
from scipy.special import erf

from calibration.calibration_file import CalibrationError
from calibration.kmeans import kmeans

# Profiles are sampled every half pixel across a line.
PROFILE_STEP_PX = 0.5
_DARK_LEVEL = 20  # median grey level below which a picture is too dark to calibrate from
# Chroma clusters this close to the cloth's hue, and to its chroma per lightness, are cloth.
CLOTH_HUE_TOL_DEG = 8.0
CLOTH_VIVID_TOL = 0.25
# A camera mounted high with a wide 16:9 view, turned, shows the whole table in a fifth of
# the picture or less (an eighth from 2 m up); less than this is no table in view.
_MIN_CLOTH_FRACTION = 0.08
# Least Lab chroma (a*, b* distance from grey) of a cloth: a grey-green baize reads about 15, a
# grey-blue one 8 (Lab compresses blue-cyan), a grey picture 0-2.
MIN_CLOTH_CHROMA = 5.0
# The blurred-bar fit of each line profile (``_fit_blurred_bar``): samples this far beyond
# the edges, this many steps, no parameter moving more than this per step.
_BAR_MARGIN_PX = 3.0
_BAR_STEPS = 12
_BAR_MAX_STEP = 0.5
# Line ridges are averaged along segments this many top-hat kernels long, in this many
# directions (``ridge_mask``): straight enough over that span for the centre circle's arc.
LINE_SPAN = 2
LINE_ANGLES = 16
# The blur (Gaussian sigma, px) of the softest lens and codec a picture may come through: the
# extremes of a line's derivative lie about two blur sigmas apart however narrow the line, so
# a line 3 mm wide at 0.4 px/mm reads nearly 3 px wide under a blur of one pixel.
LENS_BLUR_MAX_PX = 1.5


@dataclass(frozen=True, slots=True)
class Cloth:
    """The cloth found in a picture.

    Attributes:
        mask: (h, w) bool, the cloth including the lines and whatever stands on it.
        colour_bgr: (3,) float, typical cloth colour.
        paint_weights: (3,) float, channel weights of the whiteness signal (sum 1).
    """

    mask: NDArray[np.bool_]
    colour_bgr: NDArray[np.float64]
    paint_weights: NDArray[np.float64]


def find_cloth(image_bgr: NDArray[np.uint8]) -> Cloth:
    """Segment the cloth: the dyed region of one chroma that fills the picture's centre.

    Raises:
        CalibrationError: the picture is too dark, or holds no coloured cloth covering at least
            ``_MIN_CLOTH_FRACTION`` of it.
    """
    if image_bgr.ndim != 3 or image_bgr.shape[2] != 3 or image_bgr.dtype != np.uint8:
        raise CalibrationError(
            f"expected a colour picture (h, w, 3) of uint8, got {image_bgr.shape} {image_bgr.dtype}"
        )
    h, w = image_bgr.shape[:2]
    scale = max(1.0, max(h, w) / 400.0)
    small = cv2.resize(
        image_bgr, dsize=(round(w / scale), round(h / scale)), interpolation=cv2.INTER_AREA
    )
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    if np.median(grey) < _DARK_LEVEL:
        raise CalibrationError(
            f"the picture is too dark (median grey level {np.median(grey):.0f} of 255): light "
            "the table evenly or raise the camera's exposure, then calibrate again"
        )
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)
    chroma = lab[:, 1:]
    centres, labels = kmeans(chroma, 4, step=8)
    # A cloth is dyed: any hue (green, olive, teal, blue), but not the grey of a floor, a
    # wall or white paper. Its hue is not assumed: cameras and lights shift it far.
    coloured = np.hypot(*(centres - 128.0).T) >= MIN_CLOTH_CHROMA
    # The camera looks at the table: the cloth is the colour that fills the picture's centre
    # (a floor or wall around the table may cover more of the picture).
    sh, sw = small.shape[:2]
    centre = labels.reshape(sh, sw)[sh // 3 : 2 * sh // 3, sw // 3 : 2 * sw // 3]
    counts = np.bincount(centre.ravel(), minlength=len(centres))
    if not (coloured & (counts > 0)).any():
        raise CalibrationError(
            "no coloured cloth found in the picture: point the camera at the table so the "
            "cloth fills most of the view"
        )
    best = int(np.argmax(np.where(coloured, counts, -1)))
    # Uneven light splits one cloth into chroma clusters: Lab chroma shrinks with lightness.
    # Those with the cloth's hue and its chroma for their lightness are the cloth too (a
    # floor of a near hue is far greyer for its lightness).
    ab = centres - 128.0
    hue = np.arctan2(ab[:, 1], ab[:, 0])
    lightness = np.array([np.median(lab[labels == i, 0]) for i in range(len(centres))])
    vivid = np.hypot(ab[:, 0], ab[:, 1]) / np.maximum(lightness, 1.0)
    alike = (np.abs(np.angle(np.exp(1j * (hue - hue[best])))) < np.deg2rad(CLOTH_HUE_TOL_DEG)) & (
        np.abs(vivid / vivid[best] - 1.0) < CLOTH_VIVID_TOL
    )
    members = chroma[np.isin(labels, np.flatnonzero(coloured & alike))]
    close_px = max(3, round(min(small.shape[:2]) / 40))
    mask_small = largest_region(_cloth_mask(chroma, members).reshape(small.shape[:2]), close_px)
    if mask_small.mean() < _MIN_CLOTH_FRACTION:
        raise CalibrationError(
            f"the cloth covers only {100 * mask_small.mean():.0f} % of the picture: point "
            "the camera at the table so the cloth fills most of the view"
        )
    mask = cv2.resize(mask_small.astype(np.uint8), dsize=(w, h), interpolation=cv2.INTER_NEAREST)
    colour = np.median(small.reshape(-1, 3)[(labels == best)], axis=0).astype(np.float64)
    return Cloth(mask.astype(bool), colour, paint_weights(colour))


def paint_weights(cloth_bgr: NDArray) -> NDArray[np.float64]:
    """Channel weights (3,) of the whiteness signal: each channel by how far the cloth is from
    white in it (mostly red and blue for a green cloth)."""
    weights = np.maximum(255.0 - np.asarray(cloth_bgr, np.float64), 1.0)
    return weights / weights.sum()


def _cloth_mask(chroma: NDArray, members: NDArray) -> NDArray[np.bool_]:
    """Pixels whose chroma is within 4 sigma of the cloth cluster, holes filled, one region."""
    mean = members.mean(axis=0)
    cov = np.cov(members.T) + np.eye(2) * 0.25
    d = chroma - mean
    m2 = np.einsum("ni,ij,nj->n", d, np.linalg.inv(cov), d)
    return m2 < 16.0


def largest_region(mask: NDArray[np.bool_], close_px: int) -> NDArray[np.bool_]:
    """The largest connected region of ``mask`` after closing gaps of ``close_px``, holes filled."""
    m = mask.astype(np.uint8)
    if close_px > 1:
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (close_px, close_px))
        m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, kernel)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(m, connectivity=8)
    if n <= 1:
        return np.zeros(mask.shape, bool)
    biggest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    region = (labels == biggest).astype(np.uint8)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(region)
    cv2.drawContours(filled, contours, contourIdx=-1, color=1, thickness=cv2.FILLED)
    return filled.astype(bool)


def whiteness(image_bgr: NDArray[np.uint8], cloth: Cloth) -> NDArray[np.float32]:
    """The paint signal ``(h, w)`` float32: bright where paint is, low on the cloth."""
    w = cloth.paint_weights.astype(np.float32).reshape(1, 3)
    return cv2.transform(image_bgr.astype(np.float32), m=w)


def ridge_mask(
    white: NDArray[np.float32], cloth_mask: NDArray[np.bool_], kernel_px: int
) -> NDArray[np.bool_]:
    """Thin bright ridges on the cloth: line paint candidates.

    A white top-hat keeps bright structures narrower than ``kernel_px`` (lines; not figures or
    the ball, which are wider); dividing by the local cloth level makes the threshold hold under
    a lighting gradient. The result is averaged along segments ``LINE_SPAN`` kernels long in
    ``LINE_ANGLES`` directions and each pixel keeps its best direction: a line keeps its level
    along itself, while a grainy cloth's speckle, as bright as a faint line pixel by pixel,
    averages away (a pale grained cloth at a low bitrate showed 20 ridge pixels without it).
    Specks smaller than a kernel are dropped.
    """
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (kernel_px, kernel_px))
    opened = cv2.morphologyEx(white, cv2.MORPH_OPEN, kernel)
    # Off the cloth (the surround's texture) nothing is averaged in.
    ratio = np.where(cloth_mask, (white - opened) / (opened + 8.0), 0.0).astype(np.float32)
    inside = cv2.erode(cloth_mask.astype(np.uint8), kernel).astype(bool)
    border = kernel_px // 2 + 1
    inside[:border], inside[-border:], inside[:, :border], inside[:, -border:] = (False,) * 4
    if inside.sum() < 100:
        return np.zeros(white.shape, bool)
    along = [cv2.filter2D(ratio, -1, k) for k in _segments(LINE_SPAN * kernel_px)]
    best = np.max(along, axis=0)
    values = best[inside]
    level = float(np.percentile(values, 99.5))
    # The speckle's spread, in one direction's average (the best of several is biased up:
    # its median is the baseline). Averaged, it is near normal: 4 spreads leave a stray
    # pixel in tens of thousands, which the size test drops.
    noise = float(np.median([_robust_sigma(a[inside]) for a in along]))
    ridges = (best > max(0.35 * level, float(np.median(values)) + 4.0 * noise)) & inside
    # Beyond a line's end the average still reaches it: only pixels brighter than the cloth's
    # typical speckle themselves are its paint.
    speckle = ratio[inside]
    ridges &= ratio > float(np.median(speckle)) + _robust_sigma(speckle)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(ridges.astype(np.uint8))
    big = np.flatnonzero(stats[:, cv2.CC_STAT_AREA] >= 2 * kernel_px)
    return np.isin(labels, big[big > 0])


def _segments(length_px: int) -> list[NDArray[np.float32]]:
    """Averaging kernels along straight segments about ``length_px`` long (odd: centred on
    their pixel), in ``LINE_ANGLES`` directions."""
    length_px += 1 - length_px % 2
    half = (length_px - 1) / 2.0
    out = []
    for a in np.arange(LINE_ANGLES) * (np.pi / LINE_ANGLES):
        k = np.zeros((length_px, length_px), np.float32)
        d = half * np.array([np.cos(a), np.sin(a)])
        p0, p1 = np.round(half - d).astype(int), np.round(half + d).astype(int)
        cv2.line(k, tuple(int(v) for v in p0), tuple(int(v) for v in p1), 1.0, 1, cv2.LINE_AA)
        out.append(k / k.sum())
    return out


def _robust_sigma(values: NDArray) -> float:
    return 1.4826 * float(np.median(np.abs(values - np.median(values))))


@dataclass(frozen=True, slots=True)
class Outline:
    """The outer quadrilateral of the line network: the playing area's corners.

    Attributes:
        corners_px: (4, 2) corners in order around the quadrilateral, starting at an end of the
            long axis: [end A side 1, end B side 1, end B side 2, end A side 2].
        long_axis: (2,) unit image direction of the pitch's length (from end A to end B).
        touches_border: (4,) bool, whether the network reaches the image border beyond the
            sides [end A, side 1, end B, side 2].
    """

    corners_px: NDArray[np.float64]
    long_axis: NDArray[np.float64]
    touches_border: NDArray[np.bool_]


def outline(ridges: NDArray[np.bool_], border_px: int) -> Outline:
    """The outer corners of the ridge network (convex hull extremes on the diagonals).

    Raises:
        CalibrationError: too few ridges to outline a pitch.
    """
    ys, xs = np.nonzero(ridges)
    if len(xs) < 50:
        raise CalibrationError(
            "no white lines found on the cloth: check that the pitch lines are visible and in "
            "focus, and that the table profile (--table) has painted lines"
        )
    pts = np.stack([xs, ys], axis=1).astype(np.float32)
    hull = cv2.convexHull(pts).reshape(-1, 2).astype(np.float64)
    (cx, cy), (rw, rh), angle = cv2.minAreaRect(hull.astype(np.float32))
    a = np.deg2rad(angle)
    u, v = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    if rh > rw:
        u, v, rw, rh = v, -u, rh, rw
    rel = hull - (cx, cy)
    su, sv = rel @ u / (0.5 * rw), rel @ v / (0.5 * rh)
    signs = ((-1, -1), (1, -1), (1, 1), (-1, 1))
    corners = np.array([hull[np.argmax(a_ * su + b_ * sv)] for a_, b_ in signs])
    h, w = ridges.shape
    # Lines running into an image border along much of it: the outline side facing that border
    # is cut off. (A goal behind its line touches the border along a short stretch only.)
    at_border = (
        (hull[:, 0] <= border_px, 1),
        (hull[:, 1] <= border_px, 0),
        (hull[:, 0] >= w - 1 - border_px, 1),
        (hull[:, 1] >= h - 1 - border_px, 0),
    )
    outward = np.array([-u, -v, u, v])  # sides: end A, side 1, end B, side 2
    borders = np.array([[-1.0, 0.0], [0.0, -1.0], [1.0, 0.0], [0.0, 1.0]])
    touches = np.zeros(4, bool)
    for (hit, along), normal in zip(at_border, borders, strict=True):
        extent = np.ptp(hull[:, along])
        if hit.any() and np.ptp(hull[hit, along]) > 0.4 * extent:
            touches[int(np.argmax(outward @ normal))] = True
    return Outline(corners, u, touches)


@dataclass(frozen=True, slots=True)
class Profiles:
    """Line edges found on profiles across model lines; n profiles.

    Attributes:
        lo_px, hi_px: (n,) positions of the two edges along the profile normal, pixels from the
            profile's centre (lo < hi; lo is the edge on the inner side of the line).
        contrast: (n,) paint minus cloth level of the whiteness signal.
        valid: (n,) bool, a thin bright line with two clean edges was found.
    """

    lo_px: NDArray[np.float64]
    hi_px: NDArray[np.float64]
    contrast: NDArray[np.float64]
    valid: NDArray[np.bool_]

    @property
    def centre_px(self) -> NDArray[np.float64]:
        return 0.5 * (self.lo_px + self.hi_px)


def measure_profiles(
    white: NDArray[np.float32],
    centre_px: NDArray,
    normal_px: NDArray,
    half_window_px: float,
    width_px: NDArray,
    spread_px: NDArray | float = 1.0,
    weights: NDArray | None = None,
    fit_bar: bool = False,
) -> Profiles:
    """Find a thin bright line across each profile and its two edges, to a fraction of a pixel.

    Each profile runs along ``normal_px`` (unit, (n, 2)) through ``centre_px`` (n, 2) and is
    the mean of three parallel profiles ``spread_px`` (scalar or (n,)) apart: less noise, the
    same edges on a straight line (use 0 across a spot, whose chords shorten off-centre). The
    line is the brightest stretch of about the expected width ``width_px`` (n,) within
    ``half_window_px``; its edges are the extremes of the profile's derivative on either side,
    refined by a parabola through the three samples around each extreme.

    ``white`` is the whiteness signal (h, w) float32, or with ``weights`` (3,) the BGR picture
    itself, weighted along the profiles only (cheaper than converting a whole frame).

    With ``fit_bar`` the edges are then refined by fitting each profile with a blurred bar
    (``_fit_blurred_bar``): true widths for lines only a few pixels wide, at some cost.
    """
    n = len(centre_px)
    if n == 0:  # no line where it was looked for (a first camera far off): nothing to read
        return Profiles(np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0, bool))
    reach = half_window_px + 1.5 * np.max(width_px, initial=1.0) + 3.0
    s = np.arange(-reach, reach + 1e-9, PROFILE_STEP_PX)
    tangent = np.stack([-normal_px[:, 1], normal_px[:, 0]], axis=1)
    prof = np.zeros((n, len(s)), np.float32)
    spread = np.broadcast_to(np.asarray(spread_px, np.float64), (n,))[:, None]
    for t in (-1.0, 0.0, 1.0):
        pts = (centre_px + t * spread * tangent)[:, None, :] + s[None, :, None] * normal_px[
            :, None, :
        ]
        sampled = cv2.remap(
            white,
            map1=pts[..., 0].astype(np.float32),
            map2=pts[..., 1].astype(np.float32),
            interpolation=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        prof += sampled if weights is None else sampled.astype(np.float32) @ weights
    prof = prof.astype(np.float64) / 3.0
    out = _edges_on_profiles(prof, s, half_window_px, np.asarray(width_px, np.float64))
    if not fit_bar:
        return out
    lo, hi = _fit_blurred_bar(prof, s, out.lo_px, out.hi_px, out.valid)
    return Profiles(lo, hi, out.contrast, out.valid)


def _edges_on_profiles(prof: NDArray, s: NDArray, half_window: float, width: NDArray) -> Profiles:
    n, m = prof.shape
    step = PROFILE_STEP_PX
    rows = np.arange(n)
    # Coarse centre: the brightest mean over the expected width, inside the search window.
    smooth = gaussian_filter1d(prof, sigma=max(1.0, np.median(width) / (2.0 * step)), axis=1)
    in_window = np.abs(s) <= half_window
    centre_i = np.argmax(np.where(in_window[None, :], smooth, -np.inf), axis=1)
    c = s[centre_i]
    grad = gaussian_filter1d(prof, sigma=0.5 / step, axis=1, order=1) / step
    reach = (width + 2.0)[:, None]
    rel = s[None, :] - c[:, None]
    rising = np.where((rel <= 0) & (rel >= -reach), grad, -np.inf)
    falling = np.where((rel >= 0) & (rel <= reach), -grad, -np.inf)
    lo_i, hi_i = np.argmax(rising, axis=1), np.argmax(falling, axis=1)
    lo = s[lo_i] + step * parabola_peak(grad, lo_i)
    hi = s[hi_i] + step * parabola_peak(-grad, hi_i)
    # Cloth level: the profile just beyond each edge; the line must stand clear of both sides.
    outside = (s[None, :] < lo[:, None] - 1.5) | (s[None, :] > hi[:, None] + 1.5)
    near = np.abs(s[None, :] - c[:, None]) <= width[:, None] + 4.0
    left = np.where(outside & near & (s[None, :] < c[:, None]), prof, np.nan)
    right = np.where(outside & near & (s[None, :] > c[:, None]), prof, np.nan)
    with np.errstate(all="ignore"):
        cloth_l, cloth_r = np.nanmedian(left, axis=1), np.nanmedian(right, axis=1)
    peak = prof[rows, centre_i]
    contrast = peak - np.fmax(cloth_l, cloth_r)
    balance = np.abs(cloth_l - cloth_r) < 0.35 * contrast
    measured = hi - lo
    valid = (
        np.isfinite(contrast)
        & (contrast > 0)
        & balance
        & (measured > 0.5 * width)
        & (measured < np.hypot(1.7 * width + 1.0, 2.0 * LENS_BLUR_MAX_PX))
        & (np.abs(0.5 * (lo + hi)) <= half_window)
        & (lo_i > 0)
        & (hi_i < m - 1)
    )
    return Profiles(lo, hi, np.nan_to_num(contrast), valid)


def _fit_blurred_bar(prof: NDArray, s: NDArray, lo: NDArray, hi: NDArray, valid: NDArray):
    """Edges (lo, hi) (n,) of the blurred bar that best fits each valid profile (n, m).

    The extremes of the derivative of a blurred bar lie outside its edges once the bar is
    narrower than about four blur sigmas (the two edges' slopes overlap and push the peaks
    apart): a 3 mm line under 3 px read about 0.2 mm too wide. So each profile, near its line,
    is fitted with the bar itself: ``level + slope s + height (Phi((s - lo) / sigma) -
    Phi((s - hi) / sigma))``, Phi the normal CDF. The blur is the lens' and the sensor's,
    the same for every line: it is fitted per profile first, then fixed at the median and
    the edges fitted again. Profiles whose fit does not settle keep the derivative's edges.
    """
    out_lo, out_hi = lo.copy(), hi.copy()
    if not valid.any():
        return out_lo, out_hi
    # Only the samples near each line take part: a band of k columns around its centre.
    lo_v, hi_v = lo[valid], hi[valid]
    half = int(np.ceil((0.5 * np.max(hi_v - lo_v) + _BAR_MARGIN_PX) / (s[1] - s[0]))) + 1
    centre = np.searchsorted(s, 0.5 * (lo_v + hi_v))
    cols = np.clip(centre[:, None] + np.arange(-half, half + 1)[None, :], 0, len(s) - 1)
    p, v = np.take_along_axis(prof[valid], cols, axis=1), s[cols]
    near = (v >= lo_v[:, None] - _BAR_MARGIN_PX) & (v <= hi_v[:, None] + _BAR_MARGIN_PX)
    outside = ~((v >= lo[valid, None] - 1.0) & (v <= hi[valid, None] + 1.0)) & near
    with np.errstate(all="ignore"):
        level = np.nanmedian(np.where(outside, p, np.nan), axis=1)
    level = np.where(np.isfinite(level), level, p.min(axis=1))
    x = np.stack(
        [
            level,
            np.zeros(len(p)),
            np.max(np.where(near, p, -np.inf), axis=1) - level,
            lo_v,
            hi_v,
            np.full(len(p), 0.7),
        ],
        axis=1,
    )
    x = _gauss_newton(p, v, near, x, free=6)
    if len(x) >= 3:
        x[:, 5] = np.median(x[:, 5])
        x = _gauss_newton(p, v, near, x, free=5)
    ok = (
        np.isfinite(x).all(axis=1)
        & (np.abs(x[:, 3] - lo_v) < 1.0)
        & (np.abs(x[:, 4] - hi_v) < 1.0)
        & (x[:, 4] > x[:, 3])
        & (x[:, 2] > 0)
    )
    idx = np.flatnonzero(valid)[ok]
    out_lo[idx], out_hi[idx] = x[ok, 3], x[ok, 4]
    return out_lo, out_hi


def _bar_model(s: NDArray, x: NDArray) -> tuple[NDArray, NDArray]:
    """The blurred bar (n, m) at ``s`` (n, m) for parameters ``x`` (n, 6) and its Jacobian
    (n, m, 6): level, slope, height, lo, hi, sigma."""
    level, slope, height, lo, hi, sigma = (x[:, k, None] for k in range(6))
    zl, zh = (s - lo) / sigma, (s - hi) / sigma
    cl, ch = 0.5 * (1.0 + erf(zl / np.sqrt(2.0))), 0.5 * (1.0 + erf(zh / np.sqrt(2.0)))
    gl, gh = (
        np.exp(-0.5 * zl * zl) / np.sqrt(2 * np.pi),
        np.exp(-0.5 * zh * zh) / np.sqrt(2 * np.pi),
    )
    f = level + slope * s + height * (cl - ch)
    jac = np.stack(
        [
            np.ones_like(f),
            np.broadcast_to(s, f.shape),
            cl - ch,
            -height * gl / sigma,
            height * gh / sigma,
            -height * (gl * zl - gh * zh) / sigma,
        ],
        axis=2,
    )
    return f, jac


def _gauss_newton(prof: NDArray, s: NDArray, near: NDArray, x: NDArray, free: int) -> NDArray:
    """A few damped Gauss-Newton steps of ``_bar_model`` on the samples ``near`` (n, m) of
    ``prof`` (n, m) at ``s`` (n, m); the first ``free`` parameters move."""
    w = near.astype(np.float64)
    for _ in range(_BAR_STEPS):
        f, jac = _bar_model(s, x)
        jac = jac[..., :free] * w[..., None]
        r = (prof - f) * w
        jt = np.ascontiguousarray(jac.transpose(0, 2, 1))
        jtj = jt @ jac
        jtj += 1e-6 * np.eye(free) * np.maximum(np.trace(jtj, axis1=1, axis2=2), 1.0)[:, None, None]
        step = np.linalg.solve(jtj, jt @ r[..., None])[..., 0]
        x = x.copy()
        # Levels move freely; edges and blur by at most a fraction of a pixel a step.
        step[:, 3:] = np.clip(step[:, 3:], -_BAR_MAX_STEP, _BAR_MAX_STEP)
        x[:, :free] += step
        x[:, 5] = np.clip(x[:, 5], 0.2, 4.0)
    return x


def parabola_peak(values: NDArray, idx: NDArray) -> NDArray:
    """Sub-sample offset (-0.5..0.5) of the peak of a parabola through idx-1, idx, idx+1."""
    m = values.shape[1]
    i = np.clip(idx, 1, m - 2)
    rows = np.arange(len(idx))
    a, b, c = values[rows, i - 1], values[rows, i], values[rows, i + 1]
    den = a - 2.0 * b + c
    with np.errstate(all="ignore"):
        off = np.where(np.abs(den) > 1e-12, 0.5 * (a - c) / den, 0.0)
    return np.clip(np.nan_to_num(off), -0.5, 0.5) + (i - idx)


def clean_view(frames: Iterable[NDArray[np.uint8]], max_frames: int = 25) -> NDArray[np.uint8]:
    """The empty table from the first seconds of a video: the per-pixel median of the frames.

    Figures and the ball that move during those seconds vanish; what stands still stays (the
    fit's robust loss copes with it). Uses at most ``max_frames`` frames, spread evenly.

    Raises:
        CalibrationError: no frames, or frames of different sizes.
    """
    stack = list(frames)
    if not stack:
        raise CalibrationError("the video holds no frames to calibrate from")
    if len({f.shape for f in stack}) != 1:
        raise CalibrationError("the frames differ in size: calibrate from one camera's video")
    pick = np.unique(np.linspace(0, len(stack) - 1, min(max_frames, len(stack))).round())
    chosen = np.stack([stack[int(i)] for i in pick])
    out = np.empty(chosen.shape[1:], np.uint8)
    rows = max(1, 2_000_000 // max(1, chosen[0, 0].size * len(chosen)))
    for r in range(0, out.shape[0], rows):
        # Chunks of rows bound the memory of the float median of large frames.
        out[r : r + rows] = np.round(np.median(chosen[:, r : r + rows], axis=0))
    return out
