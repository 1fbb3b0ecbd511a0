"""Contacts between figures and the ball: who flicked it, and what it ran into while rolling.

``ContactDetector(config).update(ball, figures) -> tuple[Contact, ...]``, once per frame after
the ball and figure tracks. Two kinds:

- ``flick``: the ball tracker confirmed a movement; the striker is the figure whose base came
  nearest the ball's rest point around the onset frame, if it came within ``touch_gap_mm``. A
  base running at the ball counts as nearer by the way it covers until the strike (at the
  latest the first frame the ball rolls): a flicked figure is blurred while it runs, and its
  track may lose it for a frame or two just before it strikes.
  A movement confirmed with no base near (a lean of the fits, not a strike: a low-bitrate
  clip garbles the ball as a hand reaches in) leaves its rest point *unclaimed*: the first
  collision, by a base that had come within ``touch_gap_mm`` of that point, is the strike.
- ``collision``: a rolling ball turned by more than ``turn_deg`` (or sped up) over a few frames
  while a base was close enough to have touched it, and now rolls away from that base, already
  farther from it than at the touch by more than its readings' noise. A ball coming to rest
  just short of a base turns too, its last slow millimetres read off the blob beside the base,
  but it still heads for the base, no longer moves, or reads back for a frame no farther than
  its noise: no base turned it.
  Close enough: the measured gap reaches zero within its uncertainty (ball and base,
  ``gap_sigmas`` times) plus the way the ball covers in a frame at its speed over those frames
  (the touch falls between two frames), at most ``touch_gap_mm``. A slow ball that stops or
  turns beside a base a few millimetres off never touched it; a fast one may be seen a
  frame's travel short of the base it bounced off.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from tracking.ball import BallTrack
from tracking.figures import FigureTracks


@dataclass(frozen=True, slots=True)
class ContactConfig:
    """Tunables of contact detection.

    Attributes:
        ball_radius_mm: ball radius of the table profile.
        base_radius_mm: base radius of the table profile.
        touch_gap_mm: largest gap between ball and base footprints still counted as a touch
            (tracking noise and a base that strikes and recoils within one frame).
        turn_deg: change of direction of a rolling ball that marks a collision.
        window_frames: frames compared for the turn and searched around a flick onset.
        refractory_s: the same figure is not reported twice within this time.
        leave_speed_mm_s: a ball a base turned rolls away from it at least this fast (the
            ball tracker's stop speed: slower, its velocity is the noise of a ball at rest).
        base_sigma_mm: standard uncertainty of a base's tracked centre (the bar of a base's
            position, DESIGN.md 5).
        gap_sigmas: a touch's measured gap lies within this many standard uncertainties of
            zero (beyond a frame's travel of the ball).
    """

    ball_radius_mm: float = 10.5
    base_radius_mm: float = 12.0
    touch_gap_mm: float = 8.0
    turn_deg: float = 20.0
    window_frames: int = 3
    refractory_s: float = 0.3
    leave_speed_mm_s: float = 12.0
    base_sigma_mm: float = 1.0
    gap_sigmas: float = 3.0


@dataclass(frozen=True, slots=True)
class Contact:
    """One touch of the ball by a figure.

    Attributes:
        kind: ``flick`` (the ball was at rest) or ``collision`` (it was rolling).
        frame: frame of the touch (for a flick: the onset frame, the last at rest).
        t_s: time of that frame.
        figure_id: id of the figure, or None when no base was near (a flick by hand).
        team: 0 home / 1 away, or None.
        xy_mm: (2,) ball ground point at the touch.
        gap_mm: gap between ball and base footprints at the touch (nan when no figure);
            with a target, between the two bases.
        target_id: the base this figure's flick hit (``tracking.strikes``), None: the ball.
    """

    kind: str
    frame: int
    t_s: float
    figure_id: int | None
    team: int | None
    xy_mm: NDArray[np.float64]
    gap_mm: float
    target_id: int | None = None


class ContactDetector:
    """Turns ball and figure tracks into contacts; see the module docstring."""

    def __init__(self, config: ContactConfig | None = None) -> None:
        self.config = config or ContactConfig()
        n = 2 * self.config.window_frames + 2
        self._balls: deque[BallTrack] = deque(maxlen=n)
        self._figures: deque[FigureTracks] = deque(maxlen=n)
        self._last_touch: dict[int, float] = {}
        self._unclaimed: NDArray[np.float64] | None = None  # a flick's rest point, no striker

    def update(self, ball: BallTrack, figures: FigureTracks) -> tuple[Contact, ...]:
        """Contacts decided on this frame (usually none)."""
        self._balls.append(ball)
        self._figures.append(figures)
        if ball.onset_frame is not None:
            flick = self._flick(ball.onset_frame)
            self._unclaimed = flick.xy_mm if flick.figure_id is None else None
            return (flick,)
        if not ball.moving or ball.xy_mm is None:
            self._unclaimed = None  # stopped or lost: struck unseen (by a hand)
        if ball.moving and ball.measured and self._turned():
            touch = self._nearest(range(ball.frame - self.config.window_frames, ball.frame + 1))
            if touch is not None and touch[2] <= self._touch_gap_mm():
                frame, fid, gap, team, xy = touch
                recent = ball.t_s - self._last_touch.get(fid, -math.inf) <= self.config.refractory_s
                if not recent and self._leaves(ball, figures, fid, gap):
                    self._last_touch[fid] = ball.t_s
                    rest, self._unclaimed = self._unclaimed, None
                    flick = None if rest is None else self._claim(rest, frame, fid)
                    if flick is not None:
                        return (flick,)
                    return (Contact("collision", frame, self._t(frame), fid, team, xy, gap),)
        return ()

    def _flick(self, onset: int) -> Contact:
        rest = next((b for b in self._balls if b.frame == onset), self._balls[0])
        w = self.config.window_frames
        frames = range(onset - w, onset + w + 1)
        touch = self._striker(frames, rest.xy_mm, self._t(onset + 1))
        xy = rest.xy_mm if rest.xy_mm is not None else self._balls[-1].xy_mm
        if touch is None:
            return Contact("flick", onset, rest.t_s, None, None, xy, math.nan)
        self._last_touch[touch[1]] = self._balls[-1].t_s
        return Contact("flick", onset, rest.t_s, touch[1], touch[3], xy, touch[2])

    def _claim(self, rest_xy: NDArray, frame: int, fid: int) -> Contact | None:
        """The flick of an unclaimed rest point by base ``fid``, whose touch of the ball was
        seen at ``frame``: when it came within ``touch_gap_mm`` of that point (as ``_flick``
        asks of a striker), else None."""
        touch = self._striker(
            range(frame - self.config.window_frames, frame + 1), rest_xy, self._t(frame)
        )
        if touch is None or touch[1] != fid:
            return None
        onset = frame - 1
        return Contact("flick", onset, self._t(onset), fid, touch[3], rest_xy, touch[2])

    def _striker(self, frames: range, rest_xy: NDArray | None, strike_s: float):
        """``_nearest`` base to a flick's rest point over ``frames``, if it came within
        ``touch_gap_mm`` of it (a striker); else None."""
        touch = self._nearest(frames, fixed_xy=rest_xy, strike_s=strike_s)
        return None if touch is None or touch[2] > self.config.touch_gap_mm else touch

    def _touch_gap_mm(self) -> float:
        """The largest gap a rolling ball that touched a base shows over the last frames
        (module docstring: uncertainty plus a frame's travel, at most ``touch_gap_mm``)."""
        cfg = self.config
        balls = list(self._balls)[-cfg.window_frames - 1 :]
        dt = balls[-1].t_s - balls[-2].t_s if len(balls) > 1 else 0.0
        travel = max(float(np.hypot(*b.v_mm_s)) for b in balls) * dt
        sigma = math.hypot(balls[-1].sigma_mm or 0.0, cfg.base_sigma_mm)
        return min(cfg.touch_gap_mm, cfg.gap_sigmas * sigma + travel)

    def _leaves(
        self, ball: BallTrack, figures: FigureTracks, fid: int, touch_gap_mm: float
    ) -> bool:
        """Whether the ball rolls away from base ``fid`` (one not seen now: taken as so): it
        heads away faster than a ball at rest seems to, and is already farther from the base
        than at the touch by more than its readings' noise. A ball slowing to rest beside a
        base may read a fraction of a millimetre back for a frame, which at frame rate is a
        speed away from it; one that bounced off keeps going."""
        rows = np.flatnonzero(figures.id == fid)
        if ball.xy_mm is None or len(rows) == 0:
            return True
        cfg = self.config
        off = ball.xy_mm - figures.xy_mm[rows[0]]
        dist = max(float(np.hypot(*off)), 1e-9)
        away = float(np.dot(ball.v_mm_s, off)) / dist
        grown = dist - cfg.ball_radius_mm - cfg.base_radius_mm - touch_gap_mm
        noise = cfg.gap_sigmas * math.sqrt(2.0) * (ball.sigma_mm or 0.0)
        return away > cfg.leave_speed_mm_s and grown > noise

    def _turned(self) -> bool:
        w = self.config.window_frames
        if len(self._balls) <= w or not self._balls[-1 - w].moving:
            return False
        v0, v1 = self._balls[-1 - w].v_mm_s, self._balls[-1].v_mm_s
        s0, s1 = float(np.hypot(*v0)), float(np.hypot(*v1))
        if s0 < 1e-6 or s1 < 1e-6:
            return False
        cos = float(np.dot(v0, v1)) / (s0 * s1)
        return cos < math.cos(math.radians(self.config.turn_deg)) or s1 > 1.3 * s0 + 50.0

    def _nearest(
        self, frames: range, fixed_xy: NDArray | None = None, strike_s: float | None = None
    ):
        """(frame, figure id, gap mm, team, ball xy) of the closest approach in ``frames``.

        With ``strike_s`` (a flick) a base running at the ball counts as nearer by what it
        covers until then.
        """
        best = None
        reach = self.config.ball_radius_mm + self.config.base_radius_mm
        for ball, figs in zip(self._balls, self._figures, strict=True):
            xy = fixed_xy if fixed_xy is not None else ball.xy_mm
            if ball.frame not in frames or xy is None or len(figs) == 0:
                continue
            off = xy - figs.xy_mm
            dist = np.maximum(np.hypot(*off.T), 1e-9)
            gaps = dist - reach
            if strike_s is not None:
                toward = (figs.v_mm_s * off).sum(axis=1) / dist
                gaps = gaps - np.clip(toward, 0.0, None) * max(strike_s - ball.t_s, 0.0)
            i = int(np.argmin(gaps))
            if best is None or gaps[i] < best[2]:
                best = (ball.frame, int(figs.id[i]), float(gaps[i]), int(figs.team[i]), xy)
        return best

    def _t(self, frame: int) -> float:
        return next((b.t_s for b in self._balls if b.frame == frame), self._balls[-1].t_s)
