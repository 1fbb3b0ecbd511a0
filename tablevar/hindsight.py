"""Where the ball was before motion told which candidate it is: ``BallInHindsight``.

Until a candidate is struck and rolls, the ball written for a frame is the best-ranked
candidate (``tracking/hypotheses.py``): in a clip picked up in play with a kit of the ball's
colour, a figure's part, with the identity doubt that keeps calls to the referee. Once one
rolls, its trail says where it stood and rolled in the frames before. A recording analysed as
a whole (``tablevar analyze``) writes those frames again with it; the live page, which shows
each frame as it comes, does not look back. Calls keep what they were made with.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable
from typing import Any

from tracking.hypotheses import BallRun, HypothesisConfig

# A written ball within this of the trail's is the same object, placed by the ball's own track:
# kept as it was.
SAME_OBJECT_MM = HypothesisConfig().reach_mm
_T_EPS_S = 1e-6  # times in tracks.jsonl are rounded to 1 us


class BallInHindsight:
    """Rewrites ``tracks.jsonl`` records by the trails of the candidates motion settled."""

    def __init__(self, trails: Iterable[tuple[BallRun, ...]]) -> None:
        self._runs = sorted((run for trail in trails for run in trail), key=lambda r: r.first_s)
        self._first_s = [r.first_s for r in self._runs]

    def __bool__(self) -> bool:
        return bool(self._runs)

    def __call__(self, record: dict[str, Any]) -> dict[str, Any]:
        """``record`` with the ball where the trail saw it at its time, where the trail saw
        it and the record shows another object or none; else ``record`` itself."""
        t = record["t_s"]
        i = bisect.bisect_right(self._first_s, t + _T_EPS_S) - 1
        if i < 0 or t > self._runs[i].last_s + _T_EPS_S:
            return record
        run = self._runs[i]
        ball = record["ball"]
        if ball is not None and math.hypot(ball["x_mm"] - run.x_mm, ball["y_mm"] - run.y_mm) <= (
            SAME_OBJECT_MM
        ):
            return record
        seen = {"x_mm": round(run.x_mm, 3), "y_mm": round(run.y_mm, 3), "moving": run.moving}
        return dict(record, ball=seen)
