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

from calibration.calibration_file import read_calibration
from hardware.recording import META_NAME, VIDEO_NAME
from tablevar.commands import analyze
from tablevar.commands.serve import add_server_options, check_server_options, start_server
from web.app import create_app
from web.playback import PlaybackError, browser_video, probe

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


def linked_folder(video: Path, folder: Path) -> Path:
    """``folder`` (created) holding ``video.mp4``, a link to ``video``, for the review page."""
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / VIDEO_NAME
    target = video.resolve()
    if link.is_symlink() and link.resolve() != target:
        link.unlink()  # the same name reused for another video
    if not link.exists():
        link.symlink_to(target)
    return folder


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
    return linked_folder(path, out / path.stem)


def _video_file(source: Path) -> Path:
    return source / VIDEO_NAME if source.is_dir() else source


def stale_reason(folder: Path, source: Path) -> str | None:
    """Why the analysis in ``folder`` of ``source`` (a recording folder or a video) must be
    (re)made, or None when it is up to date."""
    video_mtime = _video_file(source).stat().st_mtime
    for name in OUTPUT_NAMES:
        path = folder / name
        if not path.is_file():
            return f"{name} is missing"
        if path.stat().st_mtime < video_mtime:
            return f"{name} is older than the video"
    try:
        summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "summary.json is unreadable"
    if not isinstance(summary, dict):
        return "summary.json is unreadable"
    if summary.get("complete") is False and not summary.get("error"):
        return "the last analysis did not finish"  # interrupted: the next run may finish
    # An analysis that stopped at a fault of this very video (cut short, damaged) would stop
    # there again: it is served as it is.
    picked_s = (folder / "calibration.json").stat().st_mtime
    if _picked_ball_colour(folder) and picked_s > (folder / "tracks.jsonl").stat().st_mtime:
        return "the ball's colour was picked after the last analysis"
    return None


def _picked_ball_colour(folder: Path) -> str | None:
    """The ball's colour saved with ``folder``'s calibration (picked on the calibration page)."""
    try:
        return read_calibration(folder / "calibration.json").ball_colour
    except (OSError, ValueError):
        return None  # no calibration yet, or one that the analysis will replace


def ensure_analysis(
    folder: Path,
    *,
    source: Path | None = None,
    table: str = "fistf",
    progress: bool = True,
    force: bool = False,
    out: TextIO | None = None,
) -> bool:
    """Analyse ``source`` into ``folder`` unless the outputs there are up to date.

    Args:
        folder: where the outputs go (and are looked for).
        source: a recording folder (read with its timestamps) or a video; default: the
            recording in ``folder`` itself, or the video it links to.
        table: table profile.
        progress: show a progress bar.
        force: analyse even when up to date.
        out: where to say what happens.

    Returns:
        whether it analysed.
    """
    out = out or sys.stdout
    if source is None:
        source = folder if (folder / META_NAME).is_file() else folder / VIDEO_NAME
    reason = "asked to analyse again" if force else stale_reason(folder, source)
    if reason is None:
        print(f"tablevar: analysis in {folder} is up to date", file=out)
        return False
    print(f"tablevar: analysing {source} into {folder} ({reason})", file=out, flush=True)
    args = argparse.Namespace(
        video=source,
        out=folder,
        calibration=None,
        ball_colour=_picked_ball_colour(folder),
        table=table,
        game=None,  # the one the table profile names
        seconds=2.0,
        readout_s=None,  # what the recording says
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


def serve_review(
    folder: Path, args: argparse.Namespace, *, table: str, out: TextIO = sys.stdout
) -> int:
    """Serve the review page of ``folder`` until Ctrl-C (the match log is a throw-away)."""
    with tempfile.TemporaryDirectory(prefix="tablevar-review-") as tmp:
        app = review_app(folder, pin=args.pin, match_log=Path(tmp) / "match.sqlite", table=table)
        return start_server(app, args, out or sys.stdout, page=f"review/{folder.name}")


def run(args: argparse.Namespace) -> int:
    check_server_options(args)
    folder = review_folder(args.path, args.out)
    try:
        ensure_analysis(folder, table=args.table, progress=sys.stderr.isatty())
    except (ValueError, OSError) as exc:
        if not (folder / "tracks.jsonl").is_file():
            raise
        # A video cut short, or a read-only folder: the page shows what there is.
        print(f"tablevar: warning: {_one_line(exc)}; reviewing the analysis there is", flush=True)
    else:
        warn_incomplete(folder)
    prepare_playback(folder)
    if args.no_serve:
        return 0
    return serve_review(folder, args, table=args.table)


def prepare_playback(folder: Path, out: TextIO | None = None) -> None:
    """Make the browser-playable copy of a video browsers cannot play now, once, rather than
    while the page waits for it (``web.playback``)."""
    out = out or sys.stdout
    video = folder / VIDEO_NAME
    try:
        if not probe(video).playable:
            print(f"tablevar: {video} plays in the page as {browser_video(video)}", file=out)
    except (PlaybackError, OSError) as exc:
        print(f"tablevar: warning: {_one_line(exc)}; the review page cannot play it", file=out)


def warn_incomplete(folder: Path, out: TextIO | None = None) -> None:
    """Say so when ``folder``'s analysis stopped early (its summary names the fault)."""
    try:
        summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if isinstance(summary, dict) and summary.get("complete") is False and summary.get("error"):
        print(
            f"tablevar: warning: the analysis stops at frame {summary.get('frames')}: "
            f"{summary['error']}",
            file=out or sys.stdout,
            flush=True,
        )


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return f"{exc.filename}: {exc.strerror}"
    return " ".join(str(exc).split())
