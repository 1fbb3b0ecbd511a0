"""The match report and the export of a recording's calls."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest

from calibration.tables import load_pitch
from web.report import HEAT_BINS, match_report

PITCH = load_pitch("fistf")


def record(frame, x, moving, figures=()):
    return {
        "frame": frame,
        "t_s": frame / 10,
        "ball": {"x_mm": x, "y_mm": 0.0, "moving": moving},
        "figures": list(figures),
    }


def test_the_report_measures_clock_halves_heat_and_the_nearest_team():
    home = {"id": 1, "team": "home", "x_mm": -100.0, "y_mm": 0.0}
    away = {"id": 2, "team": "away", "x_mm": 500.0, "y_mm": 0.0}
    # 10 frames at 10 fps: the ball rests 4 frames, rolls 3, rests at 380 (the shot), then in.
    xs = [-90.0] * 4 + [0.0, 250.0, 380.0] + [380.0] * 2 + [610.0]
    moving = [False] * 4 + [True] * 3 + [False] * 2 + [True]
    records = [
        record(i, x, m, (home, away)) for i, (x, m) in enumerate(zip(xs, moving, strict=True))
    ]
    calls = [
        {"frame": 3, "t_s": 0.3, "kind": "half_time", "team": None},
        {"frame": 9, "t_s": 0.9, "kind": "goal", "team": "home", "position": {"x_mm": 610.0}},
    ]
    by_frame = {r["frame"]: r for r in records}
    report = match_report(PITCH, records, calls, by_frame.get, fps=10.0)

    # The ball-moving clock runs over the 3 frame gaps after a moving frame (DESIGN.md 6).
    assert report.clock_s == pytest.approx(0.3)
    assert report.duration_s == pytest.approx(0.9)
    assert [dict(h) for h in report.score_by_half] == [
        {"half": 1, "home": 0, "away": 0},
        {"half": 2, "home": 1, "away": 0},
    ]
    (goal,) = report.goals
    assert goal.shot_xy_mm == (380.0, 0.0) and goal.half == 2
    assert report.calls[1]["clock_s"] == pytest.approx(0.3)
    assert report.heat.shape == (HEAT_BINS[1], HEAT_BINS[0])
    assert report.heat.sum() == pytest.approx(1.0)
    # Home's figure is nearest for the 5 frames at x <= 0, away's for the 5 at x >= 250.
    assert report.nearest_share == {"home": pytest.approx(0.5), "away": pytest.approx(0.5)}
    assert np.all(np.diff(report.clock_curve[:, 1]) >= 0)


def test_the_report_page_its_file_and_the_exports(client, sample):
    page = client.get("/review/match1/report", headers={"Accept": "text/html"})
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "<h1" in text and text.count('class="pitch-map"') >= 3
    assert 'href="/api/recordings/match1/export.csv"' in text

    file = client.get("/api/recordings/match1/report.html")
    assert file.status_code == 200 and "attachment" in file.headers["Content-Disposition"]
    body = file.get_data(as_text=True)
    assert "<style>" in body and "<script" not in body.split("</head>")[1]

    rows = list(csv.DictReader(io.StringIO(client.get("/api/recordings/match1/export.csv").text)))
    assert [(int(r["index"]), int(r["frame"]), r["kind"], r["team"]) for r in rows] == [
        (0, sample.BALL_OUT_FRAME, "ball_out", "away"),
        (1, sample.GOAL_FRAME, "goal", "home"),
    ]
    data = client.get("/api/recordings/match1/export.json").get_json()
    assert data["summary"]["score"] == {"home": 1, "away": 0}
    assert [c["kind"] for c in data["calls"]] == ["ball_out", "goal"]
    assert client.get("/api/recordings/nope/export.csv").status_code == 404
