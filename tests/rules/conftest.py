"""Shared fixtures for the rules tests: the shipped FISTF pitch."""

from __future__ import annotations

import pytest

from calibration.tables import load_pitch
from rules.pitch import Pitch


@pytest.fixture(scope="session")
def fistf_pitch() -> Pitch:
    """The nominal FISTF pitch: 1200 x 750 mm, 3 mm lines, ball 21 mm, bases 24 mm."""
    return load_pitch("fistf")
