"""The match clock, driven only by observation timestamps (DESIGN.md section 6).

Two modes:

- ``ball-moving`` (default): the clock runs only while the ball rolls in play. When tracking
  dates a start or stop between two frames (the strike traced back along the first roll, the
  stop from the roll's deceleration) the clock counts from or to that moment; otherwise the
  interval counts by the trapezoid rule (half when only one end rolls), so an undated start or
  stop costs half a frame on average instead of a whole one. Play
  resumed between two frames (a restart's taking flick) counts the same way; play that stopped
  between two frames (the ball wholly over a line, an offside pass) stops the clock at that
  moment (``stop``), not at the frame that showed it. Once the time is up, the period ends
  when the ball next goes out of play (button football rules).
- ``running`` (FISTF 3.1/3.2): from the first kick-off flick (or, for a match picked up in
  play, from the first frame) the clock runs on, and the referee adds lost time
  (``add_time``); the period ends as soon as its time and added time are up.

A gap between frames longer than ``max_gap_s`` (a camera drop-out) does not count: the clock
pauses meanwhile (DESIGN.md section 8).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

ClockMode = Literal["ball-moving", "running"]
CLOCK_MODES = ("ball-moving", "running")


@dataclass(frozen=True, slots=True)
class Clock:
    """The clock of the current period.

    Attributes:
        mode: ``ball-moving`` or ``running``.
        period: 1 and 2 are the halves, 3 is extra time (FISTF 3.3).
        length_s: playing time of this period.
        elapsed_s: time counted so far in this period.
        added_s: lost time added by the referee (``running`` mode).
        started: the period's kick-off has been taken, or the match was picked up in play
            (``MatchConfig.start``: the clock runs from the first frame, whenever the ball rolls).
        last_t_s: timestamp of the previous observation, or None before the first.
        last_running: whether the clock ran at the previous observation.
        max_gap_s: longer gaps between frames are not counted.
        held: the referee holds the match (not yet started, or paused): the clock stands in
            either mode, whatever the ball does.
    """

    mode: ClockMode = "ball-moving"
    period: int = 1
    length_s: float = 900.0
    elapsed_s: float = 0.0
    added_s: float = 0.0
    started: bool = False
    last_t_s: float | None = None
    last_running: bool = False
    max_gap_s: float = 0.5
    held: bool = False

    def __post_init__(self) -> None:
        if self.mode not in CLOCK_MODES:
            raise ValueError(f"clock mode {self.mode!r}; expected one of {CLOCK_MODES}")
        if not self.length_s > 0:
            raise ValueError(f"period length must be > 0 s, got {self.length_s}")

    def match_s(self, half_length_s: float) -> float:
        """Time counted since the match began: the periods before this one at ``half_length_s``
        each, and this one's."""
        return float(self.elapsed_s + (self.period - 1) * half_length_s)

    @property
    def time_up(self) -> bool:
        """The period's playing time (plus added time) has run out."""
        return self.elapsed_s >= self.length_s + self.added_s

    @property
    def remaining_s(self) -> float:
        return max(0.0, self.length_s + self.added_s - self.elapsed_s)


def tick(
    clock: Clock, t_s: float, ball_in_play_moving: bool, switch_before_s: float | None = None
) -> Clock:
    """Advance to the observation at ``t_s``.

    Args:
        clock: the clock after the previous observation.
        t_s: this observation's timestamp (s); must not go backwards.
        ball_in_play_moving: the ball rolls and is in play at this observation (ignored in
            ``running`` mode once started).
        switch_before_s: how long before ``t_s`` the ball started or stopped rolling, when
            that happened since the previous observation; None when not dated.

    Raises:
        ValueError: ``t_s`` is earlier than the previous timestamp.
    """
    if clock.last_t_s is not None and t_s < clock.last_t_s:
        raise ValueError(f"time went backwards: {t_s} s after {clock.last_t_s} s")
    running = clock.started and not clock.held and (clock.mode == "running" or ball_in_play_moving)
    elapsed = clock.elapsed_s
    if clock.last_t_s is not None:
        dt = t_s - clock.last_t_s
        if dt <= clock.max_gap_s:
            elapsed += _counted_s(dt, clock.last_running, running, switch_before_s)
    return replace(clock, elapsed_s=elapsed, last_t_s=t_s, last_running=running)


def _counted_s(dt: float, was: bool, now: bool, switch_before_s: float | None) -> float:
    """The part of an interval of ``dt`` the clock ran, from its state at both ends."""
    if was == now:
        return dt if now else 0.0
    if switch_before_s is None or not 0.0 <= switch_before_s <= dt:
        return 0.5 * dt
    return switch_before_s if now else dt - switch_before_s


def start(clock: Clock) -> Clock:
    """The period's kick-off has been taken: from now on the clock may run."""
    return clock if clock.started else replace(clock, started=True)


def stop(clock: Clock, elapsed_s: float | None = None) -> Clock:
    """Play stopped at or before the last observation: the clock stands still from there.

    Args:
        clock: the clock after the observation that showed play stopped.
        elapsed_s: the clock's reading at the moment play stopped, when that moment lies before
            the observation (the part counted after it is taken back); None: at the
            observation. A reading above the current one changes nothing.
    """
    elapsed = clock.elapsed_s if elapsed_s is None else min(max(elapsed_s, 0.0), clock.elapsed_s)
    return replace(clock, elapsed_s=elapsed, last_running=False)


def add_time(clock: Clock, seconds: float) -> Clock:
    """The referee adds lost time to this period (FISTF 3.2); a negative amount corrects an
    earlier addition, down to none."""
    if clock.added_s + seconds < -1e-9:
        raise ValueError(
            f"added time would fall below 0 s: {clock.added_s:g} s added, {seconds:g} s given"
        )
    return replace(clock, added_s=max(clock.added_s + seconds, 0.0))


def hold(clock: Clock, held: bool) -> Clock:
    """The referee holds (pauses, or has not started) or releases the match. A hold stops the
    clock at once: the interval to the next observation does not count."""
    return replace(clock, held=held, last_running=clock.last_running and not held)


def next_period(clock: Clock, length_s: float, added_s: float = 0.0) -> Clock:
    """A fresh clock for the next period (second half or extra time)."""
    return replace(
        clock,
        period=clock.period + 1,
        length_s=length_s,
        elapsed_s=0.0,
        added_s=added_s,
        started=False,
        last_running=False,
    )


def period_ends_now(clock: Clock, ball_went_out: bool, penalty_pending: bool) -> bool:
    """Whether the period ends at this observation.

    ``ball-moving``: time is up and the ball has just gone out of play. ``running``: time is
    up, unless a penalty is still to be taken (FISTF 12.1.2 extends the half for it).
    """
    if not clock.time_up:
        return False
    if clock.mode == "ball-moving":
        return ball_went_out
    return not penalty_pending
