"""Table profiles on disk: the shipped ones in ``calibration/tables/`` and a user's own file."""

from __future__ import annotations

import tomllib
from pathlib import Path

from rules.pitch import Pitch
from rules.profile import ProfileError, TableProfile

TABLES_DIR = Path(__file__).with_name("tables")


def shipped_tables() -> list[str]:
    """Names of the profiles that ship with tablevar."""
    return sorted(p.stem for p in TABLES_DIR.glob("*.toml"))


def load_profile(name_or_path: str | Path) -> TableProfile:
    """Load a shipped profile by name (``fistf``) or a user's profile from a ``.toml`` path.

    Raises:
        ProfileError: the profile does not exist, is not TOML, or has a missing, unknown or
            impossible key; the message names the key and the file.
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
    try:
        return TableProfile.from_mapping(data)
    except ProfileError as exc:
        raise ProfileError(f"{path}: {exc}") from exc


def load_pitch(name_or_path: str | Path) -> Pitch:
    """The nominal pitch model of a profile."""
    return Pitch.from_profile(load_profile(name_or_path))
