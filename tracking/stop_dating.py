"""When a rolling ball stopped, from its last measurements.

Rolling to a stop under constant friction, the distance still to go is
``a / 2 * (t_stop - t) ** 2``: its square root falls linearly to zero at ``t_stop``. A line
fitted through it over the last ``FIT_REACH_MM`` (weighted for the noise, which weighs most near
the stop) dates the stop to a fraction of a frame without knowing the cloth's friction; the more
of the roll it sees, the less a few noisy fits of the slow last millimetres move it. Without
enough points (the ball was stopped by a base) the first frame at the final point is taken.
Frames on which the ball was not seen count too: hidden just as it stopped, it was at rest there
(the fit says when it stopped, not the next frame that showed it).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

FIT_REACH_MM = 20.0  # the stop is dated from the last 20 mm of the roll


def date_stop(
    frames: NDArray,
    t_s: NDArray,
    d_mm: NDArray,
    tol_mm: float,
    all_frames: NDArray | None = None,
    all_t_s: NDArray | None = None,
) -> tuple[int, float | None] | None:
    """The first frame of the rest, and when the ball stopped.

    Args:
        frames: (n,) frame indices of the measurements since the roll began, in order.
        t_s: (n,) their times.
        d_mm: (n,) their distances from the last measurement (the ball where it rests).
        tol_mm: a measurement this close to the last one is already at rest.
        all_frames: (k,) every frame index over the same span, measured or not (the ball may
            be hidden as it stops: a figure beside it), in order; None: ``frames``.
        all_t_s: (k,) their times.

    Returns:
        ``(first frame of the rest, stop time)``: the first frame at or after the stop, and the
        stop between that frame and the one before (None when the roll gave too little to
        date it); or None when the fit puts the stop after the last frame (the ball still
        creeps to its stop).
    """
    near = d_mm <= tol_mm
    # Trailing run of frames already at the final point.
    first_near = len(d_mm) - int(np.argmin(near[::-1])) if not near.all() else 0
    since = int(frames[min(first_near, len(d_mm) - 1)])
    fit = (d_mm > 4 * tol_mm) & (d_mm < FIT_REACH_MM) & (np.arange(len(d_mm)) < first_near)
    if fit.sum() < 3:
        return since, None
    # A position error e moves sqrt(d) by about e / (2 sqrt(d)): weigh by sqrt(d).
    slope, icpt = np.polyfit(t_s[fit], np.sqrt(d_mm[fit]), 1, w=np.sqrt(d_mm[fit]))
    if slope >= 0:
        return since, None
    t_stop = -icpt / slope
    if t_stop > t_s[-1]:
        return None
    # The first frame at or after the stop, measured or not: frames hidden after the stop were
    # frames at rest, not of the roll.
    grid_f, grid_t = (frames, t_s) if all_frames is None else (all_frames, all_t_s)
    later = np.nonzero(grid_t >= t_stop)[0]
    since = int(grid_f[later[0]])
    if later[0] > 0 and grid_f[later[0] - 1] == since - 1:
        return since, max(float(t_stop), float(grid_t[later[0] - 1]))
    return since, None
