"""What the page says about the live source: frames arriving, dropped out, reopening, ended.

``SourceWatch`` tells the hub whether frames arrive (``set``) and runs the watchdog that
notices a source stalling inside ``frames()`` (an OpenCV camera reopening itself): the driver's
loop says when it waits for a frame (``waiting``), and a wait longer than ``stall_s`` is
reported until a frame comes.
"""

from __future__ import annotations

import threading
import time

from web.hub import MatchHub


class SourceWatch:
    """The source's state on the page, and the stall watchdog."""

    def __init__(self, hub: MatchHub, stall_s: float) -> None:
        self.hub, self.stall_s = hub, stall_s
        self.ok: bool | None = None
        self._waiting_since: float | None = None
        self._lock = threading.RLock()

    def set(self, ok: bool, message: str = "", *, unless_stalled: bool = False) -> None:
        """Tell the page whether frames arrive (without frames the scoreboard says stopped)."""
        with self._lock:
            # The watchdog's word only while the worker still waits for the same frame.
            if unless_stalled and not (self.ok and self._waiting_since is not None):
                return
            self.ok = ok
            self.hub.set_source(ok, message)

    def waiting(self, waits: bool) -> None:
        """The worker starts (True) or stops (False) waiting for the source's next frame."""
        if waits:
            self._waiting_since = time.monotonic()
            return
        with self._lock:
            self._waiting_since = None

    def watch(self, stop: threading.Event, ended) -> None:
        """Report a source that stalls inside ``frames()``, until ``stop`` or ``ended()``."""
        while not stop.wait(0.1) and not ended():
            since = self._waiting_since
            if since is not None and time.monotonic() - since > self.stall_s:
                waited = time.monotonic() - since
                message = f"no frames for {waited:.1f} s: reopening the camera"
                self.set(False, message, unless_stalled=True)
