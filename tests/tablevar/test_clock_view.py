"""What the live page shows of the match clock: period clock, half and status per frame."""

from __future__ import annotations

import pytest

from tablevar.clock_view import ClockView

HALF_TIME = {"kind": "half_time", "restart": "kick_off"}
EXTRA_TIME = {"kind": "full_time", "restart": "kick_off"}
FULL_TIME = {"kind": "full_time", "restart": None}
GOAL = {"kind": "goal", "restart": "kick_off"}


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        # (rules' total clock, calls of the frame) -> (clock of the period, half, status)
        ([(0.0, [])], [(0.0, 1, "stopped")]),
        ([(0.5, []), (0.5, [GOAL])], [(0.5, 1, "running"), (0.5, 1, "stopped")]),
        (
            # The first half ends at 900.4 s; the rules' total drops to the half's length.
            [(900.4, []), (900.0, [HALF_TIME]), (900.0, []), (900.3, []), (900.3, [])],
            [
                (900.4, 1, "running"),
                (0.0, 2, "half_time"),
                (0.0, 2, "half_time"),
                (pytest.approx(0.3), 2, "running"),
                (pytest.approx(0.3), 2, "stopped"),
            ],
        ),
        (
            # A period that ends the moment the total reaches its length still waits.
            [(899.99, []), (900.0, [HALF_TIME]), (900.0, [])],
            [(899.99, 1, "running"), (0.0, 2, "half_time"), (0.0, 2, "half_time")],
        ),
        (
            [(1800.0, [EXTRA_TIME]), (1800.2, []), (1800.2, [FULL_TIME])],
            [
                (0.0, 2, "half_time"),
                (pytest.approx(0.2), 2, "running"),
                (pytest.approx(0.2), 2, "ended"),
            ],
        ),
    ],
)
def test_clock_view(steps, expected):
    view = ClockView()
    assert [view.update(total, calls) for total, calls in steps] == expected
