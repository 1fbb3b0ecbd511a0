"""Button football through step(): each case cites the section of button-football-rules.de.txt
it checks ("BF <section>"). Frames are one-line notations (``rules.notation``) at 50 fps; home
(kit 0) defends the left goal, attacks +x."""

from __future__ import annotations

import pytest

from rules.button_football import step
from rules.button_state import LAWS, ButtonConfig, ButtonState, ShotCall
from rules.games import game
from rules.notation import parse_observation
from rules.observation import AWAY, HOME, team_code

FIGS = (
    "home 1 gk -590,0; home 2 -300,0; home 3 -100,60; home 4 -200,-100; "
    "away 11 gk 590,0; away 12 300,0; away 13 100,-60; away 14 200,100"
)


class Feed:
    """Feeds notation lines (each with ``figs``) through ``step`` at 50 fps; ``CALL home``
    is a shot call made on the current frame."""

    def __init__(self, pitch, figs: str = FIGS, **config):
        self.state = ButtonState.new(ButtonConfig(pitch, **config))
        self.figs, self.frame, self.calls = figs, 0, []

    def __call__(self, *lines: str) -> list:
        new = []
        for line in lines:
            if line.startswith("CALL "):
                item = ShotCall(team_code(line[5:]), self.frame, self.frame / 50)
            else:
                text = f"{line}; {self.figs}" if self.figs else line
                item = parse_observation(text, t_s=self.frame / 50, frame=self.frame)
                self.frame += 1
            self.state, calls = step(self.state, item)
            new += calls
        self.calls += new
        return new

    def roll(self, a: tuple[float, float], b: tuple[float, float], n: int = 10, first: str = ""):
        """The ball rolls from ``a`` to ``b`` over ``n`` frames (``first`` added to the first
        frame, e.g. its flick) and comes to rest at ``b``."""
        lines = []
        for i in range(n):
            x = a[0] + (b[0] - a[0]) * i / n
            y = a[1] + (b[1] - a[1]) * i / n
            lines.append(
                f"ball {x:.1f},{y:.1f} moving" + (f"; {first}" if i == 0 and first else "")
            )
        lines.append(f"ball {b[0]:.1f},{b[1]:.1f} rest")
        return self(*lines)


def kinds(calls) -> list[tuple]:
    return [(c.kind, c.team, c.restart) for c in calls]


@pytest.fixture
def feed(fistf_pitch):
    return lambda **kw: Feed(fistf_pitch, **kw)


def test_the_game_is_registered(fistf_pitch):
    g = game("button-football")
    assert g.step is step and g.clock.half_length_s == 60.0 and g.clock.mode == "ball-moving"
    assert isinstance(g.new_match(fistf_pitch), ButtonState)


# --- BF Das Spiel --------------------------------------------------------------------------


def test_clock_runs_only_while_the_ball_rolls(feed):
    """BF Das Spiel: 'die Uhr läuft nur, solange der Ball rollt'."""
    f = feed()
    f("ball 0,0 rest")
    f.roll((0, 0), (100, 0), n=50, first="flick 3")
    f(*["ball 100,0 rest"] * 50)
    assert f.state.clock.elapsed_s == pytest.approx(1.0, abs=0.021)


def test_half_ends_at_the_next_ball_out_once_time_is_up(feed):
    """BF Das Spiel: 'endet die Halbzeit, sobald der Ball das nächste Mal ins Aus geht'."""
    f = feed(half_length_s=0.5, start="kick_off", first_kick_off=HOME)
    f("ball 0,0 rest", "ball 0,0 rest; flick 3")
    f.roll((0, 0), (0, 300), n=40)  # 0.8 s of rolling: time is up, still in play
    assert not [c for c in f.calls if c.kind == "half_time"]
    calls = f("ball 0,300 moving; flick 3", "ball 0,360 moving", "ball 0,390 moving")
    assert kinds(calls)[-2:] == [("ball_out", AWAY, "throw_in"), ("half_time", AWAY, "kick_off")]
    assert f.state.clock.period == 2 and f.state.restart.kind == "kick_off"


def test_the_clock_stops_when_the_ball_crossed_not_at_the_frame(feed):
    """BF Das Spiel: the clock runs while the ball rolls in play; play stopped the moment the
    ball was wholly over the line, between two frames."""
    f = feed()
    f("ball 0,300 rest", "ball 0,300 moving; flick 3")
    f(*[f"ball 0,{y} moving" for y in range(310, 390, 10)])  # last: 380, 5.5 mm short
    before = f.state.clock.elapsed_s
    calls = f("ball 0,390 moving")  # 4.5 mm over: it crossed 0.45 of the frame ago
    assert kinds(calls) == [("ball_out", AWAY, "throw_in")]
    assert f.state.clock.elapsed_s - before == pytest.approx(0.02 * 5.5 / 10, abs=1e-9)


def test_a_roll_slowing_to_rest_over_the_line_stops_the_clock_when_it_crossed(feed):
    """BF Das Spiel: 'die Uhr läuft nur, solange der Ball rollt' (in play). A roll slowing at
    500 mm/s² comes to rest 3 mm over the touchline, within its 4 mm uncertainty: decided only
    once at rest (its stop seen 0.1 s late), yet the clock stops when it crossed, between the
    sightings on either side of the crossing (a straight line from the last sighting surely
    inside would date it 0.1 s late)."""
    f = feed()
    decel, y0, y_rest = 500.0, 250.0, 375.0 + 10.5 + 3.0  # far edge at 375, ball radius 10.5
    v0 = (2 * decel * (y_rest - y0)) ** 0.5
    stop_s = v0 / decel
    crossed_s = (v0 - (v0**2 - 2 * decel * (385.5 - y0)) ** 0.5) / decel
    f("ball 0,250 rest unc=4")
    lines = []
    for k in range(1, int((stop_s + 0.1) * 50) + 1):  # the flick at frame 0; 0.1 s to see it stop
        t = min(k / 50, stop_s)
        y = y0 + v0 * t - decel * t * t / 2
        lines.append(f"ball 0,{y:.3f} moving unc=4" + ("; flick 3" if k == 1 else ""))
    f(*lines)
    assert f.state.restart is None  # rolling, within its uncertainty of the line
    calls = f(f"ball 0,{y_rest} rest unc=4")
    assert kinds(calls) == [("ball_out", AWAY, "throw_in")]
    assert f.state.clock.elapsed_s == pytest.approx(crossed_s, abs=0.021)


# --- BF Anstoß -----------------------------------------------------------------------------


def test_after_a_goal_the_conceding_team_kicks_off(feed):
    """BF Anstoß: 'nach einem Tor stößt das Team an, das es kassiert hat'."""
    f = feed()
    f("ball 400,0 rest", "CALL home")
    calls = f.roll((400, 0), (640, 0), n=10, first="flick 3")
    assert kinds(calls)[0] == ("goal", HOME, "kick_off")
    assert f.state.restart.team == AWAY and f.state.score == (1, 0)


@pytest.mark.parametrize(
    ("moves", "faults"),
    [
        pytest.param({2: "-250,50", 4: "-150,-50"}, [], id="BF Anstoß two buttons moved"),
        pytest.param(
            {2: "-250,50", 4: "-150,-50", 3: "-80,0"},
            ["home moved 3 buttons, 2 allowed"],
            id="BF Anstoß three buttons moved",
        ),
        pytest.param(
            {2: "50,50"}, ["a button moved out of its own half"], id="BF Anstoß into the other half"
        ),
    ],
)
def test_kick_off_allows_two_buttons_in_the_own_half(feed, moves, faults):
    """BF Anstoß: 'bis zu zwei Knöpfe beliebig in der eigenen Hälfte versetzen'."""
    f = feed(start="kick_off", first_kick_off=HOME)
    f("ball 0,0 rest")
    figs = f.figs
    for fid, xy in moves.items():
        figs = figs.replace(
            next(p for p in figs.split("; ") if p.startswith(f"home {fid} ")), f"home {fid} {xy}"
        )
    f.figs = figs
    f("ball 0,0 rest")
    calls = f("ball 0,0 rest; flick 3", "ball 5,0 moving")
    assert [c.note for c in calls if c.kind == "set_piece_fault"] == faults
    assert all(c.law == LAWS["kick_off"] for c in calls)


# --- BF Dein Zug ---------------------------------------------------------------------------


@pytest.mark.parametrize(("flicks", "turnover"), [(6, False), (7, True)])
def test_seven_ball_contacts_per_turn(feed, flicks, turnover):
    """BF Dein Zug: 'Du hast pro Zug sieben Ballkontakte'."""
    f = feed()
    f("ball -100,0 rest")
    x = -100.0
    for _ in range(flicks):
        f.roll((x, 0), (x + 20, 0), n=3, first="flick 3")
        x += 20
    over = [c for c in f.calls if c.kind == "turnover"]
    assert bool(over) == turnover
    if turnover:
        assert (over[0].team, over[0].law) == (AWAY, LAWS["turn"]) and f.state.turn == AWAY


def test_a_flick_that_misses_passes_the_turn(feed):
    """BF Dein Zug: 'Verfehlt ein Schnipser den Ball, geht der Zug an deinen Gegner'."""
    f = feed()
    f("ball -100,0 rest")
    f.roll((-100, 0), (-80, 0), n=3, first="flick 3")
    calls = f("ball -80,0 rest; miss 2")
    assert kinds(calls) == [("turnover", AWAY, None)] and f.state.turn == AWAY


# --- BF Angesagte Schüsse ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ball", "call", "expected"),
    [
        pytest.param(400, True, ("goal", HOME, "kick_off"), id="BF Angesagte Schüsse called"),
        pytest.param(
            400, False, ("goal_disallowed", AWAY, "goal_kick"), id="BF Angesagte Schüsse uncalled"
        ),
        pytest.param(
            -20, True, ("goal_disallowed", AWAY, "goal_kick"), id="BF called in the own half"
        ),
    ],
)
def test_only_called_shots_score(feed, ball, call, expected):
    """BF Angesagte Schüsse: 'Nur angesagte Tore zählen: Sag deinen Schuss in der gegnerischen
    Hälfte an'; 'Ein nicht angesagtes Tor gibt Abstoß für die Verteidiger'."""
    f = feed()
    f(f"ball {ball},0 rest")
    if call:
        said = f("CALL home")
        assert said[0].kind == "shot_called" and said[0].fully_crossed == (ball > 0)
    calls = f.roll((ball, 0), (660, 0), n=14, first="flick 3")
    assert kinds(calls) == [expected]  # once, though the ball rolls on into the net
    assert f.state.score == ((1, 0) if expected[0] == "goal" else (0, 0))


def test_a_called_shot_covers_one_flick(feed):
    """BF Angesagte Schüsse: the call is for the shot that follows it, not for later flicks."""
    f = feed()
    f("ball 300,0 rest", "CALL home")
    f("ball 300,0 moving; flick 3", "ball 310,0 moving")  # the called shot, still rolling
    calls = f.roll((320, 0), (660, 0), n=14, first="flick 2")  # a second flick scores
    assert kinds(calls) == [("goal_disallowed", AWAY, "goal_kick")]


def test_a_shot_call_out_of_turn_is_refused(feed):
    """BF Angesagte Schüsse: the call is the shooting team's, in its turn."""
    f = feed()
    f("ball 200,0 rest")
    f.roll((200, 0), (250, 0), n=3, first="flick 3")
    said = f("CALL away")
    assert said[0].note == "refused: it is home's turn" and f.state.called is None


def test_a_corner_scored_directly_counts(feed):
    """BF Angesagte Schüsse: '– außer bei einer direkt verwandelten Ecke, dem olympischen Tor'."""
    f = feed()
    f("ball 560,0 rest")
    f.roll((560, 0), (560, 200), n=5, first="flick 12")  # away plays it over its own line
    f("ball 560,200 moving", "ball 600,300 moving", "ball 630,340 moving")
    assert f.state.restart.kind == "corner" and f.state.restart.team == HOME
    cx, cy = f.state.restart.xy_mm
    f(f"ball {cx},{cy} rest", f"ball {cx},{cy} moving; flick 4")
    calls = f(
        "ball 585,200 moving", "ball 585,60 moving", "ball 600,20 moving", "ball 625,15 moving"
    )
    assert kinds(calls)[0] == ("goal", HOME, "kick_off") and calls[0].law == LAWS["corner"]


@pytest.mark.parametrize(("last", "turnover"), [("hit 13", True), ("hit 2", False)])
def test_a_called_shot_kept_in_play_goes_over(feed, last, turnover):
    """BF Angesagte Schüsse: 'Bleibt ein angesagter Schuss im Spiel, geht der Ball an deinen
    Gegner, es sei denn, ein Mitspieler hat ihn zuletzt berührt'."""
    f = feed()
    f("ball 100,0 rest", "CALL home")
    f("ball 100,0 moving; flick 3", "ball 150,0 moving", f"ball 200,0 moving; {last}")
    calls = f("ball 220,0 moving", "ball 230,0 rest")
    assert bool([c for c in calls if c.kind == "turnover"]) == turnover
    assert f.state.turn == (AWAY if turnover else HOME)


# --- BF Fouls / BF Elfmeter / BF Torwartball ----------------------------------------------


@pytest.mark.parametrize(
    ("target", "restart", "law"),
    [
        pytest.param(13, "free_kick", LAWS["foul"], id="BF Fouls free kick at the foul"),
        pytest.param(11, "goal_kick", LAWS["keeper_ball"], id="BF Torwartball foul on keeper"),
    ],
)
def test_hitting_an_opponent_before_the_ball_is_a_foul(feed, target, restart, law):
    """BF Fouls: 'Wer einen gegnerischen Knopf oder Torwart vor dem Ball trifft, begeht ein
    Foul'; 'an der Stelle des Fouls einen Freistoß'."""
    f = feed()
    f("ball 0,0 rest")
    calls = f(f"ball 0,0 rest; flick 3>{target}")
    assert kinds(calls) == [("foul", AWAY, restart)]
    assert f.state.restart.law == law and calls[0].figure.id == 3
    target_xy = {13: (100.0, -60.0), 11: (590.0, 0.0)}[target]
    assert f.state.restart.xy_mm == target_xy


def test_an_opponent_hit_after_the_ball_is_no_foul(feed):
    """BF Fouls: only 'vor dem Ball'."""
    f = feed()
    f("ball 0,0 rest")
    calls = f("ball 0,0 moving; flick 3@1", "ball 10,0 moving; flick 3>13@1")
    assert calls == []


def test_the_fouling_team_moves_no_button(feed):
    """BF Fouls: 'das foulende Team versetzt keinen Knopf'."""
    f = feed()
    f("ball 0,0 rest", "ball 0,0 rest; flick 3>13")
    f.figs = f.figs.replace("home 4 -200,-100", "home 4 -150,-100")
    calls = f("ball 100,-60 rest", "ball 100,-60 rest; flick 13")
    assert [c.note for c in calls] == ["home moved 1 buttons, 0 allowed"]


def test_a_foul_in_the_penalty_area_gives_a_penalty(feed):
    """BF Elfmeter: 'Ein Foul im Strafraum gibt Elfmeter: einen angesagten Schuss vom Punkt'."""
    figs = FIGS.replace("away 12 300,0", "away 12 500,40")
    f = feed(figs=figs)
    f("ball 450,0 rest")
    calls = f("ball 450,0 rest; flick 12>3")  # home 3 stands at -100,60: outside the area
    assert kinds(calls) == [("foul", HOME, "free_kick")]
    f2 = Feed(f.state.config.pitch, figs=figs.replace("home 3 -100,60", "home 3 480,60"))
    f2("ball 450,0 rest")
    calls = f2("ball 450,0 rest; flick 12>3")
    assert kinds(calls) == [("foul", HOME, "penalty")]
    assert f2.state.restart.xy_mm == (475.0, 0.0)
    # the penalty is a called shot: straight in, it counts
    calls = f2.roll((475, 0), (640, 0), n=10, first="flick 3")
    assert kinds(calls)[1] == ("goal", HOME, "kick_off")  # the notice of button 12 first
    assert calls[0].kind == "set_piece_fault" and calls[0].figure.id == 12


def test_a_ball_resting_in_a_goal_area_is_the_keepers(feed):
    """BF Torwartball: 'Bleibt ein Ball in einem Torraum liegen, gehört er dessen Torwart ...
    von dort ab, wo er liegt'."""
    f = feed()
    f("ball 400,0 rest")
    calls = f.roll((400, 0), (560, 20), n=8, first="flick 3")
    assert kinds(calls) == [("turnover", AWAY, "goal_kick")]
    assert f.state.restart.xy_mm == (560.0, 20.0) and calls[0].law == LAWS["keeper_ball"]


@pytest.mark.parametrize(
    ("x", "unc", "expected"),
    [
        pytest.param(530.0, 0.3, [], id="BF Torwartball 4 mm outside: play on"),
        pytest.param(536.3, 0.3, [("close_call", None, None, True)], id="0.2 mm outside"),
        pytest.param(536.7, 0.3, [("turnover", AWAY, "goal_kick", True)], id="0.2 mm inside"),
        pytest.param(540.0, 0.3, [("turnover", AWAY, "goal_kick", False)], id="3.5 mm inside"),
    ],
)
def test_a_ball_resting_on_the_goal_area_line_is_too_close_to_call(feed, x, unc, expected):
    """BF Torwartball: 'Bleibt ein Ball in einem Torraum liegen ...': whether it lies in the
    area is measured like a line call (its centre beyond the line's edge, 3 mm wide, centred
    535 mm from the middle); within its uncertainty the referee decides."""
    f = feed()
    f("ball 400,-100 rest")
    rolling = [f"ball {400 + (x - 400) * i / 8:.1f},-100 moving" for i in range(8)]
    calls = f(rolling[0] + "; flick 3", *rolling[1:], f"ball {x},-100 rest unc={unc}")
    calls = [c for c in calls if c.kind in ("close_call", "turnover") and c.line != "goal_line"]
    found = [(c.kind, c.team, c.restart, c.too_close_to_call) for c in calls]
    assert found == expected
    for c in calls:
        assert c.line == "goal_area" and c.margin_mm == pytest.approx(x - 536.5, abs=1e-6)


# --- BF Ball im Aus / Ecken / Abstöße ------------------------------------------------------


@pytest.mark.parametrize(
    ("flicker", "to", "expected", "law"),
    [
        pytest.param(3, (100, 420), ("ball_out", AWAY, "throw_in"), "out", id="BF throw-in"),
        pytest.param(12, (640, 200), ("ball_out", HOME, "corner"), "corner", id="BF corner"),
        pytest.param(
            3, (640, 200), ("ball_out", AWAY, "goal_kick"), "goal_kick", id="BF goal kick"
        ),
    ],
)
def test_ball_out_by_last_touch(feed, flicker, to, expected, law):
    """BF Ball im Aus: 'Über die Seitenlinie gibt es Einwurf für die Gegenseite; über die
    Torauslinie Ecke oder Abstoß – je nachdem, wer den Ball zuletzt berührt hat'."""
    f = feed()
    f("ball 300,100 rest")
    calls = f.roll((300, 100), to, n=10, first=f"flick {flicker}")
    assert kinds(calls) == [expected] and calls[0].law == LAWS[law]
    if expected[2] == "throw_in":  # the ball robot puts it on the line where it crossed
        x, y = f.state.restart.xy_mm
        assert y == pytest.approx(375 - 3 - 10.5) and 100 < x < 300
    if expected[2] == "goal_kick":
        assert f.state.restart.allowance == (4, 0)


def test_corner_defenders_may_not_move_first(feed):
    """BF Ecken: 'Beide Teams versetzen bis zu drei Knöpfe, die Angreifer zuerst'."""
    f = feed()
    f("ball 500,300 rest")
    f.roll((500, 300), (640, 300), n=5, first="flick 14")
    assert f.state.restart.kind == "corner"
    f.figs = f.figs.replace("away 12 300,0", "away 12 400,0")  # the defenders first
    f("ball 588,361 rest")
    f.figs = f.figs.replace("home 3 -100,60", "home 3 450,60")
    calls = f("ball 588,361 rest", "ball 588,361 rest; flick 4", "ball 580,350 moving")
    assert [c.note for c in calls] == ["the defenders moved before the attackers"]


@pytest.mark.parametrize(("hit", "turn"), [(14, AWAY), (2, HOME)])
def test_a_goal_kick_hitting_a_team_button_keeps_the_ball(feed, hit, turn):
    """BF Abstöße: 'Trifft der Abschlag einen Knopf dieses Teams oder dessen Torwart, bekommt
    es den Ball'."""
    f = feed()
    f("ball 300,100 rest")
    f.roll((300, 100), (640, 200), n=10, first="flick 3")
    kx, ky = f.state.restart.xy_mm
    f(f"ball {kx},{ky} rest", f"ball {kx},{ky} moving", "ball 400,100 moving")
    f(f"ball 300,100 moving; hit {hit}", "ball 290,100 moving", "ball 285,100 rest")
    assert f.state.turn == turn


def test_a_goal_kick_is_not_taken_by_fetching_the_ball(feed):
    """BF Abstöße: the keeper kicks the goal kick from its goal area; a ball lifted from
    beyond the goal line to be placed there is not kicked, and is not out a second time."""
    f = feed()
    f("ball 300,100 rest")
    f.roll((300, 100), (640, 200), n=10, first="flick 3")
    assert f.state.restart.kind == "goal_kick"
    kx, ky = f.state.restart.xy_mm
    calls = f("ball 640,200 rest", "ball 640,200 moving", "ball 620,150 moving")
    calls += f(f"ball {kx},{ky} rest", f"ball {kx},{ky} rest")
    assert calls == [] and f.state.restart.kind == "goal_kick"
    f(f"ball {kx},{ky} moving", f"ball {kx - 40},{ky} moving")  # the keeper's kick
    assert f.state.restart is None and f.state.set_piece.kind == "goal_kick"


def test_a_throw_in_reaching_no_team_mate_goes_over(feed):
    """BF Ball im Aus: 'Ein Einwurf, der keinen Mitspieler erreicht, geht an die Gegenseite'."""
    f = feed()
    f("ball 100,300 rest")
    f.roll((100, 300), (100, 420), n=8, first="flick 3")
    x, y = f.state.restart.xy_mm
    calls = f.roll((x, y), (x, y - 50), n=5, first="flick 13")
    assert kinds(calls) == [("turnover", HOME, None)]


# --- BF Der Schütze ------------------------------------------------------------------------


@pytest.mark.parametrize(("between", "foul"), [("", True), ("hit 12", False)])
def test_the_taker_may_not_touch_again_before_a_team_mate(feed, between, foul):
    """BF Der Schütze: 'Nach Ecke, Freistoß oder Einwurf darf der Schütze den Ball erst wieder
    berühren, wenn ein Mitspieler ihn berührt hat'; 'gibt der Gegenseite einen Freistoß'."""
    f = feed()
    f("ball 100,300 rest")
    f.roll((100, 300), (100, 420), n=8, first="flick 3")  # throw-in for away
    x, y = f.state.restart.xy_mm
    f(f"ball {x},{y} rest; flick 13", f"ball {x},{y - 20} moving")
    if between:
        f(f"ball {x},{y - 30} moving; {between}")
    calls = f(f"ball {x},{y - 40} moving; flick 13@{f.frame}")
    assert bool([c for c in calls if c.kind == "foul"]) == foul
    if foul:
        assert kinds(calls) == [("foul", HOME, "free_kick")] and calls[0].law == LAWS["taker"]


# --- BF Elfmeterschießen -------------------------------------------------------------------


def _kick(f, fid, scored, team):
    end_x = 640 if team == HOME else -640
    sx, sy = f.state.restart.xy_mm
    return f.roll(
        (sx, sy), (end_x if scored else sx, 0 if scored else 250), n=8, first=f"flick {fid}"
    )


def _draw_to_shoot_out(feed):
    f = feed(half_length_s=0.1, start="kick_off", first_kick_off=HOME)
    f("ball 0,0 rest")
    for _ in range(2):
        f.roll((0, 0), (0, 420), n=10, first="flick 3")
        if f.state.shoot_out is None:
            f("ball 0,0 rest")
    assert f.state.shoot_out is not None and f.calls[-1].kind == "full_time"
    return f


def test_shoot_out_ends_when_one_cannot_catch_up(feed):
    """BF Elfmeterschießen: 'fünf Schüsse pro Team, abwechselnd ... Es endet, sobald ein Team
    nicht mehr aufholen kann'."""
    f = _draw_to_shoot_out(feed)
    home, away = [2, 3, 4], [12, 13, 14]
    for i in range(3):  # home scores three, away misses three: 3:0 with two left each
        _kick(f, home[i], True, HOME)
        _kick(f, away[i], False, AWAY)
    assert f.state.finished and f.calls[-1].team == HOME
    assert f.calls[-1].note.endswith("shoot-out 3:0, home wins")


def test_shoot_out_every_button_once_before_any_twice(feed):
    """BF Elfmeterschießen: 'jeder Knopf schießt einmal, bevor einer zum zweiten Mal antritt'."""
    f = _draw_to_shoot_out(feed)
    _kick(f, 2, True, HOME)
    _kick(f, 12, True, AWAY)
    calls = _kick(f, 2, True, HOME)
    assert calls[0].kind == "set_piece_fault" and calls[0].figure.id == 2


def test_shoot_out_sudden_death(feed):
    """BF Elfmeterschießen: 'steht es nach je fünf Schüssen noch unentschieden, geht es im
    Sudden Death weiter, Runde für Runde'."""
    f = _draw_to_shoot_out(feed)
    home, away = [2, 3, 4, 2, 3, 4], [12, 13, 14, 12, 13, 14]
    for i in range(5):
        _kick(f, home[i], True, HOME)
        _kick(f, away[i], True, AWAY)
    assert not f.state.finished
    _kick(f, home[5], False, HOME)
    assert not f.state.finished
    _kick(f, away[5], True, AWAY)
    assert f.state.finished and f.calls[-1].team == AWAY


@pytest.mark.parametrize(("between", "foul"), [("", True), ("hit 11", False)])
def test_the_penalty_taker_waits_for_the_keeper(feed, between, foul):
    """BF Der Schütze: 'nach einem Elfmeter erst, wenn der Torwart ihn berührt hat'."""
    figs = FIGS.replace("away 12 300,0", "away 12 300,40").replace(
        "home 3 -100,60", "home 3 480,60"
    )
    f = feed(figs=figs)
    f("ball 450,0 rest")
    f("ball 450,0 rest; flick 12>3")
    assert f.state.restart.kind == "penalty"
    f("ball 475,0 rest", "ball 475,0 moving; flick 3", "ball 500,0 moving")
    if between:
        f(f"ball 520,0 moving; {between}")
    calls = f(f"ball 510,0 moving; flick 3@{f.frame}")
    assert [c.law for c in calls if c.kind == "foul"] == ([LAWS["taker"]] if foul else [])
