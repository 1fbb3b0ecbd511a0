"""Colour classes and blobs of foreground pixels (``vision/blobs.py``)."""

from __future__ import annotations

import numpy as np

from vision.blobs import AWAY, BALL, HOME, ColourBlobs

CLOTH = (48, 128, 38)


HOME_BGR = (40, 40, 200)


def blobs(ball=(240, 240, 240), home=HOME_BGR, away=(190, 90, 30)) -> ColourBlobs:
    return ColourBlobs(np.array(ball), np.array([home, away]), 30.0, (0.3, 1.4))


def test_pixels_take_the_class_of_their_colour_in_light_and_shade():
    pixels = np.array([[240, 240, 240], [120, 120, 120], [40, 40, 200], [20, 20, 100]])
    cls, ball = blobs().classes(np.concatenate([pixels, [[190, 90, 30]]]))
    assert cls.tolist() == [BALL, BALL, HOME, HOME, AWAY]
    assert ball.tolist() == [True, True, False, False, False]


def test_a_team_of_the_balls_colour_gets_its_pixels():
    """A yellow ball and a yellow team: ball-coloured pixels count for the team too."""
    twins = blobs(ball=(40, 220, 240), home=(40, 215, 235))
    assert twins.ball_classes == [BALL, HOME]
    cls, ball = twins.classes(np.array([[40, 220, 240]]))
    assert cls.tolist() == [HOME] and ball.tolist() == [True]


def test_blobs_of_each_colour_with_their_areas():
    image = np.full((60, 80, 3), CLOTH, np.uint8)
    background = image.copy()
    image[10:20, 10:20] = (40, 40, 200)  # a home square of 100 px
    image[30:36, 50:56] = (190, 90, 30)  # an away square of 36 px
    found = blobs().find(image, background, None, lambda c: np.ones(len(c)), np.zeros(2), 1)
    centre, cls, area = found[:3]
    assert sorted(zip(cls.tolist(), area.tolist(), strict=True)) == [(HOME, 100.0), (AWAY, 36.0)]
    assert np.allclose(centre[cls == HOME], [[14.5, 14.5]])
    assert blobs().find(background, background, None, lambda c: 1.0, np.zeros(2), 1) is None


def test_a_shadow_beside_a_base_is_no_part_of_it_unless_the_team_is_the_shadows_colour():
    """A low side light casts a figure's shadow long across the cloth: the cloth darkened,
    whichever team's dark colour it lies nearest. Joined to the base it makes a blob too long
    for one (the figure is lost); apart, it would be a base where none stands. A team whose
    bases are themselves the cloth darkened (a dark green kit) keeps it."""
    image = np.full((60, 80, 3), CLOTH, np.uint8)
    background = image.copy()
    image[10:20, 10:20] = (190, 90, 30)  # an away base of 100 px
    image[10:20, 20:60] = np.round(0.35 * np.array(CLOTH))  # its shadow, 400 px
    image[40:46, 50:56] = np.round(0.3 * np.array(CLOTH))  # a shadow on its own

    def found(colours):
        out = colours.find(image, background, None, lambda c: np.ones(len(c)), np.zeros(2), 1)
        return sorted(zip(out[1].tolist(), out[2].tolist(), strict=True))

    assert found(blobs()) == [(AWAY, 100.0)]
    dark_green = np.round(0.35 * np.array(CLOTH))
    image[10:20, 10:20] = dark_green  # a dark green base, its shadow beside it
    assert found(blobs(away=dark_green)) == [(AWAY, 36.0), (AWAY, 500.0)]


def test_a_shadow_is_no_white_balls_shaded_side_but_a_white_balls_grey_is():
    """A figure's shadow on a pale cloth is the cloth darkened, near the grey of a white ball's
    shaded side and as round as a ball: no ball. A white ball's own shaded side is grey,
    no hue of the cloth, and stays the ball's."""
    pale = np.array((107, 163, 138))  # a pale cloth: its shadow is nearly grey
    image = np.full((60, 80, 3), pale, np.uint8)
    background = image.copy()
    image[10:20, 10:20] = np.round(0.62 * pale)  # a shadow, ball-sized
    image[30:40, 50:60] = (235, 235, 235)  # a white ball, its lit half
    image[35:40, 50:60] = (90, 90, 90)  # and its shaded half
    out = blobs().find(image, background, None, lambda c: np.ones(len(c)), np.zeros(2), 1)
    balls = [(a, c.tolist()) for k, a, c in zip(out[1], out[2], out[0], strict=True) if k == BALL]
    assert balls == [(100.0, [54.5, 34.5])]


def test_a_black_base_keeps_its_rim_and_its_part_on_a_white_line():
    """Where a black base meets the cloth its rim blends into the cloth darkened, a pixel
    wide, and where it stands on a white line it is that white darkened: neither is a
    shadow, which is broad and shows the cloth's hue."""
    image = np.full((60, 80, 3), CLOTH, np.uint8)
    image[:, 30:34] = (232, 238, 238)  # a white line
    background = image.copy()
    image[15:27, 25:37] = np.round(0.5 * background[15:27, 25:37])  # the rim's blend
    image[16:26, 26:36] = (15, 15, 15)  # a black base of 100 px on the line
    # A black base's rim read in a low light: a greenish black, not the cloth darkened.
    colours = ColourBlobs(
        np.array([240, 240, 240]), np.array([HOME_BGR, (26, 47, 33)]), 18.0, (0.3, 1.4)
    )
    out = colours.find(image, background, None, lambda c: np.ones(len(c)), np.zeros(2), 1)
    rim_on_line = 2 * 4  # grey, the white ball's colour in shade: not the team's anyway
    assert [a for c, a in zip(out[1], out[2], strict=True) if c == AWAY] == [144.0 - rim_on_line]


def test_a_balls_pixel_counts_for_the_nearer_of_two_twin_teams():
    """An orange ball, an orange team and a yellow team, both near the ball's colour: an orange
    pixel is the orange team's, not whichever twin came last."""
    twins = blobs(ball=(30, 140, 245), home=(24, 104, 158), away=(30, 159, 169))
    assert twins.ball_classes == [BALL, HOME, AWAY]
    cls, _ = twins.classes(np.array([[20, 120, 240], [20, 200, 230]]))
    assert cls.tolist() == [HOME, AWAY]


def test_a_rim_pixel_shows_its_team_only_when_it_is_clearly_that_teams_colour():
    """A pale ball hypothesis (a shaded white base's top, taken for a ball while the ball's
    colour is open) is the white team's twin; shaded deep it explains a navy rim's near-black
    pixels too: on a rim those show neither team (nor does one about as far from both kits:
    the rim blended with a purple shirt), the navy rim's own pixels show navy and the white
    team's pale ones white; in blobs the ball's pixels all stay with its twin (the ball whole
    in one blob)."""
    colours = ColourBlobs(
        np.array([[74, 94, 70], [26, 86, 176]], np.float32),
        np.array([[34, 38, 52], [144, 154, 131]], np.float32),
        30.0,
        (0.3, 1.4),
    )
    assert colours.ball_classes == [BALL, AWAY]
    pixels = np.array([[28, 25, 24], [45, 28, 68], [120, 128, 110], [53, 21, 40]])
    cls, clear, _ = colours.rim_teams(pixels, np.broadcast_to(np.array(CLOTH), pixels.shape))
    assert np.where(clear, cls, -1).tolist() == [-1, HOME, AWAY, -1]
    assert colours.classes(pixels)[0][0] == AWAY


def test_a_line_beside_a_rim_shows_no_team():
    """A white ball hypothesis, yellow and black kits: a black base beside a line shows the
    line's white paint on its rim, nearer yellow than black, yet no yellow rim's."""
    colours = blobs(ball=(210, 218, 214), home=(56, 176, 155), away=(27, 46, 24))
    pixels = np.array([[159, 166, 167], [11, 17, 12], [60, 170, 150]])
    cls, clear, _ = colours.rim_teams(pixels, np.broadcast_to(np.array(CLOTH), pixels.shape))
    assert np.where(clear, cls, -1).tolist() == [-1, AWAY, HOME]


def test_a_red_pixel_nearest_an_open_orange_ball_hypothesis_stays_with_its_team():
    """While the ball's colour is open (white or orange), the red of a rim in the light and
    pure red lie nearer the orange hypothesis than the learnt dark red, yet no ball colour
    explains them: they are the red team's, or its rims break into pieces."""
    blobs = ColourBlobs(
        np.array([[240, 240, 240], [30, 140, 245]], np.float32),
        np.array([[32, 57, 112], [115, 80, 28]], np.float32),
        30.0,
        (0.3, 1.4),
    )
    cls, ball = blobs.classes(np.array([[20, 50, 190], [0, 0, 220], [45, 80, 200]], np.float32))
    assert cls.tolist() == [HOME, HOME, BALL]
    assert ball.tolist() == [False, False, True]


def test_a_pixel_much_nearer_an_unexplained_ball_colour_is_no_teams():
    """Where a line shows again from under a figure that stood on it, the cloth and the paint
    mix: nearer a (green) ball hypothesis than any team by far, and no ball colour explains
    it. It stays out of the teams, or it would make a figure where none stands."""
    blobs = ColourBlobs(
        np.array([[214, 216, 221], [29, 69, 18], [20, 110, 240]], np.float32),
        np.array([[42, 47, 119], [119, 69, 38]], np.float32),
        30.0,
        (0.3, 1.4),
    )
    cls, ball = blobs.classes(np.array([[74, 129, 54], [86, 125, 76]], np.float32))
    assert cls.tolist() == [-1, -1]
    assert not ball.any()


def face(*parts):
    """A ball's face: ``(count, bgr)`` parts, each its colour in light and shade."""
    rows = []
    for count, bgr in parts:
        shade = np.linspace(0.6, 1.0, count)[:, None]
        rows.append(np.asarray(bgr, float)[None] * shade)
    return np.concatenate(rows)


def test_a_face_shows_its_half_of_an_unknown_colour():
    """White ball searched for: a face half white, half black shows white and the black."""
    shown, other = blobs().face(face((50, (240, 240, 240)), (50, (30, 30, 30))), 0.2, 0.85)
    assert shown.tolist() == [True]
    assert other is not None and np.abs(other - 30).max() < 10


def test_a_few_spots_or_a_mix_are_no_colour_of_the_ball():
    """Spots on a tenth of the face are too few; a part that is no one colour (a finger's
    edge, a shadow and a glint together) is none."""
    _, spots = blobs().face(face((90, (240, 240, 240)), (10, (30, 30, 200))), 0.2, 0.85)
    assert spots is None
    mix = face((50, (240, 240, 240)), (17, (30, 30, 200)), (17, (200, 30, 30)), (16, (30, 200, 30)))
    assert blobs().face(mix, 0.2, 0.85)[1] is None
