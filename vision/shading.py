"""A resting ball's centre from its whole patch: a shaded sphere on a shadowed cloth.

Edges read where the colour turns from the ball's to the cloth's, and the side of a ball that
faces the camera's nadir is its dim lower side, next to its contact shadow: there both are
dark, and wherever an edge is put on that slope, it slides. Here the patch around the ball is
explained instead, pixel by pixel, by what lies there:

- **The silhouette** of a sphere of the profile's radius whose centre stands one radius above
  the cloth, seen through the calibrated camera: each pixel's ray (lens included) meets it or
  passes at some distance. The centre's ``x, y`` mm are the only free geometry.
- **The ball** as a Lambertian sphere: where a ray meets it, its brightness in each colour is
  linear in the surface normal ``n`` there, ``a + b . n``. That holds for any number of distant
  lights (unclamped) and for light from a sky hemisphere (``(1 + n_z) / 2``), so a dim lower
  side is shading the model expects, not an edge moved inward. A marked ball (two-tone, a
  band, spots: its inside in two colours that shading does not explain) gets one such
  shading per tone, each pixel taking the tone the ball shows just inside the silhouette
  along its radius: a dark mark at the limb is ball, not shadow (``_tones``).
- **The cloth**: where cloth may show (beyond the silhouette and within a pixel and a half
  inside it) only the part of a pixel's colour off the learnt background's colour is compared:
  a shadow darkens the cloth and keeps its colour, so the contact shadow and a shadow cast to
  one side, however dark and whatever their shape, are nothing to explain there, and the edge
  is where the ball's own colour fades. Inside, the cloth's part (blurred in from beyond the
  edge) is the background times a light factor that falls near the ball, where the ball hides
  part of the sky from the cloth (the form factor of a sphere seen from a point of the plane,
  ``(1 + (d / r)^2)^-3/2`` at a distance ``d`` from the contact point).
- **Blur**: each pixel averages its sub-samples (near the silhouette), then a Gaussian of free
  width mixes neighbouring pixels (the optics, demosaicing and a codec).
- **Clipped pixels**: a white ball under a strong lamp reaches full scale on its lit side, an
  orange one in its red first. A clipped pixel says only that the light reached at least
  that level, so it bounds the model from below instead of being fitted as a level: a
  shading pulled down to full scale there would lean the ball toward its lit side (0.35-0.65
  px under a lamp 20 degrees up). The whole pixel is a bound, not just its clipped colour:
  in 4:2:0 colour (a codec, most cameras' output) its other colours are rebuilt from the
  clipped one's neighbourhood and are no levels either.

The appearance (14 numbers) is linear given the geometry and is solved by least squares for
each trial (variable projection); the centre and blur width are found by Levenberg-Marquardt,
the pixels weighed by Huber's rule so that what the model lacks (a highlight, a mark) pulls
little. The stated uncertainty is the fit's own covariance, the residuals counted as
correlated over the blur's area, and in quadrature what the model lacks: ``MODEL_SIGMA_PX``
times how many times the residuals on the cloth round the ball (the same sensor and codec),
or the frames' noise if more, those on the ball stand (at least once). On balls
ray-traced with a clamped Lambertian terminator and a hard cast shadow
(``tests/vision/test_shading.py``) it places the centre 0.03-0.10 px off, where the edges of
the same balls read 0.1-0.7 px off; under a hard light low at the side, a clipped lit half
and a terminator across the ball leave the ball's residuals 2-7 times the cloth's and the
centre up to 0.3 px off, which the covariance alone (0.1 px) does not say. A ball clipped
nearly whole (a lamp high above, twice the light that reaches full scale) is seen by its
fringe and its dim side alone: where the fringe's levels cross full scale depends on how
bright the clipped ball is, which the model extrapolates from its dim side, and a shift of
that crossing moves the edge by a fraction of the blur. Ray-traced balls clipped over all their
inside read 0.3-0.7 px off where the covariance said 0.05-0.13 px; up to half the
inside clipped, they read as well as unclipped balls (within 0.4 px and about twice the
covariance under a wide blur); beyond, the larger errors come as little but the fringe is left.
In quadrature, the doubt grows from nothing at half the inside clipped to ``CLIPPED_SIGMA_PX``
with all of it, as the square of the share beyond half.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.kmeans import kmeans
from vision.colour import shaded_distance
from vision.geometry import FastCamera

SUPERSAMPLE = 3  # sub-samples per pixel and axis, near the silhouette
SUPERSAMPLE_BAND_PX = 2.0  # pixels this near the start's silhouette are sub-sampled
OUTSIDE_PX = 1.5  # pixels farther out than this inside the silhouette show no cloth
BAND_PX = 3.0  # the patch reaches this far beyond the silhouette
PAD_PX = 3  # pixels modelled beyond the patch, for the blur at its border
STEPS = 8  # Levenberg-Marquardt steps at most
DONE_PX = 0.01  # a step shorter than this ends the fit
SETTLED_PX = 0.05  # a fit whose last step taken moved its centre this far is still moving
MODEL_SIGMA_PX = 0.05  # what the model lacks (see the module docstring)
CLIPPED_SIGMA_PX = 0.35  # ... with the ball's inside clipped whole (see the module docstring)
CLIPPED_FREE = 0.5  # ... and with this share of it clipped, nothing yet
SATURATED_LEVEL = 250  # a pixel with a channel this bright may be clipped (8-bit)
CLIPPED_ROUNDS = 3  # rounds of holding the model up to the clipped pixels
HUBER = 2.0  # residuals beyond this many robust sigmas are weighed down
START_BLUR_PX = 0.6
BLUR_RANGE_PX = (0.15, 1.5)
# A marked ball (two-tone, a band, spots): a pixel's tone is read this far inside the
# silhouette along its radius, where no cloth is mixed in; each tone must hold at least this
# share of the ball's inside, and differ from the other by more than shading does.
TONE_INSIDE_PX = 2.0
TONE_MIN_SHARE = 0.1
TONE_SHADING = (0.3, 1.4)


@dataclass(frozen=True, slots=True)
class PatchFits:
    """Fits of ``k`` balls.

    Attributes:
        centre_mm: (k, 2) the sphere's centre (and so its ground point) on the pitch.
        sigma_mm: (k,) standard uncertainty of the centre.
        blur_px: (k,) the fitted blur's Gaussian width.
        ok: (k,) the fit converged on a ball-like patch.
    """

    centre_mm: NDArray[np.float64]
    sigma_mm: NDArray[np.float64]
    blur_px: NDArray[np.float64]
    ok: NDArray[np.bool_]


def fit_ball_patches(
    image: NDArray[np.uint8],
    background: NDArray[np.uint8],
    cam: FastCamera,
    centres_mm: NDArray,
    r_mm: float,
    noise: float = 0.0,
) -> PatchFits:
    """Fit the patches of balls whose centres are near ``centres_mm (k, 2)`` (mm, on the
    plane one radius ``r_mm`` above the cloth) in ``image`` and its ``background`` (h, w, 3)
    uint8 BGR, whose noise per channel is ``noise`` grey levels; see the module docstring."""
    start = np.asarray(centres_mm, np.float64).reshape(-1, 2)
    k = len(start)
    out = np.zeros((k, 2)), np.zeros(k), np.zeros(k), np.zeros(k, bool)
    for i in range(k):  # one ball, rarely two
        patch = _Patch.cut(image, background, cam, start[i], r_mm)
        if patch is None:
            out[0][i] = start[i]
            continue
        centre, sigma, blur, ok = patch.fit(start[i], noise)
        out[0][i], out[1][i], out[2][i], out[3][i] = centre, sigma, blur, ok
    return PatchFits(*out)


def _tones(patch_bgr, px, py, c_px, r_px: float, rim) -> NDArray[np.float64] | None:
    """Which of two tones ``(h * w,)`` 0/1 the ball shows at each pixel of ``patch_bgr
    (h, w, 3)`` (pixel coordinates ``px, py`` and the silhouette's centre ``c_px`` in the
    patch, ``rim`` px from the silhouette), or None for a ball of one colour.

    A marked ball (two-tone, a band, spots) is two colours, each shaded as the sphere is:
    one linear shading cannot explain both, and a dark mark at the limb is ball, not shadow.
    The inside's colours fall in two clusters; they are two tones when both are common and
    they differ by more than shading does (a plain ball's dim side is its lit side darker).
    Each pixel takes the tone of the ball ``TONE_INSIDE_PX`` inside the silhouette along
    its radius (a pixel at the limb: the limb's tone, with no cloth mixed in).
    """
    inside = rim < -TONE_INSIDE_PX
    pix = patch_bgr[inside].astype(np.float32)
    if len(pix) < 20:
        return None
    centres, labels = kmeans(pix, 2, iterations=20)
    share = float(labels.mean())
    if min(share, 1.0 - share) < TONE_MIN_SHARE:
        return None
    bright = int(np.argmax(centres.sum(1)))
    dark = centres[1 - bright]
    d = float(shaded_distance(dark[None], centres[bright][None], TONE_SHADING)[0, 0])
    if d < 0.2 * float(np.linalg.norm(dark)) + 10.0:
        return None
    dx, dy = px - c_px[0], py - c_px[1]
    rho = np.maximum(np.hypot(dx, dy), 1e-9)
    k = np.minimum(1.0, max(r_px - TONE_INSIDE_PX, 0.0) / rho)
    h, w = patch_bgr.shape[:2]
    ix = np.clip(np.rint(c_px[0] + dx * k).astype(np.intp), 0, w - 1)
    iy = np.clip(np.rint(c_px[1] + dy * k).astype(np.intp), 0, h - 1)
    at = patch_bgr[iy, ix].astype(np.float32).reshape(-1, 3)
    near = ((at[:, None, :] - centres[None]) ** 2).sum(2)
    return np.argmin(near, axis=1).astype(np.float64)


@functools.lru_cache(maxsize=8)
def _blur_taps(blur_px: float) -> NDArray[np.float32]:
    """A Gaussian of width ``blur_px`` integrated over each pixel: taps ``(2 j + 1, 1)``
    (read-only: kept for the fit's next evaluations at the same width)."""
    j = max(1, int(np.ceil(3.0 * blur_px)))
    edges = (np.arange(-j, j + 2) - 0.5) / (np.sqrt(2.0) * blur_px)
    cdf = 0.5 * (1.0 + np.array([math.erf(e) for e in edges]))
    taps = np.diff(cdf)
    out = (taps / taps.sum()).astype(np.float32)[:, None]
    out.flags.writeable = False
    return out


class _Patch:
    """The pixels round one ball: their rays (a pixel near the silhouette sub-sampled), where
    those meet the cloth, and the background there."""

    def __init__(
        self, img, bg, proj, rays, ground, band, shape, origin, f_px, mask, r_mm, rim, tone
    ):
        self.img = img  # (n, 3) pixels used
        self.bg = bg  # (n, 3) their background
        self.proj = proj  # (n, 3, 3) what of each pixel's colour is compared
        self.rays = rays  # (p + b * s^2, 3) unit: each pixel's centre, then the band's samples
        self.ground = ground  # (p + b * s^2, 2) where they meet the cloth
        self._rays_t, self._ground_t = rays.T.copy(), ground.T.copy()  # a row per coordinate
        self.band = band  # (b,) which pixels are sub-sampled
        self.shape = shape  # (h, w) of the modelled pixels, the patch with its pad
        self.origin = origin
        self.f_px = f_px
        self.mask = mask  # (h, w) which modelled pixels are used
        self.r = r_mm
        self.rim = rim  # (n,) px from the start's silhouette, + outward
        self.tone = tone  # (h * w,) 0/1 which of a marked ball's two tones, or None
        # Pixels with a channel at full scale (see the module docstring) are bounds, not
        # levels: ``_residual`` holds the model up to them.
        self.seen = (img < SATURATED_LEVEL).all(1)
        self._clipped = img[~self.seen] >= SATURATED_LEVEL  # (c, 3) which channels clipped
        self.weights = self.seen.astype(np.float64)
        self._y = np.einsum("nij,nj->ni", proj, img)  # what is compared of each pixel
        self._sharp_of: tuple[tuple[float, float], NDArray] | None = None  # ``_sharp``'s last

    @classmethod
    def cut(cls, image, background, cam: FastCamera, centre_mm, r_mm):
        origin = cam.centre_mm
        c3 = np.array([centre_mm[0], centre_mm[1], r_mm])
        c_px = cam.project(c3[None])[0]
        depth = float(np.linalg.norm(c3 - origin))
        f_px = float(cam.camera.fx_px)
        r_px = f_px * r_mm / np.sqrt(max(depth**2 - r_mm**2, 1.0))
        half = int(np.ceil(r_px + BAND_PX + 1)) + PAD_PX
        h, w = image.shape[:2]
        x0, y0 = int(np.rint(c_px[0])) - half, int(np.rint(c_px[1])) - half
        x1, y1 = x0 + 2 * half + 1, y0 + 2 * half + 1
        if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
            return None
        px, py = np.meshgrid(np.arange(x0, x1, dtype=float), np.arange(y0, y1, dtype=float))
        rim = np.hypot(px - c_px[0], py - c_px[1]) - r_px
        mask = rim <= BAND_PX
        mask[:PAD_PX] = mask[-PAD_PX:] = mask[:, :PAD_PX] = mask[:, -PAD_PX:] = False
        # Pixels the silhouette may cross while the fit moves it are sub-sampled.
        band = np.flatnonzero(np.abs(rim).ravel() < SUPERSAMPLE_BAND_PX)
        s = SUPERSAMPLE
        offs = (np.arange(s) + 0.5) / s - 0.5
        ox, oy = (a.ravel() for a in np.meshgrid(offs, offs))
        centres = np.stack([px.ravel(), py.ravel()], 1)
        subs = centres[band][:, None, :] + np.stack([ox, oy], 1)[None]
        pts = np.concatenate([centres, subs.reshape(-1, 2)])
        ground = cam.back_project(pts, 0.0)
        d = np.concatenate([ground, np.zeros((len(ground), 1))], 1) - origin
        d /= np.linalg.norm(d, axis=1, keepdims=True)
        img = image[y0:y1, x0:x1].astype(np.float64)[mask]
        bg = background[y0:y1, x0:x1].astype(np.float64)[mask]
        # Where cloth may show (near and beyond the silhouette) only the part of a pixel off
        # the cloth's colour is compared: a shadow keeps that colour, however dark it is.
        b = bg / np.maximum(np.linalg.norm(bg, axis=1, keepdims=True), 1.0)
        proj = np.eye(3)[None] - b[:, :, None] * b[:, None, :]
        inner = (rim[mask] < -OUTSIDE_PX)[:, None, None]
        proj = np.where(inner, np.eye(3)[None], proj)
        tone = _tones(image[y0:y1, x0:x1], px - x0, py - y0, c_px - (x0, y0), r_px, rim)
        return cls(
            img, bg, proj, d, ground, band, px.shape, origin, f_px, mask, r_mm, rim[mask], tone
        )

    def _bases(self, centre_mm, blur_px: float):
        """The model's basis images at the used pixels: ``(n, 4)`` for the ball's shading
        (the same for every colour) and ``(n, 3, l)`` for the cloth's light factor."""
        pix = self._sharp(centre_mm)
        kern = _blur_taps(blur_px)
        pix = cv2.sepFilter2D(
            pix.reshape(*self.shape, -1).astype(np.float32),
            -1,
            kern,
            kern,
            borderType=cv2.BORDER_REPLICATE,
        )[self.mask].astype(np.float64)
        nb = pix.shape[1] - 2
        # The cloth's light factor scales the background (a pixel's own; within one pixel
        # it changes little).
        cloth = self.bg[:, :, None] * pix[:, None, nb:]
        return pix[:, :nb], cloth

    def _sharp(self, centre_mm):
        """The basis images of a ball centred at ``centre_mm`` before the blur, a row per
        pixel of the patch. The last centre's are kept: a step in the blur alone (one column
        of each Jacobian) reuses them."""
        key = (float(centre_mm[0]), float(centre_mm[1]))
        if self._sharp_of is not None and self._sharp_of[0] == key:
            return self._sharp_of[1]
        c = np.array([key[0], key[1], self.r])
        v = c - self.origin
        t0 = self.rays @ v
        dist2 = np.maximum(v @ v - t0**2, 0.0)
        dist = np.sqrt(dist2)
        # Coverage of each sample, antialiased over its own width. (The maps are built a row
        # per basis image, each row contiguous: column by column they cost twice as much.)
        s_px = (dist - self.r) * self.f_px / t0
        p = self.shape[0] * self.shape[1]
        maps = np.empty((6, len(t0)))
        cover = maps[0]
        np.minimum(np.maximum(0.5 - s_px * SUPERSAMPLE, 0.0), 1.0, out=cover)
        cover[:p] = np.minimum(np.maximum(0.5 - s_px[:p], 0.0), 1.0)
        # The normal where the ray meets the sphere; off it, the limb's nearest normal; each
        # times the sample's coverage.
        t = t0 - np.sqrt(np.maximum(self.r**2 - dist2, 0.0))
        scale = cover / np.maximum(dist, self.r)
        np.multiply(self._rays_t, t * scale, out=maps[1:4])
        maps[1:4] += (self.origin - c)[:, None] * scale
        dx, dy = self._ground_t[0] - c[0], self._ground_t[1] - c[1]
        ao = (1.0 + (dx * dx + dy * dy) / self.r**2) ** -1.5
        np.subtract(1.0, cover, out=maps[4])
        np.multiply(maps[4], ao, out=maps[5])
        # Each pixel averages its samples, then the blur mixes neighbouring pixels.
        pix = maps[:, :p].T.copy()
        pix[self.band] = maps[:, p:].reshape(6, len(self.band), -1).mean(2).T
        if self.tone is not None:  # each tone its own shading, blurred into the other
            t = self.tone[:, None]
            pix = np.concatenate([pix[:, :4] * (1.0 - t), pix[:, :4] * t, pix[:, 4:]], 1)
        self._sharp_of = (key, pix)
        return pix

    def _residual(self, params):
        """Weighted residuals ``(n * 3,)`` of the best appearance for ``params`` (x, y mm,
        log blur px)."""
        ball, cloth = self._bases(params[:2], float(np.exp(params[2])))
        n, _, nl = cloth.shape
        nb = 3 * ball.shape[1]
        # Unknowns: 4 shading numbers per colour (and tone), then the cloth's light factor.
        # Colour ch's shading numbers reach the compared colour i through proj[:, i, ch] alone.
        # (The rows are written into one array and weighed in place: no temporaries.)
        a = np.empty((n, 3, nb + nl))
        shading = a[:, :, :nb].reshape(n, 3, 3, nb // 3)  # a view: the last axis splits
        np.multiply(self.proj[:, :, :, None], ball[:, None, None, :], out=shading)
        np.matmul(self.proj, cloth, out=a[:, :, nb:])
        y = self._y
        sw = np.sqrt(self.weights)[:, None, None]
        a *= sw
        aw = a.reshape(-1, nb + nl)
        yw = (y * sw[..., 0]).ravel()
        ata = aw.T @ aw
        ata.flat[:: len(ata) + 1] += 1e-9 * (np.trace(ata) + 1.0)
        aty = aw.T @ yw
        theta = np.linalg.solve(ata, aty)
        if self.seen.all():
            return yw - aw @ theta
        # A clipped channel bounds the model from below: where the shading fitted to the rest
        # falls short of full scale there, it is held up to it (the active rows, a few
        # rounds). Without this, a ball whose lit part is all clipped is seen only by its
        # fringe, where its brightness and a shift of its centre trade off freely.
        raw, clipped = self._clipped_rows(ball, cloth), self._clipped
        for _ in range(CLIPPED_ROUNDS):
            short = np.where(clipped, SATURATED_LEVEL - raw @ theta, 0.0)
            active = raw[short > 0]
            if not len(active):
                break
            theta = np.linalg.solve(
                ata + active.T @ active, aty + active.T @ np.full(len(active), SATURATED_LEVEL)
            )
        res = (yw - aw @ theta).reshape(n, 3)
        res[~self.seen] = np.where(clipped, np.maximum(SATURATED_LEVEL - raw @ theta, 0.0), 0.0)
        return res.ravel()

    def _clipped_rows(self, ball, cloth):
        """The unprojected model rows ``(c, 3, m)`` of the pixels with a clipped channel."""
        hide = ~self.seen
        b, c = ball[hide], cloth[hide]
        k, nb = b.shape[1], 3 * b.shape[1]
        raw = np.zeros((len(b), 3, nb + c.shape[2]))
        for ch in range(3):
            raw[:, ch, ch * k : (ch + 1) * k] = b
        raw[:, :, nb:] = c
        return raw

    def fit(self, start_mm, noise: float = 0.0):
        """Centre (2,) mm, its sigma mm, the blur px and whether the fit is sound; ``noise``
        grey levels per channel is the least the pixels carry."""
        p = np.array([start_mm[0], start_mm[1], np.log(START_BLUR_PX)])
        mm_per_px = 1.0 / self._px_per_mm(start_mm)
        steps = np.array([0.02 * mm_per_px, 0.02 * mm_per_px, 0.05])
        lam = 1e-3
        res = self._residual(p)
        moving = True  # the last step taken still moved the centre
        stale = True  # the Jacobian is not that of ``p`` with the current weights
        for it in range(STEPS):
            if it < 3:  # Huber's weights from the residuals of the current fit
                per_px = np.sqrt((res.reshape(-1, 3) ** 2).sum(1) / np.maximum(self.weights, 1e-9))
                scale = 1.4826 * np.median(per_px[self.seen]) + 1e-6
                huber = np.minimum(1.0, HUBER * scale / np.maximum(per_px, 1e-9))
                self.weights = np.where(self.seen, huber, 0.0)
                res, stale = self._residual(p), True
            if stale:  # after a refused step it stands: three model evaluations spared
                jac, stale = self._jacobian(p, res, steps), False
            jtj, jtr = jac.T @ jac, jac.T @ res
            step = -np.linalg.solve(jtj + lam * np.diag(np.diag(jtj)), jtr)
            trial = p + step
            trial[2] = np.clip(trial[2], *np.log(BLUR_RANGE_PX))
            new = self._residual(trial)
            short = np.hypot(*step[:2]) < SETTLED_PX * mm_per_px
            if new @ new < res @ res:
                p, res, lam, moving, stale = trial, new, lam * 0.3, not short, True
            else:
                # Refused: no better centre along this step. Near the minimum the pixels' 8-bit
                # levels and the sub-sampled outline leave the misfit flat over a few
                # hundredths of a pixel, and the steps refused there stay that long.
                lam *= 10.0
                moving = False
            if np.hypot(*step[:2]) < DONE_PX * mm_per_px:
                break
        # The last Jacobian stands for the covariance: the last step moved the centre by a
        # few thousandths of a pixel.
        dof = max(3 * int(self.seen.sum()) - (12 if self.tone is None else 24) - 4 - 3, 1)
        s2 = (res @ res) / dof
        blur = float(np.exp(p[2]))
        # Neighbouring pixels share their errors over about the blur's area.
        corr = max(1.0, 4.0 * np.pi * (blur**2 + 1.0 / 12.0))
        cov = s2 * corr * np.linalg.inv(jac.T @ jac + 1e-12 * np.eye(3))
        spread = np.sqrt(max(cov[0, 0] + cov[1, 1], 0.0) / 2.0)
        # What the model lacks grows with what it leaves unexplained on the ball, measured
        # against what it leaves on the cloth round it (the same sensor, codec and texture):
        # under a hard low light (a clamped terminator across the ball, a clipped lit side)
        # the ball's residuals stand 2-7 times the cloth's and the centre up to 0.3 px off, in
        # plain light about once.
        lack = MODEL_SIGMA_PX * max(1.0, self._misfit(res, noise))
        # A ball clipped nearly whole is placed by its fringe alone, whose levels depend on
        # how bright the clipped ball is: the model extrapolates that from its dim side.
        inside = self.rim < -OUTSIDE_PX
        clipped = float((~self.seen[inside]).mean()) if inside.any() else 0.0
        beyond = max(clipped - CLIPPED_FREE, 0.0) / (1.0 - CLIPPED_FREE)
        lack = math.hypot(lack, CLIPPED_SIGMA_PX * beyond**2)
        ok = not moving and bool(np.isfinite(p).all())
        ok = ok and np.hypot(*(p[:2] - start_mm)) < 0.5 * self.r
        return p[:2], float(np.hypot(spread, lack * mm_per_px)), blur, ok

    def _misfit(self, res, noise: float) -> float:
        """RMS residual per compared colour at the ball (within ``OUTSIDE_PX`` of its
        silhouette and inside it) over that on the cloth beyond, where only the two colours
        off the cloth's are compared, and at least ``noise``: in lossless frames the cloth
        beyond, whose texture the background holds, shows less than the ball's own noise."""
        r3 = res.reshape(-1, 3)
        far = self.rim > OUTSIDE_PX
        far, near = far & self.seen, ~far & self.seen
        if far.sum() < 8 or near.sum() < 8:
            return 1.0
        cloth = (r3[far] ** 2).sum() / (2 * far.sum())
        ball = (r3[near] ** 2).sum() / (3 * near.sum())
        return float(np.sqrt(ball / max(cloth, noise**2, 1e-12)))

    def _jacobian(self, p, res, steps):
        cols = [np.empty(0)] * 3
        for j in (2, 0, 1):  # the blur's first: it reuses the sharp images of ``p``
            q = p.copy()
            q[j] += steps[j]
            cols[j] = (self._residual(q) - res) / steps[j]
        return np.stack(cols, 1)

    def _px_per_mm(self, centre_mm):
        c = np.array([centre_mm[0], centre_mm[1], self.r])
        return self.f_px / float(np.linalg.norm(c - self.origin))
