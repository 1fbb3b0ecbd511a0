"""Table profiles: the nominal numbers of a table, as plain data.

A profile is read from a mapping (a parsed TOML file in ``calibration/tables/``). Every distance
places a line's *centre*; depths and distances are measured from the goal line's outer edge and
widths "beyond each post" from the post's outer face (DESIGN.md section 3).

A profile names its game (``game = "fistf"`` when left out); the cloth, goals and ball are
common to every game, the pieces are the game's own: each game gives the sections that describe
them (``pieces``, see ``rules.games``). A piece's footprint disc (a FISTF figure's base, a
button) fills ``base_diameter_mm`` / ``base_height_mm``; any other size of a piece is kept by
its ``section.key`` in ``sizes_mm``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any


class ProfileError(ValueError):
    """A table profile is missing a key, has an unknown one, or holds an impossible value."""


@dataclass(frozen=True, slots=True)
class TableProfile:
    """Nominal geometry of one table, all lengths in mm."""

    name: str
    description: str
    length_mm: float
    width_mm: float
    line_width_mm: float
    cloth_margin_mm: float
    centre_circle_radius_mm: float
    shooting_line_from_goal_line_mm: float
    corner_arc_radius_mm: float
    spot_diameter_mm: float
    goal_mouth_width_mm: float
    goal_post_width_mm: float
    goal_depth_mm: float
    goal_height_mm: float
    goal_area_beyond_post_mm: float
    goal_area_depth_mm: float
    penalty_area_beyond_post_mm: float
    penalty_area_depth_mm: float
    penalty_spot_from_goal_line_mm: float
    penalty_arc_radius_mm: float
    ball_diameter_mm: float
    base_diameter_mm: float
    base_height_mm: float
    game: str = "fistf"
    sizes_mm: tuple[tuple[str, float], ...] = ()  # the game's other piece sizes, by section.key

    @property
    def ball_radius_mm(self) -> float:
        return self.ball_diameter_mm / 2.0

    @property
    def base_radius_mm(self) -> float:
        return self.base_diameter_mm / 2.0

    def size_mm(self, key: str) -> float:
        """A piece size the game's profile sections give (``"keeper.width_mm"``)."""
        sizes = dict(self.sizes_mm)
        if key not in sizes:
            raise ProfileError(f"table {self.name!r} gives no {key!r}; it has {sorted(sizes)}")
        return sizes[key]

    @classmethod
    def from_mapping(
        cls, data: Mapping[str, Any], pieces: Mapping[str, Mapping[str, str]] | None = None
    ) -> TableProfile:
        """Build a profile from its TOML layout, rejecting missing and unknown keys by name.

        Args:
            data: the parsed TOML.
            pieces: the sections describing the game's pieces, each key mapped to one of
                ``PIECE_FIELDS`` or, mapped to anything else, kept in ``sizes_mm`` under
                ``section.key``; FISTF's figure bases by default.
        """
        flat: dict[str, Any] = {}
        pieces = FIGURE_BASES if pieces is None else pieces
        schema: dict[str, Mapping[str, str] | None] = {**_SCHEMA, **pieces}
        known = {*schema, "game"}
        for key in data.keys() - known:
            raise ProfileError(f"unknown key {key!r}; expected one of {sorted(known)}")
        flat["game"] = _text("game", data.get("game", "fistf"))
        sizes: list[tuple[str, float]] = []
        for section, keys in schema.items():
            if section not in data:
                raise ProfileError(f"missing key {section!r}")
            if keys is None:
                flat[section] = _text(section, data[section])
                continue
            table = data[section]
            if not isinstance(table, Mapping):
                raise ProfileError(f"{section!r} must be a table of numbers")
            for key in table.keys() - keys.keys():
                raise ProfileError(f"unknown key '{section}.{key}'; expected one of {sorted(keys)}")
            for key, field_name in keys.items():
                if key not in table:
                    raise ProfileError(f"missing key '{section}.{key}'")
                value = _length(f"{section}.{key}", table[key])
                if section in _SCHEMA or field_name in PIECE_FIELDS:
                    flat[field_name] = value
                else:
                    sizes.append((f"{section}.{key}", value))
        return cls(**flat, sizes_mm=tuple(sizes))

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.name.endswith("_mm") and f.name != "sizes_mm" and not getattr(self, f.name) > 0:
                raise ProfileError(f"{f.name} must be > 0, got {getattr(self, f.name)}")
        for key, value in self.sizes_mm:
            if not value > 0:
                raise ProfileError(f"{key} must be > 0, got {value}")
        if self.shooting_line_from_goal_line_mm >= self.length_mm / 2:
            raise ProfileError("the shooting line must lie between the goal line and halfway")


def _text(key: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ProfileError(f"{key!r} must be a non-empty string, got {value!r}")
    return value


def _length(key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ProfileError(f"{key!r} must be a number of millimetres, got {value!r}")
    return float(value)


# TOML layout -> field names; ``None`` marks a top-level string.
_SCHEMA: dict[str, dict[str, str] | None] = {
    "name": None,
    "description": None,
    "pitch": {
        "length_mm": "length_mm",
        "width_mm": "width_mm",
        "line_width_mm": "line_width_mm",
        "cloth_margin_mm": "cloth_margin_mm",
        "centre_circle_radius_mm": "centre_circle_radius_mm",
        "shooting_line_from_goal_line_mm": "shooting_line_from_goal_line_mm",
        "corner_arc_radius_mm": "corner_arc_radius_mm",
        "spot_diameter_mm": "spot_diameter_mm",
    },
    "goal": {
        "mouth_width_mm": "goal_mouth_width_mm",
        "post_width_mm": "goal_post_width_mm",
        "depth_mm": "goal_depth_mm",
        "height_mm": "goal_height_mm",
    },
    "goal_area": {
        "beyond_post_mm": "goal_area_beyond_post_mm",
        "depth_mm": "goal_area_depth_mm",
    },
    "penalty_area": {
        "beyond_post_mm": "penalty_area_beyond_post_mm",
        "depth_mm": "penalty_area_depth_mm",
        "spot_from_goal_line_mm": "penalty_spot_from_goal_line_mm",
        "arc_radius_mm": "penalty_arc_radius_mm",
    },
    "ball": {"diameter_mm": "ball_diameter_mm"},
}
# What a game's piece sections may fill: the footprint disc every game's pieces stand on.
PIECE_FIELDS = ("base_diameter_mm", "base_height_mm")
# FISTF's pieces: figures on round bases (the default, so older profiles read unchanged).
FIGURE_BASES: dict[str, dict[str, str]] = {
    "base": {"diameter_mm": "base_diameter_mm", "height_mm": "base_height_mm"}
}
