"""``tablevar review PATH``: analyse a recording (once) and serve its review page.

PATH is a recording folder or a plain video (a phone ``.mp4`` filmed from above). A recording
folder keeps its analysis beside its video; a plain video gets a review folder under ``--out``
(default ``out/review/<name>``) that links to it. The analysis (``tablevar analyze``) runs when
one of its outputs is missing, older than the video, or from a run that did not finish;
otherwise the outputs are served as they are. Then the review page is served and its URL
printed, until Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import TextIO

from flask import Flask

from hardware.recording import META_NAME, VIDEO_NAME
from tablevar.commands import analyze
from tablevar.commands.serve import add_server_options, check_server_options, start_server
from web.app import create_app

OUTPUT_NAMES = ("calibration.json", "tracks.jsonl", "calls.jsonl", "summary.json")
DEFAULT_OUT = Path("out/review")


class ReviewError(ValueError):
    """PATH is neither a recording folder nor a video file."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "review",
        help="analyse a recording or video (once) and serve its review page",
        description="Analyse a recording folder or a plain video when its analysis is missing "
        "or older than the video, then serve the review page: every call with its evidence, "
        "frame by frame. Prints the URL and the PIN.",
    )
    parser.add_argument("path", type=Path, metavar="PATH", help="recording folder or video file")
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        metavar="DIR",
        help=f"where a plain video's review folder goes (default: {DEFAULT_OUT}/NAME)",
    )
    parser.add_argument("--table", default="fistf", help="table profile name or .toml path")
    parser.add_argument("--no-serve", action="store_true", help="only analyse, do not serve")
    add_server_options(parser)
    parser.set_defaults(run=run)


def review_folder(path: Path, out: Path) -> Path:
    """The folder the review page reads: a recording folder itself, or for a plain video
    ``out/<stem>`` with a link ``video.mp4`` to it.

    Raises:
        ReviewError: PATH does not exist, or is a folder without a video.
    """
    if path.is_dir():
        if not (path / VIDEO_NAME).is_file():
            raise ReviewError(f"{path} holds no {VIDEO_NAME}: give a recording folder or a video")
        return path
    if not path.is_file():
        raise ReviewError(f"no such recording folder or video: {path}")
    folder = out / path.stem
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / VIDEO_NAME
    target = path.resolve()
    if link.is_symlink() and link.resolve() != target:
        link.unlink()  # the same name reused for another video
    if not link.exists():
        link.symlink_to(target)
    return folder


def stale_reason(folder: Path) -> str | None:
    """Why the analysis in ``folder`` must be (re)made, or None when it is up to date."""
    video_mtime = (folder / VIDEO_NAME).stat().st_mtime
    for name in OUTPUT_NAMES:
        path = folder / name
        if not path.is_file():
            return f"{name} is missing"
        if path.stat().st_mtime < video_mtime:
            return f"{name} is older than the video"
    try:
        summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return "summary.json is unreadable"
    if not isinstance(summary, dict) or summary.get("complete") is False:
        return "the last analysis did not finish"
    return None


def ensure_analysis(
    folder: Path, *, table: str, progress: bool = True, out: TextIO = sys.stdout
) -> bool:
    """Analyse ``folder``'s video into it unless the outputs are up to date.

    Returns:
        whether it analysed.
    """
    reason = stale_reason(folder)
    if reason is None:
        print(f"tablevar: analysis in {folder} is up to date", file=out)
        return False
    print(f"tablevar: analysing {folder} ({reason})", file=out, flush=True)
    # A recording folder is read with its timestamps; a review folder holds only the link.
    video = folder if (folder / META_NAME).is_file() else folder / VIDEO_NAME
    args = argparse.Namespace(
        video=video,
        out=folder,
        calibration=None,
        table=table,
        seconds=2.0,
        no_progress=not progress,
    )
    analyze.run(args)
    return True


def review_app(folder: Path, *, pin: str | None, match_log: Path, table: str) -> Flask:
    """The web app serving ``folder``'s review page (and its calibration as the page's own)."""
    return create_app(
        {
            "RECORDINGS_DIR": folder.parent,
            "OUTPUT_DIR": folder,
            "MATCH_LOG": match_log,
            "PIN": pin,
            "TABLE": table,
        }
    )


def serve_review(folder: Path, args: argparse.Namespace, out: TextIO = sys.stdout) -> int:
    """Serve the review page of ``folder`` until Ctrl-C (the match log is a throw-away)."""
    with tempfile.TemporaryDirectory(prefix="tablevar-review-") as tmp:
        app = review_app(
            folder, pin=args.pin, match_log=Path(tmp) / "match.sqlite", table=args.table
        )
        return start_server(app, args, out, page=f"review/{folder.name}")


def run(args: argparse.Namespace) -> int:
    check_server_options(args)
    folder = review_folder(args.path, args.out)
    ensure_analysis(folder, table=args.table)
    if args.no_serve:
        return 0
    return serve_review(folder, args)
