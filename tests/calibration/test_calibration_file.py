"""calibration.json and lens.json: round trips and clear refusals."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from calibration.calibration_file import (
    Calibration,
    CalibrationFileError,
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
    assert set(data["residuals"]) == {"rms_px", "rms_mm", "local_mm", "per_line_mm", "per_line_px"}
    assert back.line_sigma_mm == 0.03
    measured = back.measured_pitch(fistf).line("touchline_top")
    assert (measured.inner_mm, measured.outer_mm) == (-1.4, 1.6)


def _edited(tmp_path, change) -> str:
    data = _calibration().to_dict()
    change(data)
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(data))
    return str(path)


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
