"""Argument types shared by the commands: bad values fail as argparse usage errors."""

from __future__ import annotations

import argparse
import math

MAX_SECONDS = 3600.0


def seconds(text: str) -> float:
    """A time span in seconds: finite, above 0 and at most an hour."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (math.isfinite(value) and 0 < value <= MAX_SECONDS):
        raise argparse.ArgumentTypeError(
            f"expected seconds above 0 and at most {MAX_SECONDS:.0f}, got {text}"
        )
    return value


def readout_ms(text: str) -> float:
    """A rolling shutter's readout in milliseconds: finite, 0 (a global shutter) or more,
    at most a second. Returns seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected milliseconds, got {text!r}") from None
    if not (math.isfinite(value) and 0 <= value <= 1000):
        raise argparse.ArgumentTypeError(
            f"expected milliseconds from 0 (a global shutter) to 1000, got {text}"
        )
    return value / 1000.0
