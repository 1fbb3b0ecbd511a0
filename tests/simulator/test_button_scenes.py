"""Button-football scenes: exact clips, their shot calls, and the calls a perfect camera gets."""

from __future__ import annotations

import numpy as np
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
        pytest.param(
            "bf_foul_free_kick", [("foul", AWAY, "free_kick")], id="BF Fouls free kick at the foul"
        ),
        pytest.param(
            "bf_foul_penalty", [("foul", HOME, "penalty")], id="BF Elfmeter foul in the area"
        ),
    ],
)
def test_a_button_scene_gets_the_calls_of_the_text(name, expected):
    clip = build_button_scene(name, seed=0)
    assert clip.compiled.pitch.profile.game == "button-football"
    calls = button_truth_calls(clip, FPS)
    assert [(c.kind, c.team, c.restart) for c in calls] == expected
    # every strike and every hit is one contact on the frame after it, and nothing else is
    items = exact_observations(clip, FPS)
    contacts = [c for o in items if hasattr(o, "contacts") for c in o.contacts]
    assert len(contacts) == len(clip.compiled.strikes) + len(clip.compiled.hits)
    assert len(clip.compiled.strikes) >= 1
    assert len(clip.compiled.hits) == name.startswith("bf_foul")
    assert len(clip.shot_calls) == name.startswith("bf_called")


def test_an_unknown_button_scene_is_named():
    with pytest.raises(SceneError, match="unknown button scene 'bf_x'; scenes: bf_called_goal"):
        build_button_scene("bf_x")


@pytest.mark.parametrize("name", ["bf_foul_free_kick", "bf_foul_penalty"])
def test_a_foul_is_a_button_driven_into_an_opponent_who_moves_on(name):
    """BF Fouls: the flicked button hits an opponent's button, not the ball; the hit one moves
    and the foul's restart is at its place (a penalty at the penalty spot)."""
    clip = build_button_scene(name, seed=3)
    c = clip.compiled
    (hit,) = c.hits
    ids = [s.id for s in c.figure_specs]
    specs = {s.id: s for s in c.figure_specs}
    assert specs[hit.target].team != hit.team and not specs[hit.target].goalkeeper
    xy, _ = c.figure_state(np.array([hit.t_s, hit.t_s + 0.3, c.duration_s]))
    s, t = ids.index(hit.figure), ids.index(hit.target)
    r = c.pitch.profile.base_radius_mm
    assert abs(np.hypot(*(xy[0, s] - xy[0, t])) - 2 * r) < 1e-6  # they touch at the hit
    assert np.hypot(*(xy[2, t] - xy[0, t])) >= 40.0 - 1e-6  # the hit one slid on
    assert np.allclose(xy[1, s], xy[0, s])  # the struck one stopped where it touched
    ball, _, _ = c.ball_state(np.array([hit.t_s - 0.05, hit.t_s + 0.3]))
    assert np.allclose(ball[0], ball[1])  # the ball was not touched
    (call,) = button_truth_calls(clip, FPS)
    assert call.figure.id == hit.figure
    if call.restart == "free_kick":
        assert np.hypot(*(np.array(call.position) - xy[0, t])) < 10.0
