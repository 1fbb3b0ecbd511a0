"""What the live page shows of the match clock, read from the rules stage."""

from __future__ import annotations

from typing import Any


class ClockView:
    """The hub's ``(clock of this half, half, status)`` from the rules' clock and calls.

    ``FistfRules.clock_s`` counts the whole match (earlier periods at their full length); the
    page shows the clock of the current period, which half it is, and why the clock stands.
    Fed after each frame with the rules' total and the calls of that frame.
    """

    def __init__(self) -> None:
        self.half, self.base_s, self.total_s = 1, 0.0, 0.0
        self.between = self.ended = False

    def update(self, total_s: float, calls: list[dict[str, Any]]) -> tuple[float, int, str]:
        """Returns ``(clock_s, half, status)``; status is ``running`` while the clock moved
        since the last update, ``stopped`` otherwise, ``half_time`` from a period's end to the
        next kick-off, ``ended`` after full time."""
        period_ended = False
        for call in calls:
            if call["kind"] == "half_time" or (
                call["kind"] == "full_time" and call.get("restart") == "kick_off"
            ):
                self.half += 1
                self.between = period_ended = True
            elif call["kind"] == "full_time":
                self.ended = True
        running = total_s > self.total_s + 1e-9 and not period_ended
        if period_ended:
            self.base_s = total_s  # the next period's clock starts from here
        elif running:
            self.between = False  # the next period's kick-off was taken
        self.total_s = total_s
        if self.ended:
            status = "ended"
        elif self.between:
            status = "half_time"
        else:
            status = "running" if running else "stopped"
        return max(0.0, total_s - self.base_s), self.half, status
