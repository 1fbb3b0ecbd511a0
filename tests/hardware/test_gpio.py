"""GPIO signals, on gpiozero's mock pins (the same code paths as on a Pi)."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from hardware.gpio import GpioError, TableSignals


@pytest.fixture
def pins() -> MockFactory:
    return MockFactory()


def test_led_follows_the_clock(pins):
    with TableSignals(lambda: None, pin_factory=pins) as signals:
        assert pins.pin(17).state is False
        signals.show_clock(True)
        assert pins.pin(17).state is True
        assert signals.clock_shown
        signals.show_clock(False)
        assert pins.pin(17).state is False
    with pytest.raises(Exception, match="closed"):
        signals.show_clock(True)


@pytest.mark.parametrize(("presses", "expected"), [(0, 0), (1, 1), (3, 3)])
def test_each_button_press_asks_for_a_pause(pins, presses, expected):
    pauses = []
    with TableSignals(lambda: pauses.append(1), bounce_s=None, pin_factory=pins):
        button = pins.pin(27)
        for _ in range(presses):
            button.drive_low()  # pressed: the button pulls the pin to ground
            button.drive_high()
    assert len(pauses) == expected


def test_other_pins(pins):
    pauses = []
    with TableSignals(lambda: pauses.append(1), led_pin=5, button_pin=6, pin_factory=pins) as s:
        s.show_clock(True)
        pins.pin(6).drive_low()
    assert pins.pin(5).state is False  # turned off on close
    assert pauses == [1]


def test_a_pin_used_twice_is_a_clear_error(pins):
    with pytest.raises(GpioError, match="cannot use GPIO 4 \\(LED\\) and GPIO 4 \\(button\\)"):
        TableSignals(lambda: None, led_pin=4, button_pin=4, pin_factory=pins)
