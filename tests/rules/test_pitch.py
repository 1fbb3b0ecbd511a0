"""The pitch model: where every line lies, and signed distances to its edges (DESIGN.md 3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from calibration.tables import load_pitch

FISTF = load_pitch("fistf")


@pytest.mark.parametrize(
    ("line", "point", "offset"),
    [
        # Goal lines and touchlines: outer edges at L/2 and W/2, centres half a width inside.
        ("goal_line_right", (598.5, 0.0), 0.0),
        ("goal_line_right", (600.0, 100.0), 1.5),
        ("goal_line_left", (-600.0, 0.0), 1.5),  # normal points out of the pitch
        ("touchline_top", (0.0, 375.0), 1.5),
        ("touchline_bottom", (0.0, -375.0), 1.5),
        ("shooting_line_right", (300.0, 0.0), 0.0),
        ("shooting_line_left", (-310.0, 0.0), 10.0),  # + side faces the goal
        ("halfway_line", (5.0, 0.0), 5.0),
        ("centre_circle", (0.0, 103.0), 3.0),
        # Box side lines at |y| = 80 + 65 and 80 + 180; normals point into the box.
        ("goal_area_side_right_top", (560.0, 145.0), 0.0),
        ("goal_area_side_right_top", (560.0, 140.0), 5.0),
        ("goal_area_front_right", (535.0, 0.0), 0.0),
        ("penalty_area_side_left_bottom", (-500.0, -260.0), 0.0),
        ("penalty_area_front_left", (-420.0, 0.0), 0.0),
        ("penalty_spot_right", (475.0, 0.0), 0.0),
        ("penalty_arc_right", (375.0, 0.0), 0.0),
        ("corner_arc_right_top", (600.0 - 20.0, 375.0), 0.0),
    ],
)
def test_line_geometry_fistf(line, point, offset):
    assert FISTF.line(line).offset_mm(point)[0] == pytest.approx(offset, abs=1e-9)


@pytest.mark.parametrize(
    ("point", "on_paint"),
    [
        ((0.0, 0.0), True),  # centre spot
        ((0.0, 200.0), True),  # halfway line
        ((598.0, -300.0), True),  # goal line
        ((596.9, -300.0), False),  # just inside it
        ((420.0, 261.4), True),  # penalty area corner is filled
        ((420.0, 263.0), False),  # but does not overshoot
        ((375.0, 0.0), True),  # penalty arc apex
        ((430.0, 0.0), False),  # inside the area the arc is not painted
        ((592.0, 368.0), False),  # inside the corner arc's quarter circle
        ((585.9, 361.9), True),  # on the corner arc (20 mm from the corner)
        ((50.0, 50.0), False),
    ],
)
def test_paint(point, on_paint):
    assert (FISTF.paint_distance_mm(point)[0] <= 0.0) == on_paint


def test_penalty_arc_ends_on_the_area_line():
    arc = FISTF.line("penalty_arc_right")
    start = (arc.a_mm[0] + 100 * math.cos(arc.start_rad), 100 * math.sin(arc.start_rad))
    assert start[0] == pytest.approx(420.0 - 1.5)


@pytest.mark.parametrize(
    ("x", "margin"),
    [(610.5, 0.0), (610.9, 0.4), (610.1, -0.4), (598.5, -12.0)],
)
def test_fully_crossed_margin_of_a_ball_at_the_goal_line(x, margin):
    """Fully crossed: the 21 mm footprint lies wholly beyond the far (outer) edge at x = 600."""
    band = FISTF.line("goal_line_right")
    got = band.beyond_edge_mm([[x, 200.0]], side=+1)[0] - 10.5
    assert got == pytest.approx(margin, abs=1e-9)


@pytest.mark.parametrize(
    ("zone", "point", "radius", "inside"),
    [
        ("shooting_zone_right", (312.1, 0.0), 10.5, True),  # 301.5 + 10.5 < 312.1
        ("shooting_zone_right", (311.9, 0.0), 10.5, False),  # touching the line's edge region
        ("shooting_zone_left", (-312.1, 0.0), 10.5, True),
        ("shooting_zone_left", (312.1, 0.0), 10.5, False),
        ("penalty_area_right", (500.0, 0.0), 0.0, True),
        ("penalty_area_right", (420.0, 0.0), 0.0, False),  # the line is not part of the area
        ("penalty_area_left", (-500.0, 258.4), 0.0, True),
        ("penalty_area_left", (-500.0, 258.6), 0.0, False),
        ("goal_area_right", (560.0, 0.0), 0.0, True),
        ("half_left", (-10.0, 0.0), 0.0, True),
        ("half_right", (-10.0, 0.0), 0.0, False),
        ("playing_area", (0.0, 360.0), 10.5, True),
        ("playing_area", (0.0, 365.0), 10.5, False),
    ],
)
def test_zones(zone, point, radius, inside):
    assert bool(FISTF.is_inside(zone, point, radius)[0]) == inside


def test_signed_distances_are_vectorised():
    pts = np.random.default_rng(1).uniform(-700, 700, size=(1000, 2))
    band = FISTF.line("touchline_top")
    d = band.beyond_edge_mm(pts, side=+1)
    assert d.shape == (1000,)
    np.testing.assert_allclose(d, pts[:, 1] - 375.0)
    assert FISTF.paint_distance_mm(pts).shape == (1000,)


def test_measured_edges_replace_the_nominal_ones():
    measured = FISTF.with_measured_edges({"goal_line_right": (-1.2, 1.9)})
    band = measured.line("goal_line_right")
    assert band.width_mm == pytest.approx(3.1)
    assert band.beyond_edge_mm([[602.0, 0.0]], +1)[0] == pytest.approx(602.0 - 598.5 - 1.9)
    assert FISTF.line("goal_line_right").outer_mm == 1.5  # the original is unchanged
    with pytest.raises(KeyError, match="unknown lines"):
        FISTF.with_measured_edges({"goal_line_middle": (0, 1)})


def test_classic_profile_scales_the_lines():
    classic = load_pitch("subbuteo-classic")
    assert classic.line("goal_line_right").offset_mm([[608.5, 0.0]])[0] == pytest.approx(0.0)
    assert classic.line("shooting_line_right").offset_mm([[305.0, 0.0]])[0] == pytest.approx(0)
    assert classic.goal("right").x_back_mm == pytest.approx(610 + 70)


def test_bad_points_shape():
    with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
        FISTF.line("halfway_line").offset_mm(np.zeros((3, 3)))
