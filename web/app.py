"""The Flask app factory: configuration, runtime objects, blueprints and JSON errors.

Runtime objects live in ``app.extensions`` (never in module globals; the keys and accessors in
``web.extensions``, which the blueprints import), so a test or a second app in the same process
gets its own:

- ``tablevar.hub``: the ``MatchHub`` the live pipeline pushes into;
- ``tablevar.recordings``: the ``Recordings`` directory the review page reads;
- ``tablevar.recalibrate``: a callable the live pipeline registers to recalibrate (absent when
  no pipeline runs);
- ``tablevar.ball_colour``: a callable the live pipeline registers to take the ball's colour
  picked on the calibration page (absent when no pipeline runs).

Configuration keys (``test_config`` or ``create_app`` keywords override the defaults):
``PIN`` (generated with ``secrets`` when not given), ``RECORDINGS_DIR``, ``OUTPUT_DIR`` (the
live pipeline's output folder: evidence, ``calibration.json``), ``MATCH_LOG`` (SQLite file;
default ``match.sqlite`` in ``OUTPUT_DIR`` or the instance folder), ``TABLE``, ``CLOCK_MODE``,
``SSE_HEARTBEAT_S``, ``SSE_MAX_PENDING``, ``SSE_MAX_RATE_HZ`` (radar
updates a page gets per second).
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

from web.extensions import (
    BALL_COLOUR,
    HUB,
    RECALIBRATE,
    RECORDINGS,
    hub_of,
    set_ball_colour,
    set_recalibrate,
)
from web.hub import MatchHub
from web.matchlog import MatchLog
from web.recordings import Recordings

__all__ = [
    "BALL_COLOUR",
    "DEFAULTS",
    "HUB",
    "RECALIBRATE",
    "RECORDINGS",
    "create_app",
    "generate_pin",
    "hub_of",
    "set_ball_colour",
    "set_recalibrate",
    "shutdown",
]

DEFAULTS: dict[str, Any] = {
    "PIN": None,
    "RECORDINGS_DIR": None,
    "OUTPUT_DIR": None,
    "MATCH_LOG": None,
    "TABLE": "fistf",
    "CLOCK_MODE": "ball-moving",
    "SSE_HEARTBEAT_S": 15.0,
    "SSE_MAX_PENDING": 256,
    "SSE_MAX_RATE_HZ": 15.0,
    "JSON_SORT_KEYS": False,
}


def generate_pin() -> str:
    """A six-digit PIN from the ``secrets`` module."""
    return f"{secrets.randbelow(1_000_000):06d}"


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the tablevar web app.

    Args:
        test_config: configuration keys overriding ``DEFAULTS`` (see the module docstring).
    """
    app = Flask(__name__, instance_relative_config=False)
    app.config.from_mapping(DEFAULTS)
    if test_config:
        app.config.from_mapping(test_config)
    if not app.config["PIN"]:
        app.config["PIN"] = generate_pin()
    app.config["PIN"] = str(app.config["PIN"])

    output_dir = app.config["OUTPUT_DIR"]
    log_path = app.config["MATCH_LOG"]
    if log_path is None:
        folder = Path(output_dir) if output_dir else Path(app.instance_path)
        folder.mkdir(parents=True, exist_ok=True)
        log_path = folder / "match.sqlite"
    log = MatchLog(log_path, table=app.config["TABLE"], clock_mode=app.config["CLOCK_MODE"])
    app.extensions[HUB] = MatchHub(
        log,
        output_dir=output_dir,
        max_pending=int(app.config["SSE_MAX_PENDING"]),
        max_rate_hz=float(app.config["SSE_MAX_RATE_HZ"]),
    )
    app.extensions[RECORDINGS] = Recordings(app.config["RECORDINGS_DIR"])

    from web import calibration_view, controls, live, review

    for module in (live, controls, review, calibration_view):
        app.register_blueprint(module.bp)
    app.register_error_handler(HTTPException, _json_error)
    return app


def shutdown(app: Flask) -> None:
    """End the event streams, close the videos and the match log."""
    app.extensions[HUB].close()
    app.extensions[RECORDINGS].close()
    app.extensions[HUB].log.close()


def _json_error(exc: HTTPException):
    """Every HTTP error as JSON: ``{"error": name, "status": code, "message": what was wrong}``."""
    body = {"error": exc.name, "status": exc.code, "message": exc.description}
    response = jsonify(body)
    response.status_code = exc.code or 500
    return response
