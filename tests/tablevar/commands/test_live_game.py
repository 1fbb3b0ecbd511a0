"""``tablevar live --game``: the game played on the table (default: the one its profile names),
refused in one line when the table cannot serve it or the profile names no game we know."""

from __future__ import annotations

import pytest

from tablevar.cli import main


@pytest.fixture
def unknown_game(tmp_path):
    path = tmp_path / "carrom.toml"
    text = open("calibration/tables/fistf.toml", encoding="utf-8").read()
    path.write_text(text.replace('name = "fistf"', 'name = "carrom"\ngame = "carrom"'))
    return str(path)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--table", "fistf", "--game", "button-football"],
            "Button football cannot be played on table 'fistf': it has no 'button'",
        ),
        (
            ["--table", "button-football", "--game", "fistf"],
            "FISTF Subuteo cannot be played on table 'button-football': it has no 'base'",
        ),
        (["--table", "UNKNOWN"], "unknown game 'carrom'; games"),
    ],
)
def test_a_game_the_table_cannot_serve_is_one_line(tmp_path, capsys, unknown_game, argv, message):
    argv = [a.replace("UNKNOWN", unknown_game) for a in argv]
    out = ["--out", str(tmp_path / "out"), "--source", "file:/nonexistent.mp4"]
    assert main(["live", *argv, *out]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_the_game_choices_are_the_games_tablevar_referees(capsys):
    assert main(["live", "--source", "sim", "--game", "chess"]) == 2
    assert "invalid choice: 'chess'" in capsys.readouterr().err
