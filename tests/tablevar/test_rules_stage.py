"""The rules stage's uncertainty: the parallax term of a camera whose height is loose."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.tables import load_pitch
from rules.observation import Figures, Observation
from simulator.scene_margins import build_margin_scene
from simulator.truth import frame_truth
from tablevar.rules_stage import BASE_SIGMA_PX, FistfRules, ball_uncertainty_mm
from tablevar.tracked import TrackedBall, TrackedFrame, TracksEncoder
from tests.tablevar.conftest import judge, tracked

FPS = 24.0


def _parallax(per_mm: float):
    """A camera whose parallax error grows with the seen point's height and its distance
    from the nadir under the pitch's centre, like a loose camera height does."""

    def sigma(xy_mm, z_mm):
        return per_mm * z_mm * np.hypot(*np.asarray(xy_mm, float).T) / 1000.0

    return sigma


def _line_calls(rules: FistfRules, scene, sigma_mm: float) -> list[dict]:
    calls: list[dict] = []
    for rec in frame_truth(scene, FPS):
        calls += judge(rules, rec, sigma_mm)
    return [c for c in calls if c["line"] in ("touchline", "goal_line")]


@pytest.mark.parametrize(
    ("per_mm", "too_close"),
    [(0.0, False), (0.02, False), (0.3, True)],
)
def test_the_parallax_term_enters_a_line_calls_uncertainty(per_mm, too_close):
    """FISTF 14.1, "fully crossed": a ball resting 1.5 mm over the touchline is called out
    only while the camera's parallax error at its place leaves the margin beyond doubt."""
    scene = build_margin_scene("line", 28, line="touchline", margin_mm=1.5)
    rules = FistfRules(scene.pitch, line_sigma_mm=0.05, parallax=_parallax(per_mm))
    said = _line_calls(rules, scene, 0.05)
    assert said, "the ball rests over the touchline: a call is due"
    first = said[0]
    xy = np.array([[first["position"]["x_mm"], first["position"]["y_mm"]]])
    r_mm = scene.pitch.profile.ball_radius_mm
    camera = float(_parallax(per_mm)(xy, r_mm)[0])
    # The call's own ball position may differ from the restart's place by a few mm.
    assert first["uncertainty_mm"] == pytest.approx(
        ball_uncertainty_mm(0.05, 0.05, camera), rel=0.05, abs=0.02
    )
    assert (abs(first["margin_mm"]) <= first["uncertainty_mm"]) == too_close


def _frame(ball: TrackedBall | None, sigma_mm: float | None, doubt_mm: float = 0.0):
    return TrackedFrame(0, 0.0, ball, Figures.empty(), (), sigma_mm, None, doubt_mm)


def test_the_ball_uncertainty_adds_the_parallax_in_quadrature():
    rules = FistfRules(load_pitch("fistf"), line_sigma_mm=0.1, parallax=_parallax(0.1))
    ball = TrackedBall(300.0, 400.0, False)
    camera = 0.1 * 10.5 * 500.0 / 1000.0
    assert rules.ball_uncertainty(_frame(ball, 0.2)) == pytest.approx(
        2.0 * np.sqrt(0.2**2 + 0.1**2 + camera**2)
    )
    assert rules.ball_uncertainty(_frame(ball, None)) is None
    plain = FistfRules(load_pitch("fistf"), line_sigma_mm=0.1)
    assert plain.ball_uncertainty(_frame(ball, 0.2)) == pytest.approx(ball_uncertainty_mm(0.2, 0.1))


def test_the_identity_doubt_is_added_to_the_ball_uncertainty_the_rules_are_told():
    """While another ball-like candidate stands 250 mm away, the tracked ball may be that far
    off: the uncertainty handed to the rules covers it, whatever the tracker's own sigma."""
    rules = FistfRules(load_pitch("fistf"), line_sigma_mm=0.1)
    ball = TrackedBall(300.0, 400.0, False)
    sure = rules.observation(_frame(ball, 0.2)).ball_uncertainty_mm
    doubt = rules.observation(_frame(ball, 0.2, 250.0)).ball_uncertainty_mm
    assert sure == pytest.approx(ball_uncertainty_mm(0.2, 0.1))
    assert doubt == pytest.approx(sure + 250.0)
    assert rules.ball_uncertainty(_frame(ball, 0.2, 250.0)) == doubt  # what the output states


def test_a_ball_placed_without_a_sigma_keeps_its_identity_doubt():
    """A frame placed afterwards where the tracker took a candidate up has no sigma of its
    own: the rules' default bound applies, and the identity doubt still adds to it (a pick
    that may be the wrong object 90 mm away is no ball known to half a millimetre)."""
    rules = FistfRules(load_pitch("fistf"), line_sigma_mm=0.1)
    ball = TrackedBall(300.0, 400.0, False)
    default = rules.observation(_frame(ball, None)).ball_uncertainty_mm
    assert default == Observation(0.0, 0, None, 11.0).ball_uncertainty_mm
    doubt = rules.observation(_frame(ball, None, 90.0)).ball_uncertainty_mm
    assert doubt == pytest.approx(default + 90.0)


@pytest.mark.parametrize("doubt_mm", [0.0, 3.0, 300.0])
def test_a_line_call_on_a_ball_in_identity_doubt_is_left_to_the_referee(doubt_mm):
    """FISTF 14.1, "fully crossed": a ball rolling 1.5 mm over the touchline is called out
    when the ball is known; while another candidate may be the ball, no call on it is
    confident (a near one is too close to call, a far one leaves the ball unseen)."""
    scene = build_margin_scene("line", 28, line="touchline", margin_mm=1.5)
    rules = FistfRules(scene.pitch, line_sigma_mm=0.05)
    calls: list[dict] = []
    for rec in frame_truth(scene, FPS):
        frame = replace(tracked(rules, rec, 0.05), ball_doubt_mm=doubt_mm)
        calls += [c.to_record() for c in rules.judge(frame)[1]]
    said = [c for c in calls if c["line"] in ("touchline", "goal_line")]
    confident = [c for c in said if abs(c["margin_mm"]) > c["uncertainty_mm"]]
    assert bool(confident) == (doubt_mm == 0.0)
    assert all(c["uncertainty_mm"] >= doubt_mm for c in said)


def test_the_figures_uncertainty_carries_the_parallax_of_their_rims():
    """FISTF 13.1 compares bases with the ball and the shooting line: a base's rim stands
    above the cloth, so a loose camera height widens their uncertainty too."""
    pitch = load_pitch("fistf")
    figures = [{"id": 1, "team": "home", "x_mm": 500.0, "y_mm": 0.0}]
    record = {"frame": 0, "t_s": 0.0, "ball": None, "figures": figures}
    rules = FistfRules(pitch, parallax=_parallax(0.5))
    frame = tracked(rules, record)
    rim = 0.5 * pitch.profile.base_height_mm * 500.0 / 1000.0
    assert rules.observation(frame).figure_uncertainty_mm == pytest.approx(np.hypot(1.0, 2.0 * rim))
    plain = FistfRules(pitch)
    assert plain.observation(tracked(plain, record)).figure_uncertainty_mm == 1.0  # the default


def test_the_figures_uncertainty_grows_with_the_cloth_a_pixel_covers():
    """FISTF 13.1: a base is read in whole pixels, so a camera that sees the cloth coarser (a
    wide lens, a low resolution) places it less surely; the figure where a pixel covers most
    bounds them all."""
    pitch = load_pitch("fistf")
    figures = [
        {"id": 1, "team": "home", "x_mm": 500.0, "y_mm": 0.0},
        {"id": 2, "team": "away", "x_mm": -500.0, "y_mm": 0.0},
    ]
    record = {"frame": 0, "t_s": 0.0, "ball": None, "figures": figures}

    def uncertainty(mm_per_px):
        rules = FistfRules(pitch, mm_per_px=mm_per_px)
        return rules.observation(tracked(rules, record)).figure_uncertainty_mm

    fine, coarse = (
        uncertainty(lambda xy: np.full(len(xy), 0.5)),
        uncertainty(lambda xy: np.where(xy[:, 0] > 0, 0.5, 2.5)),
    )
    assert fine == pytest.approx(np.hypot(1.0, 2.0 * BASE_SIGMA_PX * 0.5))
    assert coarse == pytest.approx(np.hypot(1.0, 2.0 * BASE_SIGMA_PX * 2.5))
    assert coarse > fine > 1.0


def _kits_far_from_their_ends() -> list[dict]:
    """Kit 0 ("home" as vision numbers it) stands in the right half, kit 1 in the left, a rod
    keeper in each goal: the kits' places point the wrong way (a clip picked up in play)."""
    return [
        {"id": 1, "team": "home", "x_mm": 400.0, "y_mm": -30.0},
        {"id": 2, "team": "home", "x_mm": 200.0, "y_mm": 150.0},
        {"id": 3, "team": "away", "x_mm": -200.0, "y_mm": 100.0},
        {"id": 4, "team": "away", "x_mm": -350.0, "y_mm": -120.0},
        {"id": 5, "team": "away", "x_mm": -585.0, "y_mm": 0.0},
        {"id": 6, "team": "home", "x_mm": 585.0, "y_mm": 0.0},
    ]


def test_names_in_hindsight_follow_the_ends_the_whole_clip_showed():
    """FISTF 13.1: kit 0 plays the ball from inside the right shooting zone at the right goal,
    so kit 0 attacks the right goal and defends the left: it is home (DESIGN.md 3). Records
    named before that play called it away; in hindsight every record names it home, and each
    rod keeper keeps the name of the goal it keeps."""
    rules = FistfRules(load_pitch("fistf"))
    encode = TracksEncoder()
    records = []
    for i in range(16):
        x = 420.0 if i < 6 else min(420.0 + 60.0 * (i - 5), 560.0)
        ball = {"x_mm": x, "y_mm": -30.0, "moving": 6 <= i and x < 560.0}
        flick = [{"figure": 1, "kind": "flick", "onset_frame": 5}] if i == 6 else []
        rec = {"frame": i, "t_s": i / 30.0, "ball": ball, "figures": _kits_far_from_their_ends()}
        named, _ = rules.judge(tracked(rules, dict(rec, contacts=flick)))
        records.append(encode(named))
    at_the_time = [[f["team"] for f in r["figures"]] for r in records]
    settled = ["home", "home", "away", "away", "home", "away"]
    assert at_the_time[0] != settled and at_the_time[-1] == settled  # the names changed
    assert rules.names_changed
    assert all([f["team"] for f in rules.in_hindsight(r)["figures"]] == settled for r in records)


def test_names_in_hindsight_are_those_of_the_time_when_the_ends_never_changed():
    rules = FistfRules(load_pitch("fistf"))
    rec = {"frame": 0, "t_s": 0.0, "ball": None, "figures": _kits_far_from_their_ends()}
    rec = TracksEncoder()(rules.judge(tracked(rules, rec))[0])
    assert not rules.names_changed
    assert rules.in_hindsight(rec) == rec
