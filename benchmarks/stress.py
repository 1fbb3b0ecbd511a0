"""Stress test: the whole product on simulated clips recorded far wider than a club table looks.

A simulator drawn by the same hands as the detector shares its blind spots, so this renders
clips under conditions varied well past the natural (``simulator.scene_stress``), one factor at
a time from a plain base, plus a fully random mix of all of them, and runs each through the
real ``tablevar analyze`` in a subprocess, as a user would with footage from another camera:
on the clip's video file alone (its shutter's readout not known). Factors (what each varies):

- ``base``: nothing: a white ball, the default look, a camera 1.3 m straight above the cloth,
  1280x960 at 30 fps, H.264 at constant quality, a global shutter, a clip from the kick-off;
- ``ball_colour``: white, cream, orange, yellow, red, pink, pale blue or black, plain,
  two-tone, with a band or with spots in a second colour (the marks turn as it rolls);
- ``ball_material``: the highlight's strength (0-1.2) and size (sharp spot to broad sheen),
  ambient light 0.05-0.8 (a dim side that fades into the cloth);
- ``lights``: one hard light low at the side, soft overhead light, or 2-4 lamps; colour
  temperature 2700-7500 K not balanced; uneven light up to 50 %; long or soft shadows;
- ``kits``: kits in colours close to the ball's (orange and red kits with an orange ball,
  white kits with a white ball; never both teams on bases alike, as Law 4.1.2 forbids);
- ``cloth``: cloth shades from dark to pale green, olive, blue-green, grey-green; texture and
  mowing stripes;
- ``camera_turn``: the camera turned by any angle about the vertical;
- ``tilt_height``: tilted up to 15 degrees in any direction, 0.9-2.0 m above the cloth;
- ``principal_point``: the principal point 3-25 px off centre in x and y;
- ``lens``: distortion k1 -0.35 to +0.12, k2 +-0.08, tangential p1, p2 up to 0.003;
- ``resolution``: 960x720, 1280x720, 1640x1232, 1920x1080 or 2304x1296;
- ``fps``: 50, 60, 90 or 120 fps (the base is 30);
- ``codec``: H.264 at 800-6000 kbit/s or MPEG-4 part 2 at 1500-12000 kbit/s;
- ``rolling_shutter``: rows exposed one after another over 5-30 ms;
- ``mid_play``: the clip starts inside a roll: the ball already moving, no kick-off seen;
- ``tone``: the camera's tone curve, levels ``v`` recorded as ``255 (v / 255) ** (1 / gamma)``
  with gamma 1.0-2.4 (about 2.2: an sRGB camera, a phone; 1: the Pi camera as tablevar opens
  it), so that colours come closer together and a ball's shading bends;
- ``random``: all of the above at once.

Every clip is one of ``simulator.scene_margins``' ``line`` scenes: a kick-off, then a ball
played to rest -8 to +8 mm from a touchline or goal line (half of them within 1.5 mm), on
either table profile. Seeds start at 70000 and are disjoint from the tests' and the other
benchmarks'. Per factor it prints:

- ``fail``: runs that exited non-zero or timed out;
- ``found %``: frames where the ball is on the table on which the track holds a ball within
  15 mm of the true one;
- ``rest med / p95``: the error (mm) of the tracked ball on frames where it has rested for
  three frames or more (a ball tracked elsewhere counts with its full error);
- ``cover %``: of those frames, the share whose error along the nearest boundary line's normal
  (the direction a line call reads) lies within the uncertainty the rules were told for that
  frame (``tablevar.rules_stage``: ``U = 2 * sqrt(sigma_track^2 + sigma_line^2 +
  sigma_camera^2)`` plus the identity doubt while no candidate has rolled, the rules'
  default 0.5 mm when the tracker gives none). Tracks do not carry it, so the analysis runs
  with its rules stage wrapped to log the ``U`` it hands on (``ball_uncertainty.jsonl``);
  nothing else about the run changes. Only frames the rules were given a ball on count: a
  frame written afterwards with where motion later showed the ball was
  (``tablevar.hindsight``) was judged without one;
- ``move %``: the same share over the frames the ball rolls on, where the track holds it
  (within 15 mm): what a call on a rolling ball crossing a line rests on;
- ``call cov``: line calls (``calls.jsonl``) whose |margin - true margin at that frame| is
  within their ``uncertainty_mm``;
- ``right``: clips whose line call reads the truth (a confident call on the right side, or no
  call for a ball resting 3 mm or more inside); ``c.wrong``: confident wrong calls (a wrong
  reading with |margin| > uncertainty); ``close``: left to the referee as too close to call
  (neither right nor wrong); ``missed``: no call where one was due;
- ``figs %``: of the figures standing on the table, the share the track holds a figure within
  10 mm of (every fifth frame); ``fig p95``: the error (mm) of those it holds, 95th
  percentile; ``extra/f``: tracked figures with no figure within 10 mm, per frame (invented,
  or one so misplaced that it counts as both missing and invented);
- ``ms/f``: the analysis' own milliseconds per frame (``summary.json``).

A camera turned by half a turn gives a pitch frame turned with it (home's goal is on the
image's left unless said otherwise): positions are compared in whichever of the two frames
the calibration chose.

Usage: ``.venv/bin/python benchmarks/stress.py [--size small|medium|large]
[--clips-per-factor N] [--first-clip K] [--factors a,b,...] [--jobs 2] [--out DIR] [--keep]
[--rescore]``; ``--first-clip K`` starts each factor's seeds K further on (held-out clips).
``small`` (one clip per factor) takes about 10 minutes on two idle cores (20 when they are
shared); ``--rescore`` prints the table of an earlier run's ``OUT/results.json`` again.
"""

from __future__ import annotations

import os

# One BLAS thread (set before numpy loads): the jobs share the cores.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from multiprocessing import Pool  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from calibration.camera import CameraModel  # noqa: E402
from calibration.tables import load_pitch  # noqa: E402
from hardware.recording import VIDEO_NAME, read_meta, read_truth  # noqa: E402
from rules.geometry import BOUNDARY_LINES, crossed_margin_mm  # noqa: E402
from simulator.scene_margins import build_margin_scene  # noqa: E402
from simulator.scene_stress import FACTORS, draw  # noqa: E402
from simulator.simulate import mid_play_start_s, simulate  # noqa: E402

SEED0 = 70_000
SEEDS_PER_FACTOR = 100
SIZES = {"small": 1, "medium": 3, "large": 8}  # clips per factor
TIMEOUT_S = 900.0
FOUND_MM = 15.0
SETTLED_FRAMES = 3
# Figures are scored on every this many frames, matched to a tracked one within this.
FIGURE_EVERY = 5
FIGURE_MATCH_MM = 10.0
DEFAULT_UNCERTAINTY_MM = 0.5  # rules.observation.Observation's default
UNCERTAINTY_LOG = "ball_uncertainty.jsonl"
# The calls that read the ball against a line: a set piece's fault names a line too (where
# the throw-in was taken), but its margin is no ball's.
LINE_CALL_KINDS = ("ball_out", "close_call")


# ---------------------------------------------------------------------- plan and run
def plan(factors: list[str], per_factor: int, first: int = 0) -> list[dict[str, Any]]:
    """One job per clip: factor, seed, table, line and the margin the ball rests at; clips
    ``first`` to ``first + per_factor - 1`` of each factor (a later ``first`` gives seeds no
    earlier run has seen)."""
    if not (0 <= first and first + per_factor <= SEEDS_PER_FACTOR):
        raise ValueError(f"clips {first}..{first + per_factor - 1}: each factor has 0..99")
    jobs = []
    for factor in factors:
        fi = list(FACTORS).index(factor)  # not the place in ``factors``: a seed is one clip
        for k in range(first, first + per_factor):
            seed = SEED0 + SEEDS_PER_FACTOR * fi + k
            rng = np.random.default_rng([seed, 3])
            size = rng.uniform(0.1, 1.5) if rng.random() < 0.5 else rng.uniform(1.5, 8.0)
            margin = float(round(size * rng.choice([-1.0, 1.0]), 3))
            line = "touchline" if rng.random() < 0.5 else "goal_line"
            jobs.append(
                {
                    "factor": factor,
                    "seed": seed,
                    "table": "fistf" if (fi + k) % 2 == 0 else "subbuteo-classic",
                    "line": line,
                    "margin_mm": margin,
                }
            )
    return jobs


def run_clip(job: dict[str, Any], work: str, keep: bool) -> dict[str, Any]:
    """Render the clip, analyse it in a subprocess, score it; returns the clip's result."""
    name = f"{job['factor']}-{job['seed']}"
    clip, out = Path(work) / name / "clip", Path(work) / name / "out"
    result: dict[str, Any] = {**job, "status": None, "error": ""}
    try:
        scene = build_margin_scene(
            "line", job["seed"], job["table"], line=job["line"], margin_mm=job["margin_mm"]
        )
        rng = np.random.default_rng([job["seed"], 7])
        cond = draw(job["factor"], rng, scene.pitch)
        start = mid_play_start_s(scene, rng) if cond.mid_play else 0.0
        t0 = time.perf_counter()
        simulate(
            scene,
            clip,
            camera=cond.camera,
            look=cond.look,
            fps=cond.fps,
            seed=job["seed"],
            table=job["table"],
            progress=False,
            codec=cond.codec,
            bitrate_kbps=cond.bitrate_kbps,
            readout_s=cond.readout_s,
            start_s=start,
            exposure_s=cond.exposure_s,
        )
        result["conditions"] = cond.describe()
        result["render_s"] = time.perf_counter() - t0
    except Exception as exc:  # a clip that cannot be drawn is reported, not fatal
        result["error"] = f"render: {exc!r}"
        return result
    t0 = time.perf_counter()
    cmd = [sys.executable, __file__, "--analyze", str(clip), str(out), "--table", job["table"]]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S)
        result["status"] = proc.returncode
        lines = proc.stderr.strip().splitlines()
        result["error"] = lines[-1] if proc.returncode and lines else ""
    except subprocess.TimeoutExpired:
        result["status"], result["error"] = -1, f"timed out after {TIMEOUT_S:.0f} s"
    result["analyze_s"] = time.perf_counter() - t0
    result.update(score_clip(clip, out, job["table"], result["status"] == 0))
    if not keep:
        shutil.rmtree(Path(work) / name, ignore_errors=True)
    return result


def tapped_analyze(clip: str, out: str, table: str) -> int:
    """``tablevar analyze CLIP --out OUT`` with its rules stage logging the ball uncertainty
    it hands to the rules on every frame (``OUT/ball_uncertainty.jsonl``)."""
    import tablevar.commands.analyze as analyze_cmd
    from tablevar.cli import main
    from tablevar.rules_stage import FistfRules

    log: list[tuple[int, float]] = []

    class LoggingRules(FistfRules):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            log.clear()  # analysed again (a ball colour learnt from its roll): the last counts

        def judge(self, frame):
            if frame.ball is not None:  # a frame without a ball is told no uncertainty
                u = self.ball_uncertainty(frame)
                log.append((frame.frame, DEFAULT_UNCERTAINTY_MM if u is None else u))
            return super().judge(frame)

    analyze_cmd.FistfRules = LoggingRules
    try:
        video = str(Path(clip) / VIDEO_NAME)
        return main(["analyze", video, "--out", out, "--table", table, "--no-progress"])
    finally:
        if Path(out).is_dir():
            with open(Path(out) / UNCERTAINTY_LOG, "w", encoding="utf-8") as f:
                f.writelines(json.dumps({"frame": i, "u_mm": u}) + "\n" for i, u in log)


# ---------------------------------------------------------------------- scoring
def _jsonl(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def turned_half(truth_cam: CameraModel, cal: dict | None) -> bool:
    """Whether the calibration's pitch frame is the true one turned by half a turn."""
    if cal is None:
        return False
    cam = CameraModel.from_dict(cal["camera"])
    w, h = truth_cam.size_px
    px = np.array([[w * fx, h * fy] for fx in (0.3, 0.5, 0.7) for fy in (0.3, 0.5, 0.7)])
    p_true, p_cal = truth_cam.back_project(px), cam.back_project(px)
    return float(np.abs(p_cal + p_true).mean()) < float(np.abs(p_cal - p_true).mean())


def score_clip(clip: Path, out: Path, table: str, ok: bool) -> dict[str, Any]:
    """Ball found, rest errors and their coverage, and the line call of one analysed clip."""
    empty = {
        "visible": 0,
        "found": 0,
        "rest_err": [],
        "rest_cover": [],
        "move_cover": [],
        "calls": [],
        **_figure_scores([], {}, 1.0),
    }
    if not (clip / "truth.jsonl").exists():
        return empty
    truth = read_truth(clip)
    camera = read_meta(clip).camera
    cal_path = out / "calibration.json"
    cal = json.loads(cal_path.read_text(encoding="utf-8")) if cal_path.exists() else None
    sign = -1.0 if turned_half(camera, cal) else 1.0
    seen = seen_positions(clip, truth, camera)
    tracks = {r["frame"]: r for r in _jsonl(out / "tracks.jsonl")}
    unc = {r["frame"]: r["u_mm"] for r in _jsonl(out / UNCERTAINTY_LOG)}
    pitch = load_pitch(table)
    r_ball = pitch.profile.ball_radius_mm
    lines = [pitch.line(n) for n in BOUNDARY_LINES]
    normals = {"touchline": np.array([0.0, 1.0]), "goal_line": np.array([1.0, 0.0])}
    visible = found = 0
    rest_err, rest_cover, move_cover = [], [], []
    still = 0
    for rec in truth:
        b = rec["ball"]
        still = still + 1 if b is not None and not b["moving"] else 0
        if b is None:
            continue
        visible += 1
        got = tracks.get(rec["frame"], {}).get("ball")
        if got is None:
            continue
        xy_true = seen[rec["frame"]]
        xy = sign * np.array([got["x_mm"], got["y_mm"]])
        err = xy - xy_true
        held = float(np.hypot(*err)) <= FOUND_MM
        found += held
        resting = still >= SETTLED_FRAMES
        if resting:
            rest_err.append(float(np.hypot(*err)))
        if rec["frame"] not in unc or not (resting or (b["moving"] and held)):
            continue
        margins = [float(crossed_margin_mm(line, xy_true, r_ball)[0]) for line in lines]
        nearest = lines[int(np.argmax(margins))]  # the boundary line the ball is nearest
        along = abs(float(err @ normals.get(nearest.kind, np.array([0.0, 1.0]))))
        (rest_cover if resting else move_cover).append(along <= unc[rec["frame"]])
    calls = []
    by_frame = {rec["frame"]: rec for rec in truth}
    for c in _jsonl(out / "calls.jsonl"):
        line_call = c["kind"] in LINE_CALL_KINDS and c["line"] in ("touchline", "goal_line")
        if not line_call or c["margin_mm"] is None:
            continue
        b = by_frame.get(c["frame"], {}).get("ball")
        true_margin = None
        if b is not None:
            xy = np.array([b["x_mm"], b["y_mm"]])
            true_margin = max(float(crossed_margin_mm(ln, xy, r_ball)[0]) for ln in lines)
        calls.append({**c, "true_margin_mm": true_margin})
    summary = _read_summary(out) if ok else {}
    return {
        "visible": visible,
        "found": found,
        "rest_err": rest_err,
        "rest_cover": rest_cover,
        "move_cover": move_cover,
        "calls": calls,
        **_figure_scores(truth, tracks, sign),
        "ms_per_frame": summary.get("ms_per_frame"),
    }


def _figure_scores(truth: list[dict], tracks: dict[int, dict], sign: float) -> dict[str, Any]:
    """Figures on every ``FIGURE_EVERY``-th frame: how many stood and were held within
    ``FIGURE_MATCH_MM`` (their errors, mm), and how many tracked ones stood by no figure."""
    standing = held = extra = frames = 0
    err: list[float] = []
    for rec in truth[::FIGURE_EVERY]:
        got = tracks.get(rec["frame"])
        if got is None:
            continue
        true_xy = np.array([[f["x_mm"], f["y_mm"]] for f in rec["figures"]]).reshape(-1, 2)
        xy = sign * np.array([[f["x_mm"], f["y_mm"]] for f in got["figures"]]).reshape(-1, 2)
        d = np.linalg.norm(true_xy[:, None] - xy[None], axis=2)
        near = d <= FIGURE_MATCH_MM
        frames += 1
        standing += len(true_xy)
        held += int(near.any(axis=1).sum())
        extra += int((~near.any(axis=0)).sum())
        err += d.min(axis=1, initial=np.inf)[near.any(axis=1)].tolist()
    return {
        "figures_standing": standing,
        "figures_held": held,
        "figure_err": err,
        "figures_extra": extra,
        "figure_frames": frames,
    }


def seen_positions(clip: Path, truth: list[dict], camera: CameraModel) -> dict[int, np.ndarray]:
    """Per frame, where the ball is when the rows that show it are exposed, (2,) mm.

    With a global shutter that is the truth itself. A rolling shutter exposes row v at
    ``t + (v - (h - 1) / 2) * readout / h`` (``sim.json``): a rolling ball is then seen
    where it was a little before or after the frame's time, interpolated between the truth
    of neighbouring frames. A ball at rest is where the truth says either way.
    """
    frames = [r for r in truth if r["ball"] is not None]
    xy = {r["frame"]: np.array([r["ball"]["x_mm"], r["ball"]["y_mm"]]) for r in frames}
    sim = json.loads((clip / "sim.json").read_text(encoding="utf-8"))
    readout = float(sim.get("readout_s", 0.0))
    if readout == 0.0 or not frames:
        return xy
    meta = read_meta(clip)
    fps, h = float(meta.fps), camera.size_px[1]
    r_ball = load_pitch(meta.table).profile.ball_radius_mm
    out = {}
    for r in frames:
        i = r["frame"]
        row = float(camera.project(np.array([[*xy[i], r_ball]]))[0, 1])
        step = (row - 0.5 * (h - 1)) * readout / h * fps  # in frames
        j = i + (1 if step > 0 else -1)
        if j not in xy:
            out[i] = xy[i]
            continue
        out[i] = xy[i] + abs(step) * (xy[j] - xy[i])
    return out


def _read_summary(out: Path) -> dict:
    path = out / "summary.json"
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def line_outcome(margin_mm: float, calls: list[dict]) -> str:
    """``wrong`` when any boundary-line call reads its own frame's truth wrongly with its
    margin beyond its uncertainty (``true_margin_mm``; the ball's resting margin where the
    truth has no ball); else the first call: ``too_close`` or ``right``; else ``right`` for a
    ball resting well inside, ``missed`` otherwise."""
    said = [c for c in calls if c["kind"] in LINE_CALL_KINDS]
    if not said:
        return "right" if margin_mm <= -3.0 else "missed"

    def crossed(c: dict) -> bool:
        truth = c.get("true_margin_mm")
        return (margin_mm if truth is None else truth) > 0

    confident = [c for c in said if abs(c["margin_mm"]) > c["uncertainty_mm"]]
    if any(bool(c["fully_crossed"]) != crossed(c) for c in confident):
        return "wrong"
    return "too_close" if abs(said[0]["margin_mm"]) <= said[0]["uncertainty_mm"] else "right"


def aggregate(results: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per factor: the table's figures (see the module docstring)."""
    table: dict[str, dict[str, Any]] = {}
    for factor in dict.fromkeys(r["factor"] for r in results):
        rs = [r for r in results if r["factor"] == factor]
        ran = [r for r in rs if r["status"] == 0]
        err = np.concatenate([r.get("rest_err", []) for r in rs] + [np.zeros(0)])
        cover, move = (
            np.concatenate([np.asarray(r.get(key, []), float) for r in rs] + [[]])
            for key in ("rest_cover", "move_cover")
        )
        calls = [c for r in rs for c in r.get("calls", []) if c["true_margin_mm"] is not None]
        call_cov = [abs(c["margin_mm"] - c["true_margin_mm"]) <= c["uncertainty_mm"] for c in calls]
        outcomes = [line_outcome(r["margin_mm"], r.get("calls", [])) for r in ran]
        visible = sum(r.get("visible", 0) for r in rs)
        ms = [r["ms_per_frame"] for r in ran if r.get("ms_per_frame") is not None]
        fig_err = np.concatenate([r.get("figure_err", []) for r in rs] + [np.zeros(0)])
        table[factor] = {
            "clips": len(rs),
            "failed": len(rs) - len(ran),
            "found_pct": 100.0 * sum(r.get("found", 0) for r in rs) / visible if visible else None,
            "rest_median_mm": float(np.median(err)) if len(err) else None,
            "rest_p95_mm": float(np.percentile(err, 95)) if len(err) else None,
            "cover_pct": 100.0 * float(cover.mean()) if len(cover) else None,
            "move_cover_pct": 100.0 * float(move.mean()) if len(move) else None,
            "call_cover": (sum(call_cov), len(call_cov)),
            "right": (outcomes.count("right"), len(rs)),
            "too_close": outcomes.count("too_close"),
            "missed": outcomes.count("missed"),
            "confident_wrong": outcomes.count("wrong"),
            "figures_pct": _pct(rs, "figures_held", "figures_standing"),
            "figure_p95_mm": float(np.percentile(fig_err, 95)) if len(fig_err) else None,
            "extra_per_frame": _ratio(rs, "figures_extra", "figure_frames"),
            "ms_per_frame": float(np.mean(ms)) if ms else None,
        }
    return table


def _ratio(results: list[dict[str, Any]], num: str, den: str) -> float | None:
    """Sum of ``num`` over sum of ``den`` across results (older results lack both: None)."""
    total = sum(r.get(den, 0) for r in results)
    return sum(r.get(num, 0) for r in results) / total if total else None


def _pct(results: list[dict[str, Any]], num: str, den: str) -> float | None:
    ratio = _ratio(results, num, den)
    return None if ratio is None else 100.0 * ratio


def format_table(table: dict[str, dict[str, Any]]) -> str:
    head = (
        f"{'factor':<16}{'clips':>6}{'fail':>5}{'found %':>9}{'rest med':>9}{'p95 mm':>8}"
        f"{'cover %':>9}{'move %':>8}{'call cov':>9}{'right':>7}{'close':>6}{'missed':>7}"
        f"{'c.wrong':>8}"
        f"{'figs %':>8}{'fig p95':>8}{'extra/f':>8}{'ms/f':>7}"
    )
    rows = [head, "-" * len(head)]

    def num(v, fmt):
        return "-" if v is None else format(v, fmt)

    def frac(pair):
        return f"{pair[0]}/{pair[1]}"

    for factor, t in table.items():
        rows.append(
            f"{factor:<16}{t['clips']:>6}{t['failed']:>5}{num(t['found_pct'], '.1f'):>9}"
            f"{num(t['rest_median_mm'], '.2f'):>9}{num(t['rest_p95_mm'], '.2f'):>8}"
            f"{num(t['cover_pct'], '.0f'):>9}{num(t.get('move_cover_pct'), '.0f'):>8}"
            f"{frac(t['call_cover']):>9}"
            f"{frac(t['right']):>7}{t['too_close']:>6}{t['missed']:>7}{t['confident_wrong']:>8}"
            f"{num(t['figures_pct'], '.1f'):>8}{num(t['figure_p95_mm'], '.2f'):>8}"
            f"{num(t['extra_per_frame'], '.2f'):>8}{num(t['ms_per_frame'], '.1f'):>7}"
        )
    return "\n".join(rows)


def main_benchmark(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=list(SIZES), default="small", help="clips per factor")
    parser.add_argument("--clips-per-factor", type=int, default=None, help="overrides --size")
    parser.add_argument(
        "--factors", default=",".join(FACTORS), help=f"comma-separated, of: {', '.join(FACTORS)}"
    )
    parser.add_argument(
        "--first-clip", type=int, default=0, help="index of each factor's first clip (0-99)"
    )
    parser.add_argument("--jobs", type=int, default=2, help="clips rendered and analysed at once")
    parser.add_argument("--out", type=Path, default=Path("out/stress"), help="results folder")
    parser.add_argument("--keep", action="store_true", help="keep every clip and its analysis")
    parser.add_argument(
        "--rescore", action="store_true", help="print the table of OUT/results.json again"
    )
    args = parser.parse_args(argv)
    if args.rescore:
        print(format_table(aggregate(json.loads((args.out / "results.json").read_text("utf-8")))))
        return
    factors = [f.strip() for f in args.factors.split(",") if f.strip()]
    unknown = [f for f in factors if f not in FACTORS]
    if unknown:
        parser.error(f"unknown factors {unknown}; factors: {', '.join(FACTORS)}")
    per = args.clips_per_factor or SIZES[args.size]
    try:
        jobs = plan(factors, per, args.first_clip)
    except ValueError as exc:
        parser.error(str(exc))
    args.out.mkdir(parents=True, exist_ok=True)
    work = str(args.out / "clips") if args.keep else tempfile.mkdtemp(prefix="stress-")
    start = time.perf_counter()
    print(f"{len(jobs)} clips ({per} per factor) on {args.jobs} jobs ...", flush=True)
    with Pool(max(1, args.jobs), maxtasksperchild=1) as pool:
        pending = [pool.apply_async(run_clip, (j, work, args.keep)) for j in jobs]
        results = []
        for p in pending:
            r = p.get()
            results.append(r)
            note = f" ({r['error']})" if r["error"] else ""
            print(f"  {r['factor']:<16} seed {r['seed']}: exit {r['status']}{note}", flush=True)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    table = aggregate(results)
    (args.out / "results.json").write_text(json.dumps(results, indent=1), encoding="utf-8")
    (args.out / "table.json").write_text(json.dumps(table, indent=1), encoding="utf-8")
    print()
    print(format_table(table))
    print(f"\ntook {time.perf_counter() - start:.0f} s; results in {args.out}/results.json")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--analyze":
        clip_arg, out_arg = sys.argv[2], sys.argv[3]
        table_arg = sys.argv[5] if len(sys.argv) > 5 else "fistf"
        sys.exit(tapped_analyze(clip_arg, out_arg, table_arg))
    main_benchmark()
