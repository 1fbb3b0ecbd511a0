"""``--record`` of the live runner: every frame into a recording folder, never at the cost of
the refereeing.

A write error (a full disk, a stick pulled out) ends the recording, keeping what was written
(``RecordingWriter.abort``), and the page (``hub.set_recording``) and the log say why; the
match goes on.
"""

from __future__ import annotations

import logging
from pathlib import Path

from hardware.recording import RecordingError, RecordingWriter
from hardware.sources import Frame, FrameSource
from web.hub import MatchHub

_log = logging.getLogger(__name__)


class LiveRecorder:
    """Writes the frames the runner receives into ``folder`` (opened at the first frame)."""

    def __init__(self, folder: str | Path, hub: MatchHub, table: str, game: str) -> None:
        # The game goes with the recording: its table may name another (RecordingMeta.game).
        self.folder, self.hub, self.table, self.game = Path(folder), hub, table, game
        self._writer: RecordingWriter | None = None
        self.error: str | None = None  # why the recording stopped (refereeing goes on)

    def write(self, frame: Frame, t_s: float, source: FrameSource) -> None:
        """Write one frame; a write error stops the recording only."""
        if self.error is not None:
            return
        try:
            if self._writer is None:
                self._writer = RecordingWriter(
                    self.folder,
                    fps=source.fps,
                    size_px=source.size_px,
                    table=self.table,
                    source=type(source).__name__,
                    game=self.game,
                    readout_s=source.readout_s,
                )
                self.hub.set_recording(True, f"recording into {self.folder}")
            self._writer.write(frame.image_bgr, round(t_s * 1e9))
        except (OSError, RecordingError) as exc:  # a full disk, a stick pulled out, ...
            self._stop(exc)

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def _stop(self, exc: Exception) -> None:
        """Give the recording up for this run, say why on the page and in the log."""
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        frames = self._writer.frames if self._writer is not None else 0
        self.error = " ".join(reason.split()) or type(exc).__name__
        message = (
            f"recording stopped after {frames} frames: {self.error} "
            f"({self.folder}); refereeing goes on"
        )
        _log.error("%s", message)
        if self._writer is not None:
            self._writer.abort()
            self._writer = None
        self.hub.set_recording(False, message)
