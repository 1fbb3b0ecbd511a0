"""The live match's signals at the table (``hardware.gpio``): what lights, sounds and is pressed.

``LiveSignals`` follows the hub's match: the clock LED is lit while the match clock runs (after
each refereed batch of frames and each referee action), the buzzer sounds on goals and outs,
the pause button pauses a running match and resumes (or starts) a held one through the hub,
as the page's controls do, and the shot button calls a shot: in button football (only a called
shot scores) it is the call of the team on turn, judged by the rules like the page's; the FISTF
rules have no called shot, so there it is an event: logged, and passed to ``on_shot`` with the
match time, for whoever listens.

A GPIO that fails, on opening or later, is logged once and the signals go dark: the refereeing
never waits for nor stops because of them.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from typing import Any

from hardware.gpio import GOAL_BEEPS, OUT_BEEPS, GpioError, SignalPins, TableSignals
from rules.calls import Call
from web.hub import MatchHub

_log = logging.getLogger(__name__)
BEEPS = {"goal": GOAL_BEEPS, "ball_out": OUT_BEEPS}


class LiveSignals:
    """The signals of the hub's live match.

    Args:
        hub: the live match.
        pins: where the signals are wired.
        on_shot: called with the match clock (s) each time the shot button is pressed.
        pin_factory: a gpiozero pin factory (tests: ``MockFactory``); None: the Pi's.
    """

    def __init__(
        self,
        hub: MatchHub,
        pins: SignalPins,
        *,
        on_shot: Callable[[float], None] | None = None,
        pin_factory: Any = None,
    ) -> None:
        self._hub, self._on_shot = hub, on_shot
        self.shots_called = 0
        # The worker thread, the page's controls and gpiozero's thread all change the signals.
        self._lock = threading.RLock()
        self._signals: TableSignals | None = None
        self._shown: bool | None = None
        try:
            self._signals = TableSignals(
                pins, on_pause=self.press_pause, on_shot=self.press_shot, pin_factory=pin_factory
            )
        except GpioError as exc:
            _log.warning("signals at the table are off: %s", exc)
            return
        hub.on_control(lambda action, payload: self.follow_clock())
        self.follow_clock()

    @property
    def working(self) -> bool:
        """Whether the signals are on (not failed)."""
        return self._signals is not None

    def judged(self, calls: Iterable[Call]) -> None:
        """A refereed batch of frames: sound its goals and outs, and follow the clock."""
        for call in calls:
            pattern = BEEPS.get(call.kind)
            if pattern is not None:
                self._do(lambda s, p=pattern: s.beep(p))
        self.follow_clock()

    def follow_clock(self) -> None:
        """Light the LED while the match clock runs (only a change reaches the pin)."""
        with self._lock:  # read and shown together: the newest state is what stays lit
            state = self._hub.match
            running = self._hub.hold is None and not state.finished and state.clock.last_running
            if running != self._shown:
                self._shown = running
                self._do(lambda s: s.show_clock(running))

    def press_pause(self) -> None:
        """The pause button: pause a running match, resume or start a held one."""
        hold = self._hub.hold
        action = "pause" if hold is None else "resume" if hold == "paused" else "start"
        try:
            self._hub.control(action)
        except ValueError as exc:  # e.g. a pause after full time: the page says nothing either
            _log.warning("pause button: %s", " ".join(str(exc).split()))

    def press_shot(self) -> None:
        """The shot button: a game with called shots takes it as the call of the team on
        turn (its rules judge it, ``web.button_match``); otherwise it is logged and passed on."""
        clock_s = self._hub.match.clock.elapsed_s
        self.shots_called += 1
        if "shot_call" in self._hub.actions:
            try:
                self._hub.control("shot_call")
            except ValueError as exc:  # no turn known yet, a held match: the log says why
                _log.warning("shot button: %s", " ".join(str(exc).split()))
        else:
            _log.warning("shot called at the table at %.1f s of the match clock", clock_s)
        if self._on_shot is not None:
            self._on_shot(clock_s)

    def close(self) -> None:
        with self._lock:
            signals, self._signals = self._signals, None
        if signals is not None:
            signals.close()

    def _do(self, action: Callable[[TableSignals], None]) -> None:
        with self._lock:
            signals = self._signals
            if signals is None:
                return
            try:
                action(signals)
            except GpioError as exc:
                _log.warning("signals at the table are off: %s", exc)
                self._signals = None
                signals.close()
