"""The static layers of a simulated frame: cloth, lines, table frame, light, goals.

Everything here is rendered once per renderer by inverse mapping: each pixel's ray is cast
onto the cloth (z = 0) and the point it sees is shaded, so lens distortion and perspective come
out exactly as the camera model says. Lines are anti-aliased analytically: the painted band is
blurred by a symmetric Gaussian (the pixel footprint in mm plus the ink bleed), so the intensity
centre across every line is exactly its centre geometry.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray
from scipy.ndimage import gaussian_filter
from scipy.special import erf

from calibration.camera import CameraModel
from rules.pitch import LineBand, Pitch
from simulator.look import Look

_SQRT2 = math.sqrt(2.0)
# Pixel footprint as a Gaussian, in pixels: a little wider than a box pixel's 0.29 so that the
# sampled edge profile is band-limited and its centroid does not depend on the pixel phase.
_PIXEL_SIGMA_PX = 0.45
_STRING_WIDTH_MM = 0.6


@dataclass(frozen=True, slots=True)
class PixelMap:
    """What each pixel sees, computed once per camera.

    Attributes:
        origin_mm: (3,) camera centre in the pitch frame.
        rays: (h + 2, w + 2, 3) float32, unit ray through each pixel centre, with a border of
            one pixel all round (``rays[v + 1, u + 1]`` is pixel (u, v)).
        x_mm, y_mm: (h, w) float32, cloth point (z = 0) on each pixel's ray.
        mm_per_px: (h, w) float32, local scale on the cloth.
        gain: (h, w) float32, uneven light times vignetting (multiplies every colour).
    """

    origin_mm: NDArray[np.float64]
    rays: NDArray[np.float32]
    x_mm: NDArray[np.float32]
    y_mm: NDArray[np.float32]
    mm_per_px: NDArray[np.float32]
    gain: NDArray[np.float32]

    @classmethod
    def build(cls, camera: CameraModel, pitch: Pitch, look: Look) -> PixelMap:
        w, h = camera.size_px
        u, v = np.meshgrid(np.arange(-1.0, w + 1.0), np.arange(-1.0, h + 1.0))
        origin, dirs = camera.rays(np.stack([u.ravel(), v.ravel()], axis=1))
        dirs = (dirs / np.linalg.norm(dirs, axis=1, keepdims=True)).reshape(h + 2, w + 2, 3)
        inner = dirs[1:-1, 1:-1]
        reach = -origin[2] / inner[..., 2]
        x_mm, y_mm = origin[0] + reach * inner[..., 0], origin[1] + reach * inner[..., 1]
        dxu, dxv = np.gradient(x_mm, axis=1), np.gradient(x_mm, axis=0)
        dyu, dyv = np.gradient(y_mm, axis=1), np.gradient(y_mm, axis=0)
        mm_per_px = np.sqrt(np.abs(dxu * dyv - dxv * dyu))
        # Uneven light: a smooth ramp across the table, from 1 - g/2 to 1 + g/2.
        a = math.radians(look.light_angle_deg)
        half = 0.5 * math.hypot(pitch.profile.length_mm, pitch.profile.width_mm)
        ramp = np.clip((x_mm * math.cos(a) + y_mm * math.sin(a)) / half, -1.2, 1.2)
        light = 1.0 + 0.5 * look.light_gradient * ramp
        u, v = u[1:-1, 1:-1], v[1:-1, 1:-1]
        cx, cy = camera.cx_px, camera.cy_px
        r2 = ((u - cx) ** 2 + (v - cy) ** 2) / (max(cx, w - 1 - cx) ** 2 + max(cy, h - 1 - cy) ** 2)
        gain = light * (1.0 - look.vignetting * r2)
        return cls(
            origin,
            dirs.astype(np.float32),
            x_mm.astype(np.float32),
            y_mm.astype(np.float32),
            mm_per_px.astype(np.float32),
            gain.astype(np.float32),
        )

    def sample_rays(self, x0: int, y0: int, w: int, h: int, s: int) -> NDArray[np.float64]:
        """Unit rays ``(h*s, w*s, 3)`` on an s x s grid inside each pixel of a window.

        Interpolated bilinearly between the exact rays through the pixel centres: rays vary
        so smoothly that the error is far below a thousandth of a pixel, and it spares the
        lens model's iterative undistortion per frame.
        """
        offs = (np.arange(s) + 0.5) / s - 0.5
        xs = (np.arange(x0, x0 + w)[:, None] + offs).ravel() + 1.0  # +1: the border
        ys = (np.arange(y0, y0 + h)[:, None] + offs).ravel() + 1.0
        ix, iy = np.floor(xs).astype(int), np.floor(ys).astype(int)
        fx, fy = (xs - ix)[None, :, None], (ys - iy)[:, None, None]
        sub = self.rays[iy[0] : iy[-1] + 2, ix[0] : ix[-1] + 2].astype(np.float64)
        ix, iy = ix - ix[0], iy - iy[0]
        across = sub[:, ix] * (1.0 - fx) + sub[:, ix + 1] * fx
        rays = across[iy] * (1.0 - fy) + across[iy + 1] * fy
        rays /= np.linalg.norm(rays, axis=2, keepdims=True)
        return rays


def cloth_layer(pix: PixelMap, pitch: Pitch, look: Look, seed: int) -> NDArray[np.float32]:
    """Cloth, lines, table frame and floor, lit: (h, w, 3) float32 BGR in grey levels."""
    texture = _texture(pix, seed)
    paint = line_coverage(pix, pitch, look)
    sigma = _PIXEL_SIGMA_PX * pix.mm_per_px
    hx, hy = pitch.cloth_half_extent_mm
    outside_cloth = np.maximum(np.abs(pix.x_mm) - hx, np.abs(pix.y_mm) - hy)
    on_cloth = _edge(outside_cloth, sigma)
    on_table = _edge(outside_cloth - look.frame_width_mm, sigma)
    tex = 1.0 + look.cloth_texture * texture
    grass = _bgr(look.cloth_bgr) * _stripes(pix, pitch, look, sigma)[..., None]
    cloth = _mix(grass, _bgr(look.line_bgr), paint) * tex[..., None]
    frame = _bgr(look.surround_bgr) * (1.0 + 1.5 * look.cloth_texture * texture[..., None])
    floor = _bgr(look.floor_bgr) * (1.0 + 0.5 * look.cloth_texture * texture[..., None])
    img = _mix(_mix(floor, frame, on_table), cloth, on_cloth)
    return (img * pix.gain[..., None]).astype(np.float32)


def line_coverage(pix: PixelMap, pitch: Pitch, look: Look) -> NDArray[np.float32]:
    """Paint coverage (h, w) in 0..1 of every pixel: the max over all lines."""
    sigma = np.sqrt((_PIXEL_SIGMA_PX * pix.mm_per_px) ** 2 + look.line_softness_mm**2)
    cover = np.zeros(pix.x_mm.shape, np.float32)
    for band in pitch.lines:
        lo, hi = _band_bounds(band)
        reach = float(4.0 * sigma.max())
        rows, cols = np.nonzero(
            (pix.x_mm >= lo[0] - reach)
            & (pix.x_mm <= hi[0] + reach)
            & (pix.y_mm >= lo[1] - reach)
            & (pix.y_mm <= hi[1] + reach)
        )
        if len(rows) == 0:
            continue
        xy = np.stack([pix.x_mm[rows, cols], pix.y_mm[rows, cols]], axis=1).astype(np.float64)
        c = _band_coverage(band, xy, sigma[rows, cols].astype(np.float64))
        cover[rows, cols] = np.maximum(cover[rows, cols], c)
    return cover


def _band_coverage(band: LineBand, xy: NDArray, sigma: NDArray) -> NDArray[np.float64]:
    """A box across the band (and along a finite line) blurred by a Gaussian of ``sigma``."""
    d = band.offset_mm(xy) - 0.5 * (band.inner_mm + band.outer_mm)
    half = 0.5 * band.width_mm
    k = 1.0 / (_SQRT2 * sigma)
    across = 0.5 * (erf((half - d) * k) + erf((half + d) * k))
    if band.shape == "arc" and band.sweep_rad >= 2.0 * math.pi - 1e-12:
        return across
    s = band.along_mm(xy)
    if band.shape == "arc":
        full = 2.0 * math.pi * band.radius_mm
        s = np.where(s > 0.5 * (band.length_mm + full), s - full, s)
    along = 0.5 * (erf(s * k) - erf((s - band.length_mm) * k))
    return across * along


def _band_bounds(band: LineBand) -> tuple[NDArray, NDArray]:
    pad = max(abs(band.inner_mm), abs(band.outer_mm))
    if band.shape == "segment":
        a, b = np.asarray(band.a_mm), np.asarray(band.b_mm)
        return np.minimum(a, b) - pad, np.maximum(a, b) + pad
    c = np.asarray(band.a_mm)
    return c - band.radius_mm - pad, c + band.radius_mm + pad


def _texture(pix: PixelMap, seed: int) -> NDArray[np.float32]:
    """Fine felt texture fixed to the cloth: two wrapped noise tiles of unrelated periods."""
    rng = np.random.default_rng([seed, 7])
    out = np.zeros(pix.x_mm.shape, np.float32)
    # Fibre grain (~0.5 mm), a faint weave-scale ripple (~5 mm), gentle mottling (~10 cm).
    tiles = ((257, 0.35, 0.8, 0.85), (199, 2.3, 1.5, 0.3), (131, 9.0, 3.0, 0.35))
    for size, mm_per_texel, blur, weight in tiles:
        tile = rng.standard_normal((size, size)).astype(np.float32)
        tile = gaussian_filter(tile, sigma=blur, mode="wrap")
        tile /= tile.std()
        out += weight * cv2.remap(
            tile,
            map1=pix.x_mm / mm_per_texel,
            map2=pix.y_mm / mm_per_texel,
            interpolation=cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_WRAP,
        )
    return out / math.sqrt(sum(t[3] ** 2 for t in tiles))


def _stripes(pix: PixelMap, pitch: Pitch, look: Look, sigma_mm: NDArray) -> NDArray[np.float32]:
    """Brightness (h, w) of mown-lawn bands across the pitch: 1 +- mowing_stripes / 2."""
    if look.mowing_stripes == 0.0:
        return np.ones(pix.x_mm.shape, np.float32)
    # Centred on the halfway line, and not a divisor of the length: band edges stay clear
    # of the goal lines (a step in brightness right at a line would bias its measured edge).
    band = pitch.profile.length_mm / (look.stripe_count + 0.5)
    phase = pix.x_mm / band + 0.5
    # Distance to the nearest band edge, signed by which band we are in; soft over a pixel.
    to_edge = (0.5 - np.abs(phase - np.floor(phase) - 0.5)) * band
    sign = np.where(np.floor(phase) % 2 == 0, 1.0, -1.0)
    light = sign * (1.0 - 2.0 * _edge(to_edge, sigma_mm))
    return (1.0 + 0.5 * look.mowing_stripes * light).astype(np.float32)


def _edge(outside_mm: NDArray, sigma_mm: NDArray) -> NDArray[np.float32]:
    """Coverage 0..1 of the region where ``outside_mm`` < 0, anti-aliased over ``sigma_mm``."""
    return (0.5 * (1.0 - erf(outside_mm / (_SQRT2 * sigma_mm)))).astype(np.float32)


def _mix(a: NDArray, b: NDArray, w: NDArray) -> NDArray[np.float32]:
    return a + (b - a) * w[..., None]


def _bgr(colour: tuple[int, int, int]) -> NDArray[np.float32]:
    return np.asarray(colour, np.float32)
