"""Margin scenes: a real kick-off first, then the moment to judge, with the declared margin."""

from __future__ import annotations

import pytest

from calibration.tables import load_pitch
from simulator.scene_margins import build_margin_scene
from simulator.scenes import SceneError
from simulator.truth import decide

FPS = 30.0


@pytest.mark.parametrize(
    ("kind", "params", "calls"),
    [
        ("line", {"line": "touchline", "margin_mm": 0.6}, [("ball_out", "throw_in")]),
        ("line", {"line": "goal_line", "margin_mm": -0.8}, [("close_call", None)]),
        ("line", {"line": "goal_line", "margin_mm": -5.0}, []),
        ("shot", {"inside": True}, [("goal", "kick_off")]),
        ("shot", {"inside": False}, [("goal_disallowed", "goal_kick")]),
        ("offside", {"offside": True}, [("offside", "free_kick")]),
        ("offside", {"offside": False}, []),
        ("rally", {"seconds": 8.0}, []),
    ],
)
def test_kick_off_first_then_the_declared_call(kind, params, calls):
    scene = build_margin_scene(kind, 5, **params)
    first = scene.strikes[0]
    assert first.ball_from_mm == pytest.approx((0.0, 0.0))  # from the centre spot
    assert first.ball_rest_mm[0] > 0  # forward, toward the away goal (FISTF 4.2.3)
    assert [(c.kind, c.restart) for c in decide(scene, FPS)] == calls


@pytest.mark.parametrize("margin", [-1.2, 0.3, 4.0])
def test_line_scene_rests_at_the_declared_margin(margin):
    scene = build_margin_scene("line", 9, line="touchline", margin_mm=margin)
    pitch = load_pitch("fistf")
    rest = scene.strikes[-1].ball_rest_mm
    names = ("touchline_top", "touchline_bottom")
    got = max(pitch.line(n).beyond_edge_mm(rest, 1.0)[0] for n in names)
    assert got - pitch.profile.ball_radius_mm == pytest.approx(margin, abs=1e-6)


def test_same_seed_same_clip_other_seed_other_clip():
    a, b = (build_margin_scene("shot", 4) for _ in range(2))
    c = build_margin_scene("shot", 6)
    assert a.strikes == b.strikes and a.strikes != c.strikes


@pytest.mark.parametrize(
    ("kind", "params", "message"),
    [
        ("header", {}, "unknown margin scene 'header'"),
        ("line", {"line": "halfway_line"}, "not 'halfway_line'"),
    ],
)
def test_bad_requests_say_what_is_wrong(kind, params, message):
    with pytest.raises(SceneError, match=message):
        build_margin_scene(kind, 1, **params)
