"""Short refereeing scenes with a chosen margin: a real kick-off, then the moment to judge.

The scenes of ``simulator.scene_library`` place the ball by hand before their decisive play, so
a match-state referee first sees that play as the kick-off. These scenes start like a match:
the ball on the centre spot, a home figure kicks off forward, then another figure plays the
moment to judge:

- ``line``: the ball comes to rest ``margin_mm`` beyond (> 0) or short of (< 0) a boundary line
  (``touchline``, ``goal_line``: outside the posts, at either end);
- ``shot``: a shot into the away goal from inside (``inside=True``) or outside the zone;
- ``offside``: a forward pass inside the shooting zone with a team-mate offside, or not;
- ``rally``: passes for ``seconds`` (the match clock over a long sequence).

``build_margin_scene(kind, seed, **params)`` compiles a draw and checks the declared call with
``simulator.truth`` like ``build_scene``; a rejected draw is drawn again from the next sub-seed.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from calibration.tables import load_pitch
from simulator.scene import HOME
from simulator.scene_library import (
    ATTEMPTS,
    CHECK_FPS,
    Script,
    kick_off,
    nearest_other,
    offside_pass,
    shot_at_goal,
)
from simulator.scenes import CompiledScene, SceneError, compile_scene
from simulator.truth import CLOSE_MM, decide

KINDS = ("line", "shot", "offside", "rally")


def _line(s: Script, line: str = "touchline", margin_mm: float = 1.0) -> str:
    rng = s.rng
    taker = kick_off(s, (rng.uniform(60.0, 160.0), rng.uniform(-40.0, 40.0)))
    hx, hy = 0.5 * s.pitch.profile.length_mm, 0.5 * s.pitch.profile.width_mm
    if line == "touchline":
        sy = float(rng.choice([-1.0, 1.0]))
        target = (float(s.ball[0] + rng.uniform(-150, 150)), sy * (hy + s.r_ball + margin_mm))
    elif line == "goal_line":
        sx, sy = float(rng.choice([-1.0, 1.0])), float(rng.choice([-1.0, 1.0]))
        target = (sx * (hx + s.r_ball + margin_mm), sy * float(rng.uniform(120.0, 250.0)))
    else:
        raise SceneError(f"line scenes judge 'touchline' or 'goal_line', not {line!r}")
    fig = nearest_other(s, HOME, (taker,))
    if not (s.clear(s.ball, target, skip=(fig,)) and s.run_up_clear(fig, target)):
        raise SceneError("the pass to the line is blocked")
    expect = "ball_out" if margin_mm > 0 else ("close_call" if margin_mm > -CLOSE_MM else None)
    s.flick(fig, target, expect=expect)
    return f"kick-off, then the ball at rest {margin_mm:+.2f} mm over the {line}"


def _shot(s: Script, inside: bool = True) -> str:
    rng = s.rng
    x = rng.uniform(345.0, 400.0) if inside else rng.uniform(190.0, 260.0)
    taker = kick_off(s, (x, rng.uniform(-25.0, 25.0)))
    fig = nearest_other(s, HOME, (taker,))
    shot_at_goal(s, fig, "right", "goal" if inside else "goal_disallowed")
    return f"kick-off, then a shot from {'inside' if inside else 'outside'} the shooting zone"


def _rally(s: Script, seconds: float = 40.0) -> str:
    taker = kick_off(s, (s.rng.uniform(60.0, 140.0), s.rng.uniform(-40.0, 40.0)))
    fig = nearest_other(s, HOME, (taker,))
    while s.t < seconds:
        fig = s.pass_to_teammate(fig)
    return f"kick-off and {seconds:.0f} s of passes"


BUILDERS: dict[str, Callable[..., str]] = {
    "line": _line,
    "shot": _shot,
    "offside": offside_pass,
    "rally": _rally,
}


def build_margin_scene(kind: str, seed: int, table: str = "fistf", **params) -> CompiledScene:
    """Write and compile one scene of ``kind`` (see the module docstring) for ``seed``.

    Raises:
        SceneError: unknown kind, or no draw for this seed compiled within ``ATTEMPTS`` tries.
    """
    if kind not in BUILDERS:
        raise SceneError(f"unknown margin scene {kind!r}; kinds: {', '.join(KINDS)}")
    pitch = load_pitch(table)
    error: SceneError | None = None
    for attempt in range(ATTEMPTS):
        script = Script(pitch, np.random.default_rng([seed, attempt, 11]))
        try:
            description = BUILDERS[kind](script, **params)
            compiled = compile_scene(script.scene(f"{kind}", description), pitch)
            decide(compiled, CHECK_FPS)
            return compiled
        except SceneError as exc:
            error = exc
    raise SceneError(
        f"margin scene {kind!r} seed {seed}: no valid draw in {ATTEMPTS} tries: {error}"
    )
