"""The live match of button football through the hub and the controls: shot calls judged where
the ball lies (BF Angesagte Schüsse), the restart's spot and the buttons moved for it against
the allowance (BF Ball im Aus, BF Anstoß), the referee's hold, and a restart of the server."""

from __future__ import annotations

import pytest

from rules.notation import parse_observation
from web.app import create_app, hub_of, shutdown

PIN = "2468"
# Buttons 16 mm in radius; the keepers in their goal areas. Home defends the left goal.
FIGS = (
    "home 1 gk -590,0; home 5 -100,300; home 7 -200,0; home 8 300,0; "
    "away 2 gk 590,0; away 9 60,-100; away 10 150,0"
)


class Play:
    """Observations in the rules' notation fed to the hub at 50 fps (the real reducer)."""

    def __init__(self, hub, figs: str = FIGS):
        self.hub, self.frame, self.figs = hub, 0, figs

    def __call__(self, *lines: str) -> list:
        calls = []
        for line in lines:
            text = f"{line}; {self.figs}"
            obs = parse_observation(text, t_s=self.frame / 50, frame=self.frame, base_radius_mm=16)
            calls += self.hub.observe(obs)
            self.frame += 1
        return calls


@pytest.fixture
def config(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    return {
        "TESTING": True,
        "PIN": PIN,
        "TABLE": "button-football",
        "OUTPUT_DIR": out,
        "MATCH_LOG": tmp_path / "match.sqlite",
    }


@pytest.fixture
def app(config):
    app = create_app(config)
    yield app
    shutdown(app)


def _post(client, path, body=None):
    return client.post(path, json=body or {}, headers={"X-Tablevar-PIN": PIN})


@pytest.mark.parametrize(
    ("ball", "team", "accepted", "note"),
    [
        ("200,0", "home", True, "called"),  # home attacks the right goal: ball in its half
        ("-200,0", "home", False, "refused: the ball is not in the opponents' half"),
        ("-200,0", "away", True, "called"),
        ("5,0", "home", False, "refused: the ball is not in the opponents' half"),  # on the line
    ],
)
def test_a_shot_call_is_judged_where_the_ball_lies(app, ball, team, accepted, note):
    """BF Angesagte Schüsse: the call is made in the opponents' half (the ball wholly beyond
    the halfway line's far edge)."""
    client, hub = app.test_client(), hub_of(app)
    assert _post(client, "/api/match/start").status_code == 200
    Play(hub)(*[f"ball {ball} rest"] * 3)
    answer = _post(client, "/api/match/shot-call", {"team": team})
    assert answer.status_code == 200
    call = answer.json["calls"][0]
    assert call["kind"] == "shot_called" and call["team"] == team
    assert call["law"] == "BF Angesagte Schüsse" and call["line"] == "halfway_line"
    assert call["note"] == note and call["fully_crossed"] is accepted
    assert answer.json["shot_called"] == (team if accepted else None)
    # The call waits for the pipeline to draw its picture from the frames it kept.
    assert [c.kind for c in hub.take_action_calls()] == ["shot_called"]


def test_a_called_shot_scores_and_the_kick_off_spot_is_shown(app):
    """BF Angesagte Schüsse: only a called shot scores; BF Anstoß: the conceding team kicks
    off from the centre spot, two buttons to move."""
    client, hub = app.test_client(), hub_of(app)
    _post(client, "/api/match/start")
    play = Play(hub)
    play(*["ball 400,0 rest"] * 3)
    assert _post(client, "/api/match/shot-call", {"team": "home"}).json["shot_called"] == "home"
    calls = play("ball 400,0 rest; flick 8", "ball 500,0 moving", "ball 625,0 moving")
    assert [c.kind for c in calls] == ["goal"]
    state = client.get("/api/state").json
    assert state["score"] == {"home": 1, "away": 0}
    assert state["restart"]["kind"] == "kick_off" and state["restart"]["team"] == "away"
    assert state["restart"]["spot"] == {"x_mm": 0.0, "y_mm": 0.0}
    assert state["restart"]["moves"]["away"] == {"moved": 0, "allowed": 2}


def test_a_throw_in_shows_its_spot_and_the_buttons_moved_for_it(app):
    """BF Ball im Aus: over a touchline, a throw-in to the other side where the ball crossed;
    the buttons moved while the ball is dead are counted (BF Anstoß names the allowance of a
    kick-off; a throw-in has none: shown as any)."""
    client, hub = app.test_client(), hub_of(app)
    _post(client, "/api/match/start")
    play = Play(hub)
    play("ball -100,300 rest", "ball -100,300 rest; flick 5")
    calls = play("ball -100,390 moving", "ball -100,420 moving")
    out = next(c for c in calls if c.kind == "ball_out")
    assert out.restart == "throw_in" and out.team == 1  # away throws in
    restart = client.get("/api/state").json["restart"]
    assert restart["kind"] == "throw_in" and restart["team"] == "away"
    assert restart["spot"]["x_mm"] == pytest.approx(-100.0, abs=1.0)
    assert restart["spot"]["y_mm"] == pytest.approx(375 - 3 - 10.5)
    play.figs = FIGS.replace("home 7 -200,0", "home 7 -260,40")  # a button moved 72 mm
    play("ball -100,361.5 rest")
    moves = client.get("/api/state").json["restart"]["moves"]
    assert moves == {"home": {"moved": 1, "allowed": None}, "away": {"moved": 0, "allowed": None}}


def test_a_held_match_calls_nothing_and_refuses_actions_button_football_lacks(app):
    client, hub = app.test_client(), hub_of(app)
    play = Play(hub)
    assert play(*["ball -100,420 moving"] * 3) == []  # not started: frames are not judged
    refused = _post(client, "/api/match/shot-call", {"team": "home"})
    assert refused.status_code == 409 and "held" in refused.json["message"]
    assert _post(client, "/api/match/added-time", {"seconds": 30}).status_code == 409
    assert _post(client, "/api/match/half_time").status_code == 409
    assert _post(client, "/api/match/shot-call", {"team": "both"}).status_code == 400
    assert client.post("/api/match/shot-call", json={"team": "home"}).status_code == 403
    state = client.get("/api/state").json
    assert state["game"] == "button-football" and "added_time" not in state["actions"]
    assert state["clock"]["status"] == "not_started" and state["calls"] == []
    # The other pages of the live table work for the game too.
    page = client.get("/").get_data(as_text=True)
    assert 'id="turn-panel"' in page and "contacts counted this turn" in page
    assert client.get("/calibration").status_code == 200
    assert client.get("/api/pitch").json["length_mm"] == 1200


def test_a_fistf_match_has_no_shot_calls(tmp_path):
    app = create_app({"TESTING": True, "PIN": PIN, "MATCH_LOG": tmp_path / "m.sqlite"})
    try:
        answer = _post(app.test_client(), "/api/match/shot-call", {"team": "home"})
        assert answer.status_code == 409 and "no called shots" in answer.json["message"]
        assert hub_of(app).game == "fistf"
    finally:
        shutdown(app)


def test_the_button_match_resumes_in_a_new_app_on_the_same_log(config):
    first = create_app(config)
    hub = hub_of(first)
    client = first.test_client()
    _post(client, "/api/match/start")
    play = Play(hub)
    play(*["ball 400,0 rest"] * 3)
    _post(client, "/api/match/shot-call", {"team": "home"})
    play("ball 400,0 rest; flick 8", "ball 500,0 moving", "ball 625,0 moving")
    play.figs = FIGS.replace("away 9 60,-100", "away 9 -60,-100")  # a kick-off move
    play("ball 0,0 rest")
    before, state = client.get("/api/state").json, hub.match
    _post(client, "/api/match/team-names", {"home": "Reds", "away": "Blues"})
    shutdown(first)

    second = create_app(config)
    try:
        after = second.test_client().get("/api/state").json
        assert hub_of(second).match == state  # the rules' state, exactly
        assert after["score"] == before["score"] == {"home": 1, "away": 0}
        assert after["restart"] == before["restart"]
        assert after["restart"]["moves"]["away"] == {"moved": 1, "allowed": 2}
        assert [c["kind"] for c in after["calls"]] == ["goal", "shot_called"]
        assert after["teams"] == {"home": "Reds", "away": "Blues"}
    finally:
        shutdown(second)


def test_a_button_recording_s_review_page_and_report_speak_of_buttons(tmp_path, recordings_dir):
    """The review page and the match report of a button-football recording use its words."""
    from dataclasses import replace

    from calibration.calibration_file import read_calibration, write_calibration

    folder = recordings_dir / "match1"
    cal = read_calibration(folder / "calibration.json")
    write_calibration(folder / "calibration.json", replace(cal, table="button-football"))
    app = create_app(
        {"TESTING": True, "PIN": PIN, "RECORDINGS_DIR": recordings_dir, "MATCH_LOG": tmp_path / "m"}
    )
    try:
        client = app.test_client()
        review = client.get("/review/match1").get_data(as_text=True)
        assert 'id="show-figures"> Buttons</label>' in review
        # BF Ball im Aus: the ball robot puts the ball on the restart's spot: the page draws it
        assert 'id="show-spot" checked> Restart spot' in review
        for call in client.get("/api/recordings/match1").json["calls"]:
            spot = call["restart_spot"]
            assert (spot["x_mm"], spot["y_mm"]) == (call["position"]["x_mm"], 40.0)
            assert spot["px"] == call["position_px"] and len(spot["ring_px"]) == 32
        report = client.get("/review/match1/report").get_data(as_text=True)
        assert "Nearest button to the ball" in report and "The buttons at each goal" in report
        fistf = client.get("/").get_data(as_text=True)  # the live table is FISTF's
        assert 'id="turn-panel"' not in fistf and "game-fistf" in fistf
        write_calibration(folder / "calibration.json", cal)  # a FISTF recording: no spots
        assert 'id="show-spot"' not in client.get("/review/match1").get_data(as_text=True)
        calls = client.get("/api/recordings/match1").json["calls"]
        assert calls and all(c["restart_spot"] is None for c in calls)
    finally:
        shutdown(app)


def test_a_log_of_another_game_gets_a_new_match_of_this_table_s_game(config):
    """A FISTF match in the log cannot be played on with the button rules (nor back): the
    table's game starts a new match, the old one stays in the log."""
    fistf = create_app({**config, "TABLE": "fistf"})
    hub_of(fistf).control("start")
    shutdown(fistf)
    button = create_app(config)
    try:
        hub = hub_of(button)
        assert hub.game == "button-football" and hub.match_id == 2
        assert [m.table for m in hub.log.matches()] == ["fistf", "button-football"]
    finally:
        shutdown(button)
    again = create_app(config)  # the same game: the match goes on
    try:
        assert hub_of(again).match_id == 2
    finally:
        shutdown(again)


def test_a_cloth_of_both_games_plays_the_game_chosen_and_keeps_it_across_restarts(config, tmp_path):
    """``GAME`` (``tablevar live --game``) overrides the game the profile names; the log keeps
    the game of each match, so a restart with the same choice goes on with it, and one with
    another choice starts a new match."""
    both = tmp_path / "club.toml"  # the FISTF cloth with the button pieces added
    text = open("calibration/tables/fistf.toml", encoding="utf-8").read()
    both.write_text(
        text + "\n[button]\ndiameter_mm = 32.0\nheight_mm = 5.0\n"
        "\n[keeper]\nwidth_mm = 60.0\ndepth_mm = 20.0\nheight_mm = 25.0\n",
        encoding="utf-8",
    )
    chosen = {**config, "TABLE": str(both), "GAME": "button-football"}
    for match_id in (1, 1):  # the second app is a restart: the same match goes on
        app = create_app(chosen)
        try:
            hub = hub_of(app)
            assert (hub.game, hub.match_id) == ("button-football", match_id)
            assert 'id="turn-panel"' in app.test_client().get("/").get_data(as_text=True)
        finally:
            shutdown(app)
    named = create_app({**chosen, "GAME": None})  # the profile names FISTF
    try:
        assert (hub_of(named).game, hub_of(named).match_id) == ("fistf", 2)
        assert [m.game for m in hub_of(named).log.matches()] == ["button-football", None]
    finally:
        shutdown(named)
