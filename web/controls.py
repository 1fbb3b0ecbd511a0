"""Controls that change the match: POST JSON, each guarded by the PIN."""

from __future__ import annotations

import math

from flask import Blueprint, Response, abort, current_app, jsonify

from web.auth import json_body, require_pin
from web.extensions import HUB
from web.matchlog import MatchLogError

bp = Blueprint("controls", __name__, url_prefix="/api")
MAX_ADDED_TIME_S = 15 * 60.0
MATCH_ACTIONS = ("start", "resume", "pause", "half_time", "second_half", "end", "reset", "undo")
CALL_ACTIONS = ("overrule", "reinstate", "uphold", "reject")


def _apply(action: str, **payload):
    try:
        return jsonify(current_app.extensions[HUB].control(action, **payload))
    except ValueError as exc:  # the rules refuse what does not fit the match now
        abort(409, description=" ".join(str(exc).split()))


@bp.post("/auth")
@require_pin
def check_pin():
    """Answers 200 when the PIN is right, so the page can unlock its controls."""
    return jsonify({"ok": True})


@bp.post("/match/<action>")
@require_pin
def match_action(action: str):
    """``start``, ``resume``, ``pause``, ``half_time``, ``second_half``, ``end``, ``reset``,
    ``undo`` (the newest overrule, reinstate or added time)."""
    if action not in MATCH_ACTIONS:
        abort(404, description=f"no match action {action!r}; use one of {', '.join(MATCH_ACTIONS)}")
    json_body()  # a malformed body is refused even where no field is needed
    return _apply(action)


@bp.post("/match/team-names")
@require_pin
def team_names():
    """Body ``{"home": name, "away": name}``: what the page calls the teams."""
    body = json_body()
    names = (body.get("home"), body.get("away"))
    if not all(isinstance(n, str) and n.strip() for n in names):
        abort(400, description="'home' and 'away' must both be non-empty names")
    return _apply("team_names", names=[n.strip() for n in names])


@bp.post("/match/shot-call")
@require_pin
def shot_call():
    """Body ``{"team": "home" | "away"}``: the team calls its shot (button football). The rules
    judge it where the ball lies (wholly in the opponents' half, on the team's turn) and the
    call says whether it stands; a game without called shots answers 409."""
    team = json_body().get("team")
    if team not in ("home", "away"):
        abort(400, description=f"'team' must be 'home' or 'away', got {team!r}")
    if "shot_call" not in current_app.extensions[HUB].actions:
        abort(409, description="this game has no called shots")
    return _apply("shot_call", team=team)


@bp.get("/match/<int:match_id>/export.<fmt>")
def export(match_id: int, fmt: str):
    """The log of a match (its calls and the referee's actions) as ``json`` or ``csv``.

    Reading it changes nothing, so no PIN is needed.
    """
    log = current_app.extensions[HUB].log
    try:
        if fmt == "json":
            data = log.export_json(match_id)
            response = jsonify(data)
        elif fmt == "csv":
            response = Response(log.export_csv(match_id), mimetype="text/csv")
        else:
            abort(404, description=f"no export format {fmt!r}; use json or csv")
    except MatchLogError as exc:
        abort(404, description=str(exc))
    name = f"tablevar-match-{match_id}.{fmt}"
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


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


@bp.post("/calls/<int:call_id>/<verdict>")
@require_pin
def call_verdict(call_id: int, verdict: str):
    """``overrule`` (body ``{"reason": text}``, optional) or ``reinstate`` a call; ``uphold``
    or ``reject`` a too-close call that waits for the referee."""
    if verdict not in CALL_ACTIONS:
        abort(404, description=f"no call action {verdict!r}; use one of {', '.join(CALL_ACTIONS)}")
    reason = json_body().get("reason")
    if reason is not None and (not isinstance(reason, str) or len(reason) > 200):
        abort(400, description="'reason' must be text of at most 200 characters")
    hub = current_app.extensions[HUB]
    if call_id not in {c.id for c in hub.calls}:
        abort(404, description=f"no call {call_id} in the current match")
    payload = {"reason": reason} if verdict == "overrule" else {}
    return _apply(verdict, call_id=call_id, **payload)
