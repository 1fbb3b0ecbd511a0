"""A frame source that renders a scripted simulated match as it happens.

``SimSource`` compiles a named scene (``simulator/scene_library.py``), points a straight camera
at the table and renders frame ``i`` of the scene at ``t = start_s + i / fps``, paced to the
wall clock like a real camera: frame ``i`` is handed over no earlier than ``i / fps`` after the
first. A consumer that falls behind misses frames, as it would with a camera (their timestamps
leave a gap), so the live page shows the present on any machine. Timestamps are the scene's
own times, not the wall clock, so a run's calls compare with the scene's ground truth.

``lead_s`` shows the line-up, frozen at ``start_s``, before play begins: the table a camera sees
while the players get ready, which is when the live runner calibrates.

Specs on the command line: ``sim`` (the ``demo`` scene) or ``sim:SCENE``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import numpy as np

from calibration.tables import load_pitch
from hardware.frame_source import Frame, SourceBase, SourceError
from simulator.render import Renderer
from simulator.scene_camera import clip_camera, clip_look
from simulator.scene_library import build_scene, scene_names

SIM_SCHEME = "sim"
DEFAULT_SCENE = "demo"


class SimSource(SourceBase):
    """Renders a scripted scene in real time; its frames are exact (not ``lossy``), of a
    global shutter.

    Args:
        scene: scene name (``scene_names()``).
        seed: draw of the scene's positions and the renderer's noise.
        size_px: frame (width, height).
        fps: frame rate; frame ``i`` shows the scene at ``start_s + i / fps`` (after the lead).
        table: table profile name.
        start_s: scene time of the first frame, s.
        lead_s: seconds of frozen line-up before the scene starts to play.
        end_s: scene time after which the source ends (default: the scene's end).
        realtime: pace frames to the wall clock (False: as fast as they render).
        clock: monotonic wall clock, s (``time.monotonic``).
        sleep: the wait function (``time.sleep``).

    Raises:
        SourceError: an unknown scene, or times outside it.
    """

    lossy = False
    readout_s = 0.0
    replayable = True  # each ``frames()`` starts the scene again from ``start_s``
    paced = True  # it keeps its own pace: the wall clock's, or as fast as refereed (--sim-fast)
    end_message = "the simulated match has ended"

    def __init__(
        self,
        scene: str = DEFAULT_SCENE,
        *,
        seed: int = 1,
        size_px: tuple[int, int] = (800, 600),
        fps: float = 30.0,
        table: str = "fistf",
        start_s: float = 0.0,
        lead_s: float = 0.0,
        end_s: float | None = None,
        realtime: bool = True,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if scene not in scene_names():
            raise SourceError(
                f"unknown simulated scene {scene!r}; scenes: {', '.join(scene_names())}"
            )
        if not fps > 0:
            raise SourceError(f"simulated source: fps must be > 0, got {fps}")
        self.scene = build_scene(scene, seed, table)
        end = self.scene.duration_s if end_s is None else min(end_s, self.scene.duration_s)
        if not 0.0 <= start_s < end or lead_s < 0:
            raise SourceError(
                f"simulated scene {scene!r} lasts {self.scene.duration_s:.1f} s: choose "
                f"0 <= start_s < end_s and lead_s >= 0 (got {start_s}, {end_s}, {lead_s})"
            )
        self.name = scene
        self.start_s, self.end_s, self.lead_s = float(start_s), float(end), float(lead_s)
        self._fps = float(fps)
        self.realtime = realtime
        self._clock, self._sleep = clock, sleep
        pitch = load_pitch(table)
        rng = np.random.default_rng([seed, 7])
        self.camera = clip_camera(rng, pitch, size_px, straight=True)
        self._renderer = Renderer(self.camera, pitch, clip_look(rng, default=True), seed=seed)
        self.dropped = 0  # frames skipped because the consumer fell behind the wall clock

    @property
    def size_px(self) -> tuple[int, int]:
        return self.camera.size_px

    @property
    def fps(self) -> float:
        return self._fps

    @property
    def frame_count(self) -> int:
        """Frames from the first to the end of the scene (or ``end_s``)."""
        return int((self.lead_s + self.end_s - self.start_s) * self._fps + 1e-9)

    def scene_time_s(self, index: int) -> float:
        """The scene time frame ``index`` shows, s."""
        return self.start_s + max(0.0, index / self._fps - self.lead_s)

    def frames(self) -> Iterator[Frame]:
        """Render and yield frames; each call starts the scene again from ``start_s``."""
        n = self.frame_count
        t0 = self._clock()
        index = 0
        while index < n:
            if self.realtime:
                late_s = self._clock() - t0 - index / self._fps
                if late_s < 0:
                    self._sleep(-late_s)
                elif late_s >= 1.0 / self._fps:
                    # Behind by a frame or more: skip to the frame due now, as a camera would.
                    skip = min(int(late_s * self._fps), n - 1 - index)
                    self.dropped += skip
                    index += skip
            image = self._renderer.render(self.scene.frame(self.scene_time_s(index)))
            yield Frame(index, round(index * 1e9 / self._fps), image)
            index += 1

    def close(self) -> None:
        """Nothing to release: the renderer holds only memory."""


def is_sim_spec(spec: str) -> bool:
    """Whether a source spec names the simulator (``sim`` or ``sim:SCENE``)."""
    return spec == SIM_SCHEME or spec.startswith(SIM_SCHEME + ":")


def open_sim(spec: str, **options) -> SimSource:
    """A ``SimSource`` for ``sim`` (the demo scene), ``sim:SCENE`` or ``sim:SCENE@START_S`` (from
    that scene time on); options as ``SimSource``."""
    if not is_sim_spec(spec):
        raise SourceError(f"not a simulator spec: {spec!r}; use sim or sim:SCENE")
    scene = spec.partition(":")[2] or DEFAULT_SCENE
    scene, at, start = scene.partition("@")
    if at:  # sim:SCENE@START_S: the scene from that moment (a table seen again mid-match)
        try:
            options["start_s"] = float(start)
        except ValueError:
            raise SourceError(
                f"sim:{scene}@{start}: the start must be seconds, e.g. @12.5"
            ) from None
    return SimSource(scene or DEFAULT_SCENE, **options)
