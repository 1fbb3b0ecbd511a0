"""Learning under one lamp low over the table (``vision/model.py``): every figure casts a
shadow longer than its base is wide, and the shadows must not pass for a kit or a ball."""

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
