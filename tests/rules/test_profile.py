"""Table profiles: the shipped numbers, and clear errors for malformed files."""

from __future__ import annotations

import tomllib

import pytest

from calibration.tables import TABLES_DIR, load_profile, shipped_tables
from rules.profile import ProfileError, TableProfile


def _fistf_mapping() -> dict:
    return tomllib.loads((TABLES_DIR / "fistf.toml").read_text())


def test_the_profiles_ship():
    assert shipped_tables() == ["button-football", "fistf", "subbuteo-classic"]


@pytest.mark.parametrize(
    ("name", "length", "width", "ball", "shooting"),
    [("fistf", 1200, 750, 21, 300), ("subbuteo-classic", 1220, 810, 22, 305)],
)
def test_reference_numbers(name, length, width, ball, shooting):
    p = load_profile(name)
    assert (p.length_mm, p.width_mm, p.ball_diameter_mm) == (length, width, ball)
    assert p.shooting_line_from_goal_line_mm == shooting == p.length_mm / 4
    assert (p.line_width_mm, p.base_diameter_mm, p.base_height_mm) == (3, 24, 6)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda m: m["pitch"].pop("length_mm"), "missing key 'pitch.length_mm'"),
        (lambda m: m["goal"].update(colour=3), "unknown key 'goal.colour'"),
        (lambda m: m.update(extra={}), "unknown key 'extra'"),
        (lambda m: m.pop("ball"), "missing key 'ball'"),
        (lambda m: m["ball"].update(diameter_mm="big"), "'ball.diameter_mm' must be a number"),
        (lambda m: m["pitch"].update(line_width_mm=0), "line_width_mm must be > 0"),
    ],
)
def test_malformed_profile_names_the_key(mutate, message):
    data = _fistf_mapping()
    mutate(data)
    with pytest.raises(ProfileError, match=message.replace("(", r"\(")):
        TableProfile.from_mapping(data)


def test_loader_names_the_file(tmp_path):
    data = (TABLES_DIR / "fistf.toml").read_text().replace("depth_mm = 70.0", "depht_mm = 70.0")
    path = tmp_path / "mine.toml"
    path.write_text(data)
    with pytest.raises(ProfileError, match=r"mine\.toml: unknown key 'goal\.depht_mm'"):
        load_profile(path)


def test_unknown_profile_lists_the_shipped_ones():
    with pytest.raises(ProfileError, match="button-football, fistf, subbuteo-classic"):
        load_profile("snooker")


def test_not_toml_is_a_clear_error(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("name = ")
    with pytest.raises(ProfileError, match="not valid TOML"):
        load_profile(path)
