"""Which end each team defends, learnt from what is seen (``rules.fistf_ends``).

Vision tells the kits apart but not which goal each defends; in a clip picked up in play the kit
whose figures stand mostly in the left half (written ``home`` in the notation, as vision would
name it) may well attack the left goal. The calls name the teams by the ends (DESIGN.md 3):
``home`` defends ``MatchConfig.home_end`` (the left goal, x = -600, unless configured).

In ``MID`` the kit written ``home`` stands mostly in the left half but attacks the left goal:
its figures 7 and 8 are in the left shooting zone, kit ``away`` defends there with figure 9.
"""

from __future__ import annotations

import pytest

from rules.observation import AWAY, HOME

MID = (
    "home 1 gk -590,0; home 7 -500,-40; home 8 -325,45; home 6 -150,0; "
    "away 2 gk 590,0; away 9 -470,120; away 10 50,-100"
)
KO = "home 1 gk -590,0; home 7 -23,0; home 8 -40,100; away 2 gk 590,0; away 9 130,0"


def fresh(run, lines, **config):
    return run(lines, in_play=False, **config)


def decisive(calls):
    return [c for c in calls if c.kind not in ("close_call", "figure_placement", "distance")]


def shot_into_left_goal(figure: str, shot_x: float) -> list[str]:
    """Figure ``figure`` of kit ``home`` (at ``shot_x + 10``) shoots from ``shot_x`` into the
    left goal: the ball rolls wholly over the goal line between the posts."""
    figs = MID.replace("home 6 -150,0", f"home 6 {shot_x + 10},5") if figure == "6" else MID
    if figure == "7":
        figs = figs.replace("home 7 -500,-40", f"home 7 {shot_x + 12},-10")
    xs = [shot_x - 15, shot_x - 60, *range(int(shot_x) - 120, -560, -120), -560, -622]
    lines = [f"ball {shot_x},-10 rest; {figs}"]
    lines += [f"ball {xs[0]},-10 moving; {figs}; flick {figure}"]
    return lines + [f"ball {x},-10 moving; {figs}" for x in xs[1:]]


GOAL_CASES = [
    # id, shooter, ball at the shot, config, expected (kind, law, team, restart), score
    pytest.param(
        "7",
        -420.0,
        {},
        ("goal", "FISTF 7.1", "away", "kick_off"),
        (0, 1),
        id="FISTF 7.1/10 a shot from inside the left zone: the kit attacks left, named away",
    ),
    pytest.param(
        "6",
        -160.0,
        {},
        ("goal_disallowed", "FISTF 7.2", "home", "goal_kick"),
        (0, 0),
        id="FISTF 7.2 the same kit from outside the zone: no goal, goal kick to the defender",
    ),
    pytest.param(
        "7",
        -420.0,
        {"home_end": "right"},
        ("goal", "FISTF 7.1", "home", "kick_off"),
        (1, 0),
        id="FISTF 7.1 home configured at the right end: the kit attacking left is home",
    ),
    pytest.param(
        "7",
        -420.0,
        {"home_kit": HOME},
        ("goal", "FISTF 7.3", "away", "kick_off"),
        (0, 1),
        id="FISTF 7.3 the home kit configured: the shot into its own goal is an own goal",
    ),
]


@pytest.mark.parametrize(("shooter", "shot_x", "config", "expected", "score"), GOAL_CASES)
def test_a_goal_in_a_clip_picked_up_in_play_is_judged_with_the_ends_it_shows(
    run, shooter, shot_x, config, expected, score
):
    """FISTF 7.1/10: goals are scored by attackers. The kit written ``home`` shoots into the
    left goal: unless its ends are known, it attacks that goal, so the shot is judged as an
    attacker's (valid from inside the shooting zone, 7.1; not from outside, 7.2) and not as an
    own goal counted from anywhere (7.3)."""
    state, calls = fresh(run, shot_into_left_goal(shooter, shot_x), **config)
    (call,) = decisive(calls)
    rec = call.to_record()
    assert (rec["kind"], rec["law"], rec["team"], rec["restart"]) == expected
    assert not call.too_close_to_call
    assert state.score == score
    assert state.ends.settled


def test_an_offside_in_a_clip_with_the_kits_named_the_other_way_is_called(run):
    """FISTF 13.1: the kit written ``home`` passes forward inside the left shooting zone,
    toward the left goal; figure 7 stands nearer the goal line than the ball with only the
    keeper nearer (figure 9 is not). The pass makes sense only with that kit attacking left,
    so the ends flip before the offside is judged: a free kick to the team defending left
    (named home), against figure 7 (named away)."""
    lines = [
        f"ball -340,40 rest; {MID}",
        f"ball -350,39 moving; {MID}; flick 8",
        f"ball -365,37 moving; {MID}",
    ]
    state, calls = fresh(run, lines)
    (call,) = decisive(calls)
    rec = call.to_record()
    assert (rec["kind"], rec["law"], rec["team"], rec["restart"]) == (
        "offside",
        "FISTF 13.1",
        "home",
        "free_kick",
    )
    assert rec["figure"]["id"] == 7 and rec["figure"]["team"] == "away"
    assert rec["margin_mm"] > rec["uncertainty_mm"]
    assert state.ends.home_kit == AWAY and not state.ends.settled  # one play: weighed, not settled


@pytest.mark.parametrize(
    ("pass_to", "flipped"),
    [
        pytest.param("-365,37", True, id="FISTF 13.1 forward toward the goal: an attacker's play"),
        pytest.param("-345,70", False, id="across the zone: says nothing of the ends"),
        pytest.param("-320,40", False, id="away from the goal: says nothing of the ends"),
    ],
)
def test_only_a_play_toward_the_goal_from_its_zone_is_evidence(run, pass_to, flipped):
    """A flick from inside a shooting zone toward that zone's goal is an attacker's play on it
    (13.1); a pass across the zone or back out of it could be either team's."""
    lines = [f"ball -340,40 rest; {MID}", f"ball -342,40 moving; {MID}; flick 8"]
    lines += [f"ball {pass_to} moving; {MID}"]
    state, _ = fresh(run, lines)
    assert (state.ends.home_kit == AWAY) == flipped


def test_a_kick_off_line_up_settles_the_ends_and_a_later_own_goal_stays_one(run):
    """FISTF 4.2.1: at a kick-off each team stands in its own half, which settles the ends; a
    later shot by the home kit into its own (left) goal from inside its own shooting zone is
    then an own goal (7.3) for away, not a reason to rename the teams."""
    after = "home 1 gk -590,0; home 5 -410,0; away 2 gk 590,0; away 9 -200,100"
    lines = [f"ball 0,0 rest; {KO}", f"ball 0,0 rest; {KO}; flick 7", f"ball 20,0 moving; {KO}"]
    lines += [f"ball 40,0 rest; {KO}", f"ball -420,0 rest; {after}"]
    lines += [f"ball -435,0 moving; {after}; flick 5"]
    lines += [f"ball {x},0 moving; {after}" for x in (-480, -540, -590, -622)]
    state, calls = fresh(run, lines)
    assert state.ends.basis == "kick_off" and state.ends.home_kit == HOME
    (call,) = decisive(calls)
    rec = call.to_record()
    assert (rec["kind"], rec["law"], rec["team"]) == ("goal", "FISTF 7.3", "away")
    assert state.score == (0, 1)


def test_a_kick_off_line_up_with_the_kits_the_other_way_names_them_by_their_halves(run):
    """FISTF 4.2.1: the kit lined up in the right half defends the right goal, whichever way
    the figures' spread first suggested: its kick-off goes forward toward the left goal."""
    swapped = KO.replace("home 7 -23,0", "home 7 23,0").replace("home 8 -40,100", "home 8 40,100")
    swapped = swapped.replace("away 9 130,0", "away 9 -130,0")
    lines = [f"ball 0,0 rest; {swapped}", f"ball 0,0 rest; {swapped}; flick 7"]
    lines += [f"ball -20,0 moving; {swapped}"]
    state, calls = fresh(run, lines)
    assert state.ends.basis == "kick_off" and state.ends.home_kit == AWAY
    assert decisive(calls) == []  # 4.2.3 forward for the kit attacking left
    assert state.possession == AWAY  # the kit written home, named away


def test_calls_before_the_ends_settle_keep_their_names(run):
    """Calls are not rewritten: a play judged before the ends flip keeps the names of the
    belief at the time; after the flip the same kit carries the other name."""
    lines = [f"ball -340,40 rest; {MID}", f"ball -342,45 moving; {MID}; flick 8"]
    lines += [f"ball -342,120 moving; {MID}", f"ball -342,300 moving; {MID}"]
    lines += [f"ball -342,396 moving; {MID}"]
    state, calls = fresh(run, lines)
    (out,) = decisive(calls)
    assert (out.kind, out.to_record()["team"]) == ("ball_out", "away")  # 14.1: kit home touched
    assert not state.ends.settled and state.ends.home_kit == HOME
