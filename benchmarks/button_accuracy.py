"""Button football from video: calls and clock of ``analyze`` against exact truth.

Renders button-football clips the tests never see (seeds from 1000 on, every scene of
``simulator.button_scenes``, a camera and look drawn from the seed), runs ``tablevar analyze``
on each and compares with the clip's truth:

- calls: every truth call (the reducer's on the exact frames and shot calls) must be found
  with the same kind, team and restart within 3 frames; any other call is an extra; a call
  that is not ``too close to call`` and wrong is a confident wrong call;
- clock: the analysed ``clock_s`` against the exact-input reducer's clock (% of it);
- speed: ``ms_per_frame`` of the pipeline and rules.

Usage: ``python benchmarks/button_accuracy.py [--clips N] [--size WxH] [--out DIR]``; it prints
one line per clip and a summary.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from rules.button_football import step
from rules.button_state import ButtonConfig, ButtonState
from simulator.button_scenes import SCENES, build_button_scene, exact_observations, simulate_button
from simulator.scene_camera import clip_camera, clip_look

FPS = 50.0
FIRST_SEED = 1000
FRAME_TOLERANCE = 3


def _truth_clock_s(clip) -> float:
    state = ButtonState.new(ButtonConfig(clip.compiled.pitch))
    for item in exact_observations(clip, FPS):
        state, _ = step(state, item)
    c = state.clock
    return c.elapsed_s + (c.period - 1) * state.config.half_length_s


def _key(rec: dict) -> tuple:
    return rec["kind"], rec["team"], rec["restart"]


def _compare(truth: list[dict], found: list[dict]) -> tuple[int, int, int]:
    """(right, missed, confident wrong) of the found calls against the truth."""
    left = list(found)
    right = missed = 0
    for t in truth:
        match = next(
            (
                f
                for f in left
                if _key(f) == _key(t) and abs(f["frame"] - t["frame"]) <= FRAME_TOLERANCE
            ),
            None,
        )
        if match is None:
            missed += 1
        else:
            right += 1
            left.remove(match)
    wrong = sum(1 for f in left if not f.get("too_close_to_call"))
    return right, missed, wrong


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clips", type=int, default=40)
    parser.add_argument("--size", default="1280x960")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    root = args.out or Path(tempfile.mkdtemp(prefix="button-accuracy-"))
    names = list(SCENES)
    totals = np.zeros(3, int)
    clock_err, ms = [], []
    for k in range(args.clips):
        name, seed = names[k % len(names)], FIRST_SEED + k
        clip = build_button_scene(name, seed)
        rng = np.random.default_rng([seed, 7])
        camera = clip_camera(rng, clip.compiled.pitch, (w, h))
        rec, out = root / f"{name}-{seed}", root / f"{name}-{seed}-out"
        simulate_button(clip, rec, camera=camera, look=clip_look(rng), fps=FPS, seed=seed)
        cmd = [sys.executable, "-m", "tablevar", "analyze", str(rec), "--out", str(out)]
        run = subprocess.run([*cmd, "--table", "button-football", "--no-progress"], check=False)
        if run.returncode != 0:
            print(f"{name} {seed}: analyze failed ({run.returncode})")
            totals[1] += 1
            continue
        truth = [json.loads(x) for x in (rec / "truth_calls.jsonl").read_text().splitlines()]
        found = [json.loads(x) for x in (out / "calls.jsonl").read_text().splitlines()]
        summary = json.loads((out / "summary.json").read_text())
        result = np.array(_compare(truth, found))
        totals += result
        true_clock = _truth_clock_s(clip)
        err = 100.0 * abs(summary["clock_s"] - true_clock) / max(true_clock, 1e-9)
        clock_err.append(err)
        ms.append(summary["ms_per_frame"])
        print(
            f"{name} {seed}: right {result[0]}, missed {result[1]}, confident wrong {result[2]}; "
            f"clock {summary['clock_s']:.3f} s vs {true_clock:.3f} s ({err:.2f} %); "
            f"{summary['ms_per_frame']:.1f} ms/frame"
        )
    n = max(len(clock_err), 1)
    print(
        f"{args.clips} clips: calls right {totals[0]}, missed {totals[1]}, confident wrong "
        f"{totals[2]}; clock error median {np.median(clock_err or [0]):.2f} %, max "
        f"{max(clock_err or [0]):.2f} % ({n} clips); {np.median(ms or [0]):.1f} ms/frame median"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
