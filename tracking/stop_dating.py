"""When a rolling ball stopped, from its last measurements.

Rolling to a stop under constant friction, a ball at ``t`` before its stop is
``a / 2 * (t_stop - t) ** 2`` short of where it rests, and stays there after. That model,
``xy(t) = rest - c * max(t_stop - t, 0) ** 2`` (``c`` a vector along the roll), is fitted by
least squares to every measurement of the roll's last ``FIT_REACH_MM`` and of the rest after
it: for a given ``t_stop`` it is linear in ``rest`` and ``c``, so the stop is the ``t_stop``
whose linear fit leaves the least residual. Positions carry the same noise rolling or resting,
so each counts alike; the rest point is the mean of many fits instead of the last one alone,
and the slow last millimetres, where a placing error is as large as the distance still to go,
weigh no more than they say. Nothing about the cloth's friction is assumed. Without enough of
a roll to fit (the ball was stopped by a base), the first frame at the final point is taken.
Frames on which the ball was not seen count too: hidden just as it stopped, it was at rest
there (the fit says when it stopped, not the next frame that showed it).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

FIT_REACH_MM = 30.0  # the stop is dated from the last 30 mm of the roll and the rest after it
# Steps of the search for the stop, per frame interval, before its refinement.
STEPS_PER_FRAME = 8
# The ways a roll ends: ``rest - c * tau ** 2`` slowed by friction, ``rest - c * tau`` stopped
# dead by a base in its way (``tau``: time still to go). Friction ends most rolls, and on the
# slow noisy end of one a straight line can fit nearly as well: a dead stop is taken only
# when it leaves less than half the residual.
POWERS = (2, 1)
DEAD_STOP_RSS = 0.5
# A fit's residual beyond this many times their robust spread is an outlier (a finger over
# the ball): it is left out and the stop fitted again.
OUTLIER_SPREADS = 4.0


def date_stop(
    frames: NDArray,
    t_s: NDArray,
    xy_mm: NDArray,
    tol_mm: float,
    all_frames: NDArray | None = None,
    all_t_s: NDArray | None = None,
) -> tuple[int, float | None] | None:
    """The first frame of the rest, and when the ball stopped.

    Args:
        frames: (n,) frame indices of the measurements since the roll began, in order.
        t_s: (n,) their times.
        xy_mm: (n, 2) the measured positions.
        tol_mm: a measurement this close to the last one is already at rest (used only when
            too little of the roll was seen to fit it).
        all_frames: (k,) every frame index over the same span, measured or not (the ball may
            be hidden as it stops: a figure beside it), in order; None: ``frames``.
        all_t_s: (k,) their times.

    Returns:
        ``(first frame of the rest, stop time)``: the first frame at or after the stop, and the
        stop between that frame and the one before (None when the roll gave too little to
        date it); or None when the fit puts the stop after the last frame (the ball still
        creeps to its stop).
    """
    xy_mm = np.asarray(xy_mm, np.float64).reshape(-1, 2)
    d = np.hypot(*(xy_mm - xy_mm[-1]).T)
    near = d <= tol_mm
    first_near = len(d) - int(np.argmin(near[::-1])) if not near.all() else 0
    since = int(frames[min(first_near, len(d) - 1)])
    # The roll's last part: from the last measurement beyond the reach on.
    beyond = np.flatnonzero(d >= FIT_REACH_MM)
    start = int(beyond[-1]) + 1 if len(beyond) else 0
    t, xy = t_s[start:], xy_mm[start:]
    rolled = d[start:] > 4.0 * tol_mm
    if rolled.sum() < 3:
        return since, None
    fit = _fit_stop(t, xy)
    if fit is None:
        return since, None
    resid = _residuals(t, xy, *fit)
    spread = 1.4826 * np.median(resid) + 1e-6
    keep = resid <= OUTLIER_SPREADS * spread
    if not keep.all() and (rolled & keep).sum() >= 3:
        fit = _fit_stop(t[keep], xy[keep])
        if fit is None:
            return since, None
    t_stop = fit[0]
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


def _rss(t: NDArray, xy: NDArray, t_stops: NDArray, power: int) -> NDArray:
    """Residual sum of squares ``(m,)`` of the best ``rest - c * tau ** power`` for each stop
    time ``t_stops (m,)`` over points ``t (n,)``, ``xy (n, 2)``; inf where fewer than two
    points roll or the fit does not slow toward its rest."""
    x = np.maximum(t_stops[:, None] - t[None, :], 0.0) ** power  # (m, n)
    xc = x - x.mean(axis=1, keepdims=True)
    sxx = np.einsum("mn,mn->m", xc, xc)
    yc = xy - xy.mean(axis=0)  # (n, 2)
    sxy = xc @ yc  # (m, 2)
    syy = float(np.sum(yc * yc))
    rolling = (x > 0).sum(axis=1)
    rss = syy - np.sum(sxy * sxy, axis=1) / np.maximum(sxx, 1e-300)
    # ``c`` (minus the slope ``sxy / sxx``) points along the roll, toward the rest.
    along = -(sxy @ (xy[-1] - xy[0])) > 0
    return np.where((rolling >= 2) & (sxx > 0) & along, rss, np.inf)


def _fit_stop(t: NDArray, xy: NDArray) -> tuple[float, int] | None:
    """The stop time and the model (``POWERS``) of the best fit, or None."""
    dt = float(np.median(np.diff(t))) if len(t) > 1 else 0.0
    if dt <= 0:
        return None
    # From the first point (all of them at rest: no fit) to a few frames after the last
    # (the ball still rolls: the caller waits).
    grid = np.arange(t[0] + dt, t[-1] + 3 * dt, dt / STEPS_PER_FRAME)
    best = None
    for power in POWERS:
        rss = _rss(t, xy, grid, power)
        i = int(np.argmin(rss))
        score = rss[i] if power == 2 else rss[i] / DEAD_STOP_RSS
        if np.isfinite(score) and (best is None or score < best[0]):
            best = (score, i, power)
    if best is None:
        return None
    _, i, power = best
    # Golden-section search within a step either side, to about a microsecond.
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    g = 0.5 * (np.sqrt(5.0) - 1.0)
    for _ in range(30):
        a, b = hi - g * (hi - lo), lo + g * (hi - lo)
        ra, rb = _rss(t, xy, np.array([a, b]), power)
        if ra <= rb:
            hi = b
        else:
            lo = a
    return 0.5 * (lo + hi), power


def _residuals(t: NDArray, xy: NDArray, t_stop: float, power: int) -> NDArray:
    """Distance ``(n,)`` of each point from the best fit of ``power`` stopping at ``t_stop``."""
    x = np.maximum(t_stop - t, 0.0) ** power
    a = np.stack([np.ones_like(x), -x], axis=1)
    coef, *_ = np.linalg.lstsq(a, xy, rcond=None)
    return np.hypot(*(xy - a @ coef).T)
