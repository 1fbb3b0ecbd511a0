"""Button football from video: calls, contacts, clock and speed of ``analyze`` against truth.

Renders button-football clips the tests never see (seeds from 1000 on, the scenes of
``simulator.button_scenes`` in turn: kick-offs, passes, seven contacts, called shots that score
or stay in play, uncalled goals, throw-ins, corners, goal kicks, the keeper's ball, fouls (a
button flicked into an opponent's before the ball: a free kick, or a penalty); a camera and
a look drawn from the seed), runs ``tablevar analyze`` on each (in this process, its rules stage
watched for the contacts it is given) and compares with the clip's truth:

- calls, per kind: a truth call (the reducer's on the exact frames and shot calls) is *right*
  when a call of the same kind, team and restart is made within 3 frames, *abstained* when the
  call made there is ``too close to call`` (left to the referee), else *missed*; any other call
  is *confident wrong*, or *abstained* when it is ``too close to call``;
- contacts: every strike of the clip (a flick that reached the ball, or a button flicked into
  another) filed once, by the right button, within 3 frames of its onset, and nothing else (a
  clip is exact when both hold);
- clock: the analysed ``clock_s`` against the true rolling time in play (``rolling_time_s``, in
  continuous time; % of it);
- speed: ``ms_per_frame`` of the pipeline and rules, and its ratio to FISTF clips of the same
  size rendered and analysed in the same run (one after every ``FISTF_EVERY`` button clips, so
  that both see the same load).

Rendered clips are kept under ``--out`` and used again by a later run with the same ``--out``;
``--tag`` names an analysis, whose per-clip results are kept too (a run picks up where one
stopped; ``--first`` / ``--clips`` split the clips between runs, ``--summary-only`` prints the
table of all). Usage::

    python benchmarks/button_accuracy.py [--clips N] [--first K] [--size WxH] [--out DIR]

It prints one line per clip and a summary table.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from rules.geometry import BOUNDARY_LINES, crossed_margin_mm
from simulator.button_scenes import SCENES, build_button_scene, simulate_button
from simulator.scene_camera import clip_camera, clip_look
from simulator.scene_library import SCENES as FISTF_SCENES
from simulator.scene_library import build_scene
from simulator.simulate import simulate
from tablevar.commands import analyze as analyze_command

FPS = 50.0
FIRST_SEED = 1000
FRAME_TOLERANCE = 3
BUTTON_TABLE = "button-football"
FISTF_NAMES = tuple(n for n in FISTF_SCENES if n != "demo")
FISTF_EVERY = 5  # one FISTF clip (same size, same load) after every this many button clips


class _Watched:
    """A rules stage whose given contacts are kept (with where their button stood)."""

    def __init__(self, rules: Any) -> None:
        self.rules = rules
        self.contacts: list[dict[str, Any]] = []

    def judge(self, frame):
        named, calls = self.rules.judge(frame)
        for c in named.contacts:
            row = named.figures.index_of(c.figure_id)
            if row is None:
                continue
            x, y = (float(v) for v in named.figures.xy_mm[row])
            self.contacts.append(
                {"kind": c.kind, "onset_frame": c.onset_frame, "frame": frame.frame, "xy": (x, y)}
            )
        return named, calls

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rules, name)


def _analyze(rec: Path, out: Path, table: str) -> _Watched:
    """``tablevar analyze rec --out out --table table``, in this process, its rules watched."""
    watched: list[_Watched] = []
    made = analyze_command.rules_for

    def rules_for(*args, **kwargs):
        watched.append(_Watched(made(*args, **kwargs)))
        return watched[-1]

    args = argparse.Namespace(
        video=rec,
        out=out,
        calibration=None,
        table=table,
        game=None,
        seconds=2.0,
        ball_colour=None,
        no_progress=True,
    )
    analyze_command.rules_for = rules_for
    try:
        analyze_command.run(args)
    finally:
        analyze_command.rules_for = made
    return watched[0]


def _draw(seed: int, pitch, size: tuple[int, int]):
    rng = np.random.default_rng([seed, 7])
    return clip_camera(rng, pitch, size), clip_look(rng)


def _complete(rec: Path) -> bool:
    """Whether ``rec`` holds a whole rendered recording (its writer closed it)."""
    try:
        return json.loads((rec / "meta.json").read_text()).get("complete") is True
    except (OSError, ValueError):
        return False


def _render_button(name: str, seed: int, rec: Path, size: tuple[int, int]):
    clip = build_button_scene(name, seed)
    if not _complete(rec):
        camera, look = _draw(seed, clip.compiled.pitch, size)
        simulate_button(clip, rec, camera=camera, look=look, fps=FPS, seed=seed)
    return clip


def _render_fistf(name: str, seed: int, rec: Path, size: tuple[int, int]) -> None:
    if _complete(rec):
        return
    compiled = build_scene(name, seed)
    camera, look = _draw(seed, compiled.pitch, size)
    simulate(compiled, rec, camera=camera, look=look, fps=FPS, seed=seed, progress=False)


def rolling_time_s(clip) -> float:
    """The true rolling time in play: each roll from its strike to where it comes to rest or
    wholly crosses a boundary line (BF Das Spiel: the clock runs only while the ball rolls in
    play), in continuous time: a clock fed the frames alone is off by up to a frame at each
    start and stop, more than 1 % of a few seconds' play."""
    c = clip.compiled
    pitch, r = c.pitch, c.pitch.profile.ball_radius_mm
    total = 0.0
    for strike in c.strikes:
        t = np.arange(strike.t_s, strike.t_rest_s, 0.0005)
        xy, _, _ = c.ball_state(t)
        out = np.zeros(len(t), bool)
        for name in BOUNDARY_LINES:
            out |= crossed_margin_mm(pitch.line(name), xy, r) > 0
        end = float(t[np.argmax(out)]) if out.any() else strike.t_rest_s
        total += end - strike.t_s
    return total


def _key(rec: dict) -> tuple:
    return rec["kind"], rec["team"], rec["restart"]


def too_close(rec: dict) -> bool:
    """Whether a ``calls.jsonl`` record leaves the call to the referee: its margin lies within
    its uncertainty (``rules.calls.is_too_close``; the record keeps both, not the verdict)."""
    m, u = rec.get("margin_mm"), rec.get("uncertainty_mm")
    return m is not None and u is not None and abs(m) <= u


def compare_calls(truth: list[dict], found: list[dict]) -> dict[str, Counter]:
    """Per call kind: ``right``, ``abstained``, ``missed`` (of the truth calls) and
    ``wrong`` (calls made that match none and are not too close to call; those that are too
    close count as ``abstained``)."""
    left = list(found)
    out: dict[str, Counter] = {}
    for t in truth:
        near = [f for f in left if abs(f["frame"] - t["frame"]) <= FRAME_TOLERANCE]
        match = next((f for f in near if _key(f) == _key(t)), None)
        tally = out.setdefault(t["kind"], Counter())
        if match is not None and not too_close(match):
            tally["right"] += 1
        elif match is not None or any(too_close(f) for f in near):
            tally["abstained"] += 1
        else:
            tally["missed"] += 1
        if match is not None:
            left.remove(match)
    for f in left:  # made, and no truth call to match: left to the referee, or wrong
        out.setdefault(f["kind"], Counter())["abstained" if too_close(f) else "wrong"] += 1
    return out


def compare_contacts(rec: Path, found: list[dict]) -> tuple[int, int, int]:
    """(truth contacts, matched, extra): a found contact matches a strike when it is filed
    within ``FRAME_TOLERANCE`` frames of the strike's onset and the button it names stands
    nearest the striker in the truth of its frame."""
    frames = [json.loads(x) for x in (rec / "truth.jsonl").read_text().splitlines()]
    strikes = {(c["figure"], c["onset_frame"]) for f in frames for c in f.get("contacts", ())}
    matched = 0
    for c in found:
        figs = frames[min(c["frame"], len(frames) - 1)]["figures"]
        xy = np.array([[f["x_mm"], f["y_mm"]] for f in figs])
        who = figs[int(np.argmin(np.linalg.norm(xy - np.array(c["xy"]), axis=1)))]["id"]
        hit = next(
            (s for s in strikes if s[0] == who and abs(s[1] - c["onset_frame"]) <= FRAME_TOLERANCE),
            None,
        )
        if hit is not None and c["kind"] == "flick":
            strikes.discard(hit)
            matched += 1
    n = matched + len(strikes)
    return n, matched, len(found) - matched


def _run_clip(
    k: int, root: Path, tag: str, size, render_only: bool, rendered_only: bool = False
) -> dict | None:
    """Render (unless kept) and analyse button clip ``k`` and, every ``FISTF_EVERY`` clips,
    a FISTF clip of the same size; the result is kept as ``root/tag/NAME-SEED.json``.
    ``rendered_only``: None unless every clip it needs is rendered already."""
    names = list(SCENES)
    name, seed = names[k % len(names)], FIRST_SEED + k
    result_file = root / tag / f"{name}-{seed}.json"
    if result_file.is_file() and not render_only:
        return json.loads(result_file.read_text())
    rec = root / "clips" / f"{name}-{seed}"
    if rendered_only:
        fistf = root / "fistf" / f"{FISTF_NAMES[(k // FISTF_EVERY) % len(FISTF_NAMES)]}-{seed}"
        if not _complete(rec) or (k % FISTF_EVERY == FISTF_EVERY - 1 and not _complete(fistf)):
            return None
    clip = _render_button(name, seed, rec, size)
    jobs = [("button", name, seed, rec)]
    if k % FISTF_EVERY == FISTF_EVERY - 1:
        fname = FISTF_NAMES[(k // FISTF_EVERY) % len(FISTF_NAMES)]
        frec = root / "fistf" / f"{fname}-{seed}"
        _render_fistf(fname, seed, frec, size)
        jobs.append(("fistf", fname, seed, frec))
    if render_only:
        return None
    result: dict[str, Any] = {"name": name, "seed": seed}
    for game, jname, jseed, jrec in jobs:
        out = root / tag / f"{jname}-{jseed}"
        table = BUTTON_TABLE if game == "button" else "fistf"
        try:
            watched = _analyze(jrec, out, table)
        except (ValueError, OSError) as exc:
            result[f"{game}_error"] = str(exc)
            continue
        summary = json.loads((out / "summary.json").read_text())
        if game == "fistf":
            result["fistf_ms"] = summary["ms_per_frame"]
            result["fistf_frames"] = summary["frames"]
            continue
        truth = [json.loads(x) for x in (jrec / "truth_calls.jsonl").read_text().splitlines()]
        found = [json.loads(x) for x in (out / "calls.jsonl").read_text().splitlines()]
        n, matched, extra = compare_contacts(jrec, watched.contacts)
        true_clock = rolling_time_s(clip)
        result.update(
            calls={kind: dict(t) for kind, t in compare_calls(truth, found).items()},
            n_truth_calls=len(truth),
            contacts=[n, matched, extra],
            clock_s=summary["clock_s"],
            true_clock_s=true_clock,
            clock_err_pct=100.0 * abs(summary["clock_s"] - true_clock) / max(true_clock, 1e-9),
            ms=summary["ms_per_frame"],
            frames=summary["frames"],
            keeper_err_mm=float(np.median(keeper_error_mm(jrec, out) or [np.nan])),
        )
    result_file.parent.mkdir(parents=True, exist_ok=True)
    result_file.write_text(json.dumps(result))
    return result


def _line(r: dict) -> str:
    if "button_error" in r:
        return f"{r['name']} {r['seed']}: analyze failed: {r['button_error']}"
    calls = {k: Counter(v) for k, v in r["calls"].items()}
    bad = {k: dict(t) for k, t in calls.items() if t["missed"] or t["wrong"] or t["abstained"]}
    n, matched, extra = r["contacts"]
    line = (
        f"{r['name']} {r['seed']}: calls {sum(t['right'] for t in calls.values())}/"
        f"{r['n_truth_calls']} right{' ' + str(bad) if bad else ''}; contacts {matched}/{n}, "
        f"extra {extra}; clock {r['clock_s']:.3f} s vs {r['true_clock_s']:.3f} s "
        f"({r['clock_err_pct']:.2f} %); {r['ms']:.1f} ms/frame"
    )
    if "fistf_ms" in r:
        line += f" (FISTF clip: {r['fistf_ms']:.1f} ms/frame)"
    return line


def _table(results: list[dict], size: str) -> None:
    ok = [r for r in results if "calls" in r]
    calls: dict[str, Counter] = {}
    for r in results:
        if "button_error" in r:
            calls.setdefault("(analyze failed)", Counter())["missed"] += 1
        for kind, t in r.get("calls", {}).items():
            calls.setdefault(kind, Counter()).update(t)
    seeds = [r["seed"] for r in results]
    fistf = [r["fistf_ms"] for r in results if "fistf_ms" in r]
    print(
        f"\n{len(results)} button clips (seeds {min(seeds)}-{max(seeds)}, {size}), "
        f"{len(fistf)} FISTF clips"
    )
    print(f"{'call kind':<18}{'right':>7}{'abstained':>11}{'missed':>8}{'conf. wrong':>13}")
    for kind in sorted(calls):
        t = calls[kind]
        print(f"{kind:<18}{t['right']:>7}{t['abstained']:>11}{t['missed']:>8}{t['wrong']:>13}")
    total = sum(calls.values(), Counter())
    print(
        f"{'all':<18}{total['right']:>7}{total['abstained']:>11}{total['missed']:>8}"
        f"{total['wrong']:>13}"
    )
    contacts = np.array([r["contacts"] for r in ok]).reshape(-1, 3).sum(axis=0)
    exact = sum(r["contacts"][1] == r["contacts"][0] and r["contacts"][2] == 0 for r in ok)
    print(
        f"contacts: {contacts[1]}/{contacts[0]} strikes filed right, {contacts[2]} extra; "
        f"exact in {exact}/{len(ok)} clips"
    )
    keeper = [r["keeper_err_mm"] for r in ok if "keeper_err_mm" in r]
    if keeper:
        print(
            f"keeper blocks: error median {np.nanmedian(keeper):.2f} mm (per clip), worst clip "
            f"{np.nanmax(keeper):.2f} mm"
        )
    err = [r["clock_err_pct"] for r in ok]
    if err:
        print(
            f"clock error: median {np.median(err):.2f} %, max {max(err):.2f} %, "
            f"<= 1 % in {sum(e <= 1.0 for e in err)}/{len(err)} clips"
        )
        ms, frames = [r["ms"] for r in ok], [r["frames"] for r in ok]
        line = f"speed: button {np.median(ms):.1f} ms/frame median ({np.median(frames):.0f} frames)"
        if fistf:
            ff = [r["fistf_frames"] for r in results if "fistf_ms" in r]
            line += (
                f", FISTF {np.median(fistf):.1f} ms/frame median ({np.median(ff):.0f} frames): "
                f"ratio {np.median(ms) / np.median(fistf):.2f}"
            )
            paired = [r["ms"] / r["fistf_ms"] for r in ok if "fistf_ms" in r]
            line += f"; paired (same load) median {np.median(paired):.2f}"
        print(line)


def keeper_error_mm(rec: Path, out: Path) -> list[float]:
    """The distances (mm) from each true keeper block to the tracked piece nearest it (within
    30 mm), over all frames of a clip."""
    errs = []
    truth = (json.loads(x) for x in (rec / "truth.jsonl").read_text().splitlines())
    tracks = (json.loads(x) for x in (out / "tracks.jsonl").read_text().splitlines())
    for t, k in zip(truth, tracks, strict=False):
        if not k["figures"]:
            continue
        xy = np.array([[f["x_mm"], f["y_mm"]] for f in k["figures"]])
        for f in t["figures"]:
            if f["goalkeeper"]:
                d = float(np.min(np.linalg.norm(xy - np.array([f["x_mm"], f["y_mm"]]), axis=1)))
                if d < 30.0:
                    errs.append(d)
    return errs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clips", type=int, default=40)
    parser.add_argument("--first", type=int, default=0, help="start at this clip number")
    parser.add_argument("--size", default="1280x960")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--tag", default="run", help="name of this analysis under --out")
    parser.add_argument("--render-only", action="store_true")
    parser.add_argument(
        "--rendered-only", action="store_true", help="analyse only clips rendered already"
    )
    parser.add_argument(
        "--summary-only", action="store_true", help="print the table of the kept results"
    )
    args = parser.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    root = args.out or Path(tempfile.mkdtemp(prefix="button-accuracy-"))
    results = []
    for k in range(args.first, args.first + args.clips):
        if args.summary_only:
            name = list(SCENES)[k % len(SCENES)]
            kept = root / args.tag / f"{name}-{FIRST_SEED + k}.json"
            if kept.is_file():
                r = json.loads(kept.read_text())
                rec = root / "clips" / f"{r['name']}-{r['seed']}"
                out = root / args.tag / f"{r['name']}-{r['seed']}"
                if "calls" in r and "keeper_err_mm" not in r:
                    r["keeper_err_mm"] = float(np.median(keeper_error_mm(rec, out) or [np.nan]))
                if "calls" in r:  # judged again: the comparison may have changed since
                    truth = [json.loads(x) for x in (rec / "truth_calls.jsonl").open()]
                    found = [json.loads(x) for x in (out / "calls.jsonl").open()]
                    r["calls"] = {k: dict(t) for k, t in compare_calls(truth, found).items()}
                results.append(r)
            continue
        r = _run_clip(k, root, args.tag, (w, h), args.render_only, args.rendered_only)
        if r is None:
            if args.render_only:
                print(f"rendered clip {k}", flush=True)
            continue
        results.append(r)
        print(_line(r), flush=True)
    if results:
        _table(results, args.size)
    return 0


if __name__ == "__main__":
    sys.exit(main())
