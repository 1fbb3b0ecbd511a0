"""Table profiles on disk: the shipped ones in ``calibration/tables/`` and a user's own file.

A profile is read for its game (``rules.games``): the one it names, or the one asked for; the
pieces are read from that game's sections, and a table without them is refused in one line.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from rules.games import GAMES, game
from rules.pitch import Pitch
from rules.profile import ProfileError, TableProfile

TABLES_DIR = Path(__file__).with_name("tables")


def shipped_tables() -> list[str]:
    """Names of the profiles that ship with tablevar."""
    return sorted(p.stem for p in TABLES_DIR.glob("*.toml"))


def load_profile(name_or_path: str | Path, game_name: str | None = None) -> TableProfile:
    """Load a shipped profile by name (``fistf``) or a user's profile from a ``.toml`` path.

    Args:
        name_or_path: the profile.
        game_name: the game to play on it (``rules.games``); None: the game it names.

    Raises:
        ProfileError: the profile does not exist, is not TOML, or has a missing, unknown or
            impossible key; the message names the key and the file. ``rules.games.GameError``:
            it names an unknown game, or lacks the pieces of the game asked for.
    """
    path = Path(name_or_path)
    if path.suffix != ".toml":
        path = TABLES_DIR / f"{name_or_path}.toml"
        if not path.is_file():
            raise ProfileError(
                f"unknown table profile {str(name_or_path)!r}; shipped profiles: "
                f"{', '.join(shipped_tables())} (or give the path of your own .toml file)"
            )
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ProfileError(f"cannot read table profile {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise ProfileError(f"table profile {path} is not UTF-8 text (byte {exc.start})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"table profile {path} is not valid TOML: {exc}") from exc
    chosen = game(game_name) if game_name is not None else None
    try:  # what is wrong in the file names the file
        chosen = chosen or game(str(data.get("game", "fistf")))
        # Sections of other games' pieces are no error: one cloth may serve several games.
        others = {s for g in GAMES.values() if g is not chosen for s in g.pieces}
        data = {k: v for k, v in data.items() if k not in others - set(chosen.pieces)}
        data["game"] = chosen.name
        chosen.check_table_sections(str(data.get("name", path.stem)), set(data))
        return TableProfile.from_mapping(data, chosen.pieces)
    except ProfileError as exc:
        raise type(exc)(f"{path}: {exc}") from exc


def load_pitch(name_or_path: str | Path, game_name: str | None = None) -> Pitch:
    """The nominal pitch model of a profile (for ``game_name``, as ``load_profile``)."""
    return Pitch.from_profile(load_profile(name_or_path, game_name))
