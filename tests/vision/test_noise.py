"""The foreground threshold kept true to the frames (``vision.noise.NoiseWatch``): a clip
grainier than the frame learnt from (an encoder's smooth first frames) raises it; a moment's
change does not; it never falls under the learnt one."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.tables import load_pitch
from simulator.look import Look
from simulator.render import Renderer
from simulator.scene import Figures, SceneFrame
from vision.config import VisionConfig
from vision.detector import RENEW_FRAMES, Detector
from vision.model import learn_model
from vision.noise import HOLD_LOOKS, SPREAD_OF_ONE, NoiseWatch

LEARNT = 18.0
SIGMAS = VisionConfig().foreground_sigmas
CLOTH = np.full((120, 160, 3), (40, 120, 60), np.uint8)
ROI = np.ones(CLOTH.shape[:2], bool)


def grainy(sigma: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.clip(CLOTH + rng.normal(0.0, sigma, CLOTH.shape), 0, 255).astype(np.uint8)


def test_frames_grainier_than_the_one_learnt_from_raise_the_threshold():
    watch = NoiseWatch(ROI, LEARNT, SIGMAS)
    asked = [watch.look(grainy(8.0, seed), CLOTH, LEARNT) for seed in range(HOLD_LOOKS)]
    assert asked[:-1] == [None] * (HOLD_LOOKS - 1)  # one look is no trend
    assert asked[-1] == pytest.approx(SIGMAS * SPREAD_OF_ONE * 8.0, rel=0.1)


def test_a_moment_of_change_moves_nothing():
    """A hand over the cloth, a lamp's flicker: one grainy look among quiet ones."""
    watch = NoiseWatch(ROI, LEARNT, SIGMAS)
    for seed in range(6):
        image = grainy(12.0, seed) if seed == 3 else grainy(1.0, seed)
        assert watch.look(image, CLOTH, LEARNT) is None


def test_objects_on_the_cloth_are_no_noise():
    """A fifth of the cloth covered by objects of other colours: the spread stays the
    cloth's."""
    image = grainy(1.0)
    image[:, :32] = (250, 250, 250)
    watch = NoiseWatch(ROI, LEARNT, SIGMAS)
    assert all(watch.look(image, CLOTH, LEARNT) is None for _ in range(2 * HOLD_LOOKS))


def test_the_threshold_comes_back_down_to_the_learnt_one_and_never_under_it():
    watch = NoiseWatch(ROI, LEARNT, SIGMAS)
    raised = None
    for seed in range(HOLD_LOOKS):
        raised = watch.look(grainy(8.0, seed), CLOTH, LEARNT)
    assert raised is not None and raised > 1.25 * LEARNT
    asked = [watch.look(grainy(0.5, seed), CLOTH, raised) for seed in range(HOLD_LOOKS)]
    assert asked[-1] == LEARNT
    assert watch.look(grainy(0.5, 9), CLOTH, LEARNT) is None


PITCH = load_pitch("fistf")
CAMERA = CameraModel.overhead((800, 600), 1000.0, 2000.0)  # a ball some 4 px across


def scene(ball_xy) -> SceneFrame:
    xy = np.array([(-300.0, -150.0), (-300.0, 150.0), (300.0, -150.0), (300.0, 150.0)])
    team = np.array([0, 0, 1, 1], np.int8)
    figs = Figures(np.arange(4), team, np.zeros(4, bool), xy, np.zeros((4, 2)))
    return SceneFrame(0.0, np.asarray(ball_xy, float), np.zeros(2), figs, ())


def test_the_detector_finds_the_ball_once_the_threshold_follows_the_grain():
    """A clip whose first frame is smooth (an encoder's first frames at a low bitrate) and
    whose next ones show the cloth's weave and the sensor's grain: the threshold learnt from
    the smooth frame lets much of the cloth through as foreground, and a small orange ball
    joins the grain around it in a blob that is no ball. Once the threshold follows the
    grain, the ball is found where it lies (before, never)."""
    look = dataclasses.replace(Look(), noise_sigma=8.0, cloth_texture=0.1, ball_bgr=(40, 140, 240))
    renderer = Renderer(CAMERA, PITCH, look, seed=3)
    ball = np.array([-80.0, 60.0])
    first = cv2.GaussianBlur(renderer.render(scene(ball)), (0, 0), 2.0)
    model = learn_model([first], CAMERA, PITCH, VisionConfig())
    detector = Detector(model)
    frames = [renderer.render(scene(ball)) for _ in range(4)]
    off_mm = []
    for k in range((HOLD_LOOKS + 1) * RENEW_FRAMES):
        det = detector.detect(frames[k % len(frames)], all_balls=True)
        off_mm.append(min((np.hypot(*(xy - ball)) for xy in det.ball_xy_mm), default=np.inf))
    assert detector.model.threshold > 1.25 * model.threshold
    assert max(off_mm[-RENEW_FRAMES:]) < 1.0
