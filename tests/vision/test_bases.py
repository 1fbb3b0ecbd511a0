"""Base fits of one frame: one figure per place (``Detector._one_per_place``)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from calibration.tables import load_pitch
from vision.detector import Detector

HOST = SimpleNamespace(model=SimpleNamespace(pitch=load_pitch("fistf")))  # base radius 12 mm


@pytest.mark.parametrize(
    ("xy_mm", "support", "kept"),
    [
        # A blob split in two colours (a base's white middle and a line beside it): 13.5 mm.
        ([(14.4, 282.3), (0.9, 283.4)], [24, 17], [True, False]),
        ([(14.4, 282.3), (0.9, 283.4)], [12, 20], [False, True]),
        ([(0.0, 0.0), (5.0, 0.0)], [24, 24], [True, False]),
        # Two bases touching: 24 mm apart, both stand.
        ([(0.0, 0.0), (24.0, 0.0)], [24, 10], [True, True]),
        ([(0.0, 0.0), (0.0, 23.0), (0.0, 60.0)], [24, 24, 24], [True, True, True]),
    ],
)
def test_fits_closer_than_a_base_diameter_are_one_figure(xy_mm, support, kept):
    ok = Detector._one_per_place(
        HOST, np.asarray(xy_mm, float), np.ones(len(xy_mm), bool), np.asarray(support)
    )
    assert ok.tolist() == kept
