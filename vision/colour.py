"""Colour classes that tolerate shading: an object's colour seen darker or brighter."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def shaded_distance(
    pixels: NDArray, colours: NDArray, shading_range: tuple[float, float]
) -> NDArray[np.float32]:
    """Distance ``(n, k)`` of each pixel ``(n, 3)`` to each colour ``(k, 3)`` under shading.

    The colour may appear scaled by a factor in ``shading_range`` (the shaded side of the
    ball, a highlight); the distance is to the best-scaled colour, so a grey pixel on the dark
    side of a white ball is near white, not near a dark team colour.
    """
    p = np.asarray(pixels, np.float32).reshape(-1, 3)
    c = np.asarray(colours, np.float32).reshape(-1, 3)
    cc = np.maximum((c * c).sum(axis=1), 1.0)  # (k,)
    pc = p @ c.T  # (n, k)
    lo, hi = shading_range
    a = np.minimum(np.maximum(pc / cc, lo), hi)  # np.clip, at a fraction of its call cost
    d2 = (p * p).sum(axis=1)[:, None] - 2.0 * a * pc + a * a * cc
    return np.sqrt(np.maximum(d2, 0.0))


def ball_coloured(distance: NDArray, brightness: NDArray, share: float = 1.0) -> NDArray:
    """Whether pixels of ``brightness`` (their norm) ``distance`` from a ball colour under
    shading (``shaded_distance``) are that colour: within a share of the brightness (a codec
    smears a small ball's colour in proportion) and a few grey levels. ``share`` of that
    tolerance: a colour well inside it is found by a search for the other; one near its edge
    loses its shaded and noisy pixels to it, and the ball breaks into pieces."""
    return distance <= share * (0.12 * brightness + 12.0)


def darkened(
    pixels: NDArray, background: NDArray, threshold: float, shades: tuple[float, float] = (0, 1)
) -> NDArray[np.bool_]:
    """Which pixels ``(n, 3)`` are their background ``(n, 3)`` darkened, the same colour: a
    shadow. ``threshold``: the foreground threshold, grey levels (how far a pixel may stray
    from the darkened background and still be its shadow, with a share of its brightness).
    ``shades``: the range of the background's brightness taken for the same colour (a pool of
    light brightens it too)."""
    p = np.asarray(pixels, np.float32)
    off = shadow_residual(p, background, shades)
    return off < 0.12 * np.linalg.norm(p, axis=1) + 0.5 * threshold


def shadow_residual(
    pixels: NDArray, background: NDArray, shades: tuple[float, float] = (0, 1)
) -> NDArray[np.float32]:
    """How far ``(n,)`` each pixel ``(n, 3)`` lies from its background ``(n, 3)`` darkened
    (scaled by a factor in ``shades`` to fit it best), grey levels."""
    p = np.asarray(pixels, np.float32)
    bg = np.asarray(background, np.float32)
    a = np.clip((p * bg).sum(axis=1) / np.maximum((bg * bg).sum(axis=1), 1.0), *shades)
    return np.linalg.norm(p - a[:, None] * bg, axis=1)


# The usual colours of a table football ball at full light, BGR: searched for as long as the
# ball has not shown itself (``vision/model.py``), and the names ``--ball-colour`` takes.
USUAL_BALLS_BGR: dict[str, tuple[int, int, int]] = {
    "white": (235, 235, 235),
    "orange": (20, 110, 240),
    "yellow": (35, 210, 235),
}


class ColourNameError(ValueError):
    """A ball colour that is neither a known name nor ``#rrggbb``."""


def parse_colours(text: str) -> tuple[tuple[int, int, int], ...]:
    """BGR of each colour of ``text``: one (``parse_colour``), or a ball's several joined by
    ``+`` (a two-tone ball's ``white+#1030c0``).

    Raises:
        ColourNameError: naming what was given and what is accepted.
    """
    return tuple(parse_colour(part) for part in text.split("+"))


def parse_colour(text: str) -> tuple[int, int, int]:
    """BGR of a colour name (``USUAL_BALLS_BGR``) or of ``#rrggbb``.

    Raises:
        ColourNameError: naming what was given and what is accepted.
    """
    t = text.strip().lower()
    if t in USUAL_BALLS_BGR:
        return USUAL_BALLS_BGR[t]
    h = t[1:] if t.startswith("#") else ""
    if len(h) == 6 and all(c in "0123456789abcdef" for c in h):
        r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
        return (b, g, r)
    raise ColourNameError(
        f"ball colour {text!r} is not one of {', '.join(USUAL_BALLS_BGR)} nor #rrggbb "
        "(a ball of several colours: each, joined by +)"
    )
