"""The signals at the table follow the live match: on gpiozero's mock pins and a real hub whose
match the rules judge from one-line observations (rules.notation)."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory, MockPin

from hardware.gpio import SignalPins
from rules.notation import parse_observation
from tablevar.live_options import LiveError, read_live_config
from tablevar.live_signals import LiveSignals
from web.hub import MatchHub
from web.matchlog import MatchLog

PINS = SignalPins(clock_led=17, buzzer=22, pause_button=27, shot_button=23, bounce_s=None)
FIGS = (
    "home 1 gk -605,0; home 7 -23,0; home 8 350,0; home 5 -100,300; "
    "away 2 gk 605,0; away 9 60,-100; away 10 150,0"
)


def fresh_pins(**kwargs) -> MockFactory:
    """Mock pins no earlier test has touched (gpiozero 1.6 shares them between factories)."""
    factory = MockFactory(**kwargs)
    factory.reset()
    return factory


class Table:
    """A hub refereeing observations at 50 fps, with the signals wired to mock pins."""

    def __init__(self, tmp_path: Path, factory=None, pins: SignalPins = PINS):
        self.hub = MatchHub(MatchLog(tmp_path / "match.sqlite"))
        self.pins = factory or fresh_pins()
        self.shots: list[float] = []
        self.signals = LiveSignals(self.hub, pins, on_shot=self.shots.append, pin_factory=self.pins)
        self.frame = 0

    def play(self, *lines: str) -> list:
        calls = []
        for line in lines:
            obs = parse_observation(f"{line}; {FIGS}", t_s=self.frame / 50, frame=self.frame)
            calls += self.hub.observe(obs)
            self.frame += 1
        self.signals.judged(calls)  # what the live runner does after each refereed batch
        return calls

    def press(self, pin: int) -> None:
        self.pins.pin(pin).drive_low()
        self.pins.pin(pin).drive_high()

    def led(self) -> bool:
        return self.pins.pin(17).state

    def beeps(self, n: int) -> int:
        """Beeps the buzzer sounded, once ``n`` of them have and it is quiet (or after 5 s)."""
        states = self.pins.pin(22).states
        deadline = time.monotonic() + 5.0
        while time.monotonic() < deadline:
            if sum(s.state for s in states) >= n and not states[-1].state:
                break
            time.sleep(0.01)
        time.sleep(0.05)  # none more after them
        return sum(s.state for s in states)


@pytest.fixture
def table(tmp_path):
    table = Table(tmp_path)
    yield table
    table.signals.close()
    table.hub.log.close()


def test_the_pause_button_starts_pauses_and_resumes_and_the_led_shows_the_clock(table):
    assert table.hub.match.hold == "not_started" and not table.led()
    table.press(27)  # start (FISTF 3.1: the referee starts the match)
    assert table.hub.match.hold is None
    table.play(*[f"ball {x},0 moving" for x in range(-150, -100, 5)])
    assert table.led()  # the clock runs while the ball rolls
    table.press(27)  # pause (FISTF 3.2): the clock stands
    assert table.hub.match.hold == "paused" and not table.led()
    table.press(27)
    assert table.hub.match.hold is None
    table.play(*[f"ball {x},0 moving" for x in range(-100, -50, 5)])
    assert table.led()
    table.play(*["ball -50,0 rest"] * 5)
    assert not table.led()  # at rest: the ball-moving clock stands


def test_the_buzzer_sounds_three_beeps_on_a_goal_and_one_on_an_out(table):
    table.press(27)
    calls = table.play(  # home shoots from the shooting zone into the goal (FISTF 7.1)
        "ball 373,0 rest", "ball 373,0 rest; flick 8", "ball 500,0 moving", "ball 621,0 moving"
    )
    assert [c.kind for c in calls] == ["goal"]
    assert table.beeps(3) == 3
    calls = table.play(  # later the ball goes over a touchline (FISTF 14.1)
        "ball 0,0 rest", "ball 0,0 rest; flick 9", "ball -100,390 moving", "ball -100,420 moving"
    )
    assert "ball_out" in [c.kind for c in calls]
    assert table.beeps(4) == 4


def test_the_shot_button_is_logged_and_passed_on_with_the_clock(table, caplog):
    table.press(27)
    table.play(*[f"ball {x},0 moving" for x in range(-150, -100, 5)])
    with caplog.at_level(logging.WARNING):
        table.press(23)
    assert table.shots == [pytest.approx(table.hub.match.clock.elapsed_s)] and table.shots[0] > 0
    assert "shot called at the table" in caplog.text
    assert table.signals.shots_called == 1


def test_in_button_football_the_shot_button_calls_the_shot_of_the_team_on_turn(tmp_path):
    """BF Angesagte Schüsse: the push button at the table is the call of the team whose turn
    it is, judged by the rules where the ball lies (here wholly in the away half)."""
    hub = MatchHub(MatchLog(tmp_path / "match.sqlite", table="button-football"))
    pins = fresh_pins()
    signals = LiveSignals(hub, PINS, pin_factory=pins)
    try:
        pins.pin(27).drive_low()  # the pause button starts the match
        pins.pin(27).drive_high()
        pins.pin(23).drive_low()  # no turn seen yet: whose shot? nothing is called
        pins.pin(23).drive_high()
        assert hub.calls == []
        lines = ["ball 300,0 rest", "ball 300,0 rest; flick 8", "ball 330,0 moving"]
        lines += ["ball 360,0 rest"] * 3
        for frame, line in enumerate(lines):
            hub.observe(parse_observation(f"{line}; {FIGS}", t_s=frame / 50, frame=frame))
        pins.pin(23).drive_low()
        pins.pin(23).drive_high()
        shot = hub.calls[-1].record
        assert (shot["kind"], shot["team"], shot["note"]) == ("shot_called", "home", "called")
        assert signals.shots_called == 2
    finally:
        signals.close()
        hub.log.close()


class BrokenPin(MockPin):
    """A pin whose driver fails once the match is on (a loose header, a dead driver)."""

    broken = False

    def _set_state(self, value):
        if BrokenPin.broken:
            raise OSError(5, "Input/output error")
        super()._set_state(value)


def test_a_gpio_that_breaks_mid_match_goes_dark_and_refereeing_goes_on(tmp_path, caplog):
    table = Table(tmp_path, fresh_pins(pin_class=BrokenPin))
    table.press(27)
    BrokenPin.broken = True
    try:
        with caplog.at_level(logging.WARNING):
            table.play(*[f"ball {x},0 moving" for x in range(-150, -100, 5)])
            calls = table.play(
                "ball 373,0 rest",
                "ball 373,0 rest; flick 8",
                "ball 500,0 moving",
                "ball 621,0 moving",
            )
    finally:
        BrokenPin.broken = False
    assert [c.kind for c in calls] == ["goal"] and table.hub.match.score == (1, 0)
    assert not table.signals.working
    assert caplog.text.count("signals at the table are off: GPIO failed") == 1
    table.signals.close()
    table.hub.log.close()


def test_pins_that_cannot_be_claimed_leave_the_match_without_signals(tmp_path, caplog):
    factory = fresh_pins()
    from gpiozero import LED

    held = LED(27, pin_factory=factory)  # another program holds the button's pin
    with caplog.at_level(logging.WARNING):
        table = Table(tmp_path, factory)
    assert not table.signals.working and "signals at the table are off" in caplog.text
    table.play("ball 0,0 rest")  # nothing to light, nothing fails
    held.close()
    table.hub.log.close()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[signals]\nclock_led = 17\nbuzzer = 17\n", "each signal needs a pin of its own"),
        ("[signals]\nled = 17\n", "unknown keys \\['led'\\]"),
        ("[camera]\nmains_hz = '50'\n", "expected a whole number, got '50'"),
        ("[gpio]\n", "unknown keys \\['gpio'\\]"),
        ("[camera\n", "is not a TOML file"),
    ],
)
def test_a_bad_config_is_a_one_line_error(tmp_path, text, message):
    path = tmp_path / "tablevar.toml"
    path.write_text(text, "utf-8")
    with pytest.raises(LiveError, match=message):
        read_live_config(path)


def test_the_config_sets_the_camera_and_only_the_signals_wired(tmp_path):
    path = tmp_path / "tablevar.toml"
    path.write_text(
        '[camera]\ncamera = "gs"\nmains_hz = 60\nformat = "YUV420"\n'
        "[signals]\nclock_led = 5\nshot_button = 6\n",
        "utf-8",
    )
    config = read_live_config(path)
    assert (config.camera.camera, config.camera.mains_hz, config.camera.fmt) == ("gs", 60, "YUV420")
    assert config.signals == SignalPins(clock_led=5, buzzer=None, pause_button=None, shot_button=6)
    assert read_live_config(tmp_path / "tablevar.toml").camera.size_px is None
    path.write_text("", "utf-8")
    assert read_live_config(path).signals is None  # no [signals]: no GPIO used
