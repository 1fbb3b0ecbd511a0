"""What the rules see of one frame: the ball, the figures and the contacts, in mm.

The pipeline turns tracks into one ``Observation`` per frame and feeds it to a rule set's
``step``. Everything is in the pitch frame (DESIGN.md section 3): ground points in mm, the ball's
footprint centre and each base's centre. A figure's team is the kit vision read for it, a small
int 0 or 1 (``HOME``/``AWAY``; the constructors also accept the names ``"home"`` / ``"away"``):
which end each kit defends is for the rules to learn (``rules.fistf_ends``), which then name the
teams in their calls by the ends, ``HOME`` for the team defending the home end.

A contact says that a figure touched the ball (``target_id is None``) or another figure, and how:

- ``flick``: the figure was flicked by its player (a played move begun at ``onset_frame``);
- ``collision``: the figure was not flicked: the ball (or a knocked figure) ran into it;
- ``miss``: the flicked figure came to rest without touching the ball (FISTF 5.1 a); its
  ``target_id`` is None.

``target_moving`` tells whether the touched figure was already moving (FISTF 5.3 forbids
touching a figure *at rest* before the ball); it is ignored for ball contacts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

HOME, AWAY = 0, 1
TEAM_NAMES = ("home", "away")
ContactKind = Literal["flick", "collision", "miss"]
CONTACT_KINDS = ("flick", "collision", "miss")


class ObservationError(ValueError):
    """An observation (or part of it) has a wrong shape, team or value."""


def team_code(team: int | str) -> int:
    """``HOME``/``AWAY`` from an int or a team name; raises ObservationError otherwise."""
    if isinstance(team, str):
        if team not in TEAM_NAMES:
            raise ObservationError(f"unknown team {team!r}; expected 'home' or 'away'")
        return TEAM_NAMES.index(team)
    if int(team) not in (HOME, AWAY):
        raise ObservationError(f"unknown team {team!r}; expected 0 (home) or 1 (away)")
    return int(team)


def team_name(team: int) -> str:
    """``"home"`` or ``"away"``."""
    return TEAM_NAMES[team_code(team)]


def other_team(team: int) -> int:
    return AWAY if team == HOME else HOME


def _shape_check(name: str, arr: NDArray, shape: tuple[int, ...]) -> None:
    if arr.shape != shape:
        raise ObservationError(f"{name}: expected shape {shape}, got {arr.shape}")


@dataclass(frozen=True, slots=True)
class Figures:
    """All figures seen in one frame, as struct-of-arrays; n figures.

    Attributes:
        id: (n,) int64, figure ids, unique over both teams.
        team: (n,) int8, the kit, 0 or 1 (named ``HOME``/``AWAY`` once the rules know the ends).
        goalkeeper: (n,) bool, rod goalkeepers (their footprint stands in for the figure).
        xy_mm: (n, 2) float64, base centres on the cloth.
        radius_mm: (n,) float64, base (or goalkeeper footprint) radii.
    """

    id: NDArray[np.int64]
    team: NDArray[np.int8]
    goalkeeper: NDArray[np.bool_]
    xy_mm: NDArray[np.float64]
    radius_mm: NDArray[np.float64]

    def __post_init__(self) -> None:
        n = len(self.id)
        _shape_check("id", self.id, (n,))
        _shape_check("team", self.team, (n,))
        _shape_check("goalkeeper", self.goalkeeper, (n,))
        _shape_check("xy_mm", self.xy_mm, (n, 2))
        _shape_check("radius_mm", self.radius_mm, (n,))
        if len(np.unique(self.id)) != n:
            raise ObservationError(f"figure ids must be unique, got {self.id.tolist()}")
        if n and not np.isin(self.team, (HOME, AWAY)).all():
            raise ObservationError(f"teams must be 0 (home) or 1 (away), got {self.team.tolist()}")

    def __len__(self) -> int:
        return len(self.id)

    @classmethod
    def empty(cls) -> Figures:
        return cls.build([], [], [], np.zeros((0, 2)), [])

    @classmethod
    def build(
        cls,
        ids: Iterable[int],
        teams: Iterable[int | str],
        goalkeeper: Iterable[bool],
        xy_mm: ArrayLike,
        radius_mm: Iterable[float] | float,
    ) -> Figures:
        """Build from plain sequences; teams may be names; one radius may serve all."""
        id_arr = np.asarray(list(ids), dtype=np.int64)
        radius = np.asarray(
            radius_mm if np.isscalar(radius_mm) else list(radius_mm), dtype=np.float64
        )
        return cls(
            id_arr,
            np.asarray([team_code(t) for t in teams], dtype=np.int8).reshape(-1),
            np.asarray(list(goalkeeper), dtype=bool).reshape(-1),
            np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2),
            np.broadcast_to(radius, id_arr.shape).copy() if radius.ndim == 0 else radius,
        )

    def index_of(self, figure_id: int) -> int | None:
        """Row of a figure id, or None when it is not seen this frame."""
        hits = np.flatnonzero(self.id == figure_id)
        return int(hits[0]) if len(hits) else None


@dataclass(frozen=True, slots=True)
class Contact:
    """One touch seen this frame (see the module docstring for the kinds)."""

    figure_id: int
    kind: ContactKind
    onset_frame: int
    target_id: int | None = None  # None: the ball
    target_moving: bool = False

    def __post_init__(self) -> None:
        if self.kind not in CONTACT_KINDS:
            raise ObservationError(f"contact kind {self.kind!r}; expected one of {CONTACT_KINDS}")
        if self.kind == "miss" and self.target_id is not None:
            raise ObservationError("a miss touches nothing: target_id must be None")

    @property
    def on_ball(self) -> bool:
        return self.target_id is None and self.kind != "miss"


@dataclass(frozen=True, slots=True)
class Observation:
    """One frame as the rules see it.

    Attributes:
        t_s: frame timestamp in seconds (the only clock the rules know).
        frame: frame index.
        ball_xy_mm: ground point of the ball ``(x, y)`` in mm, or None when it is not seen.
        ball_radius_mm: radius of the ball's footprint.
        ball_uncertainty_mm: bound on the ball position error from vision, in mm.
        ball_moving: whether the ball rolls (from tracking).
        figures: the figures seen this frame.
        contacts: the contacts that happened this frame.
        figure_uncertainty_mm: bound on the base position error, in mm.
        ball_switch_before_s: how long before ``t_s`` the ball started or stopped rolling,
            when it did so since the previous observation and tracking dated it between the
            two frames; None otherwise.
        ball_doubt_mm: how far the ball may be another object, in mm (part of
            ``ball_uncertainty_mm``): until it is seen struck, which ball-like object is the
            ball is not settled (a clip picked up in play beside a kit of its colour).
    """

    t_s: float
    frame: int
    ball_xy_mm: tuple[float, float] | None
    ball_radius_mm: float
    ball_uncertainty_mm: float = 0.5
    ball_moving: bool = False
    figures: Figures = field(default_factory=Figures.empty)
    contacts: tuple[Contact, ...] = ()
    figure_uncertainty_mm: float = 1.0
    ball_switch_before_s: float | None = None
    ball_doubt_mm: float = 0.0

    def __post_init__(self) -> None:
        if self.ball_xy_mm is not None:
            if len(self.ball_xy_mm) != 2:
                raise ObservationError(f"ball_xy_mm must be (x, y), got {self.ball_xy_mm!r}")
            object.__setattr__(self, "ball_xy_mm", tuple(float(v) for v in self.ball_xy_mm))
        if not self.ball_radius_mm > 0:
            raise ObservationError(f"ball_radius_mm must be > 0, got {self.ball_radius_mm}")
        if self.ball_uncertainty_mm < 0 or self.figure_uncertainty_mm < 0:
            raise ObservationError("uncertainties must be >= 0 mm")
        if not 0.0 <= self.ball_doubt_mm <= self.ball_uncertainty_mm:
            raise ObservationError(
                f"ball_doubt_mm must be >= 0 and part of ball_uncertainty_mm "
                f"({self.ball_uncertainty_mm} mm), got {self.ball_doubt_mm}"
            )
        if self.ball_switch_before_s is not None and not self.ball_switch_before_s >= 0:
            raise ObservationError(
                f"ball_switch_before_s must be >= 0 s or None, got {self.ball_switch_before_s}"
            )
        ids = set(self.figures.id.tolist())
        for c in self.contacts:
            for fid in (c.figure_id, c.target_id):
                if fid is not None and fid not in ids:
                    raise ObservationError(f"contact names figure {fid}, not seen this frame")

    @classmethod
    def empty(cls, t_s: float = 0.0, frame: int = 0, ball_radius_mm: float = 10.5) -> Observation:
        """A frame with nothing seen."""
        return cls(t_s, frame, None, ball_radius_mm)

    @property
    def ball_placed_mm(self) -> float:
        """The bound on the ball's position error without its identity doubt, in mm."""
        return self.ball_uncertainty_mm - self.ball_doubt_mm

    @property
    def ball_seen(self) -> bool:
        return self.ball_xy_mm is not None
