"""Calls: what a rule set decided, with the law and the measurement behind it.

A ``Call`` is one line of ``calls.jsonl`` (DESIGN.md section 4); ``to_record`` returns exactly
that dict. A call whose margin lies within its uncertainty carries ``too_close_to_call``: the
engine then reports its best reading and says it is not sure, it never guesses confidently.
``fully_crossed`` and ``margin_mm`` keep the sign convention of DESIGN.md section 3: > 0 means
wholly beyond the line (for offside: > 0 means offside).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.observation import Figures, team_code, team_name

CALL_KINDS = (
    "ball_out",
    "goal",
    "goal_disallowed",
    "offside",
    "foul",
    "close_call",
    "half_time",
    "full_time",
    "set_piece_fault",  # a restart taken wrongly: retake (kick-off 4.2, goal kick 15.2, ...)
    "distance",  # a defender nearer the ball than the set-piece distance (general guidelines)
    "figure_placement",  # a figure the referee must put back (2.1)
    "turnover",  # the turn passes to the other side, the ball where it lies (button football)
    "shot_called",  # a called shot, accepted or refused where the ball lies (button football)
)
RESTARTS = ("throw_in", "corner", "goal_kick", "kick_off", "free_kick", "penalty")
RECORD_KEYS = (
    "frame",
    "t_s",
    "kind",
    "law",
    "line",
    "fully_crossed",
    "margin_mm",
    "uncertainty_mm",
    "team",
    "restart",
    "position",
    "figure",
    "evidence",
)


@dataclass(frozen=True, slots=True)
class FigureRef:
    """The figure a call concerns, where it stood."""

    id: int
    team: int
    x_mm: float
    y_mm: float

    @classmethod
    def of(cls, figures: Figures, row: int) -> FigureRef:
        x, y = figures.xy_mm[row]
        return cls(int(figures.id[row]), int(figures.team[row]), float(x), float(y))

    def to_record(self) -> dict[str, Any]:
        return {"id": self.id, "team": team_name(self.team), "x_mm": self.x_mm, "y_mm": self.y_mm}


@dataclass(frozen=True, slots=True)
class Call:
    """One decision.

    Attributes:
        frame: the decisive frame (not necessarily the frame it was emitted on).
        t_s: time of that frame.
        kind: one of ``CALL_KINDS``.
        law: the law applied, e.g. ``"FISTF 14.1"``.
        line: the line kind decided on (``touchline``, ``goal_line``, ...) or None.
        fully_crossed: whether the ball (or figure) wholly crossed that line, or None.
        margin_mm: the deciding signed distance, or None when no distance decided.
        uncertainty_mm: the bound on that distance's error, or None.
        too_close_to_call: |margin| is within the uncertainty: the referee decides.
        team: the team awarded the restart (or scoring), or None.
        restart: one of ``RESTARTS`` or None.
        position: ``(x_mm, y_mm)`` where it happened or the restart is taken, or None.
        figure: the figure concerned (offside, fouling, misplaced figure) or None.
        evidence: path of the evidence picture; the pipeline fills it in later.
        note: a short human reading, e.g. ``"IN by 0.4 mm"`` (not part of calls.jsonl).
        id: the call's number in its match, given by the reducer (1, 2, ...; 0 before), by
            which the referee names it (not part of calls.jsonl).
    """

    frame: int
    t_s: float
    kind: str
    law: str
    line: str | None = None
    fully_crossed: bool | None = None
    margin_mm: float | None = None
    uncertainty_mm: float | None = None
    too_close_to_call: bool = False
    team: int | None = None
    restart: str | None = None
    position: tuple[float, float] | None = None
    figure: FigureRef | None = None
    evidence: str | None = None
    note: str = ""
    id: int = 0

    def __post_init__(self) -> None:
        if self.kind not in CALL_KINDS:
            raise ValueError(f"call kind {self.kind!r}; expected one of {CALL_KINDS}")
        if self.restart is not None and self.restart not in RESTARTS:
            raise ValueError(f"restart {self.restart!r}; expected one of {RESTARTS} or None")

    def to_record(self) -> dict[str, Any]:
        """The ``calls.jsonl`` object of DESIGN.md section 4 (JSON-ready, keys in order)."""
        return {
            "frame": int(self.frame),
            "t_s": float(self.t_s),
            "kind": self.kind,
            "law": self.law,
            "line": self.line,
            "fully_crossed": self.fully_crossed,
            "margin_mm": None if self.margin_mm is None else round(float(self.margin_mm), 3),
            "uncertainty_mm": (
                None if self.uncertainty_mm is None else round(float(self.uncertainty_mm), 3)
            ),
            "team": None if self.team is None else team_name(self.team),
            "restart": self.restart,
            "position": (
                None
                if self.position is None
                else {"x_mm": float(self.position[0]), "y_mm": float(self.position[1])}
            ),
            "figure": None if self.figure is None else self.figure.to_record(),
            "evidence": self.evidence,
        }

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> Call:
        """The call of a ``to_record`` dict (with ``id``, ``too_close_to_call`` and ``note``
        when present), as a match log keeps it.

        Raises:
            ValueError: a key is missing or a value is not what ``Call`` takes.
        """
        try:
            position = record.get("position")
            figure = record.get("figure")
            team = record.get("team")
            return cls(
                frame=int(record["frame"]),
                t_s=float(record["t_s"]),
                kind=str(record["kind"]),
                law=str(record["law"]),
                line=record.get("line"),
                fully_crossed=record.get("fully_crossed"),
                margin_mm=record.get("margin_mm"),
                uncertainty_mm=record.get("uncertainty_mm"),
                too_close_to_call=bool(record.get("too_close_to_call", False)),
                team=None if team is None else team_code(team),
                restart=record.get("restart"),
                position=None if position is None else (position["x_mm"], position["y_mm"]),
                figure=None
                if figure is None
                else FigureRef(
                    int(figure["id"]), team_code(figure["team"]), figure["x_mm"], figure["y_mm"]
                ),
                evidence=record.get("evidence"),
                note=str(record.get("note", "")),
                id=int(record.get("id", 0)),
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a call record: {exc!r} in {dict(record)!r}") from exc


def is_too_close(margin_mm: float, uncertainty_mm: float) -> bool:
    """Whether a signed margin lies within its uncertainty (the referee must decide)."""
    return abs(margin_mm) <= uncertainty_mm


def margin_note(
    margin_mm: float, uncertainty_mm: float, beyond: str = "OUT", short: str = "IN"
) -> str:
    """A short reading such as ``"IN by 0.4 mm"`` or ``"OUT by 1.2 mm (too close to call)"``.

    ``beyond`` names a positive margin (wholly past the line), ``short`` a negative one; for the
    shooting line a positive margin means the ball is IN the zone.
    """
    word = beyond if margin_mm > 0 else short
    text = f"{word} by {abs(margin_mm):.1f} mm"
    return text + (" (too close to call)" if is_too_close(margin_mm, uncertainty_mm) else "")
