"""Figures' bases lost as they moved: perhaps the ball, read as a base, struck away.

A ball of a kit's colour at rest can be read as a figure's base: the detector cannot tell the
two apart by colour, and it reports no ball candidate there. Struck, the ball is followed as a
flicked figure for a few frames, its "base" is then lost, and a ball candidate rolls on from
there: a new candidate with no history, which would settle nothing however far it rolled
(``BallHypotheses``, ``LeftBase``).

``LeftBases.update`` reports each figure track whose base went unfound right after a sighting
where it moved, with where it stood before. Only tracks born after the clip's first base
search that never showed a ball candidate on their base while it was found: a figure with a
part of the ball's colour (a white shirt with a white ball) shows it as a candidate whenever it
stands, and its flick, its base lost in the blur, must not pass for the ball's; nor may the
flick of one of the figures that stood on the table when the clip began (measured on the
stress clips, those took flicked figures' parts for the ball). A ball of a kit's colour read as
a base there from the first frame is left to the hypotheses as a figure's part would be.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from tracking.figures import FigureTracks
from tracking.hypotheses import LeftBase


@dataclass(slots=True)
class _Watch:
    """One figure track as it was seen: where it stood (as last placed) from ``rest_s`` to
    ``stood_s``, its last sighting, whether it moved then, and whether it is a figure for sure:
    it stood on the table when the clip began, or a ball candidate stood on its base."""

    rest_xy_mm: NDArray[np.float64]
    rest_s: float
    stood_s: float
    last_xy_mm: NDArray[np.float64]
    last_s: float
    moving: bool = False
    figure: bool = False


class LeftBases:
    """Watches the figure tracks; see the module docstring."""

    def __init__(self, base_radius_mm: float) -> None:
        self._base_r_mm = base_radius_mm
        self._watch: dict[int, _Watch] = {}

    def update(
        self, figures: FigureTracks, ball_xy_mm: NDArray, t_s: float
    ) -> tuple[LeftBase, ...]:
        """Take this frame's figure tracks and ball candidates ``(m, 2)`` mm (before those on
        bases are dropped); return the bases lost this frame or before whose last sighting
        moved, of tracks still kept."""
        n = len(figures)
        on = np.zeros(n, bool)
        if n and len(ball_xy_mm):
            d = np.linalg.norm(figures.xy_mm[:, None, :] - ball_xy_mm[None], axis=2)
            on = d.min(axis=1) <= self._base_r_mm
        moving = figures.v_mm_s.any(axis=1)
        watch: dict[int, _Watch] = {}
        left = []
        for k, fid in enumerate(figures.id.tolist()):
            w = self._watch.get(fid)
            xy = figures.xy_mm[k]
            if figures.seen[k]:
                if w is None:
                    w = _Watch(
                        xy.copy(), t_s, t_s, xy.copy(), t_s, figure=bool(figures.from_start[k])
                    )
                w.figure |= bool(on[k])
                if not moving[k]:
                    # Standing: at the same place (the track's estimate of it settling), or
                    # at a new one after it moved.
                    if w.moving or np.hypot(*(xy - w.rest_xy_mm)) > self._base_r_mm:
                        w.rest_s = t_s
                    w.rest_xy_mm, w.stood_s = xy.copy(), t_s
                w.moving = bool(moving[k])
                w.last_xy_mm, w.last_s = xy.copy(), t_s
            elif w is not None and w.moving and not w.figure:
                left.append(LeftBase(w.rest_xy_mm, w.rest_s, w.stood_s, w.last_xy_mm, w.last_s))
            if w is not None:
                watch[fid] = w
        self._watch = watch
        return tuple(left)
