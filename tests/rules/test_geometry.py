"""Geometry predicates: fully crossed, goals, shooting zone, offside distances."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import geometry as g

R = 10.5  # FISTF ball radius
# FISTF pitch: touchline outer edges at |y| = 375, goal line outer edges at |x| = 600, lines 3 mm
# wide; shooting lines centred 300 mm inside the goal lines' outer edges (x = +-300).


@pytest.mark.parametrize(
    ("line", "xy", "margin"),
    [
        pytest.param("touchline_top", (0, 385.5 + 0.4), 0.4, id="guideline: out by 0.4 mm"),
        pytest.param("touchline_top", (0, 385.5 - 0.4), -0.4, id="guideline: on the line by 0.4"),
        pytest.param(
            "touchline_top", (100, 372 - R), -(3 + 2 * R), id="guideline: touching inner edge"
        ),
        pytest.param("touchline_bottom", (-50, -390.0), 4.5, id="guideline: bottom, out 4.5"),
        pytest.param("goal_line_right", (611.0, 300), 0.5, id="guideline: right goal line 0.5"),
        pytest.param("goal_line_left", (-600.0, 0), -R, id="guideline: centre on outer edge"),
    ],
)
def test_fully_crossed_margin(fistf_pitch, line, xy, margin):
    band = fistf_pitch.line(line)
    got = g.crossed_margin_mm(band, xy, R)[0]
    assert got == pytest.approx(margin, abs=1e-9)
    assert g.is_fully_crossed(band, xy, R)[0] == (margin > 0)


@given(
    x=st.floats(-700, 700),
    y=st.floats(-480, 480),
    r=st.floats(0, 15),
)
def test_margin_mirror_symmetry(fistf_pitch, x, y, r):
    """Mirrored footprints have the same margin over the mirrored line (general guideline)."""
    p = fistf_pitch
    top = g.crossed_margin_mm(p.line("touchline_top"), (x, y), r)[0]
    bottom = g.crossed_margin_mm(p.line("touchline_bottom"), (x, -y), r)[0]
    left = g.crossed_margin_mm(p.line("goal_line_left"), (-x, y), r)[0]
    right = g.crossed_margin_mm(p.line("goal_line_right"), (x, y), r)[0]
    assert top == pytest.approx(bottom, abs=1e-9)
    assert left == pytest.approx(right, abs=1e-9)


@given(x=st.floats(-700, 700), y=st.floats(-480, 480), r=st.floats(0, 15))
def test_both_sides_never_both_crossed(fistf_pitch, x, y, r):
    """Beyond one edge plus beyond the other is always minus (width + diameter)."""
    band = fistf_pitch.line("shooting_line_right")
    plus = g.crossed_margin_mm(band, (x, y), r)[0]
    minus = g.crossed_margin_mm(band, (x, y), r, side=-1.0)[0]
    assert plus + minus == pytest.approx(-(band.width_mm + 2 * r), abs=1e-9)
    assert not (plus > 0 and minus > 0)


@pytest.mark.parametrize(
    ("end", "xy", "expected"),
    [
        pytest.param("right", (611.0, 0), True, id="FISTF 7.1 wholly over between the posts"),
        pytest.param("right", (610.0, 0), False, id="FISTF 7.1 not wholly over"),
        pytest.param("right", (620.0, 80), False, id="FISTF 7.1 beside the post"),
        pytest.param("left", (-640.0, -60), True, id="FISTF 7.1 left goal, deep"),
        pytest.param("left", (640.0, 0), False, id="FISTF 7.1 the other goal"),
    ],
)
def test_goal_over(fistf_pitch, end, xy, expected):
    assert g.is_goal_over(fistf_pitch, end, xy, R)[0] == expected


@pytest.mark.parametrize(
    ("xy", "margin"),
    [
        pytest.param((300 + 1.5 + R + 0.4, 0), 0.4, id="FISTF 7.1 in the zone by 0.4"),
        pytest.param((300 + 1.5 + R - 0.4, 0), -0.4, id="FISTF 7.1 touching the line"),
        pytest.param((450, 0), 597 - 450 - R, id="FISTF 7.1 inside, nearest the goal line"),
        pytest.param((450, 372 - R - 2), 2.0, id="FISTF 7.1 bounded by the touchline"),
    ],
)
def test_shooting_margin(fistf_pitch, xy, margin):
    assert g.shooting_margin_mm(fistf_pitch, "right", xy, R)[0] == pytest.approx(margin)
    assert fistf_pitch.is_inside("shooting_zone_right", xy, R)[0] == (margin > 0)


def test_goal_line_distance_from_the_nearest_part(fistf_pitch):
    """DESIGN.md 3 offside geometry: distances from the part nearest the goal line."""
    d = g.goal_line_distance_mm(fistf_pitch, "right", [(500, 0), (500, 0)], np.array([R, 12.0]))
    assert d == pytest.approx([597 - 500 - R, 597 - 500 - 12.0])


@pytest.mark.parametrize(
    ("x", "quarter"), [(-599, 0), (-301, 0), (-299, 1), (-1, 1), (1, 2), (299, 2), (301, 3)]
)
def test_quarters(fistf_pitch, x, quarter):
    """FISTF 14.1.2 quarters of the field, split at the halfway line and at L/4."""
    assert g.quarter_index(fistf_pitch, (x, 0))[0] == quarter


@pytest.mark.parametrize(
    ("xy", "touching"),
    [
        pytest.param((600 - 180 - 1.5 - 12 - 0.1, 0), False, id="FISTF 15.2 clear of the line"),
        pytest.param((600 - 180 - 1.5 - 12 + 0.1, 0), True, id="FISTF 15.2 touching the line"),
        pytest.param((500, 0), True, id="FISTF 15.2 inside the area"),
        pytest.param((500, 260 + 1.5 + 12 + 0.1), False, id="FISTF 15.2 beside the area"),
    ],
)
def test_zone_overlap(fistf_pitch, xy, touching):
    assert (
        g.zone_overlap_margin_mm(fistf_pitch, "penalty_area_right", xy, 12.0)[0] > 0
    ) == touching


def test_edge_gap_and_cloth(fistf_pitch):
    assert g.edge_gap_mm((0, 0), 12.0, (50, 0), R)[0] == pytest.approx(50 - 22.5)
    assert g.cloth_overrun_mm(fistf_pitch, [(0, 476), (0, 0)]) == pytest.approx([1.0, -475.0])
