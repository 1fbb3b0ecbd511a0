"""One tracked frame as the pipeline releases it, and as the rules stage passes it on.

``TrackedFrame`` is frozen plain data: the ball (``TrackedBall``) and the figures as the
rules' own ``rules.observation.Figures`` (vision's kit in ``team`` until the rules name the
teams, ``FistfRules.judge``), the contacts filed on this frame, and what the rules need to
weigh the ball's position (its standard uncertainty, and how long before this frame it started
or stopped rolling). Positions are rounded to 0.001 mm, as ``tracks.jsonl`` writes them, so
the rules judge exactly what the file says.

JSON is made only at the edges: ``TracksEncoder`` writes a frame as its ``tracks.jsonl``
object (DESIGN.md section 4) for the file and the page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from rules.observation import TEAM_NAMES, Contact, Figures


@dataclass(frozen=True, slots=True)
class TrackedBall:
    """The ball's ground point, mm (0.001 mm steps), and whether it rolls."""

    x_mm: float
    y_mm: float
    moving: bool


@dataclass(frozen=True, slots=True)
class TrackedFrame:
    """One frame's tracks.

    Attributes:
        frame: frame number.
        t_s: time, s (rounded to 1 us, as written).
        ball: the ball, or None when it is not known.
        figures: the figures (ids, team, base centres in mm; no goalkeepers marked yet).
        contacts: touches filed on this frame (a flick on the frame after its onset).
        ball_sigma_mm: the tracker's standard uncertainty of the ball's position, or None.
        ball_switch_before_s: how long before ``t_s`` the ball started or stopped rolling,
            when it did so since the frame before; None otherwise.
        ball_doubt_mm: how far the ball may be off because another candidate may be the
            ball (``tracking.tracker.Tracks.ball_doubt_mm``), mm; 0 when motion settled it.
    """

    frame: int
    t_s: float
    ball: TrackedBall | None
    figures: Figures
    contacts: tuple[Contact, ...] = ()
    ball_sigma_mm: float | None = None
    ball_switch_before_s: float | None = None
    ball_doubt_mm: float = 0.0

    def shifted(self, frames: int, t_s: float) -> TrackedFrame:
        """The same frame numbered ``frames`` later and ``t_s`` later (a live runner's
        numbering outlives a pipeline)."""
        if frames == 0 and t_s == 0.0:
            return self
        contacts = tuple(replace(c, onset_frame=c.onset_frame + frames) for c in self.contacts)
        return replace(
            self, frame=self.frame + frames, t_s=round(self.t_s + t_s, 6), contacts=contacts
        )


class TracksEncoder:
    """``TrackedFrame`` -> its ``tracks.jsonl`` object (DESIGN.md section 4).

    Most frames share their ``Figures`` with the frame before (nothing moved): their list is
    built once and shared between the objects, which are never changed after.
    """

    def __init__(self) -> None:
        self._figures: Figures | None = None
        self._list: list[dict[str, Any]] = []

    def __call__(self, frame: TrackedFrame) -> dict[str, Any]:
        ball = frame.ball
        return {
            "frame": frame.frame,
            "t_s": frame.t_s,
            "ball": None
            if ball is None
            else {"x_mm": ball.x_mm, "y_mm": ball.y_mm, "moving": ball.moving},
            "figures": self._figure_list(frame.figures),
        }

    def _figure_list(self, figures: Figures) -> list[dict[str, Any]]:
        if figures is self._figures:
            return self._list
        names = [TEAM_NAMES[t] for t in figures.team.tolist()]
        self._figures = figures
        self._list = [
            {"id": i, "team": team, "x_mm": x, "y_mm": y}
            for i, team, (x, y) in zip(
                figures.id.tolist(), names, figures.xy_mm.tolist(), strict=True
            )
        ]
        return self._list


def frame_from_record(
    record: Mapping[str, Any],
    base_radius_mm: float,
    *,
    ball_sigma_mm: float | None = None,
    ball_switch_before_s: float | None = None,
) -> TrackedFrame:
    """A ``tracks.jsonl`` object (or a ``truth.jsonl`` one, whose ``contacts`` it reads too:
    ``{"figure", "kind", "onset_frame"}``) as a tracked frame, at the edge where files are read.

    Raises:
        ValueError: a key is missing or a value does not fit (``ObservationError``).
    """
    try:
        figs = record["figures"]
        figures = Figures.build(
            [f["id"] for f in figs],
            [f["team"] for f in figs],
            [False] * len(figs),
            [(f["x_mm"], f["y_mm"]) for f in figs],
            base_radius_mm,
        )
        ball = record["ball"]
        contacts = tuple(
            Contact(c["figure"], c["kind"], c["onset_frame"])
            for c in record.get("contacts", ())
            if c.get("figure") is not None
        )
        return TrackedFrame(
            int(record["frame"]),
            float(record["t_s"]),
            None if ball is None else TrackedBall(ball["x_mm"], ball["y_mm"], bool(ball["moving"])),
            figures,
            contacts,
            ball_sigma_mm,
            ball_switch_before_s,
        )
    except KeyError as exc:
        raise ValueError(f"a tracks record needs {exc.args[0]!r}: {dict(record)!r:.120}") from exc
