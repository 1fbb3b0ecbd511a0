"""Accuracy of detection and tracking over simulated clips, and memory over a long stream.

Each clip is a scripted scene rendered with a varied camera (height, tilt, turn, lens
distortion), look (cloth, kits, ball colour, light, noise) and table profile (``fistf`` and
``subbuteo-classic``). The camera is calibrated automatically from the clip's first frames
(empty-table median), as ``tablevar analyze`` does, then every frame goes through the pipeline.
Seeds start at 1000, away from the ones the tests use.

Printed figures:

- ball ground point error at rest (median, p95) and while moving (median), mm;
- detection rate: frames with the ball on the table where a ball is reported within 5 mm;
- figure base error (median), mm, of outfield figures and of goalkeepers (a keeper stands
  against its goal with a rod at its back, so only part of its base shows clearly);
- flick onset error (frames) against the truth contacts, and moving-state switch error
  (frames) against the truth's moving flags;
- memory over a simulated stream (``--stream-minutes``, default 30): a few seconds of
  rendered frames replayed back and forth with timestamps advancing at 60 fps through the
  whole pipeline (with the FISTF rules stage); the resident set size (RSS, from
  /proc/self/statm) is sampled every simulated minute, and its growth from minute 2 to the
  end is printed. ``--trace`` also samples tracemalloc's Python heap (about 3x slower).

Usage: ``.venv/bin/python benchmarks/accuracy.py [--clips 20] [--size 1280x960]
[--stream-minutes 30] [--trace]`` (``--clips 0`` measures memory only).
"""

from __future__ import annotations

import argparse
import os
import time
import tracemalloc

import cv2
import numpy as np

from calibration.calibrate import calibrate, clean_view
from calibration.tables import load_pitch
from simulator.look import Look
from simulator.render import Renderer
from simulator.scene_camera import mild_camera
from simulator.scene_library import build_scene
from simulator.truth import frame_truth
from tablevar.driver import Driver
from tablevar.pipeline import Pipeline, PipelineConfig
from tablevar.rules_stage import FistfRules
from tablevar.tracked import TracksEncoder
from vision.model import learn_model

SCENES = ("kickoff_pass", "touchline_out", "goal_line_close", "goal_inside_zone", "offside")
TABLES = ("fistf", "subbuteo-classic")
FPS = 60.0
GLOBAL_SHUTTER = PipelineConfig(readout_s=0.0)  # the renderer exposes every row at once


def clip_setup(i: int, size: tuple[int, int]):
    rng = np.random.default_rng(1000 + i)
    table = TABLES[i % 2]
    pitch = load_pitch(table)
    camera = mild_camera(rng, pitch, size)
    return table, pitch, camera, Look.random(rng)


def run_clip(i: int, size, seconds: float):
    table, pitch, camera, look = clip_setup(i, size)
    scene = build_scene(SCENES[i % len(SCENES)], seed=1000 + i, table=table)
    n = min(scene.frame_count(FPS), int(seconds * FPS))
    truth = frame_truth(scene, FPS)[:n]
    renderer = Renderer(camera, scene.pitch, look, seed=1000 + i)
    images = [renderer.render(scene.frame(k / FPS)) for k in range(n)]
    cal = calibrate(clean_view(images[: int(2 * FPS)]), pitch)
    measured = cal.measured_pitch(pitch)
    model = learn_model([images[0]], cal.camera, measured)
    pipe = Pipeline(model, fps=FPS, config=GLOBAL_SHUTTER)
    frames = []
    for k, img in enumerate(images):
        frames += pipe.process(img, k / FPS)
    frames += pipe.finish()
    encode = TracksEncoder()
    records = [encode(f) for f in frames]
    return truth, records, list(pipe.recent_contacts), pipe.ms_per_frame, images


def score(truth, records, contacts):
    rest, moving, found, total, figs, keepers = [], [], 0, 0, [], []
    for t, r in zip(truth, records, strict=True):
        if t["ball"] is not None:
            total += 1
            if r["ball"] is not None:
                e = np.hypot(
                    t["ball"]["x_mm"] - r["ball"]["x_mm"], t["ball"]["y_mm"] - r["ball"]["y_mm"]
                )
                found += e < 5.0
                (moving if t["ball"]["moving"] else rest).append(e)
        if r["figures"]:
            tf = np.array([[f["x_mm"], f["y_mm"]] for f in t["figures"]])
            rf = np.array([[f["x_mm"], f["y_mm"]] for f in r["figures"]])
            d = np.linalg.norm(tf[:, None] - rf[None], axis=2)
            keeper = np.array([f["goalkeeper"] for f in t["figures"]])[d.argmin(axis=0)]
            err = d.min(axis=0)
            figs.extend(err[~keeper])
            keepers.extend(err[keeper])
    onsets_true = [c["onset_frame"] for t in truth for c in t["contacts"] if c["kind"] == "flick"]
    onsets = [f for kind, f, _ in contacts if kind == "flick"]
    onset_err = [min((abs(a - b) for b in onsets), default=np.nan) for a in onsets_true]
    flags_t = np.array([bool(t["ball"] and t["ball"]["moving"]) for t in truth])
    flags_r = np.array([bool(r["ball"] and r["ball"]["moving"]) for r in records])
    sw_t = np.flatnonzero(np.diff(flags_t.astype(int)) != 0)
    sw_r = np.flatnonzero(np.diff(flags_r.astype(int)) != 0)
    switch_err = [np.min(np.abs(sw_r - a)) if len(sw_r) else np.nan for a in sw_t]
    return rest, moving, found, total, (figs, keepers), onset_err, switch_err


def _rss_mb() -> float:
    """Current resident set size of this process, MB."""
    with open("/proc/self/statm", encoding="ascii") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def stream_memory(images, model, minutes: float, trace: bool) -> None:
    """Replay ``images`` back and forth for ``minutes`` of 60 fps stream; print memory."""
    driver = Driver(Pipeline(model, fps=FPS, config=GLOBAL_SHUTTER), FistfRules(model.pitch))
    n = int(minutes * 60 * FPS)
    order = np.concatenate([np.arange(len(images)), np.arange(len(images) - 2, 0, -1)])
    per_minute = int(60 * FPS)
    if trace:
        tracemalloc.start()
    start, samples = time.perf_counter(), []
    for k in range(n):
        driver.step(images[order[k % len(order)]], k / FPS)
        if (k + 1) % per_minute == 0:
            traced = tracemalloc.get_traced_memory()[0] / 1e6 if trace else float("nan")
            samples.append(((k + 1) / per_minute, _rss_mb(), traced))
            if len(samples) % 5 == 0 or k == n - 1:
                m, rss, tr = samples[-1]
                print(
                    f"  stream {m:5.1f} min: RSS {rss:7.1f} MB, traced heap {tr:6.2f} MB, "
                    f"{time.perf_counter() - start:5.0f} s"
                )
    if trace:
        tracemalloc.stop()
    after = [s for s in samples if s[0] >= 2]  # the first minute fills caches and buffers
    if len(after) >= 2:
        rss_growth = after[-1][1] - after[0][1]
        heap_growth = after[-1][2] - after[0][2]
        print(
            f"  growth from minute 2 to {after[-1][0]:g}: RSS {rss_growth:+.1f} MB, "
            f"traced heap {heap_growth:+.2f} MB; {driver.frames} frames, "
            f"{driver.ms_per_frame:.2f} ms per frame (wall)"
        )


def stream_frames(size, seconds: float = 2.0):
    """A short rendered clip (clip 0's camera and look) and a model learnt from it."""
    table, pitch, camera, look = clip_setup(0, size)
    scene = build_scene(SCENES[0], seed=1000, table=table)
    renderer = Renderer(camera, scene.pitch, look, seed=1000)
    images = [renderer.render(scene.frame(k / FPS)) for k in range(int(seconds * FPS))]
    return images, learn_model([images[0]], camera, pitch)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=int, default=20)
    parser.add_argument("--size", default="1280x960")
    parser.add_argument("--seconds", type=float, default=12.0, help="longest clip length")
    parser.add_argument("--stream-minutes", type=float, default=30.0)
    parser.add_argument("--trace", action="store_true", help="also trace the Python heap")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    size = tuple(int(v) for v in args.size.split("x"))
    all_rest, all_moving, found, total, onsets, switches, ms = [], [], 0, 0, [], [], []
    figs, keepers = [], []
    for i in range(args.clips):
        try:
            truth, records, contacts, mspf, images = run_clip(i, size, args.seconds)
        except ValueError as exc:  # a calibration or learning failure is a result too
            print(f"clip {i}: FAILED: {exc}")
            continue
        r, m, f, t, fg, on, sw = score(truth, records, contacts)
        all_rest += r
        all_moving += m
        found, total = found + f, total + t
        figs += fg[0]
        keepers += fg[1]
        onsets += on
        switches += sw
        ms.append(mspf)
        print(
            f"clip {i:2d}: rest {np.median(r) if r else np.nan:5.2f} mm, found {f}/{t}, "
            f"figures {np.median(fg[0]) if fg[0] else np.nan:5.2f} mm, keepers "
            f"{np.median(fg[1]) if fg[1] else np.nan:5.2f} mm, {mspf:5.2f} ms/frame"
        )
    if ms:
        report(all_rest, all_moving, found, total, (figs, keepers), onsets, switches, ms)
    if args.stream_minutes > 0:
        print(f"\nmemory over a {args.stream_minutes:g}-minute stream:")
        images, model = stream_frames(size)
        stream_memory(images, model, args.stream_minutes, args.trace)


def report(all_rest, all_moving, found, total, figs, onsets, switches, ms) -> None:
    p95 = np.percentile(all_rest, 95)
    print(f"\nball at rest: median {np.median(all_rest):.3f} mm, p95 {p95:.3f} mm")
    print(f"ball moving: median {np.median(all_moving):.3f} mm")
    print(f"detection rate: {100 * found / max(total, 1):.2f} % ({found} of {total} frames)")
    print(
        f"figure bases: outfield median {np.median(figs[0]):.3f} mm, goalkeepers median "
        f"{np.median(figs[1]):.3f} mm"
    )
    onsets = np.asarray(onsets, float)
    print(
        f"flick onset error: median {np.nanmedian(onsets):.1f} frames, within 1 frame "
        f"{100 * np.mean(onsets <= 1):.1f} %, missed {int(np.sum(np.isnan(onsets)))} of "
        f"{len(onsets)}"
    )
    switches = np.asarray(switches, float)
    print(
        f"moving-state switch error: median {np.nanmedian(switches):.1f} frames, "
        f"p95 {np.nanpercentile(switches, 95):.1f}, within 2 frames "
        f"{100 * np.mean(switches <= 2):.1f} %"
    )
    print(f"ms per frame (incl. learning noise of a shared machine): median {np.median(ms):.2f}")


if __name__ == "__main__":
    main()
