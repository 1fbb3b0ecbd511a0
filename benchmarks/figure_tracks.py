"""Figure tracks of an analysed recording against its truth: ghosts and figures found.

Reads the ``tracks.jsonl`` that ``tablevar analyze`` wrote and the recording's ``truth.jsonl``
(the simulator's; the bundled demo has one) and prints:

- frames with more tracks than figures on the table;
- ghost frames: frames with a track that stands farther than ``--match-mm`` from every figure
  (a figure shown where none stands), and the ids of those tracks;
- figures found: the share of (frame, figure) pairs with a track within ``--match-mm``;
- distinct track ids against the number of figures (a figure that keeps one id all clip long
  adds one; every break or ghost adds more).

Usage: ``.venv/bin/python benchmarks/figure_tracks.py OUT_DIR [--truth recordings/demo/truth.jsonl]
[--match-mm 15]``, after ``tablevar analyze recordings/demo --out OUT_DIR``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
from scipy.optimize import linear_sum_assignment


def _read(path: Path) -> dict[int, dict]:
    rows = {}
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                rows[row["frame"]] = row
    return rows


def _xy(figures: list[dict]) -> np.ndarray:
    return np.array([[f["x_mm"], f["y_mm"]] for f in figures], np.float64).reshape(-1, 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path, help="the folder tablevar analyze wrote")
    ap.add_argument("--truth", type=Path, default=Path("recordings/demo/truth.jsonl"))
    ap.add_argument("--match-mm", type=float, default=15.0)
    args = ap.parse_args()
    tracks, truth = _read(args.out / "tracks.jsonl"), _read(args.truth)
    frames = sorted(set(tracks) & set(truth))
    if not frames:
        raise SystemExit(f"no frame of {args.out / 'tracks.jsonl'} is in {args.truth}")
    more, ghost_frames, found, total = [], [], 0, 0
    ids: set[int] = set()
    ghost_ids: dict[int, int] = {}
    figures: set[int] = set()
    for i in frames:
        t, r = truth[i]["figures"], tracks[i]["figures"]
        figures.update(f["id"] for f in t)
        ids.update(f["id"] for f in r)
        if len(r) > len(t):
            more.append(i)
        tx, rx = _xy(t), _xy(r)
        total += len(tx)
        if len(tx) and len(rx):
            d = np.linalg.norm(tx[:, None] - rx[None], axis=2)
            a, b = linear_sum_assignment(d)
            found += int((d[a, b] <= args.match_mm).sum())
            near = d.min(axis=0) <= args.match_mm
        else:
            near = np.zeros(len(rx), bool)
        if not near.all():
            ghost_frames.append(i)
            for f, ok in zip(r, near, strict=True):
                if not ok:
                    ghost_ids[f["id"]] = ghost_ids.get(f["id"], 0) + 1
    print(f"frames: {len(frames)}, figures: {len(figures)}")
    print(f"frames with more tracks than figures: {len(more)}" + _span(more))
    print(f"frames with a track > {args.match_mm:g} mm from every figure: {len(ghost_frames)}")
    print("  " + _span(ghost_frames) + (f"; ids (frames): {ghost_ids}" if ghost_ids else ""))
    print(f"figures found (a track within {args.match_mm:g} mm): {found / max(total, 1):.4f}")
    print(f"distinct track ids: {len(ids)} for {len(figures)} figures")


def _span(frames: list[int]) -> str:
    """The first and last of ``frames``, or nothing."""
    return f" (frames {frames[0]}..{frames[-1]})" if frames else ""


if __name__ == "__main__":
    main()
