"""``tracking.strikes``: a struck button hitting another before the ball (BF Fouls: "Wer einen
gegnerischen Knopf oder Torwart vor dem Ball trifft, begeht ein Foul"), decided only when the
frames order the hit before the ball; otherwise left to the referee."""

from __future__ import annotations

import numpy as np
import pytest

from tracking.ball import BallTrack
from tracking.figures import FigureTracks
from tracking.strikes import StrikeConfig, StrikeWatch

FPS = 50.0
R = 16.0  # button radius
BALL = np.array([0.0, 0.0])


def _figures(xy: dict[int, tuple[float, float]], v: dict[int, tuple[float, float]], keeper=()):
    ids = sorted(xy)
    return FigureTracks(
        np.array(ids, np.int64),
        np.array([0 if i < 10 else 1 for i in ids], np.int8),
        np.array([i in keeper for i in ids], bool),
        np.array([xy[i] for i in ids], float),
        np.array([v.get(i, (0.0, 0.0)) for i in ids], float),
        np.ones(len(ids), bool),
        np.zeros(len(ids)),
        np.ones(len(ids), bool),
    )


def _ball(frame: int, onset: int | None, moving: bool) -> BallTrack:
    return BallTrack(frame, frame / FPS, BALL.copy(), np.zeros(2), moving, 0, True, onset)


def _play(striker_path, target_start: int | None, ball_onset: int | None, keeper=()):
    """Frames of button 1 (home) sliding along ``striker_path`` (one point a frame, then at
    rest), button 20 (away) at (100, 0) pushed from frame ``target_start`` on, the ball at
    rest until ``ball_onset`` (its onset confirmed two frames later); the contacts made."""
    watch = StrikeWatch(StrikeConfig(base_radius_mm=R))
    found = []
    target = np.array([100.0, 0.0])
    for frame in range(len(striker_path) + 12):
        k = min(frame, len(striker_path) - 1)
        s = np.asarray(striker_path[k], float)
        prev = np.asarray(striker_path[max(k - 1, 0)], float)
        v_s = (s - prev) * FPS if frame < len(striker_path) else np.zeros(2)
        moved = target_start is not None and frame >= target_start
        t_xy = target + (np.array([2.0 * (frame - target_start + 1), 0.0]) if moved else 0.0)
        v_t = (100.0, 0.0) if moved and frame < target_start + 8 else (0.0, 0.0)
        figs = _figures({1: tuple(s), 20: tuple(t_xy)}, {1: tuple(v_s), 20: v_t}, keeper)
        confirmed = ball_onset is not None and frame == ball_onset + 2
        moving = ball_onset is not None and frame >= ball_onset + 2
        found += watch.update(_ball(frame, ball_onset if confirmed else None, moving), figs)
    return found


def _run_to(x_end: float, frames: int = 10, start=(-40.0, 0.0)):
    """Rest for 3 frames at ``start``, then slide to (x_end, 0) over ``frames`` frames."""
    rest = [start] * 3
    xs = np.linspace(start[0], x_end, frames + 1)[1:]
    return rest + [(float(x), 0.0) for x in xs]


# Button 20 stands at x = 100: button 1 touches it with its centre at x = 100 - 2 R = 68.
@pytest.mark.parametrize(
    ("case", "path", "target_start", "ball_onset", "fouls"),
    [
        ("hit before the ball, the ball never moves", _run_to(68.5), 12, None, 1),
        ("hit before the ball, the ball struck later", _run_to(68.5), 12, 25, 1),
        ("the ball moved first: play on", _run_to(68.5), 12, 6, 0),
        ("ball and button moved on the same frames: the referee's", _run_to(68.5), 12, 12, 0),
        ("the other button moved, never touched: no hit", _run_to(40.0), 12, None, 0),
        ("no button moved: no hit", _run_to(68.5), None, None, 0),
    ],
)
def test_a_hit_is_called_only_when_it_came_before_the_ball(
    case, path, target_start, ball_onset, fouls
):
    found = _play(path, target_start, ball_onset)
    assert len(found) == fouls, case
    for c in found:
        assert (c.kind, c.figure_id, c.target_id, c.team) == ("flick", 1, 20, 0)
        assert c.gap_mm <= 4.0


def test_a_keeper_is_hit_but_never_the_struck_piece():
    """A keeper block slid by hand is not a strike; a button that hits a keeper is."""
    assert len(_play(_run_to(68.5), 12, None, keeper=(20,))) == 1
    assert _play(_run_to(68.5), 12, None, keeper=(1,)) == []


def test_a_fast_hit_whose_touch_falls_between_frames_is_found():
    """At 50 fps a button struck at 0.6 m/s covers 12 mm a frame: the frame before the touch
    shows it 10 mm short, the next shows it stopped at the touch with the hit button already
    8 mm on its way. Neither frame shows the two within the touch gap of each other, but the
    struck button's footprint reached where the hit one stood (BF Fouls)."""
    watch = StrikeWatch(StrikeConfig(base_radius_mm=R))
    found = []
    striker = [(-50.0, 0.0)] * 3 + [(-50.0 + 12.0 * k, 0.0) for k in range(1, 10)]  # to 58
    touch = len(striker)  # stopped at the touch (x = 68), the hit button already at 108
    striker.append((68.0, 0.0))
    for frame in range(len(striker) + 15):
        k = min(frame, len(striker) - 1)
        s = np.array(striker[k])
        v_s = (s - np.array(striker[max(k - 1, 0)])) * FPS if frame < len(striker) else (0, 0)
        t_x = 108.0 + 10.0 * (frame - touch) if frame >= touch else 100.0
        v_t = (500.0, 0.0) if touch <= frame < touch + 6 else (0.0, 0.0)
        figs = _figures({1: tuple(s), 20: (min(t_x, 160.0), 0.0)}, {1: tuple(v_s), 20: v_t})
        found += watch.update(_ball(frame, None, False), figs)
    assert [(c.figure_id, c.target_id) for c in found] == [(1, 20)]
    assert found[0].frame == touch
