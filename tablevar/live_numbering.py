"""Frame numbers and times of a live match, continued across reopened sources and restarts.

``frame`` counts every frame the runner received (calibration frames too, so on a new log it
equals the frame index of ``--record``'s recording), and ``t_s`` runs from the first of them.
A source that is reopened continues both, the outage showing as a gap in time, which the rules'
clock does not count (DESIGN.md section 8). A runner started again on a match log (after a
power cut or a crash) continues both after the newest frame the log has seen, and the match
from its newest state: frame numbers and evidence names stay unique.
"""

from __future__ import annotations

import math
import time

RESUME_GAP_S = 1.0  # the first frame after a restart follows the log's last after this (> max gap)


class LiveNumbering:
    """The runner's frame numbers and times.

    Args:
        resume_point: ``(frame, t_s)`` of the newest frame a match log has seen, or None for
            a new log.
    """

    def __init__(self, resume_point: tuple[int, float] | None = None) -> None:
        self.frames = 0  # frames received
        self.t_s: float | None = None  # time of the last frame received
        self._t_offset = 0.0  # source time -> runner time
        self._wall_last = 0.0
        if resume_point is not None:
            self.frames = resume_point[0] + 1
            self.t_s = resume_point[1]
            self._wall_last = -math.inf  # the first frame comes after an outage

    def next(self, source_t_s: float, first: bool, fps: float) -> tuple[int, float]:
        """The number and time of the frame received now, taken at ``source_t_s`` by its
        source; ``first``: the first since the source was (re)opened."""
        now = time.monotonic()
        if self.t_s is None:
            t_s = 0.0
            self._t_offset = -source_t_s
        elif first:  # (re)opened: continue after the outage, however the source counts
            gap_s = max(now - self._wall_last, 1.0 / max(fps, 1.0))
            gap_s = RESUME_GAP_S if math.isinf(gap_s) else gap_s  # the first after a restart
            self._t_offset = self.t_s + gap_s - source_t_s
            t_s = source_t_s + self._t_offset
        else:
            t_s = max(source_t_s + self._t_offset, self.t_s + 1e-6)
        index = self.frames
        self.frames += 1
        self.t_s, self._wall_last = t_s, now
        return index, t_s
