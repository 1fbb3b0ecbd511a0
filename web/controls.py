"""Controls that change the match: POST JSON, each guarded by the PIN."""

from __future__ import annotations

import math

from flask import Blueprint, abort, current_app, jsonify

from web.app import HUB
from web.auth import json_body, require_pin
from web.matchlog import MatchLogError

bp = Blueprint("controls", __name__, url_prefix="/api")
MAX_ADDED_TIME_S = 15 * 60.0


def _apply(action: str, **payload):
    try:
        return jsonify(current_app.extensions[HUB].control(action, **payload))
    except MatchLogError as exc:
        abort(409, description=str(exc))


@bp.post("/auth")
@require_pin
def check_pin():
    """Answers 200 when the PIN is right, so the page can unlock its controls."""
    return jsonify({"ok": True})


@bp.post("/match/<action>")
@require_pin
def match_action(action: str):
    """``start``, ``pause``, ``reset``, ``undo`` (the newest overrule or added time)."""
    if action not in ("start", "pause", "reset", "undo"):
        abort(404, description=f"no match action {action!r}; use start, pause, reset or undo")
    json_body()  # a malformed body is refused even where no field is needed
    return _apply(action)


@bp.post("/match/added-time")
@require_pin
def added_time():
    """Body ``{"seconds": s}``: time the referee adds (negative corrects an earlier addition)."""
    seconds = json_body().get("seconds")
    try:
        seconds = float(seconds)
    except (TypeError, ValueError):
        abort(400, description=f"'seconds' must be a number of seconds, got {seconds!r}")
    if not math.isfinite(seconds) or seconds == 0 or abs(seconds) > MAX_ADDED_TIME_S:
        abort(400, description=f"'seconds' must be non-zero and within ±{MAX_ADDED_TIME_S:.0f}")
    return _apply("added_time", seconds=seconds)


# The referee settles a call the rules left open ("too close to call"): upheld it stands,
# rejected it is overruled; the reason says which, so the page shows the decision.
SETTLE = {
    "uphold": ("reinstate", "upheld by the referee"),
    "reject": ("overrule", "rejected by the referee"),
}


@bp.post("/calls/<int:call_id>/<verdict>")
@require_pin
def call_verdict(call_id: int, verdict: str):
    """``overrule`` (body ``{"reason": text}``, optional) or ``reinstate`` a call; ``uphold``
    or ``reject`` one too close to call."""
    if verdict not in ("overrule", "reinstate", *SETTLE):
        abort(
            404,
            description=f"no call action {verdict!r}; use overrule, reinstate, uphold or reject",
        )
    reason = json_body().get("reason")
    if verdict in SETTLE:
        verdict, reason = SETTLE[verdict]
    if reason is not None and (not isinstance(reason, str) or len(reason) > 200):
        abort(400, description="'reason' must be text of at most 200 characters")
    hub = current_app.extensions[HUB]
    if call_id not in {c.id for c in hub.state.calls}:
        abort(404, description=f"no call {call_id} in the current match")
    return _apply(verdict, call_id=call_id, reason=reason)
