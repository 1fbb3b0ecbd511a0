"""Fixtures for the web layer: an app on tmp folders, its client, and a real analysis folder.

The analysis folder holds a real MPEG-4 video written with ``cv2.VideoWriter`` whose frame ``i``
is uniformly grey at level ``GREY_STEP * i`` (so a test can tell which frame it got), and JSONL
and JSON files that follow the output contract (DESIGN.md section 4).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

import cv2
import numpy as np
import pytest

from calibration.calibration_file import Calibration, read_calibration, write_calibration
from calibration.camera import CameraModel
from calibration.tables import load_profile
from web.app import create_app, shutdown
from web.chromium import launch_chromium

if TYPE_CHECKING:  # Playwright is imported only where a browser opens (make test-pi has none)
    from playwright.sync_api import Browser, Page

PIN = "2468"
SIZE_PX = (320, 200)
FRAMES = 24
FPS = 25.0
GREY_STEP = 10
BALL_OUT_FRAME = 12
GOAL_FRAME = 18


def ball_x_mm(i: int) -> float:
    """The ball rolls toward the right goal line (outer edge at x = 600) and over it."""
    return 560.0 + 3.0 * i


def tracks_record(i: int) -> dict:
    return {
        "frame": i,
        "t_s": round(i / FPS, 4),
        "ball": {"x_mm": ball_x_mm(i), "y_mm": 40.0, "moving": True},
        "figures": [
            {"id": 1, "team": "home", "x_mm": 520.0, "y_mm": 30.0},
            {"id": 2, "team": "home", "x_mm": 250.0, "y_mm": -100.0},
            {"id": 12, "team": "away", "x_mm": 580.0, "y_mm": 0.0},
            {"id": 13, "team": "away", "x_mm": 400.0, "y_mm": 200.0},
        ],
    }


def call_record(frame: int, kind: str, **extra) -> dict:
    record = {
        "frame": frame,
        "t_s": round(frame / FPS, 4),
        "kind": kind,
        "law": "FISTF 9",
        "line": "goal_line",
        "fully_crossed": True,
        "margin_mm": 1.2,
        "uncertainty_mm": 0.4,
        "team": "away",
        "restart": "goal_kick",
        "position": {"x_mm": ball_x_mm(frame), "y_mm": 40.0},
        "figure": None,
        "evidence": f"evidence/{frame}.jpg",
    }
    record.update(extra)
    return record


def write_jpeg(path: Path, colour: tuple[int, int, int] = (40, 140, 40)) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    image = np.full((90, 120, 3), colour, np.uint8)
    cv2.circle(image, center=(60, 45), radius=12, color=(255, 255, 255), thickness=-1)
    assert cv2.imwrite(str(path), image)
    return path


PLAY_FIGS = (
    "home 1 gk -605,0; home 7 -23,0; home 8 350,0; home 5 -100,300; "
    "away 2 gk 605,0; away 9 60,-100; away 10 150,0"
)


class Play:
    """Real observations (the rules' one-line notation) fed to a hub at 50 fps: the calls and
    the clock on the page come from the rules, as in a live match."""

    def __init__(self, hub, frame: int = 0, publish: bool = True):
        from rules.notation import parse_observation

        self.hub, self.frame, self._parse = hub, frame, parse_observation
        self.publish = publish  # False: the test publishes the calls with their pictures
        self.figs = PLAY_FIGS

    def __call__(self, *lines: str) -> list:
        calls = []
        for line in lines:
            obs = self._parse(f"{line}; {self.figs}", t_s=self.frame / 50, frame=self.frame)
            calls += self.hub.observe(obs, publish=self.publish)
            self.frame += 1
        return calls

    def roll(self, seconds: float) -> None:
        """The ball rolls to and fro in midfield (the clock runs while it is in play)."""
        self(*[f"ball {((i * 4) % 300) - 150},0 moving" for i in range(int(seconds * 50))])

    def rest(self, frames: int = 5) -> None:
        self(*["ball -150,0 rest"] * frames)

    def goal(self):
        """Home shoots from inside the right shooting zone into the goal (FISTF 7.1)."""
        calls = self(
            "ball 373,0 rest", "ball 373,0 rest; flick 8", "ball 500,0 moving", "ball 621,0 moving"
        )
        return next(c for c in calls if c.kind == "goal")

    def ball_out(self):
        """Home plays the ball over the top touchline: a throw-in for away (FISTF 14.1)."""
        calls = self(
            "ball -100,300 rest",
            "ball -100,300 rest; flick 5",
            "ball -100,390 moving",
            "ball -100,420 moving",
        )
        return next(c for c in calls if c.kind == "ball_out")

    def close_goal(self):
        """A shot 0.2 mm inside the shooting zone into the goal: the referee decides."""
        x = 300 + 1.5 + 10.5 + 0.2
        calls = self(
            f"ball {x},0 rest",
            f"ball {x},0 rest; flick 8",
            "ball 500,0 moving",
            "ball 621,0 moving",
        )
        return next(c for c in calls if c.kind == "goal" and c.too_close_to_call)

    def close_offside(self):
        """Home 7 plays the ball forward in the right shooting zone while home 8 stands 0.4 mm
        nearer the goal line than the ball, only the keeper nearer (FISTF 13.1): too close to
        call, play goes on."""
        self.figs = (
            f"home 1 gk -605,0; home 5 -100,300; home 6 -300,-200; home 7 397,0; "
            f"home 8 {597 - 166.1 - 12},100; away 2 gk 590,0; away 9 100,-100; away 10 200,0"
        )
        calls = self("ball 420,0 rest", "ball 420,0 rest; flick 7", "ball 430,0 moving")
        return next(c for c in calls if c.kind == "offside" and c.too_close_to_call)


def write_ball_view(folder: Path, ball_bgr=(20, 110, 240), ball_xy_mm=(200.0, -100.0)):
    """The plain picture of the table kept with ``folder``'s calibration: a cloth with one
    ball of ``ball_bgr`` at ``ball_xy_mm``; returns the ball's centre in pixels."""
    cal = read_calibration(folder / "calibration.json")
    r_mm = load_profile(cal.table).ball_radius_mm
    centre = cal.camera.project(np.array([[*ball_xy_mm, r_mm]]))[0]
    r_px = r_mm / float(cal.camera.mm_per_px(np.array([ball_xy_mm]), r_mm)[0])
    image = np.full((SIZE_PX[1], SIZE_PX[0], 3), (40, 130, 45), np.uint8)
    cv2.circle(image, np.round(centre).astype(int).tolist(), round(r_px), ball_bgr, -1)
    assert cv2.imwrite(str(folder / "calibration_view.png"), image)
    return centre


def write_analysis(folder: Path, frames: int = FRAMES) -> Path:
    """A recording folder with video.mp4, tracks, calls, summary, calibration and evidence."""
    folder.mkdir(parents=True)
    writer = cv2.VideoWriter(
        str(folder / "video.mp4"), cv2.VideoWriter_fourcc(*"mp4v"), FPS, SIZE_PX
    )
    assert writer.isOpened()
    for i in range(frames):
        writer.write(np.full((SIZE_PX[1], SIZE_PX[0], 3), GREY_STEP * i, np.uint8))
    writer.release()
    with (folder / "tracks.jsonl").open("w", encoding="utf-8") as f:
        for i in range(frames):
            f.write(json.dumps(tracks_record(i)) + "\n")
    calls = [
        call_record(BALL_OUT_FRAME, "ball_out", margin_mm=0.3, uncertainty_mm=0.5),
        call_record(GOAL_FRAME, "goal", team="home", restart="kick_off", law="FISTF 10"),
    ]
    (folder / "calls.jsonl").write_text("".join(json.dumps(c) + "\n" for c in calls), "utf-8")
    for call in calls:
        write_jpeg(folder / call["evidence"])
    summary = {
        "frames": frames,
        "fps": FPS,
        "clock_s": 0.9,
        "score": {"home": 1, "away": 0},
        "calls": len(calls),
        "ms_per_frame": 2.1,
    }
    (folder / "summary.json").write_text(json.dumps(summary), "utf-8")
    used = ("goal_line_left", "goal_line_right", "touchline_top", "touchline_bottom")
    calibration = Calibration(
        table="fistf",
        image_size_px=SIZE_PX,
        camera=CameraModel.overhead(SIZE_PX, height_mm=1300.0, view_width_mm=1500.0),
        home="left",
        line_edges_mm={"goal_line_right": (-1.6, 1.4)},
        rms_px=0.12,
        rms_mm=0.6,
        per_line_px=dict.fromkeys(used, 0.1),
        per_line_mm=dict.fromkeys(used, 0.5),
        lines_used=used,
    )
    write_calibration(folder / "calibration.json", calibration)
    return folder


@pytest.fixture(scope="session")
def sample() -> SimpleNamespace:
    """The constants and record builders of this module, for tests (which cannot import it)."""
    names = ("PIN", "SIZE_PX", "FRAMES", "FPS", "GREY_STEP", "BALL_OUT_FRAME", "GOAL_FRAME")
    return SimpleNamespace(
        **{name: globals()[name] for name in names},
        call_record=call_record,
        tracks_record=tracks_record,
        write_jpeg=write_jpeg,
        write_analysis=write_analysis,
        write_ball_view=write_ball_view,
        Play=Play,
    )


@pytest.fixture(scope="session")
def analysis_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One analysis folder written once per session (writing videos costs time)."""
    return write_analysis(tmp_path_factory.mktemp("analysis") / "match1")


@pytest.fixture
def recordings_dir(tmp_path: Path, analysis_template: Path) -> Path:
    root = tmp_path / "recordings"
    root.mkdir()
    shutil.copytree(analysis_template, root / "match1")
    (root / "not-a-recording").mkdir()
    return root


@pytest.fixture
def config(tmp_path: Path, recordings_dir: Path) -> dict:
    out = tmp_path / "out"
    out.mkdir()
    return {
        "TESTING": True,
        "PIN": PIN,
        "RECORDINGS_DIR": recordings_dir,
        "OUTPUT_DIR": out,
        "MATCH_LOG": tmp_path / "match.sqlite",
        "SSE_HEARTBEAT_S": 0.2,
    }


@pytest.fixture
def app(config: dict):
    app = create_app(config)
    yield app
    shutdown(app)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="session")
def chromium() -> Iterator[Browser]:
    """Debian's headless Chromium, launched once per test worker (a launch costs seconds)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = launch_chromium(p)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def browser(chromium: Browser) -> Iterator[Browser]:
    """The worker's Chromium for one test module: the pages the module left open are closed
    with it, as if the browser were its own."""
    yield chromium
    for context in chromium.contexts:
        context.close()


@pytest.fixture
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A fresh page: the test module's ``TIMEOUT_MS`` bounds every wait, and a JavaScript error
    on the page fails the test."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(request.module.TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"
