"""Per-frame detection: where to look, what the blobs are, and the sub-pixel fits.

``Detector(model, config).detect(image, ball_hint_px=..., base_hints_px=..., search_bases=...)``
returns ``Detections``. The cost is kept down by looking only where it matters:

- While the ball is tracked, only a window around its predicted position is searched, at full
  resolution. When it is lost, the whole cloth is searched on every ``search_step``-th pixel.
- Bases are found by the same coarse whole-cloth pass, kept up to date only where the frame
  changed (``vision/cloth.py``): asked to search bases, the detector compares the whole cloth
  every ``base_refresh_frames`` frames and in between only within ``watch_radius_mm`` of the
  ball and around the moving bases (``base_hints_px``); a base is fitted again only where its
  pixels changed. Not asked, moving bases are refined in windows at their predicted positions.
- Foreground pixels are classified by colour (ball / home / away, ``vision/blobs.py``), and
  only candidates reach the sub-pixel fits of ``vision/refine.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np
from numpy.typing import NDArray

from rules.keepers import in_a_goal
from vision.blobs import AWAY, BALL, HOME, ColourBlobs
from vision.changes import ChangeGate, shows_nothing_new
from vision.cloth import BlobTable, ClothBlobs
from vision.colour import darkened
from vision.config import VisionConfig
from vision.detections import Detections
from vision.hiders import on_mask
from vision.keepers import KeeperFinder
from vision.model import (
    BALL_UNIFORMITY,
    SceneModel,
    every_step,
    moving_ball_colour,
    of_colour,
    pitch_area,
    same_colour_as,
)
from vision.noise import NoiseWatch
from vision.refine import (
    PATCH_MIN_SUPPORT,
    edge_passes,
    near_rim_px,
    refine_balls,
    refine_bases,
)
from vision.renewal import BackgroundRenewal

# A ball is fitted again from its last fit until the centre moves less than this (or stops
# settling: ``vision.refine.edge_passes``).
REFIT_PX = 0.05
# A fit that fails on its outline alone starts again this many radii off where it settled,
# in this many directions (``Detector._restarted``).
RESTART_RADII = 0.5
RESTARTS = 6
RESTART_SUPPORT = 0.8  # ... and stands only where its outline shows on this share of its rays
# A window's fit that ended more than this many radii from its start left for something else.
WANDER_RADII = 0.5
# A ball fit reads the pixels within this many radii of its centres (rays reach 2.2).
LOOK_RADII = 2.5
# A whole-cloth candidate whose rough centre lies within this many search steps of the last
# pass's is the same one.
SAME_STEPS = 0.6
# While the ball's colour is open, every this many frames the frame is compared with the one
# this many frames before for a ball rolling in a colour no hypothesis explains
# (``moving_ball_colour``).
PROBE_FRAMES = 8
# Every this many frames the background takes in what changed on the table itself since
# learning and stood still since the last look (``vision/renewal.py``).
RENEW_FRAMES = 15
MAX_LEARNT_COLOURS = 2  # colours learnt so at most (a stray is followed, not kept adding)
# Least share of the ball's face a colour covers to be one of the ball's colours when it has
# shown itself (a two-tone ball's other half, a broad band; not a few spots or a glint).
SHOWN_SHARE = 0.2
# ... and none whose colour covers this share of a ring round it, these radii out (past the
# blur of its outline): it is something over or beside the ball.
BEYOND_RADII = (1.3, 1.7)
BEYOND_SHARE = 0.1
# A ball's place where less than this share of its disc differs from the background shows the
# bare cloth (``_bare``): a ball differs on nearly all of it, even half under a finger, and a
# low bitrate leaves a stale block where it stood for a while.
BARE_SHARE = 0.5
# A base whose rim shows its team on this many of its ``RIM_POINTS`` shows it all round.
RINGED_POINTS = 10


@dataclass(slots=True)
class _Coarse:
    """One whole-cloth pass: rough ball centres (k, 2) px, bases (n, 2) px, their teams and
    which were found where the frame changed (n,), and the ball and base fits, made when
    first needed (the base fits keyed by which blobs were taken for bases)."""

    rough_balls_px: NDArray
    bases_px: NDArray
    teams: NDArray
    fresh: NDArray
    balls: tuple | None = None
    base_fits: tuple[bytes, tuple] | None = None
    fits: _RoughFits | None = None


@dataclass(slots=True)
class _RoughFits:
    """The ball fits of a coarse pass's rough centres as they are made (``_coarse_balls``):
    ``arrays`` as ``Detector._fit_balls`` gives them, the frame and ``_look`` of each fit,
    which are made, and which kept ones the frame has changed under since."""

    arrays: list[NDArray]
    fitted_at: NDArray
    looks: list
    done: NDArray[np.bool_]
    stale: NDArray[np.bool_]


class FrameSizeError(ValueError):
    """A frame's size differs from the calibration's."""


class Detector:
    """Finds the ball and the bases in frames of one calibrated camera."""

    def __init__(self, model: SceneModel, config: VisionConfig | None = None) -> None:
        self.model = model
        self.config = config or VisionConfig()
        # At least two samples per ball radius, however small the ball appears.
        r_px = model.pitch.profile.ball_radius_mm * float(np.min(model.scale_grid))
        self._step = max(1, min(self.config.search_step, int(r_px / 2.0)))
        self._colour = ColourBlobs(
            model.ball_colours_bgr, model.team_bgr, model.threshold, self.config.shading_range
        )
        # Until the ball shows its colour, each candidate is scored less the later its colour
        # comes among the hypotheses (``SceneModel.ball_colours_bgr``, best first).
        k = len(model.ball_colours_bgr)
        self._colour_prior = np.maximum(1.0 - 0.1 * np.arange(k), 0.6)
        self.ball_colour_settled = model.ball_named or k == 1
        # The ball has not shown its colour by rolling (nor was it named): a colour may still
        # be learnt from motion.
        self._colour_open = not model.ball_named
        self.last_ball_colours = np.zeros(0, np.int64)  # colour index of each ball returned
        self._t_ch = self._colour.threshold_ch
        p = model.pitch.profile
        self._ball_area_mm2 = np.pi * p.ball_radius_mm**2
        # Edges are placed to a fraction of a pixel: below ~1.5 px per mm sizes blur together.
        mm_px = 1.0 / float(np.median(model.scale_grid))
        self._size_tol_mm = max(0.5, 0.5 * (p.base_radius_mm - p.ball_radius_mm), 0.6 * mm_px)
        ang = np.arange(self.config.rays) * (2 * np.pi / self.config.rays)
        self._ray_u = np.stack([np.cos(ang), np.sin(ang)], 1)  # (rays, 2) ray directions
        self._base_area_mm2 = np.pi * p.base_radius_mm**2
        self._frames = 0
        cfg = self.config
        self._ball_gate = ChangeGate(self._t_ch, max_age=cfg.rest_refit_frames)
        self._cloth = self._new_cloth()
        self._keepers = KeeperFinder(model, self._t_ch, cfg.coarse_refit_frames)
        self._keepers_mm = np.zeros((0, 2))  # the keepers of the last base search
        self._coarse: _Coarse | None = None
        self._fitted: _Coarse | None = None  # the last whole-cloth pass whose balls were fitted
        self._scale_key, self._scale = b"", 1.0  # ``_scale_at``'s last point and answer
        # (rough px when fitted, xy px, r px, mm, team) of the bases of the last coarse pass.
        self._last_bases = None
        # (rough px, team, frame) of the blobs whose base fit failed (``_refine_bases``).
        self._failed_bases = None
        self._probe_before = None  # the last probe's frame, on every ``_step``-th pixel
        self._renewal = BackgroundRenewal(model, self._step)
        self._noise = NoiseWatch(model.roi, model.threshold, self.config.foreground_sigmas)
        self._learnt_noise = model.threshold, model.noise_sigma
        self._in_play = pitch_area(model.camera, model.pitch) & model.roi
        self._learnt_colours = 0
        self._roll_colours: list[NDArray] = []  # colours learnt from a roll (``_probe_colours``)
        # The window fit whose face was read last: one the window reuses shows the same pixels.
        self._face_read = None

    def _new_cloth(self) -> ClothBlobs:
        model = self.model
        # A figure's blob reaches about a base diameter from its centre (body, parallax).
        r_px = 2.0 * model.pitch.profile.base_radius_mm * float(np.max(model.scale_grid))
        return ClothBlobs(
            self._cloth_blobs,
            model.background,
            model.roi.astype(np.uint8) * 255,
            step=self._step,
            blob_radius_px=r_px + self._step,
            threshold=self._t_ch,
            max_age=self.config.coarse_refit_frames,
        )

    # ------------------------------------------------------------------ public
    def detect(
        self,
        image: NDArray[np.uint8],
        *,
        ball_hint_px: NDArray | None = None,
        ball_travel_px: float = 0.0,
        ball_rolling: bool = False,
        ball_step_px: float = 0.0,
        base_hints_px: NDArray | None = None,
        search_bases: bool | None = None,
        all_balls: bool = False,
    ) -> Detections:
        """Detect the ball and bases in one frame ``(h, w, 3)`` uint8 BGR.

        Args:
            ball_hint_px: (2,) predicted ball centre, or None to search the whole cloth.
            ball_travel_px: how far the ball may be from the hint (speed x frame time).
            ball_rolling: the ball is still rolling: its window is fitted on every frame (the
                slow last millimetres of a roll change it too little to show as a change).
            ball_step_px: how far the rolling ball moves in a frame: its image is smeared
                along its motion by up to that (``vision.refine.refine_balls``' ``smear_px``).
            base_hints_px: (k, 2) predicted centres of moving bases, refined every frame.
            search_bases: force (True) or skip (False) the coarse base pass; None follows the
                ``base_refresh_frames`` schedule.
            all_balls: also return the ball candidates of the whole cloth, not only the
                window's (while the ball's identity is not settled, every candidate is watched;
                the whole-cloth pass is renewed only where the frame changed).
        """
        w, h = self.model.size_px
        if image.shape != (h, w, 3):
            raise FrameSizeError(
                f"frame is {image.shape[1]}x{image.shape[0]} but the calibration is for "
                f"{w}x{h}; calibrate again for this camera mode"
            )
        if self._colour_open:
            self._probe_colours(image)
        if self._frames % RENEW_FRAMES == 0:
            self._renew_background(image)
            threshold = self._noise.look(image, self.model.background, self.model.threshold)
            if threshold is not None:
                self._retune(threshold)
        due = self._frames % self.config.base_refresh_frames == 0  # the whole cloth's turn
        if search_bases is None:
            search_bases = due
        self._frames += 1
        ball, vacated = None, False
        if ball_hint_px is not None:
            hint = np.asarray(ball_hint_px, np.float64)
            step = ball_step_px if ball_rolling else 0.0
            ball = self._window_ball(image, hint, ball_travel_px, ball_rolling, step)
            if ball is not None and not ball[4].any():
                # Blobs but no ball in the window (the figure that struck the ball away
                # stands where it was): the ball is searched for on the whole cloth.
                ball = None
            vacated = ball is None and self._bare(image, hint)
            if ball is not None and self.ball_colour_settled:
                if not (self._colour_open or self.model.ball_named or ball is self._face_read):
                    self._face_read = ball
                    self._learn_face(image, ball)
        # The ball followed from frame to frame (not any candidate: a keeper in the ball's
        # colour is one until the ball has shown itself).
        followed = (
            (np.zeros((0, 2)), np.zeros(0))
            if ball is None
            else (ball[0][ball[4]], ball[1][ball[4]])
        )
        coarse = None
        if ball is None:  # the whole cloth, for the ball
            coarse = self._coarse_pass(image, None)
            ball = self._coarse_balls(image, coarse)
        elif all_balls:
            coarse = self._coarse_pass(image, None)
            ball = _merge_fits(ball, self._coarse_balls(image, coarse))
        elif search_bases:
            watch = None if due else self._watch(ball_hint_px, base_hints_px)
            coarse = self._coarse_pass(image, watch)
        bxy, br, bmm, scores, ok, colour, sigma, patched = ball
        if coarse is not None and search_bases:
            fxy, fr, fmm, fok, teams = self._coarse_bases(image, coarse, bxy[ok], br[ok])
            fxy, fr, fmm, fok, teams = self._with_keepers(image, followed, fxy, fr, fmm, fok, teams)
        else:
            bases = np.zeros((0, 2))
            teams = np.zeros(0, np.int8)
            if base_hints_px is not None and len(base_hints_px):
                bases, teams = self._bases_in_windows(image, np.asarray(base_hints_px))
                apart = self._not_the_ball(bases, bxy[ok], br[ok], teams)
                bases, teams = bases[apart], teams[apart]
            fxy, fr, fmm, fok = self._refine_bases(image, bases, teams, coarse is not None)
            teams, _, ringed = self._ring_teams(image, fmm, fok, teams)
            fok &= self._not_the_ball(fxy, bxy[ok], br[ok], teams, ringed)
        ok = ok & self._not_a_keeper(bxy, bmm, followed[0])
        # No base stands under a goal's roof net: what shows there is the net and the bars,
        # which a low-bitrate codec garbles into figure-sized blobs (such a phantom taken for a
        # keeper, counted as a defender, made an attacker onside). A keeper read a few
        # millimetres behind its line stays; a ball there is seen through the net and stays.
        fok = fok & ~in_a_goal(self.model.pitch, fmm)
        self.last_ball_colours = colour[ok]
        return Detections(
            ball_xy_px=bxy[ok],
            ball_r_px=br[ok],
            ball_score=scores[ok],
            ball_xy_mm=bmm[ok],
            ball_sigma_mm=sigma[ok],
            ball_whole_patch=patched[ok],
            base_xy_px=fxy[fok],
            base_r_px=fr[fok],
            base_team=teams[fok].astype(np.int8),
            base_xy_mm=fmm[fok],
            bases_searched=bool(search_bases),
            ball_vacated=vacated,
        )

    def _bare(self, image, xy_px: NDArray) -> bool:
        """Whether the ball's disc at ``xy_px`` shows the bare cloth in play: most of its
        pixels match the background (``BARE_SHARE``). Only in play: off it the background may
        take in a ball that rests there (``vision/renewal.py``)."""
        w, h = self.model.size_px
        x, y = int(xy_px[0]), int(xy_px[1])
        if not (0 <= x < w and 0 <= y < h and self._in_play[y, x]):
            return False
        r_px = self.model.pitch.profile.ball_radius_mm * self._scale_at(xy_px)
        pix, _, differs = self._disc_pixels(image, xy_px, r_px)
        return len(pix) > 0 and float(differs.mean()) < BARE_SHARE

    def _disc_pixels(
        self, image, xy_px: NDArray, r_px: float, inner_px: float = -1.0
    ) -> tuple[NDArray, NDArray, NDArray[np.bool_]]:
        """The pixels ``(n, 3)`` float32 of the frame and of the background within ``r_px``
        of ``xy_px`` (and farther than ``inner_px``), and which of them differ from the
        background (by the foreground threshold in a channel)."""
        x0, y0, x1, y1 = self._window(xy_px, r_px)
        ys, xs = np.mgrid[y0:y1, x0:x1]
        d = np.hypot(xs - xy_px[0], ys - xy_px[1])
        disc = (d <= r_px) & (d > inner_px)
        pix = image[y0:y1, x0:x1][disc].astype(np.float32)
        bg = self.model.background[y0:y1, x0:x1][disc].astype(np.float32)
        return pix, bg, (np.abs(pix - bg) > self._t_ch).any(axis=1)

    def _coarse_bases(self, image, coarse: _Coarse, balls_px, balls_r_px):
        """Fitted bases of a coarse pass: (xy px, r px, mm, ok, team).

        A reused pass (the cloth showed nothing new) gives its fits again while the same
        blobs are bases: the same rough centres would reuse the same fits anyway.
        """
        keep = self._not_the_ball(coarse.bases_px, balls_px, balls_r_px, coarse.teams)
        key = keep.tobytes()
        if coarse.base_fits is not None and coarse.base_fits[0] == key:
            return coarse.base_fits[1]
        teams = coarse.teams[keep]
        rough, fresh = coarse.bases_px[keep], coarse.fresh[keep]
        xy, r, mm, ok = self._refine_bases(image, rough, teams, True, fresh)
        teams, support, ringed = self._ring_teams(image, mm, ok, teams)
        ok = self._one_per_place(mm, ok, support)
        # A blob of the ball's shaded side and a figure beside it can centre off the ball
        # and still fit on it: a fit centred on the ball is the ball.
        ok &= self._not_the_ball(xy, balls_px, balls_r_px, teams, ringed)
        fits = (xy, r, mm, ok, teams)
        coarse.base_fits = (key, fits)
        return fits

    def _with_keepers(self, image, balls, xy, r, mm, ok, teams):
        """The fitted bases with the rod goalkeepers (``vision/keepers.py``) among them.

        A keeper has no base: a base fitted to its silhouette (its shirt of a team's colour)
        stands off its footprint toward the goal, and goes; the keeper is placed from its
        geometry instead, with the team of the goal it keeps (its kit says nothing of it).
        """
        keepers = self._keepers.find(image, *balls)
        self._keepers_mm = keepers.xy_mm
        if len(keepers) == 0:
            return xy, r, mm, ok, teams
        p = self.model.pitch.profile
        if len(mm):
            off = mm[:, None, :] - keepers.xy_mm[None]
            ok = ok & ~self._keepers.shape.overlaps(off, p.base_radius_mm).any(axis=1)
        k = len(keepers)
        r_k = p.base_radius_mm * self.model.px_per_mm(keepers.xy_px)
        return (
            np.concatenate([xy, keepers.xy_px]),
            np.concatenate([r, r_k]),
            np.concatenate([mm, keepers.xy_mm]),
            np.concatenate([ok, np.ones(k, bool)]),
            np.concatenate([teams.astype(np.int8), keepers.end]),
        )

    def _not_a_keeper(self, balls_px, balls_mm, followed_px) -> NDArray[np.bool_]:
        """Which ball candidates ``(m,)`` are not a rod keeper of the last base search: a
        keeper in a plain kit of a ball's colour shows a ball-sized blob where it stands,
        while a ball touching it stands a ball's radius and more off its footprint. The ball
        followed from frame to frame (``followed_px (k, 2)``) was kept out of the keepers."""
        keepers = self._keepers_mm
        if len(keepers) == 0 or len(balls_mm) == 0:
            return np.ones(len(balls_mm), bool)
        r = self.model.pitch.profile.ball_radius_mm
        on = (np.linalg.norm(balls_mm[:, None] - keepers[None], axis=2) < r).any(axis=1)
        if len(followed_px):
            d = np.linalg.norm(balls_px[:, None] - followed_px[None], axis=2)
            on &= ~(d < 0.5).any(axis=1)
        return ~on

    def _not_the_ball(
        self, bases_px, balls_px, balls_r_px, teams, ringed=None
    ) -> NDArray[np.bool_]:
        """Which bases ``(n,)`` of ``teams`` are not the ball: a base centred within a ball
        radius of a ball is it (a base never overlaps the ball). With a team of the ball's
        colour the ball is also a blob of that team, and the shaded side of a ball can read
        as a team whose colour is near the ball's.

        A base of a team no ball colour is near is a figure with a part of a ball's colour
        on it (a white shirt on a blue base, as round as a ball from above) when its rim
        shows its team all round (``ringed (n,)``, once fitted; before, every such base is
        fitted to see): the ball candidate there is that part (``tracking/tracker.py`` drops
        a candidate on a base). A fit drawn onto the ball beside a figure shows the ball's
        colour on its rim.
        """
        if len(balls_px) == 0 or len(bases_px) == 0:
            return np.ones(len(bases_px), bool)
        d = np.linalg.norm(bases_px[:, None, :] - balls_px[None], axis=2)
        on = (d < balls_r_px[None, :]).any(axis=1)
        twin = np.isin(np.asarray(teams) + HOME, self._colour.ball_classes[1:])
        figure = ~twin & (True if ringed is None else ringed)
        return ~on | figure

    def _fit_balls(
        self,
        image,
        rough_px,
        *,
        whole_patch=False,
        rest=None,
        reach=None,
        patch_near=None,
        smear_px=0.0,
    ):
        """Sub-pixel fits and checks of rough ball centres: (xy px, r px, mm, score, ok,
        index of the ball colour each shows, sigma mm, placed by the whole patch), and the
        ``RestPlacing`` of each ball (or None); ``whole_patch`` places round balls by their
        whole patch, where ``rest`` does not stand, and where the edges ended within ``reach``
        radii of their start if given (``vision.refine.refine_balls``).

        A ball lying on lines of its own colour (a white ball on the corner arc) shows too
        little outline for its edges alone, whether or not its patch was asked for: a
        candidate that fails on that alone is fitted by its whole patch, lines included,
        which decides (a few dozen model evaluations, for these candidates only). The patch
        is a resting sphere's: for a ball its track sees rolling, ``patch_near`` ``(point px,
        radius px)`` keeps only a patch fit within its travel of the prediction (a ball just
        set down; a fast one, smeared or half under a crossbar, the model misplaces); one
        rolling ``smear_px`` a frame is sized as far as that smear explains
        (``refine_balls``)."""
        rough_px = np.asarray(rough_px, np.float64).reshape(-1, 2)
        edges = edge_passes(image, self.model, rough_px, self.config, REFIT_PX)
        *fit, if_whole, placings = self._fit_and_check(
            image,
            rough_px,
            edges,
            whole_patch,
            rest=rest,
            reach=reach,
            smear_px=smear_px,
        )
        fit, placings = self._restarted(image, fit, if_whole, placings, smear_px)
        ok, patched = fit[4], fit[7]
        if whole_patch or ok.all():
            return tuple(fit), placings
        retry = np.flatnonzero(if_whole & ~ok & ~patched)
        if len(retry) == 0:
            return tuple(fit), placings
        retry_edges = {key: a[retry] for key, a in edges.items()}  # fitted: the patch is new
        *again, _, again_placings = self._fit_and_check(image, rough_px[retry], retry_edges, True)
        good = again[4]
        if patch_near is not None:
            point, radius = patch_near
            good = good & (np.hypot(*(again[0] - np.asarray(point)).T) <= radius)
        out = [np.array(a, copy=True) for a in fit]
        for a, b in zip(out, again, strict=True):
            a[retry[good]] = b[good]
        placings = list(placings)
        for j in np.flatnonzero(good):
            placings[retry[j]] = again_placings[j]
        return tuple(out), tuple(placings)

    def _restarted(self, image, fit, if_whole, placings, smear_px):
        """``fit`` (``_fit_balls``' fields) and ``placings`` with each candidate that fails on
        its outline alone fitted again from around where its edges settled.

        Under a low hard light a ball's dim half is darker than the cloth, and a fit started
        on its lit half (the centre of its ball-coloured blob) reads the line where the light
        ends as its outline on that side: the edges settle on the lit half, a ball-sized
        circle of which only a third shows on the outline (a white ball on the centre spot
        was never found at a kick-off so lit). Fits started ``RESTART_RADII`` off it, in
        ``RESTARTS`` directions, meet the dim half's outline against the cloth; the best
        that passes as a ball with its outline showing nearly whole stands (more tries are
        more chances for a piece of a line to pass: what they look for is the whole ball),
        its doubt grown to half the way to the farthest other that passes (which is right
        is not known). They are placed by their edges (a patch fit of every start costs tens
        of milliseconds): a ball at rest found so is placed by its whole patch when its
        window is fitted from there, on the next frame.
        """
        again = np.flatnonzero(if_whole & ~fit[4])
        if len(again) == 0:
            return fit, placings
        fit = [np.array(a, copy=True) for a in fit]
        xy, r = fit[0], fit[1]
        ang = np.arange(RESTARTS) * (2.0 * np.pi / RESTARTS)
        ring = np.stack([np.cos(ang), np.sin(ang)], 1)  # (RESTARTS, 2)
        starts = xy[again, None, :] + RESTART_RADII * r[again, None, None] * ring[None]
        starts = starts.reshape(-1, 2)
        edges = edge_passes(image, self.model, starts, self.config, REFIT_PX)
        *tried, _, tried_placings = self._fit_and_check(
            image, starts, edges, False, smear_px=smear_px, whole_outline=True
        )
        placings = list(placings)
        score = np.where(tried[4], tried[3], -1.0).reshape(len(again), RESTARTS)
        for row, i in enumerate(again):
            passed = row * RESTARTS + np.flatnonzero(score[row] >= 0)
            if len(passed) == 0:
                continue
            j = row * RESTARTS + int(np.argmax(score[row]))
            for a, b in zip(fit, tried, strict=True):
                a[i] = b[j]
            apart = np.hypot(*(tried[2][passed] - tried[2][j]).T).max()
            fit[6][i] = np.hypot(fit[6][i], 0.5 * apart)
            placings[i] = tried_placings[j]
        return fit, tuple(placings)

    def _fit_and_check(
        self,
        image,
        rough_px,
        edges,
        whole_patch: bool,
        *,
        rest=None,
        reach=None,
        smear_px=0.0,
        whole_outline=False,
    ):
        """``_fit_balls``' fields from the balls' ``edges`` (``vision.refine.edge_passes``),
        then which fits would be balls were their outline whole (``_ball_quality``) and their
        ``RestPlacing``s. With ``whole_outline`` only a fit whose outline shows nearly all
        round (``RESTART_SUPPORT`` of its rays) is a ball."""
        bxy, br, bmm, ok, outline, size_err, doubt, patched, placings = refine_balls(
            image,
            self.model,
            rough_px,
            edges,
            self.config,
            again_px=REFIT_PX,
            whole_patch=whole_patch,
            rest=rest,
            patch_reach=reach,
            smear_px=smear_px,
        )
        sized = ok & self._ball_sized(size_err)
        scores, ok, colour, if_whole = self._ball_quality(image, bxy, br, sized, outline, patched)
        if whole_outline:
            ok = ok & (outline.mean(axis=1) >= RESTART_SUPPORT)
        # What every fit shares (noise, the codec) and what this fit's own edges show.
        r_mm = self.model.pitch.profile.ball_radius_mm
        sigma = np.hypot(self.config.fit_sigma_px * r_mm / np.maximum(br, 1e-9), doubt)
        return bxy, br, bmm, scores, ok, colour, sigma, patched, if_whole, placings

    def settle_ball_colour(
        self, i: int, image: NDArray | None = None, xy_px: NDArray | None = None, r_px=None
    ) -> None:
        """Search only for the colours the ball shows from now on: it has shown itself.

        ``last_ball_colours`` says which colour ``i`` each candidate showed most. Given the
        frame and the ball's image (centre ``xy_px (2,)``, radius ``r_px``), every other
        colour its face shows is kept too (``_face_colours``): a two-tone or marked ball
        turns as it rolls, and searched for in one of its colours it is lost when the other
        faces up. The whole-cloth pass and the ball window are redone with the narrowed
        colours."""
        self._colour_open, self._probe_before = False, None
        if self.model.ball_named:
            return
        keep = np.zeros(len(self._colour.ball_bgr), bool)
        keep[int(i)] = True
        other = None
        if image is not None:
            shown, other = self._face_colours(image, xy_px, float(r_px))
            keep |= shown
        if self.ball_colour_settled and keep.all() and other is None:
            return
        colours = self._colour.ball_bgr[keep]
        if other is not None:
            colours = np.concatenate([colours, other[None]])
        self._set_ball_colours(colours)
        self.ball_colour_settled = True

    def learnt_from_roll(self, i: int) -> NDArray[np.float32] | None:
        """Ball colour ``i`` (as ``last_ball_colours`` counts) ``(3,)`` when it was learnt
        from a roll (``_probe_colours``: no colour learning listed), else None."""
        colour = self._colour.ball_bgr[int(i)]
        return next((c for c in self._roll_colours if np.array_equal(c, colour)), None)

    def _set_ball_colours(self, bgr: NDArray, prior: NDArray | None = None) -> None:
        """Search for ball colours ``bgr (k, 3)`` from now on, ranked by ``prior (k,)`` (all
        alike when None)."""
        self._colour = ColourBlobs(
            bgr, self.model.team_bgr, self.model.threshold, self.config.shading_range
        )
        self._colour_prior = np.ones(len(bgr)) if prior is None else prior
        self._t_ch = self._colour.threshold_ch
        self._cloth = self._new_cloth()
        self._coarse, self._last_bases, self._fitted = None, None, None
        self._failed_bases = None
        self._ball_gate.clear()

    def _face_colours(self, image, xy_px, r_px: float) -> tuple[NDArray[np.bool_], NDArray | None]:
        """Which ball colours ``(k,)`` the ball whose image is centred at ``xy_px`` shows, and
        the lit colour ``(3,)`` of a part of it no ball colour explains (or None).

        Read from the pixels inside 0.7 radii that differ from the background and are not
        its shadow (``ColourBlobs.face``): a colour is shown when it explains ``SHOWN_SHARE``
        of them, the part no colour explains counts when it is as large (a half or a band of
        a colour never searched for) and one colour, not the cloth's. A shadow across a small
        ball (a low light, a fit a pixel off) or a mark of about the cloth's colour is one
        colour too, and searched for as the ball's it joins the ball to every shadow, or
        makes a ball of every speck of a textured cloth's weave.
        """
        k = len(self._colour.ball_bgr)
        none = np.zeros(k, bool), None
        pix, bg, differs = self._disc_pixels(image, xy_px, 0.7 * r_px)
        pix = pix[differs & ~darkened(pix, bg, self.model.threshold)]
        if len(pix) < 6:
            return none
        shown, other = self._colour.face(pix, SHOWN_SHARE, BALL_UNIFORMITY)
        if other is not None and same_colour_as(other, [np.median(bg, axis=0)]):
            other = None
        if other is not None:
            # A ball's face ends at its outline; a finger over the ball, or a figure's part
            # beside it, goes on past it (a hand's colour, learnt as a ball's, made every
            # arm reaching over the table a ball).
            inner, outer = BEYOND_RADII
            ring, _, differs = self._disc_pixels(image, xy_px, outer * r_px, inner * r_px)
            if np.mean(differs & of_colour(ring, other)) >= BEYOND_SHARE:
                other = None
        return shown, other

    def _learn_face(self, image, fits) -> None:
        """Add the colour of a part of the followed ball that no ball colour explains (its
        other half turning up as it rolls: at a flick's speed a half turn takes a frame or
        two, so every convincingly fitted frame is read while a colour may still be learnt)."""
        if self._learnt_colours >= MAX_LEARNT_COLOURS:
            return
        j = int(np.flatnonzero(fits[4])[0])
        # Only a convincing fit shows the ball's face: a weak one taken for want of a better
        # (the window of a ball just struck away) may be centred on cloth and shadow, and
        # their colour, learnt, is searched for as the ball's on every shadow of the cloth.
        if not (fits[3][j] >= self.config.hint_min_score or fits[7][j]):
            return
        _, other = self._face_colours(image, fits[0][j], float(fits[1][j]))
        if other is None:
            return
        self._learnt_colours += 1
        self._set_ball_colours(np.concatenate([self._colour.ball_bgr, other[None]]))

    def _probe_colours(self, image) -> None:
        """Learn the colour of a ball seen rolling that no hypothesis explains (a ball of a
        kit's colour, taken for a figure when learning); see ``moving_ball_colour``."""
        if self._learnt_colours >= MAX_LEARNT_COLOURS:
            return
        if self._frames % PROBE_FRAMES:
            return
        # Against the frame of the last probe, not the one just before: a ball rolling a
        # pixel a frame (slowly, or at a high frame rate) has barely arrived anywhere between
        # two frames, and one rolling a diameter in PROBE_FRAMES frames is still rolling.
        before, self._probe_before = self._probe_before, every_step(image, self._step)
        if before is None:
            return
        colour = moving_ball_colour(
            image, before, self.model, self._colour.ball_bgr, self._step, self.config
        )
        if colour is None:
            return
        self._learnt_colours += 1
        self._roll_colours.append(colour)
        self.ball_colour_settled = False
        # Seen rolling: ranked with the best of the learnt colours.
        self._set_ball_colours(
            np.concatenate([self._colour.ball_bgr, colour[None]]),
            np.concatenate([self._colour_prior, [1.0]]),
        )

    def _retune(self, threshold: float) -> None:
        """Tell the foreground by ``threshold`` from now on (``vision/noise.py``): the noise
        it stands for is the fits' pixel noise too, and every pass starts again."""
        learnt_threshold, noise = self._learnt_noise
        if threshold > learnt_threshold:
            noise = threshold / self.config.foreground_sigmas
        self.model = replace(self.model, threshold=threshold, noise_sigma=noise)
        self._set_ball_colours(self._colour.ball_bgr, self._colour_prior)
        self._ball_gate = ChangeGate(self._t_ch, max_age=self.config.rest_refit_frames)
        self._keepers = KeeperFinder(self.model, self._t_ch, self.config.coarse_refit_frames)

    def _renew_background(self, image) -> None:
        """Take in what changed on the table itself (``vision/renewal.py``)."""
        taken = self._renewal.renew(image, self.model)
        if taken is None:
            return
        # (A masked copy: indexing with the mask gathers and scatters, ten times slower.)
        mask = taken.view(np.uint8)
        background = cv2.copyTo(image, mask, self.model.background.copy())
        self.model = replace(self.model, background=background)
        self._keepers.model = self.model
        self._cloth.renew_background(background, taken)
        # A fit stands where the background it was made against stands: the ball's window
        # (which holds its rays and patch) and where a failed candidate looked.
        key = self._ball_gate.key
        if key is None or _touches(taken, key[0]):
            self._ball_gate.clear()
        if self._fitted is not None:
            looks = self._fitted.fits.looks
            self._fitted.fits.looks = [
                None if a is None or _touches(taken, a[0]) else a for a in looks
            ]
        if self._failed_bases is not None:
            here = on_mask(taken, self._failed_bases[0])
            self._failed_bases = tuple(a[~here] for a in self._failed_bases)

    def _window_ball(self, image, hint, travel_px, rolling: bool, step_px: float = 0.0):
        """Fitted ball candidates in the window around ``hint``, or None when it shows none.

        A window that shows nothing new since its last fit gives that fit again (a ball at
        rest is fitted every ``rest_refit_frames`` frames, and at once when anything moves),
        unless the ball is ``rolling`` or that fit was of a rolling ball: a ball that has just
        stopped is placed by its whole patch on the first frame its track sees it at rest.
        The fit starts from the prediction (or the last fit); only when that finds no
        convincing ball are the window's blobs searched.
        """
        r_px = self.model.pitch.profile.ball_radius_mm * self._scale_at(hint)
        box = self._window(hint, self.config.window_radii * r_px + travel_px)
        if _too_small(box):
            return None
        x0, y0, x1, y1 = box
        region = image[y0:y1, x0:x1]
        # The window's fits of a rolling ball (its edges alone) are kept apart from those of
        # a ball at rest (its whole patch).
        key = (box, rolling)
        known = None if rolling else self._ball_gate.lookup(key, region, self._frames)
        if known is not None:
            return known[0]
        # What the whole patch made of the ball at rest here stands while its edges find the
        # centre they gave then (``vision.refine.refine_balls``): a ball that has not moved
        # (a figure coming up to it changes the window, not the ball) is not fitted again.
        # An edges' placing (the patch fit failed or was not tried) stands only while the
        # window shows nothing new: a figure that hid part of the ball may have left.
        last = self._ball_gate.stale(key, region)
        kept = self._ball_gate.result()
        rest = None if rolling or kept is None else kept[1]
        if rest is not None and not (_inside(rest.edge_px, box) and (rest.placed or last)):
            rest = None
        if last is not None and last[0][4].any():  # the same still ball, due for a new fit
            # It may have crept since (too little to show as a change): fit it afresh, from
            # where it was placed (each refit a fit of its own, which the track averages).
            start = last[0][0][last[0][4]][:1]
        elif rest is not None:  # from where the edges found it
            start = rest.edge_px[None]
        else:  # the predicted centre: usually within a pixel of the ball, moving or not
            start = hint[None]
        # A ball at rest is placed by its whole patch; a rolling one, fitted on every frame
        # and smeared by its motion, by its edges.
        near_hint = (hint, travel_px) if rolling else None
        # The fit runs from its own centre until it settles; one that wandered more than half
        # a radius from its start may have left for something else: the blobs decide then
        # (and its whole patch is not fitted).
        fit, placings = self._fit_balls(
            image,
            start,
            whole_patch=not rolling,
            rest=rest,
            reach=WANDER_RADII,
            patch_near=near_hint,
            smear_px=step_px,
        )
        near = np.hypot(*(fit[0][0] - start[0])) < WANDER_RADII * fit[1][0]
        # A ball placed by its whole patch is a sphere of the ball's size whose outline is
        # whole round it, whatever its colour share says (a marked ball's dark half is no
        # ball colour).
        sure = fit[3][0] >= self.config.hint_min_score or fit[7][0]
        if near and fit[4].all() and sure:
            self._ball_gate.store(key, region, (fit, placings[0]), self._frames)
            return fit
        balls, _ = self._ball_in_window(image, box)
        # The fit at the prediction passed every check of a ball, though not convincingly:
        # it stands where the window's blobs give none (a marked ball's blob of its main
        # colour may be a sliver of it).
        fallback = (fit, placings[0]) if near and fit[4].all() else None
        if len(balls) == 0:
            self._ball_gate.clear()
            return None if fallback is None else fallback[0]
        found, placings = self._fit_balls(
            image, balls, whole_patch=not rolling, patch_near=near_hint, smear_px=step_px
        )
        # A later fit from the first ball found takes its placing along (see above).
        first = np.flatnonzero(found[4])
        kept = (found, placings[first[0]] if len(first) else None)
        if len(first) == 0 and fallback is not None:
            kept = fallback
        self._ball_gate.store(key, region, kept, self._frames)
        return kept[0]

    def _scale_at(self, xy_px: NDArray) -> float:
        """Pixels per mm at one point (the ball's: the same point frame after frame while it
        rests, so the last answer is kept)."""
        key = xy_px.tobytes()
        if key != self._scale_key:
            self._scale_key, self._scale = key, float(self.model.px_per_mm(xy_px)[0])
        return self._scale

    def _watch(self, ball_px, bases_px) -> list[tuple] | None:
        """Boxes where the cloth is compared between whole looks (every
        ``base_refresh_frames`` frames), or None (no ball: the whole cloth): the box within
        ``watch_radius_mm`` of the ball (a figure about to strike it is there) and a box
        around each moving base.
        """
        if ball_px is None:
            return None
        ball_px = np.asarray(ball_px, np.float64)
        p = self.model.pitch.profile
        scale = self._scale_at(ball_px)
        boxes = [self._window(ball_px, self.config.watch_radius_mm * scale)]
        if bases_px is not None and len(bases_px):
            bases_px = np.asarray(bases_px, np.float64).reshape(-1, 2)
            half = 4.0 * p.base_radius_mm * self.model.px_per_mm(bases_px)
            boxes += [self._window(c, r) for c, r in zip(bases_px, half, strict=True)]
        return boxes

    def _coarse_pass(self, image, watch: list[tuple] | None) -> _Coarse:
        """The whole-cloth pass, renewed where the frame changed (``vision/cloth.py``)."""
        table, changed = self._cloth.update(image, self._frames, watch)
        if changed or self._coarse is None:
            self._coarse = self._coarse_of(table)
        return self._coarse

    def _coarse_balls(self, image, coarse: _Coarse):
        """The ball fits of a coarse pass, made once per pass however often it is reused.

        A candidate found again at the same rough centre (within a fraction of the search
        step) keeps its last fit for up to ``coarse_refit_frames`` frames (a failed one for
        ``rest_refit_frames``, unless nothing changed where it looked): while the ball's
        identity is open every candidate is watched, and neither a hand moving elsewhere nor
        a codec's flicker over a still scene should refit them all. A struck candidate leaves
        its rough centre within a frame or two, and the chosen ball has its own window. Where
        the pixels of a kept fit changed since, the ball may have rolled up to that fraction
        of the step without leaving its rough centre (its last millimetres): the fit keeps
        its place but not its precision, which grows by that much.

        Only ``max_fresh_ball_fits`` candidates are fitted a frame (a hand over the cloth
        shows many small ball-coloured pieces at once); the rest are fitted on the next
        frames, whether or not the pass is renewed: on a still table it is renewed once in
        ``coarse_refit_frames``, when the first candidates' fits are due again, and a ball
        resting among bases of its colour would never be fitted."""
        if coarse.fits is None:
            coarse.fits = self._kept_fits(image, coarse.rough_balls_px)
        fits = coarse.fits
        todo = np.flatnonzero(~fits.done)[: self.config.max_fresh_ball_fits]
        if coarse.balls is not None and len(todo) == 0:
            return coarse.balls
        rough = coarse.rough_balls_px
        if len(todo):
            new, _ = self._fit_balls(image, rough[todo], smear_px=None)
            for f, got in zip(fits.arrays, new, strict=True):
                f[todo] = got
            for i in todo:
                fits.looks[i] = self._look(image, rough[i], fits.arrays[0][i], fits.arrays[1][i])
            fits.done[todo] = True
            fits.fitted_at[todo] = self._frames
        self._fitted = coarse
        balls = [np.array(f, copy=True) for f in fits.arrays]
        if fits.stale.any():  # the kept fit stays as it was made
            r_mm = self.model.pitch.profile.ball_radius_mm
            reach_mm = SAME_STEPS * self._step * r_mm / balls[1][fits.stale]
            balls[6][fits.stale] = np.hypot(balls[6][fits.stale], reach_mm)
        coarse.balls = tuple(balls)
        return coarse.balls

    def _kept_fits(self, image, rough) -> _RoughFits:
        """The fits of the last fitted pass that still stand for the rough centres of a new
        pass (``_coarse_balls``); the others are still to be made."""
        n = len(rough)
        reuse, k = np.zeros(n, bool), np.zeros(n, int)
        cfg = self.config
        last = None if self._fitted is None else self._fitted.fits
        made = np.zeros(0, int) if last is None else np.flatnonzero(last.done)
        if n and len(made):
            d = np.linalg.norm(rough[:, None, :] - self._fitted.rough_balls_px[made][None], axis=2)
            nearest = np.argmin(d, axis=1)
            k = made[nearest]  # each rough centre's nearest fit of the last pass
            # A failed fit is tried again sooner: it may have started from a blob that was
            # cut by something passing. Where nothing changed since, nothing passed.
            age = self._frames - last.fitted_at[k]
            ok_before = last.arrays[4][k]
            fresh_fit = age < np.where(ok_before, cfg.coarse_refit_frames, cfg.rest_refit_frames)
            same = d[np.arange(n), nearest] < SAME_STEPS * self._step
            for i in np.flatnonzero(same & ~fresh_fit & (age < cfg.coarse_refit_frames)):
                fresh_fit[i] = self._unchanged(image, last.looks[k[i]])
            reuse = same & fresh_fit
        arrays = [np.zeros((n, 2)), np.zeros(n), np.zeros((n, 2)), np.zeros(n)]
        arrays += [np.zeros(n, bool), np.zeros(n, np.int64), np.zeros(n), np.zeros(n, bool)]
        fitted_at, looks = np.full(n, self._frames), [None] * n
        fits = _RoughFits(arrays, fitted_at, looks, reuse.copy(), np.zeros(n, bool))
        if reuse.any():
            for f, old in zip(arrays, last.arrays, strict=True):
                f[reuse] = old[k[reuse]]
            fits.fitted_at[reuse] = last.fitted_at[k[reuse]]
            for i in np.flatnonzero(reuse):
                fits.looks[i] = last.looks[k[i]]
                fits.stale[i] = bool(arrays[4][i]) and not self._unchanged(image, fits.looks[i])
        return fits

    def _look(self, image, rough_px, fit_px, r_px):
        """Where a ball fit looked (its rays and patch, from the rough centre to the fitted
        one), and the pixels it saw there: ``(box, pixels)``, or None when that is more than
        a few balls wide (a fit that wandered off; it is tried again sooner)."""
        reach = LOOK_RADII * r_px
        lo = np.minimum(rough_px, fit_px) - reach
        hi = np.maximum(rough_px, fit_px) + reach
        if not np.isfinite(lo).all() or ((hi - lo) > 4.0 * reach).any():
            return None
        w, h = self.model.size_px
        x0, y0 = max(0, int(lo[0])), max(0, int(lo[1]))
        x1, y1 = min(w, int(hi[0]) + 1), min(h, int(hi[1]) + 1)
        if x1 <= x0 or y1 <= y0:
            return None
        return (x0, y0, x1, y1), image[y0:y1, x0:x1].copy()

    def _unchanged(self, image, look) -> bool:
        """Whether the pixels a fit saw (``_look``) show nothing new in ``image``."""
        if look is None:
            return False
        (x0, y0, x1, y1), before = look
        return shows_nothing_new(image[y0:y1, x0:x1], before, 2.0 * self._t_ch)

    def _refine_bases(self, image, rough, teams, from_coarse: bool, fresh=None):
        """Sub-pixel bases; a coarse find where a base stood still is not fitted again.

        The last coarse pass's bases are kept with their fits and the blob centre each fit was
        made from: a blob not ``fresh`` (its part of the frame showed nothing new) found again
        within a fraction of the search step of that centre is the same base, at rest, with
        the same fit. Comparing with the centre of the fit, not of the last pass, keeps a base
        pushed a little at a time from keeping a fit it has left behind. A blob whose fit
        failed is not fitted again so while that fit is younger than ``coarse_refit_frames``
        (as a failed ball fit, ``_kept_fits``): a cloth whose weave or a codec's blocks show
        hundreds of kit-coloured specks, none a base, cost a fit of each on every pass.
        """
        n = len(rough)
        if n == 0 and not from_coarse:  # most frames: no base to look at
            return np.zeros((0, 2)), np.zeros(0), np.zeros((0, 2)), np.zeros(0, bool)
        reuse, failed = np.zeros(n, bool), np.zeros(n, bool)
        j = np.zeros(n, int)
        still = np.ones(n, bool) if fresh is None else ~fresh
        if from_coarse and self._last_bases is not None:
            j, reuse = self._same_blobs(rough, teams, self._last_bases[0], self._last_bases[4])
            reuse &= still
        xy, r, mm, ok = np.zeros((n, 2)), np.zeros(n), np.zeros((n, 2)), np.ones(n, bool)
        fitted_at, fitted_on = rough.copy(), np.full(n, self._frames)
        if from_coarse and self._failed_bases is not None:
            young = self._frames - self._failed_bases[2] < self.config.coarse_refit_frames
            f_rough, f_team, f_frame = (a[young] for a in self._failed_bases)
            i, failed = self._same_blobs(rough, teams, f_rough, f_team)
            failed &= still & ~reuse
            ok[failed] = False
            fitted_at[failed], fitted_on[failed] = f_rough[i[failed]], f_frame[i[failed]]
        if reuse.any():
            lrough, lxy, lr, lmm, _ = self._last_bases
            k = j[reuse]
            xy[reuse], r[reuse], mm[reuse], fitted_at[reuse] = lxy[k], lr[k], lmm[k], lrough[k]
        fit_now = ~reuse & ~failed
        if fit_now.any():
            fit = refine_bases(image, self.model, rough[fit_now], self.config)
            xy[fit_now], r[fit_now], mm[fit_now], ok[fit_now] = fit
        if from_coarse:
            self._last_bases = (fitted_at[ok], xy[ok], r[ok], mm[ok], teams[ok])
            self._failed_bases = (fitted_at[~ok], teams[~ok], fitted_on[~ok])
        return xy, r, mm, ok

    def _same_blobs(self, rough, teams, places, place_teams) -> tuple[NDArray, NDArray]:
        """For each rough base ``(n, 2)`` px of ``teams``, the nearest of ``places (p, 2)`` of
        its team, and whether it lies within a fraction of the search step of it (the same
        blob found again)."""
        n = len(rough)
        if n == 0 or len(places) == 0:
            return np.zeros(n, int), np.zeros(n, bool)
        d = np.hypot(*(rough[:, None, :] - places[None, :, :]).transpose(2, 0, 1))
        d = np.where(teams[:, None] == place_teams[None, :], d, np.inf)
        j = np.argmin(d, axis=1)
        return j, d[np.arange(n), j] < SAME_STEPS * self._step

    def _ball_sized(self, size_err: NDArray) -> NDArray[np.bool_]:
        """Outlines nearer the ball's radius than a base's (a team of the ball's colour).

        Smaller ones pass further: a shaded limb that fades into a pale cloth shows the ball
        up to a millimetre small (a base is never smaller than the ball)."""
        tol = self._size_tol_mm
        return (size_err <= tol) & (size_err >= -2.0 * tol)

    def _ball_quality(self, image, centre_px, r_px, ok, outline, whole):
        """Score ``(k,)`` of each fitted candidate, which ones are balls at all, the ball colour
        each shows, and which would be balls were their outline whole.

        A ball shows a ball-sized outline (its support: the share of rays ``outline (k, m)``
        ending on it) and is ball-coloured just inside the outline where that is seen. A
        ball-coloured patch of something else (a highlight, part of a figure) fails one or
        the other; a ball half under a finger passes both. The score is the support (full
        from 0.8 on) times the colour share. A ball its whole patch placed (``whole (k,)``)
        had its outline checked whole round it, rays that meet a line of its own colour
        included (``vision.refine.PATCH_MIN_SUPPORT``): a white ball on the corner arc and
        its two lines shows a third of its outline or less, and counts as whole.
        """
        cfg = self.config
        k, m = outline.shape
        if k == 0:
            return np.zeros(0), ok, np.zeros(0, np.int64), ok
        pts = centre_px[:, None, :] + 0.6 * self._ray_u[None] * r_px[:, None, None]  # (k, m, 2)
        w, h = self.model.size_px
        ix = np.minimum(np.maximum(np.rint(pts[..., 0]).astype(np.intp), 0), w - 1)
        iy = np.minimum(np.maximum(np.rint(pts[..., 1]).astype(np.intp), 0), h - 1)
        pixels = image[iy.ravel(), ix.ravel()]
        _, ball = self._colour.classes(pixels)
        seen = outline.sum(1)
        inside = ball.reshape(k, m) & outline
        share = inside.sum(1) / np.maximum(seen, 1)
        coloured = ok & (share >= cfg.ball_min_colour)
        whole_support = np.maximum(seen / m, PATCH_MIN_SUPPORT)
        if_whole = coloured & (whole_support >= cfg.ball_min_support)
        support = np.where(whole, whole_support, seen / m)
        keep = coloured & (support >= cfg.ball_min_support)
        quality = np.minimum(1.0, support / 0.8) * share
        colour = np.zeros(k, np.int64)
        n_colours = len(self._colour_prior)
        if n_colours > 1:  # the colour most of its ball-coloured inside shows
            idx = self._colour.ball_colour_index(pixels).reshape(k, m)
            votes = np.stack([(inside & (idx == c)).sum(1) for c in range(n_colours)], 1)
            colour = np.argmax(votes, axis=1)
            quality = quality * self._colour_prior[colour]
        return quality, keep, colour, if_whole

    # ------------------------------------------------------------------ search
    def _ball_candidates(self, blobs, fresh=None) -> tuple[NDArray, NDArray]:
        """Ball-coloured blobs of a ball's size (a streak may be longer), best first.

        The score is 1 for a blob of exactly a ball's area and falls with the log of the
        ratio; blobs under 0.2 or over 2.5 balls (slivers, shirts) are dropped. Blobs where
        the frame changed (``fresh (n,)``, of the whole-cloth pass) come before the others,
        whatever their score: what moves is what tells the ball (a ball rolling beside a kit
        of its colour, whose many still bases outrank it by size), and only so many
        candidates are kept and fitted per frame.
        """
        if blobs is None:
            return np.zeros((0, 2)), np.zeros(0)
        centre, cls, area, elong = blobs[:4]
        balls = area / self._ball_area_mm2
        ratio = balls / np.maximum(elong, 1.0)  # a streak: its area per length of a ball
        score = np.clip(1.0 - 0.5 * np.abs(np.log(np.maximum(ratio, 1e-3))), 0.05, 1.0)
        # A fifth of a ball (the rest under a finger) is still worth a fit.
        ok = (cls == BALL) & (balls > 0.2) & (ratio < 2.5)
        first = np.zeros(len(ok)) if fresh is None else np.asarray(fresh, float)
        order = np.lexsort((-score[ok], -first[ok]))[: self.config.max_ball_candidates]
        return centre[ok][order], score[ok][order]

    def _cloth_blobs(self, image, background, roi, origin, step):
        """``ColourBlobs.find`` on a sub-sampled part of the cloth (``vision/cloth.py``)."""
        return self._colour.find(image, background, roi, self.model.px_per_mm, origin, step)

    def _coarse_of(self, table: BlobTable) -> _Coarse:
        blobs = (table.centre_px, table.cls, table.area_mm2, table.elongation)
        balls, _ = self._ball_candidates(blobs if len(table.cls) else None, table.fresh)
        ratio = table.area_mm2 / self._base_area_mm2
        base = (table.cls != BALL) & (ratio > 0.3) & (ratio < 3.0)
        teams = (table.cls[base] - HOME).astype(np.int8)
        return _Coarse(balls, table.centre_px[base], teams, table.fresh[base])

    def _ring_teams(self, image, xy_mm, ok, teams) -> tuple[NDArray, NDArray, NDArray]:
        """The team each fitted base shows ``(n,)``, how well it shows it ``(n,)``, and
        whether it shows its blob's team all round ``(n,)``.

        A base is a ring of its team's colour; its body may be any colour (a goalkeeper's
        shirt of the other team's) and leans away from the nadir, so the ring is read on the
        side facing the nadir, each point counting for a team only when it is clearly of its
        colour (``ColourBlobs.rim_teams``). Where it shows neither team the blob's colour
        stands. A fit shows its team better when its blob was of that colour (a fit started
        from a shirt sits less well on the base), then the more ring points show it. All
        round: on ``RINGED_POINTS`` of the points, each of its team's class (clearly or not),
        of no ball's colour and no shadow (a ball fitted as a base a little off its centre
        shows the cloth darkened round it there, which reads as a dark team).
        """
        teams, support = teams.astype(np.int8), np.zeros(len(teams), np.int64)
        ringed = np.zeros(len(teams), bool)
        if not ok.any():
            return teams, support, ringed
        ring = near_rim_px(self.model, xy_mm[ok])  # (k, points, 2)
        w, h = self.model.size_px
        ix = np.clip(np.rint(ring[..., 0]).astype(np.intp), 0, w - 1)
        iy = np.clip(np.rint(ring[..., 1]).astype(np.intp), 0, h - 1)
        cls, clear, other = self._colour.rim_teams(
            image[iy, ix].reshape(-1, 3), self.model.background[iy, ix].reshape(-1, 3)
        )
        shown, other = cls.reshape(ix.shape) - HOME, other.reshape(ix.shape)
        sure = np.where(clear.reshape(ix.shape), shown, -1)
        home, away = (sure == 0).sum(axis=1), (sure == 1).sum(axis=1)
        read = np.where(home > away, 0, np.where(away > home, 1, teams[ok]))
        of_read = shown == read[:, None]
        support[ok] = of_read.sum(axis=1) + ix.shape[1] * (read == teams[ok])
        plain = (of_read & ~other).sum(axis=1)
        ringed[ok] = (read == teams[ok]) & (plain >= RINGED_POINTS)
        teams[ok] = read
        return teams, support, ringed

    def _one_per_place(self, xy_mm, ok, support) -> NDArray[np.bool_]:
        """``ok`` without the lesser of any two fitted bases that would overlap.

        Bases are solid discs: two centres stand at least a base diameter apart (less a tenth
        for the fits' errors), so two fits closer than that are one figure whose blob split
        between two colours (a shirt of the other team's colour on its base, a shaded rim, the
        white of a base's middle and a line beside it): the fit that shows its team better
        (``_ring_teams``) is kept.
        """
        ok = ok.copy()
        d = np.hypot(*(xy_mm[:, None, :] - xy_mm[None, :, :]).transpose(2, 0, 1))
        same = np.triu(d < 1.8 * self.model.pitch.profile.base_radius_mm, k=1)
        same &= ok[:, None] & ok[None, :]
        for i, j in zip(*np.nonzero(same), strict=True):  # a few figures at most
            if ok[i] and ok[j]:
                ok[j if support[i] >= support[j] else i] = False
        return ok

    def _window(self, centre: NDArray, half: float):
        w, h = self.model.size_px
        x0, y0 = (max(0, int(centre[0] - half)), max(0, int(centre[1] - half)))
        x1, y1 = (min(w, int(centre[0] + half) + 1), min(h, int(centre[1] + half) + 1))
        return x0, y0, x1, y1

    def _ball_in_window(self, image, box):
        x0, y0, x1, y1 = box
        blobs = self._colour.find(
            image[y0:y1, x0:x1],
            self.model.background[y0:y1, x0:x1],
            None,
            self.model.px_per_mm,
            np.array([x0, y0], np.float64),
            1,
            classes=(BALL,),
        )
        return self._ball_candidates(blobs)

    def _bases_in_windows(self, image, hints):
        r = self.model.pitch.profile.base_radius_mm
        centres, teams = [], []
        for hint in hints:  # a handful of moving figures at most
            half = 3.0 * r * float(self.model.px_per_mm(hint)[0])
            box = self._window(hint, half)
            if _too_small(box):  # a figure followed out of the frame
                continue
            x0, y0, x1, y1 = box
            blobs = self._colour.find(
                image[y0:y1, x0:x1],
                self.model.background[y0:y1, x0:x1],
                None,
                self.model.px_per_mm,
                np.array([x0, y0], np.float64),
                1,
                classes=(HOME, AWAY),
            )
            if blobs is None:
                continue
            centre, cls, area = blobs[:3]
            ok = (cls != BALL) & (area > 0.3 * self._base_area_mm2)
            if ok.any():
                i = np.flatnonzero(ok)[np.argmin(np.hypot(*(centre[ok] - hint).T))]
                centres.append(centre[i])
                teams.append(cls[i] - HOME)
        if not centres:
            return np.zeros((0, 2)), np.zeros(0, np.int8)
        return np.array(centres), np.array(teams, np.int8)


def _too_small(box: tuple) -> bool:
    """Whether the window ``box`` (x0, y0, x1, y1) is too small to search (cut off by the
    frame's edge, or wholly beyond it)."""
    return box[2] - box[0] < 3 or box[3] - box[1] < 3


def _touches(mask: NDArray[np.bool_], box: tuple) -> bool:
    """Whether ``mask (h, w)`` holds a pixel inside the window ``box`` (x0, y0, x1, y1)."""
    return bool(mask[box[1] : box[3], box[0] : box[2]].any())


def _inside(xy_px: NDArray, box: tuple) -> bool:
    """Whether the point ``(2,)`` px lies in the window ``box`` (x0, y0, x1, y1)."""
    return box[0] <= xy_px[0] < box[2] and box[1] <= xy_px[1] < box[3]


def _merge_fits(window: tuple, cloth: tuple) -> tuple:
    """The window's ball fits and those of the whole cloth that are not the same candidate
    (within a radius of one of the window's)."""
    wxy, wr = window[0][window[4]], window[1][window[4]]
    if len(wxy):
        d = np.linalg.norm(cloth[0][:, None, :] - wxy[None], axis=2)
        other = ~(d < wr[None, :]).any(axis=1)
    else:
        other = np.ones(len(cloth[0]), bool)
    return tuple(np.concatenate([a, b[other]]) for a, b in zip(window, cloth, strict=True))
