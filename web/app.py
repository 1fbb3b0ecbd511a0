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
updates a page gets per second), ``SSE_MAX_STREAMS`` (open event streams; past it a page is
told to come back later, so the streams never hold every server thread; None: no limit),
``MAX_CONTENT_LENGTH`` (bytes of a request body), ``MAX_JSON_DEPTH``, ``PIN_FREE_TRIES``,
``PIN_DELAY_S``, ``PIN_MAX_DELAY_S`` (see ``web.guard.PinThrottle``).
"""

from __future__ import annotations

import math
import secrets
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from flask import Flask, current_app, jsonify, make_response, render_template, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import HTTPException

from web.auth import PIN_THROTTLE
from web.extensions import (
    BALL_COLOUR,
    HUB,
    RECALIBRATE,
    RECORDINGS,
    STREAM_SLOTS,
    hub_of,
    set_ball_colour,
    set_recalibrate,
)
from web.games import page_words
from web.guard import PinThrottle, public_message, same_origin, security_headers
from web.hub import MatchHub
from web.matchlog import MatchLog
from web.recordings import Recordings

__all__ = [
    "BALL_COLOUR",
    "DEFAULTS",
    "HUB",
    "RECALIBRATE",
    "RECORDINGS",
    "STREAM_SLOTS",
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
    "GAME": None,  # the game played on TABLE (None: the one its profile names)
    "CLOCK_MODE": "ball-moving",
    "SSE_HEARTBEAT_S": 15.0,
    "SSE_MAX_PENDING": 256,
    "SSE_MAX_RATE_HZ": 15.0,
    "SSE_MAX_STREAMS": None,
    "JSON_SORT_KEYS": False,
    # Every body the API takes is a few hundred bytes; pictures are never uploaded.
    "MAX_CONTENT_LENGTH": 64 * 1024,
    "MAX_JSON_DEPTH": 16,
    "PIN_FREE_TRIES": 5,
    "PIN_DELAY_S": 1.0,
    "PIN_MAX_DELAY_S": 300.0,
}


class FiniteJSONProvider(DefaultJSONProvider):
    """JSON answers a browser can parse: ``NaN`` and infinities (from a file on disk) go out
    as ``null``, never as the invalid ``NaN``."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        kwargs["allow_nan"] = False
        try:
            return super().dumps(obj, **kwargs)
        except ValueError:
            return super().dumps(_finite_or_null(obj), **kwargs)


def _finite_or_null(value: Any) -> Any:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Mapping):
        return {k: _finite_or_null(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_or_null(v) for v in value]
    return value


def generate_pin(digits: int = 6) -> str:
    """A PIN of ``digits`` digits from the ``secrets`` module."""
    return f"{secrets.randbelow(10**digits):0{digits}d}"


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the tablevar web app.

    Args:
        test_config: configuration keys overriding ``DEFAULTS`` (see the module docstring).
    """
    app = Flask(__name__, instance_relative_config=False)
    app.json = FiniteJSONProvider(app)
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
    log = MatchLog(
        log_path,
        table=app.config["TABLE"],
        clock_mode=app.config["CLOCK_MODE"],
        game=app.config["GAME"],
    )
    app.extensions[HUB] = MatchHub(
        log,
        output_dir=output_dir,
        max_pending=int(app.config["SSE_MAX_PENDING"]),
        max_rate_hz=float(app.config["SSE_MAX_RATE_HZ"]),
    )
    app.extensions[RECORDINGS] = Recordings(app.config["RECORDINGS_DIR"])
    app.extensions[PIN_THROTTLE] = PinThrottle(
        int(app.config["PIN_FREE_TRIES"]),
        float(app.config["PIN_DELAY_S"]),
        float(app.config["PIN_MAX_DELAY_S"]),
    )
    app.extensions[STREAM_SLOTS] = StreamSlots(app)
    app.before_request(same_origin)
    app.after_request(security_headers)

    from web import calibration_view, controls, live, report_view, review

    for module in (live, controls, review, report_view, calibration_view):
        app.register_blueprint(module.bp)
    app.register_error_handler(HTTPException, _json_error)
    # Page words come from the live table's game; a page of a recording passes its own.
    app.context_processor(lambda: page_words(app.config["TABLE"], app.config["GAME"]))
    return app


class StreamSlots:
    """Open event streams against the app's ``SSE_MAX_STREAMS`` (read at each use, so the
    server may set it after the app is built)."""

    def __init__(self, app: Flask) -> None:
        self._app = app
        self._open = 0
        self._lock = threading.Lock()

    @property
    def open(self) -> int:
        return self._open

    def acquire(self) -> bool:
        """Take a stream's place; False when all are taken."""
        limit = self._app.config.get("SSE_MAX_STREAMS")
        with self._lock:
            if limit is not None and self._open >= int(limit):
                return False
            self._open += 1
            return True

    def release(self) -> None:
        with self._lock:
            self._open = max(0, self._open - 1)


def shutdown(app: Flask) -> None:
    """End the event streams, close the videos and the match log."""
    app.extensions[HUB].close()
    app.extensions[RECORDINGS].close()
    app.extensions[HUB].log.close()


def _wants_html() -> bool:
    """A browser opening a page (not the API, not a script asking for JSON)."""
    if request.path.startswith("/api/"):
        return False
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return best == "text/html"


def _json_error(exc: HTTPException):
    """Every HTTP error as JSON, ``{"error": name, "status": code, "message": what was wrong}``;
    a page a browser opened gets the same as an HTML page with a way back."""
    message = public_message(current_app, exc.description or "")
    if _wants_html():
        html = render_template("error.html", name=exc.name, status=exc.code, message=message)
        response = make_response(html, exc.code or 500)
    else:
        response = jsonify({"error": exc.name, "status": exc.code, "message": message})
    response.status_code = exc.code or 500
    retry_after = getattr(exc, "retry_after", None)
    if retry_after is not None:
        response.headers["Retry-After"] = str(retry_after)
    return security_headers(response)
