"""``tablevar demo``: play the bundled demo recording and say what happened.

For now "play" means: decode every frame through ``VideoFileSource``, check the frames
against the recording's timestamps, and print the recording's scripted events from
``truth_calls.jsonl``, labelled as its ground truth. When the analysis pipeline exists, its
own calls take the place of the ground truth here.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np
from tqdm import tqdm

from hardware.recording import META_NAME, TRUTH_CALLS_NAME, RecordingMeta, read_truth_calls
from hardware.sources import TruncatedVideoError, VideoFileSource

DEFAULT_RECORDING = Path("recordings/demo")


class DemoError(ValueError):
    """The demo recording is missing or does not play."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="play the bundled demo recording and list what happened",
        description="Play the bundled demo recording and say what happened: frames, timing, "
        "decode speed and the recording's scripted events.",
    )
    parser.add_argument(
        "--recording",
        type=Path,
        default=DEFAULT_RECORDING,
        metavar="FOLDER",
        help=f"recording folder to play (default: {DEFAULT_RECORDING})",
    )
    parser.set_defaults(run=run)


@dataclass(frozen=True, slots=True)
class Playback:
    """What decoding a recording found.

    Attributes:
        frames: frames decoded.
        t_ns: (frames,) int64, their timestamps, ns.
        decode_s: wall time spent decoding, seconds.
    """

    frames: int
    t_ns: np.ndarray
    decode_s: float

    @property
    def ms_per_frame(self) -> float:
        return 1e3 * self.decode_s / max(self.frames, 1)


def play(source: VideoFileSource, *, progress: bool = True) -> Playback:
    """Decode every frame of ``source`` with a progress bar; raises ``TruncatedVideoError``."""
    t_ns = []
    decode_s = 0.0
    # disable=None: tqdm shows the bar only on a terminal, so logs and CI stay clean.
    bar = tqdm(total=source.expected_frames, unit="frame", disable=None if progress else True)
    frames = source.frames()
    try:
        while True:
            start = time.perf_counter()
            frame = next(frames, None)
            decode_s += time.perf_counter() - start
            if frame is None:
                break
            t_ns.append(frame.t_ns)
            bar.update()
    finally:
        bar.close()
    return Playback(len(t_ns), np.asarray(t_ns, dtype=np.int64), decode_s)


def _fmt(value: Any, spec: str = "", unit: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, int | float) and spec:
        return f"{value:{spec}}{unit}"
    return f"{value}{unit}"


def format_call(call: dict[str, Any]) -> str:
    """One line for one call: time, kind, law, line, margin, team, restart."""
    return (
        f"{_fmt(call.get('t_s'), '7.2f', ' s'):>9}  {_fmt(call.get('kind')):<16}"
        f"{_fmt(call.get('law')):<13}{_fmt(call.get('line')):<15}"
        f"{_fmt(call.get('margin_mm'), '+.2f', ' mm'):>11}  {_fmt(call.get('team')):<6}"
        f"{_fmt(call.get('restart'))}"
    )


def report(
    folder: Path,
    meta: RecordingMeta,
    playback: Playback,
    calls: list[dict] | None,
    out: TextIO,
) -> None:
    """Print what playing the recording found."""
    w, h = meta.size_px
    intervals_ms = np.diff(playback.t_ns) / 1e6
    duration_s = (playback.t_ns[-1] - playback.t_ns[0]) / 1e9 + 1.0 / meta.fps
    print(f"Demo recording {folder} (table {meta.table}, source {meta.source})", file=out)
    print(
        f"  frames     {playback.frames} of {meta.frames} decoded, {w}x{h} px, "
        "each with its timestamp",
        file=out,
    )
    print(f"  duration   {duration_s:.2f} s at {meta.fps:g} fps", file=out)
    if len(intervals_ms):
        print(
            f"  intervals  median {np.median(intervals_ms):.2f} ms, "
            f"largest {intervals_ms.max():.2f} ms",
            file=out,
        )
    print(f"  decode     {playback.ms_per_frame:.2f} ms per frame", file=out)
    if calls is None:
        print("No ground truth: truth_calls.jsonl is only in simulated recordings.", file=out)
        return
    print(f"Ground truth of the recording, scripted events: {len(calls)}", file=out)
    print(
        f"{'time':>9}  {'kind':<16}{'law':<13}{'line':<15}{'margin':>11}  {'team':<6}restart",
        file=out,
    )
    for call in calls:
        print(format_call(call), file=out)


def run(args: argparse.Namespace) -> int:
    folder: Path = args.recording
    if not (folder / META_NAME).is_file():
        raise DemoError(
            f"demo recording {folder} not found: generate it with `make demo-recording`"
            + ("" if folder == DEFAULT_RECORDING else " or pass --recording FOLDER")
        )
    with VideoFileSource(folder) as source:
        try:
            playback = play(source)
        except TruncatedVideoError as exc:
            raise DemoError(f"{exc}; regenerate it with `make demo-recording`") from exc
    meta = source.meta
    if meta is None or playback.frames == 0:
        raise DemoError(f"{folder} is not a recording with frames")
    calls = read_truth_calls(folder) if (folder / TRUTH_CALLS_NAME).exists() else None
    report(folder, meta, playback, calls, sys.stdout)
    return 0
