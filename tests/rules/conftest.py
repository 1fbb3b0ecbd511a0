"""Shared fixtures for the rules tests: the shipped FISTF pitch."""

from __future__ import annotations

import pytest

from calibration.tables import load_pitch
from rules.pitch import Pitch


class NotationFeed:
    """Feeds notation lines (each with the class's ``figs``) through ``step`` at 50 fps and
    keeps every call."""

    figs = ""

    def __init__(self, state):
        self.state, self.calls, self.frame = state, [], 0

    def __call__(self, *lines: str) -> list:
        from rules.fistf import step
        from rules.notation import parse_observation

        new = []
        for line in lines:
            text = f"{line}; {self.figs}"
            obs = parse_observation(text, t_s=self.frame / 50, frame=self.frame)
            self.state, calls = step(self.state, obs)
            new += calls
            self.frame += 1
        self.calls += new
        return new


@pytest.fixture(scope="session")
def fistf_pitch() -> Pitch:
    """The nominal FISTF pitch: 1200 x 750 mm, 3 mm lines, ball 21 mm, bases 24 mm."""
    return load_pitch("fistf")


@pytest.fixture
def run(fistf_pitch):
    """Feed notation lines through ``step``; returns ``(state, calls)``.

    By default the ball is in play with ``possession`` (home) known and the clock started, so a
    case needs no kick-off; pass ``state=`` to continue a match or ``in_play=False`` for a fresh
    one (as ``MatchConfig.start`` finds it: picked up in play unless ``start="kick_off"``).
    A case in play also knows its ends: the kit written ``home`` is home (``home_kit=0``); a
    fresh match learns them (``rules.fistf_ends``). Extra keywords go to ``MatchConfig``.
    """
    from dataclasses import replace

    from rules import clock
    from rules.fistf import MatchConfig, MatchState, step
    from rules.notation import parse_sequence

    def run_lines(lines, state=None, in_play=True, possession=0, restart=None, **config):
        if state is None and in_play:
            config.setdefault("home_kit", 0)
        st = state or MatchState.new(MatchConfig(fistf_pitch, **config))
        if state is None and in_play:
            st = replace(
                st,
                restart=restart,
                possession=possession,
                clock=clock.start(st.clock),
                unseen_play=False,
            )
        calls = []
        for obs in parse_sequence(lines):
            st, new = step(st, obs)
            calls += new
        return st, calls

    return run_lines
