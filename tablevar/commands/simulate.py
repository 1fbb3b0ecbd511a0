"""``tablevar simulate SCENE --out DIR``: render a scripted scene into a recording with truth."""

from __future__ import annotations

import argparse
import re
import time

import numpy as np

from calibration.tables import load_profile
from hardware.video_writer import CODECS
from simulator.button_scenes import SCENES as BUTTON_SCENES
from simulator.button_scenes import TABLE as BUTTON_TABLE
from simulator.button_scenes import build_button_scene, simulate_button
from simulator.scene_camera import clip_camera, clip_look
from simulator.scene_library import scene_names
from simulator.scene_stress import FACTORS
from simulator.simulate import simulate_named

SIZES = ("1280x960", "2304x1296")


class SimulateError(ValueError):
    """A bad scene, size or table for ``tablevar simulate``."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "simulate",
        help="render a scripted table scene into a recording with exact ground truth",
        description="Render a scripted scene (the same SCENE and --seed give the same clip) "
        "into a recording folder: video.mp4, meta.json, timestamps.csv, truth.jsonl and "
        f"truth_calls.jsonl. Scenes: {', '.join(scene_names())}; button football (on the "
        f"{BUTTON_TABLE} table, with shot_calls.jsonl): {', '.join(BUTTON_SCENES)}.",
    )
    parser.add_argument("scene", metavar="SCENE", help="scene name")
    parser.add_argument("--out", required=True, metavar="DIR", help="recording folder to write")
    parser.add_argument("--seed", type=int, default=0, help="draw of positions, camera, look")
    parser.add_argument(
        "--size", default=None, help=f"frame size WxH (default 1280x960; usual: {', '.join(SIZES)})"
    )
    parser.add_argument(
        "--fps", type=float, default=None, help="frames per second (default 60, or 30 with --vary)"
    )
    parser.add_argument(
        "--table",
        default=None,
        help=f"table profile name or .toml path (default: fistf; {BUTTON_TABLE} for its scenes)",
    )
    parser.add_argument("--frames", type=int, default=None, metavar="N", help="stop after N frames")
    parser.add_argument(
        "--lossless",
        action="store_true",
        help="write the frames exactly as rendered (FFV1, about thirty times larger, does not play "
        "in browsers) instead of H.264: what a camera hands the live pipeline",
    )
    parser.add_argument(
        "--codec", choices=CODECS, default=None, help="h264 (default) or mpeg4 (MPEG-4 part 2)"
    )
    parser.add_argument(
        "--bitrate", type=float, default=None, metavar="KBPS", help="video bitrate in kbit/s"
    )
    parser.add_argument(
        "--readout",
        type=float,
        default=None,
        metavar="MS",
        help="rolling shutter: milliseconds from the first row's exposure to the last's",
    )
    parser.add_argument(
        "--exposure",
        type=float,
        default=None,
        metavar="MS",
        help="shutter time in milliseconds, at most a frame period: moving things smear over it "
        "(default 1/120 s or the frame period)",
    )
    parser.add_argument(
        "--start",
        type=float,
        default=None,
        metavar="S",
        help="start the clip S seconds into the scene (in mid-play)",
    )
    parser.add_argument(
        "--vary",
        choices=list(FACTORS),
        default=None,
        metavar="FACTOR",
        help="draw the recording conditions far wider than natural, varying FACTOR from a plain "
        f"base: {', '.join(FACTORS)} (random: all at once)",
    )
    parser.set_defaults(run=run)


def parse_size(text: str) -> tuple[int, int]:
    """``"1280x960"`` -> ``(1280, 960)``; raises ``SimulateError`` naming the usual sizes."""
    m = re.fullmatch(r"(\d+)x(\d+)", text.strip())
    if m is None or int(m[1]) < 16 or int(m[2]) < 16 or int(m[1]) % 2 or int(m[2]) % 2:
        raise SimulateError(
            f"bad --size {text!r}: give WxH with even numbers >= 16, e.g. {' or '.join(SIZES)}"
        )
    return int(m[1]), int(m[2])


def run(args: argparse.Namespace) -> int:
    if args.scene in BUTTON_SCENES:
        return _run_button(args)
    if args.scene not in scene_names():
        names = [*scene_names(), *BUTTON_SCENES]
        raise SimulateError(f"unknown scene {args.scene!r}; scenes: {', '.join(names)}")
    args.table = args.table or "fistf"
    size = None if args.size is None else parse_size(args.size)
    if args.fps is not None and not args.fps > 0:
        raise SimulateError(f"bad --fps {args.fps}: give a positive frame rate, e.g. 60")
    for name in ("bitrate", "readout", "start", "exposure"):
        value = getattr(args, name)
        if value is not None and not (value > 0 or (name in ("readout", "start") and value == 0)):
            raise SimulateError(f"bad --{name} {value}: give a positive number")
    if args.vary == "resolution" and size is not None:
        raise SimulateError("--vary resolution draws the frame size: leave out --size")
    load_profile(args.table)  # a bad table fails here, with the list of shipped profiles
    result = simulate_named(
        args.scene,
        args.out,
        seed=args.seed,
        size_px=size,
        fps=args.fps,
        table=args.table,
        max_frames=args.frames,
        lossless=args.lossless,
        codec=args.codec,
        bitrate_kbps=args.bitrate,
        readout_s=None if args.readout is None else args.readout / 1000.0,
        start_s=args.start,
        vary=args.vary,
        exposure_s=None if args.exposure is None else args.exposure / 1000.0,
    )
    per_1000 = 1000.0 * result.seconds / max(result.frames, 1)
    print(
        f"{result.folder}: {result.frames} frames, {result.calls} scripted calls, "
        f"{result.seconds:.1f} s ({per_1000:.1f} s per 1000 frames)"
    )
    return 0


BUTTON_FPS = 50.0
BUTTON_OPTIONS = ("frames", "codec", "bitrate", "readout", "start", "vary", "exposure")


def _run_button(args: argparse.Namespace) -> int:
    """A button-football scene (``simulator.button_scenes``): its clip, its shot calls, and
    the calls the reducer makes on the exact frames, on a camera and look drawn from the seed."""
    if args.table not in (None, BUTTON_TABLE):
        raise SimulateError(
            f"{args.scene} is a button-football scene: it plays on the {BUTTON_TABLE} table, "
            f"not {args.table!r}"
        )
    given = [f"--{name}" for name in BUTTON_OPTIONS if getattr(args, name) is not None]
    if given:
        raise SimulateError(
            f"{' and '.join(given)} cannot be used with the button-football scene {args.scene} "
            "(it takes --seed, --size, --fps and --lossless)"
        )
    if args.fps is not None and not args.fps > 0:
        raise SimulateError(f"bad --fps {args.fps}: give a positive frame rate, e.g. 50")
    size = (1280, 960) if args.size is None else parse_size(args.size)
    started = time.perf_counter()
    clip = build_button_scene(args.scene, args.seed)
    rng = np.random.default_rng([args.seed, 7])
    camera = clip_camera(rng, clip.compiled.pitch, size)
    frames = simulate_button(
        clip,
        args.out,
        camera=camera,
        look=clip_look(rng),
        fps=args.fps or BUTTON_FPS,
        seed=args.seed,
        lossless=args.lossless,
    )
    seconds = time.perf_counter() - started
    print(
        f"{args.out}: {frames} frames, {len(clip.shot_calls)} shot calls, {seconds:.1f} s "
        f"({1000.0 * seconds / max(frames, 1):.1f} s per 1000 frames)"
    )
    return 0
