"""Shared fixtures: small synthetic recordings written with the real RecordingWriter; and, with
``-n N``, the tests that share a module's costly fixture kept on one worker."""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.recording import RecordingWriter
from hardware.sources import FrameSource


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """With ``-n N``: the tests of a module that builds a module-scoped fixture (a rendered
    clip, its analysis, a learned model) go to one worker, which builds it once; every other
    test goes to whichever worker is free, as xdist's ``load`` sends them.

    (xdist's ``--dist loadgroup`` cannot do this under pytest 9.2, where a test's node id can
    no longer be given its group; the controller sees node ids only, so it reads the module.)"""
    if config.getvalue("dist") != "load":
        return None  # an explicit --dist other than load is obeyed
    from xdist.scheduler import LoadScopeScheduling

    @functools.cache
    def builds_module_fixture(module: str) -> bool:
        path = config.rootpath / module
        return path.suffix == ".py" and MODULE_FIXTURE in path.read_text(encoding="utf-8")

    class SharedFixtureScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::")[0]
            return module if builds_module_fixture(module) else nodeid

    return SharedFixtureScheduling(config, log)


MODULE_FIXTURE = '@pytest.fixture(scope="module"'


@dataclass(frozen=True, slots=True)
class SyntheticClip:
    """What ``make_recording`` writes: frame size, rate, timestamps and the frames themselves."""

    size_px: tuple[int, int] = (160, 120)
    fps: float = 25.0
    t0_ns: int = 5_000_000_000
    dt_ns: int = 40_000_000

    def frame(self, i: int) -> np.ndarray:
        """Frame ``i``: green cloth, a white ball and a red base that move with ``i``."""
        w, h = self.size_px
        img = np.full((h, w, 3), (40, 120, 40), np.uint8)
        cv2.circle(img, center=(20 + 6 * i, h // 2), radius=10, color=(255, 255, 255), thickness=-1)
        cv2.rectangle(
            img, pt1=(w - 50, 10 + 4 * i), pt2=(w - 20, 40 + 4 * i), color=(0, 0, 200), thickness=-1
        )
        return img

    def t_ns(self, i: int) -> int:
        return self.t0_ns + i * self.dt_ns


@pytest.fixture
def clip() -> SyntheticClip:
    return SyntheticClip()


@pytest.fixture
def make_recording(tmp_path: Path, clip: SyntheticClip) -> Callable[..., Path]:
    """Factory: ``make_recording(n=8, truth=True)`` writes ``clip`` and returns its folder."""

    def make(n: int = 8, *, truth: bool = True, name: str = "rec") -> Path:
        folder = tmp_path / name
        with RecordingWriter(
            folder, fps=clip.fps, size_px=clip.size_px, table="fistf", source="sim"
        ) as w:
            for i in range(n):
                w.write(clip.frame(i), clip.t_ns(i), {"frame": i} if truth else None)
            if truth:
                w.write_truth_calls([{"t_s": 0.12, "kind": "ball_out", "law": "FISTF 9"}])
        return folder

    return make


def fill_up(path: Path) -> None:
    """Make every later write to the open file ``path`` fail as on a full disk (ENOSPC): the
    process's descriptor of it is pointed at /dev/full."""
    full = os.open("/dev/full", os.O_WRONLY)
    try:
        for fd in Path("/proc/self/fd").iterdir():
            with contextlib.suppress(OSError):
                if os.readlink(fd) == str(path):
                    os.dup2(full, int(fd.name))
    finally:
        os.close(full)


class FillsUp:
    """A frame source whose recording disk fills up once ``at_frame`` frames are delivered."""

    def __init__(self, source: FrameSource, record_dir: Path, at_frame: int):
        self.source, self.record_dir, self.at_frame = source, record_dir, at_frame

    def __getattr__(self, name):
        return getattr(self.source, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.source.close()

    def frames(self):
        for frame in self.source.frames():
            if frame.index == self.at_frame:
                for name in ("video.mp4", "timestamps.csv"):
                    fill_up(self.record_dir / name)
            yield frame


@pytest.fixture
def disk_fills_up() -> type[FillsUp]:
    """``disk_fills_up(source, record_dir, at_frame)``: a source whose recording disk fills up."""
    if not Path("/dev/full").exists():
        pytest.skip("needs /dev/full")
    return FillsUp
