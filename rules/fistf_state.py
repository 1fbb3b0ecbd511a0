"""FISTF match configuration and state: frozen plain data, changed with ``dataclasses.replace``.

The reducer lives in ``rules.fistf``; the parts it applies live in ``fistf_play`` (contacts,
possession, fouls, offside), ``fistf_lines`` (ball out, goals, close calls) and
``fistf_setpiece`` (restarts and figure placement).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np

from rules.clock import Clock, ClockMode
from rules.geometry import other_end
from rules.observation import HOME, Figures, Observation, other_team
from rules.pitch import END_SIGN, Pitch

SET_PIECES_NO_OFFSIDE = ("corner", "throw_in", "penalty", "goal_kick")  # FISTF 13.1.3 a
MatchStart = Literal["open_play", "kick_off"]
MATCH_STARTS = ("open_play", "kick_off")
ENDS_SETTLED_BY = ("configured", "referee", "kick_off", "goal")  # rules.fistf_ends 1 and 2


@dataclass(frozen=True, slots=True)
class MatchConfig:
    """How a match is played and judged; built once, passed in with the first state.

    Attributes:
        pitch: the pitch model (with measured line edges when calibrated).
        half_length_s: playing time of each half (FISTF 3.1: 15 min).
        clock_mode: ``ball-moving`` (default) or ``running`` (DESIGN.md section 6).
        added_time_s: lost time added to each half in ``running`` mode (more with add_time).
        extra_time: play extra time after a draw (FISTF 3.3, knock-out matches).
        extra_time_length_s: FISTF 3.3: ten minutes, sudden death.
        home_end: the end home defends in the first half (``left`` or ``right``).
        swap_ends: the teams change ends at half-time (FISTF 4.1).
        start: how the first frame finds the match. ``open_play`` (default; DESIGN.md 4: a
            clip may start anywhere): the ball is in play, possession unknown until the first
            touch, no restart pending, the ball-moving clock runs while the ball rolls, until
            the rules see a kick-off set up (``rules.fistf_kickoff``). ``kick_off``: the
            referee started the match: it waits for its first kick-off (FISTF 4.1), and the
            clock starts with that kick-off's flick.
        first_kick_off: the team kicking off first (coin toss), or None to accept either
            (used with ``start="kick_off"``).
        home_kit: the kit (vision's team index, ``Figures.team`` of an observation) of the home
            team when it is known (configured); None: learnt from what is seen
            (``rules.fistf_ends``).
        close_call_mm: the close-call band (DESIGN.md section 4: 3 mm).
        close_call_settle_s: a ball come to rest in the band is reported this long after it
            stopped, with its rest reading by then: a stop is declared from a few frames,
            while the ball may still creep its last millimetre, and the rest point firms up
            over the frames that follow.
        line_uncertainty_mm: error bound of the measured line edges, combined with the ball's.
        forward_min_mm: ball travel after a flick that shows its direction (offside, kick-off).
        hidden_decide_frames: frames a ball may stay hidden in a goal before it is decided.
        ball_decel_mm_s2: rolling deceleration of the ball on the cloth (hidden-goal estimate).
        spot_tolerance_mm: how far a placed ball may lie from its restart spot.
        max_gap_s: longer gaps between frames do not count on the clock.
        referee_start: the match waits for the referee's start (``rules.referee``): until
            then the clock stands and nothing is judged. Off for a recording analysed alone.
    """

    pitch: Pitch
    half_length_s: float = 900.0
    clock_mode: ClockMode = "ball-moving"
    added_time_s: float = 0.0
    extra_time: bool = False
    extra_time_length_s: float = 600.0
    home_end: str = "left"
    swap_ends: bool = True
    start: MatchStart = "open_play"
    first_kick_off: int | None = None
    home_kit: int | None = None
    close_call_mm: float = 3.0
    close_call_settle_s: float = 0.3
    line_uncertainty_mm: float = 0.0
    forward_min_mm: float = 3.0
    hidden_decide_frames: int = 2
    ball_decel_mm_s2: float = 400.0
    spot_tolerance_mm: float = 25.0
    max_gap_s: float = 0.5
    referee_start: bool = False

    def __post_init__(self) -> None:
        if self.home_end not in END_SIGN:
            raise ValueError(f"home_end {self.home_end!r}; expected 'left' or 'right'")
        if self.start not in MATCH_STARTS:
            raise ValueError(f"start {self.start!r}; expected one of {MATCH_STARTS}")
        if self.home_kit not in (None, 0, 1):
            raise ValueError(f"home_kit {self.home_kit!r}; expected 0, 1 or None")
        if not self.half_length_s > 0:
            raise ValueError(f"half_length_s must be > 0, got {self.half_length_s}")


@dataclass(frozen=True, slots=True)
class Ends:
    """The belief about which kit is home (defends ``MatchState.home_end``), and its evidence.

    Attributes:
        home_kit: the kit (vision's team index) named home.
        basis: what it rests on: ``none`` (nothing yet: kit 0), ``figures`` (the weak prior of
            where the figures stand), ``play`` (flicks toward a goal from inside its shooting
            zone), or one that settles it (``ENDS_SETTLED_BY``): ``configured``, ``referee``
            (the referee's start from a kick-off), ``kick_off`` (a line-up seen), ``goal``.
        support: plays seen for this belief, less those against it (``basis="play"``).
    """

    home_kit: int = 0
    basis: str = "none"
    support: int = 0

    @property
    def settled(self) -> bool:
        return self.basis in ENDS_SETTLED_BY


@dataclass(frozen=True, slots=True)
class Restart:
    """A restart the ball waits for while it is dead.

    ``kind`` is one of ``rules.calls.RESTARTS`` or ``"referee"`` (a too-close call the referee
    must settle; the next flick resumes play). ``end`` is the goal it concerns (goal kick,
    corner, penalty) or None.
    """

    kind: str
    team: int | None
    position: tuple[float, float]
    law: str
    end: str | None = None


@dataclass(frozen=True, slots=True)
class Touch:
    """A figure touching the ball: who, how, when, and where the figure and ball stood.

    ``ball_xy_mm`` is where the ball lay when it was struck: the last frame before the contact
    frame (on which the ball has already moved on), and ``ball_uncertainty_mm`` that frame's
    position bound from vision.
    """

    figure_id: int
    team: int
    goalkeeper: bool
    kind: str
    frame: int
    onset_frame: int
    figure_xy_mm: tuple[float, float]
    ball_xy_mm: tuple[float, float] | None
    ball_uncertainty_mm: float = 0.5  # vision's bound on ``ball_xy_mm`` (the shot's margin)


@dataclass(frozen=True, slots=True)
class PendingPlay:
    """A flick whose direction is not known yet: the position at the moment of the play.

    Offside (FISTF 13.1) and the kick-off (4.2.3) are judged once the ball has shown its
    direction, on the positions of this frame. A ball at rest that starts to roll with no
    flick seen (the striker hidden by a hand, or not found) is an unseen play: ``team`` and
    ``figure_id`` are None, and the team it went forward for is judged, for the referee
    (``rules.fistf_play.note_unseen_play``).
    """

    frame: int
    t_s: float
    team: int | None
    figure_id: int | None
    ball_xy_mm: tuple[float, float]
    ball_radius_mm: float
    ball_uncertainty_mm: float
    figure_uncertainty_mm: float
    figures: Figures
    set_piece: str | None
    elapsed_s: float | None = None  # the clock's reading on this frame (an offside stops it)


@dataclass(frozen=True, slots=True)
class LineWatch:
    """The ball within the close-call band of a boundary line: the deepest point so far, or,
    once it came to rest there (at ``rest_s``; ``frame`` and ``t_s`` are then its stop), its
    latest rest reading; ``doubt_mm`` of that reading's uncertainty is how far the ball may
    be another object (``Observation.ball_doubt_mm``)."""

    line: str
    margin_mm: float
    uncertainty_mm: float
    frame: int
    t_s: float
    xy_mm: tuple[float, float]
    rest_s: float | None = None
    doubt_mm: float = 0.0


@dataclass(frozen=True, slots=True)
class BallTrack:
    """The last seen ball, for speed, direction and hidden-ball decisions."""

    xy_mm: tuple[float, float] | None = None
    v_mm_s: tuple[float, float] = (0.0, 0.0)
    frame: int = -1
    t_s: float = 0.0
    radius_mm: float = 10.5
    uncertainty_mm: float = 0.5
    moving: bool = False
    hidden_frames: int = 0


@dataclass(frozen=True, slots=True)
class MatchState:
    """Everything the FISTF reducer remembers between frames.

    Attributes:
        config: the match configuration.
        ends: which kit is home (``rules.fistf_ends``); every other team here is a name,
            ``HOME`` or ``AWAY``, after that belief.
        clock: the clock of the current period.
        score: goals ``(home, away)``.
        home_end: the end home defends in the current period (the names follow the ends).
        possession: the attacker (FISTF 5.1), or None while not known (before the first kick-off
            or, picked up in play, before the first touch).
        last_touch: the last figure to touch the ball (any kind).
        last_flick: the last outfield figure to *play* the ball (flick); its ``ball_xy_mm`` is
            where the ball lay at the shot (FISTF 7.1). Keeper touches do not replace it, so a
            save still knows the shot it saved (FISTF 7.2.2, 15.1.3, 16.1.1).
        repeat: ``(figure id, plays in a row, limit, law)`` for FISTF 5.2 / 8.1.3 and the
            general guideline that a set-piece taker may not play twice in a row.
        restart: the restart the dead ball waits for, or None while the ball is in play.
        live_set_piece: ``(kind, team)`` while the ball comes directly from a set piece.
        goal_kick_end: the end of a goal kick whose ball has not yet left the area (15.2.4).
        pending_play: a play awaiting the ball's direction.
        watch: the ball within the close-call band of a boundary line.
        ball: the last seen ball.
        first_kick_off: the team that kicked off the first half.
        finished: full time.
        noticed: figures already noticed for placement during this ball rest.
        ball_went_out: the ball went out of play at this frame (for the clock).
        unseen_play: the play in progress began before the first frame (``start="open_play"``):
            a goal or a ball out may follow a shot or touch that was never seen. Cleared once
            a flick is seen (the shot is then known) or the ball is dead.
        hold: why the referee holds the match (``not_started``, ``paused``), or None while it
            runs (``rules.referee``); the clock is held with it.
        calls_made: calls emitted so far; each call's ``id`` is its number in the match.
        restart_call: the id of the call the pending restart follows from, or None.
        overruled: ids of the calls the referee overruled (and has not reinstated).
        open_offsides: ids of too-close offside calls (13.1) the referee may still uphold or
            reject (``rules.referee``): play went on from them; closed once the ball is next
            dead or the referee settles one.
        team_names: what the page calls home and away.
    """

    config: MatchConfig
    clock: Clock
    score: tuple[int, int] = (0, 0)
    home_end: str = "left"
    possession: int | None = None
    last_touch: Touch | None = None
    last_flick: Touch | None = None
    repeat: tuple[int, int, int, str] | None = None
    restart: Restart | None = None
    live_set_piece: tuple[str, int] | None = None
    goal_kick_end: str | None = None
    pending_play: PendingPlay | None = None
    watch: LineWatch | None = None
    ball: BallTrack = field(default_factory=BallTrack)
    first_kick_off: int | None = None
    finished: bool = False
    noticed: frozenset[tuple[int, str]] = frozenset()
    ball_went_out: bool = False
    unseen_play: bool = False
    ends: Ends = field(default_factory=Ends)
    hold: str | None = None
    calls_made: int = 0
    restart_call: int | None = None
    overruled: frozenset[int] = frozenset()
    open_offsides: frozenset[int] = frozenset()
    team_names: tuple[str, str] = ("Home", "Away")

    @classmethod
    def new(cls, config: MatchConfig) -> MatchState:
        """A match as its first frame finds it (``config.start``): in open play, or before its
        first kick-off when the referee started it."""
        clock = Clock(
            config.clock_mode,
            1,
            config.half_length_s,
            added_s=config.added_time_s if config.clock_mode == "running" else 0.0,
            started=config.start == "open_play",
            max_gap_s=config.max_gap_s,
            held=config.referee_start,
        )
        ends = Ends() if config.home_kit is None else Ends(config.home_kit, "configured")
        hold = "not_started" if config.referee_start else None
        if config.start == "open_play":
            return cls(
                config, clock, home_end=config.home_end, unseen_play=True, ends=ends, hold=hold
            )
        restart = Restart("kick_off", config.first_kick_off, (0.0, 0.0), "FISTF 4.1")
        return cls(config, clock, home_end=config.home_end, restart=restart, ends=ends, hold=hold)

    @property
    def pitch(self) -> Pitch:
        return self.config.pitch

    def defended_end(self, team: int) -> str:
        return self.home_end if team == HOME else other_end(self.home_end)

    def attacked_end(self, team: int) -> str:
        return other_end(self.defended_end(team))

    def defender_of(self, end: str) -> int:
        return HOME if end == self.home_end else other_team(HOME)

    def line_uncertainty(self, obs: Observation | BallTrack) -> float:
        unc = obs.ball_uncertainty_mm if isinstance(obs, Observation) else obs.uncertainty_mm
        return math.hypot(unc, self.config.line_uncertainty_mm)

    def ball_dead(self) -> MatchState:
        """Forget the play in progress once the ball is out of play."""
        return replace(
            self,
            last_touch=None,
            last_flick=None,
            repeat=None,
            live_set_piece=None,
            goal_kick_end=None,
            pending_play=None,
            watch=None,
            unseen_play=False,
        )


def point(xy: np.ndarray | tuple[float, float]) -> tuple[float, float]:
    """A plain ``(x, y)`` float tuple."""
    return float(xy[0]), float(xy[1])
