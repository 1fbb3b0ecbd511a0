"""Figure tracks from the real detector on rendered frames: hands over the table."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.tables import load_pitch
from simulator.look import Look
from simulator.render import Renderer
from simulator.scene import Figures, Finger, SceneFrame
from tracking.figures import FigureTracker
from vision.detector import Detector
from vision.model import learn_model

PITCH = load_pitch("fistf")
CAMERA = CameraModel.overhead((1024, 768), 1300.0, 1450.0)
FPS = 60.0
XY = np.array([[-300.0, -150.0], [-300.0, 150.0], [-150.0, 0.0], [300.0, -150.0], [300.0, 150.0]])
TEAM = np.array([0, 0, 0, 1, 1], np.int8)


@pytest.mark.parametrize(
    "kits",
    [{}, dict(home_base_bgr=(120, 160, 215), home_shirt_bgr=(120, 160, 215))],
    ids=["default", "skin-coloured-kit"],
)
def test_a_hand_over_the_table_neither_breaks_nor_invents_figures(kits):
    """A finger over a figure for a fifth of a second, then over the open cloth: every figure
    keeps its id, and no figure is reported where none stands."""
    renderer = Renderer(CAMERA, PITCH, dataclasses.replace(Look(), **kits), seed=3)
    figs = Figures(np.arange(len(XY)), TEAM, np.zeros(len(XY), bool), XY, np.zeros((len(XY), 2)))
    clear = renderer.render(SceneFrame(0.0, np.zeros(2), np.zeros(2), figs, ()))
    detector, tracker = Detector(learn_model([clear], CAMERA, PITCH)), FigureTracker(pitch=PITCH)
    first = None
    for i in range(30):
        tip = (-300.0, -150.0, 20.0) if i < 15 else (-200.0, 60.0, 12.0)
        finger = Finger(tip_mm=tip, root_mm=(tip[0] - 50.0, -500.0, 120.0))
        image = clear
        if 3 <= i < 27:
            image = renderer.render(SceneFrame(i / FPS, np.zeros(2), np.zeros(2), figs, (finger,)))
        tracks = tracker.update(detector.detect(image, search_bases=True), i / FPS)
        first = tracks if first is None else first
        d = np.linalg.norm(tracks.xy_mm[:, None] - XY[None], axis=2)
        assert tracks.id.tolist() == first.id.tolist()
        assert d.min(axis=1).max() < 2.0
