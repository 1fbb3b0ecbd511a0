"""Evidence pictures: drawn where the camera model says, with the margin in words."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.tables import load_pitch
from rules.geometry import shooting_margin_mm
from rules.observation import Figures
from tablevar.evidence import (
    EDGE_BGR,
    FIGURE_BGR,
    FOOTPRINT_BGR,
    OFFSIDE_BGR,
    EvidenceConfig,
    EvidenceWriter,
    FrameRing,
    call_words,
    caption,
    circle_mm,
    decided_line,
    headline,
    jpeg_comment,
    line_edges_mm,
    make_view,
)
from tablevar.tracked import TrackedBall, TrackedFrame

SIZE = (800, 600)
CLOTH_BGR = (40, 110, 40)
# Measured edges well away from the nominal +-1.5 mm, so drawing the nominal ones would show.
MEASURED = {"touchline_top": (-2.5, 3.0), "goal_line_right": (-1.0, 2.5)}


@pytest.fixture(scope="module")
def camera() -> CameraModel:
    # Tilted, turned and with barrel distortion: the projection is not a plain scaling.
    return CameraModel.overhead(
        SIZE, 1200.0, 1500.0, dist=(-0.2, 0, 0, 0, 0), tilt_x_deg=5.0, tilt_y_deg=-3.0, yaw_deg=2.0
    )


@pytest.fixture(scope="module")
def pitch():
    return load_pitch("fistf").with_measured_edges(MEASURED)


def _call(**kw) -> dict:
    base = {
        "frame": 10,
        "t_s": 10 / 60,
        "kind": "ball_out",
        "law": "FISTF 14.1",
        "line": "touchline",
        "fully_crossed": True,
        "margin_mm": 0.8,
        "uncertainty_mm": 0.5,
        "team": "away",
        "restart": "throw_in",
        "position": {"x_mm": 100.0, "y_mm": 375.0},
        "figure": None,
        "evidence": None,
    }
    return base | kw


def _writer(tmp_path, camera, pitch, ball_xy, frame=10) -> tuple[EvidenceWriter, dict]:
    writer = EvidenceWriter(tmp_path, camera, pitch, EvidenceConfig(keep_frames=4))
    image = np.full((SIZE[1], SIZE[0], 3), CLOTH_BGR, np.uint8)
    for k in range(frame - 2, frame + 1):
        writer.add_frame(k, image)
    rec = {"frame": frame, "ball": {"x_mm": ball_xy[0], "y_mm": ball_xy[1], "moving": True}}
    writer.add_frames([TrackedFrame(frame, 0.0, TrackedBall(*ball_xy, True), Figures.empty())])
    return writer, rec


def _near_colour(picture: np.ndarray, px: np.ndarray, colour, tol: int = 60) -> np.ndarray:
    """Per point: whether some pixel within 1 px of it has (about) ``colour``."""
    out = []
    for x, y in np.round(px).astype(int):
        patch = picture[y - 1 : y + 2, x - 1 : x + 2].reshape(-1, 3).astype(int)
        out.append(bool((np.abs(patch - colour).max(axis=1) < tol).any()))
    return np.array(out)


def test_picture_is_written_with_its_relative_path_and_size(tmp_path, camera, pitch):
    ball = (100.0, 375.0 + 10.5 + 3.0 + 0.8)  # 0.8 mm past the measured outer edge
    writer, _ = _writer(tmp_path, camera, pitch, ball)
    call = _call()
    writer.attach([call])
    assert call["evidence"] == "evidence/000010-ball_out.jpg"
    picture = cv2.imread(str(tmp_path / call["evidence"]))
    cfg = writer.config
    assert picture.shape == (cfg.size_px + cfg.banner_px, cfg.size_px, 3)
    # The banner carries light text on its dark ground.
    assert (picture[cfg.size_px :] > 200).all(axis=2).sum() > 200


def test_a_live_picture_is_named_by_its_match_and_never_overwrites_one(tmp_path, camera, pitch):
    ball = (100.0, 375.0 + 10.5 + 3.0 + 0.8)
    first, _ = _writer(tmp_path, camera, pitch, ball)
    assert first.write(_call(), match_id=3) == "evidence/m3-000010-ball_out.jpg"
    assert first.write(_call(), match_id=4) == "evidence/m4-000010-ball_out.jpg"
    # A writer of another process on the same folder (the log started afresh) keeps the old.
    again, _ = _writer(tmp_path, camera, pitch, ball)
    assert again.write(_call(), match_id=3) == "evidence/m3-000010-ball_out-2.jpg"
    assert len(list((tmp_path / "evidence").glob("m3-*.jpg"))) == 2


def test_footprint_and_measured_edges_are_drawn_where_the_camera_model_says(
    tmp_path, camera, pitch
):
    ball = (100.0, 375.0 + 10.5 + 3.0 + 0.8)
    writer, _ = _writer(tmp_path, camera, pitch, ball)
    call = _call()
    writer.attach([call])
    picture = cv2.imread(str(tmp_path / call["evidence"]))
    cfg = writer.config
    view = make_view(camera, ball, cfg.crop_mm, cfg.size_px)
    rim = view.to_picture(circle_mm(ball, pitch.profile.ball_radius_mm, 24))
    assert _near_colour(picture, rim, FOOTPRINT_BGR).all()
    inside = view.to_picture(circle_mm(ball, 0.5 * pitch.profile.ball_radius_mm, 12))
    assert not _near_colour(picture, inside, FOOTPRINT_BGR).any()  # a circle, not a disc
    band = pitch.line("touchline_top")
    xs = ball[0] + np.linspace(-30.0, 30.0, 13)
    y_centre = band.a_mm[1]
    for offset, drawn in ((band.inner_mm, True), (band.outer_mm, True), (1.5, False)):
        pts = view.to_picture(np.stack([xs, np.full_like(xs, y_centre + offset)], 1))
        hits = _near_colour(picture, pts, EDGE_BGR)
        # The nominal outer edge (1.5 mm) lies 1.5 mm inside the measured one: not drawn.
        assert hits.all() if drawn else not hits.any(), offset


def test_offside_picture_rings_the_figure(tmp_path, camera, pitch):
    ball = (330.0, 20.0)
    writer, _ = _writer(tmp_path, camera, pitch, ball)
    fig = {"id": 9, "team": "home", "x_mm": 420.0, "y_mm": -40.0}
    call = _call(
        kind="offside",
        law="FISTF 13.1",
        line=None,
        margin_mm=3.2,
        uncertainty_mm=1.4,
        team="away",
        restart="free_kick",
        figure=fig,
    )
    writer.attach([call])
    assert call["evidence"] == "evidence/000010-offside-9.jpg"
    picture = cv2.imread(str(tmp_path / call["evidence"]))
    view = make_view(camera, (420.0, -40.0), writer.config.figure_crop_mm, writer.config.size_px)
    rim = view.to_picture(circle_mm((420.0, -40.0), pitch.profile.base_radius_mm, 24))
    assert _near_colour(picture, rim, FIGURE_BGR).all()
    ball_rim = view.to_picture(circle_mm(ball, pitch.profile.ball_radius_mm, 24))
    assert _near_colour(picture, ball_rim, FOOTPRINT_BGR).all()
    # The offside line (FISTF 13.1): across the pitch, 3.2 mm behind the rim's point nearest
    # the defenders' goal line (away defends +x), which is where the figure would be level.
    line_x = 420.0 + pitch.profile.base_radius_mm - 3.2
    ys = np.linspace(-90.0, 10.0, 11)
    line = view.to_picture(np.stack([np.full_like(ys, line_x), ys], 1))
    assert _near_colour(picture, line, OFFSIDE_BGR).all()
    beside = view.to_picture(np.stack([np.full_like(ys, line_x - 6.0), ys], 1))
    assert not _near_colour(picture, beside, OFFSIDE_BGR).any()
    text = jpeg_comment((tmp_path / call["evidence"]).read_bytes())
    assert text.splitlines()[0] == "OFFSIDE by 3.2 mm"
    assert text.splitlines()[1] == "Offside: Home #9 · free kick Away  FISTF 13.1"


@pytest.mark.parametrize(
    ("kind", "line", "law", "margin", "unc", "text"),
    [
        ("ball_out", "touchline", "FISTF 14.1", 0.3, 0.2, "OUT by 0.3 mm"),
        ("close_call", "touchline", "FISTF 14.1", -0.4, 0.2, "IN by 0.4 mm"),
        ("close_call", "goal_line", "FISTF 15.1", 0.1, 0.5, "too close to call: 0.1 +- 0.5 mm"),
        ("close_call", "goal_line", "FISTF 7.1", -1.3, 0.5, "NOT OVER by 1.3 mm"),
        ("goal", "goal_line", "FISTF 7.1", 12.25, 0.5, "OVER by 12.2 mm"),
        ("goal_disallowed", "shooting_line", "FISTF 7.2", -25.0, 0.5, "OUT by 25.0 mm"),
        ("close_call", "shooting_line", "FISTF 7.1", 2.0, 0.5, "IN by 2.0 mm"),
        ("offside", None, "FISTF 13.1", -0.9, 1.4, "too close to call: -0.9 +- 1.4 mm"),
        ("half_time", None, "FISTF 3.1", None, None, "HALF TIME"),
    ],
)
def test_headline_states_the_margin(kind, line, law, margin, unc, text):
    call = _call(kind=kind, line=line, law=law, margin_mm=margin, uncertainty_mm=unc)
    assert headline(call) == text
    assert caption(call)[0] == text and law in caption(call)[1]


@pytest.mark.parametrize(
    ("call", "words"),
    [
        # A goal: team is the scorer, the other team kicks off (FISTF 4.1, 7.1).
        (
            dict(kind="goal", team="home", restart="kick_off", margin_mm=5.0),
            "Goal for Home · kick-off Away",
        ),
        (
            dict(
                kind="goal_disallowed",
                team="away",
                restart="goal_kick",
                margin_mm=-25.0,
                line="shooting_line",
            ),
            "No goal · goal kick Away",
        ),
        (dict(kind="ball_out", team="away", restart="throw_in"), "Out · throw-in Away"),
        (
            dict(
                kind="offside",
                team="away",
                restart="free_kick",
                figure={"id": 8, "team": "home", "x_mm": 0.0, "y_mm": 0.0},
                margin_mm=4.0,
            ),
            "Offside: Home #8 · free kick Away",
        ),
        (
            dict(
                kind="foul",
                team="home",
                restart="penalty",
                figure={"id": 3, "team": "away", "x_mm": 0.0, "y_mm": 0.0},
                margin_mm=None,
            ),
            "Foul: Away #3 · penalty Home",
        ),
        # Too close to call (DESIGN.md 3): the margin is within its uncertainty.
        (
            dict(kind="goal", team="home", restart=None, margin_mm=0.2, uncertainty_mm=0.5),
            "Too close to call · the referee decides",
        ),
        (
            dict(kind="offside", margin_mm=-0.9, uncertainty_mm=1.4, too_close_to_call=True),
            "Too close to call · the referee decides",
        ),
        (dict(kind="half_time", team=None, restart=None, margin_mm=None, line=None), "Half time"),
    ],
)
def test_calls_are_said_in_a_players_words(call, words):
    assert call_words(_call(**call)) == words


def test_jpeg_comment_carries_the_caption(tmp_path, camera, pitch):
    ball = (-605.0 - 10.5 + 0.3, 30.0)  # over the left goal line by 0.3 - 1.5 (nominal edge)
    writer, _ = _writer(tmp_path, camera, pitch, ball)
    call = _call(kind="goal", law="FISTF 7.1", line="goal_line", margin_mm=0.3, uncertainty_mm=0.2)
    writer.attach([call])
    text = jpeg_comment((tmp_path / call["evidence"]).read_bytes())
    assert text.splitlines() == caption(call)
    assert cv2.imread(str(tmp_path / call["evidence"])) is not None  # still a valid JPEG


def test_ring_is_bounded_and_falls_back_to_the_nearest_kept_frame(tmp_path, camera, pitch):
    ring = FrameRing(3)
    frames = [np.full((4, 4, 3), k, np.uint8) for k in range(6)]
    for k, img in enumerate(frames):
        ring.add(k, img)
    assert len(ring) == 3
    assert ring.nearest(4)[0] == 4
    assert ring.nearest(1)[0] == 3  # gone: the oldest kept one
    assert FrameRing(2).nearest(0) is None
    writer = EvidenceWriter(tmp_path, camera, pitch, EvidenceConfig(keep_frames=2))
    call = _call()
    writer.attach([call])
    assert call["evidence"] is None  # no frame at all: no picture, no crash


def test_two_calls_of_one_frame_get_two_files(tmp_path, camera, pitch):
    writer, _ = _writer(tmp_path, camera, pitch, (0.0, 0.0))
    calls = [_call(kind="set_piece_fault", law="FISTF 4.2", margin_mm=None) for _ in range(2)]
    writer.attach(calls)
    assert calls[0]["evidence"] != calls[1]["evidence"]
    assert all((tmp_path / c["evidence"]).is_file() for c in calls)


@pytest.mark.parametrize(
    ("kept", "shown"),
    [(40, "shot at frame 5"), (8, None)],  # the shot's frame kept, or gone from the ring
)
def test_a_goal_disallowed_for_its_shot_shows_where_the_shot_was_taken(
    tmp_path, camera, pitch, kept, shown
):
    """FISTF 7.2: a shot from outside the shooting zone scores no goal; the picture shows the
    ball where it was struck, against the shooting line, when that frame is still kept."""
    writer = EvidenceWriter(tmp_path, camera, pitch, EvidenceConfig(keep_frames=kept))
    image = np.full((SIZE[1], SIZE[0], 3), CLOTH_BGR, np.uint8)
    shot = (262.0, 40.0)  # the right shooting line's centre is at x = 300
    path = [shot] * 6 + [(262.0 + 40.0 * k, 40.0) for k in range(1, 10)]  # struck after frame 5
    for k, (x, y) in enumerate(path):
        writer.add_frame(k, image)
        writer.add_frames([TrackedFrame(k, 0.0, TrackedBall(x, y, k > 5), Figures.empty())])
    margin = float(
        shooting_margin_mm(pitch, "right", np.array([shot]), pitch.profile.ball_radius_mm)[0]
    )
    call = _call(
        frame=14, kind="goal_disallowed", law="FISTF 7.2", line="shooting_line",
        margin_mm=margin, uncertainty_mm=0.5, team="away", restart="goal_kick",
    )  # fmt: skip
    assert writer.shot_at(call) == (5, shot)
    writer.attach([call])
    text = jpeg_comment((tmp_path / call["evidence"]).read_bytes()).splitlines()
    picture = cv2.imread(str(tmp_path / call["evidence"]))
    if shown is None:  # the goal's own frame, as for any call
        assert "shot at" not in text[2]
        return
    assert text[2].endswith(shown) and text[3] == "shown: frame 5"
    # Wide enough to show the line decided on as well as the ball.
    side = max(writer.config.crop_mm, 2.6 * (abs(margin) + pitch.profile.ball_radius_mm))
    view = make_view(camera, shot, side, writer.config.size_px)
    rim = view.to_picture(circle_mm(shot, pitch.profile.ball_radius_mm, 24))
    assert _near_colour(picture, rim, FOOTPRINT_BGR).all()
    band = decided_line(pitch, "shooting_line", shot)
    assert band.a_mm[0] > 0  # the right one
    for edge in line_edges_mm(band):  # both measured edges, beside the ball
        near = edge[np.abs(edge[:, 1] - 70.0) <= 10.0]
        assert _near_colour(picture, view.to_picture(near), EDGE_BGR).all()
