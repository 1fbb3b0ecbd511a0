"""calibration.json and lens.json: round trips and clear refusals."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from calibration.calibration_file import (
    Calibration,
    CalibrationFileError,
    CameraControls,
    FocalCheck,
    LensModel,
    read_calibration,
    read_lens,
    write_calibration,
    write_lens,
)
from calibration.camera import CameraModel


def _calibration() -> Calibration:
    camera = CameraModel.overhead((1280, 960), 1300, 1400, dist=(-0.2, 0.03, 0, 0, 0))
    return Calibration(
        table="fistf",
        image_size_px=(1280, 960),
        camera=camera,
        home="left",
        line_edges_mm={"touchline_top": (-1.4, 1.6), "halfway_line": (-1.5, 1.5)},
        rms_px=0.12,
        rms_mm=0.1,
        per_line_px={"touchline_top": 0.1, "halfway_line": 0.13},
        per_line_mm={"touchline_top": 0.09, "halfway_line": 0.11},
        lines_used=("touchline_top", "halfway_line"),
        local_mm=0.03,
    )


def test_round_trip(tmp_path, fistf):
    path = tmp_path / "calibration.json"
    cal = _calibration()
    write_calibration(path, cal)
    back = read_calibration(path)
    assert back == cal
    data = json.loads(path.read_text())
    assert data["schema_version"] == 1
    assert data["line_edges_mm"]["touchline_top"] == {"inner_mm": -1.4, "outer_mm": 1.6}
    assert set(data["residuals"]) == {
        "rms_px",
        "rms_mm",
        "local_mm",
        "width_doubt_mm",
        "per_line_mm",
        "per_line_px",
    }
    assert back.line_sigma_mm == 0.03
    measured = back.measured_pitch(fistf).line("touchline_top")
    assert (measured.inner_mm, measured.outer_mm) == (-1.4, 1.6)


def _edited(tmp_path, change) -> str:
    data = _calibration().to_dict()
    change(data)
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_a_write_that_fails_midway_leaves_the_old_file_whole(tmp_path, monkeypatch):
    """A reader (the page, a process started again after a power cut) never meets half a
    file: the new one replaces the old only once it is wholly on disk."""
    path = tmp_path / "calibration.json"
    old = _calibration()
    write_calibration(path, old)

    def power_cut(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr("calibration.calibration_file.os.fsync", power_cut)
    with pytest.raises(OSError):
        write_calibration(path, replace(old, ball_colour="orange"))
    assert read_calibration(path) == old
    assert [p.name for p in tmp_path.iterdir()] == ["calibration.json"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(extra=1), "unknown keys \\['extra'\\]"),
        (lambda d: d.update(schema_version=2), "schema_version 2"),
        (lambda d: d.pop("schema_version"), "schema_version None"),
        (lambda d: d.pop("home"), "lacks keys \\['home'\\]"),
        (lambda d: d["residuals"].update(max_px=3), "'residuals' has unknown keys"),
        (lambda d: d.update(home="middle"), "home must be one of"),
        (lambda d: d["line_edges_mm"].update(x={"inner_mm": 2, "outer_mm": 1}), "inner edge"),
        (lambda d: d.update(camera={"size_px": [1, 2]}), "malformed"),
    ],
)
def test_refuses_malformed_files(tmp_path, change, message):
    with pytest.raises(CalibrationFileError, match=message):
        read_calibration(_edited(tmp_path, change))


@pytest.mark.parametrize(
    ("text", "message"), [("{nope", "not valid JSON"), ("[1, 2]", "must be a JSON object")]
)
def test_refuses_what_is_not_a_calibration(tmp_path, text, message):
    path = tmp_path / "calibration.json"
    path.write_text(text)
    with pytest.raises(CalibrationFileError, match=message):
        read_calibration(path)


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(CalibrationFileError, match="cannot read"):
        read_calibration(tmp_path / "nowhere.json")


def test_lens_round_trip_and_refusal(tmp_path):
    lens = LensModel(
        (1280, 960),
        ((1000.0, 0.0, 640.0), (0.0, 1000.0, 480.0), (0.0, 0.0, 1.0)),
        (-0.2, 0.05, 0.0, 0.0, 0.0),
        0.21,
        6,
    )
    path = tmp_path / "lens.json"
    write_lens(path, lens)
    assert read_lens(path) == lens
    data = json.loads(path.read_text())
    data["focal"] = 3
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationFileError, match="unknown keys \\['focal'\\]"):
        read_lens(path)
    np.testing.assert_allclose(np.asarray(lens.camera_matrix)[0, 0], 1000.0)


@pytest.mark.parametrize("focal", [None, FocalCheck("goals", 0.45, 2), FocalCheck("none", 30.0)])
def test_focal_check_round_trips_and_older_files_lack_it(tmp_path, focal):
    path = tmp_path / "calibration.json"
    cal = replace(_calibration(), focal=focal)
    write_calibration(path, cal)
    data = json.loads(path.read_text("utf-8"))
    assert ("focal" in data) == (focal is not None)
    back = read_calibration(path)
    assert back.focal == focal
    if focal is not None:
        assert back.focal.constrained == (focal.source != "none")


def test_an_older_file_without_the_local_edge_error_falls_back_to_the_rms(tmp_path):
    path = tmp_path / "calibration.json"
    write_calibration(path, replace(_calibration(), local_mm=None))
    assert "local_mm" not in json.loads(path.read_text("utf-8"))["residuals"]
    back = read_calibration(path)
    assert back.local_mm is None and back.line_sigma_mm == back.rms_mm == 0.1


def test_the_doubt_of_the_paint_s_width_adds_to_an_edge_s_uncertainty(tmp_path):
    """Lines measured wider than their paint (thin and blurred) put their edges in doubt: the
    uncertainty a call reads adds that doubt in quadrature, saved and read back; an older file
    without it has none."""
    path = tmp_path / "calibration.json"
    write_calibration(path, replace(_calibration(), width_doubt_mm=0.04))
    assert read_calibration(path).line_sigma_mm == pytest.approx(0.05)
    data = _calibration().to_dict()
    del data["residuals"]["width_doubt_mm"]
    path.write_text(json.dumps(data), "utf-8")
    assert read_calibration(path).width_doubt_mm == 0.0


def test_unknown_focal_source_is_refused(tmp_path):
    path = tmp_path / "calibration.json"
    data = _calibration().to_dict()
    data["focal"] = {"source": "guess", "sigma_pct": 1.0, "goals": 0}
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(CalibrationFileError, match="focal source must be one of"):
        read_calibration(path)


@pytest.mark.parametrize("colour", [None, "orange", "#f08c1e"])
def test_named_ball_colour_round_trips_and_older_files_lack_it(tmp_path, colour):
    path = tmp_path / "calibration.json"
    write_calibration(path, replace(_calibration(), ball_colour=colour))
    assert ("ball_colour" in json.loads(path.read_text("utf-8"))) == (colour is not None)
    assert read_calibration(path).ball_colour == colour


def test_the_centre_covariance_round_trips(tmp_path):
    cov = ((4.0, 0.5, 1.0), (0.5, 9.0, -2.0), (1.0, -2.0, 900.0))
    cal = replace(_calibration(), focal=FocalCheck("none", 25.0, 2, cov))
    path = tmp_path / "calibration.json"
    write_calibration(path, cal)
    assert read_calibration(path).focal == cal.focal


@pytest.mark.parametrize("height_rel", [0.05, 0.2])
def test_the_parallax_sigma_is_the_shift_of_a_camera_at_another_height(height_rel):
    """Raising the camera by e * H while scaling f by 1 + e leaves the cloth's image as it was
    (so the lines cannot tell), and moves a ball's ground point by about r * d / H * e: the
    parallax sigma of a height uncertain by e * H is that shift."""
    true = CameraModel.overhead((1280, 960), 1300.0, 1400.0)
    raised = CameraModel.overhead((1280, 960), 1300.0 * (1 + height_rel), 1400.0)
    r_mm = 10.5
    xy = np.array([[0.0, 0.0], [300.0, 0.0], [-600.0, 200.0], [580.0, -370.0]])
    shift = np.hypot(*(raised.back_project(true.project(np.c_[xy, np.full(4, r_mm)]), r_mm) - xy).T)
    cov = np.diag([0.0, 0.0, (height_rel * 1300.0) ** 2])
    cal = replace(
        _calibration(), camera=true, focal=FocalCheck("none", 0.0, 0, tuple(map(tuple, cov)))
    )
    sigma = cal.parallax_sigma_mm(xy, r_mm)
    assert sigma[0] == pytest.approx(0.0, abs=1e-9)  # under the camera: no parallax
    assert sigma[1:] == pytest.approx(shift[1:], rel=0.1 + height_rel)
    assert (np.diff(sigma[:2]) > 0).all() and sigma[2] > sigma[1]
    assert cal.parallax_sigma_mm(xy, 0.0) == pytest.approx(np.zeros(4))  # on the cloth: none


def test_the_parallax_sigma_counts_the_nadirs_error():
    # The nadir off by s mm moves a point z up by z / H * s, wherever it is.
    cov = np.diag([4.0, 4.0, 0.0])
    cal = replace(_calibration(), focal=FocalCheck("lines", 0.5, 0, tuple(map(tuple, cov))))
    height = cal.camera.centre_mm[2]
    sigma = cal.parallax_sigma_mm(np.array([[0.0, 0.0], [500.0, 300.0]]), 10.5)
    assert sigma == pytest.approx(np.full(2, 2.0 * 10.5 / height))


def test_an_older_file_reads_the_height_from_the_focal_sigma():
    """Before the centre's covariance was written, ``sigma_pct`` held what the lines said of f;
    with the fit's prior (30 %) it bounds the height; without a focal check, no term."""
    xy = np.array([[500.0, 0.0]])
    assert replace(_calibration(), focal=None).parallax_sigma_mm(xy, 10.5)[0] == 0.0
    loose = replace(_calibration(), focal=FocalCheck("none", 200.0)).parallax_sigma_mm(xy, 10.5)
    tight = replace(_calibration(), focal=FocalCheck("lines", 0.5)).parallax_sigma_mm(xy, 10.5)
    height = _calibration().camera.centre_mm[2]
    rel = (2.0**-2 + 0.3**-2) ** -0.5
    assert loose[0] == pytest.approx(10.5 * 500.0 / height * rel, rel=0.02)
    assert tight[0] == pytest.approx(10.5 * 500.0 / height * 0.005, rel=0.02)


def test_locked_camera_controls_round_trip_and_are_checked(tmp_path):
    controls = CameraControls("imx708", (2304, 1296), 10000, 2.5, (1.9, 1.6), 1.1, 17858, 50)
    path = tmp_path / "calibration.json"
    write_calibration(path, replace(_calibration(), camera_controls=controls))
    assert read_calibration(path).camera_controls == controls
    data = json.loads(path.read_text("utf-8"))
    data["camera_controls"]["exposure_us"] = 20000  # longer than a frame
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(CalibrationFileError, match="at most the frame duration"):
        read_calibration(path)
    del data["camera_controls"]["mains_hz"]
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(CalibrationFileError, match="'camera_controls' lacks keys \\['mains_hz'\\]"):
        read_calibration(path)
