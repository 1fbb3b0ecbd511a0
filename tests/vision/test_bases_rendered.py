"""Bases on rendered tables whose kits are hard to tell from the cloth, the lines, the ball or
each other: every figure found where it stands, none invented, each in its own team."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.tables import load_pitch
from simulator.look import Look
from simulator.render import Renderer
from simulator.scene import Figures, SceneFrame
from vision.detector import Detector
from vision.model import learn_model

PITCH = load_pitch("fistf")
CAMERA = CameraModel.overhead((1024, 768), 1300.0, 1450.0)
# Six figures a side, goalkeepers included; some stand on a line (halfway, touchline, the
# shooting line's end) or beside the centre circle, where a pale kit meets the paint.
XY = np.array(
    [
        [-300.0, -150.0],
        [-300.0, 150.0],
        [-450.0, 0.0],
        [0.0, 200.0],
        [-150.0, 373.5],
        [-567.0, 0.0],
        [300.0, -150.0],
        [300.0, 150.0],
        [450.0, 0.0],
        [100.0, -300.0],
        [0.0, -60.0],
        [567.0, 10.0],
    ]
)
TEAM = np.array([0] * 6 + [1] * 6, np.int8)
KEEPER = np.isin(np.arange(12), [5, 11])
ORANGE_BALL = (30, 140, 245)


@pytest.mark.parametrize(
    "kits",
    [
        # The second team close to the cloth: dark green, navy on a dark cloth, black.
        dict(away_base_bgr=(25, 80, 20), away_shirt_bgr=(25, 80, 20)),
        dict(cloth_bgr=(40, 110, 30), away_base_bgr=(60, 25, 15), away_shirt_bgr=(60, 25, 15)),
        dict(away_base_bgr=(30, 30, 30), away_shirt_bgr=(40, 40, 40)),
        # White kits on white lines, with a white ball and with an orange one.
        dict(home_base_bgr=(235, 235, 235), home_shirt_bgr=(235, 235, 235)),
        dict(home_base_bgr=(232, 238, 238), home_shirt_bgr=(232, 238, 238), ball_bgr=ORANGE_BALL),
        # Two-colour kits: a base of one colour under a shirt of another (the other team's).
        dict(
            home_base_bgr=(40, 40, 200),
            home_shirt_bgr=(240, 240, 240),
            away_base_bgr=(240, 240, 240),
            away_shirt_bgr=(30, 30, 30),
            ball_bgr=ORANGE_BALL,
        ),
        # Two near team colours, and an orange ball beside red kits.
        dict(away_base_bgr=(120, 40, 110), away_shirt_bgr=(120, 40, 110)),
        dict(ball_bgr=ORANGE_BALL),
    ],
    ids=[
        "dark-green",
        "navy-dark-cloth",
        "black",
        "white",
        "line-white",
        "two-colour",
        "red-claret",
        "orange-ball",
    ],
)
def test_every_figure_found_once_in_its_team(kits):
    look = dataclasses.replace(Look(), **kits)
    renderer = Renderer(CAMERA, PITCH, look, seed=5, exposure_s=1 / 120)
    figs = Figures(np.arange(len(XY)), TEAM, KEEPER, XY, np.zeros((len(XY), 2)))
    image = renderer.render(SceneFrame(0.0, np.zeros(2), np.zeros(2), figs, ()))
    out = Detector(learn_model([image], CAMERA, PITCH)).detect(image, search_bases=True)
    d = np.linalg.norm(XY[:, None] - out.base_xy_mm[None], axis=2)
    nearest = d.argmin(axis=1)
    assert out.n_bases == len(XY) and len(set(nearest.tolist())) == len(XY)
    assert d.min(axis=1).max() < 1.5
    # Which colour is home is a guess from where the bases stand; each team is one colour.
    read = out.base_team[nearest]
    assert read.tolist() in (TEAM.tolist(), (1 - TEAM).tolist())
    assert out.n_balls == 1 and np.hypot(*out.ball_xy_mm[0]) < 1.0
