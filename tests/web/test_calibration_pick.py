"""Picking the ball on the calibration page: its colour read where clicked and saved."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from calibration.calibration_file import read_calibration
from vision.colour import parse_colour
from web.app import set_ball_colour
from web.auth import PIN_HEADER

ORANGE_BGR = (20, 110, 240)


@pytest.fixture
def picture(recordings_dir, sample):
    """The kept picture of ``match1`` with an orange ball; the ball's centre in pixels."""
    return sample.write_ball_view(recordings_dir / "match1", ORANGE_BGR)


def pick(client, xy, recording="match1", **headers):
    query = f"?recording={recording}" if recording else ""
    body = {"x_px": float(xy[0]), "y_px": float(xy[1])}
    return client.post(f"/api/calibration/ball{query}", json=body, headers=headers)


def test_the_clicked_ball_colour_is_saved_with_the_recordings_calibration(
    client, recordings_dir, picture, sample
):
    report = client.get("/api/calibration?recording=match1").json
    assert report["view"] and report["ball_seen"] == 1.0  # every tracks record has the ball
    response = pick(client, picture + 1.0, **{PIN_HEADER: sample.PIN})
    assert response.status_code == 200
    saved = read_calibration(recordings_dir / "match1" / "calibration.json").ball_colour
    assert saved == response.json["ball_colour"]
    assert np.abs(np.array(parse_colour(saved)) - ORANGE_BGR).max() <= 2
    page = client.get("/api/calibration/view.png?recording=match1")
    assert page.mimetype == "image/png" and page.data[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"x_px": 5.0, "y_px": 5.0}, 422, "nothing but the cloth"),
        ({"x_px": "12", "y_px": 5.0}, 400, "x_px must be a finite number"),
        ({"x_px": 1.0}, 400, "y_px must be a finite number"),
        ({"x_px": 1e6, "y_px": 5.0}, 422, "off the"),
    ],
)
def test_a_bad_pick_is_refused_and_nothing_saved(
    client, recordings_dir, picture, sample, body, status, message
):
    path = recordings_dir / "match1" / "calibration.json"
    before = path.read_bytes()
    response = client.post(
        "/api/calibration/ball?recording=match1", json=body, headers={PIN_HEADER: sample.PIN}
    )
    assert response.status_code == status and message in response.json["message"]
    assert path.read_bytes() == before


def test_picking_needs_the_pin_and_a_kept_picture(client, recordings_dir, picture, sample):
    assert pick(client, picture).status_code == 403
    (recordings_dir / "match1" / "calibration_view.png").unlink()
    missing = pick(client, picture, **{PIN_HEADER: sample.PIN})
    assert missing.status_code == 409 and "no picture of the table" in missing.json["message"]
    assert not client.get("/api/calibration?recording=match1").json["view"]


def test_a_live_pick_goes_to_the_running_pipeline(client, app, recordings_dir, picture, sample):
    out = app.config["OUTPUT_DIR"]
    for name in ("calibration.json", "calibration_view.png"):
        shutil.copy(recordings_dir / "match1" / name, out / name)
    picked = []
    set_ball_colour(app, picked.append)
    response = pick(client, picture, recording=None, **{PIN_HEADER: sample.PIN})
    assert response.status_code == 200 and picked == [response.json["ball_colour"]]
    # The pipeline saves it with its own calibration; the page leaves the file to it.
    assert read_calibration(out / "calibration.json").ball_colour is None
