"""Ground truth: per-frame records agree with the motion, calls agree with rules.pitch."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from calibration.tables import load_pitch
from simulator.scene_library import build_scene, lineup
from simulator.scenes import Scene, compile_scene, flick
from simulator.truth import TruthError, frame_truth, truth_calls

PITCH = load_pitch("fistf")
R_BALL = PITCH.profile.ball_radius_mm
FPS = 60.0


@pytest.fixture(scope="module")
def demo():
    c = build_scene("demo", 1)
    return c, frame_truth(c, FPS), truth_calls(c, FPS)


def test_moving_flag_agrees_with_positions(demo):
    _, frames, _ = demo
    for prev, cur in itertools.pairwise(frames):
        if cur["ball"] is None or prev["ball"] is None:
            assert cur["ball"] is None or not cur["ball"]["moving"]
            continue
        changed = (prev["ball"]["x_mm"], prev["ball"]["y_mm"]) != (
            cur["ball"]["x_mm"],
            cur["ball"]["y_mm"],
        )
        # Truth is rounded to 1 um: a change below that may still count as motion.
        assert cur["ball"]["moving"] or not changed


def test_contacts_sit_on_the_first_moving_frame(demo):
    c, frames, _ = demo
    listed = [(f["frame"], k) for f in frames for k in f["contacts"]]
    assert len(listed) == len(c.strikes)
    for frame, contact in listed:
        assert frames[frame]["ball"]["moving"]
        onset = frames[contact["onset_frame"]]
        assert contact["onset_frame"] == frame - 1
        assert onset["ball"] is not None and not onset["ball"]["moving"]
        assert contact["kind"] == "flick" and contact["team"] in ("home", "away")


def test_frames_have_the_tracks_schema(demo):
    _, frames, _ = demo
    f = frames[0]
    assert set(f) == {"frame", "t_s", "ball", "figures", "contacts"}
    assert len(f["figures"]) == 22 and sum(g["goalkeeper"] for g in f["figures"]) == 2
    assert [f["t_s"] for f in frames[:3]] == [0.0, round(1 / FPS, 6), round(2 / FPS, 6)]


def test_demo_calls(demo):
    _, _, calls = demo
    got = [(k["kind"], k["law"], k["line"], k["team"], k["restart"]) for k in calls]
    assert got == [
        ("ball_out", "FISTF 14.1", "touchline", "away", "throw_in"),
        ("close_call", "FISTF 15.1", "goal_line", None, None),
        ("ball_out", "FISTF 15.1", "goal_line", "away", "goal_kick"),
        ("goal", "FISTF 7.1", "goal_line", "home", "kick_off"),
        ("goal_disallowed", "FISTF 7.2", "shooting_line", "away", "goal_kick"),
        ("offside", "FISTF 13.1", None, "away", "free_kick"),
    ]
    assert calls[1]["margin_mm"] == pytest.approx(-0.4, abs=1e-6)
    # A crossing's margin is the one on its decisive frame: over, at most the 0.3 mm at rest.
    assert 0.0 < calls[2]["margin_mm"] <= 0.3 + 1e-6
    # 7.2 is decided on the shooting line: the shot's margin, outside the zone.
    assert calls[4]["margin_mm"] < -5.0 and calls[4]["fully_crossed"] is False
    assert all(k["uncertainty_mm"] == 0.0 and k["evidence"] is None for k in calls)
    assert calls[-1]["figure"]["team"] == "home"


def test_decisive_frames_agree_with_pitch_geometry(demo):
    _, frames, calls = demo
    for call in calls:
        if call["kind"] not in ("ball_out", "goal", "goal_disallowed"):
            continue
        line = "goal_line" if call["kind"] == "goal_disallowed" else call["line"]
        names = [b.name for b in PITCH.lines_of_kind(line)]

        def margin(frame, names=names):
            b = frames[frame]["ball"]
            xy = (b["x_mm"], b["y_mm"])
            return max(PITCH.line(n).beyond_edge_mm(xy, 1.0)[0] - R_BALL for n in names)

        k = call["frame"]
        assert margin(k) > 0 >= margin(k - 1)
        if call["kind"] != "goal_disallowed":
            assert call["margin_mm"] == pytest.approx(margin(k), abs=2e-3)


def test_close_call_frame_is_the_first_at_rest(demo):
    _, frames, calls = demo
    call = next(k for k in calls if k["kind"] == "close_call")
    k = call["frame"]
    rest = (frames[k]["ball"]["x_mm"], frames[k]["ball"]["y_mm"])
    assert not frames[k + 1]["ball"]["moving"]
    assert (frames[k - 1]["ball"]["x_mm"], frames[k - 1]["ball"]["y_mm"]) != rest
    line = PITCH.line("goal_line_right")
    assert line.beyond_edge_mm(rest, 1.0)[0] - R_BALL == pytest.approx(call["margin_mm"], abs=1e-3)


@pytest.mark.parametrize(
    ("target", "expect", "message"),
    [
        ((640.0, 30.0), None, "expect=None but its ball gives goal"),
        ((100.0, 200.0), "goal", "expect='goal' but its ball gives no call"),
        ((100.0, 390.0), "close_call", "gives ball_out"),
    ],
)
def test_script_and_trajectory_must_agree(target, expect, message):
    specs = tuple(lineup(PITCH, np.random.default_rng(0)))
    scene = Scene("t", 6.0, specs, (380.0, 40.0), (flick(11, 2.5, target, expect),))
    if target[1] > 300:
        scene = Scene("t", 6.0, specs, (100.0, 300.0), (flick(22, 1.0, target, expect),))
    with pytest.raises(TruthError, match=message):
        truth_calls(compile_scene(scene, PITCH), FPS)


def test_throw_in_is_taken_where_the_ball_crossed(demo):
    """FISTF 14.2: from the point where the ball became wholly over, on the touchline."""
    _, frames, calls = demo
    call = next(k for k in calls if k["restart"] == "throw_in")
    k = call["frame"]
    xs = sorted(frames[i]["ball"]["x_mm"] for i in (k - 1, k))
    assert xs[0] - 1e-6 <= call["position"]["x_mm"] <= xs[1] + 1e-6
    line = PITCH.line("touchline_top" if call["position"]["y_mm"] > 0 else "touchline_bottom")
    assert call["position"]["y_mm"] == pytest.approx(line.a_mm[1])
