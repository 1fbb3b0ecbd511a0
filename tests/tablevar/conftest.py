"""A short simulated recording, rendered once per session for the command tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hardware.recording import RecordingWriter
from hardware.sim_source import SimSource
from hardware.truth import truth_calls

SIM_SCENE = "kickoff_pass"
SIM_END_S = 7.0
SIM_FPS = 20.0


@pytest.fixture(scope="session")
def sim_recording_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A kick-off and a pass at 800 x 600, 20 fps, straight camera, with the scene's truth."""
    folder = tmp_path_factory.mktemp("sim") / "kickoff"
    source = SimSource(SIM_SCENE, size_px=(800, 600), fps=SIM_FPS, end_s=SIM_END_S, realtime=False)
    with RecordingWriter(
        folder,
        fps=SIM_FPS,
        size_px=source.size_px,
        table="fistf",
        source=f"sim:{SIM_SCENE}",
        camera=source.camera,
    ) as writer:
        for frame in source.frames():
            writer.write(frame.image_bgr, frame.t_ns)
        calls = truth_calls(source.scene, SIM_FPS)
        writer.write_truth_calls([c for c in calls if c["t_s"] < SIM_END_S])
    return folder


@pytest.fixture
def sim_recording(tmp_path: Path, sim_recording_template: Path) -> Path:
    """A fresh copy of the simulated recording (commands write their analysis beside it)."""
    folder = tmp_path / "recordings" / sim_recording_template.name
    shutil.copytree(sim_recording_template, folder)
    return folder
