"""``tablevar calibrate`` and ``calibrate-lens``: files written, clear one-line failures."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from calibration.calibration_file import read_calibration
from calibration.camera import CameraModel
from calibration.tables import load_pitch
from simulator.look import Look
from simulator.render import Renderer
from tablevar import cli


@pytest.fixture(scope="module")
def table_picture() -> np.ndarray:
    camera = CameraModel.overhead((1280, 960), 1300.0, 1450.0, dist=(-0.1, 0, 0, 0, 0))
    return Renderer(camera, load_pitch("fistf"), Look(), seed=7).background()


def test_calibrate_a_picture_writes_json_overlay_and_report(tmp_path, table_picture, capsys):
    picture, out, overlay = tmp_path / "table.png", tmp_path / "cal.json", tmp_path / "ov.png"
    cv2.imwrite(str(picture), table_picture)
    argv = ["calibrate", str(picture), "--table", "fistf", "--out", str(out)]
    assert cli.main([*argv, "--overlay", str(overlay)]) == 0
    cal = read_calibration(out)
    assert cal.table == "fistf" and cal.home == "left" and cal.rms_px < 0.3
    assert json.loads(out.read_text())["schema_version"] == 1
    drawn = cv2.imread(str(overlay))
    assert drawn.shape == table_picture.shape and (drawn != table_picture).any()
    report = capsys.readouterr().out
    assert "edge residuals: RMS" in report and "touchline_top" in report


def test_calibrate_a_video_uses_its_first_seconds(tmp_path, table_picture):
    video, out = tmp_path / "table.avi", tmp_path / "cal.json"
    h, w = table_picture.shape[:2]
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (w, h))
    for i in range(12):
        frame = table_picture.copy()
        cv2.circle(frame, (200 + 60 * i, 300), 14, (30, 30, 200), -1)  # a figure sliding by
        writer.write(frame)
    writer.release()
    assert cli.main(["calibrate", str(video), "--out", str(out), "--seconds", "1"]) == 0
    assert read_calibration(out).rms_px < 0.3


@pytest.mark.parametrize(
    ("picture", "message"),
    [
        (np.full((960, 1280, 3), 5, np.uint8), "too dark"),
        (np.full((960, 1280, 3), (150, 150, 150), np.uint8), "no coloured cloth"),
    ],
)
def test_bad_picture_fails_with_one_line(tmp_path, capsys, picture, message):
    path = tmp_path / "bad.png"
    cv2.imwrite(str(path), picture)
    assert cli.main(["calibrate", str(path), "--out", str(tmp_path / "c.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("tablevar: error: ") and message in err and "\n" not in err
    assert not (tmp_path / "c.json").exists()


def test_calibrate_lens_without_a_board_says_so(tmp_path, capsys):
    paths = []
    for i in range(3):
        paths.append(tmp_path / f"b{i}.png")
        cv2.imwrite(str(paths[-1]), np.full((480, 640, 3), 255, np.uint8))
    argv = ["calibrate-lens", *map(str, paths), "--out", str(tmp_path / "lens.json")]
    assert cli.main(argv) == 2
    assert "was found in 0 of 3 pictures" in capsys.readouterr().err


def test_missing_source_is_a_clear_error(tmp_path, capsys):
    assert cli.main(["calibrate", str(tmp_path / "nope.png")]) == 2
    assert "no such picture" in capsys.readouterr().err
