"""Analytic motion for the simulator: slides with constant deceleration, exact at any time.

A struck ball rolls in a straight line and loses speed at a constant rolling deceleration until
it stops; a flicked figure slides on its felt base the same way with a larger deceleration. Both
are one model, a ``Slide``: start point, unit direction, launch speed, deceleration, start time
and the distance at which it stops (its natural stopping distance ``v0**2 / (2 a)``, or less when
something stops it first, such as a goal's back net). Positions come from closed forms in time,
so there is no numeric drift, and an object that has stopped sits *exactly* on its stored end
point (not on a sum that may miss it by 1e-13 mm).

An object's whole clip is a ``Path``: its start point and a time-ordered list of pieces (slides,
and for the ball, being lifted off the table and put down again).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

# A 21 mm Subuteo ball on a cloth slows at roughly 0.4-0.6 m/s^2 (a 40 cm pass lasts about 1.3 s).
BALL_DECEL_MM_S2 = 500.0
# A flicked base stops after a few centimetres: the felt drags far harder than a rolling ball.
FIGURE_DECEL_MM_S2 = 1500.0
# The lighter ball leaves a strike faster than the figure arrives; the figure follows through
# at a fraction of its contact speed. With ratio <= 1 and the figure's deceleration >= the
# ball's, the figure can never catch up with the ball it struck.
FIGURE_CONTACT_SPEED_RATIO = 0.8
FOLLOW_THROUGH_RATIO = 0.25


class PhysicsError(ValueError):
    """A motion was asked for that the model cannot produce (negative distance, no speed)."""


def launch_speed_mm_s(distance_mm: float, decel_mm_s2: float) -> float:
    """Speed (mm/s) that makes a slide with deceleration ``decel_mm_s2`` stop after ``distance_mm``.

    ``v0 = sqrt(2 a d)``.
    """
    if distance_mm < 0 or decel_mm_s2 <= 0:
        raise PhysicsError(
            f"need distance >= 0 and deceleration > 0, got {distance_mm} mm, {decel_mm_s2} mm/s^2"
        )
    return math.sqrt(2.0 * decel_mm_s2 * distance_mm)


@dataclass(frozen=True, slots=True)
class Slide:
    """Straight motion with constant deceleration from ``t0_s`` until it stops.

    Attributes:
        t0_s: time of launch, s.
        start_mm: (x, y) start point, mm.
        dir_xy: (x, y) unit direction.
        v0_mm_s: launch speed, mm/s.
        decel_mm_s2: deceleration while moving, mm/s^2.
        stop_mm: distance travelled when it stops (<= the natural ``v0**2 / (2 a)``); at that
            point it stops at once, whatever its speed (a net, or the contact that ends a run-up).
        end_mm: (x, y) exact point where it stops.
    """

    t0_s: float
    start_mm: tuple[float, float]
    dir_xy: tuple[float, float]
    v0_mm_s: float
    decel_mm_s2: float
    stop_mm: float
    end_mm: tuple[float, float]

    @classmethod
    def to_target(
        cls, t0_s: float, start_mm: ArrayLike, target_mm: ArrayLike, decel_mm_s2: float
    ) -> Slide:
        """A slide launched so that it comes to rest exactly on ``target_mm``."""
        a, b = _xy(start_mm), _xy(target_mm)
        d = math.dist(a, b)
        if d == 0.0:
            raise PhysicsError(f"slide from {a} to itself: give a target elsewhere")
        u = ((b[0] - a[0]) / d, (b[1] - a[1]) / d)
        return cls(t0_s, a, u, launch_speed_mm_s(d, decel_mm_s2), decel_mm_s2, d, b)

    @classmethod
    def launched(
        cls,
        t0_s: float,
        start_mm: ArrayLike,
        dir_xy: ArrayLike,
        v0_mm_s: float,
        decel_mm_s2: float,
        stop_mm: float | None = None,
    ) -> Slide:
        """A slide with a given launch speed, stopping naturally or after ``stop_mm``."""
        a, u = _xy(start_mm), _xy(dir_xy)
        norm = math.hypot(*u)
        if v0_mm_s <= 0 or norm == 0.0:
            raise PhysicsError(f"a slide needs a speed > 0 and a direction, got {v0_mm_s}, {u}")
        u = (u[0] / norm, u[1] / norm)
        natural = v0_mm_s * v0_mm_s / (2.0 * decel_mm_s2)
        d = natural if stop_mm is None else min(float(stop_mm), natural)
        if d < 0:
            raise PhysicsError(f"stop distance must be >= 0, got {stop_mm}")
        return cls(t0_s, a, u, v0_mm_s, decel_mm_s2, d, (a[0] + u[0] * d, a[1] + u[1] * d))

    @property
    def duration_s(self) -> float:
        """Time from launch until it stops (earlier than the natural stop when cut short)."""
        v0, a, d = self.v0_mm_s, self.decel_mm_s2, self.stop_mm
        # Solve v0 t - a t^2 / 2 = d for the first root; the stable form avoids cancellation.
        disc = max(v0 * v0 - 2.0 * a * d, 0.0)
        return 2.0 * d / (v0 + math.sqrt(disc)) if d > 0 else 0.0

    @property
    def t_end_s(self) -> float:
        return self.t0_s + self.duration_s

    def speed_at(self, t_s: ArrayLike) -> NDArray[np.float64]:
        """Speed (n,) in mm/s; zero before launch, at the launch instant and once stopped."""
        t = np.asarray(t_s, dtype=np.float64)
        tau = t - self.t0_s
        moving = (tau > 0) & (t < self.t_end_s)
        return np.where(moving, self.v0_mm_s - self.decel_mm_s2 * tau, 0.0)

    def distance_at(self, t_s: ArrayLike) -> NDArray[np.float64]:
        """Distance (n,) travelled along the direction, mm."""
        t = np.asarray(t_s, dtype=np.float64)
        tau = np.clip(t - self.t0_s, 0.0, self.duration_s)
        s = self.v0_mm_s * tau - 0.5 * self.decel_mm_s2 * tau * tau
        return np.minimum(s, self.stop_mm)

    def xy_at(self, t_s: ArrayLike) -> NDArray[np.float64]:
        """Positions (n, 2) in mm; exactly ``end_mm`` once stopped, ``start_mm`` before launch."""
        t = np.atleast_1d(np.asarray(t_s, dtype=np.float64))
        s = self.distance_at(t)
        xy = np.asarray(self.start_mm) + s[:, None] * np.asarray(self.dir_xy)
        xy[t >= self.t_end_s] = self.end_mm
        xy[t <= self.t0_s] = self.start_mm
        return xy

    def v_at(self, t_s: ArrayLike) -> NDArray[np.float64]:
        """Velocities (n, 2) in mm/s."""
        t = np.atleast_1d(np.asarray(t_s, dtype=np.float64))
        return self.speed_at(t)[:, None] * np.asarray(self.dir_xy)


@dataclass(frozen=True, slots=True)
class Lift:
    """The ball is off the table from ``t0_s`` until ``t1_s``, then stands on ``to_mm``."""

    t0_s: float
    t1_s: float
    to_mm: tuple[float, float]

    @property
    def t_end_s(self) -> float:
        return self.t1_s


Piece = Slide | Lift


@dataclass(frozen=True, slots=True)
class Path:
    """One object's motion over a clip: a start point and pieces in time order.

    Pieces must not overlap in time: each starts at or after the end of the one before, and a
    slide starts where the object stands.
    """

    start_mm: tuple[float, float]
    pieces: tuple[Piece, ...] = ()

    def then(self, piece: Piece) -> Path:
        """This path with ``piece`` appended; raises ``PhysicsError`` if it would overlap."""
        if self.pieces and piece.t0_s < self.pieces[-1].t_end_s - 1e-12:
            raise PhysicsError(
                f"motion at {piece.t0_s:.3f} s starts before the previous one ends at "
                f"{self.pieces[-1].t_end_s:.3f} s"
            )
        return Path(self.start_mm, (*self.pieces, piece))

    def rest_mm(self) -> tuple[float, float]:
        """Where the object stands after its last piece."""
        if not self.pieces:
            return self.start_mm
        last = self.pieces[-1]
        return last.end_mm if isinstance(last, Slide) else last.to_mm

    def rest_at(self, t_s: float) -> tuple[float, float]:
        """Where the object stands once every piece started before ``t_s`` has finished."""
        return Path(self.start_mm, tuple(p for p in self.pieces if p.t0_s < t_s)).rest_mm()

    def state_at(
        self, t_s: Sequence[float] | NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
        """Positions (n, 2) mm, velocities (n, 2) mm/s and on-table flags (n,) at times (n,)."""
        t = np.atleast_1d(np.asarray(t_s, dtype=np.float64))
        xy = np.tile(np.asarray(self.start_mm, dtype=np.float64), (len(t), 1))
        v = np.zeros((len(t), 2))
        on_table = np.ones(len(t), dtype=bool)
        for piece in self.pieces:
            after = t > piece.t0_s
            if not after.any():
                break
            if isinstance(piece, Slide):
                xy[after] = piece.xy_at(t[after])
                v[after] = piece.v_at(t[after])
            else:
                lifted = after & (t < piece.t1_s)
                on_table[lifted] = False
                xy[after] = piece.to_mm
                v[after] = 0.0
        return xy, v, on_table


def _xy(p: ArrayLike) -> tuple[float, float]:
    a = np.asarray(p, dtype=np.float64).reshape(-1)
    if a.shape != (2,):
        raise PhysicsError(f"expected a point (x, y), got {p!r}")
    return float(a[0]), float(a[1])
