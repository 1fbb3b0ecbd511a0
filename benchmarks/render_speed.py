"""Speed of the simulator's renderer: milliseconds per frame, one core.

A mid-match position: 22 figures at rest, a rolling ball and one moving figure, filmed at
1280x960 and 2304x1296. Prints the per-frame time with the static layers cached (the normal
case while a clip renders), the time to build those layers once (a new renderer: cloth,
lines, goals and the resting figures), and for reference the time to encode a frame to MP4.

Run: .venv/bin/python benchmarks/render_speed.py [--frames N]
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, as the speed target says
os.environ.setdefault("OMP_NUM_THREADS", "1")

import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from calibration.camera import CameraModel
from calibration.tables import load_pitch
from hardware.video_writer import VideoWriter
from simulator.look import Look
from simulator.render import Renderer
from simulator.scene import AWAY, HOME, Figures, SceneFrame

SIZES = ((1280, 960), (2304, 1296))


def match_position(pitch, rng: np.random.Generator) -> Figures:
    """Two teams of 11 spread over the pitch, keepers in their goal areas."""
    half_l, half_w = 0.5 * pitch.profile.length_mm, 0.5 * pitch.profile.width_mm
    xy = np.column_stack(
        [rng.uniform(-half_l + 60, half_l - 60, 22), rng.uniform(-half_w + 30, half_w - 30, 22)]
    )
    team = np.array([HOME] * 11 + [AWAY] * 11, np.int8)
    keeper = np.zeros(22, bool)
    keeper[[0, 11]] = True
    xy[0], xy[11] = (-half_l + 30, 10.0), (half_l - 30, -15.0)
    return Figures(np.arange(22), team, keeper, xy, np.zeros((22, 2)))


def formation(pitch, rng: np.random.Generator) -> SceneFrame:
    """A mid-match moment: two teams in shape, home attacking down the right, ball at a foot."""
    half_l, half_w = 0.5 * pitch.profile.length_mm, 0.5 * pitch.profile.width_mm
    # Fractions of the half length / half width; home attacks +x.
    home = [
        (-0.95, 0.0),
        (-0.62, -0.55),
        (-0.68, -0.18),
        (-0.66, 0.2),
        (-0.55, 0.6),
        (-0.15, -0.62),
        (-0.22, -0.12),
        (0.05, 0.25),
        (0.12, 0.72),
        (0.48, -0.3),
        (0.55, 0.22),
    ]
    away = [
        (0.95, 0.05),
        (0.7, -0.5),
        (0.74, -0.1),
        (0.7, 0.3),
        (0.62, 0.66),
        (0.3, -0.55),
        (0.36, 0.02),
        (0.22, 0.45),
        (0.02, -0.35),
        (-0.25, 0.05),
        (-0.1, 0.5),
    ]
    xy = np.array(home + away) * (half_l - 20, half_w - 40)
    xy[[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21]] += rng.normal(
        0.0, 12.0, (20, 2)
    )
    team = np.array([HOME] * 11 + [AWAY] * 11, np.int8)
    keeper = np.zeros(22, bool)
    keeper[[0, 11]] = True
    figures = Figures(np.arange(22), team, keeper, xy, np.zeros((22, 2)))
    ball = xy[9] + (24.0, 9.0)  # just in front of the home striker
    return SceneFrame(12.0, ball, np.zeros(2), figures)


def frames(figures: Figures, n: int, fps: float = 60.0):
    """A ball rolling across the table and one figure sliding, frame by frame."""
    v_ball, v_fig = np.array([900.0, 350.0]), np.array([-400.0, 150.0])
    for i in range(n):
        t = i / fps
        xy = figures.xy_mm.copy()
        v = figures.v_mm_s.copy()
        xy[5] += v_fig * (t % 1.0)
        v[5] = v_fig
        moved = Figures(figures.id, figures.team, figures.goalkeeper, xy, v)
        ball = np.array([-400.0, -200.0]) + v_ball * (t % 1.0)
        yield SceneFrame(t, ball, v_ball, moved)


def bench(size: tuple[int, int], n: int) -> dict[str, float]:
    pitch = load_pitch("fistf")
    camera = CameraModel.overhead(
        size, 1300.0, 1450.0 * size[0] / size[1] / (4 / 3), dist=(-0.08, 0.0, 0.0, 0.0, 0.0)
    )
    figures = match_position(pitch, np.random.default_rng(0))
    scenes = list(frames(figures, n))
    t0 = time.process_time()
    renderer = Renderer(camera, pitch, Look(), seed=0)
    renderer.render(scenes[0])  # draws the resting figures into the cache
    build_s = time.process_time() - t0
    t0 = time.process_time()
    images = [renderer.render(s) for s in scenes]
    frame_s = (time.process_time() - t0) / n
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "clip.mp4")
        t0 = time.process_time()
        writer = VideoWriter(path, 60.0, size)  # what recordings use
        for img in images:
            writer.write(img)
        writer.close()
        encode_s = (time.process_time() - t0) / n
    return {"build": build_s, "frame": frame_s, "encode": encode_s}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=120, help="frames per size (default 120)")
    parser.add_argument("--save", metavar="PNG", help="also write a mid-match frame, 1280x960")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    if args.save:
        pitch = load_pitch("fistf")
        camera = CameraModel.overhead(
            SIZES[0], 1300.0, 1440.0, dist=(-0.06, 0.0, 0.0, 0.0, 0.0), tilt_x_deg=2.0
        )
        image = Renderer(camera, pitch, Look(), seed=3).render(
            formation(pitch, np.random.default_rng(4))
        )
        cv2.imwrite(args.save, image)
    print(f"renderer speed, one core, {args.frames} frames per size")
    print(
        "size      | per frame, cached | static layers once + 1 frame | MP4 encode/frame"
        " | 60 s clip at 60 fps"
    )
    for size in SIZES:
        r = bench(size, args.frames)
        clip_s = 3600 * (r["frame"] + r["encode"]) + r["build"]
        print(
            f"{size[0]}x{size[1]} | {1e3 * r['frame']:14.1f} ms | {1e3 * r['build']:25.0f} ms"
            f" | {1e3 * r['encode']:13.1f} ms | {clip_s:15.0f} s"
        )


if __name__ == "__main__":
    main()
