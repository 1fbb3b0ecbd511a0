"""The PIN that guards every action that changes the match (DESIGN.md section 8).

The PIN travels only in the ``X-Tablevar-PIN`` header: a page of another origin cannot set
that header without the server's consent (which it never gives), so it cannot post blind.
Wrong PINs are counted per client and slowed down (``web.guard.PinThrottle``) and logged.
"""

from __future__ import annotations

import functools
import hmac
from collections.abc import Callable
from typing import Any

from flask import abort, current_app, request
from werkzeug.exceptions import TooManyRequests

from web.guard import PinThrottle, parse_json

PIN_HEADER = "X-Tablevar-PIN"
PIN_THROTTLE = "tablevar.pin_throttle"


def given_pin() -> str | None:
    """The PIN sent with this request (its header)."""
    return request.headers.get(PIN_HEADER)


def _throttle() -> PinThrottle:
    return current_app.extensions[PIN_THROTTLE]


def require_pin(view: Callable[..., Any]) -> Callable[..., Any]:
    """Refuse the request with 403 unless it carries the right PIN; 429 while the client
    still waits after too many wrong ones."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        pin = given_pin()
        if not pin:
            abort(403, description=f"this action needs the PIN (header {PIN_HEADER})")
        client = request.remote_addr or "unknown"
        wait = _throttle().wait_s(client)
        if wait > 0:
            raise TooManyRequests(
                description=f"too many wrong PINs: try again in {wait:.0f} s",
                retry_after=max(1, round(wait)),
            )
        if not hmac.compare_digest(pin.encode(), current_app.config["PIN"].encode()):
            count, wait = _throttle().failed(client)
            current_app.logger.warning(
                "wrong PIN from %s (%d in a row; next try allowed in %.0f s)", client, count, wait
            )
            abort(403, description="wrong PIN")
        _throttle().succeeded(client)
        return view(*args, **kwargs)

    return wrapped


def json_body() -> dict[str, Any]:
    """The request's JSON object ({} for an empty body).

    400 when it is not one JSON object (or nests deeper than ``MAX_JSON_DEPTH``), 413 when
    it is larger than ``MAX_CONTENT_LENGTH``.
    """
    # Werkzeug before 2.3 leaves MAX_CONTENT_LENGTH to form parsing: the limit is kept here.
    limit = current_app.config.get("MAX_CONTENT_LENGTH")
    if limit is not None and (request.content_length or 0) > limit:
        abort(413)
    data = request.get_data(cache=True)
    if limit is not None and len(data) > limit:
        abort(413)
    if not data:
        return {}
    if not request.is_json:
        abort(400, description="send the request body as JSON (Content-Type: application/json)")
    try:
        value = parse_json(data, int(current_app.config["MAX_JSON_DEPTH"]))
    except ValueError as exc:
        abort(400, description=f"the request body must be one JSON object: {exc}")
    if not isinstance(value, dict):
        abort(400, description="the request body must be one JSON object")
    return value
