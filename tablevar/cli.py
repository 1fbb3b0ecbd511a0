"""The ``tablevar`` command line: one argparse parser, one module per subcommand.

Each subcommand lives in ``tablevar/commands/<name>.py`` and exposes ``register(subparsers)``,
which adds its parser and calls ``set_defaults(run=<function(args) -> int>)``. ``COMMANDS``
lists those modules in the order ``tablevar --help`` shows them.

Errors a user can cause (a missing file, an unreadable video, a wrong profile) arrive as
``ValueError`` or ``OSError`` and leave as one line on stderr, ``tablevar: error: <message>``,
with exit status 2, the same form and status argparse uses for a bad option. ``--traceback``
shows the full traceback instead, for debugging.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import traceback
from collections.abc import Sequence
from importlib import metadata

COMMANDS: tuple[str, ...] = (
    "demo",
    "live",
    "review",
    "serve",
    "calibrate",
    "analyze",
    "simulate",
    "export",
)

EXIT_OK = 0
EXIT_ERROR = 2
# The shell's convention for a process ended by Ctrl-C (128 + SIGINT).
EXIT_INTERRUPTED = 130


def version() -> str:
    """The installed version of tablevar, or ``unknown`` when run from an uninstalled tree."""
    try:
        return metadata.version("tablevar")
    except metadata.PackageNotFoundError:
        return "unknown"


def build_parser() -> argparse.ArgumentParser:
    """The ``tablevar`` parser with every subcommand in ``COMMANDS`` registered."""
    parser = argparse.ArgumentParser(
        prog="tablevar",
        description="A computer-vision referee assistant for Subuteo (FISTF) tables.",
    )
    parser.add_argument("--version", action="version", version=f"tablevar {version()}")
    parser.add_argument(
        "--traceback",
        action="store_true",
        help="on an error, show the full traceback instead of a one-line message",
    )
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"tablevar.commands.{name}").register(subparsers)
    return parser


def _quiet_native_logs() -> None:
    """Keep FFmpeg's and OpenCV's own log lines off stderr, so an error stays one line.

    Our message already says what was wrong; ``--traceback`` (or setting the variables
    yourself) brings the native logs back for debugging.
    """
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # AV_LOG_QUIET, read at first use
    if "OPENCV_LOG_LEVEL" not in os.environ:
        os.environ["OPENCV_LOG_LEVEL"] = "ERROR"
        cv2 = sys.modules.get("cv2")
        # Imported already, so it may have read the variable: set it directly, where the
        # binding can (OpenCV 4.6 as Debian 12 builds it has no cv2.utils.logging).
        log = getattr(getattr(cv2, "utils", None), "logging", None)
        if log is not None:
            log.setLogLevel(log.LOG_LEVEL_ERROR)


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        text = f"{exc.filename}: {exc.strerror}"  # not "[Errno 2] ...: 'name'"
    else:
        text = " ".join(str(exc).split())
    return text or type(exc).__name__


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``tablevar`` with ``argv`` (default: ``sys.argv[1:]``) and return the exit status."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors: argparse already printed
        return exc.code if isinstance(exc.code, int) else EXIT_ERROR
    run = getattr(args, "run", None)
    if run is None:
        parser.print_usage(sys.stderr)
        print("tablevar: error: choose a command (see tablevar --help)", file=sys.stderr)
        return EXIT_ERROR
    if not args.traceback:
        _quiet_native_logs()
    try:
        return int(run(args) or EXIT_OK)
    except KeyboardInterrupt:
        if args.traceback:
            raise
        print("tablevar: error: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except (ValueError, OSError) as exc:
        if args.traceback:
            traceback.print_exc()
        else:
            print(f"tablevar: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_ERROR
