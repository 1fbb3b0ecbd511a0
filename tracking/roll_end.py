"""A roll's last moments checked against where the ball came to rest.

However a ball on the cloth skids or spins, nothing but an obstacle slows it by more than
``FREE_DECELERATION_MM_S2``: ``dt`` before it stopped, a ball that rolled freely to its rest
point was within ``FREE_DECELERATION_MM_S2 * dt**2 / 2`` of it. A fit of the roll farther off
than that and both their uncertainties stood off the ball (a half-lit ball beside a codec's
block was read 8 mm past where it came to rest two frames later, claiming 0.7 mm, and called
out). Which of the two placings is wrong is not known, so that frame's uncertainty grows to
cover the way to the rest point and the stretch about it. Not where a figure's base or a goal
within reach of that way could have stopped the ball short (a ball that runs into a base or
the net stops at once).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from rules.pitch import Pitch

# The hardest a ball on the cloth slows without hitting anything, mm/s^2: ten times its rolling
# friction (``BallTrackerConfig.friction_mm_s2``), as a ball still skidding might.
FREE_DECELERATION_MM_S2 = 2000.0
# How near its way a base or a goal could have stopped the ball: mm beyond touching it.
STOPPER_REACH_MM = 5.0


def roll_end_sigmas(
    t_s: NDArray,
    xy_mm: NDArray,
    sigma_mm: NDArray,
    rest_mm: NDArray,
    rest_sigma_mm: float,
    stop_s: float,
    frame_s: float,
    coverage: float,
    pitch: Pitch,
    bases_mm: NDArray,
) -> NDArray[np.float64]:
    """The standard uncertainties ``(n,)`` of a roll's last placings ``xy_mm (n, 2)`` at
    ``t_s (n,)``, stated ``sigma_mm (n,)``, once the ball is known to have stopped at
    ``stop_s`` at ``rest_mm`` (standard uncertainty ``rest_sigma_mm``): ``stop_s`` as dated,
    and a frame (``frame_s``) more for its dating. ``coverage`` makes a standard uncertainty the
    bound a call's margin must exceed; ``bases_mm (k, 2)`` are the figures' bases then."""
    t = np.asarray(t_s, np.float64)
    xy = np.asarray(xy_mm, np.float64).reshape(-1, 2)
    sigma = np.asarray(sigma_mm, np.float64).copy()
    rest = np.asarray(rest_mm, np.float64)
    dt = np.maximum(stop_s - t, 0.0) + frame_s
    reach = 0.5 * FREE_DECELERATION_MM_S2 * dt * dt
    off = np.linalg.norm(xy - rest, axis=1)
    ruled_out = off > reach + coverage * np.hypot(sigma, rest_sigma_mm)
    for i in np.flatnonzero(ruled_out):
        if not stopper_near(pitch, bases_mm, xy[i], rest):
            sigma[i] = max(sigma[i], (off[i] + reach[i]) / coverage + rest_sigma_mm)
    return sigma


def stopper_near(pitch: Pitch, bases_mm: NDArray, a_mm: NDArray, b_mm: NDArray) -> bool:
    """Whether a figure's base at ``bases_mm (k, 2)`` or a goal comes within reach of a ball
    on its way from ``a_mm`` to ``b_mm``."""
    prof = pitch.profile
    r = prof.ball_radius_mm + STOPPER_REACH_MM
    a, b = np.asarray(a_mm, np.float64), np.asarray(b_mm, np.float64)
    ab = b - a
    bases = np.asarray(bases_mm, np.float64).reshape(-1, 2)
    if len(bases):
        u = np.clip((bases - a) @ ab / max(float(ab @ ab), 1e-9), 0.0, 1.0)
        gap = np.linalg.norm(a + u[:, None] * ab - bases, axis=1)
        if (gap <= r + prof.base_radius_mm).any():
            return True
    steps = int(np.ceil(np.linalg.norm(ab) / r)) + 1  # points no farther apart than the reach
    way = a + np.linspace(0.0, 1.0, steps + 1)[:, None] * ab
    for goal in pitch.goals:
        x0, x1 = sorted((goal.x_line_mm, goal.x_back_mm))
        y0, y1 = goal.y_min_mm - prof.goal_post_width_mm, goal.y_max_mm + prof.goal_post_width_mm
        near_x = (way[:, 0] > x0 - r) & (way[:, 0] < x1 + r)
        if (near_x & (way[:, 1] > y0 - r) & (way[:, 1] < y1 + r)).any():
            return True
    return False
