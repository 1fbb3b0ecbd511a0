"""Render a scripted scene into a recording folder, with its exact ground truth.

``simulate`` draws every frame of a compiled scene with the ``Renderer`` and writes it through
``RecordingWriter``, together with the per-frame truth (``truth.jsonl``) and the calls a referee
should make (``truth_calls.jsonl``). The camera and the look come from the seed (a straight
camera and the default look for the demo), so the same scene name and seed always give the same
recording.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from calibration.camera import CameraModel
from hardware.look import Look
from hardware.recording import META_NAME, RecordingError, RecordingWriter, read_meta
from hardware.render import Renderer
from hardware.scene_camera import clip_camera, clip_look
from hardware.scene_library import build_scene
from hardware.scenes import CompiledScene
from hardware.truth import frame_truth, truth_calls

STRAIGHT_SCENES = ("demo",)  # scenes drawn with a straight camera and the default look


@dataclass(frozen=True, slots=True)
class SimulationResult:
    """What ``simulate`` wrote: folder, frames, calls and wall time (render + encode), s."""

    folder: Path
    frames: int
    calls: int
    seconds: float


def simulate_named(
    name: str,
    out: str | Path,
    *,
    seed: int = 0,
    size_px: tuple[int, int] = (1280, 960),
    fps: float = 60.0,
    table: str = "fistf",
    max_frames: int | None = None,
    progress: bool = True,
    lossless: bool = False,
) -> SimulationResult:
    """Build the named scene for ``seed`` and render it into ``out`` (see ``simulate``)."""
    compiled = build_scene(name, seed, table)
    rng = np.random.default_rng([seed, 7])
    straight = name in STRAIGHT_SCENES
    camera = clip_camera(rng, compiled.pitch, size_px, straight=straight)
    look = clip_look(rng, default=straight)
    return simulate(
        compiled,
        out,
        camera=camera,
        look=look,
        fps=fps,
        seed=seed,
        table=table,
        max_frames=max_frames,
        progress=progress,
        lossless=lossless,
    )


def simulate(
    compiled: CompiledScene,
    out: str | Path,
    *,
    camera: CameraModel,
    look: Look,
    fps: float = 60.0,
    seed: int = 0,
    table: str = "fistf",
    max_frames: int | None = None,
    progress: bool = True,
    lossless: bool = False,
) -> SimulationResult:
    """Render ``compiled`` at ``fps`` into the recording folder ``out`` (replacing one there).

    Args:
        compiled: the scene.
        out: recording folder.
        camera: camera model; frames have its ``size_px``.
        look: colours, light and noise.
        fps: frame rate; frame i shows the scene at ``t = i / fps``.
        seed: renderer seed (cloth texture, sensor noise).
        table: table profile name stored in ``meta.json``.
        max_frames: stop after this many frames (short test clips); truth calls after the
            last frame are left out.
        progress: show a tqdm progress bar on stderr.
        lossless: write the frames losslessly (FFV1), exactly as rendered, as a camera
            delivers them to the live pipeline, instead of as an H.264 recording.
    """
    n = compiled.frame_count(fps)
    if max_frames is not None:
        n = min(n, max_frames)
    renderer = Renderer(camera, compiled.pitch, look, seed=seed)
    truth = frame_truth(compiled, fps)[:n]
    calls = [c for c in truth_calls(compiled, fps) if c["frame"] < n]
    start = time.perf_counter()
    with RecordingWriter(
        out,
        fps=fps,
        size_px=camera.size_px,
        table=table,
        source=f"sim:{compiled.scene.name}",
        camera=camera,
        overwrite=_holds_simulation(Path(out)),
        repeatable=True,  # a clip and its exact truth are the same on every run
        lossless=lossless,
    ) as writer:
        bar = tqdm(
            range(n), desc=f"simulate {compiled.scene.name}", unit="frame", disable=not progress
        )
        for i in bar:
            image = renderer.render(compiled.frame(i / fps))
            writer.write(image, round(i * 1e9 / fps), truth[i])
        writer.write_truth_calls(calls)
    return SimulationResult(Path(out), n, len(calls), time.perf_counter() - start)


def _holds_simulation(folder: Path) -> bool:
    """Whether ``folder`` holds a simulated recording, which can be rendered again at will.

    A real recording in the way is never replaced: RecordingWriter then refuses the folder.
    """
    if not (folder / META_NAME).exists():
        return False
    try:
        return read_meta(folder).source.startswith("sim")
    except RecordingError:
        return False
