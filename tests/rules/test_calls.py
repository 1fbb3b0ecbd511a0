"""Calls: the calls.jsonl record of DESIGN.md section 4, and the too-close-to-call test."""

from __future__ import annotations

import json

import pytest

from rules.calls import RECORD_KEYS, Call, FigureRef, is_too_close, margin_note
from rules.observation import AWAY, HOME


def test_record_has_exactly_the_contract_keys():
    call = Call(
        frame=120,
        t_s=2.4,
        kind="offside",
        law="FISTF 13.1",
        line=None,
        margin_mm=3.25,
        uncertainty_mm=1.0,
        team=HOME,
        restart="free_kick",
        position=(410.0, -12.5),
        figure=FigureRef(9, AWAY, 410.0, -12.5),
    )
    rec = call.to_record()
    assert tuple(rec) == RECORD_KEYS
    assert rec["team"] == "home" and rec["restart"] == "free_kick"
    assert rec["position"] == {"x_mm": 410.0, "y_mm": -12.5}
    assert rec["figure"] == {"id": 9, "team": "away", "x_mm": 410.0, "y_mm": -12.5}
    assert rec["evidence"] is None
    assert json.loads(json.dumps(rec)) == rec


def test_record_nulls():
    rec = Call(5, 0.1, "half_time", "FISTF 3.1").to_record()
    assert [rec[k] for k in ("line", "fully_crossed", "team", "restart", "position", "figure")] == [
        None
    ] * 6


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [({"kind": "yellow_card"}, "call kind 'yellow_card'"), ({"restart": "scrum"}, "restart")],
)
def test_unknown_kind_or_restart(kwargs, message):
    base = {"frame": 0, "t_s": 0.0, "kind": "ball_out", "law": "FISTF 14.1"}
    with pytest.raises(ValueError, match=message):
        Call(**{**base, **kwargs})


@pytest.mark.parametrize(
    ("margin", "unc", "close", "note"),
    [
        pytest.param(-0.4, 0.3, False, "IN by 0.4 mm", id="guideline: confident IN by 0.4"),
        pytest.param(0.4, 0.3, False, "OUT by 0.4 mm", id="guideline: confident OUT by 0.4"),
        pytest.param(
            0.2, 0.3, True, "OUT by 0.2 mm (too close to call)", id="guideline: within the bound"
        ),
        pytest.param(-0.3, 0.3, True, "IN by 0.3 mm (too close to call)", id="guideline: at bound"),
    ],
)
def test_too_close(margin, unc, close, note):
    assert is_too_close(margin, unc) == close
    assert margin_note(margin, unc) == note
