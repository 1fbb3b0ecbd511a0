"""The game registry: a profile names its game, each game brings its pieces, reducer and clock."""

from __future__ import annotations

import re

import pytest

from calibration.tables import TABLES_DIR, load_pitch, load_profile
from rules import fistf
from rules.games import GAMES, GameError, game
from rules.notation import parse_observation


def _write(tmp_path, text: str, name: str = "mine.toml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_profile_without_game_is_fistf():
    assert load_profile("fistf").game == "fistf"
    assert game("fistf").step is fistf.step


def test_unknown_game_is_one_line(tmp_path):
    text = 'game = "carrom"\n' + (TABLES_DIR / "fistf.toml").read_text()
    path = _write(tmp_path, text)
    with pytest.raises(
        GameError, match=rf"^{re.escape(str(path))}: unknown game 'carrom'; games"
    ) as err:
        load_profile(path)
    assert "\n" not in str(err.value)
    with pytest.raises(GameError, match="unknown game 'chess'"):
        load_profile("fistf", "chess")


def test_a_table_without_the_pieces_of_the_game_is_refused(tmp_path):
    text = (TABLES_DIR / "fistf.toml").read_text().replace("[base]", "[buttons]")
    with pytest.raises(GameError, match=r"cannot be played on table 'fistf': it has no 'base'"):
        load_profile(_write(tmp_path, text))


def test_other_games_piece_sections_do_not_disturb(tmp_path, monkeypatch):
    other = GAMES["fistf"].__class__(
        **{
            **{f: getattr(GAMES["fistf"], f) for f in GAMES["fistf"].__slots__},
            "name": "discs",
            "pieces": {
                "disc": {
                    "diameter_mm": "base_diameter_mm",
                    "height_mm": "base_height_mm",
                    "rim_mm": "rim_mm",
                }
            },
        }
    )
    monkeypatch.setitem(GAMES, "discs", other)
    disc = "\n[disc]\ndiameter_mm = 30\nheight_mm = 4\nrim_mm = 2\n"
    text = (TABLES_DIR / "fistf.toml").read_text() + disc
    path = _write(tmp_path, text)
    assert load_profile(path).base_diameter_mm == 24.0  # FISTF: the base, the disc ignored
    discs = load_profile(path, "discs")
    assert (discs.game, discs.base_diameter_mm, discs.size_mm("disc.rim_mm")) == ("discs", 30, 2)


def test_fistf_plug_in_is_the_fistf_reducer():
    g = game("fistf")
    pitch = load_pitch("fistf")
    state = g.new_match(pitch, start="kick_off", first_kick_off=0)
    assert isinstance(state, fistf.MatchState) and state.restart.kind == "kick_off"
    assert (g.clock.mode, g.clock.half_length_s) == (state.clock.mode, state.clock.length_s)
    obs = parse_observation("ball 0,0 rest; home 7 -23,0", t_s=0.0, frame=0)
    assert g.step(state, obs) == fistf.step(state, obs)


def test_the_button_football_table():
    p = load_profile("button-football")
    assert (p.game, p.length_mm, p.width_mm, p.ball_diameter_mm) == (
        "button-football",
        1200,
        750,
        21,
    )
    assert (p.base_diameter_mm, p.base_height_mm) == (32, 5)  # the buttons
    sizes = [p.size_mm(f"keeper.{k}_mm") for k in ("width", "depth", "height")]
    assert sizes == [60, 20, 25]
    with pytest.raises(GameError, match="no 'base' section"):
        load_profile("button-football", "fistf")
    with pytest.raises(GameError, match="no 'button', 'keeper' section"):
        load_profile("fistf", "button-football")
