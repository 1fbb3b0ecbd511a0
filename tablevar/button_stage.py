"""The button-football rules as a pipeline stage, beside ``tablevar.rules_stage.FistfRules``.

Each final tracked frame becomes a ``rules.observation.Observation`` for
``rules.button_football.step``; the shot calls the players made (a recording keeps them in
``shot_calls.jsonl``: one ``{"team": "home" | "away", "t_s": seconds}`` per line, on the
recording's time line) go in before the first frame at or after their time.

Names: a keeper block is the piece standing in a goal area nearest its goal mouth
(``rules.keepers``: the same geometry as FISTF's rod keepers) and belongs to the team defending
that goal; a button's kit is named home when its kit stands mostly in the home team's half on
the first frame that shows both kits (DESIGN.md 3: "which base colour is home"), since button
football has no line-up rule that would tell more.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from rules.button_football import step
from rules.button_state import ButtonConfig, ButtonState, ShotCall
from rules.calls import Call
from rules.keepers import rod_goalkeepers
from rules.observation import HOME, Figures, Observation, other_team, team_code
from rules.pitch import END_SIGN, Pitch
from tablevar.rules_stage import Parallax, frame_ball_uncertainty_mm
from tablevar.tracked import TrackedFrame

SHOT_CALLS_NAME = "shot_calls.jsonl"


class ShotCallsError(ValueError):
    """A shot-calls file that cannot be read; the message names the file and the line."""


def read_shot_calls(folder: Path) -> tuple[tuple[int, float], ...]:
    """The shot calls ``(team, t_s)`` kept in a recording folder, in time order (none: ())."""
    path = Path(folder) / SHOT_CALLS_NAME
    if not path.is_file():
        return ()
    calls = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            calls.append((team_code(rec["team"]), float(rec["t_s"])))
        except (ValueError, KeyError, TypeError) as exc:
            raise ShotCallsError(
                f"{path}:{n}: not a shot call ({exc}); expected {{'team': 'home', 't_s': 1.5}}"
            ) from None
    return tuple(sorted(calls, key=lambda c: c[1]))


class ButtonRules:
    """``rules.button_football.step`` as a pipeline stage (the interface of ``FistfRules``)."""

    def __init__(
        self,
        pitch: Pitch,
        *,
        home_end: str = "left",
        line_sigma_mm: float = 0.0,
        parallax: Parallax | None = None,
        shot_calls: tuple[tuple[int, float], ...] = (),
        **config: Any,
    ) -> None:
        if not line_sigma_mm >= 0:
            raise ValueError(f"line_sigma_mm must be >= 0 mm, got {line_sigma_mm}")
        self._state = ButtonState.new(ButtonConfig(pitch, home_end=home_end, **config))
        self._pitch, self._line_sigma_mm, self._parallax = pitch, float(line_sigma_mm), parallax
        self._shot_calls = list(shot_calls)
        self._home_kit: int | None = None

    def judge(self, frame: TrackedFrame) -> tuple[TrackedFrame, list[Call]]:
        """Step the match with one final frame (and the shot calls made before it)."""
        calls: list[Call] = []
        while self._shot_calls and self._shot_calls[0][1] <= frame.t_s:
            team, t_s = self._shot_calls.pop(0)
            self._state, new = step(self._state, ShotCall(team, frame.frame, t_s))
            calls += new
        obs = self.observation(frame)
        self._state, new = step(self._state, obs)
        return replace(frame, figures=obs.figures), calls + new

    def finish(self) -> list[Call]:
        """The end of the recording: button football holds no notice back."""
        return []

    def observation(self, frame: TrackedFrame) -> Observation:
        """The ``Observation`` of a final frame, the pieces named (module docstring)."""
        figures = self._named(frame.figures)
        ball, unc = frame.ball, {}
        u = self.ball_uncertainty(frame)
        if u is not None:
            unc["ball_uncertainty_mm"] = u
        ids = set(figures.id.tolist())
        return Observation(
            t_s=frame.t_s,
            frame=frame.frame,
            ball_xy_mm=None if ball is None else (ball.x_mm, ball.y_mm),
            ball_radius_mm=self._pitch.profile.ball_radius_mm,
            ball_moving=bool(ball and ball.moving),
            ball_switch_before_s=frame.ball_switch_before_s,
            figures=figures,
            contacts=tuple(
                c
                for c in frame.contacts
                if c.figure_id in ids and (c.target_id is None or c.target_id in ids)
            ),
            **unc,
        )

    def ball_uncertainty(self, frame: TrackedFrame) -> float | None:
        """The ball's uncertainty the rules are told, mm (``FistfRules.ball_uncertainty``)."""
        return frame_ball_uncertainty_mm(frame, self._pitch, self._line_sigma_mm, self._parallax)

    def _named(self, figures: Figures) -> Figures:
        keeper = rod_goalkeepers(self._pitch, figures.xy_mm)
        kit = figures.team.astype(np.int64)
        if self._home_kit is None:
            self._home_kit = self._learn_home_kit(kit[~keeper], figures.xy_mm[~keeper])
        home_kit = HOME if self._home_kit is None else self._home_kit
        team = np.where(kit == home_kit, HOME, other_team(HOME)).astype(np.int8)
        for row in np.flatnonzero(keeper):  # a keeper belongs to the goal it keeps
            end = "left" if figures.xy_mm[row, 0] < 0 else "right"
            team[row] = self._state.defender_of(end)
        return replace(figures, team=team, goalkeeper=keeper)

    def _learn_home_kit(self, kit: np.ndarray, xy: np.ndarray) -> int | None:
        """The kit standing mostly in the home half, once both kits are seen."""
        if not all((kit == k).sum() >= 2 for k in (0, 1)):
            return None
        home_sign = END_SIGN[self._state.home_end]
        mean = [float(np.mean(xy[kit == k, 0])) * home_sign for k in (0, 1)]
        return int(np.argmax(mean))

    @property
    def names_changed(self) -> bool:
        return False  # named once, from the first frame that shows both kits

    def in_hindsight(self, record: dict[str, Any]) -> dict[str, Any]:
        return record

    @property
    def state(self) -> ButtonState:
        return self._state

    @property
    def clock_s(self) -> float:
        return self._state.clock.match_s(self._state.config.half_length_s)

    @property
    def score(self) -> tuple[int, int]:
        return self._state.score
