"""Button football: the match configuration, the state the reducer keeps, and the restart spots.

The laws are the sections of ``button-football-rules.de.txt``; calls name them ``"BF <section>"``
(``LAWS``). Teams are named by the kit vision reads (``Figures.team``): home is kit 0 and
defends ``ButtonConfig.home_end``. Keepers are the figures marked ``goalkeeper``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Literal

from rules.clock import Clock
from rules.observation import HOME, Observation, other_team
from rules.pitch import END_SIGN, Pitch

# The sections of the text, by what they rule.
LAWS = {
    "game": "BF Das Spiel",
    "kick_off": "BF Anstoß",
    "turn": "BF Dein Zug",
    "called": "BF Angesagte Schüsse",
    "foul": "BF Fouls",
    "penalty": "BF Elfmeter",
    "out": "BF Ball im Aus",
    "corner": "BF Ecken",
    "goal_kick": "BF Abstöße",
    "keeper_ball": "BF Torwartball",
    "taker": "BF Der Schütze",
    "shoot_out": "BF Elfmeterschießen",
}

Start = Literal["open_play", "kick_off"]


@dataclass(frozen=True, slots=True)
class ButtonConfig:
    """How a button-football match is played and judged.

    Attributes:
        pitch: the pitch (with measured line edges when calibrated).
        half_length_s: playing time of a half on the ball-moving clock (the text: one minute).
        home_end: the end home (kit 0) defends in the first half.
        swap_ends: the teams change ends at half-time (the text does not say; off).
        start: ``open_play`` (a clip picked up anywhere: the turn unknown until the first
            flick) or ``kick_off`` (the match waits for its first kick-off).
        first_kick_off: the coin toss's winner, who kicks off the first half (None: either).
        contacts_per_turn: ball contacts a team has per turn (the text: seven).
        shots_per_team: penalties each team takes in the shoot-out before sudden death.
        moved_mm: a button displaced further than this while the ball is dead was moved.
        line_uncertainty_mm: error bound of the measured line edges, combined with the ball's.
        max_gap_s: longer gaps between frames do not count on the clock.
    """

    pitch: Pitch
    half_length_s: float = 60.0
    home_end: str = "left"
    swap_ends: bool = False
    start: Start = "open_play"
    first_kick_off: int | None = None
    contacts_per_turn: int = 7
    shots_per_team: int = 5
    moved_mm: float = 5.0
    line_uncertainty_mm: float = 0.0
    max_gap_s: float = 0.5

    def __post_init__(self) -> None:
        if self.home_end not in END_SIGN:
            raise ValueError(f"home_end {self.home_end!r}; expected 'left' or 'right'")
        if self.start not in ("open_play", "kick_off"):
            raise ValueError(f"start {self.start!r}; expected 'open_play' or 'kick_off'")
        if self.contacts_per_turn < 1 or self.shots_per_team < 1:
            raise ValueError("contacts_per_turn and shots_per_team must be >= 1")


@dataclass(frozen=True, slots=True)
class ShotCall:
    """A team calls its shot (the page's button, a push button, the keyboard): an input of
    ``step`` beside the observations, at the time it was made."""

    team: int
    frame: int
    t_s: float


@dataclass(frozen=True, slots=True)
class Restart:
    """A dead ball waiting to be played again, where the ball robot puts it.

    Attributes:
        kind: one of ``rules.calls.RESTARTS``.
        team: the team taking it (None: not known, the referee says).
        xy_mm: the restart spot.
        law: the law it follows from.
        end: the goal concerned (corner, goal kick, penalty), or None.
        allowance: buttons each team ``(home, away)`` may move before it (None: not limited).
        attackers_first: the taking team moves its buttons before the other (corners).
        taker_free: the taker's own placing does not count (placed at or behind the ball).
        by_keeper: the keeper kicks it with its shoe: taken when the ball starts to roll.
    """

    kind: str
    team: int | None
    xy_mm: tuple[float, float]
    law: str
    end: str | None = None
    allowance: tuple[int | None, int | None] = (None, None)
    attackers_first: bool = False
    taker_free: bool = False
    by_keeper: bool = False


@dataclass(frozen=True, slots=True)
class Toucher:
    """A figure that touched the ball."""

    figure_id: int
    team: int
    keeper: bool


@dataclass(frozen=True, slots=True)
class SetPiece:
    """The ball comes from a set piece: who took it, and whether anyone else touched it yet."""

    kind: str
    team: int
    taker_id: int | None
    touched_by_other: bool = False


@dataclass(frozen=True, slots=True)
class ShootOut:
    """The shoot-out: the kicks so far ``(team, button id, scored)``, in order."""

    first: int
    kicks: tuple[tuple[int, int, bool], ...] = ()
    taker: int | None = None  # the button whose kick is under way

    @property
    def next_team(self) -> int:
        return self.first if len(self.kicks) % 2 == 0 else other_team(self.first)

    def goals(self, team: int) -> int:
        return sum(1 for t, _, s in self.kicks if t == team and s)

    def taken(self, team: int) -> int:
        return sum(1 for t, _, _ in self.kicks if t == team)


@dataclass(frozen=True, slots=True)
class ButtonState:
    """Everything the button-football reducer remembers between inputs.

    Attributes:
        config: the configuration.
        clock: the ball-moving clock of this half.
        score: goals ``(home, away)``.
        home_end: the end home defends this half.
        turn: the team whose turn it is (None: not known yet).
        contacts: ball contacts of the team on turn in this turn.
        flicks: flicks ``(figure id, onset frame)`` of this turn that reached the ball.
        last_touch: the last figure to touch the ball.
        restart: the restart the dead ball waits for, or None in play.
        placed: ``(id, team, x, y)`` of each button when the ball went dead (set-piece moves).
        moved: ``(id, first frame seen moved)`` of buttons moved since.
        called: the team whose called shot waits for its flick.
        shot: ``(team, figure id)`` of a called shot under way.
        set_piece: the ball comes directly from this set piece.
        taker: ``(figure id, team, "mate" | "keeper")``: the set-piece taker who may not touch
            the ball again until a team-mate (after a penalty: the keeper) has.
        ball_xy_mm, ball_t_s, ball_unc_mm: the last sure sighting of the ball (placed to
            within its radius: not a prediction through an occlusion such as a crossbar).
        ball_inside: ``(x, y, t_s)`` of the last sighting surely inside every boundary line
            (by more than its uncertainty); ``ball_before`` of the last sure sighting wholly
            over none (as measured), ``ball_over`` of the first one after it that was: a
            crossing is dated from these (``rules.button_lines``).
        ball_moving: whether the ball rolled at its last sighting.
        ball_went_out: the ball left play at this input (ends a half once time is up).
        first_kick_off: the team that kicked off the first half.
        shoot_out: the shoot-out, once full time found a draw.
        finished: the match is over.
        calls_made: calls so far (each call's ``id``).
    """

    config: ButtonConfig
    clock: Clock
    score: tuple[int, int] = (0, 0)
    home_end: str = "left"
    turn: int | None = None
    contacts: int = 0
    flicks: frozenset[tuple[int, int]] = frozenset()
    last_touch: Toucher | None = None
    restart: Restart | None = None
    placed: tuple[tuple[int, int, float, float], ...] = ()
    moved: tuple[tuple[int, int], ...] = ()
    called: int | None = None
    shot: tuple[int, int] | None = None
    set_piece: SetPiece | None = None
    taker: tuple[int, int, str] | None = None
    ball_xy_mm: tuple[float, float] | None = None
    ball_t_s: float | None = None
    ball_inside: tuple[float, float, float] | None = None  # (x, y, t_s), surely in the field
    ball_before: tuple[float, float, float] | None = None  # (x, y, t_s), the last not over
    ball_over: tuple[float, float, float] | None = None  # (x, y, t_s), the first over
    ball_moving: bool = False
    ball_unc_mm: float = 0.5
    ball_went_out: bool = False
    first_kick_off: int | None = None
    shoot_out: ShootOut | None = None
    finished: bool = False
    calls_made: int = 0

    @classmethod
    def new(cls, config: ButtonConfig) -> ButtonState:
        clock = Clock(
            "ball-moving",
            1,
            config.half_length_s,
            started=config.start == "open_play",
            max_gap_s=config.max_gap_s,
        )
        state = cls(config, clock, home_end=config.home_end, first_kick_off=config.first_kick_off)
        if config.start == "kick_off":
            state = replace(state, restart=kick_off(state, config.first_kick_off))
        return state

    @property
    def pitch(self) -> Pitch:
        return self.config.pitch

    def defended_end(self, team: int) -> str:
        other = "right" if self.home_end == "left" else "left"
        return self.home_end if team == HOME else other

    def attacked_end(self, team: int) -> str:
        return self.defended_end(other_team(team))

    def defender_of(self, end: str) -> int:
        return HOME if end == self.home_end else other_team(HOME)

    def line_uncertainty(self, ball_unc_mm: float) -> float:
        return math.hypot(ball_unc_mm, self.config.line_uncertainty_mm)

    def dead(self, restart: Restart, figures_xy: tuple = ()) -> ButtonState:
        """The ball is dead until ``restart``: forget the play, note where the buttons stand."""
        return replace(
            self,
            restart=restart,
            placed=figures_xy,
            moved=(),
            called=None,
            shot=None,
            set_piece=None,
            taker=None,
            flicks=frozenset(),
            contacts=0,
            turn=restart.team,
            ball_inside=None,  # a crossing is dated only from a sighting after the restart
            ball_before=None,
            ball_over=None,
        )


@dataclass(frozen=True, slots=True)
class Spots:
    """Where the ball robot puts the ball for each restart (mm, pitch frame)."""

    pitch: Pitch = field(repr=False)

    def kick_off(self) -> tuple[float, float]:
        return (0.0, 0.0)

    def throw_in(self, x_mm: float, side_sign: float) -> tuple[float, float]:
        """On the touchline where the ball crossed, its footprint touching the line."""
        p = self.pitch.profile
        half_l = 0.5 * p.length_mm - p.line_width_mm - p.ball_radius_mm
        y = side_sign * (0.5 * p.width_mm - p.line_width_mm - p.ball_radius_mm)
        return (float(max(-half_l, min(half_l, x_mm))), float(y))

    def corner(self, end: str, side_sign: float) -> tuple[float, float]:
        """In the corner arc on the side the ball went out."""
        p = self.pitch.profile
        inset = p.line_width_mm + p.ball_radius_mm
        x = END_SIGN[end] * (0.5 * p.length_mm - inset)
        return (float(x), float(side_sign * (0.5 * p.width_mm - inset)))

    def goal_kick(self, end: str) -> tuple[float, float]:
        """The middle of the goal area, in front of the keeper."""
        p = self.pitch.profile
        return (float(END_SIGN[end] * (0.5 * p.length_mm - 0.5 * p.goal_area_depth_mm)), 0.0)

    def penalty(self, end: str) -> tuple[float, float]:
        p = self.pitch.profile
        return (float(END_SIGN[end] * (0.5 * p.length_mm - p.penalty_spot_from_goal_line_mm)), 0.0)


def kick_off(state: ButtonState, team: int | None) -> Restart:
    """A kick-off: the kicking team may move two buttons, in its own half (BF Anstoß)."""
    allowance = (None, None) if team is None else ((2, 0) if team == HOME else (0, 2))
    return Restart("kick_off", team, (0.0, 0.0), LAWS["kick_off"], allowance=allowance)


def buttons_of(obs: Observation) -> tuple[tuple[int, int, float, float], ...]:
    """``(id, team, x, y)`` of each button seen (keepers aside)."""
    f = obs.figures
    return tuple(
        (int(f.id[i]), int(f.team[i]), float(f.xy_mm[i, 0]), float(f.xy_mm[i, 1]))
        for i in range(len(f))
        if not f.goalkeeper[i]
    )


def dead_ball(state: ButtonState, obs: Observation, restart: Restart) -> ButtonState:
    """The ball is dead until ``restart`` (the buttons' places noted for the moves)."""
    return state.dead(restart, buttons_of(obs))
