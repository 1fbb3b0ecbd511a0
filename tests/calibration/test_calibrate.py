"""Calibration from rendered tables: accuracy, home side, measured edges, clear failures."""

from __future__ import annotations

import functools
from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration import lines
from calibration.calibrate import calibrate
from calibration.calibration_file import WIDTH_TOLERANCE_MM, CalibrationError, called_edges
from calibration.camera import CameraModel
from calibration.lines import clean_view
from calibration.tables import load_pitch
from simulator.look import Look
from simulator.render import Renderer
from simulator.scene import Figures, SceneFrame

SIZE = (1280, 960)

# (table, camera, look seed, figures seed, home): figures and the ball stand on lines.
ACCURACY_CASES = [
    ("fistf", (("k1", -0.3), ("tilt", (8.0, -6.0)), ("yaw_deg", 4.0)), 11, 21, "left"),
    (
        "subbuteo-classic",
        (("k1", -0.12), ("tilt", (-5.0, 3.0)), ("yaw_deg", 183.0), ("height_mm", 1550.0)),
        12,
        22,
        "right",
    ),
]


@pytest.fixture(scope="module")
def calibrated(render):
    """``calibrated(key, home) -> (true camera, calibration)`` of the view ``render(key)``,
    calibrated once for the module: two tests read the same calibration of an accuracy case
    (the module's tests run on one worker, which renders each view once)."""

    @functools.cache
    def cal(key: tuple, home: str):
        true, image = render(key)
        return true, calibrate(image, load_pitch(key[0]), home=home)

    return cal


@pytest.mark.parametrize(("table", "cam", "look", "figures", "home"), ACCURACY_CASES)
def test_calibrates_within_the_quality_bars(
    calibrated, mapping_error, table, cam, look, figures, home
):
    true, cal = calibrated((table, SIZE, cam, look, figures, ()), home)
    pitch = load_pitch(table)
    err = mapping_error(cal.camera, true, pitch)
    assert np.median(err) <= 0.3 and np.percentile(err, 95) <= 0.8
    assert cal.rms_px <= 0.3
    assert cal.camera.fx_px == pytest.approx(true.fx_px, rel=0.01)
    assert cal.camera.dist[0] == pytest.approx(true.dist[0], abs=0.03)
    assert cal.home == home and cal.table == table and cal.image_size_px == SIZE
    used = set(cal.lines_used)
    for kind in ("touchline", "goal_line", "halfway_line", "shooting_line", "penalty_area"):
        assert {b.name for b in pitch.lines_of_kind(kind)} <= used
    assert set(cal.per_line_mm) == set(cal.per_line_px) == set(cal.line_edges_mm) == used
    # Figures and the ball on the lines: some edge samples were rejected, not fitted.
    assert not cal.samples.inlier.all()


def test_home_at_the_top_turns_the_pitch_frame(render, mapping_error, fistf):
    cam = (("yaw_deg", 90.0), ("tilt", (4.0, 0.0)))
    true, image = render(("fistf", SIZE, cam, None, None, ()))
    cal = calibrate(image, fistf, home="top")
    assert np.median(mapping_error(cal.camera, true, fistf)) < 0.3
    # Home's goal line (x < 0) lies at the top of the image.
    home_goal = cal.camera.project(np.array([[-600.0, 0.0]]))[0]
    assert home_goal[1] < 0.2 * SIZE[1]
    with pytest.raises(CalibrationError, match="--home left puts home's goal at the left"):
        calibrate(image, fistf, home="left")


def test_a_turned_view_calibrates_without_being_told_home(render, fistf):
    """``analyze`` and the live page calibrate without ``--home`` (DESIGN.md section 4: options
    may help, never be required): goal lines at the top and bottom of the picture put home's
    goal at the bottom, as the picture turned a quarter turn clockwise would show it."""
    cam = (("yaw_deg", 90.0), ("tilt", (4.0, 0.0)))
    true, image = render(("fistf", SIZE, cam, None, None, ()))
    cal = calibrate(image, fistf)
    assert cal.home == "bottom"
    # The true pitch frame has home at the top: this one is it turned by half a turn.
    xy = np.stack(np.meshgrid(np.linspace(-550, 550, 12), np.linspace(-330, 330, 7)), -1)
    xy = xy.reshape(-1, 2)
    err_px = np.hypot(*(cal.camera.project(xy) - true.project(-xy)).T)
    assert np.median(err_px) < 0.3
    home_goal = cal.camera.project(np.array([[-600.0, 0.0]]))[0]
    assert home_goal[1] > 0.8 * SIZE[1]


def test_measures_the_edges_painted_on_this_cloth(render, fistf):
    # This cloth's touchline is painted 0.4 mm off and its halfway line 0.7 mm thin and off.
    painted = (("touchline_top", (-1.1, 1.9)), ("halfway_line", (-1.7, 0.6)))
    true, image = render(("fistf", SIZE, (("tilt", (3.0, 2.0)),), None, None, painted))
    cal = calibrate(image, fistf)
    for name, (inner, outer) in painted:
        band = fistf.line(name)
        measured = cal.line_edges_mm[name]
        # Where calls see the painted edges: the true edges, through the fitted camera. A line
        # painted off is partly taken for the lens' decentring, which bends the mapping by a
        # few hundredths of a millimetre more toward its ends.
        for offset, found in zip((inner, outer), measured, strict=True):
            edge_mm = np.linspace(band.a_mm, band.b_mm, 20) + offset * _normal(band)
            seen_mm = cal.camera.back_project(true.project(edge_mm))
            np.testing.assert_allclose(band.offset_mm(seen_mm), found, atol=0.25)
        # In mm of the cloth, a little less: this view (3.6 degrees of tilt, no barrel
        # distortion) leaves f loose to a few percent now that the goals' height is not
        # assumed, and a camera a little off takes up part of a line painted off.
        np.testing.assert_allclose(measured, (inner, outer), atol=0.4)
    for name in ("goal_line_left", "shooting_line_right", "centre_circle"):
        np.testing.assert_allclose(cal.line_edges_mm[name], (-1.5, 1.5), atol=0.2)
    measured = cal.measured_pitch(fistf).line("touchline_top")
    assert measured.outer_mm == cal.line_edges_mm["touchline_top"][1]


@pytest.mark.parametrize(("table", "cam", "look", "figures", "home"), ACCURACY_CASES)
def test_local_edge_error_bounds_the_measured_edges(calibrated, table, cam, look, figures, home):
    """``local_mm``, the calibration's standard uncertainty of a line edge where a call reads
    it, is a fraction of one sample's residual (``rms_mm``, mostly that sample's noise), and
    two of it cover the RMS distance, all along the boundary lines, between their measured
    edges and the painted ones (the simulator paints them at the nominal +-1.5 mm)."""
    true, cal = calibrated((table, SIZE, cam, look, figures, ()), home)
    pitch = load_pitch(table)
    assert 0.0 < cal.local_mm < 0.7 * cal.rms_mm
    assert cal.line_sigma_mm == cal.local_mm
    errors = []
    for name in ("touchline_top", "touchline_bottom", "goal_line_left", "goal_line_right"):
        band = pitch.line(name)
        for offset, measured in zip((-1.5, 1.5), cal.line_edges_mm[name], strict=True):
            edge_mm = np.linspace(band.a_mm, band.b_mm, 40)[2:-2] + offset * _normal(band)
            seen = band.offset_mm(cal.camera.back_project(true.project(edge_mm)))
            errors.append(seen - measured)
    assert np.sqrt(np.mean(np.square(np.concatenate(errors)))) < 2.0 * cal.local_mm


def _normal(band) -> np.ndarray:
    d = np.subtract(band.b_mm, band.a_mm) / band.length_mm
    return np.array([-d[1], d[0]])


def _dark(image):
    noise = np.random.default_rng(0).normal(0, 2, image.shape)
    return np.clip(image * 0.08 + noise, 0, 255).astype(np.uint8)


def _grey_cloth(image):
    return np.repeat(image.mean(axis=2, keepdims=True), 3, axis=2).astype(np.uint8)


BAD_INPUTS = [
    ("no cloth", _grey_cloth, "no coloured cloth found"),
    ("too dark", _dark, "too dark"),
    ("blank", lambda im: np.full_like(im, 200), "no coloured cloth"),
]


@pytest.mark.parametrize(("what", "spoil", "message"), BAD_INPUTS)
def test_bad_pictures_say_what_is_wrong(render, fistf, what, spoil, message):
    _, image = render(("fistf", SIZE, (), None, None, ()))
    with pytest.raises(CalibrationError, match=message):
        calibrate(spoil(image), fistf)


def test_a_decentred_lens_is_fitted(render, mapping_error, fistf):
    """A lens mounted a little off its axis (decentring p1 = 0.003, p2 = -0.002, OpenCV's
    model) bends the lines by about a millimetre; the fit takes it in."""
    cam = (("k1", -0.2), ("decentring", (0.003, -0.002)), ("tilt", (3.0, -2.0)))
    true, image = render(("fistf", SIZE, cam, None, None, ()))
    cal = calibrate(image, fistf)
    err = mapping_error(cal.camera, true, fistf)
    assert np.median(err) <= 0.05 and err.max() <= 0.2
    # The decentring moves the distortion's centre, as an off-centre principal point does:
    # the fit splits the bend between them, so p1 and p2 come out smaller but alike in sign.
    assert cal.camera.dist[2] > 0.0 > cal.camera.dist[3]


@pytest.mark.parametrize(
    ("what", "cloth_bgr"), [("olive", (33, 115, 105)), ("blue", (150, 90, 30))]
)
def test_a_cloth_of_any_dye_calibrates(render, mapping_error, fistf, what, cloth_bgr):
    """An olive or a blue cloth is a cloth: the lines on it fit as well as on a green one."""
    true, _ = render(("fistf", SIZE, (("tilt", (3.0, -2.0)),), None, None, ()))
    image = Renderer(true, fistf, Look(cloth_bgr=cloth_bgr), seed=5).background()
    cal = calibrate(image, fistf)
    assert np.median(mapping_error(cal.camera, true, fistf)) <= 0.3, what
    assert cal.rms_px <= 0.3, what


def test_a_soft_lens_far_above_still_finds_its_thin_lines(mapping_error, fistf):
    """Seen small (0.33 px/mm: a 3 mm line is a pixel wide) through a soft lens (a blur of
    1.2 px), every line's derivative peaks lie some 2.5 px apart however thin it is: the lines
    are still lines, and the pitch maps to within a fraction of its pixel."""
    true = CameraModel.overhead((960, 720), 1300.0, 2900.0, yaw_deg=35.0)
    empty = SceneFrame(0.0, None, np.zeros(2), Figures.empty())
    image = Renderer(true, fistf, Look(defocus_px=1.2), seed=5).render(empty)
    cal = calibrate(image, fistf)
    assert np.median(mapping_error(cal.camera, true, fistf)) <= 0.3
    # Their edges read a blur sigma or more outside the paint (the lines measure 6-7 mm), and
    # the picture cannot tell that from wider paint: calls read them midway between the two
    # widths, each off by a quarter of the gap and the centre's error, and the stated
    # uncertainty of an edge says so (twice it covers every edge a call reads).
    called = [b for b in fistf.lines if b.kind in ("touchline", "goal_line")]
    read = called_edges(fistf, cal.line_edges_mm)
    err = np.array([np.subtract(read[b.name], (b.inner_mm, b.outer_mm)) for b in called])
    excess = np.array([np.subtract(*cal.line_edges_mm[b.name][::-1]) - b.width_mm for b in called])
    assert np.all(excess > 1.0)  # the case this is about
    assert np.all(np.abs(err) <= 0.25 * excess[:, None] + 0.2)
    assert np.abs(err).max() <= 2.0 * cal.line_sigma_mm


def test_a_dim_hall_still_calibrates(render, mapping_error, fistf):
    """Lit at a third of the usual light (median grey about 25 of 255), the paint still
    stands well clear of the cloth and the sensor noise: that is a picture to calibrate from."""
    true, image = render(("fistf", SIZE, (("tilt", (3.0, -2.0)),), None, None, ()))
    noise = np.random.default_rng(0).normal(0, 1.5, image.shape)
    dim = np.clip(image * 0.3 + noise, 0, 255).astype(np.uint8)
    assert np.median(dim) < 40
    cal = calibrate(dim, fistf)
    assert np.median(mapping_error(cal.camera, true, fistf)) <= 0.3


@pytest.mark.parametrize(
    ("shift_mm", "line"), [(300.0, "goal line at the right"), (-300.0, "goal line at the left")]
)
def test_part_of_the_pitch_outside_names_the_missing_line(render, fistf, shift_mm, line):
    true, _ = render(("fistf", SIZE, (), None, None, ()))
    moved = replace(true, tvec_mm=(true.tvec_mm[0] + shift_mm, *true.tvec_mm[1:]))
    image = Renderer(moved, fistf, Look(), seed=3).background()
    with pytest.raises(CalibrationError, match=f"the {line} of the image was not found: does"):
        calibrate(image, fistf)


def test_wrong_profile_is_refused(render, fistf):
    _, image = render(("subbuteo-classic", SIZE, (("tilt", (2.0, 2.0)),), None, None, ()))
    with pytest.raises(CalibrationError, match=r"'fistf' profile.*is --table right"):
        calibrate(image, fistf)


def test_a_small_coarse_view_is_calibrated_with_its_scatter_stated(render, fistf, mapping_error):
    """A right profile seen small through a coarse codec (480x360, JPEG quality 4) leaves
    its lines' edges 0.4 px (RMS) or more off the model, and the whole recording was refused;
    it calibrates, and the scatter its lines show (``local_mm``, which every call's
    uncertainty takes in) is at least its mapping's median error."""
    true, image = render(("fistf", (480, 360), (("tilt", (3.0, 2.0)),), None, None, ()))
    noisy = np.clip(image + np.random.default_rng(0).normal(0, 12, image.shape), 0, 255)
    _, jpeg = cv2.imencode(".jpg", noisy.astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 4])
    cal = calibrate(cv2.imdecode(jpeg, cv2.IMREAD_COLOR), fistf)
    err = mapping_error(cal.camera, true, fistf)
    assert cal.rms_px > 0.4
    assert cal.local_mm >= np.median(err)


def test_clean_view_removes_what_moves():
    rng = np.random.default_rng(1)
    empty = rng.integers(0, 255, (40, 60, 3), dtype=np.uint8)
    frames = []
    for i in range(9):
        f = empty.copy()
        f[5:15, 4 * i : 4 * i + 8] = (255, 255, 255)  # a figure sliding across
        frames.append(f)
    np.testing.assert_array_equal(clean_view(frames), empty)
    with pytest.raises(CalibrationError, match="no frames"):
        clean_view([])
    with pytest.raises(CalibrationError, match="differ in size"):
        clean_view([empty, empty[:20]])


def test_home_must_be_a_side(render, fistf):
    _, image = render(("fistf", SIZE, (), None, None, ()))
    with pytest.raises(CalibrationError, match="--home must be one of"):
        calibrate(image, fistf, home="north")


def test_the_same_picture_calibrates_the_same_every_time(render, fistf):
    # OpenCV's k-means drew on a process-wide random generator: each call found a slightly
    # different cloth, and with it other outer corners.
    table, cam, look, figures, _ = ACCURACY_CASES[0]  # rendered once for both tests
    _, image = render((table, SIZE, cam, look, figures, ()))
    first, second = lines.find_cloth(image), lines.find_cloth(image)
    assert np.array_equal(first.mask, second.mask)
    assert np.array_equal(first.colour_bgr, second.colour_bgr)
    assert calibrate(image, fistf).to_dict() == calibrate(image, fistf).to_dict()


@pytest.mark.parametrize("table", ["fistf", "subbuteo-classic"])
def test_lines_under_two_pixels_measured_true_to_width(render, table):
    # At 800x600 a 3 mm line is under 2 px wide: read from the derivative's peaks, each
    # edge came out about 0.25 mm outside the painted one.
    cam = (("k1", -0.15), ("tilt", (3.0, 2.0)), ("yaw_deg", 2.0))
    _, image = render((table, (800, 600), cam, 3, 3, ()))
    pitch = load_pitch(table)
    cal = calibrate(image, pitch)
    nominal = {b.name: (b.inner_mm, b.outer_mm) for b in pitch.lines}
    err = np.array([np.subtract(cal.line_edges_mm[n], nominal[n]) for n in cal.lines_used])
    assert abs(np.mean(err[:, 1] - err[:, 0])) <= 0.12
    assert np.median(np.abs(err)) <= 0.1


@pytest.mark.parametrize(
    ("height_mm", "tilt", "loose"),
    [
        (1000.0, (0.0, 0.0), True),  # straight down, the guess of the mount 35 % high
        (1750.0, (0.4, -0.3), True),  # nearly straight, the guess 23 % low
        (1300.0, (4.0, 2.5), False),  # tilted: the lines' perspective pins f
    ],
)
def test_the_stated_focal_and_parallax_uncertainty_cover_their_errors(
    render, fistf, height_mm, tilt, loose
):
    """A flat pitch seen straight down pins only f / H: the stated sigma of f must then be
    as wide as the guess of the mount height is loose, and the parallax sigma of a ball's
    ground point (its centre stands r above the cloth) must cover what the camera puts it
    off by."""
    cam = (("k1", -0.1), ("tilt", tilt), ("yaw_deg", 3.0), ("height_mm", height_mm))
    true, image = render(("fistf", SIZE, cam, 5, None, ()))
    cal = calibrate(image, fistf)
    err = abs(cal.camera.fx_px / true.fx_px - 1.0)
    sigma = cal.focal.sigma_pct / 100.0
    assert err <= 2.0 * sigma, (err, sigma)
    assert (sigma > 0.1) == loose
    r_mm = fistf.profile.ball_radius_mm
    hl, hw = 0.5 * fistf.profile.length_mm - 20.0, 0.5 * fistf.profile.width_mm - 20.0
    xy = np.array([[0.0, 0.0], [hl, 0.0], [0.0, -hw], [-hl, hw], [hl, -hw], [300.0, 200.0]])
    seen = cal.camera.back_project(true.project(np.c_[xy, np.full(len(xy), r_mm)]), r_mm)
    off = np.hypot(*(seen - xy).T)
    # The mapping to the cloth itself is good to about 0.1 mm (``line_sigma_mm``).
    assert (off <= 2.0 * cal.parallax_sigma_mm(xy, r_mm) + 0.1).all()


def test_a_straight_view_keeps_the_camera_where_its_lines_put_it(render, fistf):
    """Seen straight down, a flat pitch maps alike under a shift of the principal point and
    one of the camera sideways: the lines cannot tell them apart. The camera's centre must
    then stay within what the calibration states of it, since every ball's parallax follows
    it (a sideways error of 100 mm puts a ball's ground point a millimetre off)."""
    true, image = render(("fistf", (1640, 1232), (), None, None, ()))
    cal = calibrate(image, fistf)
    off = cal.camera.centre_mm[:2] - true.centre_mm[:2]
    cov = np.asarray(cal.focal.centre_cov_mm2)[:2, :2]
    assert float(off @ np.linalg.solve(cov, off)) <= 3.0**2, (off, np.sqrt(np.diag(cov)))


def test_calls_read_a_line_measured_off_its_paint_width_midway(fistf):
    """A line measured within ``WIDTH_TOLERANCE_MM`` of its profile's width keeps the edges
    measured for the calls; one measured wider or narrower by more is read about its measured
    centre midway between the two widths (3 mm paint: 7 mm measured -> 5 mm, 2 mm ->
    2.5 mm)."""
    touch, goal, halfway = "touchline_bottom", "goal_line_left", "halfway_line"
    near = 3.0 + 0.8 * WIDTH_TOLERANCE_MM
    measured = {touch: (-3.0, 4.0), goal: (-1.2, 0.8), halfway: (-near / 2, near / 2)}
    placed = called_edges(fistf, measured)
    np.testing.assert_allclose(placed[touch], (-2.0, 3.0))
    np.testing.assert_allclose(placed[goal], (-1.45, 1.05))
    assert placed[halfway] == measured[halfway]
    assert set(placed) == set(measured)
