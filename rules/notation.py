"""A one-line text notation for an observation, like FEN for chess: one test case, one line.

Clauses are separated by ``;``, tokens by spaces; coordinates are ``x,y`` in mm (pitch frame)::

    t 12.5; frame 625; ball 312.0,-40.5 moving unc=0.3; home 1 gk -580,0; home 7 250,30;
    away 3 400,-10 r=12; flick 7@620; hit 3

Clauses:

- ``t SECONDS`` and ``frame INDEX``: when (defaults come from the caller).
- ``ball X,Y [moving|rest] [r=RADIUS] [unc=MM] [doubt=MM]`` or ``ball hidden``; no ball
  clause: not seen. ``doubt``: how far it may be another object, part of ``unc``.
- ``home ID [gk] X,Y [r=RADIUS]`` and ``away ...``: one figure; ids are unique over both teams.
- ``figures unc=MM``: the figures' position uncertainty.
- ``flick ID[@ONSET]``: figure ID was flicked (from frame ONSET, default this frame) and touched
  the ball; ``flick ID>OTHER[@ONSET] [moving]``: it touched figure OTHER (at rest unless
  ``moving``) instead.
- ``hit ID``: the ball ran into figure ID (a collision); ``hit ID>OTHER``: a knocked figure ID
  touched OTHER.
- ``miss ID[@ONSET]``: figure ID was flicked and came to rest without touching the ball.

``format_observation`` writes the canonical line; ``parse_observation(format_observation(o))``
gives back ``o``. Mistakes raise ``NotationError`` naming the clause and token.
"""

from __future__ import annotations

from collections.abc import Iterable

from rules.observation import (
    TEAM_NAMES,
    Contact,
    Figures,
    Observation,
    ObservationError,
)

CONTACT_WORDS = {"flick": "flick", "hit": "collision", "miss": "miss"}


class NotationError(ValueError):
    """A position line could not be read; the message names the clause and the token."""


def _number(token: str, clause: str, what: str) -> float:
    try:
        return float(token)
    except ValueError:
        raise NotationError(f"bad {what} {token!r} in {clause!r}: expected a number") from None


def _integer(token: str, clause: str, what: str) -> int:
    try:
        return int(token)
    except ValueError:
        raise NotationError(f"bad {what} {token!r} in {clause!r}: expected an integer") from None


def _xy(token: str, clause: str) -> tuple[float, float]:
    parts = token.split(",")
    if len(parts) != 2:
        raise NotationError(f"bad position {token!r} in {clause!r}: expected X,Y in mm")
    return _number(parts[0], clause, "x"), _number(parts[1], clause, "y")


def _option(token: str, clause: str, allowed: tuple[str, ...]) -> tuple[str, float]:
    key, sep, value = token.partition("=")
    if not sep or key not in allowed:
        raise NotationError(
            f"unexpected token {token!r} in {clause!r}: expected one of "
            f"{', '.join(k + '=' for k in allowed)}"
        )
    return key, _number(value, clause, key)


def parse_observation(
    text: str,
    *,
    t_s: float = 0.0,
    frame: int = 0,
    ball_radius_mm: float = 10.5,
    base_radius_mm: float = 12.0,
    ball_uncertainty_mm: float = 0.5,
    figure_uncertainty_mm: float = 1.0,
) -> Observation:
    """Read one line (see the module docstring) into an ``Observation``.

    Raises:
        NotationError: a clause or token is not understood, or the observation is inconsistent
            (e.g. a contact names a figure that is not listed).
    """
    ball: tuple[float, float] | None = None
    moving = False
    doubt = 0.0
    ids: list[int] = []
    teams: list[str] = []
    keepers: list[bool] = []
    xys: list[tuple[float, float]] = []
    radii: list[float] = []
    contacts: list[tuple[str, str]] = []
    for raw in text.split(";"):
        clause = raw.strip()
        if not clause:
            continue
        head, *rest = clause.split()
        if head in ("t", "frame") and len(rest) == 1:
            if head == "t":
                t_s = _number(rest[0], clause, "time")
            else:
                frame = _integer(rest[0], clause, "frame")
        elif head == "ball":
            ball, moving, ball_radius_mm, ball_uncertainty_mm, doubt = _ball(
                rest, clause, ball_radius_mm, ball_uncertainty_mm
            )
        elif head in TEAM_NAMES:
            fid, keeper, xy, radius = _figure(rest, clause, base_radius_mm)
            ids.append(fid)
            teams.append(head)
            keepers.append(keeper)
            xys.append(xy)
            radii.append(radius)
        elif head == "figures":
            for token in rest:
                _, figure_uncertainty_mm = _option(token, clause, ("unc",))
        elif head in CONTACT_WORDS:
            contacts.append((head, clause))
        else:
            raise NotationError(
                f"unknown clause {head!r} in {clause!r}: expected t, frame, ball, home, away, "
                "figures, flick, hit or miss"
            )
    try:
        figures = Figures.build(ids, teams, keepers, xys or [], radii)
        return Observation(
            t_s,
            frame,
            ball,
            ball_radius_mm,
            ball_uncertainty_mm,
            moving,
            figures,
            tuple(_contact(word, clause, frame) for word, clause in contacts),
            figure_uncertainty_mm,
            ball_doubt_mm=doubt,
        )
    except ObservationError as exc:
        raise NotationError(f"{exc} (in {text.strip()!r})") from None


def _ball(rest: list[str], clause: str, radius: float, unc: float):
    if not rest:
        raise NotationError(f"missing position in {clause!r}: expected 'ball X,Y' or 'ball hidden'")
    xy = None if rest[0] == "hidden" else _xy(rest[0], clause)
    moving, doubt = False, 0.0
    for token in rest[1:]:
        if token in ("moving", "rest") and xy is not None:
            moving = token == "moving"
            continue
        key, value = _option(token, clause, ("r", "unc", "doubt") if xy else ("r", "unc"))
        if key == "r":
            radius = value
        elif key == "unc":
            unc = value
        else:
            doubt = value
    return xy, moving, radius, unc, doubt


def _figure(rest: list[str], clause: str, radius: float):
    if len(rest) < 2:
        raise NotationError(f"incomplete figure {clause!r}: expected 'home ID [gk] X,Y [r=R]'")
    fid = _integer(rest[0], clause, "figure id")
    keeper = rest[1] == "gk"
    tokens = rest[2:] if keeper else rest[1:]
    if not tokens:
        raise NotationError(f"missing position in {clause!r}: expected X,Y after the id")
    xy = _xy(tokens[0], clause)
    for token in tokens[1:]:
        _, radius = _option(token, clause, ("r",))
    return fid, keeper, xy, radius


def _contact(word: str, clause: str, frame: int) -> Contact:
    parts = clause.split()
    if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] != "moving"):
        raise NotationError(
            f"bad contact {clause!r}: expected '{word} ID[>OTHER][@ONSET] [moving]'"
        )
    body, _, onset = parts[1].partition("@")
    who, _, target = body.partition(">")
    return Contact(
        _integer(who, clause, "figure id"),
        CONTACT_WORDS[word],  # type: ignore[arg-type]
        _integer(onset, clause, "onset frame") if onset else frame,
        _integer(target, clause, "target figure id") if target else None,
        len(parts) == 3,
    )


def _num(v: float) -> str:
    return repr(float(v))


def format_observation(obs: Observation) -> str:
    """The canonical one-line notation of an observation (every value written out; a ball's
    doubt only when there is one)."""
    out = [f"t {obs.t_s!r}", f"frame {obs.frame}"]
    if obs.ball_xy_mm is None:
        out.append(f"ball hidden r={_num(obs.ball_radius_mm)} unc={_num(obs.ball_uncertainty_mm)}")
    else:
        x, y = obs.ball_xy_mm
        state = "moving" if obs.ball_moving else "rest"
        doubt = f" doubt={_num(obs.ball_doubt_mm)}" if obs.ball_doubt_mm else ""
        out.append(
            f"ball {x!r},{y!r} {state} r={_num(obs.ball_radius_mm)} "
            f"unc={_num(obs.ball_uncertainty_mm)}{doubt}"
        )
    f = obs.figures
    for i in range(len(f)):
        gk = " gk" if f.goalkeeper[i] else ""
        x, y = (float(v) for v in f.xy_mm[i])
        out.append(f"{TEAM_NAMES[f.team[i]]} {f.id[i]}{gk} {x!r},{y!r} r={_num(f.radius_mm[i])}")
    out.append(f"figures unc={_num(obs.figure_uncertainty_mm)}")
    words = {v: k for k, v in CONTACT_WORDS.items()}
    for c in obs.contacts:
        target = "" if c.target_id is None else f">{c.target_id}"
        moving = " moving" if c.target_moving else ""
        out.append(f"{words[c.kind]} {c.figure_id}{target}@{c.onset_frame}{moving}")
    return "; ".join(out)


def parse_sequence(lines: Iterable[str], fps: float = 50.0, **defaults) -> list[Observation]:
    """Read one observation per non-empty line; frames count from 0 and ``t = frame / fps``
    unless a line says otherwise. ``defaults`` go to ``parse_observation``."""
    observations = []
    for i, line in enumerate(ln for ln in lines if ln.strip()):
        observations.append(parse_observation(line, t_s=i / fps, frame=i, **defaults))
    return observations
