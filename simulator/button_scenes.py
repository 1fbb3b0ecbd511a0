"""Button-football clips with exact ground truth: scripted scenes, their shot calls, their calls.

A button scene is an ordinary ``Scene`` on a button-football table (``Script`` writes it; buttons
move and strike the ball exactly as figures do, the keepers are blocks) plus the shot calls the
players make (``ShotCall``: a team and the instant it called). Its truth:

- per frame, ``simulator.truth.frame_truth``: the exact ball, buttons, keepers and contacts
  (every strike is a flick that reached the ball);
- the calls, ``button_truth_calls``: the reducer ``rules.button_football.step`` fed with the
  *exact* frames (positions to the micrometre, contacts on their frames, no uncertainty) and the
  shot calls on the frames they were made. The rules themselves are checked case by case
  (tests/rules/test_button_football.py); these calls are the ones a perfect camera would get,
  which is what a clip's camera-made calls are judged against.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from calibration.camera import CameraModel
from calibration.tables import load_pitch
from hardware.recording import RecordingWriter
from rules.button_football import step
from rules.button_state import ButtonConfig, ButtonState, ShotCall
from rules.calls import Call
from rules.observation import AWAY, HOME, Contact, Figures, Observation
from simulator.look import Look
from simulator.physics import FIGURE_DECEL_MM_S2
from simulator.render import EXPOSURE_S, Renderer
from simulator.scene import TEAM_NAMES
from simulator.scene_library import ATTEMPTS, PAUSE_S, Script, _seg_dist, touchline_out
from simulator.scenes import MAX_RUN_UP_MM, RUN_UP_MM, CompiledScene, SceneError, compile_scene, hit
from simulator.truth import frame_truth

TABLE = "button-football"
SHOT_CALLS_NAME = "shot_calls.jsonl"  # read back by tablevar.button_stage.read_shot_calls
CALL_AFTER_REST_S = 0.3  # a shot is called this long after the ball came to rest


@dataclass(frozen=True, slots=True)
class ButtonClip:
    """A compiled button scene and its shot calls ``(team, t_s)``, in time order."""

    compiled: CompiledScene
    shot_calls: tuple[tuple[int, float], ...] = ()


class ButtonScript(Script):
    """``Script`` with the button-football verb: calling a shot."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.calls: list[tuple[int, float]] = []

    def call_shot(self, team: int) -> None:
        """``team`` calls its shot now (the ball at rest since the last flick's pause)."""
        self.calls.append((team, round(self.t - CALL_AFTER_REST_S, 6)))

    def shoot(self, fig: int, end: str) -> None:
        """``fig`` shoots into the ``end`` goal past the keeper block; the net stops the ball."""
        p = self.pitch.profile
        goal = self.pitch.goal(end)
        sx = math.copysign(1.0, goal.x_line_mm)
        x_net = goal.x_back_mm - sx * self.r_ball
        beside = 0.5 * p.size_mm("keeper.width_mm") + self.r_ball + 3.0  # clear of the block
        inner = goal.y_max_mm - self.r_ball - 2.0
        for _ in range(40):
            y = float(self.rng.choice((-1.0, 1.0)) * self.rng.uniform(beside, inner))
            stop = np.array([x_net, y])
            if self.clear(self.ball, stop, skip=(fig,), margin_mm=2.0):
                break
        else:
            raise SceneError(f"no clear shot from {np.round(self.ball).tolist()} past the keeper")
        target = self.ball + (stop - self.ball) * (
            1.0 + 40.0 / float(np.hypot(*(stop - self.ball)))
        )
        self.flick(fig, target)
        self.ball = stop

    def hit(self, fig: int, target: int, to) -> None:
        """``fig`` is flicked into ``target``'s base instead of the ball; ``target`` slides to
        ``to`` (the compiler's head-on hit: ``fig`` stops where it touched)."""
        to = np.asarray(to, dtype=float)
        d = float(np.hypot(*(to - self.pos[target])))
        u = (to - self.pos[target]) / d
        contact = self.pos[target] - u * 2.0 * self.r_base
        if not self.good_run_up(fig, contact, u):  # leave the compiler time to bring it behind
            d_fig = float(np.hypot(*(contact - u * RUN_UP_MM - self.pos[fig])))
            self.t += 2.0 * math.sqrt(4.0 * d_fig / FIGURE_DECEL_MM_S2) + 0.4
        self.actions.append(hit(fig, self.t, target, tuple(to)))
        self.pos[fig], self.pos[target] = contact, to
        self.t += math.sqrt(2.0 * d / FIGURE_DECEL_MM_S2) + PAUSE_S

    def good_run_up(self, fig: int, contact, u) -> bool:
        """Whether ``fig`` stands where the compiler runs it up to ``contact`` along ``u``
        straight from its place (else it is slid behind first)."""
        run = np.asarray(contact) - self.pos[fig]
        run_mm = float(np.hypot(*run))
        return 1.0 < run_mm <= MAX_RUN_UP_MM and run @ u / run_mm >= math.cos(math.radians(30))


def _attack(s: ButtonScript, call: bool) -> str:
    """Home passes once in the away half, then shoots at the right goal (called or not)."""
    fig = s.pass_to_teammate(s.nearest(HOME), forward=1.0)
    if s.ball[0] <= s.r_ball + 40.0:
        raise SceneError("the pass did not stay in the opponents' half")
    if call:
        s.call_shot(HOME)
    s.shoot(fig, "right")
    return "called shot: goal" if call else "uncalled shot: goal kick"


def _seven(s: ButtonScript) -> str:
    """Home plays seven passes: the ball goes over to away."""
    fig = s.nearest(HOME)
    for _ in range(7):
        fig = s.pass_to_teammate(fig)
    return "seven ball contacts: the turn passes"


def _throw_in(s: ButtonScript) -> str:
    fig = s.pass_to_teammate(s.nearest(HOME))
    touchline_out(s, fig, margin_mm=float(s.rng.uniform(3.0, 20.0)))
    return "over the touchline: a throw-in for away"


def _kick_off(s: ButtonScript) -> str:
    """Home kicks off from the centre spot into the away half and passes on twice."""
    taker = s.nearest(HOME)
    to = (float(s.rng.uniform(60.0, 140.0)), float(s.rng.uniform(-60.0, 60.0)))
    if not s.clear(s.ball, to, skip=(taker,)):
        raise SceneError(f"no clear kick-off to {np.round(to).tolist()}")
    s.flick(taker, to)
    fig = min(
        (i for i in s.pos if s.team[i] == HOME and i not in (1, 12, taker)),
        key=lambda i: float(np.hypot(*(s.pos[i] - s.ball))),
    )
    for _ in range(2):
        fig = s.pass_to_teammate(fig)
    return "kick-off and two passes: no call"


def _called_kept_in_play(s: ButtonScript) -> str:
    """Home calls its shot in the away half; the shot stops in play: the ball goes over."""
    fig = s.pass_to_teammate(s.nearest(HOME), forward=1.0)
    if s.ball[0] <= s.r_ball + 40.0:
        raise SceneError("the pass did not stay in the opponents' half")
    s.call_shot(HOME)
    for _ in range(40):
        to = s.ball + s.rng.uniform(120.0, 260.0) * _unit(s.rng.uniform(-1.0, 1.0))
        if _open_spot(s, to) and s.clear(s.ball, to, skip=(fig,)) and s.run_up_clear(fig, to):
            s.flick(fig, to)
            return "a called shot kept in play: the ball goes over"
    raise SceneError(f"no clear shot kept in play from {np.round(s.ball).tolist()}")


def _over_goal_line(s: ButtonScript, team: int) -> None:
    """A button of ``team`` plays the ball over the right goal line, wide of the goal."""
    goal = s.pitch.goal("right")
    hy = 0.5 * s.pitch.profile.width_mm
    fig = s.nearest(team)
    for _ in range(40):
        y = float(s.rng.choice((-1.0, 1.0)) * s.rng.uniform(goal.y_max_mm + 45.0, hy - 40.0))
        x = s.goal_line_x("right") + s.r_ball + float(s.rng.uniform(3.0, 20.0))
        if s.clear(s.ball, (x, y), skip=(fig,)) and s.run_up_clear(fig, (x, y)):
            s.flick(fig, (x, y), expect="ball_out")
            return
    raise SceneError(f"no clear way over the goal line from {np.round(s.ball).tolist()}")


def _corner(s: ButtonScript) -> str:
    """Away plays the ball over its own goal line: a corner for home, taken to a team-mate."""
    _over_goal_line(s, AWAY)
    hx, hy = 0.5 * s.pitch.profile.length_mm, 0.5 * s.pitch.profile.width_mm
    sy = math.copysign(1.0, s.ball[1])
    s.place((hx - 12.0, sy * (hy - 12.0)))
    s.pass_to_teammate(s.nearest(HOME))
    return "over the goal line off a defender: a corner for home, taken"


def _goal_kick(s: ButtonScript) -> str:
    """Home plays the ball over the away goal line wide of the goal: a goal kick for away."""
    _over_goal_line(s, HOME)
    goal = s.pitch.goal("right")
    depth = s.pitch.profile.goal_area_depth_mm
    y = float(s.rng.choice((-1.0, 1.0)) * s.rng.uniform(70.0, 110.0))
    s.place((goal.x_line_mm - 0.5 * depth, y))
    return "over the goal line off an attacker: a goal kick for away"


def _keeper_ball(s: ButtonScript) -> str:
    """Home plays the ball to rest in the away goal area: the keeper's ball."""
    fig = s.pass_to_teammate(s.nearest(HOME), forward=1.0)
    goal = s.pitch.goal("right")
    depth = s.pitch.profile.goal_area_depth_mm
    keeper_half = 0.5 * s.pitch.profile.size_mm("keeper.width_mm")
    for _ in range(40):
        x = goal.x_line_mm - float(s.rng.uniform(s.r_ball + 6.0, depth - s.r_ball - 6.0))
        y = float(s.rng.choice((-1.0, 1.0)) * s.rng.uniform(keeper_half + s.r_ball + 12.0, 120.0))
        inside = float(s.pitch.zone_margin_mm("goal_area_right", (x, y))[0]) > 0
        if inside and s.clear(s.ball, (x, y), skip=(fig,)) and s.run_up_clear(fig, (x, y)):
            s.flick(fig, (x, y))
            return "the ball rests in the away goal area: the keeper's ball"
    raise SceneError(f"no clear pass into the goal area from {np.round(s.ball).tolist()}")


def _foul(s: ButtonScript, team: int, in_area: bool) -> None:
    """A button of ``team`` is flicked into an opponent's button, not the ball: one standing in
    ``team``'s own penalty area (``in_area``), or one in open play clear of both areas. The hit
    button slides 40-110 mm on; neither touches the ball or another piece."""
    own = f"penalty_area_{'left' if team == HOME else 'right'}"
    zones = [f"{b}_{e}" for b in ("penalty_area", "goal_area") for e in ("left", "right")]
    if any(
        float(s.pitch.zone_margin_mm(f"goal_area_{e}", s.ball)[0]) > -20.0
        for e in ("left", "right")
    ):
        raise SceneError("the ball rests at a goal area: the keeper's ball, not open play")
    targets = [i for i in s.pos if s.team[i] != team and i not in (1, 12)]
    s.rng.shuffle(targets)
    for target in targets:
        p = s.pos[target]
        if in_area and float(s.pitch.zone_margin_mm(own, p)[0]) < 20.0:
            continue
        if not in_area and max(float(s.pitch.zone_margin_mm(z, p)[0]) for z in zones) > -20.0:
            continue
        for _ in range(12):
            u = _unit(s.rng.uniform(-1.0, 1.0))
            to = p + float(s.rng.uniform(40.0, 110.0)) * u
            contact = p - u * 2.0 * s.r_base
            fig = s.nearest(team, to=contact - u * RUN_UP_MM)
            if _hit_clear(s, fig, target, contact, to):
                s.hit(fig, target, to)
                return
    where = "in its own penalty area" if in_area else "in open play"
    raise SceneError(f"no clear hit on an opponent {where}")


def _hit_clear(s: ButtonScript, fig: int, target: int, contact, to) -> bool:
    """Whether ``fig`` can run (behind first, if it must) to ``contact`` and the hit button
    slide to ``to`` without touching the ball or any other piece."""
    p = s.pos[target]
    u = (np.asarray(to) - p) / float(np.hypot(*(np.asarray(to) - p)))
    if not s.inside(to, 60.0):
        return False
    legs = [(s.pos[fig], contact)]
    if not s.good_run_up(fig, contact, u):
        legs = [(s.pos[fig], contact - u * RUN_UP_MM), (contact - u * RUN_UP_MM, contact)]
    base, ball = 2.0 * s.r_base + 6.0, s.r_ball + s.r_base + 6.0
    for i, q in s.pos.items():
        if i in (fig, target):
            continue
        if any(_seg_dist(q, a, b) < base for a, b in [*legs, (p, to)]):
            return False
    if any(_seg_dist(s.ball, a, b) < ball for a, b in [*legs, (p, to)]):
        return False
    return len(legs) == 1 or _seg_dist(p, *legs[0]) >= base


def _foul_free_kick(s: ButtonScript) -> str:
    """Home passes, then flicks a button into an away button in open play: a free kick for
    away at the foul."""
    s.pass_to_teammate(s.nearest(HOME))
    _foul(s, HOME, in_area=False)
    return "a button hit an opponent's before the ball: a free kick"


def _foul_penalty(s: ButtonScript) -> str:
    """Away passes deep in its half, then flicks a button into a home button standing in the
    away penalty area: a penalty for home."""
    area = s.pitch.profile
    hx = 0.5 * area.length_mm
    for _ in range(40):  # a home attacker comes into the away penalty area first
        spot = np.array(
            [
                hx - float(s.rng.uniform(45.0, area.penalty_area_depth_mm - 30.0)),
                float(s.rng.uniform(-1.0, 1.0)) * 150.0,
            ]
        )
        inside = float(s.pitch.zone_margin_mm("penalty_area_right", spot)[0]) > 30.0
        if inside and _open_spot(s, spot):
            s.move(s.nearest(HOME, to=spot), spot)
            break
    else:
        raise SceneError("no open spot for an attacker in the away penalty area")
    s.pass_to_teammate(s.nearest(AWAY))
    _foul(s, AWAY, in_area=True)
    return "a defender hit an opponent in its own penalty area before the ball: a penalty"


def _unit(turn: float) -> np.ndarray:
    return np.array([math.cos(math.pi * turn), math.sin(math.pi * turn)])


def _open_spot(s: ButtonScript, xy) -> bool:
    """Whether ``xy`` lies in play, outside both goal areas and clear of every button."""
    if not s.inside(xy, 60.0):
        return False
    if any(
        float(s.pitch.zone_margin_mm(f"goal_area_{e}", xy)[0]) > -20.0 for e in ("left", "right")
    ):
        return False
    need = s.r_ball + s.r_base + 15.0
    return all(float(np.hypot(*(p - xy))) >= need for p in s.pos.values())


ATTACKS = ("bf_called_goal", "bf_uncalled_goal", "bf_called_kept_in_play", "bf_keeper_ball")
AT_GOAL_LINE = ("bf_corner", "bf_goal_kick", "bf_foul_penalty")
SCENES: dict[str, Callable[[ButtonScript], str]] = {
    "bf_called_goal": lambda s: _attack(s, True),
    "bf_uncalled_goal": lambda s: _attack(s, False),
    "bf_seven_contacts": _seven,
    "bf_throw_in": _throw_in,
    "bf_kick_off": _kick_off,
    "bf_called_kept_in_play": _called_kept_in_play,
    "bf_corner": _corner,
    "bf_goal_kick": _goal_kick,
    "bf_keeper_ball": _keeper_ball,
    "bf_foul_free_kick": _foul_free_kick,
    "bf_foul_penalty": _foul_penalty,
}


def build_button_scene(name: str, seed: int = 0) -> ButtonClip:
    """Write and compile the named button scene for ``seed`` (the same seed, the same clip).

    Raises:
        SceneError: unknown scene, or no draw for this seed compiled within ``ATTEMPTS`` tries.
    """
    if name not in SCENES:
        raise SceneError(f"unknown button scene {name!r}; scenes: {', '.join(SCENES)}")
    pitch = load_pitch(TABLE)
    error: SceneError | None = None
    for attempt in range(ATTEMPTS):
        rng = np.random.default_rng([seed, attempt])
        start = (0.0, 0.0)
        if name in ATTACKS:  # the ball starts in the away half, where home attacks
            start = (float(rng.uniform(60, 200)), float(rng.uniform(-150, 150)))
        elif name in AT_GOAL_LINE:  # the ball starts deep in the away half
            start = (float(rng.uniform(330, 420)), float(rng.uniform(-200, 200)))
        script = ButtonScript(pitch, rng, ball=start)
        try:
            description = SCENES[name](script)
            compiled = compile_scene(script.scene(name, description), pitch)
            return ButtonClip(compiled, tuple(script.calls))
        except SceneError as exc:
            error = exc
    raise SceneError(
        f"button scene {name!r} seed {seed}: no valid draw in {ATTEMPTS} tries: {error}"
    )


def exact_observations(clip: ButtonClip, fps: float) -> list[Observation | ShotCall]:
    """The reducer's inputs a perfect camera would give: every frame exactly, each shot call
    before the first frame at or after its instant."""
    r = clip.compiled.pitch.profile.ball_radius_mm
    calls = sorted(clip.shot_calls, key=lambda c: c[1])
    out: list[Observation | ShotCall] = []
    for rec in frame_truth(clip.compiled, fps):
        while calls and calls[0][1] <= rec["t_s"] + 1e-9:
            team, t_s = calls.pop(0)
            out.append(ShotCall(team, rec["frame"], t_s))
        figs = rec["figures"]
        figures = Figures.build(
            [f["id"] for f in figs],
            [f["team"] for f in figs],
            [f["goalkeeper"] for f in figs],
            [(f["x_mm"], f["y_mm"]) for f in figs],
            clip.compiled.pitch.profile.base_radius_mm,
        )
        contacts = tuple(
            Contact(c["figure"], "flick", c["onset_frame"], c.get("target"))
            for c in rec["contacts"]
        )
        ball = rec["ball"]
        out.append(
            Observation(
                t_s=rec["t_s"],
                frame=rec["frame"],
                ball_xy_mm=None if ball is None else (ball["x_mm"], ball["y_mm"]),
                ball_radius_mm=r,
                ball_uncertainty_mm=0.0,
                ball_moving=bool(ball and ball["moving"]),
                figures=figures,
                contacts=contacts,
                figure_uncertainty_mm=0.0,
            )
        )
    return out


def button_truth_calls(clip: ButtonClip, fps: float, **config: Any) -> list[Call]:
    """The calls a perfect camera gets on ``clip`` (``config`` goes to ``ButtonConfig``)."""
    state = ButtonState.new(ButtonConfig(clip.compiled.pitch, **config))
    calls: list[Call] = []
    for item in exact_observations(clip, fps):
        state, new = step(state, item)
        calls += new
    return calls


def simulate_button(
    clip: ButtonClip,
    out: str | Path,
    *,
    camera: CameraModel,
    look: Look,
    fps: float = 50.0,
    seed: int = 0,
    lossless: bool = False,
) -> int:
    """Render ``clip`` into the recording folder ``out`` with its truth: ``truth.jsonl`` (the
    exact frames), ``truth_calls.jsonl`` (``button_truth_calls``) and ``shot_calls.jsonl``
    (the players' calls, which ``analyze`` reads back). Returns the number of frames."""
    c = clip.compiled
    renderer = Renderer(camera, c.pitch, look, seed=seed, exposure_s=EXPOSURE_S)
    truth = frame_truth(c, fps)
    calls = [call.to_record() for call in button_truth_calls(clip, fps)]
    with RecordingWriter(
        out,
        fps=fps,
        size_px=camera.size_px,
        table=c.pitch.profile.name,
        source=f"sim:{c.scene.name}",
        camera=camera,
        readout_s=renderer.readout_s,
        overwrite=True,
        repeatable=True,
        lossless=lossless,
    ) as writer:
        for i, rec in enumerate(truth):
            writer.write(renderer.render(c.frame(i / fps)), round(i * 1e9 / fps), rec)
        writer.write_truth_calls(calls)
    lines = [json.dumps({"team": TEAM_NAMES[t], "t_s": t_s}) for t, t_s in clip.shot_calls]
    (Path(out) / SHOT_CALLS_NAME).write_text("".join(f"{x}\n" for x in lines), "utf-8")
    return len(truth)
