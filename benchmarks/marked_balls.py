"""A marked ball at rest: how far off it is placed, and whether its stated uncertainty covers it.

A two-tone ball, a band or spots (``simulator.look.BALL_PATTERNS``) shows its dark mark
anywhere on its face, at the limb too, and a line's white may join the ball's. Each pattern is
rendered at rest (exact truth) at places along a touchline (its centre inside, on and beyond
the line) and on open cloth, the mark turned as the ball rolled there from the centre spot;
the detector, learnt on the line-up with the ball on the spot, is given a hint a pixel off
(a tracker's prediction of a ball at rest) and places it.

Printed per pattern, beside the plain ball's: balls found (a placing within 5 mm), the error
median, p95 and worst, mm, and the coverage: the share of placings within twice their stated
standard uncertainty (the bound a call's margin must exceed; 95 % is the bar), on the line
and in the open.

Usage: ``.venv/bin/python benchmarks/marked_balls.py [--size 1280x960] [--focal-px 1000]
[--height-mm 1350] [--mark 25,25,25]``
"""

from __future__ import annotations

import argparse
import dataclasses

import numpy as np

from calibration.camera import CameraModel
from calibration.tables import load_pitch
from simulator.look import BALL_PATTERNS, Look
from simulator.render import Renderer
from simulator.scene import Figures, SceneFrame
from vision.detector import Detector
from vision.model import learn_model

PITCH = load_pitch("fistf")
R = PITCH.profile.ball_radius_mm
LINEUP = np.array([[-300, -150], [-300, 150], [-450, 0], [300, -150], [300, 150], [450, 0]], float)
FOUND_MM = 5.0
COVERAGE = 2.0  # the rules' expanded uncertainty: twice the standard one


def _frame(ball_xy) -> SceneFrame:
    n = len(LINEUP)
    team = np.array([0, 0, 0, 1, 1, 1], np.int8)
    figs = Figures(np.arange(n), team, np.zeros(n, bool), LINEUP, np.zeros((n, 2)))
    return SceneFrame(0.0, np.asarray(ball_xy, float), np.zeros(2), figs, ())


def _places() -> dict[str, np.ndarray]:
    """Ball centres, mm: across the touchline (y = 375 at its outer edge, 3 mm wide) and in
    the open, every 37 mm along x."""
    xs = np.arange(-300.0, 301.0, 37.0)
    across = (361.5, 363.0, 365.5, 373.5, 379.5)  # touching it from inside ... beyond it
    line = np.array([(x, y) for x in xs for y in across])
    return {"line": line, "open": np.stack([xs, np.full(len(xs), 120.0)], 1)}


def measure(camera: CameraModel, pattern: str, mark_bgr) -> dict[str, tuple]:
    look = dataclasses.replace(
        Look(), ball_bgr=(240, 240, 240), ball_pattern=pattern, ball_mark_bgr=mark_bgr
    )
    renderer = Renderer(camera, PITCH, look, seed=5, exposure_s=1 / 120)
    model = learn_model([renderer.render(_frame((0.0, 0.0)))], camera, PITCH)
    out = {}
    for where, places in _places().items():
        errors, covered, found = [], [], 0
        for xy in places:
            hint = camera.project(np.array([[xy[0], xy[1], R]]))[0] + 1.0
            det = Detector(model).detect(
                renderer.render(_frame(xy)),
                ball_hint_px=hint,
                ball_travel_px=8.0,
                search_bases=False,
            )
            if det.n_balls == 0:
                continue
            err = np.hypot(*(det.ball_xy_mm - xy).T)
            i = int(np.argmin(err))
            if err[i] > FOUND_MM:
                continue
            found += 1
            errors.append(err[i])
            covered.append(err[i] <= COVERAGE * det.ball_sigma_mm[i])
        out[where] = (found, len(places), np.array(errors), np.array(covered))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", default="1280x960")
    parser.add_argument("--focal-px", type=float, default=1000.0)
    parser.add_argument("--height-mm", type=float, default=1350.0)
    parser.add_argument("--mark", default="25,25,25", help="the marks' colour, B,G,R")
    args = parser.parse_args()
    w, h = (int(v) for v in args.size.split("x"))
    camera = CameraModel.overhead((w, h), args.focal_px, args.height_mm)
    mark = tuple(int(v) for v in args.mark.split(","))
    print(
        f"a white ball marked {mark} (BGR) at rest, {w}x{h}, focal {args.focal_px:.0f} px, "
        f"{args.height_mm:.0f} mm up ({args.focal_px / args.height_mm:.2f} px a mm)"
    )
    heads = ("found", "err med", "p95", "worst", "covered")
    print(f"{'pattern':<10} {'where':<5} " + " ".join(f"{t:>8}" for t in heads))
    for pattern in BALL_PATTERNS:
        for where, (found, n, err, cov) in measure(camera, pattern, mark).items():
            if found == 0:
                print(f"{pattern:<10} {where:<5} {f'0/{n}':>8}")
                continue
            med, p95, worst = np.median(err), np.percentile(err, 95), err.max()
            print(
                f"{pattern:<10} {where:<5} {f'{found}/{n}':>8} {med:8.2f} {p95:8.2f} "
                f"{worst:8.2f} {100 * cov.mean():7.1f}%"
            )


if __name__ == "__main__":
    main()
