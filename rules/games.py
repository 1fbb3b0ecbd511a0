"""The games tablevar referees, each a plug-in: what a new game brings, and the registry.

A table profile names its game (``game = "..."``, ``fistf`` when left out); ``--game`` may ask
for another game on the same cloth. A game brings:

- ``pieces``: the profile sections that describe its pieces (``rules.profile``), so a profile
  for it is read with its own sizes and a table without them is refused by name;
- ``objects``: what the camera must find on the cloth;
- ``new_match(pitch, **options)`` and ``step(state, input) -> (state, calls)``: its pure
  reducer, which speaks the shared ``rules.calls.Call`` vocabulary;
- ``clock``: its match clock (``rules.clock`` modes) and the length of a half;
- ``labels``: the words its pages use.

Everything else (the pitch model, calibration from lines, the ball track, contacts, the clock,
calls, the match log, evidence, the pages) is shared. Adding a game is one module of rules plus
one entry in ``GAMES``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rules import button_football, fistf
from rules.button_state import ButtonConfig, ButtonState
from rules.calls import Call
from rules.clock import CLOCK_MODES
from rules.pitch import Pitch
from rules.profile import FIGURE_BASES, ProfileError


class GameError(ProfileError):
    """A game that does not exist, or that cannot be played on the table given."""


@dataclass(frozen=True, slots=True)
class GameClock:
    """A game's match clock: ``mode`` (``rules.clock``), the length of one half, the halves."""

    mode: str
    half_length_s: float
    halves: int = 2

    def __post_init__(self) -> None:
        if self.mode not in CLOCK_MODES:
            raise ValueError(f"clock mode {self.mode!r}; expected one of {CLOCK_MODES}")
        if not self.half_length_s > 0:
            raise ValueError(f"half length must be > 0 s, got {self.half_length_s}")


@dataclass(frozen=True, slots=True)
class Game:
    """One game as a plug-in (see the module docstring).

    Attributes:
        name: as profiles and ``--game`` name it.
        title: the game's name on the pages.
        law_prefix: how its calls name their laws (``"FISTF 13.1"``).
        pieces: its pieces' profile sections (``rules.profile.TableProfile.from_mapping``).
        objects: what the camera must find (``ball``, ``figure_bases``, ``buttons``, ...).
        clock: its match clock.
        new_match: ``new_match(pitch, **options) -> state``, a match as its first frame finds
            it.
        step: ``step(state, input) -> (state, calls)``, the pure reducer.
        labels: words of its pages (``piece``, ``pieces``, ...).
        placed_restarts: its ball is put on the spot each restart is taken from (button
            football's ball robot): a call's ``position`` is then that spot, drawn as such on
            the evidence picture and the pages.
    """

    name: str
    title: str
    law_prefix: str
    pieces: Mapping[str, Mapping[str, str]]
    objects: tuple[str, ...]
    clock: GameClock
    new_match: Callable[..., Any]
    step: Callable[[Any, Any], tuple[Any, list[Call]]]
    labels: Mapping[str, str] = field(default_factory=dict)
    placed_restarts: bool = False

    def check_table_sections(self, table: str, sections: set[str]) -> None:
        """Refuse, in one line, a table whose file lacks the sections of this game's pieces.

        Args:
            table: the table's name.
            sections: the top-level keys of its file.

        Raises:
            GameError: a section describing this game's pieces is missing.
        """
        missing = sorted(set(self.pieces) - sections)
        if missing:
            raise GameError(
                f"{self.title} cannot be played on table {table!r}: it has no "
                f"{', '.join(repr(m) for m in missing)} section for the "
                f"{self.labels.get('pieces', 'pieces')}; add it or choose another table"
            )


def _fistf_match(pitch: Pitch, **options: Any) -> fistf.MatchState:
    return fistf.MatchState.new(fistf.MatchConfig(pitch, **options))


_FISTF_DEFAULTS = fistf.MatchConfig.__dataclass_fields__

FISTF = Game(
    name="fistf",
    title="FISTF Subuteo",
    law_prefix="FISTF",
    pieces=FIGURE_BASES,
    objects=("ball", "figure_bases", "rod_goalkeepers"),
    clock=GameClock(
        _FISTF_DEFAULTS["clock_mode"].default, _FISTF_DEFAULTS["half_length_s"].default
    ),
    new_match=_fistf_match,
    step=fistf.step,
    labels={"piece": "figure", "pieces": "figures", "keeper": "goalkeeper"},
)


def _button_match(pitch: Pitch, **options: Any) -> ButtonState:
    return ButtonState.new(ButtonConfig(pitch, **options))


# Buttons are flat discs (their disc stands for a figure's base); a keeper is a block, its sizes
# kept as ``keeper.width_mm`` ... (``TableProfile.size_mm``).
BUTTON_PIECES: dict[str, dict[str, str]] = {
    "button": {"diameter_mm": "base_diameter_mm", "height_mm": "base_height_mm"},
    "keeper": {"width_mm": "size", "depth_mm": "size", "height_mm": "size"},
}

BUTTON_FOOTBALL = Game(
    name="button-football",
    title="Button football",
    law_prefix="BF",
    pieces=BUTTON_PIECES,
    objects=("ball", "buttons", "keeper_blocks"),
    clock=GameClock("ball-moving", ButtonConfig.__dataclass_fields__["half_length_s"].default),
    new_match=_button_match,
    step=button_football.step,
    labels={
        "piece": "button",
        "pieces": "buttons",
        "keeper": "keeper",
        "shots": "shots called",
        "contacts": "contacts counted this turn",
    },
    placed_restarts=True,
)

GAMES: dict[str, Game] = {g.name: g for g in (FISTF, BUTTON_FOOTBALL)}


def game(name: str) -> Game:
    """The game called ``name``.

    Raises:
        GameError: no game has that name (the message lists the games there are).
    """
    if name not in GAMES:
        raise GameError(f"unknown game {name!r}; games: {', '.join(GAMES)}")
    return GAMES[name]
