"""Named scenes: scripted clips whose positions and margins are drawn from a seed.

``build_scene(name, seed)`` returns a compiled scene; ``SCENES`` maps each name to its builder.
Every builder writes its clip with a ``Script`` (a cursor in time that knows where the ball and
the figures are) and draws its free numbers (line-up jitter, pass targets, margins at a line)
from ``numpy.random.Generator``, so benchmarks can draw many distinct clips of one kind. A draw
that the compiler rejects (a pass through a figure that happened to stand in the way) is drawn
again from the next sub-seed, so a seed always gives the same clip.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from calibration.tables import load_pitch
from rules.geometry import zone_overlap_margin_mm
from rules.pitch import Pitch
from simulator.physics import BALL_DECEL_MM_S2, FIGURE_DECEL_MM_S2
from simulator.scene import AWAY, HOME
from simulator.scenes import (
    MAX_RUN_UP_MM,
    RUN_UP_MM,
    Action,
    CompiledScene,
    FigureSpec,
    Scene,
    SceneError,
    compile_scene,
    flick,
    move,
    place_ball,
)
from simulator.truth import decide

ATTEMPTS = 40
CHECK_FPS = 60.0
PAUSE_S = 0.8  # between the ball coming to rest and the next strike (room for a run-up)

# 1-4-4-2 for the home team (defending x < 0), as fractions of half length / half width.
_FORMATION = (
    (-0.975, 0.0),
    (-0.72, -0.62),
    (-0.75, -0.21),
    (-0.75, 0.21),
    (-0.72, 0.62),
    (-0.42, -0.60),
    (-0.45, -0.19),
    (-0.45, 0.19),
    (-0.42, 0.60),
    (-0.12, -0.30),
    (-0.12, 0.30),
)


def lineup(pitch: Pitch, rng: np.random.Generator, jitter_mm: float = 12.0) -> list[FigureSpec]:
    """Both teams in a jittered 1-4-4-2; home ids 1-11, away 12-22, goalkeepers 1 and 12."""
    hx, hy = 0.5 * pitch.profile.length_mm, 0.5 * pitch.profile.width_mm
    specs = []
    for team, sign, first in ((HOME, 1.0, 1), (AWAY, -1.0, 12)):
        for k, (fx, fy) in enumerate(_FORMATION):
            j = np.zeros(2) if k == 0 else rng.uniform(-jitter_mm, jitter_mm, 2)
            x = sign * (fx * hx) + j[0]
            y = fy * hy + j[1]
            specs.append(FigureSpec(first + k, team, k == 0, (float(x), float(y))))
    return specs


class Script:
    """A time cursor for writing a clip: each verb appends an action and advances time."""

    def __init__(self, pitch: Pitch, rng: np.random.Generator, ball=(0.0, 0.0)) -> None:
        self.pitch, self.rng = pitch, rng
        self.specs = lineup(pitch, rng)
        self.pos = {s.id: np.asarray(s.xy_mm) for s in self.specs}
        self.team = {s.id: s.team for s in self.specs}
        self.ball = np.asarray(ball, dtype=float)
        self.start_ball = tuple(ball)
        self.r_ball = pitch.profile.ball_radius_mm
        self.r_base = pitch.profile.base_radius_mm
        self.t = 0.6
        self.actions: list[Action] = []

    # ------------------------------------------------------------------ verbs
    def flick(self, fig: int, to, expect: str | None = None, pause_s: float = PAUSE_S) -> None:
        to = np.asarray(to, dtype=float)
        d = float(np.hypot(*(to - self.ball)))
        u = (to - self.ball) / d
        contact = self.ball - u * (self.r_ball + self.r_base)
        run = contact - self.pos[fig]
        run_mm = float(np.hypot(*run))
        if not (1.0 < run_mm <= MAX_RUN_UP_MM and run @ u / run_mm >= math.cos(math.radians(30))):
            # The compiler will first slide the figure behind the ball: leave it the time.
            d_fig = float(np.hypot(*(contact - u * RUN_UP_MM - self.pos[fig])))
            self.t += 2.0 * math.sqrt(4.0 * d_fig / FIGURE_DECEL_MM_S2) + 0.4
        self.actions.append(flick(fig, self.t, tuple(to), expect))
        self.pos[fig] = self.ball - u * (self.r_ball + self.r_base + 2.0)
        self.ball = to
        self.t += math.sqrt(2 * d / BALL_DECEL_MM_S2) + pause_s

    def move(self, fig: int, to) -> None:
        to = np.asarray(to, dtype=float)
        d = float(np.hypot(*(to - self.pos[fig])))
        self.actions.append(move(fig, self.t, tuple(to)))
        self.pos[fig] = to
        self.t += 2 * math.sqrt(4 * d / FIGURE_DECEL_MM_S2) + 0.3

    def place(self, to, lift_s: float = 0.8) -> None:
        self.actions.append(place_ball(self.t, tuple(to), lift_s=lift_s))
        self.ball = np.asarray(to, dtype=float)
        self.t += lift_s + 0.3 + PAUSE_S

    def advance(self, team: int, spots) -> None:
        """Bring the outfield figures of ``team`` nearest each spot up to it, one by one."""
        for spot in spots:
            spot = np.asarray(spot, float) + self.rng.uniform(-15, 15, 2)
            self.move(self.nearest(team, to=spot), spot)

    def wait(self, s: float) -> None:
        self.t += s

    # ------------------------------------------------------------------ choosing
    def nearest(self, team: int, to=None) -> int:
        """The outfield figure of ``team`` nearest ``to`` (default the ball)."""
        p = self.ball if to is None else np.asarray(to)
        ids = [i for i, s in enumerate(self.specs) if s.team == team and not s.goalkeeper]
        best = min(ids, key=lambda i: np.hypot(*(self.pos[self.specs[i].id] - p)))
        return self.specs[best].id

    def clear(self, a, b, skip=(), margin_mm: float = 8.0) -> bool:
        """Whether a ball rolling from ``a`` to ``b`` passes every figure (but ``skip``)."""
        a, b = np.asarray(a, float), np.asarray(b, float)
        need = self.r_ball + self.r_base + margin_mm
        return all(_seg_dist(p, a, b) >= need for i, p in self.pos.items() if i not in skip)

    def run_up_clear(self, fig: int, to) -> bool:
        """Whether ``fig`` can get behind the ball for a pass to ``to`` without hitting anyone."""
        to = np.asarray(to, dtype=float)
        u = (to - self.ball) / float(np.hypot(*(to - self.ball)))
        contact = self.ball - u * (self.r_ball + self.r_base)
        spot = contact - u * RUN_UP_MM
        need = 2 * self.r_base + 6.0
        others = [p for i, p in self.pos.items() if i != fig]
        legs = ((self.pos[fig], spot), (spot, contact + u * 15.0))
        return all(_seg_dist(p, a, b) >= need for p in others for a, b in legs)

    def pass_to_teammate(self, fig: int, forward: float | None = None) -> int:
        """Pass from ``fig`` to a teammate with a clear lane; returns the receiver."""
        team = self.team[fig]
        mates = [i for i in self.pos if self.team[i] == team and i != fig and i not in (1, 12)]
        self.rng.shuffle(mates)
        gap = self.r_ball + self.r_base + 6.0
        for m in mates:
            p = self.pos[m]
            d = float(np.hypot(*(p - self.ball)))
            if not 100.0 < d < 450.0:
                continue
            if forward is not None and (p[0] - self.ball[0]) * forward < 0:
                continue
            target = p - (p - self.ball) / d * gap
            if (
                self.clear(self.ball, target, skip=(fig, m))
                and self.inside(target, 40.0)
                and self.run_up_clear(fig, target)
            ):
                self.flick(fig, target)
                return m
        # Nobody free: play the ball into open space toward the middle and chase it.
        for _ in range(30):
            angle = self.rng.uniform(0, 2 * math.pi)
            target = self.ball + self.rng.uniform(120, 300) * np.array(
                [math.cos(angle), math.sin(angle)]
            )
            if (
                self.inside(target, 60.0)
                and self.clear(self.ball, target, skip=(fig,))
                and self.run_up_clear(fig, target)
            ):
                self.flick(fig, target)
                return self.nearest(team)
        raise SceneError(f"no clear pass from figure {fig} at {np.round(self.ball).tolist()}")

    def inside(self, xy, margin_mm: float) -> bool:
        hx, hy = 0.5 * self.pitch.profile.length_mm, 0.5 * self.pitch.profile.width_mm
        return abs(xy[0]) < hx - margin_mm and abs(xy[1]) < hy - margin_mm

    def scene(self, name: str, description: str, tail_s: float = 0.8) -> Scene:
        return Scene(
            name=name,
            duration_s=round(self.t + tail_s, 3),
            lineup=tuple(self.specs),
            ball_mm=tuple(float(v) for v in self.start_ball),
            actions=tuple(self.actions),
            table=self.pitch.profile.name,
            description=description,
        )

    # ------------------------------------------------------------------ geometry helpers
    def goal_line_x(self, end: str) -> float:
        """x of the goal line's outer (far) edge at ``end``."""
        return math.copysign(0.5 * self.pitch.profile.length_mm, 1.0 if end == "right" else -1.0)

    def touch_y(self, side: str) -> float:
        return math.copysign(0.5 * self.pitch.profile.width_mm, 1.0 if side == "top" else -1.0)


def _seg_dist(p, a, b) -> float:
    ab = b - a
    den = float(ab @ ab)
    f = 0.0 if den == 0 else min(max(float((p - a) @ ab) / den, 0.0), 1.0)
    return float(np.hypot(*(a + f * ab - p)))


# ---------------------------------------------------------------------- scene writers
def kick_off(s: Script, to, team: int = HOME) -> int:
    """``team`` kicks off from the centre spot forward (4.2.3) to ``to``; returns the taker."""
    taker = s.nearest(team)
    to = np.asarray(to, float)
    forward = 1.0 if team == HOME else -1.0
    if not (forward * to[0] > 0 and s.clear(s.ball, to, skip=(taker,))):
        raise SceneError(f"no clear kick-off to {np.round(to).tolist()}")
    s.flick(taker, to)
    return taker


def kickoff(s: Script, team: int = HOME, passes: int = 3) -> int:
    """A forward kick-off and a few passes; returns the figure on the ball."""
    sx = 1.0 if team == HOME else -1.0
    taker = kick_off(s, (sx * s.rng.uniform(60.0, 140.0), s.rng.uniform(-40.0, 40.0)), team)
    fig = s.nearest(team)
    if fig == taker:
        fig = min(
            (i for i in s.pos if s.team[i] == team and i not in (1, 12, taker)),
            key=lambda i: float(np.hypot(*(s.pos[i] - s.ball))),
        )
    for _ in range(passes):
        fig = s.pass_to_teammate(fig)
    return fig


def touchline_out(s: Script, fig: int, margin_mm: float) -> None:
    """``fig`` plays the ball over the nearer touchline; throw-in placed for the other team."""
    side = "top" if s.ball[1] >= 0 else "bottom"
    sy = 1.0 if side == "top" else -1.0
    x = float(np.clip(s.ball[0] + s.rng.uniform(-120, 120), -450, 450))
    y = s.touch_y(side) + sy * (s.r_ball + margin_mm)
    start = s.ball.copy()
    s.flick(fig, (x, y), expect="ball_out")
    # FISTF 14.2: the throw-in is taken where the ball crossed, centred on the touchline.
    f = (s.touch_y(side) + sy * s.r_ball - start[1]) / (y - start[1])
    s.place((float(start[0] + f * (x - start[0])), s.touch_y(side) - sy * 1.5))


def goal_line_rest(s: Script, fig: int, end: str, y: float, margin_mm: float, expect: str):
    """The ball comes to rest ``margin_mm`` beyond (> 0) or short of (< 0) the goal line."""
    sx = 1.0 if end == "right" else -1.0
    x = s.goal_line_x(end) + sx * (s.r_ball + margin_mm)
    s.flick(fig, (x, y), expect=expect)


def lineup_for_shot(s: Script, team: int, ball_x: float, y: float) -> int:
    """Put the ball at (ball_x, y) and a shooter behind it; returns the shooter."""
    s.place((ball_x, y))
    return s.nearest(team)


def shot_at_goal(s: Script, fig: int, end: str, expect: str) -> None:
    """``fig`` shoots into the ``end`` goal; the back net stops the ball; the ball goes back."""
    goal = s.pitch.goal(end)
    sx = math.copysign(1.0, goal.x_line_mm)
    x_net = goal.x_back_mm - sx * s.r_ball
    for _ in range(40):
        y = float(s.rng.uniform(goal.y_min_mm + 18, goal.y_max_mm - 18))
        # Aim along the line to where the net stops the ball, past the goalkeeper.
        stop = np.array([x_net, y])
        if s.clear(s.ball, stop, skip=(fig,), margin_mm=2.0):
            break
    else:
        raise SceneError(f"no clear shot from {np.round(s.ball).tolist()} past the goalkeeper")
    target = s.ball + (stop - s.ball) * (1.0 + 40.0 / float(np.hypot(*(stop - s.ball))))
    s.flick(fig, target, expect=expect)
    s.ball = stop  # stopped by the net; the ball sits against it


def offside_attack(s: Script, team: int, end: str) -> None:
    """An attacker stands offside; a team-mate plays the ball forward inside the zone."""
    sx = 1.0 if end == "right" else -1.0
    hx = 0.5 * s.pitch.profile.length_mm
    shoot_x = hx - s.pitch.profile.shooting_line_from_goal_line_mm
    ball = np.array([sx * s.rng.uniform(shoot_x + 45, shoot_x + 70), s.rng.uniform(-150, 150)])
    s.place(ball)
    # The runner stands deeper than every outfield defender (only the keeper is nearer).
    defenders = [i for i in s.pos if s.team[i] != team and i not in (1, 12)]
    deepest = max(sx * s.pos[i][0] for i in defenders)
    runner = s.nearest(team, to=(sx * (deepest + 30), ball[1]))
    spot_y = float(np.clip(ball[1] + s.rng.uniform(-200, 200), -300, 300))
    s.move(runner, (sx * (deepest + s.rng.uniform(35, 55)), spot_y))
    passer = s.nearest(team)
    if passer == runner:
        passer = next(i for i in s.pos if s.team[i] == team and i not in (runner, 1, 12))
    target = ball + np.array([sx * s.rng.uniform(40, 70), s.rng.uniform(-40, 40)])
    s.flick(passer, target, expect="offside")
    s.place(s.pos[runner] + np.array([-sx * (s.r_ball + s.r_base + 4), 0.0]))


def clear_of(s: Script, reach, toward, keep=(), gap_mm: float = 24.0) -> None:
    """Move every outfield figure but ``keep`` for which ``reach(xy) > 0`` until it is <= 0.

    Each steps 30 mm at a time toward ``toward(xy)`` until clear and at least ``gap_mm`` (base
    to base) from every other figure, so opponents also keep the 20 mm of FISTF 15.2.1.3.
    """
    need = 2 * s.r_base + gap_mm
    for fid in sorted(s.pos):
        if fid in (1, 12) or fid in keep or reach(s.pos[fid]) <= 0:
            continue
        spot = s.pos[fid].copy()
        for _ in range(20):
            aim = np.asarray(toward(spot), float) - spot
            spot = spot + aim * min(1.0, 30.0 / max(float(np.hypot(*aim)), 1e-9))
            others = [p for i, p in s.pos.items() if i != fid]
            if reach(spot) <= 0 and all(float(np.hypot(*(p - spot))) >= need for p in others):
                s.move(fid, spot)
                break
        else:
            raise SceneError(f"no room to move figure {fid} clear for a restart")


def goal_kick(s: Script, end: str) -> None:
    """The defender of ``end`` takes a legal goal kick (FISTF 15.2) with its goalkeeper.

    15.2.1.2: no figure but the taker and keepers in or on the penalty area; 15.2.2: the ball
    in the goal area; 15.2.4: the ball must wholly leave the penalty area.
    """
    sx = 1.0 if end == "right" else -1.0
    keeper = 12 if end == "right" else 1  # the defender of the end kicks with its keeper
    area = f"penalty_area_{end}"
    margin = s.r_base + 4.0

    def reach(xy) -> float:
        return float(zone_overlap_margin_mm(s.pitch, area, np.asarray(xy)[None], margin)[0])

    clear_of(s, reach, lambda xy: (0.0, xy[1]))  # straight out toward the halfway line
    hx = 0.5 * s.pitch.profile.length_mm
    spot = np.array([sx * (hx - 15.0), 0.0])  # the keeper on its line, mid-goal
    if float(np.hypot(*(s.pos[keeper] - spot))) > 1.0:
        s.move(keeper, spot)
    front = hx - s.pitch.profile.penalty_area_depth_mm
    for _ in range(40):
        to = np.array([sx * (front - s.rng.uniform(90.0, 150.0)), s.rng.uniform(-120.0, 120.0)])
        # The ball just in front of the keeper, on its line to the target: no run-up needed.
        u = (to - spot) / float(np.hypot(*(to - spot)))
        ball = spot + u * (s.r_ball + s.r_base + 4.0)
        if s.clear(ball, to, skip=(keeper,)):
            s.place(tuple(ball))
            s.flick(keeper, tuple(to))
            return
    raise SceneError(f"no clear goal kick from {np.round(s.ball).tolist()}")


def restart_kick_off(s: Script, team: int) -> int:
    """``team`` kicks off legally after a goal (FISTF 4.2.1): the ball on the centre spot, every
    figure wholly in its own half, the opponents out of the centre circle; returns the taker."""
    circle = s.pitch.profile.centre_circle_radius_mm + s.pitch.profile.line_width_mm
    for side, sign in ((HOME, -1.0), (AWAY, 1.0)):
        mine = [i for i in s.pos if s.team[i] == side]

        def reach(xy, side=side, half=f"half_{'left' if sign < 0 else 'right'}") -> float:
            # Wholly inside its own half: also back onto the cloth from beyond a touchline.
            into = s.r_base + 4.0 - float(s.pitch.zone_margin_mm(half, np.asarray(xy))[0])
            if side != team:
                into = max(into, circle + s.r_base + 4.0 - float(np.hypot(*xy)))
            return into

        middle = (sign * 0.25 * s.pitch.profile.length_mm, 0.0)  # the middle of its half
        clear_of(s, reach, lambda xy, m=middle: m, keep=[i for i in s.pos if i not in mine])
    s.place((0.0, 0.0))  # after the figures have moved: none walks through the ball
    forward = 1.0 if team == HOME else -1.0
    for _ in range(40):
        to = (forward * s.rng.uniform(60.0, 140.0), float(s.rng.uniform(-40.0, 40.0)))
        if s.clear(s.ball, to, skip=(s.nearest(team),)):
            return kick_off(s, to, team)
    raise SceneError("no clear kick-off")


def nearest_other(s: Script, team: int, exclude: tuple[int, ...], to=None) -> int:
    """The outfield figure of ``team`` nearest ``to`` (default the ball), not in ``exclude``."""
    p = s.ball if to is None else np.asarray(to, float)
    ids = [i for i in s.pos if s.team[i] == team and i not in (1, 12, *exclude)]
    return min(ids, key=lambda i: float(np.hypot(*(s.pos[i] - p))))


def offside_pass(s: Script, offside: bool = True) -> str:
    """A kick-off, then a forward pass into the shooting zone with a runner placed offside
    (or, with ``offside=False``, level with or behind the ball)."""
    rng = s.rng
    shoot_x = 0.5 * s.pitch.profile.length_mm - s.pitch.profile.shooting_line_from_goal_line_mm
    ball = (rng.uniform(shoot_x + 45, shoot_x + 70), rng.uniform(-20, 20))
    taker = kick_off(s, ball)
    defenders = [i for i in s.pos if s.team[i] != HOME and i not in (1, 12)]
    deepest = max(s.pos[i][0] for i in defenders)
    if offside:
        spot = (
            deepest + rng.uniform(35, 55),
            float(np.clip(ball[1] + rng.uniform(-200, 200), -300, 300)),
        )
    else:  # level with or behind the ball: never offside
        spot = (
            ball[0] - rng.uniform(40, 80),
            float(np.clip(ball[1] + rng.uniform(-200, 200), -300, 300)),
        )
    runner = nearest_other(s, HOME, (taker,), to=spot)
    s.move(runner, spot)
    passer = nearest_other(s, HOME, (taker, runner))
    target = s.ball + np.array([rng.uniform(40, 70), rng.uniform(-40, 40)])
    if not s.clear(s.ball, target, skip=(passer,)):
        raise SceneError("the forward pass is blocked")
    s.flick(passer, target, expect="offside" if offside else None)
    return f"kick-off, then a forward pass in the shooting zone, {'' if offside else 'no '}offside"


def _kickoff_pass(s: Script) -> str:
    kickoff(s, HOME, passes=int(s.rng.integers(2, 4)))
    return "kick-off and a few passes"


def _touchline_out(s: Script) -> str:
    fig = kickoff(s, HOME, passes=2)
    touchline_out(s, fig, float(s.rng.uniform(0.2, 30.0)))
    return "passes, then the ball over a touchline and a throw-in"


def _goal_line_close(s: Script) -> str:
    end, side = "right", float(s.rng.choice([-1.0, 1.0]))
    s.place((430.0, side * float(s.rng.uniform(120, 220))))
    fig = s.nearest(HOME)
    y_in = side * float(s.rng.uniform(150, 280))
    goal_line_rest(s, fig, end, y_in, -float(s.rng.uniform(0.1, 0.9)), "close_call")
    s.place((430.0, -side * float(s.rng.uniform(120, 220))))
    fig = s.nearest(HOME)
    y_out = -side * float(s.rng.uniform(150, 280))
    goal_line_rest(s, fig, end, y_out, float(s.rng.uniform(0.1, 0.9)), "ball_out")
    return "the ball at rest a fraction of a millimetre inside, then outside, the goal line"


def _shot_after_kick_off(s: Script, x: float, y: float, expect: str) -> None:
    """A forward kick-off to (x, y), then another home figure shoots into the right goal."""
    taker = kick_off(s, (x, y))
    fig = min(
        (i for i in s.pos if s.team[i] == HOME and i not in (1, 12, taker)),
        key=lambda i: float(np.hypot(*(s.pos[i] - s.ball))),
    )
    shot_at_goal(s, fig, "right", expect)


def _goal_inside_zone(s: Script) -> str:
    _shot_after_kick_off(s, float(s.rng.uniform(345, 400)), float(s.rng.uniform(-25, 25)), "goal")
    return "a kick-off, then a shot from inside the shooting zone into the goal"


def _goal_outside_zone(s: Script) -> str:
    x, y = float(s.rng.uniform(190, 260)), float(s.rng.uniform(-25, 25))
    _shot_after_kick_off(s, x, y, "goal_disallowed")
    return "a kick-off, then a shot from outside the shooting zone into the goal (no goal)"


def _offside(s: Script) -> str:
    offside_pass(s, offside=True)
    return "a kick-off, then a forward pass inside the shooting zone with an attacker offside"


def _long_rally(s: Script) -> str:
    fig = kickoff(s, HOME, passes=0)
    while s.t < 60.0:
        fig = s.pass_to_teammate(fig)
    return "60 s of passes"


def _demo(s: Script) -> str:
    # Short enough to stay near a minute although every restart is taken in full.
    fig = kickoff(s, HOME, passes=1)
    touchline_out(s, fig, 22.0)
    s.pass_to_teammate(s.nearest(AWAY))  # the throw-in
    s.place((440.0, 150.0))
    goal_line_rest(s, s.nearest(HOME), "right", 230.0, -0.4, "close_call")
    s.place((440.0, -150.0))
    goal_line_rest(s, s.nearest(HOME), "right", -240.0, 0.6, "ball_out")
    goal_kick(s, "right")  # every restart is taken as the law says, or the rules fault it
    fig = lineup_for_shot(s, HOME, 380.0, 20.0)
    shot_at_goal(s, fig, "right", "goal")
    restart_kick_off(s, AWAY)
    fig = lineup_for_shot(s, HOME, 220.0, -30.0)
    shot_at_goal(s, fig, "right", "goal_disallowed")
    goal_kick(s, "right")
    offside_attack(s, HOME, "right")
    return "a short match: passes, throw-in, close calls, a goal, a disallowed goal, offside"


SceneWriter = Callable[[Script], str]
SCENES: dict[str, SceneWriter] = {
    "demo": _demo,
    "kickoff_pass": _kickoff_pass,
    "touchline_out": _touchline_out,
    "goal_line_close": _goal_line_close,
    "goal_inside_zone": _goal_inside_zone,
    "goal_outside_zone": _goal_outside_zone,
    "offside": _offside,
    "long_rally": _long_rally,
}


class UnknownSceneError(ValueError):
    """A scene name that is not in the registry."""


def scene_names() -> list[str]:
    return sorted(SCENES)


def build_scene(name: str, seed: int = 0, table: str = "fistf") -> CompiledScene:
    """Write and compile the named scene for ``seed``; the same seed gives the same clip.

    Raises:
        UnknownSceneError: ``name`` is not a known scene (the message lists them).
        SceneError: no draw for this seed could be compiled within ``ATTEMPTS`` tries.
    """
    if name not in SCENES:
        raise UnknownSceneError(f"unknown scene {name!r}; scenes: {', '.join(scene_names())}")
    pitch = load_pitch(table)
    error: SceneError | None = None
    for attempt in range(ATTEMPTS):
        rng = np.random.default_rng([seed, attempt])
        script = Script(pitch, rng)
        try:
            description = SCENES[name](script)
            compiled = compile_scene(script.scene(name, description), pitch)
            decide(compiled, CHECK_FPS)  # the declared calls must agree with the trajectory
            return compiled
        except SceneError as exc:
            error = exc
    raise SceneError(f"scene {name!r} seed {seed}: no valid draw in {ATTEMPTS} tries: {error}")
