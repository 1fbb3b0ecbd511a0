"""The game of a table as the pages name it: its title and words (``rules.games``)."""

from __future__ import annotations

from functools import lru_cache

from calibration.tables import load_profile
from rules.games import FISTF, Game, game
from rules.profile import ProfileError


@lru_cache(maxsize=32)
def game_of(table: str | None) -> Game:
    """The game ``table``'s profile names (FISTF for a table that cannot be read: the page of
    a broken profile still renders, and the command that uses it says what is wrong)."""
    if not table:
        return FISTF
    try:
        return game(load_profile(table).game)
    except (ProfileError, OSError, ValueError):
        return FISTF


def page_words(table: str | None) -> dict[str, object]:
    """What a template needs of the game: ``game`` (the ``Game``) and ``words`` (its labels,
    with FISTF's as defaults)."""
    g = game_of(table)
    return {"game": g, "words": {**FISTF.labels, **g.labels}}
