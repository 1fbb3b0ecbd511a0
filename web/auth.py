"""The PIN that guards every action that changes the match (DESIGN.md section 8)."""

from __future__ import annotations

import functools
import hmac
from collections.abc import Callable
from typing import Any

from flask import abort, current_app, request

PIN_HEADER = "X-Tablevar-PIN"
PIN_FIELD = "pin"


def given_pin() -> str | None:
    """The PIN sent with this request: the header, else the form field."""
    return request.headers.get(PIN_HEADER) or request.form.get(PIN_FIELD)


def require_pin(view: Callable[..., Any]) -> Callable[..., Any]:
    """Refuse the request with 403 unless it carries the right PIN."""

    @functools.wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        pin = given_pin()
        if not pin:
            abort(403, description=f"this action needs the PIN (header {PIN_HEADER})")
        if not hmac.compare_digest(pin.encode(), current_app.config["PIN"].encode()):
            abort(403, description="wrong PIN")
        return view(*args, **kwargs)

    return wrapped


def json_body() -> dict[str, Any]:
    """The request's JSON object ({} for an empty body); 400 when it is not a JSON object."""
    if request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
        return {k: v for k, v in request.form.items() if k != PIN_FIELD}
    if not request.get_data(cache=True):
        return {}
    if not request.is_json:
        abort(400, description="send the request body as JSON (Content-Type: application/json)")
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        abort(400, description="the request body must be one JSON object")
    return data
