"""The Pi camera's two main-stream formats, RGB888 and YUV420: what each costs, and whether the
ball is placed as exactly from each.

Renders a clip (kick-off and passes, a camera 1.3 m above the cloth) at the Camera Module 3's
full view, 2304x1296, then for every frame:

- cost, on one core: what ``PiCameraSource`` does with a frame once the ISP has written it:
  RGB888, copy the (h, w, 3) buffer out; YUV420, convert the (h * 3/2, w) I420 buffer to BGR
  (``to_bgr``, into a buffer used again, as the source's frame pool hands it out once the
  frame before is let go). CPU ms per frame, median over the frames.
- exactness: the frame turned into I420 (colour at half resolution, as the ISP writes it) and
  back, and both versions through the pipeline (detection and tracking; YUV420 as lossy frames,
  which the Pi source says they are): the ball's ground-point error against the truth at rest
  (median, p95) and over all frames, and the difference between the two runs' positions.

Usage: ``.venv/bin/python benchmarks/pi_formats.py [--frames 150]``
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
from hardware.frame_pool import FramePool  # noqa: E402
from hardware.picamera_source import to_bgr  # noqa: E402
from simulator.look import Look  # noqa: E402
from simulator.render import Renderer  # noqa: E402
from simulator.scene_library import build_scene  # noqa: E402
from tablevar.pipeline import Pipeline, PipelineConfig  # noqa: E402
from vision.model import learn_model  # noqa: E402

SIZE = (2304, 1296)
FPS = 56.0


def cost_ms(images: list[np.ndarray], fmt: str) -> float:
    """Median CPU ms per frame of getting a BGR frame out of the camera's buffer."""
    w, h = SIZE
    buffers = [
        img if fmt == "RGB888" else cv2.cvtColor(img, cv2.COLOR_BGR2YUV_I420) for img in images
    ]
    times, pool = [], FramePool()
    for buf in buffers:
        t = time.process_time()
        to_bgr(buf, fmt, (w, h), pool)
        times.append(time.process_time() - t)
    return 1e3 * float(np.median(times))


def ball_track(model, images: list[np.ndarray], lossy: bool) -> tuple[np.ndarray, float]:
    """(n, 2) ball ground points (NaN: none) and mean CPU ms per frame of the pipeline."""
    pipe = Pipeline(model, fps=FPS, config=PipelineConfig.for_frames(lossy, readout_s=0.0))
    out = []
    t = time.process_time()
    for i, img in enumerate(images):
        out += pipe.process(img, i / FPS)
    out += pipe.finish()
    ms = 1e3 * (time.process_time() - t) / len(images)
    return np.array([(r.ball.x_mm, r.ball.y_mm) if r.ball else (np.nan,) * 2 for r in out]), ms


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=150)
    args = parser.parse_args()
    cv2.setNumThreads(1)
    pitch = load_pitch("fistf")
    scene = build_scene("kickoff_pass", seed=1)
    camera = CameraModel.overhead(SIZE, 1300.0, max(1450.0, 1000.0 * SIZE[0] / SIZE[1]))
    renderer = Renderer(camera, pitch, Look(), seed=1)
    truth = [scene.frame(i / FPS) for i in range(args.frames)]
    rgb = [renderer.render(f) for f in truth]
    pool = FramePool()
    yuv = [to_bgr(cv2.cvtColor(img, cv2.COLOR_BGR2YUV_I420), "YUV420", SIZE, pool) for img in rgb]
    xy_true = np.array([f.ball_xy_mm if f.ball_xy_mm is not None else (np.nan,) * 2 for f in truth])
    rest = np.array([f.ball_xy_mm is not None and not f.ball_moving for f in truth])
    print(f"{args.frames} frames at {SIZE[0]}x{SIZE[1]}, {int(rest.sum())} with the ball at rest")
    print(
        f"{'format':8} {'buffer->BGR ms':>15} {'pipeline ms':>12} {'rest med/p95 mm':>16} "
        f"{'all med mm':>11} {'found':>6}"
    )
    tracks = {}
    for fmt, images in (("RGB888", rgb), ("YUV420", yuv)):
        model = learn_model([images[0]], camera, pitch)
        xy, ms = ball_track(model, images, lossy=fmt == "YUV420")
        tracks[fmt] = xy
        err = np.hypot(*(xy[: len(truth)] - xy_true).T)
        found = np.isfinite(err)
        rest_err = err[rest & found]
        print(
            f"{fmt:8} {cost_ms(rgb, fmt):15.2f} {ms:12.2f} "
            f"{np.median(rest_err):7.3f} / {np.percentile(rest_err, 95):6.3f} "
            f"{np.median(err[found]):11.3f} {found[np.isfinite(xy_true[:, 0])].mean():6.1%}"
        )
    diff = np.hypot(*(tracks["RGB888"] - tracks["YUV420"]).T)
    diff = diff[np.isfinite(diff)]
    print(
        f"RGB888 vs YUV420 ball positions: median {np.median(diff):.3f} mm, "
        f"p95 {np.percentile(diff, 95):.3f} mm, worst {diff.max():.3f} mm"
    )


if __name__ == "__main__":
    main()
