"""Speed of detection + tracking per frame, on one core, against two baselines.

Renders a clip (kick-off and passes, default look, straight camera) at 1280x960 and 2304x1296,
then times on the same frames:

- tablevar: ``Pipeline.process`` (detection with windows and the coarse pass, tracking, the
  held-back corrections; no rules), ms per frame;
- HoughCircles: as OpenCV's tutorial does it, the grey frame median-blurred (5 px; this also
  makes the Hough transform cheaper, fewer edge points) and ``cv2.HoughCircles`` with the
  ball's radius range; of the circles, the one whose centre pixel is nearest the ball's colour
  (the learnt one, as a hobbyist would hand-pick it) is the ball;
- hobby: a hand-set HSV range for a white ball over the whole frame, ``findContours``,
  ``minEnclosingCircle`` on the largest round blob, ground point without parallax correction.

All three run on one core (``cv2.setNumThreads(1)``, one BLAS thread) over the same frames.
Each is run ``--repeats`` times; a frame's time is its median over the repeats (a shared
machine's other users slow some runs down). Printed per method: CPU ms per frame as the mean
over frames (what a live camera must keep up with; the ratios use it) and the median over
frames (a typical frame: tablevar's cost is skewed, a fit or a whole-cloth pass on a few
frames), CPU p90, wall mean, and the ball's ground-point error (median over frames where the
ball rests, and over all frames). Times are CPU time of this process (``time.process_time``:
on a shared machine, wall time also counts the other users' work).

Usage: ``.venv/bin/python benchmarks/bench_pipeline.py [--frames 240] [--repeats 3]``
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import time  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from calibration.camera import CameraModel  # noqa: E402
from calibration.tables import load_pitch  # noqa: E402
from simulator.look import Look  # noqa: E402
from simulator.render import Renderer  # noqa: E402
from simulator.scene_library import build_scene  # noqa: E402
from tablevar.pipeline import Pipeline, PipelineConfig  # noqa: E402
from vision.model import learn_model  # noqa: E402

SIZES = ((1280, 960), (2304, 1296))
FPS = 60.0
GLOBAL_SHUTTER = PipelineConfig(readout_s=0.0)  # the renderer exposes every row at once


def render(size, n):
    pitch = load_pitch("fistf")
    scene = build_scene("kickoff_pass", seed=1)
    w, h = size
    camera = CameraModel.overhead(size, 1300.0, max(1450.0, 1000.0 * w / h))
    renderer = Renderer(camera, pitch, Look(), seed=1)
    frames = [scene.frame(i / FPS) for i in range(n)]
    return camera, pitch, [renderer.render(f) for f in frames], frames


def _clock() -> np.ndarray:
    """(CPU s, wall s) now."""
    return np.array([time.process_time(), time.perf_counter()])


def truth_ball(frames):
    xy = np.array([f.ball_xy_mm if f.ball_xy_mm is not None else (np.nan, np.nan) for f in frames])
    rest = np.array([f.ball_xy_mm is not None and not f.ball_moving for f in frames])
    return xy, rest


def run_tablevar(model, camera, pitch, images):
    pipe = Pipeline(model, fps=FPS, config=GLOBAL_SHUTTER)
    out, times = [], []
    for i, img in enumerate(images):
        t = _clock()
        out += pipe.process(img, i / FPS)
        times.append(_clock() - t)
    out += pipe.finish()
    xy = np.array([(r.ball.x_mm, r.ball.y_mm) if r.ball else (np.nan, np.nan) for r in out])
    return np.array(times[1:]), xy  # the first frame's searches are start-up


def run_hough(model, camera, pitch, images):
    r_px = pitch.profile.ball_radius_mm / float(camera.mm_per_px([[0.0, 0.0]])[0])
    ball_bgr = model.ball_bgr.astype(np.float64)
    h, w = images[0].shape[:2]
    times, xy = [], []
    for img in images:
        t = _clock()
        grey = cv2.medianBlur(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), ksize=5)
        circles = cv2.HoughCircles(
            grey,
            method=cv2.HOUGH_GRADIENT,
            dp=1.0,
            minDist=2 * r_px,
            param1=100,
            param2=20,
            minRadius=int(0.8 * r_px),
            maxRadius=int(1.25 * r_px) + 1,
        )
        if circles is not None:
            c = circles[0, :, :2]
            ix = np.clip(np.rint(c).astype(int), 0, (w - 1, h - 1))
            c = c[np.argmin(np.linalg.norm(img[ix[:, 1], ix[:, 0]] - ball_bgr, axis=1))]
        times.append(_clock() - t)
        if circles is None:
            xy.append((np.nan, np.nan))
            continue
        xy.append(camera.back_project(c[None], pitch.profile.ball_radius_mm)[0])
    return np.array(times), np.array(xy)


def run_hobby(model, camera, pitch, images):
    r_px = pitch.profile.ball_radius_mm / float(camera.mm_per_px([[0.0, 0.0]])[0])
    times, xy = [], []
    for img in images:
        t = _clock()
        hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
        mask = cv2.inRange(hsv, lowerb=(0, 0, 200), upperb=(180, 40, 255))
        contours, _ = cv2.findContours(mask, mode=cv2.RETR_EXTERNAL, method=cv2.CHAIN_APPROX_SIMPLE)
        best, best_area = None, 0.0
        for cnt in contours:
            (x, y), r = cv2.minEnclosingCircle(cnt)
            area = cv2.contourArea(cnt)
            if 0.7 * r_px < r < 1.4 * r_px and area > 0.6 * np.pi * r * r and area > best_area:
                best, best_area = (x, y), area
        times.append(_clock() - t)
        if best is None:
            xy.append((np.nan, np.nan))
        else:  # the usual shortcut: the blob centre taken as a point on the cloth
            xy.append(camera.back_project(np.array([best]), 0.0)[0])
    return np.array(times), np.array(xy)


def errors(xy, truth, rest):
    e = np.hypot(*(xy - truth).T)
    found = np.isfinite(e)
    rate = found[np.isfinite(truth[:, 0])].mean()
    if not found.any():  # the baseline never saw the ball
        return np.nan, np.nan, rate
    return np.median(e[rest & found]), np.median(e[found]), rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=240)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    for size in SIZES:
        camera, pitch, images, frames = render(size, args.frames)
        truth, rest = truth_ball(frames)
        print(f"\n{size[0]}x{size[1]}, {len(images)} frames ({rest.sum()} with the ball at rest)")
        model = learn_model([images[0]], camera, pitch)
        methods = (
            ("tablevar", run_tablevar),
            ("HoughCircles", run_hough),
            ("hobby HSV", run_hobby),
        )
        runs = {name: [] for name, _ in methods}
        for _ in range(args.repeats):  # interleaved: a busy spell slows all methods alike
            for name, fn in methods:
                runs[name].append(fn(model, camera, pitch, images))
        mean, median = {}, {}
        for name, _ in methods:
            t = np.median([r[0] for r in runs[name]], axis=0) * 1000  # (frames, 2) ms
            xy = runs[name][0][1]
            mean[name], wall = np.mean(t, axis=0)
            median[name] = np.median(t[:, 0])
            rest_e, all_e, rate = errors(xy[: len(truth)], truth, rest)
            print(
                f"  {name:13s} {mean[name]:6.2f} ms/frame CPU mean, {median[name]:6.2f} median, "
                f"p90 {np.percentile(t[:, 0], 90):5.2f} (wall mean {wall:6.2f})  "
                f"ball error at rest median {rest_e:6.2f} mm, all frames {all_e:6.2f} mm, "
                f"found {100 * rate:5.1f} %"
            )
        for name in ("HoughCircles", "hobby HSV"):
            print(
                f"  tablevar is {mean[name] / mean['tablevar']:.1f}x faster than {name} "
                f"(mean per frame; {median[name] / median['tablevar']:.1f}x on medians)"
            )


if __name__ == "__main__":
    main()
