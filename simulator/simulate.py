"""Render a scripted scene into a recording folder, with its exact ground truth.

``simulate`` draws every frame of a compiled scene with the ``Renderer`` and writes it through
``RecordingWriter``, together with the per-frame truth (``truth.jsonl``) and the calls a referee
should make (``truth_calls.jsonl``). The camera and the look come from the seed (a straight
camera and the default look for the demo), so the same scene name and seed always give the same
recording.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from calibration.camera import CameraModel
from hardware.recording import META_NAME, RecordingError, RecordingWriter, read_meta
from simulator.look import Look
from simulator.render import Renderer, default_exposure_s
from simulator.scene_camera import clip_camera, clip_look
from simulator.scene_library import build_scene
from simulator.scene_stress import Conditions, draw
from simulator.scenes import CompiledScene
from simulator.truth import clip_truth

STRAIGHT_SCENES = ("demo",)  # scenes drawn with a straight camera and the default look
SIM_NAME = "sim.json"


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
    size_px: tuple[int, int] | None = None,
    fps: float | None = None,
    table: str = "fistf",
    max_frames: int | None = None,
    progress: bool = True,
    lossless: bool = False,
    codec: str | None = None,
    bitrate_kbps: float | None = None,
    readout_s: float | None = None,
    start_s: float | None = None,
    vary: str | None = None,
    exposure_s: float | None = None,
) -> SimulationResult:
    """Build the named scene for ``seed`` and render it into ``out`` (see ``simulate``).

    Without ``vary`` the clip is 1280x960 at 60 fps in H.264 unless given otherwise. With
    ``vary`` (a factor of ``simulator.scene_stress.FACTORS``) the camera, look, size, frame
    rate, codec, shutter and start are drawn from the seed as that factor says; the other
    arguments, when given, override the draw.
    """
    compiled = build_scene(name, seed, table)
    rng = np.random.default_rng([seed, 7])
    if vary is not None:
        cond = draw(vary, rng, compiled.pitch, size_px or (1280, 960), fps or 30.0)
        camera, look = cond.camera, cond.look
        if size_px is not None and size_px != camera.size_px:
            raise ValueError("--size cannot be combined with a varied resolution")
        if start_s is None and cond.mid_play:
            start_s = mid_play_start_s(compiled, rng)
    else:
        straight = name in STRAIGHT_SCENES
        camera = clip_camera(rng, compiled.pitch, size_px or (1280, 960), straight=straight)
        look = clip_look(rng, default=straight)
        cond = Conditions("base", look, camera, fps or 60.0)
    return simulate(
        compiled,
        out,
        camera=camera,
        look=look,
        fps=fps or cond.fps,
        seed=seed,
        table=table,
        max_frames=max_frames,
        progress=progress,
        lossless=lossless,
        codec=codec or cond.codec,
        bitrate_kbps=bitrate_kbps if bitrate_kbps is not None else cond.bitrate_kbps,
        readout_s=readout_s if readout_s is not None else cond.readout_s,
        start_s=start_s or 0.0,
        exposure_s=min(cond.exposure_s, 1 / (fps or cond.fps))
        if exposure_s is None
        else exposure_s,
    )


def mid_play_start_s(
    compiled: CompiledScene, rng: np.random.Generator, min_clip_s: float = 2.0
) -> float:
    """A start time inside one of the scene's rolls, the ball well under way.

    The clip then opens with the ball rolling wherever that roll has taken it: no kick-off,
    no ball on the centre spot. Only rolls that leave at least ``min_clip_s`` of clip count;
    a scene without one starts at 0.
    """
    end = compiled.duration_s - min_clip_s
    rolls = [s for s in compiled.strikes if s.t_rest_s - s.t_s > 0.3 and s.t_s + 0.1 < end]
    if not rolls:
        return 0.0
    roll = rolls[int(rng.integers(len(rolls)))]
    return float(rng.uniform(roll.t_s + 0.1, min(roll.t_rest_s - 0.1, end)))


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
    codec: str = "h264",
    bitrate_kbps: float | None = None,
    readout_s: float = 0.0,
    start_s: float = 0.0,
    exposure_s: float | None = None,
) -> SimulationResult:
    """Render ``compiled`` at ``fps`` into the recording folder ``out`` (replacing one there).

    Args:
        compiled: the scene.
        out: recording folder.
        camera: camera model; frames have its ``size_px``.
        look: colours, light and noise.
        fps: frame rate; frame i shows the scene at ``t = start_s + i / fps``.
        seed: renderer seed (cloth texture, sensor noise).
        table: table profile name stored in ``meta.json``.
        max_frames: stop after this many frames (short test clips); truth calls after the
            last frame are left out.
        progress: show a tqdm progress bar on stderr.
        lossless: write the frames losslessly (FFV1), exactly as rendered, as a camera
            delivers them to the live pipeline, instead of as an H.264 recording.
        codec: ``h264`` or ``mpeg4`` (MPEG-4 part 2), when not lossless.
        bitrate_kbps: the codec's bitrate (None: constant quality).
        readout_s: rolling shutter readout time (``Renderer``); 0 is a global shutter.
        start_s: scene time of the first frame, rounded to a whole frame: a clip from the
            middle of play. Truth frames, times and calls count from the clip's first frame.
        exposure_s: shutter time (``Renderer``), at most a frame period; None:
            ``simulator.render.default_exposure_s``.
    """
    first = round(start_s * fps)
    n = compiled.frame_count(fps) - first
    if start_s < 0 or n <= 0:
        raise ValueError(f"start_s {start_s} s lies outside the scene (0-{compiled.duration_s} s)")
    if not 0 <= readout_s < 1 / fps:
        raise ValueError(f"a rolling shutter reads out within a frame (< {1000 / fps:.1f} ms)")
    if exposure_s is None:
        exposure_s = default_exposure_s(fps)
    if not 0 < exposure_s <= 1 / fps:
        raise ValueError(f"an exposure lasts 0-{1000 / fps:.1f} ms at {fps:g} fps: {exposure_s} s")
    if max_frames is not None:
        n = min(n, max_frames)
    renderer = Renderer(
        camera, compiled.pitch, look, seed=seed, exposure_s=exposure_s, readout_s=readout_s
    )
    truth, calls = clip_truth(compiled, fps, first, n)
    start = time.perf_counter()
    with RecordingWriter(
        out,
        fps=fps,
        size_px=camera.size_px,
        table=table,
        source=f"sim:{compiled.scene.name}",
        camera=camera,
        readout_s=readout_s,
        overwrite=_holds_simulation(Path(out)),
        repeatable=True,  # a clip and its exact truth are the same on every run
        lossless=lossless,
        codec=codec,
        bitrate_kbps=bitrate_kbps,
    ) as writer:
        conditions = {
            "scene": compiled.scene.name,
            "seed": seed,
            "start_s": first / fps,
            "start_frame": first,
            "codec": "ffv1" if lossless else codec,
            "bitrate_kbps": None if lossless else bitrate_kbps,
            "exposure_s": exposure_s,
            "readout_s": readout_s,
            "row_time": "row v is exposed at t_s + (v - (h - 1) / 2) * readout_s / h",
            "look": asdict(look),
        }
        (Path(out) / SIM_NAME).write_text(json.dumps(conditions, indent=2) + "\n", "utf-8")
        bar = tqdm(
            range(n), desc=f"simulate {compiled.scene.name}", unit="frame", disable=not progress
        )
        for i in bar:
            image = renderer.render(compiled.frame((first + i) / fps))
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
