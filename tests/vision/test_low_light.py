"""Learning and finding the ball under one lamp low over the table (``vision/model.py``,
``vision/detector.py``): every figure casts a shadow longer than its base is wide, and the
shadows must not pass for a kit or a ball; a ball's dim half may be darker than the cloth."""

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
from vision.colour import darkened
from vision.detector import Detector
from vision.model import learn_model

PITCH = load_pitch("fistf")
CAMERA = CameraModel.overhead((1024, 768), 1300.0, 1450.0)
XY = np.array(
    [[-300, -150], [-300, 150], [-450, 0], [-150, 0], [300, -150], [300, 150], [450, 0], [150, 0]],
    float,
)
TEAM = np.array([0, 0, 0, 0, 1, 1, 1, 1], np.int8)
# Orange and blue kits on an olive cloth.
LOW_LIGHT = dataclasses.replace(
    Look(),
    cloth_bgr=(35, 127, 129),
    lights=((84.0, 18.0, 1.0),),
    shadow=0.5,
    home_base_bgr=(38, 142, 221),
    home_shirt_bgr=(15, 135, 237),
    away_base_bgr=(190, 90, 30),
    ball_bgr=(21, 152, 238),
)


def image(texture: float, ambient: float) -> np.ndarray:
    n = len(XY)
    figs = Figures(np.arange(n), TEAM, np.zeros(n, bool), XY, np.zeros((n, 2)))
    look = dataclasses.replace(LOW_LIGHT, cloth_texture=texture, ambient=ambient)
    return Renderer(CAMERA, PITCH, look, seed=5).render(
        SceneFrame(0.0, np.array([60.0, 200.0]), np.zeros(2), figs, ())
    )


@pytest.mark.parametrize("texture", [0.05, 0.14])
@pytest.mark.parametrize("ambient", [0.4, 0.19])
def test_the_kits_are_learnt_from_their_bases_not_their_shadows(texture, ambient):
    """A base's shadow joins its blob: the rim colour is read where it is lit, so the blue
    team is learnt blue and the orange one orange (read over the shadows as well, the blue
    came out a dull grey-green, nearer the shadows than its bases). No shadow standing apart
    is taken for a ball's colour."""
    frame = image(texture, ambient)
    model = learn_model([frame], CAMERA, PITCH)
    home, away = model.team_bgr.astype(float)
    assert home[2] > home[1] > home[0]  # orange: red over green over blue
    assert away[0] > max(away[1], away[2])  # blue
    cloth = np.median(frame[model.roi], axis=0).astype(np.float32)
    colours = model.ball_colours_bgr
    assert not darkened(colours, np.broadcast_to(cloth, colours.shape), model.threshold).any()


def with_cloth_patches(frame: np.ndarray, shade: float) -> np.ndarray:
    """``frame`` with a dozen figure-sized patches of its cloth at ``shade`` times its
    brightness, standing apart from the figures: shadows of what stands off the cloth under
    a lamp low over the table (``shade`` < 1), or pools of light and a codec's coarse blocks
    (> 1)."""
    out = frame.copy()
    r_mm = PITCH.profile.base_radius_mm
    for x_mm in np.linspace(-520.0, 520.0, 6):
        for y_mm in (-270.0, 270.0):
            centre = CAMERA.project(np.array([[x_mm, y_mm, 0.0]]))[0]
            r_px = r_mm * float(
                CAMERA.project(np.array([[x_mm + 1.0, y_mm, 0.0]]))[0, 0] - centre[0]
            )
            mask = np.zeros(frame.shape[:2], np.uint8)
            axes = (round(2.0 * r_px), round(0.8 * r_px))
            cv2.ellipse(mask, tuple(round(float(v)) for v in centre), axes, 30.0, 0, 360, 1, -1)
            patch = out[mask > 0].astype(np.float32) * shade
            out[mask > 0] = np.clip(np.rint(patch), 0, 255).astype(np.uint8)
    return out


@pytest.mark.parametrize("shade", [0.7, 1.25])
def test_patches_of_the_cloth_are_no_kit(shade):
    """A figure's shadow may stand apart from its base under a low lamp; pools of light and
    a codec's coarse blocks brighten the cloth in patches. More of them than figures, read
    as figures, they made a team of the cloth's colour (an orange kit on an olive cloth was
    learnt the olive of its shadows; here the blue kit came out olive or grey). A blob that
    is the cloth under it at another brightness, within a couple of thresholds of its
    colour, is no figure."""
    n = len(XY)
    figs = Figures(np.arange(n), TEAM, np.zeros(n, bool), XY, np.zeros((n, 2)))
    frame = Renderer(CAMERA, PITCH, Look(), seed=5).render(
        SceneFrame(0.0, np.array([60.0, 200.0]), np.zeros(2), figs, ())
    )
    model = learn_model([with_cloth_patches(frame, shade)], CAMERA, PITCH)
    home, away = model.team_bgr.astype(float)
    assert home[2] > 3.0 * max(home[0], home[1])  # red
    assert away[0] > 1.5 * max(away[1], away[2])  # blue


def test_the_same_frame_gives_the_same_teams_every_time():
    """The teams are the tightest split of the figures' colours, found without chance:
    randomly seeded k-means (OpenCV's, five attempts) split this frame's figures the loose way
    for about one state in a hundred of OpenCV's random generator, such as these."""
    frame = image(0.05, 0.4)
    teams = []
    for seed in (0, 58, 66, 229):
        cv2.setRNGSeed(seed)
        teams.append(learn_model([frame], CAMERA, PITCH).team_bgr)
    assert all(np.array_equal(t, teams[0]) for t in teams)


# A white ball on the centre spot, seen at 1280x960 under one lamp low over the table and
# little else (ambient 0.08, a cold tint): its dim half is darker than the cloth.
CAMERA_960 = CameraModel.overhead((1280, 960), 1300.0, 1450.0)


def one_low_lamp(azimuth_deg: float) -> np.ndarray:
    """The white ball on the centre spot under one lamp 15 degrees over the table."""
    n = len(XY)
    figs = Figures(np.arange(n), TEAM, np.zeros(n, bool), XY, np.zeros((n, 2)))
    look = dataclasses.replace(
        LOW_LIGHT,
        cloth_bgr=(48, 128, 38),
        ball_bgr=(240, 240, 240),
        home_base_bgr=(40, 40, 200),
        home_shirt_bgr=(40, 40, 200),
        lights=((azimuth_deg, 15.0, 1.0),),
        ambient=0.08,
        light_tint=(0.71, 0.97, 1.25),
    )
    return Renderer(CAMERA_960, PITCH, look, seed=7).render(
        SceneFrame(0.0, np.zeros(2), np.zeros(2), figs, ())
    )


def test_a_white_ball_half_in_the_dark_is_found():
    """A fit from the ball's ball-coloured blob, the lit half, reads the end of the light as
    its outline there and settles on the lit half, too little of a ball's outline showing,
    and fails: no ball. Started again from around there (``vision.detector.RESTARTS``) it
    meets the dim half's outline against the cloth. (Placed by its edges alone, as a first
    search does, it is found within 2 mm; its track places it by its whole patch once it is
    seen at rest.)"""
    frame = one_low_lamp(240.0)
    detector = Detector(learn_model([frame], CAMERA_960, PITCH))
    found = detector.detect(frame, all_balls=True).ball_xy_mm
    assert len(found) >= 1
    assert np.hypot(*found.T).min() < 2.0
