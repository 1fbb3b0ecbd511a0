"""Button-football scenes: exact clips, their shot calls, and the calls a perfect camera gets."""

from __future__ import annotations

import pytest

from rules.observation import AWAY, HOME
from simulator.button_scenes import build_button_scene, button_truth_calls, exact_observations
from simulator.scenes import SceneError

FPS = 50.0


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        pytest.param(
            "bf_called_goal",
            [("shot_called", HOME, None), ("goal", HOME, "kick_off")],
            id="BF Angesagte Schüsse called goal",
        ),
        pytest.param("bf_throw_in", [("ball_out", AWAY, "throw_in")], id="BF Ball im Aus throw-in"),
        pytest.param("bf_kick_off", [], id="BF Anstoß kick-off and passes"),
        pytest.param(
            "bf_called_kept_in_play",
            [("shot_called", HOME, None), ("turnover", AWAY, None)],
            id="BF Angesagte Schüsse called shot kept in play",
        ),
        pytest.param("bf_corner", [("ball_out", HOME, "corner")], id="BF Ball im Aus corner"),
        pytest.param(
            "bf_goal_kick", [("ball_out", AWAY, "goal_kick")], id="BF Ball im Aus goal kick"
        ),
        pytest.param(
            "bf_keeper_ball", [("turnover", AWAY, "goal_kick")], id="BF Torwartball keeper's ball"
        ),
    ],
)
def test_a_button_scene_gets_the_calls_of_the_text(name, expected):
    clip = build_button_scene(name, seed=0)
    assert clip.compiled.pitch.profile.game == "button-football"
    calls = button_truth_calls(clip, FPS)
    assert [(c.kind, c.team, c.restart) for c in calls] == expected
    # every strike is one contact on the frame after it, and nothing else is
    items = exact_observations(clip, FPS)
    contacts = [c for o in items if hasattr(o, "contacts") for c in o.contacts]
    assert len(contacts) == len(clip.compiled.strikes) >= 1
    assert len(clip.shot_calls) == name.startswith("bf_called")


def test_an_unknown_button_scene_is_named():
    with pytest.raises(SceneError, match="unknown button scene 'bf_x'; scenes: bf_called_goal"):
        build_button_scene("bf_x")
