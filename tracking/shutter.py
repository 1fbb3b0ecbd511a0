"""When each row of a frame was seen: a rolling shutter's readout.

A rolling shutter exposes the rows one after another, top to bottom, over its readout time; a
frame's time is taken as the moment its middle row was exposed (a camera that stamps its first
row instead shifts every time alike, which changes no call). A ball seen on row ``v`` of a
frame ``h`` rows high was there ``(v / (h - 1) - 0.5) * readout_s`` after the frame's time:
rolling at 0.5 m/s near the top or bottom of a frame read out over 15 ms, it is seen some 4 mm
from where it was at the frame's time, along its roll. A global shutter reads every row at once
(a readout of 0).

A recording's readout is rarely known. Unknown, it is taken as anything from a global shutter to
the whole frame period (a sensor does not read a frame out slower than it streams them): the
middle of that range, with the standard uncertainty of a uniform spread over it. A camera whose
sensor mode is known reads out in about its fastest frame period (``hardware.camera_presets``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# The standard uncertainty of a readout that is known, as a share of it: a sensor mode's frame
# period at its highest rate bounds its readout from above by the few rows of its blanking.
KNOWN_READOUT_SHARE = 0.1


@dataclass(frozen=True, slots=True)
class RollingShutter:
    """A frame's rows in time.

    Attributes:
        readout_s: time from the exposure of the first row to that of the last (0: a global
            shutter).
        readout_sigma_s: its standard uncertainty.
        rows: the frame's height in rows.
    """

    readout_s: float
    readout_sigma_s: float
    rows: int

    @classmethod
    def of(cls, readout_s: float | None, fps: float, rows: int) -> RollingShutter:
        """The shutter of a camera reading ``rows`` rows at ``fps`` frames a second over
        ``readout_s`` (None: not known; see the module docstring).

        Raises:
            ValueError: a negative readout, or one longer than the frame period.
        """
        period_s = 1.0 / fps
        if readout_s is None:
            return cls(period_s / 2.0, period_s / math.sqrt(12.0), rows)
        if not 0.0 <= readout_s <= period_s:
            raise ValueError(
                f"a readout of {readout_s * 1000:g} ms does not fit a frame period of "
                f"{period_s * 1000:.3g} ms: give 0 for a global shutter, else the sensor's "
                "readout time"
            )
        return cls(readout_s, KNOWN_READOUT_SHARE * readout_s, rows)

    def delay_s(self, row_px: float) -> tuple[float, float]:
        """How long after the frame's time row ``row_px`` was exposed, and the standard
        uncertainty of that delay, s."""
        share = row_px / max(self.rows - 1, 1) - 0.5
        return share * self.readout_s, abs(share) * self.readout_sigma_s
