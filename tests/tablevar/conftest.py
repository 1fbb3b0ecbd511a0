"""Short simulated recordings, rendered once per session for the command tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hardware.recording import RecordingWriter
from simulator.sim_source import SimSource
from simulator.truth import truth_calls
from tablevar.rules_stage import FistfRules
from tablevar.tracked import TrackedFrame, frame_from_record

SIM_FPS = 20.0


def tracked(rules: FistfRules, record, sigma_mm: float | None = None) -> TrackedFrame:
    """A tracks or truth record as the pipeline would hand it to ``rules``."""
    radius = rules.state.pitch.profile.base_radius_mm
    return frame_from_record(record, radius, ball_sigma_mm=sigma_mm)


def judge(rules: FistfRules, record, sigma_mm: float | None = None) -> list[dict]:
    """One record through the rules stage; its calls as calls.jsonl records."""
    return [c.to_record() for c in rules.judge(tracked(rules, record, sigma_mm))[1]]


def render_recording(folder: Path, scene: str, end_s: float | None = None) -> Path:
    """The scene at 800 x 600, 20 fps, straight camera, with its truth calls up to ``end_s``."""
    source = SimSource(scene, size_px=(800, 600), fps=SIM_FPS, end_s=end_s, realtime=False)
    with RecordingWriter(
        folder,
        fps=SIM_FPS,
        size_px=source.size_px,
        table="fistf",
        source=f"sim:{scene}",
        camera=source.camera,
        readout_s=source.readout_s,
        repeatable=True,
    ) as writer:
        for frame in source.frames():
            writer.write(frame.image_bgr, frame.t_ns)
        calls = truth_calls(source.scene, SIM_FPS)
        writer.write_truth_calls([c for c in calls if c["t_s"] < source.end_s])
    return folder


@pytest.fixture(scope="session")
def sim_recording_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A kick-off and a pass: 7 s, 140 frames."""
    return render_recording(tmp_path_factory.mktemp("sim") / "kickoff", "kickoff_pass", 7.0)


@pytest.fixture(scope="session")
def sim_match_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Kick-off, passes and a ball out over the touchline (a scripted call): 16.5 s."""
    return render_recording(tmp_path_factory.mktemp("sim") / "touchline", "touchline_out")


@pytest.fixture
def sim_recording(tmp_path: Path, sim_recording_template: Path) -> Path:
    """A fresh copy of the short recording (commands write their analysis beside it)."""
    folder = tmp_path / "recordings" / sim_recording_template.name
    shutil.copytree(sim_recording_template, folder)
    return folder
