"""Signals at the table through the Pi's GPIO header: a clock LED and a pause button.

Wiring (BCM numbers, the defaults): an LED with a series resistor from GPIO 17 to ground
lights while the match clock runs; a push button from GPIO 27 to ground (the internal pull-up
holds the pin high) asks for a pause. gpiozero is imported inside ``TableSignals`` so the rest
of tablevar runs where it is not installed; tests pass gpiozero's ``MockFactory`` as
``pin_factory`` to run without a Pi.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

DEFAULT_LED_PIN = 17
DEFAULT_BUTTON_PIN = 27
# Mechanical buttons bounce for a few ms; 50 ms keeps one press from reading as several.
DEFAULT_BOUNCE_S = 0.05


class GpioError(ValueError):
    """GPIO is not available or a pin cannot be used."""


def _import_gpiozero() -> ModuleType:
    try:
        return importlib.import_module("gpiozero")
    except ImportError as exc:
        raise GpioError(
            "gpiozero is not installed: pip install -e '.[pi]' (or run without GPIO signals)"
        ) from exc


class TableSignals:
    """The clock LED and the pause button.

    Args:
        on_pause: called (from gpiozero's thread) each time the button is pressed.
        led_pin: BCM pin of the LED.
        button_pin: BCM pin of the button.
        bounce_s: debounce time of the button, seconds, or None for none.
        pin_factory: a gpiozero pin factory; None picks the Pi's.

    Raises:
        GpioError: gpiozero is missing or a pin cannot be claimed.
    """

    def __init__(
        self,
        on_pause: Callable[[], None],
        *,
        led_pin: int = DEFAULT_LED_PIN,
        button_pin: int = DEFAULT_BUTTON_PIN,
        bounce_s: float | None = DEFAULT_BOUNCE_S,
        pin_factory: Any = None,
    ) -> None:
        gpiozero = _import_gpiozero()
        try:
            self._led = gpiozero.LED(led_pin, pin_factory=pin_factory)
            self._button = gpiozero.Button(
                button_pin, bounce_time=bounce_s, pin_factory=pin_factory
            )
        except gpiozero.GPIOZeroError as exc:
            raise GpioError(
                f"cannot use GPIO {led_pin} (LED) and GPIO {button_pin} (button): {exc}"
            ) from exc
        self._button.when_pressed = lambda: on_pause()

    def show_clock(self, running: bool) -> None:
        """Light the LED while the match clock runs."""
        if running:
            self._led.on()
        else:
            self._led.off()

    @property
    def clock_shown(self) -> bool:
        """Whether the LED is lit."""
        return bool(self._led.is_lit)

    def close(self) -> None:
        """Turn the LED off and release both pins."""
        if not self._led.closed:
            self._led.off()  # a stopped clock must not look like a running one
        self._led.close()
        self._button.close()

    def __enter__(self) -> TableSignals:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
