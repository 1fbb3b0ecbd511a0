"""A recording that starts in mid-play (DESIGN.md 4), through the pipeline's rules stage.

Each simulator scene begins with a kick-off and ends with the moment to judge
(``simulator.scene_margins``). Fed from its first frame, the rules see the kick-off set up
(FISTF 4.2) and take it; fed from a later frame, as a phone clip of the disputed moment would
be, they start in open play:

- from just before the last strike (its shot, pass or play over a line seen): the truth's calls
  for that moment, exactly as for the whole match;
- from the roll after the last strike (the strike not seen): a goal is left to the referee
  (FISTF 7.1 needs the shot's position) and a ball out names no team (14.1, 15.1, 16.1 need the
  last touch).
"""

from __future__ import annotations

import pytest

from simulator.scene_margins import build_margin_scene
from simulator.truth import contact_frame, frame_truth, truth_calls
from tablevar.rules_stage import FistfRules
from tests.tablevar.conftest import judge

FPS = 30.0
KEYS = ("kind", "law", "line", "team", "restart", "fully_crossed")
DECIDING = ("ball_out", "goal", "goal_disallowed", "offside", "foul", "set_piece_fault")
SCENES = {
    "goal": ("shot", 31, {"inside": True}),
    "no_goal": ("shot", 32, {"inside": False}),
    "throw_in": ("line", 33, {"line": "touchline", "margin_mm": 4.0}),
    "goal_line_out": ("line", 34, {"line": "goal_line", "margin_mm": 3.0}),
    "offside": ("offside", 35, {"offside": True}),
}


def _replay(scene, first: int) -> list[dict]:
    rules = FistfRules(scene.pitch)
    calls: list[dict] = []
    for rec in frame_truth(scene, FPS)[first:]:
        calls += judge(rules, rec)
    return [c for c in calls if c["kind"] in DECIDING]


@pytest.mark.parametrize("name", sorted(SCENES))
def test_a_clip_from_before_the_last_strike_gets_the_truth_calls(name):
    kind, seed, params = SCENES[name]
    scene = build_margin_scene(kind, seed, **params)
    first = contact_frame(scene.strikes[-1], FPS) - 4  # the ball still at rest
    truth = [t for t in truth_calls(scene, FPS) if t["frame"] >= first]
    said = _replay(scene, first)
    assert [{k: c[k] for k in KEYS} for c in said] == [{k: t[k] for k in KEYS} for t in truth]
    assert truth, "the scene's moment to judge lies after the strike"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        pytest.param("goal", ("goal", "FISTF 7.1", "shooting_line", "home", None), id="FISTF 7.1"),
        pytest.param(
            "no_goal", ("goal", "FISTF 7.1", "shooting_line", "home", None), id="FISTF 7.2"
        ),
        pytest.param(
            "throw_in", ("ball_out", "FISTF 14.1", "touchline", None, "throw_in"), id="FISTF 14.1"
        ),
        pytest.param(
            "goal_line_out",
            ("ball_out", "FISTF 15.1/16.1", "goal_line", None, None),
            id="FISTF 15.1/16.1",
        ),
    ],
)
def test_a_clip_from_after_the_last_strike_leaves_the_unseen_to_the_referee(name, expected):
    kind, seed, params = SCENES[name]
    scene = build_margin_scene(kind, seed, **params)
    first = contact_frame(scene.strikes[-1], FPS) + 2  # the ball already rolling
    (call,) = _replay(scene, first)
    assert tuple(call[k] for k in ("kind", "law", "line", "team", "restart")) == expected
    if call["kind"] == "goal":  # too close to call: the referee decides (DESIGN.md 4)
        assert abs(call["margin_mm"]) <= call["uncertainty_mm"]
    else:  # that the ball is out is sure; who restarts is not
        assert call["margin_mm"] > call["uncertainty_mm"]


def test_a_clip_from_the_first_frame_sees_the_kick_off():
    """FISTF 4.2: the scene's first frame shows a kick-off set up; its taker may not play
    twice (general guidelines) and its flick starts play, so the whole match gets the truth."""
    kind, seed, params = SCENES["goal"]
    scene = build_margin_scene(kind, seed, **params)
    rules = FistfRules(scene.pitch)
    frames = frame_truth(scene, FPS)
    judge(rules, {**frames[0], "contacts": []})
    assert rules.state.restart is not None and rules.state.restart.kind == "kick_off"
    truth = truth_calls(scene, FPS)
    said = _replay(scene, 0)
    assert [{k: c[k] for k in KEYS} for c in said] == [{k: t[k] for k in KEYS} for t in truth]
