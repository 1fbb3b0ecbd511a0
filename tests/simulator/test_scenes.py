"""Scene scripts: compiling, the flick mechanics, the registry and script errors."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from calibration.tables import load_pitch
from hardware.recording import read_meta, read_truth
from simulator.physics import FIGURE_DECEL_MM_S2, launch_speed_mm_s
from simulator.scene_library import UnknownSceneError, build_scene, lineup, scene_names
from simulator.scenes import (
    FigureSpec,
    Scene,
    SceneError,
    compile_scene,
    flick,
    hit,
    move,
    place_ball,
)
from simulator.truth import frame_truth, truth_calls
from tablevar.cli import main
from tablevar.rules_stage import FistfRules
from tablevar.tracked import frame_from_record

PITCH = load_pitch("fistf")
R_BALL, R_BASE = PITCH.profile.ball_radius_mm, PITCH.profile.base_radius_mm


def _scene(actions, ball=(0.0, 0.0), duration=6.0, specs=None) -> Scene:
    specs = specs or tuple(lineup(PITCH, np.random.default_rng(0)))
    return Scene("t", duration, tuple(specs), ball, tuple(actions))


def test_flick_contact_geometry_and_ball_target():
    c = compile_scene(_scene([flick(10, 1.5, (-200.0, 150.0))], ball=(-100.0, 50.0)), PITCH)
    strike = c.strikes[0]
    fig = c.figure_specs.index(next(s for s in c.figure_specs if s.id == 10))
    fxy, _ = c.figure_state(np.array([strike.t_s]))
    gap = math.dist(fxy[0, fig], strike.ball_from_mm)
    assert gap == pytest.approx(R_BALL + R_BASE, abs=1e-9)  # base touches the ball footprint
    assert c.frame(strike.t_rest_s + 0.1).ball_xy_mm.tolist() == [-200.0, 150.0]
    assert c.frame(strike.t_s).ball_xy_mm.tolist() == [-100.0, 50.0]
    assert c.frame(strike.t_s + 0.05).ball_moving


def test_shot_into_goal_is_stopped_by_the_back_net():
    c = compile_scene(_scene([flick(10, 1.0, (800.0, 60.0))], ball=(400.0, 40.0)), PITCH)
    goal = PITCH.goal("right")
    rest = c.strikes[0].ball_rest_mm
    assert rest[0] == pytest.approx(goal.x_back_mm - R_BALL)
    assert goal.y_min_mm < rest[1] < goal.y_max_mm


def test_a_hit_stops_the_struck_base_and_sends_the_hit_one_on_with_its_speed():
    """Equal bases head on: the struck one stops where it touches, the hit one leaves along
    the line of centres with the speed the struck one brought, and stops where scripted."""
    specs = tuple(lineup(PITCH, np.random.default_rng(0)))
    xy = {s.id: np.array(s.xy_mm) for s in specs}
    target, striker = 21, 10  # an away forward, a home forward beside it
    start = xy[target] + np.array([-80.0, 0.0])
    specs = tuple(
        FigureSpec(s.id, s.team, s.goalkeeper, tuple(start)) if s.id == striker else s
        for s in specs
    )
    to = tuple(xy[target] + np.array([60.0, 0.0]))
    c = compile_scene(
        _scene([hit(striker, 2.0, target, to)], specs=specs, ball=(-300.0, 0.0)), PITCH
    )
    (h,) = c.hits
    assert (h.t_s, h.figure, h.target) == (2.0, striker, target)
    ids = [s.id for s in c.figure_specs]
    i, j = ids.index(striker), ids.index(target)
    t = np.array([2.0 - 1e-4, 2.0, 2.0 + 1e-4, 5.0])
    fxy, fv = c.figure_state(t)
    assert math.dist(fxy[1, i], fxy[1, j]) == pytest.approx(2 * R_BASE, abs=1e-9)
    v_in, v_out = np.hypot(*fv[0, i]), np.hypot(*fv[2, j])
    assert v_in == pytest.approx(launch_speed_mm_s(60.0, FIGURE_DECEL_MM_S2), rel=1e-3)
    assert v_out == pytest.approx(v_in, rel=1e-3)
    assert np.hypot(*fv[2, i]) == 0.0 and np.allclose(fxy[3, i], fxy[1, i])
    assert np.allclose(fxy[3, j], to)
    # the truth lists it as the struck base's contact, naming the hit one
    contacts = [k for rec in frame_truth(c, 50.0) for k in rec["contacts"]]
    assert contacts == [
        {"figure": striker, "team": "home", "kind": "flick", "onset_frame": 100, "target": target}
    ]


def test_a_hit_that_moves_nothing_is_refused():
    with pytest.raises(SceneError, match="the hit figure must move"):
        specs = tuple(lineup(PITCH, np.random.default_rng(0)))
        spot = next(s.xy_mm for s in specs if s.id == 21)
        compile_scene(_scene([hit(10, 2.0, 21, spot)]), PITCH)


def test_place_ball_lifts_the_ball_with_a_finger_over_the_table():
    c = compile_scene(_scene([place_ball(1.0, (200.0, -100.0), lift_s=0.5)]), PITCH)
    assert c.frame(1.2).ball_xy_mm is None and c.frame(1.2).fingers
    assert c.frame(2.0).ball_xy_mm.tolist() == [200.0, -100.0]
    assert not c.frame(2.0).fingers


@pytest.mark.parametrize(
    ("actions", "ball", "message"),
    [
        ([flick(99, 1.0, (100.0, 0.0))], (0.0, 0.0), "no figure 99"),
        ([flick(10, 1.0, (100.0, 0.0)), flick(11, 1.1, (0.0, 100.0))], (0.0, 0.0), "still moving"),
        ([flick(10, 1.0, (100.0, 0.0))], None, "not on the table"),
        ([flick(10, 9.0, (100.0, 0.0))], (0.0, 0.0), "outside the clip"),
        ([flick(11, 1.0, (-126.0, -224.0))], (0.0, 0.0), "runs into figure 10"),
        ([move(10, 0.5, (0.0, 0.0))], (0.0, 0.0), "cannot find a clear way|overlap|runs into"),
    ],
)
def test_impossible_scripts_raise(actions, ball, message):
    with pytest.raises(SceneError, match=message):
        compile_scene(_scene(actions, ball=ball), PITCH)


def test_lineup_needs_eleven_with_one_goalkeeper():
    specs = [s for s in lineup(PITCH, np.random.default_rng(0)) if s.id != 5]
    specs.append(FigureSpec(5, 0, True, (-400.0, 0.0)))
    with pytest.raises(SceneError, match="exactly one goalkeeper"):
        compile_scene(_scene([], specs=specs), PITCH)


def test_flick_rejects_unknown_expect():
    with pytest.raises(SceneError, match="unknown expect"):
        flick(1, 0.0, (0.0, 0.0), expect="penalty")


def test_unknown_scene_lists_names():
    with pytest.raises(UnknownSceneError, match=r"goal_line_close.*offside"):
        build_scene("nope")


@pytest.mark.parametrize("name", [n for n in scene_names() if n != "long_rally"])
def test_named_scenes_are_deterministic_and_vary_with_seed(name):
    a, b, c = build_scene(name, 3), build_scene(name, 3), build_scene(name, 4)
    assert a.scene == b.scene
    assert a.scene != c.scene
    assert len(a.scene.lineup) == 22


def test_long_rally_lasts_a_minute():
    c = build_scene("long_rally", 0)
    assert 60.0 <= c.duration_s <= 63.0
    assert len(c.strikes) >= 20


def test_simulate_command_writes_a_readable_recording(tmp_path, capsys):
    out = tmp_path / "clip"
    argv = ["simulate", "goal_inside_zone", "--out", str(out), "--size", "320x240"]
    assert main([*argv, "--seed", "2", "--frames", "4"]) == 0
    meta = read_meta(out)
    assert meta.frames == 4 and meta.size_px == (320, 240) and meta.complete
    truth = read_truth(out)
    assert [f["frame"] for f in truth] == [0, 1, 2, 3]
    cap = cv2.VideoCapture(str(out / "video.mp4"))
    ok, image = cap.read()
    cap.release()
    assert ok and image.shape == (240, 320, 3)
    assert "4 frames" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["simulate", "nope", "--out", "x"], "scenes: demo, goal_inside_zone"),
        (["simulate", "demo", "--out", "x", "--size", "big"], "1280x960 or 2304x1296"),
        (
            ["simulate", "demo", "--out", "x", "--table", "nope"],
            "shipped profiles: button-football, fistf",
        ),
    ],
)
def test_simulate_command_bad_input_is_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1


REFEREEABLE = ("kickoff_pass", "touchline_out", "goal_inside_zone", "goal_outside_zone", "offside")


@pytest.mark.parametrize("name", REFEREEABLE)
def test_named_scene_starts_with_a_forward_kick_off_and_referees_as_scripted(name):
    """A referee following the match sees a kick-off first, then the scripted calls."""
    scene = build_scene(name, 3)
    first = scene.strikes[0]
    assert first.ball_from_mm == pytest.approx((0.0, 0.0)) and first.ball_rest_mm[0] > 0
    rules = FistfRules(scene.pitch)
    calls = []
    for rec in frame_truth(scene, 30.0):
        frame = frame_from_record(rec, scene.pitch.profile.base_radius_mm)
        calls += [c.to_record() for c in rules.judge(frame)[1]]
    keys = ("kind", "team", "restart", "line")
    got = [tuple(c[k] for k in keys) for c in calls if c["kind"] not in ("distance",)]
    assert got == [tuple(t[k] for k in keys) for t in truth_calls(scene, 30.0)]


def _truth_calls_refereed(scene) -> list[dict]:
    rules = FistfRules(scene.pitch)
    calls = []
    for rec in frame_truth(scene, 30.0):
        frame = frame_from_record(rec, scene.pitch.profile.base_radius_mm)
        calls += [c.to_record() for c in rules.judge(frame)[1]]
    return calls


@pytest.mark.parametrize("seed", [0, 1])
def test_demo_takes_every_restart_as_the_law_says(seed):
    """The demo's goal kicks (FISTF 15.2: ball in the goal area, nobody else in the penalty area,
    the ball out of it) and its kick-off after the goal (4.2.1: everyone in their own half) are
    legal, so a referee following the truth faults none and sees the goal, the disallowed goal
    and the offside it scripts. (Its +0.3 mm goal-line rest is within the rules' 0.5 mm, so it
    may come out as a close call.)"""
    scene = build_scene("demo", seed)
    calls = _truth_calls_refereed(scene)
    assert [c for c in calls if c["kind"] == "set_piece_fault"] == []
    keys = ("kind", "team", "restart")
    got = [tuple(c[k] for k in keys) for c in calls if c["kind"] not in ("distance", "close_call")]
    want = [tuple(t[k] for k in keys) for t in truth_calls(scene, 30.0)]
    assert (
        got[-3:]
        == want[-3:]
        == [
            ("goal", "home", "kick_off"),
            ("goal_disallowed", "away", "goal_kick"),
            ("offside", "away", "free_kick"),
        ]
    )
