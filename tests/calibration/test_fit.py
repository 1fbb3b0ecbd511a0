"""The fitting core on synthetic line samples made with the camera model itself."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration import fit
from calibration.camera import CameraModel

SIZE = (1280, 960)


def _camera(k1=0.0, tilt=(0.0, 0.0), yaw=0.0, height=1300.0, k2=0.0) -> CameraModel:
    return CameraModel.overhead(
        SIZE,
        height,
        1400.0,
        dist=(k1, k2, 0.0, 0.0, 0.0),
        tilt_x_deg=tilt[0],
        tilt_y_deg=tilt[1],
        yaw_deg=yaw,
    )


def _start_for(true: CameraModel) -> CameraModel:
    """A rough guess: no distortion, straight down, a different height and view."""
    return CameraModel.overhead(SIZE, 1450.0, 1500.0, yaw_deg=2.0, centre_mm=(20.0, -15.0))


def _mapping_error_mm(cam: CameraModel, true: CameraModel) -> np.ndarray:
    grid = np.stack(np.meshgrid(np.linspace(-600, 600, 25), np.linspace(-375, 375, 16)), -1)
    xy = grid.reshape(-1, 2)
    return np.hypot(*(cam.back_project(true.project(xy)) - xy).T)


def _all_free() -> tuple[str, ...]:
    return ("pose", "f", "k1", "k2")


@pytest.mark.parametrize(
    ("k1", "tilt", "yaw", "height"),
    [
        (0.0, (6.0, 0.0), 0.0, 1300.0),
        (-0.3, (10.0, 0.0), 0.0, 1100.0),
        (-0.15, (-5.0, 7.0), 8.0, 1600.0),
        (-0.3, (0.0, -10.0), -5.0, 1400.0),
    ],
)
def test_fit_camera_recovers_the_camera(fistf, k1, tilt, yaw, height):
    true = _camera(k1, tilt, yaw, height)
    model = fit.sample_lines(fistf, spacing_mm=10.0, clearance_mm=4.0)
    noisy = true.project(model.foot_mm) + np.random.default_rng(3).normal(0, 0.15, (len(model), 2))
    start = _start_for(true)
    cam = fit.fit_camera(
        model, noisy, start, free=_all_free(), scale_px=0.3, priors=fit.Priors(start.fx_px)
    )
    err = _mapping_error_mm(cam, true)
    assert np.median(err) < 0.05 and err.max() < 0.2
    assert cam.fx_px == pytest.approx(true.fx_px, rel=0.01)
    assert cam.dist[0] == pytest.approx(k1, abs=0.02)


def test_residuals_measure_displacement_along_the_normal(fistf):
    true = _camera(-0.2, (5.0, 3.0))
    model = fit.sample_lines(fistf, spacing_mm=20.0)
    px = true.project(model.foot_mm)
    assert np.abs(fit.residuals_px(true, model, px)).max() < 1e-9
    # Move every centre 0.7 px along its projected normal and 3 px along the line.
    ahead = true.project(model.foot_mm + model.normal_mm) - px
    u = ahead / np.hypot(*ahead.T)[:, None]
    moved = px + 0.7 * u + 3.0 * np.stack([-u[:, 1], u[:, 0]], axis=1)
    np.testing.assert_allclose(fit.residuals_px(true, model, moved), 0.7, atol=0.02)


def test_robust_loss_ignores_samples_on_figures(fistf):
    true = _camera(-0.25, (8.0, -3.0), 4.0)
    model = fit.sample_lines(fistf, spacing_mm=10.0, clearance_mm=4.0)
    rng = np.random.default_rng(5)
    centres = true.project(model.foot_mm) + rng.normal(0, 0.15, (len(model), 2))
    bad = rng.random(len(model)) < 0.1
    centres[bad] += rng.uniform(3.0, 12.0, (bad.sum(), 2)) * rng.choice([-1, 1], (bad.sum(), 2))
    start = _start_for(true)
    cam = fit.fit_camera(
        model, centres, start, free=_all_free(), scale_px=0.3, priors=fit.Priors(start.fx_px)
    )
    assert np.median(_mapping_error_mm(cam, true)) < 0.15


def test_priors_hold_what_a_straight_down_view_cannot_tell(fistf):
    # Looking straight down, f and the camera height trade off exactly: the prior decides.
    true = _camera(-0.1)
    model = fit.sample_lines(fistf, spacing_mm=10.0, clearance_mm=4.0)
    start = _start_for(true)
    cam = fit.fit_camera(
        model,
        true.project(model.foot_mm),
        start,
        free=_all_free(),
        scale_px=0.3,
        priors=fit.Priors(f_px=start.fx_px, f_sigma=0.01),
    )
    assert cam.fx_px == pytest.approx(start.fx_px, rel=0.03)
    assert np.median(_mapping_error_mm(cam, true)) < 0.05


def test_sample_lines_keeps_clear_of_other_lines(fistf):
    model = fit.sample_lines(fistf, spacing_mm=5.0, clearance_mm=6.0)
    for i, band in enumerate(fistf.lines):
        sel = model.line == i
        others = [b.paint_distance_mm(model.foot_mm[sel]) for b in fistf.lines if b is not band]
        if sel.any():
            assert np.minimum.reduce(others).min() - 0.5 * band.width_mm >= 6.0
    spots = [i for i, b in enumerate(fistf.lines) if fit.is_spot(b)]
    counts = np.bincount(model.line, minlength=len(fistf.lines))
    names = {fistf.lines[i].name: counts[i] for i in spots}
    # The centre spot sits on the halfway line; the penalty spots stand free.
    assert names == {"centre_spot": 0, "penalty_spot_left": 4, "penalty_spot_right": 4}
    np.testing.assert_allclose(np.hypot(*model.normal_mm.T), 1.0)


def test_chamfer_fit_pulls_the_lines_onto_the_ridges(fistf):
    true = _camera(-0.3, (7.0, 2.0), 3.0, 1200.0)
    mask = np.zeros((SIZE[1] // 2, SIZE[0] // 2), np.uint8)
    for band_pts in _polylines(fistf, true):
        cv2.polylines(mask, [np.round(band_pts / 2).astype(np.int32)], False, 255, 1)
    distance = cv2.distanceTransform(255 - mask, distanceType=cv2.DIST_L2, maskSize=5)
    points = fit.sample_lines(fistf, spacing_mm=6.0).foot_mm
    start = fit.start_from_corners(
        distance,
        2.0,
        points,
        true.project(_outer_corners(fistf)) + np.array([[8, 6], [-9, 5], [7, -8], [-6, -7]]),
        _outer_corners(fistf),
        _camera(),
    )
    cam = start
    for truncate in (12.0, 4.0):
        cam = fit.fit_to_distance_map(
            distance, 2.0, points, cam, free=("pose", "f", "k1"), truncate_px=truncate
        )
    before = np.hypot(*(start.project(points) - true.project(points)).T)
    after = np.hypot(*(cam.project(points) - true.project(points)).T)
    assert np.median(before) > 3.0  # the corners are off by up to 9 px
    assert np.median(after) < 1.0


def _outer_corners(pitch) -> np.ndarray:
    hl, hw = pitch.profile.length_mm / 2, pitch.profile.width_mm / 2
    return np.array([[-hl, -hw], [hl, -hw], [hl, hw], [-hl, hw]])


def _polylines(pitch, camera):
    for band in pitch.lines:
        model = fit.sample_lines(pitch.__class__(pitch.profile, (band,), (), ()), 2.0)
        order = np.argsort(band.along_mm(model.foot_mm))
        yield camera.project(model.foot_mm[order])


@pytest.mark.parametrize(
    ("tilt", "low", "high"),
    [
        # Straight down: f and the height trade off, the lines leave f free.
        ((0.0, 0.0), 0.2, np.inf),
        # Tilted: the perspective of the lines fixes f to a small fraction of a percent.
        ((8.0, -3.0), 0.0, 0.003),
    ],
)
def test_focal_sigma_says_whether_the_lines_fix_f(fistf, tilt, low, high):
    true = _camera(-0.1, tilt)
    model = fit.sample_lines(fistf, spacing_mm=10.0, clearance_mm=4.0)
    noisy = true.project(model.foot_mm) + np.random.default_rng(4).normal(0, 0.1, (len(model), 2))
    sigma = fit.focal_sigma(model, noisy, true, free=_all_free())
    assert low <= sigma <= high
    assert fit.focal_sigma(model, noisy, true, free=("pose",)) == 0.0


TILTS_DEG = (0.0, 0.7, 1.5, 3.0, 6.0)


def _posterior_sigma(fistf, tilt_deg: float, height: float, seed: int):
    """Fit synthetic samples of a view tilted ``tilt_deg``, starting with f (the prior's
    centre) at the guess of a 1350 mm mount; returns (relative error of f, its sigma, the
    camera, the covariance, the free parameters)."""
    true = _camera(-0.1, (tilt_deg, 0.3 * tilt_deg), yaw=3.0, height=height)
    model = fit.sample_lines(fistf, spacing_mm=10.0, clearance_mm=4.0)
    rng = np.random.default_rng(seed)
    noisy = true.project(model.foot_mm) + rng.normal(0, 0.1, (len(model), 2))
    guess = true.fx_px * 1350.0 / height
    start = CameraModel(
        SIZE, guess, guess, true.cx_px, true.cy_px, true.dist, true.rvec_rad, true.tvec_mm
    )
    free = ("pose", "f", "cx", "cy", "k1", "k2")
    priors = fit.Priors(f_px=guess, centre_sigma=0.015)
    # The valley along f is long and flat when the view is nearly straight: let it settle.
    for _ in range(2):
        start = fit.fit_camera(
            model, noisy, start, free=free, scale_px=0.1, priors=priors, max_nfev=200
        )
    cam = start
    cov = fit.posterior_covariance(model, noisy, cam, free=free, priors=priors)
    return cam.fx_px / true.fx_px - 1.0, float(np.sqrt(cov[0, 0])) / cam.fx_px, cam, cov, free


@pytest.mark.parametrize("height", [1000.0, 1700.0])
def test_the_focal_sigma_grows_as_the_view_turns_straight_down_and_covers_the_error(fistf, height):
    """A flat pitch seen straight down pins only f / H: the sigma of f is then its prior's
    (the guess of a usual mount height), and the error it states covers the true one."""
    errors, sigmas = zip(
        *(_posterior_sigma(fistf, t, height, seed)[:2] for seed, t in enumerate(TILTS_DEG)),
        strict=True,
    )
    sigmas = np.array(sigmas)
    assert (np.diff(sigmas) < 0).all(), sigmas
    assert 0.2 < sigmas[0] <= 0.3 and sigmas[-1] < 0.01
    # Straight down the prior speaks, well tilted the lines: either way within 2 sigma.
    assert (np.abs(np.array(errors)[[0, -1]]) <= 2.0 * sigmas[[0, -1]]).all(), (errors, sigmas)


def test_the_centre_covariance_holds_the_height_as_loose_as_f(fistf):
    _, sigma, cam, cov, free = _posterior_sigma(fistf, 0.0, 1100.0, 5)
    centre = fit.centre_covariance(cam, cov, free)
    height = cam.centre_mm[2]
    # The cloth's scale f / H is pinned, so H is as uncertain as f, relatively.
    assert np.sqrt(centre[2, 2]) / height == pytest.approx(sigma, rel=0.05)
    assert abs(height - 1100.0) <= 2.0 * np.sqrt(centre[2, 2])
    assert np.allclose(centre, centre.T) and (np.linalg.eigvalsh(centre) > -1e-6).all()


@pytest.mark.parametrize("decentring", [(0.003, 0.002), (-0.0025, 0.003)])
def test_the_lens_priors_do_not_pull_the_focal_length(fistf, decentring):
    """Straight down, f trades exactly with the height and with the lens' coefficients (the
    picture shows them times powers of f): priors on the lens held at the fitted f would pull
    f toward a smaller decentring. Fitted from the true camera, f must stay where its own
    prior (here the truth) puts it, and the decentring with it."""
    true = CameraModel.overhead(SIZE, 1300.0, 1400.0, dist=(-0.05, 0.0, *decentring, 0.0))
    model = fit.sample_lines(fistf, spacing_mm=10.0, clearance_mm=4.0)
    free = ("pose", "f", "cx", "cy", "k1", "k2", "p1", "p2")
    priors = fit.Priors(f_px=true.fx_px)
    cam = fit.fit_camera(
        model, true.project(model.foot_mm), true, free=free, scale_px=0.3, priors=priors
    )
    assert cam.fx_px == pytest.approx(true.fx_px, rel=0.01)
    assert cam.dist[2:4] == pytest.approx(decentring, abs=1e-4)
    assert np.median(_mapping_error_mm(cam, true)) < 0.05
