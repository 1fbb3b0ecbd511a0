"""Tunables of detection, built once at start-up and passed down (STYLE.md habit 12).

Nothing here is a colour range: colours are learnt from the first frames (``vision/model.py``).
A user whose table defeats the learning can name the colours instead (``*_bgr`` overrides).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

BGR = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class VisionConfig:
    """Detection settings with documented defaults.

    Attributes:
        ball_bgr, home_bgr, away_bgr: colour overrides; None = learn from the first frames.
            ``ball_bgr`` may hold several colours (a two-tone ball's).
        ball_named: ``ball_bgr`` was named by the user: searched for alone, never learnt
            further. False: a colour an earlier look at the same video saw the ball roll in,
            searched for from the first frame instead of those learning would list, the
            ball's other colours (a two-tone ball's other half) still learnt as it shows them.
        foreground_sigmas: a pixel is foreground when its colour is this many noise sigmas
            (measured on the cloth at start-up, followed after: ``vision/noise.py``) away
            from the background.
        min_contrast: ... but never less than this many grey levels (a noiseless sensor).
        search_step: pixel step of the coarse whole-pitch search (every ``search_step``-th
            pixel in x and y), used when the ball is lost and to refresh bases.
        base_refresh_frames: bases at rest are searched again every this many frames; in
            between, while the ball rests, only near it and near moving bases.
        watch_radius_mm: ... that is, within this distance of the ball (a figure that comes
            to strike it from farther is seen moving on the next whole search).
        rest_refit_frames: a ball window that shows nothing new reuses its last fit, but
            is fitted again after this many frames (the rest point averages the fits); the
            costly whole-patch placing only where the edges moved since it was made.
        coarse_refit_frames: the whole-cloth pass, otherwise renewed only where the frame
            changed, is done afresh after this many frames (``vision/cloth.py``).
        window_radii: half size of the ball's search window, in ball radii beyond its
            predicted travel.
        rays: edge profiles cast from a candidate's centre for the sub-pixel fit.
        shading_range: the darkest and brightest an object's colour may appear, as multiples
            of its learnt colour (shaded side of the ball, highlights).
        blur_elongation: a ball blob longer than this many times its width is a motion streak;
            its centre is the streak's centroid (mid-exposure) instead of a circle fit.
        ball_min_support: a ball candidate whose fitted outline explains fewer than this
            share of the rays cast from it is not a ball (a ball in the open: ~0.9; half
            hidden under a finger: ~0.5; a highlight on a finger, a goal net: < 0.3).
        hint_min_score: a fit started at the predicted ball centre is taken without
            searching the window when it scores at least this (see ``Detector``).
        max_ball_candidates: at most this many ball-sized blobs (best first) are fitted when
            the ball is searched for (a team of the ball's colour shows one per base).
        max_fresh_ball_fits: at most this many whole-cloth ball candidates are fitted anew
            per frame (a lost ball, or one whose identity motion has not settled, must cost
            little while a hand moves over the cloth); the rest wait for a later frame.
        ball_min_colour: ... nor one less than this share ball-coloured just inside the part
            of the outline that is seen.
        ball_sigma_px: standard uncertainty of a ball fit in exact frames, pixels: what the
            fits of a still ball share and averaging cannot remove (the shaded limb, the
            sensor's noise). Resting balls in rendered frames at 800x600 and at 2304x1296
            read 0.05-0.07 px RMS off along a line's normal, at most 0.21 px (33 rests).
            Reported in mm per ball (``Detections.ball_sigma_mm``), so it follows the
            resolution.
        codec_sigma_px: what lossy frames (``lossy_frames``) add to it, in quadrature: 4:2:0
            colour and compression, and the codec holding the last millimetres of a roll
            until its next key frame. Resting balls in H.264 clips (CRF 18) at 800x600 and
            at 2304x1296 alike read 0.25 px RMS off in all. Balls placed by their whole
            patch share this floor: resting balls of stress clips (camera turned or tilted, a
            lens, an offset principal point, 1280x960 to 1920x1080; 27 rests of 9 clips, seen
            through the true camera) read 0.01-0.37 px off, median 0.22 px, and an
            independent renderer's up to 0.77 px: a lower floor leaves the worst of them
            outside twice the stated sigma.
        lossy_frames: the frames came through a lossy codec or colour subsampling (the frame
            source's ``lossy``); the default assumes so.
        patch_fit: a ball at rest is placed by its whole patch, a shaded sphere on the
            cloth (``vision/shading.py``), not by its edges alone.
    """

    ball_bgr: BGR | tuple[BGR, ...] | None = None
    ball_named: bool = True
    home_bgr: BGR | None = None
    away_bgr: BGR | None = None
    foreground_sigmas: float = 6.0
    min_contrast: float = 18.0
    search_step: int = 4
    base_refresh_frames: int = 6
    watch_radius_mm: float = 150.0
    rest_refit_frames: int = 8
    coarse_refit_frames: int = 60
    window_radii: float = 3.0
    rays: int = 32
    shading_range: tuple[float, float] = (0.3, 1.4)
    blur_elongation: float = 1.3
    ball_min_support: float = 0.4
    max_ball_candidates: int = 16
    max_fresh_ball_fits: int = 4
    hint_min_score: float = 0.7
    ball_min_colour: float = 0.3
    ball_sigma_px: float = 0.1
    codec_sigma_px: float = 0.23
    lossy_frames: bool = True
    patch_fit: bool = True

    @property
    def fit_sigma_px(self) -> float:
        """Standard uncertainty of a ball fit in these frames, pixels."""
        return math.hypot(self.ball_sigma_px, self.codec_sigma_px if self.lossy_frames else 0.0)

    def __post_init__(self) -> None:
        if min(self.search_step, self.base_refresh_frames, self.rest_refit_frames) < 1 or (
            self.coarse_refit_frames < 1 or self.rays < 8
        ):
            raise ValueError(
                "VisionConfig: search_step and base_refresh_frames must be >= 1 and rays >= 8, "
                f"got {self.search_step}, {self.base_refresh_frames}, {self.rays}"
            )
        lo, hi = self.shading_range
        if not 0.0 < lo < 1.0 < hi:
            raise ValueError(
                f"VisionConfig.shading_range must satisfy 0 < lo < 1 < hi, got {lo}, {hi}"
            )
