"""Detection on frames drawn with OpenCV: flat discs seen by a straight overhead camera.

Unit-level checks of learning and detection; the rendered-table accuracy tests live in
``test_detector_rendered.py``.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.tables import load_pitch
from vision.colour import USUAL_BALLS_BGR
from vision.config import VisionConfig
from vision.detector import Detector, FrameSizeError
from vision.model import (
    LearningError,
    _Blobs,
    _blobs,
    _cloth_roi,
    _scale_grid,
    _split_blobs,
    learn_model,
)

PITCH = load_pitch("fistf")
CAMERA = CameraModel.overhead((640, 420), 1300.0, 1450.0)
HOME_XY = np.array([[-400.0, -150.0], [-300.0, 120.0], [-150.0, 0.0], [-450.0, 200.0]])
AWAY_XY = np.array([[400.0, -150.0], [300.0, 120.0], [150.0, -60.0], [450.0, 200.0]])


def draw(ball_xy=(30.0, 40.0), home=HOME_XY, away=AWAY_XY, *, white_xy=(), seed=0):
    """Green cloth, white lines, red and blue base discs, a white ball, flat white discs of
    a ball's size at ``white_xy``; mild noise."""
    w, h = CAMERA.size_px
    img = np.full((h, w, 3), (48, 128, 38), np.uint8)
    shift = 4  # draw with sub-pixel centres
    for band in PITCH.lines:
        if band.shape == "segment":
            pts = CAMERA.project(np.array([band.a_mm, band.b_mm]))
            cv2.line(
                img,
                *[tuple(np.rint(p * 2**shift).astype(int)) for p in pts],
                color=(232, 238, 238),
                thickness=2,
                lineType=cv2.LINE_AA,
                shift=shift,
            )
    scale = 1.0 / float(CAMERA.mm_per_px([[0.0, 0.0]])[0])

    def disc(xy, r_mm, colour, z_mm=0.0):
        c = np.rint(CAMERA.project(np.array([[*xy, z_mm]]))[0] * 2**shift).astype(int)
        cv2.circle(
            img,
            center=tuple(c),
            radius=round(r_mm * scale * 2**shift),
            color=colour,
            thickness=-1,
            lineType=cv2.LINE_AA,
            shift=shift,
        )

    for xy in home:
        disc(xy, 12.0, (40, 40, 200))
    for xy in away:
        disc(xy, 12.0, (190, 90, 30))
    for xy in white_xy:
        disc(xy, 10.5, (240, 240, 240))
    if ball_xy is not None:
        # A sphere's outline: a disc around the image of its centre, one radius up.
        disc(ball_xy, 10.5 * 1300.0 / (1300.0 - 10.5), (240, 240, 240), z_mm=10.5)
    noise = np.random.default_rng(seed).normal(0, 2.0, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def model():
    return learn_model([draw()], CAMERA, PITCH)


def test_learns_team_colours_with_home_on_the_left(model):
    assert model.team_bgr[0][2] > model.team_bgr[0][0]  # home is the red team
    assert model.team_bgr[1][0] > model.team_bgr[1][2]
    assert model.ball_bgr.min() > 200


@pytest.mark.parametrize("ball_xy", [(30.0, 40.0), (-200.0, -100.0), (250.0, 160.0)])
def test_finds_ball_and_bases(model, ball_xy):
    det = Detector(model).detect(draw(ball_xy, seed=1), search_bases=True)
    assert det.n_balls >= 1
    best = det.ball_xy_mm[np.argmax(det.ball_score)]
    assert np.linalg.norm(best - ball_xy) < 1.0  # 0.44 px at this small size
    truth = np.concatenate([HOME_XY, AWAY_XY])
    d = np.linalg.norm(truth[:, None] - det.base_xy_mm[None], axis=2)
    assert det.n_bases == len(truth)
    assert np.all(d.min(axis=1) < 2.0)  # flat discs drawn at z = 0, fitted as 6 mm bases
    teams = det.base_team[d.argmin(axis=1)]
    assert list(teams) == [0] * 4 + [1] * 4


@pytest.mark.parametrize(("behind_mm", "reported"), [(35.0, False), (6.0, True)])
def test_a_base_sized_blob_deep_in_a_goal_is_no_base(model, behind_mm, reported):
    """A goal's net and bars, garbled by a low-bitrate codec, show as figure-sized blobs
    behind the goal line; no figure stands under the net (such a phantom, taken for a
    defender, made an attacker onside). One read a few millimetres behind the line may be
    a keeper standing on it, and stays."""
    blob = (600.0 + behind_mm, 20.0)
    img = draw(away=np.vstack([AWAY_XY, [blob]]), seed=5)
    det = Detector(model).detect(img, search_bases=True)
    truth = np.concatenate([HOME_XY, AWAY_XY])
    d = np.linalg.norm(truth[:, None] - det.base_xy_mm[None], axis=2)
    assert np.all(d.min(axis=1) < 2.0)
    at_blob = np.linalg.norm(det.base_xy_mm - blob, axis=1) < 10.0  # the line pulls its fit
    assert at_blob.any() == reported
    assert det.n_bases == len(truth) + reported


def test_a_base_ringed_by_its_team_under_a_ball_candidate_is_a_figure_not_the_ball(model):
    """Seen from above, a figure's shirt of the ball's colour (a white shirt on a blue base)
    can pass for the ball, the base's outline for the ball's. A base whose rim shows its team
    all round, of a team no ball colour is near, is that figure: it stays, and the candidate
    on it goes with the bases (``tracking/tracker.py``). A base of the ball's colour there,
    or one whose rim shows the ball's colour (a fit drawn onto the ball beside a figure), is
    the ball."""
    det = Detector(model)
    ball_px, ball_r = np.array([[100.0, 80.0]]), np.array([5.0])
    bases = np.array([[101.0, 80.5], [101.0, 80.5], [160.0, 80.0]])
    teams = np.array([1, 1, 0], np.int8)
    ringed = np.array([True, False, False])
    assert det._not_the_ball(bases, ball_px, ball_r, teams, ringed).tolist() == [True, False, True]
    det._set_ball_colours(np.array([model.team_bgr[1]]))  # a ball of the away team's colour
    assert det._not_the_ball(bases, ball_px, ball_r, teams, ringed).tolist() == [False, False, True]


def test_a_ball_fitted_as_a_dark_base_shows_its_shadow_not_the_team_all_round(model):
    """A small white ball fitted as a base of a dark team, a little off its centre: the
    base's rim points on the side facing the nadir fall beside the ball, on the cloth its
    shadow darkens, nearer the dark team's colour than the ball's. A shadow is no team all
    round: the fit is the ball's. A base of that team there does show it all round."""
    dark, cloth = (53, 70, 50), np.array((48, 128, 38))
    det = Detector(dataclasses.replace(model, team_bgr=np.float32([dark, (68, 196, 166)])))
    det._set_ball_colours(np.array([USUAL_BALLS_BGR["white"]]))  # the ball has shown itself
    ball = np.array([30.0, 40.0])
    fit = ball - 5.0 * ball / np.hypot(*ball)  # 5 mm off toward the nadir
    ok, teams = np.array([True]), np.array([0], np.int8)
    scale = 1.0 / float(CAMERA.mm_per_px([ball])[0])

    def scene(base_bgr=None):
        img = draw(None)
        at = np.rint(CAMERA.project(np.array([[*ball, 0.0]]))[0]).astype(int).tolist()
        cv2.circle(img, at, round(14.0 * scale), np.round(0.7 * cloth).tolist(), -1)
        if base_bgr is not None:
            base = np.rint(CAMERA.project(np.array([[*fit, 0.0]]))[0]).astype(int).tolist()
            cv2.circle(img, base, round(12.0 * scale), base_bgr, -1)
        else:
            top = np.rint(CAMERA.project(np.array([[*ball, 10.5]]))[0]).astype(int).tolist()
            cv2.circle(img, top, round(10.5 * scale), (235, 235, 235), -1)
        return cv2.GaussianBlur(img, (0, 0), 1.0)  # a lens and a codec

    assert not det._ring_teams(scene(), fit[None], ok, teams)[2][0]
    assert det._ring_teams(scene(dark), fit[None], ok, teams)[2][0]


def test_the_balls_place_showing_the_bare_cloth_is_reported_vacated(model):
    """Looked for where it rested, the ball is not there and its place shows the bare cloth:
    it was struck away, which the detections say (``Detections.ball_vacated``). A place the
    ball still covers, or one off the cloth in play, says nothing of the kind."""
    det = Detector(model)
    at = CAMERA.project(np.array([[100.0, 0.0, 10.5]]))[0]
    assert not det.detect(draw((100.0, 0.0)), ball_hint_px=at).ball_vacated
    out = det.detect(draw((250.0, 120.0)), ball_hint_px=at)
    assert out.ball_vacated and not (np.hypot(*(out.ball_xy_mm - (100.0, 0.0)).T) < 5).any()
    off = CAMERA.project(np.array([[700.0, 0.0, 10.5]]))[0]  # beyond the goal line's margin
    assert not det.detect(draw((250.0, 120.0)), ball_hint_px=off).ball_vacated


def test_window_search_follows_the_hint(model):
    det = Detector(model)
    hint = CAMERA.project(np.array([[100.0, 0.0, 10.5]]))[0]
    out = det.detect(draw((104.0, 2.0), seed=2), ball_hint_px=hint, search_bases=False)
    assert out.n_balls == 1 and not out.bases_searched
    assert np.linalg.norm(out.ball_xy_mm[0] - (104.0, 2.0)) < 1.0


def test_a_figure_followed_out_of_the_frame_is_not_searched_for(model):
    """A moving figure's predicted place may lie off the frame (a compressed clip's ghost
    followed off the edge): its window is empty and is skipped, the others still searched."""
    w, h = CAMERA.size_px
    inside = CAMERA.project(np.array([[*AWAY_XY[2], 0.0]]))[0]
    hints = np.array([[w + 500.0, h / 2], [-300.0, -300.0], inside])
    det = Detector(model)
    det.detect(draw(seed=4), search_bases=True)
    out = det.detect(draw(seed=5), base_hints_px=hints, search_bases=False)
    assert out.n_bases == 1
    assert np.linalg.norm(out.base_xy_mm[0] - AWAY_XY[2]) < 2.0


def test_empty_cloth_gives_no_ball(model):
    out = Detector(model).detect(draw(None, seed=3), search_bases=True)
    assert out.n_balls == 0


def test_frame_of_another_size_is_a_clear_error(model):
    with pytest.raises(FrameSizeError, match="calibrat"):
        Detector(model).detect(np.zeros((100, 100, 3), np.uint8))


def test_learning_without_a_ball_searches_the_usual_colours():
    """A clip may start with the ball hidden: learning still succeeds, with the usual ball
    colours as hypotheses (none near a team's: an orange ball is not searched for unseen
    beside a red team, whose bases it would take for balls)."""
    model = learn_model([draw(None)], CAMERA, PITCH)
    assert model.ball_px is None and not model.ball_named
    colours = model.ball_colours_bgr
    assert np.allclose(colours, [USUAL_BALLS_BGR["white"], USUAL_BALLS_BGR["yellow"]])
    assert Detector(model).detect(draw(None, seed=4), search_bases=True).n_balls == 0


def test_a_ball_alike_to_a_better_candidate_but_outside_its_search_is_searched_for():
    """The white shorts of a figure whose kit shows too few figures to be known as one read
    as an even pale blue blob of a ball's size, ranked above a white ball that reads a little
    small, under a light that tints it green: alike to it, yet the ball's pixels fall outside
    that colour's search.
    White stays a hypothesis and the ball is a candidate where it stands."""
    img = draw(None)
    scale = 1.0 / float(CAMERA.mm_per_px([[0.0, 0.0]])[0])
    for xy, r_mm, bgr in (
        ((-60.0, 150.0), 10.5, (209, 165, 148)),
        ((80.0, -90.0), 9.0, (200, 215, 200)),
    ):
        c = CAMERA.project(np.array([[*xy, r_mm]]))[0]
        cv2.circle(
            img,
            tuple(np.rint(c * 16).astype(int)),
            round(r_mm * scale * 16),
            bgr,
            -1,
            cv2.LINE_AA,
            4,
        )
    model = learn_model([img], CAMERA, PITCH)
    assert np.allclose(CAMERA.back_project(model.ball_px[None], 10.5)[0], (-60.0, 150.0), atol=2)
    det = Detector(model).detect(img, search_bases=True, all_balls=True)
    assert (np.hypot(*(det.ball_xy_mm - (80.0, -90.0)).T) < 1.5).any()


def test_learning_without_figures_is_a_clear_error():
    with pytest.raises(LearningError, match="home_bgr"):
        learn_model([draw(None, home=np.zeros((0, 2)), away=np.zeros((0, 2)))], CAMERA, PITCH)


@pytest.mark.parametrize("named", [((20, 110, 240),), ((235, 235, 235), (192, 48, 16))])
def test_named_ball_colours_are_the_only_hypotheses(named):
    """One named colour, or a two-tone ball's two: searched for from the first frame, and
    nothing else."""
    config = VisionConfig(ball_bgr=named if len(named) > 1 else named[0])
    model = learn_model([draw()], CAMERA, PITCH, config)
    assert model.ball_named
    assert model.ball_colours_bgr.tolist() == [list(map(float, c)) for c in named]


def test_learning_takes_a_ball_of_the_lines_colour_on_the_centre_spot():
    """A white ball on the centre spot loses its pixels over the white halfway line and spot
    and reads smaller than it is; a figure in a plain kit is as even and round as a ball and
    of about its size: the blob on the spot is the ball (FISTF 4.2: play starts there)."""
    r_eq = np.array([6.3, 6.4, 5.85, 4.4, 6.5])  # figures; the ball on the spot is the 4th
    n = len(r_eq)
    blobs = _Blobs(
        area=np.pi * r_eq**2,
        centre_px=np.zeros((n, 2)),
        ring_bgr=np.zeros((n, 3)),
        roundness=np.array([0.87, 0.83, 0.96, 0.65, 0.9]),
        uniformity=np.array([0.98, 0.91, 0.98, 1.0, 0.92]),
        labels=np.zeros((1, 1), np.int32),
    )
    on_spot = np.arange(n) == 3
    balls, figures = _split_blobs(blobs, np.full(n, 5.4), np.full(n, 5.9), on_spot)
    assert balls[0] == 3
    assert not figures[balls].any() and figures[np.setdiff1d(np.arange(n), balls)].all()


def kits_and_ball(ball_r_eq, ball_uniformity):
    """Blobs of a pale cloth's first frame: four home figures in a plain teal kit that read
    small and even, four away figures in purple, and the yellow ball (the last blob)."""
    rng = np.random.default_rng(3)
    home, away, yellow = (190.0, 189.0, 86.0), (150.0, 40.0, 130.0), (47.0, 222.0, 238.0)
    ring = np.array([home] * 4 + [away] * 4 + [yellow]) + rng.normal(0.0, 4.0, (9, 3))
    r_eq = np.array([5.17, 5.01, 5.05, 5.26, 6.43, 6.38, 6.46, 6.38, ball_r_eq])
    n = len(r_eq)
    return _Blobs(
        area=np.pi * r_eq**2,
        centre_px=np.zeros((n, 2)),
        ring_bgr=ring,
        roundness=np.array([0.74, 0.83, 0.71, 0.86, 0.98, 0.96, 0.99, 0.96, 0.8]),
        uniformity=np.array([0.99, 0.96, 1.0, 1.0, 0.85, 0.89, 0.92, 0.91, ball_uniformity]),
        labels=np.zeros((1, 1), np.int32),
    )


@pytest.mark.parametrize(
    ("ball_r_eq", "ball_uniformity", "on_spot"),
    [(5.89, 0.94, True), (5.5, 0.93, False)],
    ids=["on-the-spot-reading-large", "in-play-less-even-than-a-kit"],
)
def test_learning_tells_the_ball_from_a_plain_kit(ball_r_eq, ball_uniformity, on_spot):
    """On a pale cloth a plain kit reads small and as even as a ball. The ball on the centre
    spot (FISTF 4.2) is the ball even where its shadow on the halfway line makes it read
    larger; elsewhere colour tells: there is one ball, and a kit is on many figures."""
    blobs = kits_and_ball(ball_r_eq, ball_uniformity)
    n = len(blobs.area)
    spot = (np.arange(n) == n - 1) & on_spot
    balls, figures = _split_blobs(blobs, np.full(n, 5.4), np.full(n, 5.9), spot)
    assert balls.tolist() == [n - 1]  # the kits' figures are no hypotheses
    assert figures[:-1].all() and not figures[-1]


def small_ball_among_a_kit(clear: bool):
    """Blobs of a 960x720 frame: four red figures whose plain shirts are one colour once clear
    of their bases' rims, and a small marked orange ball whose blended outline reads as a
    second colour (the last blob); ``clear``: with the uniformity clear of the outlines."""
    rng = np.random.default_rng(5)
    noise = rng.normal(0.0, 3.0, (2, 5, 3))
    # The ball's top is alike to the kit's shirts, its rim (blended with the cloth) is not.
    top = np.array([(58.0, 77.0, 190.0)] * 4 + [(24.0, 91.0, 168.0)]) + noise[0]
    ring = np.array([(52.0, 69.0, 158.0)] * 4 + [(20.0, 84.0, 126.0)]) + noise[1]
    r_eq = np.array([8.1, 8.0, 7.8, 7.9, 7.4])
    return _Blobs(
        area=np.pi * r_eq**2,
        centre_px=np.zeros((5, 2)),
        ring_bgr=ring,
        roundness=np.array([1.0, 0.95, 1.05, 0.9, 0.98]),
        uniformity=np.array([0.63, 0.67, 0.68, 0.6, 0.81]),
        labels=np.zeros((1, 1), np.int32),
        top_bgr=top,
        clear_uniformity=np.array([0.9, 0.92, 0.95, 0.88, 0.97]) if clear else None,
    )


@pytest.mark.parametrize("clear", [False, True])
def test_a_small_ball_is_even_clear_of_its_blended_outline(clear):
    """A ball some 6 px across its radius blends with the cloth over a third of its inside:
    read there it is no more even than a figure. Clear of the blend it is one colour, and so
    are the plain shirts of a kit, but a kit is on many figures: only the blob like no other
    is a hypothesis."""
    blobs = small_ball_among_a_kit(clear)
    balls, _ = _split_blobs(blobs, np.full(5, 5.7), np.full(5, 6.5), np.zeros(5, bool))
    assert balls.tolist() == ([4] if clear else [])


def test_a_blobs_uniformity_clear_of_its_outline_ignores_the_blend():
    """A plain orange disc of a 7 px radius whose outer two pixels a codec blended with the
    green cloth: read one pixel in, a third of it is the blend; two pixels in, one colour."""
    cloth, orange = np.array([40.0, 120.0, 35.0]), np.array([24.0, 91.0, 168.0])
    yy, xx = np.mgrid[:40, :40]
    r = np.hypot(xx - 20, yy - 20)
    img = np.where((r <= 7.0)[..., None], orange, cloth)
    img = np.where(((r > 5.0) & (r <= 7.0))[..., None], 0.3 * orange + 0.7 * cloth, img)
    img = img.astype(np.uint8)
    objects = (r <= 7.0).astype(np.uint8)
    blobs = _blobs(img, objects, 6.0, np.full(img.shape, cloth, np.float32), 18.0)
    assert len(blobs.area) == 1
    assert blobs.uniformity[0] < 0.85 <= blobs.clear_uniformity[0]


@pytest.mark.parametrize("ball_hint", [False, True])
def test_base_pushed_a_little_at_a_time_is_followed(model, ball_hint):
    """A figure pushed by hand into place moves less than the coarse search step per frame:
    its fit must follow it, not stay where the base was first fitted."""
    ball_xy = (60.0, 0.0)  # the pushed base stays within the watched reach of the ball
    hint = CAMERA.project(np.array([[*ball_xy, 10.5]]))[0] if ball_hint else None
    det = Detector(model)
    away = AWAY_XY.copy()
    for step in range(13):  # 1 mm a frame, 0.44 px at this size
        away[2] = AWAY_XY[2] + (step, 0.0)
        out = det.detect(draw(ball_xy, away=away), ball_hint_px=hint, search_bases=True)
    fresh = Detector(model).detect(draw(ball_xy, away=away), search_bases=True)
    moved = np.argmin(np.linalg.norm(out.base_xy_mm - away[2], axis=1))
    truth = np.argmin(np.linalg.norm(fresh.base_xy_mm - away[2], axis=1))
    assert np.linalg.norm(out.base_xy_mm[moved] - fresh.base_xy_mm[truth]) < 0.3


def test_base_coming_near_the_ball_leaves_no_copy_where_it_stood(model):
    """Between whole looks only the cloth near the ball is compared: a figure that comes
    there from farther away is at once gone from where it stood."""
    ball_xy = (60.0, 0.0)
    hint = CAMERA.project(np.array([[*ball_xy, 10.5]]))[0]
    det = Detector(model)
    home = HOME_XY.copy()
    for _ in range(2):  # the first frame looks at the whole cloth, the next near the ball
        det.detect(draw(ball_xy, home=home), ball_hint_px=hint, search_bases=True)
    home[2] = (-40.0, 0.0)  # from (-150, 0), 210 mm from the ball, to 100 mm from it
    out = det.detect(draw(ball_xy, home=home), ball_hint_px=hint, search_bases=True)
    assert out.n_bases == len(HOME_XY) + len(AWAY_XY)
    d = np.linalg.norm(out.base_xy_mm[:, None] - np.array([HOME_XY[2], home[2]])[None], axis=2)
    assert d[:, 0].min() > 20.0 and d[:, 1].min() < 2.0


def test_base_showing_both_teams_colours_is_one_base(model):
    """Bases never overlap: a base whose part looks like the other team (a shaded rim, a
    shirt of the other colour) is one base where it stands, not two."""
    img = draw()
    xy = HOME_XY[2]
    c = CAMERA.project(np.array([[*xy, 0.0]]))[0]
    r_px = 12.0 / float(CAMERA.mm_per_px([xy])[0])
    # The lower 44 % of the disc in the away colour: two blobs of half a base each.
    x0, x1 = int(c[0] - r_px - 1), int(c[0] + r_px + 2)
    y0, y1 = int(c[1] + 0.1 * r_px), int(c[1] + r_px + 2)
    part = img[y0:y1, x0:x1]
    red = (part[..., 2] > 120) & (part[..., 0] < 120)
    part[red] = (190, 90, 30)
    out = Detector(model).detect(img, search_bases=True)
    near = np.linalg.norm(out.base_xy_mm - xy, axis=1) < 12.0
    assert near.sum() == 1
    assert np.linalg.norm(out.base_xy_mm[near][0] - xy) < 3.0  # a quarter of its radius
    assert out.n_bases == len(HOME_XY) + len(AWAY_XY)


# A k1 = -0.3 lens, calibrated from a 1280x960 view tilted by 2 degrees: some corners' rays
# fold back so far that they meet the cloth's plane behind the camera.
FOLDING = CameraModel.from_dict(
    {
        "size_px": [1280, 960],
        "camera_matrix": [[1030.153757591252, 0, 639.5], [0, 1030.153757591252, 479.5], [0, 0, 1]],
        "dist": [-0.2979290654499188, 0.0003256124251150212, 0.0, 0.0, 0.0],
        "rvec_rad": [3.1183416491557963, -0.03770258431905878, 0.03391011895073054],
        "tvec_mm": [-0.012551440445124698, -0.008534301086586255, 1142.8226710360714],
    }
)


@pytest.mark.parametrize(
    "cam",
    [
        CameraModel.overhead((800, 600), 1300.0, 1800.0, dist=(-0.3, 0.0, 0.0, 0.0, 0.0)),
        FOLDING,
    ],
)
def test_scales_of_a_strong_barrel_lens_stay_those_of_the_cloth(cam):
    """Beyond the image circle a barrel lens was fitted on, its polynomial folds back: the
    corners' back-projections are meaningless. Window and blob sizes come from the scale,
    so it must stay within what the cloth shows (not thousands of px per mm)."""
    roi = _cloth_roi(cam, PITCH)
    ys, xs = np.nonzero(roi)
    on_cloth = 1.0 / cam.mm_per_px(cam.back_project(np.stack([xs, ys], 1)[::97], 0.0))
    grid = _scale_grid(cam, 16, roi)
    assert on_cloth.min() - 1e-6 <= grid.min() and grid.max() <= on_cloth.max() + 0.02


def test_a_ball_where_the_frame_changed_is_a_candidate_before_still_blobs(model):
    """A kit of the ball's colour puts many still, ball-coloured blobs of about a ball's size
    on the cloth; only so many candidates are kept and fitted per frame. The blob where the
    frame changed (a ball rolling among them) comes first, though its size ranks it last."""
    det = Detector(model)
    area = np.pi * PITCH.profile.ball_radius_mm**2
    n = det.config.max_ball_candidates + 4
    centre = np.stack([np.arange(n + 1) * 30.0, np.full(n + 1, 100.0)], 1)
    cls = np.zeros(n + 1, np.int64)  # all BALL
    areas = np.r_[np.full(n, area), 0.5 * area]  # the moving one reads smaller (blur, codec)
    elong = np.ones(n + 1)
    fresh = np.r_[np.zeros(n, bool), True]
    rough, _ = det._ball_candidates((centre, cls, areas, elong), fresh)
    assert len(rough) == det.config.max_ball_candidates
    assert np.array_equal(rough[0], centre[-1])
    still, _ = det._ball_candidates((centre, cls, areas, elong))
    assert not (np.hypot(*(still - centre[-1]).T) < 1.0).any()  # ranked by size alone: out


def test_every_ball_like_blob_of_a_still_table_is_fitted_within_a_few_frames(model):
    """Only ``max_fresh_ball_fits`` whole-cloth candidates are fitted a frame. On a still
    table the whole-cloth pass is renewed once in ``coarse_refit_frames``, when the first
    candidates' fits are due again: the rest are fitted on the frames between, or a ball
    resting among many blobs of its colour would never be fitted at all."""
    det = Detector(model)
    per_frame = det.config.max_fresh_ball_fits
    white = [(x, y) for x in (-250.0, -100.0, 100.0, 250.0) for y in (-200.0, 200.0)]
    img = draw(white_xy=white)
    everything = np.array([*white, (30.0, 40.0)])
    frames = -(-len(everything) // per_frame)
    assert frames < det.config.coarse_refit_frames
    found = [det.detect(img, all_balls=True).ball_xy_mm for _ in range(frames)]
    assert len(found[0]) <= per_frame
    d = np.hypot(*(found[-1][:, None, :] - everything[None]).transpose(2, 0, 1))
    # Every one of them, the ball among them (the flat discs read as a ball's centre, a
    # ball's radius up: a few millimetres of parallax off).
    assert (d.min(axis=0) < PITCH.profile.ball_radius_mm).all()


def test_a_blob_whose_base_fit_failed_is_fitted_again_only_once_it_changes(model, monkeypatch):
    """A cloth's weave or a codec's blocks may show hundreds of kit-coloured specks, none a
    base: each whole-cloth pass refitted every one (a frame then cost 70 ms at 1920x1080).
    A blob whose fit failed is not fitted again while its part of the frame shows nothing
    new, and is once it does."""
    import vision.detector as detector_module

    place_px = CAMERA.project(np.array([[*HOME_XY[0], 0.0]]))[0]
    asked = []
    fit_bases = detector_module.refine_bases

    def failing_at_place(image, scene, rough, config):
        xy, r, mm, ok = fit_bases(image, scene, rough, config)
        here = np.linalg.norm(np.asarray(rough) - place_px, axis=1) < 10.0
        asked.append(int(here.sum()))
        return xy, r, mm, ok & ~here

    monkeypatch.setattr(detector_module, "refine_bases", failing_at_place)
    det = Detector(model)
    away = AWAY_XY.copy()
    for step in range(5):  # a figure far from it moves: the whole-cloth pass is renewed
        away[1] = AWAY_XY[1] + (8.0 * step, 0.0)
        out = det.detect(draw(away=away), search_bases=True)
        assert np.linalg.norm(out.base_xy_mm - away[1], axis=1).min() < 1.0
    assert sum(asked) == 1
    assert np.linalg.norm(out.base_xy_mm - HOME_XY[0], axis=1).min() > 20.0
    home = HOME_XY.copy()
    home[0] += (6.0, 0.0)
    det.detect(draw(home=home, away=away), search_bases=True)
    assert sum(asked) == 2
