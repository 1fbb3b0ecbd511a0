"""The colour of a ball seen rolling (``vision.model.moving_ball_colour``), read from rendered
frames: from the ball's own blob, never from the cloth or from what stands beside it."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.tables import load_pitch
from simulator.look import Look
from simulator.render import Renderer
from simulator.scene import Figures, SceneFrame
from vision.colour import ball_coloured, shaded_distance
from vision.config import VisionConfig
from vision.model import learn_model, moving_ball_colour

PITCH = load_pitch("fistf")
CAMERA = CameraModel.overhead((800, 600), 1000.0, 1450.0)
RED_BALL, RED_KIT, BLUE_KIT = (35, 35, 215), (40, 40, 200), (190, 90, 30)
LOOK = Look(
    ball_bgr=RED_BALL, home_base_bgr=RED_KIT, home_shirt_bgr=RED_KIT, away_base_bgr=BLUE_KIT
)
HOME_XY = [(-300.0, -150.0), (-300.0, 150.0), (-150.0, 0.0)]
AWAY_XY = [(300.0, -150.0), (300.0, 150.0), (150.0, 0.0)]
R = PITCH.profile.ball_radius_mm
CONFIG = VisionConfig()


def frame(ball_xy, extra_away_xy=()) -> SceneFrame:
    xy = np.array([*HOME_XY, *AWAY_XY, *extra_away_xy], float)
    team = np.array([0] * 3 + [1] * (3 + len(extra_away_xy)), np.int8)
    n = len(xy)
    figs = Figures(np.arange(n), team, np.zeros(n, bool), xy, np.zeros((n, 2)))
    ball = None if ball_xy is None else np.asarray(ball_xy, float)
    return SceneFrame(0.0, ball, np.zeros(2), figs, ())


def setup():
    renderer = Renderer(CAMERA, PITCH, LOOK, seed=3)
    model = learn_model([renderer.render(frame(None))], CAMERA, PITCH, VisionConfig())
    return renderer, model


NONE = np.zeros((0, 3))  # no hypotheses


def rolled(image, before, model, known=NONE):
    """``moving_ball_colour`` on full-resolution frames with no or ``known`` hypotheses."""
    return moving_ball_colour(image, before, model, known, 1, CONFIG)


def colour_distance(a, b) -> float:
    return float(np.linalg.norm(np.asarray(a, float) - np.asarray(b, float)))


def test_the_cloth_where_the_background_still_holds_a_ball_is_no_ball_colour():
    """The background was learnt while a ball stood at P (a ball rolling in the first frame is
    not always told from the cloth); it has since gone. The cloth at P differs from the
    background and arrived since the earlier frame, ball-sized and of one colour: the cloth's
    own, so no ball's colour is learnt from it."""
    renderer, model = setup()
    p_mm = (-60.0, -220.0)
    before, gone = renderer.render(frame(p_mm)), renderer.render(frame(None))
    held = model.background.copy()  # the ball's disc, not its shadow, held in it
    centre, rim = CAMERA.project(np.array([[*p_mm, R], [p_mm[0] + R, p_mm[1], R]]))
    ys, xs = np.mgrid[: held.shape[0], : held.shape[1]]
    disc = np.hypot(xs - centre[0], ys - centre[1]) < np.hypot(*(rim - centre))
    held[disc] = before[disc]
    model = dataclasses.replace(model, background=held)
    assert rolled(gone, before, model) is None


def test_a_ball_rolling_past_a_figure_is_read_from_its_own_blob():
    """A red ball rolls to rest a few mm beside a blue figure: the window round the ball holds
    part of the figure too, and the ball's colour is read from the ball's blob alone."""
    renderer, model = setup()
    q_mm = (60.0, -120.0)
    beside = [(q_mm[0] + 26.0, q_mm[1])]  # ball and base radii, and a few mm between
    before = renderer.render(frame(None, beside))
    image = renderer.render(frame(q_mm, beside))
    colour = rolled(image, before, model)
    assert colour is not None
    assert colour_distance(colour, RED_BALL) < colour_distance(colour, BLUE_KIT), colour


def test_a_frame_that_changed_as_a_whole_teaches_no_colour():
    """One ball-sized patch of one colour arrived on the cloth: a ball rolled there, and its
    colour is learnt. A dozen such patches at once (a codec's sharp frame after blocky
    ones brings back the paint and the cloth's texture everywhere) are no one ball: no
    colour is learnt from them."""
    renderer, model = setup()
    before = renderer.render(frame(None))
    centres = CAMERA.project(
        np.array([[x, y, R] for x in (-200.0, -80.0, 40.0, 220.0) for y in (-250.0, -60.0, 200.0)])
    )
    centre, rim = CAMERA.project(np.array([[0.0, 0.0, R], [R, 0.0, R]]))
    r_px = round(float(np.hypot(*(rim - centre))))
    yellow = (40, 220, 240)

    def with_patches(n):
        image = before.copy()
        for c in centres[:n]:
            cv2.circle(image, tuple(int(v) for v in np.rint(c)), r_px, yellow, -1)
        return image

    one = rolled(with_patches(1), before, model)
    assert one is not None and colour_distance(one, yellow) < 20.0, one
    assert rolled(with_patches(len(centres)), before, model) is None


def test_a_figure_in_a_plain_kit_run_up_to_the_ball_is_no_rolling_ball():
    """A figure in a plain red kit (base, shirt and hair all of it) is flicked up to the
    ball: its blob arrives on the cloth as one colour, about a ball's size, but as wide as its
    base, wider than a ball: no colour is learnt from it (taken for the ball's, every figure
    of that team became a ball). The red ball itself, arriving at the same place, is read."""
    look = dataclasses.replace(LOOK, hair_bgr=RED_KIT)
    renderer = Renderer(CAMERA, PITCH, look, seed=3)
    model = learn_model([renderer.render(frame(None))], CAMERA, PITCH, VisionConfig())
    still = frame(None)
    assert np.allclose(still.figures.xy_mm[2], HOME_XY[2])  # the home figure nearest the ball
    end = np.array([-90.0, 40.0])
    moved = dataclasses.replace(still, figures=_moved(still.figures, 2, end))
    before = renderer.render(still)
    assert rolled(renderer.render(moved), before, model) is None
    colour = rolled(renderer.render(frame(end)), before, model)
    assert colour is not None and colour_distance(colour, RED_BALL) < 60.0, colour


def _moved(figs: Figures, i: int, xy) -> Figures:
    xy_mm = figs.xy_mm.copy()
    xy_mm[i] = xy
    return dataclasses.replace(figs, xy_mm=xy_mm)


def test_a_known_colour_the_search_would_not_find_the_ball_by_does_not_explain_it():
    """A glossy red ball's top reads pale, near a white hypothesis by likeness; yet searched
    for as white the ball is never found. A hypothesis explains a rolling ball only when the
    detector's pixel test would take the ball's colour for it: a paler cousin of the ball's
    colour does not (before, it did, and no colour was learnt), the colour itself does."""
    renderer, model = setup()
    q_mm = (60.0, -120.0)
    before, image = renderer.render(frame(None)), renderer.render(frame(q_mm))
    colour = rolled(image, before, model)
    assert colour is not None
    pale = colour + 0.22 * (255.0 - colour)
    d = shaded_distance(colour[None], pale[None], CONFIG.shading_range)[0]
    assert not ball_coloured(d, np.linalg.norm(colour))[0]  # the search would not find it
    learnt = rolled(image, before, model, pale[None])
    assert learnt is not None and colour_distance(learnt, colour) < 1.0
    assert rolled(image, before, model, colour[None]) is None
