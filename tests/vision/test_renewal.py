"""The learnt background kept true to the table (``vision.renewal.BackgroundRenewal``): what
changed on the table itself and stood still is taken in; a ball, a figure or a hand never is,
however long it rests."""

from __future__ import annotations

import numpy as np

from calibration.camera import CameraModel
from calibration.tables import load_pitch
from simulator.look import Look
from simulator.render import Renderer
from simulator.scene import Figures, SceneFrame
from vision.config import VisionConfig
from vision.detector import RENEW_FRAMES, Detector
from vision.model import learn_model
from vision.renewal import BackgroundRenewal

PITCH = load_pitch("fistf")
CAMERA = CameraModel.overhead((800, 600), 1000.0, 1450.0)
HOME_XY = [(-300.0, -150.0), (-300.0, 150.0), (-150.0, 0.0)]
AWAY_XY = [(300.0, -150.0), (300.0, 150.0), (150.0, 0.0)]
R = PITCH.profile.ball_radius_mm
BALL_MM = (-60.0, -120.0)  # arrives after learning and rests
BLOCK_MM = (60.0, 90.0)  # a coarse block of cloth, between lines
EDGE_MM = (0.0, 0.5 * PITCH.profile.width_mm + 70.0)  # the cloth beyond a touchline


def frame(ball_xy) -> SceneFrame:
    xy = np.array([*HOME_XY, *AWAY_XY], float)
    n = len(xy)
    team = np.array([0] * 3 + [1] * 3, np.int8)
    figs = Figures(np.arange(n), team, np.zeros(n, bool), xy, np.zeros((n, 2)))
    ball = None if ball_xy is None else np.asarray(ball_xy, float)
    return SceneFrame(0.0, ball, np.zeros(2), figs, ())


def box(xy_mm, half_px: int):
    """Slices of the ``2 half_px`` square of pixels round the ground point ``xy_mm``."""
    x, y = np.rint(CAMERA.project(np.array([[*xy_mm, 0.0]]))[0]).astype(int)
    return slice(y - half_px, y + half_px), slice(x - half_px, x + half_px)


def coarse(image, *places):
    """``image`` with a 48 px block at each ground point brightened to one flat colour: a
    first frame at a low bitrate, blocks that later frames sharpen (larger than a figure with
    its shadow: learning keeps it as the background)."""
    out = image.copy()
    for xy in places:
        b = box(xy, 24)
        out[b] = np.clip(out[b].reshape(-1, 3).mean(axis=0) + 40.0, 0, 255).astype(np.uint8)
    return out


def setup():
    renderer = Renderer(CAMERA, PITCH, Look(), seed=5)
    sharp = renderer.render(frame(None))
    model = learn_model([coarse(sharp, BLOCK_MM, EDGE_MM)], CAMERA, PITCH, VisionConfig())
    return renderer, model


def taken_in(taken, image, model):
    assert taken is not None
    background = model.background.copy()
    background[taken] = image[taken]
    return background


def stale_share(background, image, xy_mm, threshold) -> float:
    """The share of the pixels round ``xy_mm`` where ``background`` differs from ``image`` as
    the foreground does: a few strewn ones (the cloth's noise at its worst) are no group."""
    inner = box(xy_mm, 12)
    return float((np.abs(background[inner].astype(int) - image[inner]) > threshold).any(2).mean())


def ball_disc(xy_mm):
    centre, rim = CAMERA.project(np.array([[*xy_mm, R], [xy_mm[0] + R, xy_mm[1], R]]))
    ys, xs = np.mgrid[: CAMERA.size_px[1], : CAMERA.size_px[0]]
    return np.hypot(xs - centre[0], ys - centre[1]) < np.hypot(*(rim - centre))


def test_sharpened_cloth_is_taken_in_and_a_ball_resting_since_is_not():
    renderer, model = setup()
    image = renderer.render(frame(BALL_MM))
    renewal = BackgroundRenewal(model, step=2)
    assert renewal.renew(image, model) is None  # nothing to tell still from moving yet
    background = taken_in(renewal.renew(image, model), image, model)
    for place in (BLOCK_MM, EDGE_MM):
        assert stale_share(background, image, place, model.threshold) < 0.02, place
    ball = ball_disc(BALL_MM)
    assert np.array_equal(background[ball], model.background[ball])
    assert np.abs(background[ball].astype(int) - image[ball]).max() > 60  # it was different


def test_what_moved_since_the_last_look_is_not_taken_in():
    renderer, model = setup()
    image = renderer.render(frame(None))
    renewal = BackgroundRenewal(model, step=2)
    renewal.renew(coarse(image, BLOCK_MM), model)  # the block still there at the last look
    background = taken_in(renewal.renew(image, model), image, model)  # the edge stood still
    inner = box(BLOCK_MM, 12)
    assert np.array_equal(background[inner], model.background[inner])


def test_the_detector_keeps_a_ball_at_rest_through_renewals():
    """Frames of a ball resting where it arrived after learning: the background is renewed
    (the coarse blocks go) and the ball is found on every frame, where it is."""
    renderer, model = setup()
    detector = Detector(model)
    image = renderer.render(frame(BALL_MM))
    for _ in range(3 * RENEW_FRAMES):
        found = detector.detect(image)
        assert len(found.ball_xy_mm) >= 1
        assert np.hypot(*(found.ball_xy_mm[0] - BALL_MM)) < 1.0
    assert stale_share(detector.model.background, image, BLOCK_MM, model.threshold) < 0.02


def test_the_rim_and_shadow_of_a_ball_at_rest_are_not_taken_in():
    """Where a resting ball's blurred rim and its contact shadow meet the cloth, some pixels
    differ from the background and yet the cloth explains them. Taken in, they would be the
    background the ball's outline is read against (its edges are read past its shadow, by the
    cloth's colour): a small group of change that shows an object is all that object's."""
    renderer, model = setup()
    image = renderer.render(frame(BALL_MM))
    renewal = BackgroundRenewal(model, step=2)
    renewal.renew(image, model)
    background = taken_in(renewal.renew(image, model), image, model)
    centre = CAMERA.project(np.array([[*BALL_MM, R]]))[0]
    ys, xs = np.mgrid[: CAMERA.size_px[1], : CAMERA.size_px[0]]
    r_px = np.count_nonzero(ball_disc(BALL_MM)) ** 0.5 / np.sqrt(np.pi)
    near = np.hypot(xs - centre[0], ys - centre[1]) < 1.6 * r_px
    assert np.array_equal(background[near], model.background[near])
