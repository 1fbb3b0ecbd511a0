"""The rolling ball's filter (``tracking/kalman.py``)."""

from __future__ import annotations

import numpy as np

from tracking.kalman import Kalman, largest_eigenvalue


def test_friction_slows_the_prediction_and_never_reverses_it():
    kf = Kalman(np.zeros(2), np.array([300.0, 0.0]), 0.3, 2000.0, 400.0)
    kf.predict(0.5)
    assert kf.x[2] == 100.0 and kf.x[0] == 150.0
    kf.predict(1.0)
    assert kf.x[2] == 0.0 and kf.x[3] == 0.0


def test_a_measurement_pulls_the_state_and_shrinks_its_covariance():
    kf = Kalman(np.zeros(2), np.zeros(2), 0.3, 2000.0, 0.0)
    kf.predict(1 / 30)
    before = largest_eigenvalue(kf.p[:2, :2])
    kf.update(np.array([1.0, 0.0]))
    assert 0.0 < kf.x[0] < 1.0
    assert largest_eigenvalue(kf.p[:2, :2]) < before


def test_largest_eigenvalue_of_a_symmetric_matrix():
    m = np.array([[2.0, 0.7], [0.7, 1.0]])
    assert np.isclose(largest_eigenvalue(m), np.linalg.eigvalsh(m).max())
