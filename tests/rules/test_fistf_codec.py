"""Match state snapshots (``rules.fistf_codec``): JSON and back to the identical state, so a
match log rebuilds the reducer exactly (DESIGN.md 8)."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest

from rules.fistf import MatchConfig, MatchState, step
from rules.fistf_codec import SnapshotError, StateEncoder, state_from_json, state_to_json
from rules.notation import parse_observation
from rules.referee import RefereeAction, apply

FIGS = "home 1 gk -605,0; home 7 -23,0; home 8 100,20; away 2 gk 605,0; away 9 60,-100"


def played(pitch) -> list[MatchState]:
    """A match through a flick (a pending play holding its figures), a pause and an overrule."""
    config = MatchConfig(pitch, home_kit=0)
    state = MatchState.new(config)
    state = replace(
        state, restart=None, unseen_play=False, clock=replace(state.clock, started=True)
    )
    states = []
    lines = ["ball 100,0 rest", "ball 100,0 rest; flick 8", "ball 120,1.5 moving"]
    lines += [f"ball {130 + 7 * i},2 moving" for i in range(8)]
    for i, line in enumerate(lines):
        state, _ = step(state, parse_observation(f"{line}; {FIGS}", t_s=i / 30, frame=i))
        states.append(state)
    state, _ = apply(state, RefereeAction("pause"))
    state, _ = apply(state, RefereeAction("added_time", seconds=12.5))
    states.append(replace(state, overruled=frozenset({3, 1}), noticed=frozenset({(7, "x")})))
    return states


def test_every_state_comes_back_identical(fistf_pitch):
    encoder = StateEncoder()
    states = played(fistf_pitch)
    assert any(s.pending_play is not None for s in states)
    for state in states:
        data = json.loads(json.dumps(encoder(state)))
        assert data == json.loads(json.dumps(state_to_json(state)))
        back = state_from_json(data, state.config)
        assert repr(back) == repr(state)  # floats, tuples, sets and arrays exactly
        if state.pending_play is not None:
            figs = back.pending_play.figures
            assert figs.team.dtype == np.int8 and figs.xy_mm.shape == (len(figs), 2)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: {**d, "schema_version": 99}, "version 99"),
        (lambda d: {**d, "state": {**d["state"], "ball": {"_": "os.system"}}}, "unknown class"),
        (lambda d: {**d, "state": {**d["state"], "colour": 1}}, "not a match state"),
    ],
)
def test_snapshots_that_do_not_fit_are_refused(fistf_pitch, change, message):
    state = played(fistf_pitch)[-1]
    with pytest.raises(SnapshotError, match=message):
        state_from_json(change(state_to_json(state)), state.config)
