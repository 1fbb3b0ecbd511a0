"""``tablevar demo``: referee the bundled demo recording, check it against its truth, show it.

Analyses ``recordings/demo`` (made by the simulator with ``make demo-recording``; with ``--game
button-football`` the button-football demo, ``recordings/demo-button-football``, whose players'
shot calls come with it) into ``out/demo`` (``out/demo-button-football``) with ``tablevar
analyze`` (once: an analysis newer than the video is reused),
prints every call on one line, compares the calls with the recording's ground truth
(``truth_calls.jsonl``: what a referee should call) and says how many it found, then serves the
review page on http://127.0.0.1:8000 until Ctrl-C. ``--no-serve`` stops after the printout.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from calibration.tables import load_profile
from hardware.recording import META_NAME, TRUTH_CALLS_NAME, VIDEO_NAME, read_meta, read_truth_calls
from hardware.sources import TruncatedVideoError
from rules.games import GAMES
from tablevar.commands.review import ensure_analysis, linked_folder, serve_review
from tablevar.commands.serve import add_server_options, check_server_options

DEFAULT_RECORDING = Path("recordings/demo")
DEFAULT_OUT = Path("out/demo")
# Each game's bundled demo recording and its analysis folder.
DEMOS = {
    "fistf": (DEFAULT_RECORDING, DEFAULT_OUT),
    "button-football": (Path("recordings/demo-button-football"), Path("out/demo-button-football")),
}
MATCH_TOLERANCE_S = 0.5


class DemoError(ValueError):
    """The demo recording is missing or does not play."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="referee the bundled demo recording, compare with its truth, serve the review page",
        description="Analyse the bundled demo recording (once), print its calls, compare them "
        "with the recording's ground truth, and serve the review page.",
    )
    parser.add_argument(
        "--game",
        choices=list(DEMOS),
        default="fistf",
        help="whose bundled demo to play (default: %(default)s)",
    )
    parser.add_argument(
        "--recording",
        type=Path,
        default=None,
        metavar="FOLDER",
        help=f"recording folder to referee (default: {DEFAULT_RECORDING}, or the game's demo)",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help=f"analysis output folder (default: {DEFAULT_OUT}, or the game's)",
    )
    parser.add_argument("--again", action="store_true", help="analyse even when up to date")
    parser.add_argument("--no-serve", action="store_true", help="only analyse and print")
    add_server_options(parser)
    parser.set_defaults(run=run)


def _fmt(value: Any, spec: str = "", unit: str = "") -> str:
    if value is None:
        return "-"
    if isinstance(value, int | float) and spec:
        return f"{value:{spec}}{unit}"
    return f"{value}{unit}"


def _margin(call: dict[str, Any]) -> str:
    margin, uncertainty = call.get("margin_mm"), call.get("uncertainty_mm")
    if margin is None:
        return "-"
    if uncertainty is None:
        return f"{margin:+.2f} mm"
    return f"{margin:+.2f} ±{uncertainty:.2f} mm"


HEADER = f"{'time':>9}  {'kind':<16}{'law':<13}{'line':<15}{'margin':>18}  {'team':<6}restart"


def format_call(call: dict[str, Any]) -> str:
    """One line for one call: time, kind, law, line, margin ± uncertainty, team, restart."""
    return (
        f"{_fmt(call.get('t_s'), '7.2f', ' s'):>9}  {_fmt(call.get('kind')):<16}"
        f"{_fmt(call.get('law')):<12} {_fmt(call.get('line')):<15}"
        f"{_margin(call):>18}  {_fmt(call.get('team')):<6}"
        f"{_fmt(call.get('restart'))}"
    )


def match_calls(
    calls: list[dict[str, Any]], truth: list[dict[str, Any]], tolerance_s: float = MATCH_TOLERANCE_S
) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """Pair each truth call with the analysis call of the same kind and team nearest in time
    (within ``tolerance_s``); each analysis call is used at most once.

    Returns:
        ``(truth call, matching call or None)`` in the truth's order.
    """
    used: set[int] = set()
    pairs = []
    for want in truth:
        best, best_dt = None, tolerance_s
        for i, call in enumerate(calls):
            if i in used or call.get("kind") != want.get("kind"):
                continue
            if call.get("team") != want.get("team"):
                continue
            dt = abs(float(call.get("t_s", 0.0)) - float(want.get("t_s", 0.0)))
            if dt <= best_dt:
                best, best_dt = i, dt
        if best is not None:
            used.add(best)
        pairs.append((want, None if best is None else calls[best]))
    return pairs


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def report(
    recording: Path,
    folder: Path,
    truth: list[dict[str, Any]] | None,
    out: TextIO,
) -> None:
    """Print the analysis in ``folder`` of ``recording``: summary, calls, truth comparison."""
    meta = read_meta(recording)
    summary = json.loads((folder / "summary.json").read_text(encoding="utf-8"))
    calls = _read_jsonl(folder / "calls.jsonl")
    w, h = meta.size_px
    score = summary["score"]
    print(f"Demo recording {recording} (table {meta.table}, source {meta.source})", file=out)
    print(
        f"  {summary['frames']} frames, {w}x{h} px at {meta.fps:g} fps, "
        f"{summary['ms_per_frame']:.2f} ms per frame; match clock {summary['clock_s']:.1f} s, "
        f"score {score['home']}:{score['away']}",
        file=out,
    )
    print(f"Calls of the analysis: {len(calls)} (in {folder / 'calls.jsonl'})", file=out)
    if calls:
        print(HEADER, file=out)
    for call in calls:
        print(format_call(call), file=out)
    if truth is None:
        print("No ground truth: truth_calls.jsonl is only in simulated recordings.", file=out)
        return
    pairs = match_calls(calls, truth)
    found = sum(call is not None for _, call in pairs)
    print(
        f"Ground truth: {found} of {len(truth)} scripted calls found by the analysis "
        f"(same kind and team within {MATCH_TOLERANCE_S:g} s)",
        file=out,
    )
    for want, call in pairs:
        print(f"  {'found ' if call is not None else 'MISSED'} {format_call(want)}", file=out)


def run(args: argparse.Namespace) -> int:
    check_server_options(args)
    default_recording, default_out = DEMOS[args.game]
    recording: Path = args.recording or default_recording
    if not (recording / META_NAME).is_file() or not (recording / VIDEO_NAME).is_file():
        raise DemoError(
            f"demo recording {recording} not found: generate it with `make demo-recording`"
            + ("" if recording == default_recording else " or pass --recording FOLDER")
        )
    table = read_meta(recording).table
    game = load_profile(table).game
    if game != args.game:
        raise DemoError(
            f"{recording} is a recording of {GAMES[game].title} (table {table!r}), not of "
            f"{GAMES[args.game].title}: pass --game {game}"
        )
    folder = linked_folder(recording / VIDEO_NAME, args.out or default_out)
    try:
        ensure_analysis(
            folder, source=recording, table=table, progress=sys.stderr.isatty(), force=args.again
        )
    except TruncatedVideoError as exc:
        raise DemoError(f"{exc}; regenerate it with `make demo-recording`") from exc
    has_truth = (recording / TRUTH_CALLS_NAME).is_file()
    report(recording, folder, read_truth_calls(recording) if has_truth else None, sys.stdout)
    if args.no_serve:
        return 0
    print("tablevar: the review page shows every call frame by frame; Ctrl-C stops", flush=True)
    return serve_review(folder, args, table=table)
