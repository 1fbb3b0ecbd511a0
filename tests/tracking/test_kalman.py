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


def rolled(off_mm: float, frames: int = 12) -> tuple[Kalman, np.ndarray]:
    """A filter over ``frames`` frames of a ball rolling at 300 mm/s (60 fps), measured to
    0.3 mm, its last measurement ``off_mm`` across the roll; and the measurement."""
    rng = np.random.default_rng(1)
    kf = Kalman(np.zeros(2), np.array([300.0, 0.0]), 0.3, 4000.0, 0.0)
    z = np.zeros(2)
    for i in range(1, frames + 1):
        kf.predict(1 / 60)
        z = np.array([5.0 * i, off_mm if i == frames else 0.0]) + rng.normal(0.0, 0.3, 2)
        kf.update(z)
    return kf, z


def test_measurements_on_the_roll_keep_the_covariance_tight():
    kf, _ = rolled(0.0)
    assert np.sqrt(largest_eigenvalue(kf.p[:2, :2])) < 0.3


def test_a_measurement_beyond_the_filters_doubt_leaves_its_place_in_doubt():
    """A fit 8 mm across a roll measured to 0.3 mm: the fit stood off the ball or the ball was
    deflected. The estimate lies between the roll and the fit, and its stated uncertainty
    (two standard deviations) reaches both, not the fraction of a millimetre the filter's
    covariance alone would claim."""
    kf, z = rolled(8.0)
    sigma = np.sqrt(largest_eigenvalue(kf.p[:2, :2]))
    assert 0.5 < kf.x[1] < z[1] - 0.5
    assert 2.0 * sigma >= max(abs(kf.x[1]), abs(z[1] - kf.x[1]))
    for i in range(13, 19):  # back on the roll: the doubt shrinks again
        kf.predict(1 / 60)
        kf.update(np.array([5.0 * i, 0.0]))
    assert np.sqrt(largest_eigenvalue(kf.p[:2, :2])) < 0.5


def scattered(noise_mm: float, claimed_mm: float, frames: int = 60, seed: int = 2):
    """A ball rolling at 600 mm/s (60 fps) whose fits scatter by ``noise_mm`` while each
    claims ``claimed_mm``: per frame after the first 15, the filter's error (mm), its stated
    sigma (mm) and the scale it put on the fits' noise."""
    rng = np.random.default_rng(seed)
    kf = Kalman(np.zeros(2), np.array([600.0, 0.0]), 0.1, 4000.0, 0.0)
    err, sigma, scale = [], [], []
    for i in range(1, frames + 1):
        kf.predict(1 / 60)
        truth = np.array([10.0 * i, 0.0])
        kf.update(truth + rng.normal(0.0, noise_mm, 2), claimed_mm)
        if i > 15:
            err.append(float(np.hypot(*(kf.x[:2] - truth))))
            sigma.append(float(np.sqrt(largest_eigenvalue(kf.p[:2, :2]))))
            scale.append(kf.scatter_scale)
    return np.array(err), np.array(sigma), np.array(scale)


def test_fits_that_scatter_more_than_they_claim_are_weighed_as_they_scatter():
    """Fits claiming 0.4 mm that stray by 1.5 mm (a small marked ball, compressed): the
    filter finds their noise about 14 times larger in variance, as it is, and its stated
    doubt grows to the size of its error, which the claims alone put at a quarter of it."""
    err, sigma, scale = scattered(1.5, 0.4)
    assert 7.0 < np.median(scale) < 28.0
    assert np.median(err) <= 2.0 * np.median(sigma)
    assert np.mean(err <= 2.0 * sigma) >= 0.7  # of a 2-d error against one axis' sigma


def test_fits_as_good_as_they_claim_keep_their_claim():
    err, sigma, scale = scattered(0.4, 0.4)
    assert np.mean(scale == 1.0) >= 0.9
    assert np.median(sigma) < 0.4 and np.median(err) < 0.5
