"""GPIO signals, on gpiozero's mock pins (the same code paths as on a Pi)."""

from __future__ import annotations

import time

import pytest
from gpiozero import LED
from gpiozero.pins.mock import MockFactory

from hardware.gpio import GpioError, SignalPins, TableSignals

ALL = SignalPins(clock_led=17, buzzer=22, pause_button=27, shot_button=23, bounce_s=None)


@pytest.fixture
def pins() -> MockFactory:
    factory = MockFactory()
    factory.reset()  # gpiozero 1.6 shares the mock pins between factories
    return factory


def press(pins: MockFactory, pin: int) -> None:
    pins.pin(pin).drive_low()  # pressed: the button pulls the pin to ground
    pins.pin(pin).drive_high()


def test_led_follows_the_clock(pins):
    with TableSignals(SignalPins(), pin_factory=pins) as signals:
        assert pins.pin(17).state is False
        signals.show_clock(True)
        assert pins.pin(17).state is True
        assert signals.clock_shown
        signals.show_clock(False)
        assert pins.pin(17).state is False
    with pytest.raises(GpioError, match="closed"):
        signals.show_clock(True)


@pytest.mark.parametrize(("presses", "expected"), [(0, 0), (1, 1), (3, 3)])
def test_each_press_reaches_its_own_action(pins, presses, expected):
    pauses, shots = [], []
    with TableSignals(
        ALL, on_pause=lambda: pauses.append(1), on_shot=lambda: shots.append(1), pin_factory=pins
    ):
        for _ in range(presses):
            press(pins, 27)
        press(pins, 23)
    assert (len(pauses), len(shots)) == (expected, 1)


def test_the_buzzer_beeps_in_the_background_and_everything_is_off_on_close(pins):
    with TableSignals(ALL, pin_factory=pins) as signals:
        signals.show_clock(True)
        signals.beep((0.02, 0.02, 2))  # returns at once: the refereeing does not wait
        buzzer = pins.pin(22)
        deadline = time.monotonic() + 5.0
        while len(buzzer.states) < 5 and time.monotonic() < deadline:
            time.sleep(0.01)
        buzzer.assert_states([False, True, False, True, False])  # two beeps, then quiet
    assert pins.pin(17).state is False and pins.pin(22).state is False


def test_signals_not_fitted_are_left_alone(pins):
    with TableSignals(SignalPins(clock_led=None, pause_button=None), pin_factory=pins) as s:
        s.show_clock(True)
        s.beep((0.1, 0.1, 1))
        assert not s.clock_shown
    assert not any(pins.pin(n).function == "output" for n in (17, 22))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"clock_led": 4, "pause_button": 4}, "each signal needs a pin of its own, got \\[4, 4\\]"),
        ({"buzzer": 40}, "BCM numbers 0-27, got 40"),
        ({"shot_button": True}, "BCM numbers 0-27, got True"),
        ({"bounce_s": 5.0}, "bounce_s must be 0-1 s"),
    ],
)
def test_bad_pins_are_a_clear_error(kwargs, message):
    with pytest.raises(GpioError, match=message):
        SignalPins(**kwargs)


def test_a_pin_another_program_holds_is_a_clear_error_and_nothing_stays_claimed(pins):
    held = pins.pin(27)
    other = LED(27, pin_factory=pins)  # another program on the button's pin
    with pytest.raises(GpioError, match="cannot use the GPIO pins"):
        TableSignals(SignalPins(), pin_factory=pins)
    other.close()
    with TableSignals(SignalPins(), pin_factory=pins):  # the LED's pin was released
        assert held.function == "input"
