"""A struck base that hits another base before the ball moves (button football's foul).

``StrikeWatch(config).update(ball, figures) -> tuple[Contact, ...]``, once per frame beside the
ball contacts. While the ball lies at rest, the first base that slides off its rest point faster
than ``strike_speed_mm_s`` is the struck one. Another base that then leaves its own rest point by
more than ``moved_mm`` was hit by it when the struck base's footprint came within
``touch_gap_mm`` of that rest point; the hit is dated to the first frame it did. The hit is a
``flick`` contact of the struck base with the hit base as its target, decided once the ball has
shown whether it moved first:

- the ball still at rest ``decide_frames`` after the hit (its onset is confirmed a frame or
  two late and dated back, so this is long enough to know): the hit came first;
- the ball's onset before the hit, or within ``order_frames`` of it: the ball may have been
  struck first (a base driven on through the ball into another is play, not a foul), and
  the frames cannot order the two, so nothing is called and the referee decides.

A base that moved while the struck one stayed farther than ``touch_gap_mm`` from it (a hand,
another touch) is no hit: nothing is called. Keepers are never the struck piece (a keeper
block is placed by hand, and kicks only the ball), but may be hit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from tracking.ball import BallTrack
from tracking.contacts import Contact
from tracking.figures import FigureTracks


@dataclass(frozen=True, slots=True)
class StrikeConfig:
    """Tunables of ``StrikeWatch``.

    Attributes:
        base_radius_mm: base (button) radius of the table profile.
        strike_speed_mm_s: a base sliding off its rest point faster than this was struck (a
            base at rest reads a few tens of mm/s of velocity noise).
        moved_mm: displacement from its rest point that shows a base moved (three times the
            ~1 mm error of a base position, so noise never reads as a hit).
        rest_speed_mm_s: slower than this a base is at rest and its rest point is renewed.
        touch_gap_mm: largest gap between two base footprints still counted as a touch.
        decide_frames: frames after a hit before it is decided (the ball's onset is confirmed
            late and dated back).
        order_frames: a ball onset this close to the hit cannot be ordered with it.
    """

    base_radius_mm: float = 12.0
    strike_speed_mm_s: float = 150.0
    moved_mm: float = 3.0
    rest_speed_mm_s: float = 30.0
    touch_gap_mm: float = 4.0
    decide_frames: int = 4
    order_frames: int = 1


@dataclass(frozen=True, slots=True)
class _Hit:
    frame: int
    t_s: float
    striker: int
    team: int
    target: int
    gap_mm: float
    ball_xy: np.ndarray


class StrikeWatch:
    """Finds a struck base hitting another before the ball moves; see the module docstring."""

    def __init__(self, config: StrikeConfig | None = None) -> None:
        self.config = config or StrikeConfig()
        self._rest: dict[int, np.ndarray] = {}  # base id -> its rest point before the strike
        self._striker: int | None = None
        # base id -> (least gap between the struck base and its rest point, and the frame and
        # time the gap first came within touch_gap_mm: the touch, or inf and this frame)
        self._closest: dict[int, tuple[float, int, float]] = {}
        self._hits: list[_Hit] = []
        self._hit_ids: set[int] = set()

    def update(self, ball: BallTrack, figures: FigureTracks) -> tuple[Contact, ...]:
        """The hits decided on this frame (usually none)."""
        onset = ball.onset_frame
        if onset is None and ball.moving:
            onset = -1  # rolling already: whatever is pending cannot be ordered any more
        decided = self._decide(ball.frame, onset)
        speed = np.hypot(*figures.v_mm_s.T) if len(figures) else np.zeros(0)
        if ball.moving or onset is not None:
            self._end_strike()
        elif self._striker is None:
            self._look_for_striker(figures, speed)
        if self._striker is not None:
            self._follow(ball, figures)
            if not (speed > self.config.rest_speed_mm_s).any():
                self._end_strike()
        if self._striker is None:
            at_rest = speed < self.config.rest_speed_mm_s
            for fid, xy in zip(figures.id[at_rest], figures.xy_mm[at_rest], strict=True):
                self._rest[int(fid)] = xy.copy()
        return decided

    def _look_for_striker(self, figures: FigureTracks, speed: np.ndarray) -> None:
        best, best_speed = None, self.config.strike_speed_mm_s
        for row, fid in enumerate(figures.id.tolist()):
            rest = self._rest.get(fid)
            if figures.goalkeeper[row] or rest is None or speed[row] <= best_speed:
                continue
            if math.hypot(*(figures.xy_mm[row] - rest)) > self.config.moved_mm:
                best, best_speed = row, float(speed[row])
        if best is not None:
            self._striker, self._closest, self._hit_ids = int(figures.id[best]), {}, set()

    def _follow(self, ball: BallTrack, figures: FigureTracks) -> None:
        """Closest approaches of the struck base, and the bases that moved since.

        The gap is taken to where each base stood at rest, not to where it is: at 50 fps the
        frame of the touch itself is rarely seen (a base struck at 0.5 m/s covers 10 mm a
        frame, and the hit one is on its way by the next frame), but the struck base stops or
        runs on at that rest point, so its footprint reaches it either way."""
        cfg = self.config
        rows = np.flatnonzero(figures.id == self._striker)
        if len(rows) == 0:
            return  # lost for a frame (blurred while it runs): its approaches wait
        at = figures.xy_mm[int(rows[0])]
        for row, fid in enumerate(figures.id.tolist()):
            rest = self._rest.get(fid)
            if fid == self._striker or fid in self._hit_ids or rest is None:
                continue
            gap = math.hypot(*(rest - at)) - 2.0 * cfg.base_radius_mm
            least = self._closest.get(fid, (math.inf, ball.frame, ball.t_s))
            if gap < least[0]:
                touched = least[0] <= cfg.touch_gap_mm  # keep the frame of the first touch
                frame, t_s = (least[1], least[2]) if touched else (ball.frame, ball.t_s)
                self._closest[fid] = least = (gap, frame, t_s)
            if math.hypot(*(figures.xy_mm[row] - rest)) <= cfg.moved_mm:
                continue
            self._hit_ids.add(fid)  # it moved: hit by the struck base, or by something else
            if least[0] <= cfg.touch_gap_mm:
                xy = ball.xy_mm if ball.xy_mm is not None else np.full(2, np.nan)
                team = int(figures.team[rows[0]])
                gap, frame, t_s = least
                self._hits.append(_Hit(frame, t_s, int(self._striker), team, fid, gap, xy))

    def _decide(self, frame: int, onset: int | None) -> tuple[Contact, ...]:
        cfg, out, keep = self.config, [], []
        for h in self._hits:
            if onset is not None and (onset < 0 or onset <= h.frame + cfg.order_frames):
                continue  # the ball may have moved first: the referee's to decide
            if onset is not None or frame - h.frame >= cfg.decide_frames:
                out.append(
                    Contact(
                        "flick", h.frame, h.t_s, h.striker, h.team, h.ball_xy, h.gap_mm, h.target
                    )
                )
            else:
                keep.append(h)
        self._hits = keep
        return tuple(out)

    def _end_strike(self) -> None:
        self._striker, self._closest, self._hit_ids = None, {}, set()
