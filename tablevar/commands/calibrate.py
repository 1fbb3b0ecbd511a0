"""``tablevar calibrate`` and ``tablevar calibrate-lens``: set up a new table.

``tablevar calibrate SOURCE --table fistf [--home left] --out calibration.json
[--overlay overlay.png] [--lens lens.json]`` finds the pitch lines in SOURCE (a picture, a
video or a recording folder; for a video, the empty table is the per-pixel median of its first
seconds, in which moving figures vanish), fits the camera, measures every line's edges,
writes ``calibration.json`` and prints a report. A picture in which the lines cannot be found
or do not fit the profile ends with a one-line error saying what is missing and exit status 2.

``tablevar calibrate-lens IMAGES... --out lens.json`` measures the lens from pictures of a
printed ChArUco board; ``calibrate --lens lens.json`` then fits only the camera's pose.

Both live in this one module because they are two steps of one job (DESIGN.md section 1,
"calibrate").
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.calibrate import calibrate
from calibration.calibration_file import (
    HOME_SIDES,
    CalibrationError,
    read_lens,
    write_calibration,
    write_lens,
)
from calibration.lens import BoardSpec, calibrate_lens
from calibration.lines import clean_view
from calibration.report import draw_overlay, format_report
from calibration.tables import load_pitch
from hardware.sources import VideoFileSource, native_path
from tablevar.commands.options import seconds

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
OVERLAY_SUFFIXES = (".png", ".jpg", ".jpeg")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "calibrate",
        help="calibrate a table from its pitch lines",
        description="Find the pitch lines in a picture, video or recording of the table seen "
        "from above, fit the camera, measure every line's edges and write calibration.json.",
    )
    parser.add_argument("source", type=Path, metavar="SOURCE", help="picture, video or folder")
    parser.add_argument("--table", default="fistf", help="table profile name or .toml path")
    parser.add_argument(
        "--home",
        choices=HOME_SIDES,
        default=None,
        help="side of the image where home's goal is (default: left, or bottom when the goal "
        "lines are at the top and bottom)",
    )
    parser.add_argument("--out", type=Path, default=Path("calibration.json"), metavar="FILE")
    parser.add_argument("--overlay", type=Path, metavar="PNG", help="also draw what was found")
    parser.add_argument("--lens", type=Path, metavar="FILE", help="lens.json: fit only the pose")
    parser.add_argument(
        "--seconds",
        type=seconds,
        default=3.0,
        help="video: build the empty table from its first SECONDS (default: 3)",
    )
    parser.set_defaults(run=run)

    lens = subparsers.add_parser(
        "calibrate-lens",
        help="measure the lens from pictures of a ChArUco board",
        description="Measure focal length and distortion from pictures of a printed ChArUco "
        "board held at different angles; write lens.json for calibrate --lens.",
    )
    lens.add_argument("images", type=Path, nargs="+", metavar="IMAGE")
    lens.add_argument("--out", type=Path, default=Path("lens.json"), metavar="FILE")
    lens.add_argument("--squares", default="7x5", help="columns x rows of squares (default 7x5)")
    lens.add_argument("--square-mm", type=float, default=30.0, help="printed square side, mm")
    lens.add_argument("--marker-mm", type=float, default=22.0, help="printed marker side, mm")
    lens.add_argument("--dictionary", default="DICT_5X5_100", help="ArUco dictionary name")
    lens.set_defaults(run=run_lens)


def run(args: argparse.Namespace) -> int:
    if args.overlay is not None and args.overlay.suffix.lower() not in OVERLAY_SUFFIXES:
        raise CalibrationError(
            f"--overlay {args.overlay}: give a {' or '.join(OVERLAY_SUFFIXES)} path"
        )
    pitch = load_pitch(args.table)
    lens = read_lens(args.lens) if args.lens is not None else None
    image = read_view(args.source, args.seconds)
    start = time.perf_counter()
    result = calibrate(image, pitch, home=args.home, lens=lens)
    elapsed = time.perf_counter() - start
    write_calibration(args.out, result)
    print(format_report(result, pitch))
    print(f"calibrated in {elapsed:.2f} s; wrote {args.out}")
    if args.overlay is not None:
        _write_image(args.overlay, draw_overlay(image, result, pitch))
        print(f"wrote {args.overlay}")
    return 0


def run_lens(args: argparse.Namespace) -> int:
    try:
        cols, rows = (int(v) for v in args.squares.lower().split("x"))
    except ValueError as exc:
        raise CalibrationError(f"--squares must look like 7x5, got {args.squares!r}") from exc
    spec = BoardSpec((cols, rows), args.square_mm, args.marker_mm, args.dictionary)
    lens = calibrate_lens((_read_image(p) for p in args.images), spec)
    write_lens(args.out, lens)
    k = np.asarray(lens.camera_matrix)
    print(
        f"lens from {lens.views} of {len(args.images)} pictures: f {k[0, 0]:.1f} x "
        f"{k[1, 1]:.1f} px, principal point ({k[0, 2]:.1f}, {k[1, 2]:.1f}), "
        f"k1 {lens.dist[0]:+.4f}, k2 {lens.dist[1]:+.4f}, board RMS {lens.rms_px:.3f} px"
    )
    print(f"wrote {args.out}")
    return 0


def read_view(source: Path, seconds: float) -> NDArray[np.uint8]:
    """The picture to calibrate from: an image as it is, a video's empty-table median view."""
    if source.suffix.lower() in IMAGE_SUFFIXES:
        return _read_image(source)
    with VideoFileSource(source) as video:
        # Keep about 25 frames spread over the seconds, not every frame (memory).
        step = max(1, round(video.fps * seconds / 25))
        frames, t0 = [], None
        for frame in video.frames():
            t0 = frame.t_s if t0 is None else t0
            if frame.t_s - t0 > seconds:
                break
            if frame.index % step == 0:
                frames.append(frame.image_bgr)
    return clean_view(frames)


def _read_image(path: Path) -> NDArray[np.uint8]:
    if not path.is_file():
        raise CalibrationError(f"no such picture: {path}")
    image = cv2.imread(native_path(path), cv2.IMREAD_COLOR)
    if image is None:
        raise CalibrationError(f"cannot read {path} as a picture (PNG, JPEG, ...)")
    return image


def _write_image(path: Path, image: NDArray[np.uint8]) -> None:
    try:
        written = cv2.imwrite(native_path(path), image)
    except cv2.error:
        written = False
    if not written:
        raise CalibrationError(
            f"cannot write {path}: give a .png or .jpg path in a folder that exists"
        )
