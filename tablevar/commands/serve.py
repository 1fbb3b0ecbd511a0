"""``tablevar serve``: the web pages without a camera: review recordings, an idle live page.

It prints the URL and the PIN that the controls need. ``tablevar live`` and ``tablevar
review`` reuse ``start_server`` with their own app.
"""

from __future__ import annotations

import argparse
import ipaddress
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from flask import Flask

from web.app import create_app, generate_pin
from web.serving import DEFAULT_THREADS, serve

DEFAULT_RECORDINGS = Path("recordings")
NETWORK_PIN_DIGITS = 8  # the PIN's least length when the server is reachable from the network


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="serve the review and calibration pages (and an idle live page)",
        description="Serve the web pages: review recordings frame by frame, see their calls "
        "and calibration. Prints the URL and the PIN for the controls.",
    )
    parser.add_argument(
        "--recordings",
        type=Path,
        default=DEFAULT_RECORDINGS,
        metavar="DIR",
        help=f"folder of recording folders to review (default: {DEFAULT_RECORDINGS})",
    )
    add_server_options(parser)
    parser.set_defaults(run=run)


def add_server_options(parser: argparse.ArgumentParser) -> None:
    """``--host``, ``--port``, ``--pin``, ``--threads``: shared by every command that serves."""
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default: %(default)s)"
    )
    parser.add_argument(
        "--port", type=int, default=8000, help="port (default: %(default)s; 0: any free)"
    )
    parser.add_argument("--pin", help="PIN for the controls (default: a new random one)")
    parser.add_argument(
        "--threads",
        type=int,
        default=DEFAULT_THREADS,
        help="server threads; each open live page holds one (default: %(default)s)",
    )


def check_server_options(args: argparse.Namespace) -> None:
    """Refuse impossible server options before anything is built."""
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be within 0..65535, got {args.port}")
    if args.threads < 4:
        raise ValueError(f"--threads must be at least 4, got {args.threads}")
    if args.pin is not None and not (args.pin.isdigit() and 4 <= len(args.pin) <= 12):
        raise ValueError("--pin must be 4 to 12 digits")
    if args.pin is not None and len(args.pin) < NETWORK_PIN_DIGITS and not is_loopback(args.host):
        raise ValueError(
            f"--pin must have at least {NETWORK_PIN_DIGITS} digits when serving beyond this "
            f"machine (--host {args.host}): anyone on the network may guess"
        )


def is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to anything


def start_server(
    app: Flask,
    args: argparse.Namespace,
    out: TextIO = sys.stdout,
    *,
    page: str = "",
    before_stop: Callable[[], None] | None = None,
) -> int:
    """Serve ``app`` with the parsed server options, announcing the URL and PIN; blocks.

    ``page`` (e.g. ``review/demo``) is appended to the announced URL: the page to open.
    ``before_stop()`` runs when serving ends, before the app closes (see ``web.serving.serve``).
    """
    check_server_options(args)
    if args.pin is None and not is_loopback(args.host):
        # Phones on the venue's network reach this server: a longer PIN against guessing.
        app.config["PIN"] = generate_pin(NETWORK_PIN_DIGITS)

    def announce(url: str) -> None:
        print(f"tablevar: serving on {url}{page}", file=out)
        print(f"tablevar: PIN for the controls: {app.config['PIN']}", file=out, flush=True)

    serve(app, args.host, args.port, args.threads, announce=announce, before_stop=before_stop)
    return 0


def run(args: argparse.Namespace) -> int:
    check_server_options(args)
    if not args.recordings.is_dir():
        raise ValueError(
            f"recordings folder {args.recordings} does not exist; give one with --recordings DIR"
        )
    app = create_app(
        {
            "RECORDINGS_DIR": args.recordings,
            "MATCH_LOG": match_log_path(args.recordings),
            "PIN": args.pin,
        }
    )
    return start_server(app, args)


def match_log_path(recordings: Path) -> Path:
    """The idle live page's match log: beside the recordings it serves, or in a temporary
    folder when that folder cannot be written (a DVD, a read-only share)."""
    try:
        with tempfile.TemporaryFile(dir=recordings):
            pass
        return recordings / "match.sqlite"
    except OSError:
        folder = Path(tempfile.mkdtemp(prefix="tablevar-serve-"))
        print(
            f"tablevar: {recordings} is read-only: the match log is kept in {folder}",
            file=sys.stderr,
        )
        return folder / "match.sqlite"
