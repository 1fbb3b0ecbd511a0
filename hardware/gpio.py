"""Signals at the table through the Pi's GPIO header: a clock LED, a buzzer and two buttons.

Wiring (BCM numbers; every part optional, ``SignalPins``): an LED with a series resistor from
its pin to ground lights while the match clock runs; an active buzzer from its pin to ground
sounds on goals and outs; push buttons from their pins to ground (the internal pull-up holds the
pin high) pause / resume the match and call a shot. gpiozero is imported inside
``TableSignals`` so the rest of tablevar runs where it is not installed; tests pass gpiozero's
``MockFactory`` as ``pin_factory`` to run without a Pi.

A signal is a help at the table, never a condition of refereeing: every error of gpiozero or
the pins below it, on claiming a pin or later, leaves as a ``GpioError``, which the caller logs
and goes on without.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

DEFAULT_LED_PIN = 17
DEFAULT_BUTTON_PIN = 27
# Mechanical buttons bounce for a few ms; 50 ms keeps one press from reading as several.
DEFAULT_BOUNCE_S = 0.05
BCM_PINS = range(28)
# Beeps: (on_s, off_s, count). A goal is told apart from an out by ear.
GOAL_BEEPS = (0.15, 0.1, 3)
OUT_BEEPS = (0.4, 0.0, 1)


class GpioError(ValueError):
    """GPIO is not available or a pin cannot be used."""


@dataclass(frozen=True, slots=True)
class SignalPins:
    """Which BCM pin each signal is wired to (None: not fitted).

    Attributes:
        clock_led: the LED lit while the match clock runs.
        buzzer: an active buzzer, sounded on goals and outs.
        pause_button: pauses a running match, resumes (or starts) a held one.
        shot_button: calls a shot (button football: only called shots score).
        bounce_s: debounce time of the buttons, seconds, or None for none.
    """

    clock_led: int | None = DEFAULT_LED_PIN
    buzzer: int | None = None
    pause_button: int | None = DEFAULT_BUTTON_PIN
    shot_button: int | None = None
    bounce_s: float | None = DEFAULT_BOUNCE_S

    def __post_init__(self) -> None:
        used = [p for p in (self.clock_led, self.buzzer, self.pause_button, self.shot_button)]
        for pin in used:
            if pin is not None and (isinstance(pin, bool) or pin not in BCM_PINS):
                raise GpioError(f"GPIO pins are BCM numbers 0-27, got {pin!r}")
        fitted = [p for p in used if p is not None]
        if len(set(fitted)) != len(fitted):
            raise GpioError(f"each signal needs a pin of its own, got {fitted}")
        if self.bounce_s is not None and not 0 <= self.bounce_s <= 1:
            raise GpioError(f"bounce_s must be 0-1 s, got {self.bounce_s}")


def _import_gpiozero() -> ModuleType:
    try:
        return importlib.import_module("gpiozero")
    except ImportError as exc:
        raise GpioError(
            "gpiozero is not installed: sudo apt install python3-gpiozero (or run without signals)"
        ) from exc


class TableSignals:
    """The signals wired as ``pins`` says.

    Args:
        pins: which pin each signal uses.
        on_pause: called (from gpiozero's thread) on each press of the pause button.
        on_shot: called (from gpiozero's thread) on each press of the shot button.
        pin_factory: a gpiozero pin factory; None picks the Pi's.

    Raises:
        GpioError: gpiozero is missing or a pin cannot be claimed.
    """

    def __init__(
        self,
        pins: SignalPins,
        *,
        on_pause: Callable[[], None] = lambda: None,
        on_shot: Callable[[], None] = lambda: None,
        pin_factory: Any = None,
    ) -> None:
        gpiozero = _import_gpiozero()
        self._devices: list[Any] = []
        self._led = self._buzzer = None
        try:
            if pins.clock_led is not None:
                self._led = self._claim(gpiozero.LED, pins.clock_led, pin_factory=pin_factory)
            if pins.buzzer is not None:
                self._buzzer = self._claim(gpiozero.Buzzer, pins.buzzer, pin_factory=pin_factory)
            for pin, action in ((pins.pause_button, on_pause), (pins.shot_button, on_shot)):
                if pin is not None:
                    button = self._claim(
                        gpiozero.Button, pin, bounce_time=pins.bounce_s, pin_factory=pin_factory
                    )
                    button.when_pressed = _caller(action)
        except Exception as exc:  # the pins' own errors vary by library: one type for callers
            self.close()
            raise GpioError(f"cannot use the GPIO pins {pins}: {exc}") from exc

    def _claim(self, device: Callable[..., Any], pin: int, **kwargs: Any) -> Any:
        claimed = device(pin, **kwargs)
        self._devices.append(claimed)
        return claimed

    def show_clock(self, running: bool) -> None:
        """Light the LED while the match clock runs.

        Raises:
            GpioError: the pin failed.
        """
        if self._led is not None:
            _guard(self._led.on if running else self._led.off)

    def beep(self, pattern: tuple[float, float, int]) -> None:
        """Sound the buzzer ``(on_s, off_s, count)`` in the background.

        Raises:
            GpioError: the pin failed.
        """
        if self._buzzer is not None:
            on_s, off_s, n = pattern
            buzzer = self._buzzer
            _guard(lambda: buzzer.beep(on_time=on_s, off_time=off_s, n=n, background=True))

    @property
    def clock_shown(self) -> bool:
        """Whether the LED is lit."""
        return self._led is not None and bool(self._led.is_lit)

    def close(self) -> None:
        """Turn the outputs off and release every pin."""
        for device in self._devices:
            try:
                if hasattr(device, "off") and not device.closed:
                    device.off()  # a stopped clock must not look like a running one
                device.close()
            except Exception:  # closing what failed must not fail the caller
                pass
        self._devices = []

    def __enter__(self) -> TableSignals:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _guard(action: Callable[[], Any]) -> None:
    try:
        action()
    except Exception as exc:  # gpiozero's, lgpio's or the kernel's: one type for callers
        raise GpioError(f"GPIO failed: {' '.join(str(exc).split()) or type(exc).__name__}") from exc


def _caller(action: Callable[[], None]) -> Callable[[], None]:
    """``action`` without arguments: gpiozero passes the device to a callback taking one."""
    return lambda: action()
