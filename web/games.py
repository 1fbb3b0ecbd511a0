"""The game of a table as the pages name it: its title and words (``rules.games``)."""

from __future__ import annotations

from functools import lru_cache

from calibration.tables import load_profile
from rules.games import FISTF, Game, game
from rules.profile import ProfileError


@lru_cache(maxsize=32)
def game_of(table: str | None, chosen: str | None = None) -> Game:
    """The game played on ``table``: ``chosen`` if given, else the one its profile names
    (FISTF for a table or game that cannot be read: the page of a broken profile still
    renders, and the command that uses it says what is wrong)."""
    try:
        if chosen:
            return game(chosen)
        if not table:
            return FISTF
        return game(load_profile(table).game)
    except (ProfileError, OSError, ValueError):
        return FISTF


def page_words(table: str | None, chosen: str | None = None) -> dict[str, object]:
    """What a template needs of the game: ``game`` (the ``Game``) and ``words`` (its labels,
    with FISTF's as defaults)."""
    g = game_of(table, chosen)
    return {"game": g, "words": {**FISTF.labels, **g.labels}}
