"""Where the app keeps its runtime objects (``app.extensions`` keys) and how the live pipeline
reaches them: the ``MatchHub``, the ``Recordings`` and the callbacks the pipeline registers.

The blueprints read these keys; the app factory (``web.app``) sets them. Kept apart from the
factory so that the blueprints, which the factory registers, never import it back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flask import Flask

from web.hub import MatchHub

HUB = "tablevar.hub"
RECORDINGS = "tablevar.recordings"
RECALIBRATE = "tablevar.recalibrate"
BALL_COLOUR = "tablevar.ball_colour"
STREAM_SLOTS = "tablevar.stream_slots"


def hub_of(app: Flask) -> MatchHub:
    return app.extensions[HUB]


def set_recalibrate(app: Flask, callback: Callable[[], Mapping[str, Any]] | None) -> None:
    """Register (or with None remove) the live pipeline's recalibration callback.

    The callback runs a recalibration and returns the new ``calibration.json`` content (or a
    short report); it raises ``ValueError`` with a clear message when the lines are not found.
    """
    if callback is None:
        app.extensions.pop(RECALIBRATE, None)
    else:
        app.extensions[RECALIBRATE] = callback


def set_ball_colour(app: Flask, callback: Callable[[str], None] | None) -> None:
    """Register (or with None remove) the live pipeline's callback for a picked ball colour.

    The callback takes ``#rrggbb``, saves it with the calibration and looks for that ball from
    the next frame on.
    """
    if callback is None:
        app.extensions.pop(BALL_COLOUR, None)
    else:
        app.extensions[BALL_COLOUR] = callback
