"""The state of a simulated table at one instant: what the renderer draws, exactly.

Scenes (``simulator/scenes.py``) produce one ``SceneFrame`` per video frame; the renderer
(``simulator/render.py``) turns it into pixels, and the ground truth is read off the same object,
so pixels and truth can never disagree. Positions are ground points in the pitch frame (mm):
the point where the ball touches the cloth, the centre of a base's footprint.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

HOME, AWAY = 0, 1
TEAM_NAMES = ("home", "away")


def _check(name: str, arr: NDArray, shape: tuple[int | None, ...]) -> None:
    if arr.ndim != len(shape) or any(
        s is not None and a != s for a, s in zip(arr.shape, shape, strict=False)
    ):
        raise ValueError(f"{name}: expected shape {shape} (None = any), got {arr.shape}")


@dataclass(frozen=True, slots=True)
class Figures:
    """All figures on the table as struct-of-arrays; n figures.

    Attributes:
        id: (n,) int, stable figure ids.
        team: (n,) int8, ``HOME`` or ``AWAY``.
        goalkeeper: (n,) bool.
        xy_mm: (n, 2) float64, base centre on the cloth.
        v_mm_s: (n, 2) float64, base velocity (for motion blur and the moving flag).
    """

    id: NDArray[np.int64]
    team: NDArray[np.int8]
    goalkeeper: NDArray[np.bool_]
    xy_mm: NDArray[np.float64]
    v_mm_s: NDArray[np.float64]

    def __post_init__(self) -> None:
        n = len(self.id)
        _check("id", self.id, (n,))
        _check("team", self.team, (n,))
        _check("goalkeeper", self.goalkeeper, (n,))
        _check("xy_mm", self.xy_mm, (n, 2))
        _check("v_mm_s", self.v_mm_s, (n, 2))

    def __len__(self) -> int:
        return len(self.id)

    @classmethod
    def empty(cls) -> Figures:
        return cls(
            np.zeros(0, np.int64),
            np.zeros(0, np.int8),
            np.zeros(0, bool),
            np.zeros((0, 2)),
            np.zeros((0, 2)),
        )


@dataclass(frozen=True, slots=True)
class Finger:
    """A player's finger reaching over the table: a capsule from ``tip_mm`` to ``root_mm``.

    Points are (x, y, z) in mm; the root usually lies outside the image.
    """

    tip_mm: tuple[float, float, float]
    root_mm: tuple[float, float, float]
    radius_mm: float = 8.0


@dataclass(frozen=True, slots=True)
class SceneFrame:
    """Everything on the table at time ``t_s``.

    Attributes:
        t_s: time since the start of the clip, seconds.
        ball_xy_mm: (2,) ground point of the ball, or None while it is off the table.
        ball_v_mm_s: (2,) ball velocity in mm/s (zero at rest).
        figures: every figure on the table.
        fingers: fingers reaching in (usually empty).
    """

    t_s: float
    ball_xy_mm: NDArray[np.float64] | None
    ball_v_mm_s: NDArray[np.float64]
    figures: Figures
    fingers: tuple[Finger, ...] = field(default=())

    @property
    def ball_moving(self) -> bool:
        return self.ball_xy_mm is not None and bool(np.any(self.ball_v_mm_s != 0.0))
