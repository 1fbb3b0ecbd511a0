"""Scripted simulator scenes: a line-up plus a timeline of actions, compiled to exact motion.

A ``Scene`` is plain data: the figures at the start (11 per team, a goalkeeper each; home
defends the left goal, x < 0), where the ball starts, and actions in time order:

- ``flick(figure, at_s, ball_to)``: the figure slides into the ball and the ball rolls to
  ``ball_to`` and stops there exactly (or is stopped earlier by a goal's back net). ``at_s`` is
  the instant of contact, when the ball starts to move; the figure's run-up happens just before.
  A figure that does not stand behind the ball along the pass is first repositioned there.
- ``move(figure, at_s, to)``: a figure slides to ``to`` without touching the ball.
- ``hit(figure, at_s, target, target_to)``: the figure is flicked into another figure's base
  instead of the ball (button football's foul). Bases of one size and mass meeting head on:
  the struck base stops where it touches, the hit one slides on along the line of centres to
  ``target_to`` with the speed the struck one had.
- ``place_ball(at_s, to)``: a hand lifts the ball (it is off the table, ``None``, meanwhile) and
  puts it down on ``to`` for a restart; a finger is seen over the table while it does.
- ``finger(at_s, until_s, tip)``: a finger hovering over the table.

An action may say which call it should cause (``expect="ball_out"``, ``"goal"``,
``"goal_disallowed"``, ``"offside"``, ``"close_call"``); ``simulator/truth.py`` turns that intent
plus the exact trajectory into the call a referee should make, and checks the two agree.

``compile_scene`` turns a scene into a ``CompiledScene``: one analytic ``Path`` per object, so
``frame(t)`` gives the exact ``SceneFrame`` at any time. Compiling also checks that the script is
physically possible: the ball never passes through a base, bases never overlap, the ball is at
rest and on the table when it is struck.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import NDArray

from rules.pitch import Pitch
from simulator.physics import (
    BALL_DECEL_MM_S2,
    FIGURE_CONTACT_SPEED_RATIO,
    FIGURE_DECEL_MM_S2,
    FOLLOW_THROUGH_RATIO,
    Lift,
    Path,
    PhysicsError,
    Slide,
    launch_speed_mm_s,
)
from simulator.scene import AWAY, HOME, Figures, Finger, SceneFrame

EXPECTS = ("ball_out", "goal", "goal_disallowed", "offside", "close_call")
RUN_UP_MM = 35.0  # gap between a repositioned figure's base and the ball before a flick
RUN_UP_GAP_S = 0.15  # pause between a repositioning slide and the run-up
MAX_CUT_DEG = 30.0  # a figure further off the pass line than this is repositioned first
MAX_RUN_UP_MM = 120.0  # a figure further from the ball than this is repositioned first
CHECK_HZ = 240.0  # time grid on which overlaps are checked
FINGER_LEAD_S = 0.25  # a finger is over the table this long before and after a placement
_TOUCH_TOL_MM = 1e-6


class SceneError(ValueError):
    """A scene script is impossible or inconsistent; the message names the action and time."""


@dataclass(frozen=True, slots=True)
class FigureSpec:
    """One figure of the line-up: id, team (``HOME``/``AWAY``), goalkeeper flag, start point."""

    id: int
    team: int
    goalkeeper: bool
    xy_mm: tuple[float, float]


@dataclass(frozen=True, slots=True)
class Flick:
    figure: int
    at_s: float
    ball_to: tuple[float, float]
    expect: str | None = None


@dataclass(frozen=True, slots=True)
class Move:
    figure: int
    at_s: float
    to: tuple[float, float]


@dataclass(frozen=True, slots=True)
class Hit:
    figure: int
    at_s: float
    target: int
    target_to: tuple[float, float]


@dataclass(frozen=True, slots=True)
class PlaceBall:
    at_s: float
    to: tuple[float, float]
    lift_s: float = 0.8
    with_finger: bool = True


@dataclass(frozen=True, slots=True)
class FingerOver:
    at_s: float
    until_s: float
    tip: tuple[float, float]


Action = Flick | Move | Hit | PlaceBall | FingerOver


def flick(
    figure: int, at_s: float, ball_to: tuple[float, float], expect: str | None = None
) -> Flick:
    """The figure strikes the ball at ``at_s``; the ball rolls to ``ball_to``."""
    if expect is not None and expect not in EXPECTS:
        raise SceneError(f"flick of figure {figure}: unknown expect {expect!r}; use {EXPECTS}")
    return Flick(figure, float(at_s), _pt(ball_to), expect)


def move(figure: int, at_s: float, to: tuple[float, float]) -> Move:
    """The figure slides from where it stands to ``to``, starting at ``at_s``."""
    return Move(figure, float(at_s), _pt(to))


def hit(figure: int, at_s: float, target: int, target_to: tuple[float, float]) -> Hit:
    """The figure is flicked into ``target``'s base at ``at_s``; ``target`` slides to
    ``target_to``."""
    if figure == target:
        raise SceneError(f"hit of figure {figure}: a figure cannot hit itself")
    return Hit(figure, float(at_s), target, _pt(target_to))


def place_ball(
    at_s: float, to: tuple[float, float], *, lift_s: float = 0.8, with_finger: bool = True
) -> PlaceBall:
    """A hand lifts the ball at ``at_s`` and puts it down on ``to`` ``lift_s`` later."""
    return PlaceBall(float(at_s), _pt(to), float(lift_s), with_finger)


def finger(at_s: float, until_s: float, tip: tuple[float, float]) -> FingerOver:
    """A finger hovers with its tip over ``tip`` from ``at_s`` until ``until_s``."""
    return FingerOver(float(at_s), float(until_s), _pt(tip))


@dataclass(frozen=True, slots=True)
class Scene:
    """A scripted clip: line-up, ball start, actions, duration, table profile name."""

    name: str
    duration_s: float
    lineup: tuple[FigureSpec, ...]
    ball_mm: tuple[float, float] | None
    actions: tuple[Action, ...]
    table: str = "fistf"
    description: str = ""


@dataclass(frozen=True, slots=True)
class Strike:
    """A figure striking the ball: the instant, who, from where to where, the declared call."""

    t_s: float
    figure: int
    team: int
    ball_from_mm: tuple[float, float]
    ball_rest_mm: tuple[float, float]
    t_rest_s: float
    expect: str | None
    action_index: int


@dataclass(frozen=True, slots=True)
class BaseHit:
    """A figure's base struck into another's: the instant (when the hit one starts to move)."""

    t_s: float
    figure: int
    team: int
    target: int
    action_index: int


@dataclass(frozen=True, slots=True)
class _FingerTrack:
    t0_s: float
    t1_s: float
    tip_from: tuple[float, float]
    tip_to: tuple[float, float]
    move_t0_s: float
    move_t1_s: float

    def at(self, t_s: float) -> Finger:
        span = self.move_t1_s - self.move_t0_s
        f = 0.0 if span <= 0 else min(max((t_s - self.move_t0_s) / span, 0.0), 1.0)
        x = self.tip_from[0] + f * (self.tip_to[0] - self.tip_from[0])
        y = self.tip_from[1] + f * (self.tip_to[1] - self.tip_from[1])
        # The hand comes in from the nearer long side of the table, well outside the view.
        side = 1.0 if y >= 0 else -1.0
        return Finger(tip_mm=(x, y, 24.0), root_mm=(x + 60.0, y + side * 450.0, 260.0))


@dataclass(frozen=True, slots=True)
class CompiledScene:
    """A scene as exact motion: one ``Path`` per object, the strikes, the fingers."""

    scene: Scene
    pitch: Pitch
    ball: Path
    ball_first_on_s: float | None  # None: the ball starts on the table
    figure_specs: tuple[FigureSpec, ...]
    figure_paths: tuple[Path, ...]
    strikes: tuple[Strike, ...]
    fingers: tuple[_FingerTrack, ...] = field(default=())
    hits: tuple[BaseHit, ...] = field(default=())

    @property
    def duration_s(self) -> float:
        return self.scene.duration_s

    def frame_count(self, fps: float) -> int:
        return math.floor(self.duration_s * fps + 1e-9)

    def ball_state(
        self, t_s: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]:
        """Ball positions (n, 2), velocities (n, 2) and on-table flags (n,) at times (n,)."""
        xy, v, on = self.ball.state_at(t_s)
        if self.ball_first_on_s is not None:
            on &= np.asarray(t_s) >= self.ball_first_on_s
        return xy, v, on

    def figure_state(self, t_s: NDArray[np.float64]) -> tuple[NDArray, NDArray]:
        """Figure positions and velocities, each (n_times, n_figures, 2)."""
        states = [p.state_at(t_s) for p in self.figure_paths]
        return np.stack([s[0] for s in states], 1), np.stack([s[1] for s in states], 1)

    def frame(self, t_s: float) -> SceneFrame:
        """The exact scene at time ``t_s``."""
        t = np.array([t_s])
        bxy, bv, on = self.ball_state(t)
        fxy, fv = self.figure_state(t)
        specs = self.figure_specs
        figures = Figures(
            id=np.array([s.id for s in specs], np.int64),
            team=np.array([s.team for s in specs], np.int8),
            goalkeeper=np.array([s.goalkeeper for s in specs], bool),
            xy_mm=fxy[0],
            v_mm_s=fv[0],
        )
        fingers = tuple(f.at(t_s) for f in self.fingers if f.t0_s <= t_s <= f.t1_s)
        return SceneFrame(
            t_s=float(t_s),
            ball_xy_mm=bxy[0] if on[0] else None,
            ball_v_mm_s=bv[0] if on[0] else np.zeros(2),
            figures=figures,
            fingers=fingers,
        )

    def frames(self, fps: float) -> Iterator[SceneFrame]:
        """One ``SceneFrame`` per video frame, at ``t = i / fps``."""
        for i in range(self.frame_count(fps)):
            yield self.frame(i / fps)


def compile_scene(scene: Scene, pitch: Pitch) -> CompiledScene:
    """Turn a script into exact motion, checking it can happen; raises ``SceneError``."""
    return _Compiler(scene, pitch).run()


class _Compiler:
    def __init__(self, scene: Scene, pitch: Pitch) -> None:
        self.scene, self.pitch = scene, pitch
        self.r_ball = pitch.profile.ball_radius_mm
        self.r_base = pitch.profile.base_radius_mm
        _check_lineup(scene)
        self.index = {s.id: i for i, s in enumerate(scene.lineup)}
        self.paths = [Path(s.xy_mm) for s in scene.lineup]
        self.ball = Path(scene.ball_mm if scene.ball_mm is not None else (0.0, 0.0))
        self.ball_off = scene.ball_mm is None
        self.first_on: float | None = None
        self.strikes: list[Strike] = []
        self.hits: list[BaseHit] = []
        self.fingers: list[_FingerTrack] = []

    def run(self) -> CompiledScene:
        actions = sorted(enumerate(self.scene.actions), key=lambda ia: ia[1].at_s)
        for i, action in actions:
            if not 0.0 <= action.at_s < self.scene.duration_s:
                raise SceneError(f"{_name(action)} at {action.at_s} s lies outside the clip")
            try:
                self._apply(i, action)
            except PhysicsError as exc:
                raise SceneError(f"{_name(action)} at {action.at_s} s: {exc}") from exc
        compiled = CompiledScene(
            self.scene,
            self.pitch,
            self.ball,
            self.first_on,
            self.scene.lineup,
            tuple(self.paths),
            tuple(self.strikes),
            tuple(self.fingers),
            tuple(self.hits),
        )
        _check_overlaps(compiled, self.r_ball, self.r_base)
        return compiled

    def _apply(self, i: int, action: Action) -> None:
        if isinstance(action, Flick):
            self._flick(i, action)
        elif isinstance(action, Move):
            self._slide_figure(action.figure, action.at_s, action.to)
        elif isinstance(action, Hit):
            self._hit(i, action)
        elif isinstance(action, PlaceBall):
            self._place(action)
        else:
            if action.until_s <= action.at_s:
                raise SceneError(f"finger at {action.at_s} s must end after it starts")
            t0, t1 = action.at_s, action.until_s
            self.fingers.append(_FingerTrack(t0, t1, action.tip, action.tip, t0, t0))

    def _figure(self, figure: int) -> int:
        if figure not in self.index:
            raise SceneError(f"no figure {figure}; figures are {sorted(self.index)}")
        return self.index[figure]

    def _ball_at_rest(self, t_s: float, what: str) -> tuple[float, float]:
        if self.ball_off:
            raise SceneError(f"{what} at {t_s} s: the ball is not on the table (place it first)")
        if self.ball.pieces and self.ball.pieces[-1].t_end_s > t_s:
            end = self.ball.pieces[-1].t_end_s
            raise SceneError(f"{what} at {t_s} s: the ball is still moving until {end:.3f} s")
        return self.ball.rest_mm()

    def _flick(self, i: int, f: Flick) -> None:
        k = self._figure(f.figure)
        ball = np.asarray(self._ball_at_rest(f.at_s, f"flick of figure {f.figure}"))
        target = np.asarray(f.ball_to)
        dist = float(np.hypot(*(target - ball)))
        if dist < 1.0:
            raise SceneError(f"flick of figure {f.figure} at {f.at_s} s: target is the ball itself")
        u = (target - ball) / dist
        contact = ball - u * (self.r_ball + self.r_base)
        v_ball = launch_speed_mm_s(dist, BALL_DECEL_MM_S2)
        v_fig = FIGURE_CONTACT_SPEED_RATIO * v_ball
        approach = self._approach(
            k, f.figure, f.at_s, contact, u, v_fig, f"flick of figure {f.figure}"
        )
        stop = self._net_stop(ball, u, dist)
        if stop < dist:
            rolled = Slide.launched(f.at_s, ball, u, v_ball, BALL_DECEL_MM_S2, stop_mm=stop)
        else:
            rolled = Slide.to_target(f.at_s, ball, target, BALL_DECEL_MM_S2)
        follow = Slide.launched(
            f.at_s,
            contact,
            approach.dir_xy,
            FOLLOW_THROUGH_RATIO * v_fig,
            FIGURE_DECEL_MM_S2,
            stop_mm=0.5 * stop,
        )
        self.paths[k] = self.paths[k].then(approach).then(follow)
        self.ball = self.ball.then(rolled)
        team = self.scene.lineup[k].team
        self.strikes.append(
            Strike(f.at_s, f.figure, team, _pt(ball), rolled.end_mm, rolled.t_end_s, f.expect, i)
        )

    def _approach(
        self,
        k: int,
        figure: int,
        at_s: float,
        contact: NDArray,
        u: NDArray,
        v_mm_s: float,
        what: str,
    ) -> Slide:
        """The run-up of figure ``k`` that reaches ``contact`` at ``at_s`` with speed ``v_mm_s``
        heading along ``u``; a figure not standing behind it is first slid there."""
        start = np.asarray(self.paths[k].rest_mm())
        if not self._good_run_up(start, contact, u):
            start = contact - u * RUN_UP_MM
        run = start - contact
        run_mm = float(np.hypot(*run))
        approach = Slide.launched(
            0.0,
            start,
            -run / run_mm,
            math.sqrt(v_mm_s**2 + 2 * FIGURE_DECEL_MM_S2 * run_mm),
            FIGURE_DECEL_MM_S2,
            stop_mm=run_mm,
        )
        t_run = at_s - approach.duration_s
        if not np.allclose(start, self.paths[k].rest_mm()):
            self._slide_figure(figure, None, tuple(start), end_by_s=t_run - RUN_UP_GAP_S)
        self._check_figure_free(k, t_run, what)
        return replace(approach, t0_s=t_run, end_mm=_pt(contact))

    def _hit(self, i: int, h: Hit) -> None:
        """Equal bases meeting head on: the struck one stops at the touch, the hit one takes its
        speed along the line of centres and slides to ``target_to``."""
        k, j = self._figure(h.figure), self._figure(h.target)
        what = f"hit of figure {h.figure} on figure {h.target}"
        self._check_figure_free(j, h.at_s, what)
        rest = np.asarray(self.paths[j].rest_mm())
        to = np.asarray(h.target_to)
        dist = float(np.hypot(*(to - rest)))
        if dist < 1.0:
            raise SceneError(f"{what} at {h.at_s} s: the hit figure must move")
        u = (to - rest) / dist
        contact = rest - u * 2.0 * self.r_base
        pushed = Slide.to_target(h.at_s, rest, to, FIGURE_DECEL_MM_S2)
        approach = self._approach(k, h.figure, h.at_s, contact, u, pushed.v0_mm_s, what)
        self.paths[k] = self.paths[k].then(approach)
        self.paths[j] = self.paths[j].then(pushed)
        team = self.scene.lineup[k].team
        self.hits.append(BaseHit(h.at_s, h.figure, team, h.target, i))

    def _good_run_up(self, start: NDArray, contact: NDArray, u: NDArray) -> bool:
        run = contact - start
        d = float(np.hypot(*run))
        if d < 1.0:
            return False
        return d <= MAX_RUN_UP_MM and float(run @ u) / d >= math.cos(math.radians(MAX_CUT_DEG))

    def _slide_figure(
        self,
        figure: int,
        at_s: float | None,
        to: tuple[float, float],
        end_by_s: float | None = None,
    ) -> None:
        """Slide a figure to ``to``, round the ball if it is in the way.

        Starts at ``at_s``, or (``at_s`` None) as late as possible so as to stop by ``end_by_s``.
        """
        k = self._figure(figure)
        legs = self._route(k, np.asarray(self.paths[k].rest_mm()), np.asarray(to))
        slides = []
        t = 0.0
        for a, b in legs:
            s = Slide.to_target(t, a, b, FIGURE_DECEL_MM_S2)
            slides.append(s)
            t = s.t_end_s + 0.05
        t0 = at_s if at_s is not None else end_by_s - slides[-1].t_end_s
        self._check_figure_free(k, t0, f"move of figure {figure}")
        for s in slides:
            self.paths[k] = self.paths[k].then(replace(s, t0_s=s.t0_s + t0))

    def _check_figure_free(self, k: int, t_s: float, what: str) -> None:
        pieces = self.paths[k].pieces
        if t_s < 0 or (pieces and pieces[-1].t_end_s > t_s + 1e-9):
            raise SceneError(
                f"{what}: needs the figure from {t_s:.3f} s but it is busy until "
                f"{pieces[-1].t_end_s if pieces else 0.0:.3f} s (script it later)"
            )

    def _route(self, k: int, a: NDArray, b: NDArray) -> list[tuple[NDArray, NDArray]]:
        """Straight legs from ``a`` to ``b`` that keep base ``k`` clear of the ball and the
        other figures where they stand, with at most one detour point."""
        obstacles = []
        if not self.ball_off:
            obstacles.append((np.asarray(self.ball.rest_mm()), self.r_ball + self.r_base))
        obstacles += [
            (np.asarray(p.rest_mm()), 2.0 * self.r_base) for j, p in enumerate(self.paths) if j != k
        ]

        def clear(p: NDArray, q: NDArray) -> bool:
            for centre, touch in obstacles:
                # Something that already stands close may be left with less room to spare.
                near = min(float(np.hypot(*(p - centre))), float(np.hypot(*(q - centre))))
                need = max(min(touch + 2.0, near - 0.01), touch)
                if _segment_distance(centre, p, q) < need:
                    return False
            return True

        if clear(a, b):
            return [(a, b)]
        best: tuple[float, NDArray] | None = None
        for centre, touch in obstacles:
            if _segment_distance(centre, a, b) >= touch + 2.0:
                continue
            for angle in np.linspace(0.0, 2.0 * math.pi, 16, endpoint=False):
                via = centre + 1.8 * (touch + 2.0) * np.array([math.cos(angle), math.sin(angle)])
                length = float(np.hypot(*(via - a)) + np.hypot(*(b - via)))
                if (best is None or length < best[0]) and clear(a, via) and clear(via, b):
                    best = (length, via)
        if best is None:
            raise SceneError(f"cannot find a clear way for a figure from {a} to {b}")
        return [(a, best[1]), (best[1], b)]

    def _net_stop(self, ball: NDArray, u: NDArray, dist: float) -> float:
        """Distance after which the back net of a goal stops a ball rolling along ``u``."""
        r = self.r_ball
        for goal in self.pitch.goals:
            sx = math.copysign(1.0, goal.x_line_mm)
            if u[0] * sx <= 0:
                continue
            back = goal.x_back_mm - sx * r  # ball centre when its footprint touches the net
            s_line = (goal.x_line_mm - ball[0]) / u[0]
            y_line = ball[1] + s_line * u[1]
            if 0 <= s_line <= dist and goal.y_min_mm + r <= y_line <= goal.y_max_mm - r:
                stop = min(dist, (back - ball[0]) / u[0])
                y_stop = ball[1] + stop * u[1]
                if not goal.y_min_mm + r <= y_stop <= goal.y_max_mm - r:
                    raise SceneError(
                        f"a shot from {np.round(ball, 1).tolist()} would run into the side net "
                        f"of the {goal.end} goal; aim between the posts"
                    )
                return stop
        return dist

    def _place(self, p: PlaceBall) -> None:
        if p.lift_s <= 0:
            raise SceneError(f"place_ball at {p.at_s} s: lift_s must be > 0")
        if self.ball_off:
            # The ball first comes onto the table: no lift, it simply appears under the hand.
            if self.first_on is None and not self.ball.pieces:
                self.ball = Path(p.to)
                self.first_on = p.at_s + p.lift_s
            else:
                self.ball = self.ball.then(Lift(p.at_s, p.at_s + p.lift_s, p.to))
            self.ball_off = False
            src = p.to
        else:
            src = self._ball_at_rest(p.at_s, "place_ball")
            self.ball = self.ball.then(Lift(p.at_s, p.at_s + p.lift_s, p.to))
        if p.with_finger:
            t0, t1 = p.at_s, p.at_s + p.lift_s
            self.fingers.append(
                _FingerTrack(t0 - FINGER_LEAD_S, t1 + FINGER_LEAD_S, src, p.to, t0, t1)
            )


def _check_lineup(scene: Scene) -> None:
    ids = [s.id for s in scene.lineup]
    if len(set(ids)) != len(ids):
        raise SceneError(f"scene {scene.name!r}: figure ids repeat: {sorted(ids)}")
    for team in (HOME, AWAY):
        members = [s for s in scene.lineup if s.team == team]
        keepers = sum(s.goalkeeper for s in members)
        if len(members) != 11 or keepers != 1:
            raise SceneError(
                f"scene {scene.name!r}: team {team} has {len(members)} figures and {keepers} "
                "goalkeepers; each team needs 11 including exactly one goalkeeper"
            )


def _check_overlaps(c: CompiledScene, r_ball: float, r_base: float) -> None:
    """Bases never overlap each other, nor the ball (a striker may touch it at contact)."""
    t = np.arange(0.0, c.duration_s, 1.0 / CHECK_HZ)
    t = np.union1d(t, [s.t_s for s in c.strikes])
    fxy, _ = c.figure_state(t)
    ids = [s.id for s in c.figure_specs]
    gap = np.linalg.norm(fxy[:, :, None, :] - fxy[:, None, :, :], axis=-1)
    gap[:, np.arange(len(ids)), np.arange(len(ids))] = np.inf
    if (gap < 2 * r_base - _TOUCH_TOL_MM).any():
        n, i, j = np.argwhere(gap < 2 * r_base - _TOUCH_TOL_MM)[0]
        raise SceneError(
            f"scene {c.scene.name!r}: figures {ids[i]} and {ids[j]} overlap at {t[n]:.3f} s"
        )
    bxy, _, on = c.ball_state(t)
    d = np.linalg.norm(fxy - bxy[:, None, :], axis=-1)
    bad = (d < r_ball + r_base - _TOUCH_TOL_MM) & on[:, None]
    if bad.any():
        n, j = np.argwhere(bad)[0]
        raise SceneError(
            f"scene {c.scene.name!r}: the ball runs into figure {ids[j]} at {t[n]:.3f} s "
            f"(ball at {np.round(bxy[n], 1).tolist()}); move the figure or the pass"
        )


def _segment_distance(p: NDArray, a: NDArray, b: NDArray) -> float:
    ab = b - a
    denom = float(ab @ ab)
    f = 0.0 if denom == 0 else min(max(float((p - a) @ ab) / denom, 0.0), 1.0)
    return float(np.hypot(*(a + f * ab - p)))


def _name(action: Action) -> str:
    if isinstance(action, Flick | Move | Hit):
        return f"{type(action).__name__.lower()} of figure {action.figure}"
    return type(action).__name__


def _pt(p) -> tuple[float, float]:
    x, y = p
    return float(x), float(y)
