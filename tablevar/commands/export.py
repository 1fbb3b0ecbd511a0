"""``tablevar export LOG``: the log of a match (its calls and the referee's actions) as JSON or CSV.

Reads the SQLite match log ``tablevar live`` keeps (``match.sqlite`` in its ``--out`` folder) and
writes one match (the newest unless ``--match`` names another) to ``--out`` or to standard
output, in the same form as the live page's export.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from web.matchlog import MatchLog


class ExportError(ValueError):
    """An export that cannot be made (no such log, no match in it)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export",
        help="export the log of a match (calls, overrules, added time) as JSON or CSV",
        description="Write one match of a match log (match.sqlite of `tablevar live --out`) "
        "as JSON or CSV: every call as the rules made it and every action of the referee.",
    )
    parser.add_argument("log", type=Path, metavar="LOG", help="the match log (match.sqlite)")
    parser.add_argument("--match", type=int, help="match id (default: the newest)")
    parser.add_argument("--format", choices=("json", "csv"), default="json")
    parser.add_argument("--out", type=Path, metavar="FILE", help="file (default: stdout)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not args.log.is_file():
        raise ExportError(f"no match log at {args.log}; give the match.sqlite of a live --out")
    log = MatchLog(args.log)
    try:
        match_id = args.match if args.match is not None else log.current_match()
        if match_id is None:
            raise ExportError(f"{args.log} holds no match yet")
        if args.format == "json":
            text = json.dumps(log.export_json(match_id), indent=2) + "\n"
        else:
            text = log.export_csv(match_id)
    finally:
        log.close()
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")
    return 0
