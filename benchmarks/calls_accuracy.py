"""Call accuracy of the whole pipeline on simulated clips with ground truth (DESIGN.md section 5).

Renders >= 60 clips of ``hardware.scene_margins`` (seeds from 1000 on, disjoint from the tests'
21-25): balls at rest -8 to +8 mm from a touchline or goal line (half of them within 1.5 mm),
shots from inside and outside the shooting zone, forward passes with and without an attacker
offside, long rallies for the clock; varied cameras and looks, both table profiles. Each clip
goes through ``tablevar analyze`` (auto-calibration included) and its calls are compared with
the truth. Prints:

- line calls right (the call's reading in or out agrees with the truth) at |margin| >= 1 mm and
  at 0.25-1 mm, too-close-to-call share, confident wrong calls;
- goal validity, offside and restart correctness;
- clock error as % of the true moving time (ball rolling while in play);
- call latency: frames from the decisive frame to the record on which the rules emitted it.

Usage: ``.venv/bin/python benchmarks/calls_accuracy.py [--clips 66] [--size 800x600] [--fps 30]``
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

import tablevar.commands.analyze as analyze_cmd
from hardware.scene_camera import clip_camera, clip_look
from hardware.scene_margins import build_margin_scene
from hardware.simulate import simulate
from tablevar.cli import main
from tablevar.rules_stage import FistfRules

FRAME_TOL = 3
STOPPING = ("ball_out", "goal", "goal_disallowed", "offside")


def plan(n: int) -> list[dict[str, Any]]:
    """The clips: (kind, seed, params, table); deterministic."""
    rng = np.random.default_rng(2024)
    jobs: list[dict[str, Any]] = []
    k = 0
    n_line = max(1, round(0.55 * n))
    n_shot = max(2, round(0.2 * n))
    n_off = max(2, round(0.18 * n))
    n_rally = max(1, n - n_line - n_shot - n_off)
    for i in range(n_line):
        m = rng.uniform(-1.5, 1.5) if i % 2 == 0 else rng.uniform(-8.0, 8.0)
        line = "touchline" if i % 3 else "goal_line"
        jobs.append({"kind": "line", "params": {"line": line, "margin_mm": round(float(m), 3)}})
    jobs += [{"kind": "shot", "params": {"inside": i % 2 == 0}} for i in range(n_shot)]
    jobs += [{"kind": "offside", "params": {"offside": i % 2 == 0}} for i in range(n_off)]
    jobs += [{"kind": "rally", "params": {"seconds": 30.0}} for _ in range(n_rally)]
    for job in jobs:
        job["seed"] = 1000 + k
        job["table"] = "fistf" if k % 2 == 0 else "subbuteo-classic"
        k += 1
    return jobs


class _TimedRules(FistfRules):
    """The FISTF stage, noting the record frame on which each call was emitted."""

    emitted: ClassVar[list[tuple[int, int]]] = []  # (call frame, record frame), per process

    def __call__(self, record, contacts, ball_sigma_mm=None):
        calls = super().__call__(record, contacts, ball_sigma_mm)
        _TimedRules.emitted += [(c["frame"], record["frame"]) for c in calls]
        return calls


def run_clip(job: dict[str, Any], size: tuple[int, int], fps: float) -> dict[str, Any]:
    seed = job["seed"]
    scene = build_margin_scene(job["kind"], seed, job["table"], **job["params"])
    rng = np.random.default_rng([seed, 7])
    camera = clip_camera(rng, scene.pitch, size)
    look = clip_look(rng)
    with tempfile.TemporaryDirectory() as tmp:
        clip, out = Path(tmp) / "clip", Path(tmp) / "out"
        simulate(scene, clip, camera=camera, look=look, fps=fps, seed=seed, progress=False)
        _TimedRules.emitted = []
        analyze_cmd.FistfRules = _TimedRules
        status = main(
            ["analyze", str(clip), "--out", str(out), "--table", job["table"], "--no-progress"]
        )
        truth = _lines(clip / "truth_calls.jsonl")
        frames = _lines(clip / "truth.jsonl")
        calls = _lines(out / "calls.jsonl") if (out / "calls.jsonl").exists() else []
        summary = json.loads((out / "summary.json").read_text()) if status == 0 else {}
    return {
        **job,
        "status": status,
        "truth": truth,
        "calls": calls,
        "emitted": list(_TimedRules.emitted),
        "clock_s": summary.get("clock_s", 0.0),
        "true_clock_s": _true_clock(frames, truth, fps),
    }


def _true_clock(frames: list[dict], truth: list[dict], fps: float) -> float:
    """Seconds the ball rolled while in play: from the kick-off to the first stopping call."""
    first = next((f["frame"] for f in frames if f["contacts"]), None)
    if first is None:
        return 0.0
    stop = min((c["frame"] for c in truth if c["kind"] in STOPPING), default=len(frames))
    moving = [f for f in frames[first:stop] if f["ball"] is not None and f["ball"]["moving"]]
    return len(moving) / fps


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def _match(truth: dict, calls: list[dict], kinds=None) -> dict | None:
    kinds = kinds or (truth["kind"],)
    near = [
        c for c in calls if c["kind"] in kinds and abs(c["frame"] - truth["frame"]) <= FRAME_TOL
    ]
    return min(near, key=lambda c: abs(c["frame"] - truth["frame"]), default=None)


def score(results: list[dict[str, Any]]) -> dict[str, Any]:
    line = {"ge1": [0, 0], "mid": [0, 0], "lt025": [0, 0]}
    too_close = confident_wrong = 0
    goals = [0, 0]
    offside = [0, 0]
    restarts = [0, 0]
    latency: list[int] = []
    for r in results:
        calls = r["calls"]
        if r["kind"] == "line":
            m = r["params"]["margin_mm"]
            boundary = [c for c in calls if c["line"] in ("touchline", "goal_line")]
            said = [c for c in boundary if c["kind"] in ("ball_out", "close_call")]
            reading = None
            if said:
                c = said[0]
                reading = bool(c["fully_crossed"])
                tc = c["margin_mm"] is not None and abs(c["margin_mm"]) <= c["uncertainty_mm"]
                too_close += tc
                confident_wrong += (reading != (m > 0)) and not tc
            right = reading == (m > 0) if (m > -3.0 or reading is not None) else True
            if m <= -3.0 and reading is None:
                right = True
            b = "ge1" if abs(m) >= 1 else ("mid" if abs(m) >= 0.25 else "lt025")
            line[b][0] += bool(right)
            line[b][1] += 1
        for t in r["truth"]:
            got = _match(t, calls)
            if t["kind"] in ("goal", "goal_disallowed"):
                goals[0] += got is not None and got["team"] == t["team"]
                goals[1] += 1
            if t["kind"] == "offside":
                offside[0] += got is not None
                offside[1] += 1
            if t["restart"] is not None:
                restarts[0] += got is not None and (got["team"], got["restart"]) == (
                    t["team"],
                    t["restart"],
                )
                restarts[1] += 1
            emitted = [e for c, e in r["emitted"] if got is not None and c == got["frame"]]
            if emitted:
                latency.append(emitted[0] - t["frame"])
        if r["kind"] == "offside" and not r["params"]["offside"]:
            offside[0] += not any(c["kind"] == "offside" for c in calls)
            offside[1] += 1
    true_clock = sum(r["true_clock_s"] for r in results)
    clock_err = sum(abs(r["clock_s"] - r["true_clock_s"]) for r in results)
    return {
        "line": line,
        "too_close": too_close,
        "confident_wrong": confident_wrong,
        "goals": goals,
        "offside": offside,
        "restarts": restarts,
        "clock_pct": 100.0 * clock_err / max(true_clock, 1e-9),
        "latency": latency,
        "failed_runs": sum(r["status"] != 0 for r in results),
    }


def _pct(pair) -> str:
    return f"{pair[0]}/{pair[1]} ({100.0 * pair[0] / max(pair[1], 1):.0f} %)"


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clips", type=int, default=66)
    parser.add_argument("--size", default="800x600")
    parser.add_argument("--fps", type=float, default=30.0)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    jobs = plan(args.clips)
    start = time.perf_counter()
    with Pool(min(2, args.processes)) as pool:
        results = pool.starmap(run_clip, [(j, (w, h), args.fps) for j in jobs])
    took = time.perf_counter() - start
    s = score(results)
    lat = np.array(s["latency"]) if s["latency"] else np.zeros(1)
    print(f"clips: {len(jobs)} at {w}x{h}, {args.fps:g} fps; analyze failures: {s['failed_runs']}")
    print(f"line calls right, |margin| >= 1 mm:    {_pct(s['line']['ge1'])}  (bar: all)")
    print(f"line calls right, 0.25-1 mm:           {_pct(s['line']['mid'])}  (bar: >= 90 %)")
    print(f"line calls right, < 0.25 mm:           {_pct(s['line']['lt025'])}")
    print(f"too close to call: {s['too_close']}; confident wrong calls: {s['confident_wrong']}")
    print(f"goal validity: {_pct(s['goals'])}; offside: {_pct(s['offside'])}")
    print(f"restarts (team and kind): {_pct(s['restarts'])}")
    print(f"clock error: {s['clock_pct']:.2f} % of the true moving time (bar: <= 1 %)")
    print(
        f"call latency, frames after the decisive frame: median {np.median(lat):.0f}, "
        f"max {lat.max():.0f} (bar: <= 3)"
    )
    print(f"took {took:.0f} s on {min(2, args.processes)} processes")


if __name__ == "__main__":
    main_benchmark()
