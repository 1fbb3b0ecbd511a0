"""The match report page (and its file to keep or share) and a match's export, per recording."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, render_template

from rules.calls import RECORD_KEYS
from web.games import page_words
from web.geometry import pitch_json
from web.recordings import Analysis
from web.report import HEAT_BINS, MatchReport, match_report
from web.review import analysis_named, geometry_of, read_or_422

bp = Blueprint("report", __name__)

# A call's record (``rules.calls.RECORD_KEYS``) with its position and figure spread over columns.
_PLAIN_KEYS = RECORD_KEYS[: RECORD_KEYS.index("position")]
CSV_COLUMNS = (
    "index",
    *_PLAIN_KEYS,
    "position_x_mm",
    "position_y_mm",
    "figure_id",
    "figure_team",
    "evidence",
)


def _report(analysis: Analysis) -> MatchReport:
    """The report, kept until ``tracks.jsonl`` changes (one pass over every record)."""

    def build() -> MatchReport:
        pitch, _ = geometry_of(analysis)
        summary = read_or_422(analysis.summary) or {}
        fps = float(summary.get("fps") or 60.0)
        return match_report(
            pitch, analysis.tracks.records(), read_or_422(analysis.calls), analysis.tracks.get, fps
        )

    return read_or_422(analysis.cached, "report", "tracks.jsonl", build)


def _context(name: str) -> dict[str, Any]:
    analysis = analysis_named(name)
    pitch, _ = geometry_of(analysis)
    report = _report(analysis)
    summary = read_or_422(analysis.summary) or {}
    return {
        "name": analysis.name,
        "summary": summary,
        "report": report,
        "pitch": pitch_json(pitch),
        "heat_bins": HEAT_BINS,
        "heat_max": float(report.heat.max()) if report.heat.size else 0.0,
        **page_words(analysis.table(), analysis.game()),
    }


@bp.get("/review/<name>/report")
def page(name: str):
    return render_template("report.html", standalone=False, **_context(name))


@bp.get("/api/recordings/<name>/report.html")
def file(name: str):
    """The report as one self-contained HTML file (styles inline, no scripts): to keep, print
    or send."""
    css = (Path(current_app.static_folder or "") / "style.css").read_text(encoding="utf-8")
    html = render_template("report.html", standalone=True, inline_css=css, **_context(name))
    response = Response(html, mimetype="text/html")
    response.headers["Content-Disposition"] = f'attachment; filename="tablevar-{name}-report.html"'
    return response


@bp.get("/api/recordings/<name>/export.json")
def export_json(name: str):
    """The recording's summary and calls, as the analysis wrote them."""
    analysis = analysis_named(name)
    calls = [
        {k: v for k, v in c.items() if k != "evidence_rel"} for c in read_or_422(analysis.calls)
    ]
    response = jsonify(
        {"recording": analysis.name, "summary": read_or_422(analysis.summary), "calls": calls}
    )
    response.headers["Content-Disposition"] = f'attachment; filename="tablevar-{name}-calls.json"'
    return response


@bp.get("/api/recordings/<name>/export.csv")
def export_csv(name: str):
    """The recording's calls as CSV (``CSV_COLUMNS``), one row each."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for index, c in enumerate(read_or_422(analysis_named(name).calls)):
        position = c.get("position") if isinstance(c.get("position"), dict) else {}
        figure = c.get("figure") if isinstance(c.get("figure"), dict) else {}
        row = [index, *(c.get(k) for k in _PLAIN_KEYS)]
        row += [position.get("x_mm"), position.get("y_mm"), figure.get("id"), figure.get("team")]
        row.append(c.get("evidence"))
        writer.writerow(["" if v is None else v for v in row])
    response = Response(out.getvalue(), mimetype="text/csv")
    response.headers["Content-Disposition"] = f'attachment; filename="tablevar-{name}-calls.csv"'
    return response
