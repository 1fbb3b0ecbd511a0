"""Detections: shape checks and the empty container."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detections import Detections, DetectionsShapeError


def test_empty_has_no_rows():
    det = Detections.empty()
    assert det.n_balls == 0 and det.n_bases == 0 and det.bases_searched


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("ball_r_px", np.zeros(2)),
        ("ball_xy_mm", np.zeros((1, 3))),
        ("base_team", np.zeros(3, np.int8)),
        ("ball_sigma_mm", np.zeros(2)),
    ],
)
def test_mismatched_shapes_are_rejected(field, value):
    good = Detections.build(ball_xy_mm=[[0.0, 0.0]], base_xy_mm=[[1.0, 1.0]], base_team=[0])
    kwargs = {f: getattr(good, f) for f in good.__slots__}
    kwargs[field] = value
    with pytest.raises(DetectionsShapeError, match="expected shape"):
        Detections(**kwargs)


def test_build_fills_missing_fields():
    det = Detections.build(ball_xy_mm=[[1.0, 2.0], [3.0, 4.0]])
    assert det.ball_xy_px.shape == (2, 2) and np.all(det.ball_score == 1.0)


def test_ball_sigma_is_optional():
    assert Detections.build(ball_xy_mm=[[1.0, 2.0]]).ball_sigma_mm is None
    det = Detections.build(ball_xy_mm=[[1.0, 2.0]], ball_sigma_mm=[0.2])
    assert det.ball_sigma_mm.tolist() == [0.2]


def test_with_balls_keeps_every_ball_field_of_the_kept_candidates():
    det = Detections.build(
        ball_xy_mm=[[1.0, 2.0], [3.0, 4.0]], ball_score=[0.9, 0.4], ball_sigma_mm=[0.1, 0.3]
    )
    kept = det.with_balls(np.array([False, True]))
    assert kept.ball_xy_mm.tolist() == [[3.0, 4.0]]
    assert kept.ball_score.tolist() == [0.4] and kept.ball_sigma_mm.tolist() == [0.3]
    assert det.with_balls(np.zeros(2, bool)).n_balls == 0
