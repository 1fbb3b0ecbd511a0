"""Observation containers: shapes, teams and contacts are checked on creation."""

from __future__ import annotations

import numpy as np
import pytest

from rules.observation import (
    AWAY,
    HOME,
    Contact,
    Figures,
    Observation,
    ObservationError,
    team_code,
    team_name,
)


def test_empty_containers():
    assert len(Figures.empty()) == 0
    obs = Observation.empty(t_s=1.5, frame=3)
    assert (obs.t_s, obs.frame, obs.ball_seen, obs.contacts) == (1.5, 3, False, ())
    assert len(obs.figures) == 0


def test_build_accepts_team_names_and_one_radius():
    f = Figures.build([1, 7], ["home", "away"], [True, False], [(-580, 0), (250, 30)], 12.0)
    assert f.team.tolist() == [HOME, AWAY]
    assert f.radius_mm.tolist() == [12.0, 12.0]
    assert f.index_of(7) == 1 and f.index_of(99) is None


@pytest.mark.parametrize(
    ("make", "message"),
    [
        pytest.param(
            lambda: Figures.build([1, 1], [0, 1], [0, 0], [(0, 0), (1, 1)], 12),
            "unique",
            id="duplicate ids",
        ),
        pytest.param(lambda: team_code("visitors"), "unknown team 'visitors'", id="bad team name"),
        pytest.param(lambda: team_code(2), "unknown team 2", id="bad team int"),
        pytest.param(
            lambda: Figures(
                np.zeros(2, np.int64),
                np.zeros(2, np.int8),
                np.zeros(2, bool),
                np.zeros((3, 2)),
                np.zeros(2),
            ),
            "xy_mm: expected shape (2, 2), got (3, 2)",
            id="shape mismatch",
        ),
        pytest.param(lambda: Contact(1, "kick", 0), "contact kind 'kick'", id="bad contact kind"),
        pytest.param(lambda: Contact(1, "miss", 0, target_id=2), "miss", id="miss with target"),
        pytest.param(
            lambda: Observation(0.0, 0, (0, 0), 10.5, contacts=(Contact(5, "flick", 0),)),
            "figure 5, not seen",
            id="contact names an unseen figure",
        ),
        pytest.param(lambda: Observation(0.0, 0, (0, 0), 0.0), "ball_radius_mm", id="zero radius"),
        pytest.param(
            lambda: Observation(0.0, 0, (0, 0), 10.5, ball_switch_before_s=-0.01),
            "ball_switch_before_s must be >= 0 s",
            id="switch after the frame",
        ),
    ],
)
def test_errors_say_what_is_wrong(make, message):
    with pytest.raises(ObservationError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make()


def test_team_name_round_trip():
    assert [team_name(team_code(t)) for t in ("home", "away", 0, 1)] == [
        "home",
        "away",
        "home",
        "away",
    ]
