"""The whole live loop over a simulated match, on one core, against the camera's frame rate.

What ``tablevar live`` runs, end to end: a camera hands frames over at its own rate (here the
frames of the demo match, rendered beforehand into buffers, so rendering is not counted), the
frame is copied out of the camera's buffer and converted (``hardware.picamera_source.to_bgr``,
``--format``) into a buffer of the camera's frame pool (``hardware.frame_pool``: one pool for
the whole match, as one camera serves it), then the live runner (``tablevar.live.LiveRunner``)
does detection, tracking, rules, the evidence ring, evidence pictures, replays and the page
update, with the app served by the production server and one page connected: a separate
process reading the event stream, as a phone would (it stands in for the phone, so it is kept
off the loop's core).

Everything of the loop runs on one core (``os.sched_setaffinity``; ``cv2.setNumThreads(1)``,
one BLAS/OpenMP thread). Printed per frame size:

- ms per frame: the capture thread's copy and conversion plus the worker's whole step, as the
  CPU time of those threads (``time.thread_time``: another user of this shared machine does not
  count) and as wall time; mean, p99 and worst, over every frame after each run's first (where
  the table is learnt); the CPU figures also apart for the frames after which the ball's
  identity was settled and for those while it was open (each run's start until the ball has
  rolled, or after the ball was lost: every ball-coloured candidate on the cloth is fitted
  then). Also the whole process's CPU time per frame refereed (server threads, replay writer,
  everything on the core);
- the reference: ``cv2.cvtColor`` to grey and a 5x5 ``GaussianBlur`` of the same frame, timed
  on every ``--ref-every``-th frame in the same run, in the worker, after the frame's work: the
  loop's time is also given as a multiple of it (the machine is shared and noisy; the ratio is
  what compares from run to run);
- frames dropped (the hand-over between camera and worker holds a few frames and drops the
  oldest: ``hardware.frame_queue``) and the latency of each call from its decisive frame's
  capture to its arrival on the page; the pipeline holds frames back
  ``PipelineConfig.revise_s`` to date the ball's stops, and a goal is called once the ball is
  seen in the net, so much of that is by design. Also from the capture of the frame whose step
  released the call: what the loop itself adds.

On a busy shared machine a real-time feed drops frames the loop would keep up with alone, and
dropped frames change the calls; ``--every-frame`` lets the camera wait for the worker (never
earlier than its rate), so that every frame's cost and every call compare between two runs.
Each run also starts the live runner once per segment: until the ball has rolled every
ball-coloured candidate on the cloth is fitted, so short segments weigh the start-up more
than a whole match does.

The demo match lasts 76 s; a 2304x1296 frame takes 9 MB, so the whole match does not fit in
memory here: ``--segments`` picks stretches of it (scene seconds ``FROM:TO``), each played as a
live run of its own (calibrated once per size from the line-up, as ``tablevar live
--calibration`` starts). The default three hold the kick-off and its pass, a pass that goes out
over the touchline and the ball fetched for the throw-in, and a shot that scores. ``--cache
DIR`` keeps the rendered frames on disk for the next run.

Usage: ``.venv/bin/python benchmarks/live_loop.py [--sizes 2304x1296,1456x1088] [--fps 56]
[--segments 1.5:4,8.5:12,40.5:43.5] [--format RGB888|YUV420] [--cache DIR] [--every-frame]
[--profile FILE]``
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import cProfile  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import pstats  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from calibration.calibrate import calibrate  # noqa: E402
from calibration.calibration_file import Calibration, CalibrationError  # noqa: E402
from calibration.tables import load_pitch  # noqa: E402
from hardware.frame_pool import FramePool  # noqa: E402
from hardware.frame_source import Frame, SourceBase  # noqa: E402
from hardware.picamera_source import to_bgr  # noqa: E402
from simulator.render import Renderer  # noqa: E402
from simulator.scene_camera import clip_camera, clip_look  # noqa: E402
from simulator.scene_library import build_scene  # noqa: E402
from tablevar.live import LiveOptions, LiveRunner  # noqa: E402
from web.app import create_app, hub_of  # noqa: E402
from web.serving import make_server, run_in_thread, stop, url_of  # noqa: E402

SCENE, SEED, TABLE = "demo", 1, "fistf"
BUDGET_MS = {(2304, 1296): 4.0}

# The page: a separate process reading the event stream, printing each event's arrival.
CLIENT = r"""
import json, sys, time, urllib.request
with urllib.request.urlopen(sys.argv[1] + "events", timeout=60) as r:
    kind = None
    for raw in r:
        line = raw.decode().rstrip("\n")
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: ") and kind in ("call", "state"):
            data = json.loads(line[6:])
            if kind == "state":
                print("ready", flush=True)
            else:
                print(json.dumps([time.monotonic(), data.get("kind"), data.get("t_s")]), flush=True)
"""


class BufferCamera(SourceBase):
    """A camera whose frames are pre-rendered buffers, handed over at ``fps``.

    Frame 0 comes at once (the runner learns the table from it); the others follow at the
    camera's rate once ``ready()`` says the runner has started, each copied out of its buffer
    and converted as the Pi source does (``to_bgr`` into ``pool``). A camera never waits for
    its consumer.
    """

    lossy = False
    readout_s = 0.0  # rendered with every row exposed at once
    paced = True
    replayable = False
    end_message = "the benchmark's frames have ended"

    def __init__(self, buffers, fmt: str, size_px, fps: float, pool, ready, done=None) -> None:
        self._buffers, self._fmt, self._size, self._fps = buffers, fmt, size_px, fps
        self._pool = pool  # the camera's frame pool, kept from segment to segment
        self.lossy = fmt == "YUV420"  # chroma at half resolution
        self._ready = ready
        self._done = done  # frames the worker has finished: wait for them (None: never wait)
        self.captured_at: dict[int, float] = {}  # frame index -> monotonic time it was due
        self.capture_cpu_s: dict[int, float] = {}  # ... and the CPU its copy + conversion took

    @property
    def size_px(self):
        return self._size

    @property
    def fps(self) -> float:
        return self._fps

    def reserve_frames(self, count: int) -> None:
        self._pool.reserve(count)  # as the Pi's camera source does

    def frames(self) -> Iterator[Frame]:
        t0 = None
        for i, buffer in enumerate(self._buffers):
            if i == 1:
                while not self._ready():
                    time.sleep(0.01)
                t0 = time.monotonic() - 1.0 / self._fps
            if t0 is not None:
                while self._done is not None and self._done() < i:
                    time.sleep(0.0005)
                due = t0 + i / self._fps
                time.sleep(max(0.0, due - time.monotonic()))
                self.captured_at[i] = max(due, time.monotonic())
            cpu = time.thread_time()
            image = to_bgr(buffer, self._fmt, self._size, self._pool)  # copied, as the Pi's
            self.capture_cpu_s[i] = time.thread_time() - cpu
            yield Frame(i, round(i * 1e9 / self._fps), image)

    def close(self) -> None:
        """Nothing to release."""


def render_segment(size, fps, start_s, end_s, fmt, cache: Path | None):
    """The frames of scene seconds ``start_s``-``end_s`` as camera buffers (list of arrays)."""
    name = f"{SCENE}-{size[0]}x{size[1]}-{fps:g}-{start_s:g}-{end_s:g}-{fmt}.npy"
    if cache is not None and (cache / name).exists():
        # Read into memory, where a camera's buffers are: pages of a mapped file fault in
        # when the copy first touches them, several ms a frame that no camera costs.
        return list(np.load(cache / name))
    pitch = load_pitch(TABLE)
    scene = build_scene(SCENE, SEED, TABLE)
    rng = np.random.default_rng([SEED, 7])
    camera = clip_camera(rng, pitch, size, straight=True)
    renderer = Renderer(camera, pitch, clip_look(rng, default=True), seed=SEED)
    n = round((end_s - start_s) * fps)
    w, h = size
    shape = (n, h * 3 // 2, w) if fmt == "YUV420" else (n, h, w, 3)
    frames = np.empty(shape, np.uint8)
    for i in range(n):
        image = renderer.render(scene.frame(start_s + i / fps))
        frames[i] = cv2.cvtColor(image, cv2.COLOR_BGR2YUV_I420) if fmt == "YUV420" else image
        if (i + 1) % 56 == 0 or i + 1 == n:
            print(f"  rendering {start_s:g}-{end_s:g} s: {i + 1}/{n}", file=sys.stderr)
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        np.save(cache / name, frames)
    return list(frames)


def calibration_for(size) -> Calibration:
    """Calibrated as the live runner does, from the line-up before the kick-off; where that
    fails, the simulator's own camera with the nominal line edges (said so: the figures then
    time the loop, not the calibration)."""
    pitch = load_pitch(TABLE)
    rng = np.random.default_rng([SEED, 7])
    camera = clip_camera(rng, pitch, size, straight=True)
    renderer = Renderer(camera, pitch, clip_look(rng, default=True), seed=SEED)
    try:
        return calibrate(renderer.render(build_scene(SCENE, SEED, TABLE).frame(0.0)), pitch)
    except CalibrationError as exc:
        print(f"  calibration failed ({str(exc)[:60]}...): using the simulator's camera")
    used = ("goal_line_left", "goal_line_right", "touchline_top", "touchline_bottom")
    return Calibration(
        table=TABLE,
        image_size_px=camera.size_px,
        camera=camera,
        home="left",
        line_edges_mm={},
        rms_px=0.0,
        rms_mm=0.0,
        per_line_px=dict.fromkeys(used, 0.0),
        per_line_mm=dict.fromkeys(used, 0.0),
        lines_used=used,
    )


def run_segment(buffers, fmt, size, fps, pool, cal, ref_every, every_frame, profile=None):
    """One live run over ``buffers``: per-frame records, drops, call latencies."""
    out = Path(tempfile.mkdtemp(prefix="tablevar-live-loop-"))
    app = create_app({"OUTPUT_DIR": out, "PIN": "1234", "TABLE": TABLE})
    server = make_server(app, "127.0.0.1", 0)
    run_in_thread(server)
    url = url_of(server)
    others = sorted(set(range(os.cpu_count() or 1)) - os.sched_getaffinity(0))
    client = subprocess.Popen(
        [sys.executable, "-c", CLIENT, url],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=(lambda: os.sched_setaffinity(0, others)) if others else None,
    )
    assert client.stdout is not None
    if client.stdout.readline().strip() != "ready":
        raise SystemExit("the page did not connect")
    hub_of(app).control("start")  # the referee starts the match
    runner: LiveRunner | None = None
    ready = lambda: runner is not None and runner._driver is not None  # noqa: E731
    done = (lambda: len(records)) if every_frame else None
    camera = BufferCamera(buffers, fmt, size, fps, pool, ready, done)
    runner = LiveRunner(
        lambda: camera, hub_of(app), out, calibration=cal, options=LiveOptions(table=TABLE)
    )
    records, refs, ends, process = [], [], [], []
    receive = runner._receive

    def timed(frame, first, source):  # the worker's whole step on one frame
        if frame.index > 0 and not process:  # after the start-up (learning the table)
            process.append(time.process_time())
        cpu, wall = time.thread_time(), time.perf_counter()
        if profile is not None and frame.index > 0:
            profile.runcall(receive, frame, first, source)
        else:
            receive(frame, first, source)
        settled = runner._driver is not None and runner._driver.pipeline.tracker.ball_confirmed
        records.append((frame.index, time.thread_time() - cpu, time.perf_counter() - wall, settled))
        ends.append((time.monotonic(), frame.index))
        process[1:] = [time.process_time()]
        if frame.index % ref_every == 0:
            cpu, wall = time.thread_time(), time.perf_counter()
            grey = cv2.cvtColor(frame.image_bgr, cv2.COLOR_BGR2GRAY)
            cv2.GaussianBlur(grey, ksize=(5, 5), sigmaX=0)
            refs.append((time.thread_time() - cpu, time.perf_counter() - wall))

    runner._receive = timed
    runner.start()
    while not runner.ended and runner.error is None:
        time.sleep(0.05)
    runner.stop()
    time.sleep(0.3)  # the last events reach the page
    stop(server, app)
    client.terminate()
    lines = client.communicate(timeout=10)[0].splitlines()
    shutil.rmtree(out, ignore_errors=True)  # the match log and evidence are not looked at
    calls = [json.loads(line) for line in lines if line.startswith("[")]
    if runner.error is not None:
        raise SystemExit(f"the live loop failed: {runner.error}")
    dropped = runner.dropped
    assert dropped == len(buffers) - len(records), (dropped, len(buffers), len(records))
    # From the call's decisive frame, and from the frame whose step released it (the last
    # one the worker finished before the call reached the page).
    done_at = np.array([e[0] for e in ends])
    latency = [
        (
            t - camera.captured_at[round(t_s * fps)],
            t - camera.captured_at[ends[max(np.searchsorted(done_at, t) - 1, 0)][1]],
        )
        for t, _, t_s in calls
        if t_s is not None and round(t_s * fps) in camera.captured_at
    ]
    # Per frame: loop CPU, loop wall (the capture's copy and the worker's step), the copy;
    # and whether the ball's identity was settled after it.
    rows, settled = [], []
    for i, c, w, known in records:
        if i > 0:  # after the start-up
            copy = camera.capture_cpu_s.get(i, 0.0)
            rows.append((copy + c, copy + w, copy))
            settled.append(known)
    process_s = (process[-1] - process[0]) / max(len(records) - 1, 1)
    return rows, settled, refs, dropped, [c[1] for c in calls], latency, process_s


def summary(label, ms) -> str:
    return (
        f"{label} mean {np.mean(ms):6.2f}  p99 {np.percentile(ms, 99):6.2f}  "
        f"worst {np.max(ms):6.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2304x1296,1456x1088")
    parser.add_argument("--fps", type=float, default=56.0, help="the camera's frame rate")
    parser.add_argument(
        "--segments", default="1.5:4,8.5:12,40.5:43.5", help="scene seconds FROM:TO,..."
    )
    parser.add_argument("--format", default="RGB888", choices=("RGB888", "YUV420"))
    parser.add_argument("--core", type=int, default=None, help="the core (default: the last)")
    parser.add_argument("--ref-every", type=int, default=8)
    parser.add_argument("--cache", type=Path, default=None, help="keep rendered frames here")
    parser.add_argument(
        "--every-frame",
        action="store_true",
        help="the camera waits for the worker (no frame dropped, however busy the machine): "
        "per-frame costs and calls of every frame, for comparing code on a shared machine",
    )
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="profile the worker's steps (cProfile, after each run's first frame) into this "
        "file, and print the stages that cost most (profiling slows the loop: its times are "
        "then no measure)",
    )
    args = parser.parse_args()
    profile = cProfile.Profile() if args.profile is not None else None
    core = args.core if args.core is not None else max(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {core})
    cv2.setNumThreads(1)
    segments = [tuple(float(x) for x in s.split(":")) for s in args.segments.split(",")]
    for text in args.sizes.split(","):
        size = tuple(int(x) for x in text.split("x"))
        cal = calibration_for(size)
        rows, settled, refs, dropped, kinds, latency, cpu_s = [], [], [], 0, [], [], []
        pool = FramePool()  # one camera for the whole match: its buffers outlive a segment
        for start_s, end_s in segments:
            buffers = render_segment(size, args.fps, start_s, end_s, args.format, args.cache)
            r, s, f, d, k, lat, c = run_segment(
                buffers,
                args.format,
                size,
                args.fps,
                pool,
                cal,
                args.ref_every,
                args.every_frame,
                profile,
            )
            rows += r
            settled += s
            refs += f
            dropped += d
            kinds += k
            latency += lat
            cpu_s.append(c)
            del buffers
            # The segment's runner is gone, as it would be in one long match: its rings' frames
            # go back to the pool (they are held in reference cycles until collected).
            gc.collect()
        ms = 1000 * np.array(rows)
        ref = 1000 * np.array(refs)
        n = len(rows) + dropped + len(segments)  # + each segment's first frame (start-up)
        budget = BUDGET_MS.get(size)
        print(
            f"\n{size[0]}x{size[1]} at {args.fps:g} fps, {args.format}, core {core}: {n} frames "
            f"of scenes {args.segments} s" + (f"  (budget {budget:g} ms a frame)" if budget else "")
        )
        print("  loop, CPU  " + summary("", ms[:, 0]))
        print("  loop, wall " + summary("", ms[:, 1]))
        print(
            f"  of the CPU mean: the copy and conversion {np.mean(ms[:, 2]):5.2f} ms, the "
            f"worker's step {np.mean(ms[:, 0] - ms[:, 2]):5.2f} ms"
        )
        known = np.array(settled, bool)
        for label, rows_of in (("ball settled", known), ("identity open", ~known)):
            if rows_of.any():
                print(
                    f"  loop, CPU, {label:13s} on {rows_of.sum():3d} frames: "
                    + summary("", ms[rows_of, 0])
                )
        print(f"  whole process CPU per frame refereed {1000 * np.mean(cpu_s):6.2f} ms")
        ref_ms = np.mean(ref[:, 0])
        print(
            f"  reference (grey + 5x5 blur of the frame) CPU {ref_ms:5.2f} ms, "
            f"wall {np.mean(ref[:, 1]):5.2f} ms: loop = {np.mean(ms[:, 0]) / ref_ms:4.2f} x "
            f"reference (CPU mean), p99 {np.percentile(ms[:, 0], 99) / ref_ms:4.2f} x"
        )
        print(f"  frames dropped {dropped} of {n} ({100 * dropped / max(n, 1):.1f} %)")
        if latency:
            lat = 1000 * np.array(latency)
            print(
                f"  calls on the page: {', '.join(kinds)}; latency from the decisive frame "
                f"mean {np.mean(lat[:, 0]):5.0f} ms, worst {np.max(lat[:, 0]):5.0f} ms; from "
                f"the frame that released it mean {np.mean(lat[:, 1]):5.1f} ms, "
                f"worst {np.max(lat[:, 1]):5.1f} ms"
            )
        else:
            print(f"  calls on the page: {', '.join(kinds) or 'none'}")
    if profile is not None:
        print_stages(profile, args.profile)


def print_stages(profile: cProfile.Profile, path: Path) -> None:
    """Save the profile and print the functions that cost most, inclusive, ms a frame."""
    profile.dump_stats(path)
    stats = pstats.Stats(profile).stats  # (file, line, name) -> (prim, calls, tt, cum, callers)
    frames = max((v[1] for k, v in stats.items() if k[2] == "_receive"), default=1)
    print(f"\nprofile of {frames} frames ({path}): inclusive ms a frame, calls a frame")
    for (file, line, name), (_, calls, _, cum, _) in sorted(
        stats.items(), key=lambda kv: -kv[1][3]
    )[:30]:
        where = f"{Path(file).name}:{line}({name})"
        print(f"  {1000 * cum / frames:7.2f}  {calls / frames:6.2f}  {where}")


if __name__ == "__main__":
    main()
