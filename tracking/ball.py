"""The ball track: a constant-velocity filter with rolling friction and a moving / at-rest state.

Tiny API (STYLE.md habit 5): ``BallTracker(config).update(detections, t_s) -> BallTrack``, called
once per frame, also with ``Detections.empty()``. Time comes only from ``t_s``.

Moving state, with hysteresis (thresholds in ``BallTrackerConfig``):

- at rest, hidden: a ball at rest not seen keeps its place for ``coast_rest_s`` (a finger over
  it). When its place shows the bare cloth (``Detections.ball_vacated``) on ``VACATED_FRAMES``
  frames in a row it was struck away unseen: the track still holds the rest (the roll, when
  seen, is taken up from it), but the sigma is a flick's travel (``max_speed_mm_s``) over the
  time since it was last seen there.
- at rest -> moving: the measured ball is more than ``start_distance_mm`` from where it rests in
  ``start_frames`` consecutive measured frames. At 60 fps the default 1.0 mm is 60 mm/s, well
  above detection noise (~0.1 mm) and below any flick; fits that state a larger doubt (a
  small or compressed ball) must be off by ``START_SIGMAS`` of it. The flick onset is then
  found in the history: the last frame whose measurement was within ``onset_tolerance_mm`` of
  the rest point, or of the measurement before it (a rest read anew). Once the roll shows
  (two measurements well off the rest point) it is traced back to the rest point; a start
  dated before that strike (a fit shifted by the figure arriving beside the ball) moves to it.
- moving -> at rest: over the last ``stop_window_s`` (or the few frames just covering it) the
  ball covered less than ``stop_speed_mm_s`` times that span (default 12 mm/s). When it
  stopped is found from the roll's deceleration (``tracking/stop_dating.py``).

Both switches are reported with ``state_since_frame``, the frame at which the current state
really began, so a consumer holding a few frames back can correct its flags.

Position uncertainty (``BallTrack.sigma_mm``, one standard deviation, the larger principal axis):

- at rest: the standard error of the rest point, ``s / sqrt(n)`` over the ``n`` distinct
  measurements of the rest, where ``s`` pools their scatter with ``prior_frames`` pseudo
  measurements of one fit's uncertainty as the detector reports it (``measurement_sigma_mm``
  from a detector that reports none; two or three frames say little about the noise),
  and never below ``rest_floor_mm`` nor below the detector's own uncertainty of its fits
  (``Detections.ball_sigma_mm``, its root mean square over the rest's fits: what the fits of a
  still ball share, which averaging does not remove), nor below half the distance
  (``LEAN_SIGMAS``) of a fit that stood off the rest point within the fits' doubt: no
  movement, but one of the two placings is that far off, and the fits do not say which. A
  detection repeated exactly is one measurement, not many: a detector that reuses its fit of
  an unchanged view adds no information (but a larger uncertainty it restates for that
  placing, once the ball no longer rolls, stands);
- moving: from the Kalman covariance of the position, each measurement weighed by its noise:
  ``measurement_sigma_mm``, or the fit's own uncertainty (``Detections.ball_sigma_mm``) when
  that is larger (a doubtful fit of a ball a few pixels across is no sharper for rolling),
  and never below the root mean square of the last ``noise_window`` fits' uncertainties: on
  average a fit's stated uncertainty is right, one by one it is not (a compressed spotted ball
  fitted 3 mm off claims 0.4 mm between neighbours claiming 1.5), and a filter that believes
  the one sharp claim follows that fit and states its own precision. Where the fits of a roll
  stray about it by more than even those claims allow, their noise is taken as large as they
  stray (``tracking.kalman.Kalman.scatter_scale``). A measurement that no
  such doubt explains (``tracking.kalman.OUTLIER_NIS``: a fit 10 mm off claiming 0.7 mm, or
  a deflection) leaves the filter in doubt by the step it took. Under a rolling shutter
  (``shutter``, ``tracking/shutter.py``) a measurement shows the ball when its row was exposed:
  it is carried back along the roll's velocity to the frame's time, its noise grown by how far
  the readout's doubt moves it. That doubt is one readout's, shared by every frame of the roll
  (a ball on the same rows is moved alike, frame after frame), so the filter's averaging does
  not remove it: the reported sigma is never below how far it moves the ball now;
- displaced from its rest but not yet confirmed moving: one measurement, as sure as that;
- seen leaving its rest (last seen clearly off it, ``ROLLING_SIGHTINGS * start_distance_mm``)
  and not seen since: the track holds the rest point (it may have been a glitch), but the ball
  may be anywhere it could have rolled, so the sigma is how far it was seen off the rest point
  plus a flick's travel (``max_speed_mm_s``) over the time since. Only the reported figure: the
  search goes on as for any hidden ball at rest.

Finding the ball: a lost ball is taken up only when a candidate scoring at least
``acquire_score`` is seen in ``acquire_frames`` consecutive frames, each within reach of the last
(one ball-coloured glint is not a ball); one whose sightings already roll away (a clip picked up
in play) is taken up moving since its first sighting, not at rest where it was last seen. A
ball at rest seen leaving its place, or whose place has shown the bare cloth or which was out
of sight as long as carrying it takes (``CARRY_S``), while such a candidate stands elsewhere,
was lifted and put down there (a restart): the track moves to it at once, without a flick,
instead of holding the old place for ``coast_rest_s``. A candidate the candidates' watch
(``tracking/hypotheses.py``) already saw standing or rolling is taken up at once (``adopt``,
``take_rolling``).
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from tracking.kalman import Kalman, largest_eigenvalue
from tracking.shutter import RollingShutter
from tracking.stop_dating import date_stop
from vision.detections import Detections


class TimestampError(ValueError):
    """Frame timestamps went backwards."""


@dataclass(frozen=True, slots=True)
class BallTrackerConfig:
    """Tunables of the ball track (defaults suit 25-120 fps and a 1-2 px/mm view).

    Attributes:
        measurement_sigma_mm: detection noise of a ball ground point.
        accel_sigma_mm_s2: process noise of a rolling ball (bounces, spin, a flick).
        friction_mm_s2: rolling deceleration on cloth used in the prediction.
        start_distance_mm: displacement from the rest point that starts a movement.
        start_frames: consecutive displaced measurements needed to declare "moving".
        onset_tolerance_mm: a frame within this of the rest point still counts as at rest.
        stop_speed_mm_s: mean speed over ``stop_window_s`` below which the ball is at rest.
        stop_window_s: window of the stop test.
        stop_tolerance_mm: a frame within this of the final rest point is already at rest.
        gate_mm: a candidate farther than this (plus the predicted travel) from the track is
            not the tracked ball.
        max_speed_mm_s: fastest flick; widens the gate around a ball at rest.
        coast_moving_s: a moving ball is predicted through occlusions this long, then lost.
        coast_rest_s: a ball at rest keeps its place this long while hidden (a finger over it).
        rest_window: measurements averaged into the rest point (bounded memory).
        noise_window: recent fits whose uncertainties' RMS bounds a measurement's noise.
        prior_frames: weight, in measurements, of one fit's uncertainty in the scatter of a
            rest (so that a few nearly equal measurements do not claim sub-micron precision).
        rest_floor_mm: least standard uncertainty of a rest point: what averaging cannot
            remove (a third of the default measurement noise: sub-pixel fit bias, parallax).
        history_s: how far back onset and stop searches look.
        acquire_score: least detection score of a candidate that starts a track.
        acquire_frames: consecutive sightings of it before the track starts.
        acquire_reach_mm: farthest a sighting may be from the one before to count as the
            same candidate.
        shutter: when each row of a frame was exposed (None: all at the frame's time).
    """

    measurement_sigma_mm: float = 0.3
    accel_sigma_mm_s2: float = 4000.0
    friction_mm_s2: float = 200.0
    start_distance_mm: float = 1.0
    start_frames: int = 2
    onset_tolerance_mm: float = 0.5
    stop_speed_mm_s: float = 12.0
    stop_window_s: float = 0.1
    stop_tolerance_mm: float = 0.3
    gate_mm: float = 30.0
    max_speed_mm_s: float = 3000.0
    coast_moving_s: float = 0.3
    coast_rest_s: float = 2.0
    rest_window: int = 120
    noise_window: int = 8
    prior_frames: float = 4.0
    rest_floor_mm: float = 0.1
    history_s: float = 1.0
    acquire_score: float = 0.3
    acquire_frames: int = 3
    acquire_reach_mm: float = 5.0
    shutter: RollingShutter | None = None


@dataclass(frozen=True, slots=True)
class BallTrack:
    """The ball after one update.

    Attributes:
        frame: index of this update (0 for the first call).
        t_s: timestamp of this update.
        xy_mm: (2,) ground point, or None when the ball is lost.
        v_mm_s: (2,) velocity (zero at rest).
        moving: True while the ball rolls.
        state_since_frame: first frame of the current moving / at-rest state (revised back
            in time when a switch is confirmed).
        state_since_s: when the current state began, between the frame before
            ``state_since_frame`` and that frame: a strike traced back along the first roll, a
            stop from the roll's deceleration; None when it could not be dated.
        measured: True when a detection was used this frame (False while coasting).
        onset_frame: set on the frame a movement is confirmed: the last frame at rest before
            it (the flick onset); otherwise None.
        rest_xy_mm: (2,) the rest point (mean of the rest so far) while at rest, else None;
            ``xy_mm`` may differ from it while a movement is not yet confirmed.
        sigma_mm: standard uncertainty of ``xy_mm`` (of the rest point while at rest), or
            None when it is not known.
        rolled_mm: on the frame a roll is taken up (a start confirmed, a ball found
            rolling), ``(n, 4)`` frame, x, y and standard uncertainty of its measurements
            from ``state_since_frame`` until this frame (carried to their frames' times like
            any rolling measurement): where the ball was on frames reported before as at
            rest or not yet found; else None.
    """

    frame: int
    t_s: float
    xy_mm: NDArray[np.float64] | None
    v_mm_s: NDArray[np.float64]
    moving: bool
    state_since_frame: int
    measured: bool
    onset_frame: int | None = None
    rest_xy_mm: NDArray[np.float64] | None = None
    sigma_mm: float | None = None
    state_since_s: float | None = None
    rolled_mm: NDArray[np.float64] | None = None


_LOST, _REST, _MOVING = 0, 1, 2
# A ball last seen this many ``start_distance_mm`` off its rest point was seen leaving it: the
# bound by which a movement's roll is traced back to the rest point (``_redate_start``).
ROLLING_SIGHTINGS = 4.0
# The detector places a ball at rest by its whole patch and a rolling one by its edges
# (``Detections.ball_whole_patch``); the two placings of one still ball differ by up to about a
# millimetre. The rest's first whole-patch placing within this many ``start_distance_mm`` of
# its point restarts the rest there instead of counting as a displacement.
PLACING_SHIFT = 2.0
# A fit off the rest point by more than ``start_distance_mm`` but less than this many of
# their joint stated sigmas is neither a displacement nor a measurement of the rest: a small
# or compressed ball's fits lean by millimetres as a figure comes up to it (its shadow, its
# base in the window), which started a movement a few frames before the strike (the strike
# then read as a collision, and the clock ran).
START_SIGMAS = 3.0
# A fit leaning off the rest point within that doubt bounds the rest's sigma from below by its
# distance over this: the calls' expanded uncertainty (two sigmas) then reaches it.
LEAN_SIGMAS = 2.0
# A ball at rest whose place shows the bare cloth on this many frames in a row is gone from it
# (struck away unseen), not hidden there: it may be anywhere a flick took it since.
VACATED_FRAMES = 2
# A ball put down elsewhere (a restart) was lifted, carried and set down: out of sight at its
# place this long at least. A still candidate seen elsewhere sooner is no ball set down, unless
# the place showed the bare cloth (out of play, as in a goal's net, it cannot show it).
CARRY_S = 0.5


class BallTracker:
    """Follows one ball through a stream of detections; see the module docstring."""

    def __init__(self, config: BallTrackerConfig | None = None) -> None:
        self.config = config or BallTrackerConfig()
        self._frame = -1
        self._t_s: float | None = None
        self._state = _LOST
        self._since = 0
        self._since_s: float | None = None  # see ``BallTrack.state_since_s``
        self._start_open = False  # a movement's start may still be dated from its roll
        self._kf: Kalman | None = None
        self._rest: deque[NDArray] = deque(maxlen=self.config.rest_window)
        self._rest_sigma: float | None = None  # of ``_rest``, worked out when first asked
        self._fit_sigma = 0.0  # the detector's uncertainty of the rest's fits (their RMS)
        self._fit_sq, self._fit_n = 0.0, 0  # sum of its squares over the rest's fits, count
        self._last_claim = 0.0  # the uncertainty taken in for the rest's last fit
        self._z_sigma = 0.0  # ... and of this frame's measurement
        self._claims: deque[float] = deque(maxlen=self.config.noise_window)  # recent squares
        self._z_patch = False  # this frame's ball was placed by its whole patch
        self._z_row: float | None = None  # ... and the image row it was seen on
        self._rest_patch = False  # the rest point is of such placings only
        self._lean_mm = 0.0  # the farthest a fit the doubt allowed stood off the rest point
        self._anchor = np.zeros(2)
        self._displaced = 0
        self._off = (0.0, 0.0)  # (t_s, mm off the rest point) of the last displaced sighting
        self._missing_s = 0.0
        self._vacated = 0  # frames in a row the ball's place showed the bare cloth
        self._bare_seen = False  # ... on any frame since the ball was last seen there
        # (xy, velocity or None, sightings [(frame, xy, row)]) of a candidate not yet taken up
        self._newcomer: tuple | None = None
        # (xy, velocity, fit sigma, sightings) of a rolling ball taken up (``take_rolling``)
        self._taken: tuple | None = None
        self._rolled: NDArray | None = None  # ``BallTrack.rolled_mm`` of this frame
        # (frame, t_s, measured xy or None, its image row or None: where a rolling shutter saw
        # it); bounded by history_s at any frame rate up to 1 kHz
        self._history: deque[tuple[int, float, NDArray | None, float | None]] = deque(maxlen=1000)

    # ------------------------------------------------------------------ public
    def update(self, detections: Detections, t_s: float, *, vouched: bool = False) -> BallTrack:
        """Advance to time ``t_s`` with this frame's detections and return the track.

        ``vouched``: the detections hold only the candidate that someone else followed as the
        ball through the strike (``tracking/hypotheses.py``), so a rolling ball's gate also
        takes how far its speed may be off (see ``_choose``); among every candidate on the
        cloth a gate that wide would take another object for a ball just struck."""
        if self._t_s is not None and t_s < self._t_s:
            raise TimestampError(f"frame timestamps went backwards: {t_s} s after {self._t_s} s")
        dt = 0.0 if self._t_s is None else t_s - self._t_s
        self._frame += 1
        self._t_s = t_s
        while self._history and t_s - self._history[0][1] > self.config.history_s:
            self._history.popleft()
        if self._kf is not None and self._state == _MOVING:
            self._kf.predict(dt)
        self._z_sigma, self._z_patch, self._z_row = 0.0, False, None
        self._rolled = None
        if self._taken is not None:
            self._take_up()
        z = self._choose(detections, dt, vouched)
        self._bare_seen = z is None and (self._bare_seen or detections.ball_vacated)
        if z is None and self._state != _MOVING:
            z = self._newcomer_arrives(detections, dt, vouched)
        else:
            self._newcomer = None
        self._history.append((self._frame, t_s, z, self._z_row))
        self._vacated = self._vacated + 1 if z is None and detections.ball_vacated else 0
        if z is None:
            self._missing_s += dt
        else:
            self._missing_s = 0.0
            if self._z_sigma > 0:
                self._claims.append(self._z_sigma**2)
        onset = None
        if self._state == _REST:
            onset = self._step_rest(z)
        elif self._state == _MOVING:
            self._step_moving(z)
        return self._track(z is not None, onset)

    def forget(self) -> None:
        """Drop the track (another candidate is the ball): lost from this frame on, found
        again through the usual acquisition. Frame count and time go on."""
        self._state = _LOST
        self._kf = None
        self._rest.clear()
        self._displaced = 0
        self._missing_s = 0.0
        self._vacated = 0
        self._bare_seen = False
        self._newcomer = None
        self._taken = None
        # Its frames' times hold (a roll taken up is dated by them); its places do not.
        times = [(h[0], h[1]) for h in self._history]
        self._history.clear()
        self._history.extend((f, t, None, None) for f, t in times)

    def adopt(self, xy_mm: NDArray, since_frame: int, sigma_mm: float = 0.0) -> None:
        """Take up a ball standing at ``xy_mm (2,)`` since ``since_frame`` (seen there by
        someone else: the candidates' watch, ``tracking/hypotheses.py``), without waiting for
        its own sightings; ``sigma_mm`` is the detector's uncertainty of its fit there (0:
        none given). A fit repeated unchanged is no new measurement, so without it the rest
        would take the configured noise until a new fit came, however doubtful this one."""
        self.forget()
        self._z_sigma = float(sigma_mm)
        self._start_rest([np.asarray(xy_mm, np.float64)], since_frame)

    def take_rolling(
        self,
        xy_mm: NDArray,
        v_mm_s: NDArray,
        sightings: Sequence[tuple[float, NDArray]],
        sigma_mm: float = 0.0,
    ) -> None:
        """Take up a ball seen rolling at ``xy_mm (2,)`` at ``v_mm_s (2,)`` in the frame of the
        next update (seen so by someone else: the candidates' watch, ``tracking/hypotheses.py``),
        without waiting for ``acquire_frames`` sightings of its own: until then its window
        stays where it was chosen, and a small ball rolling two pixels a frame leaves it.
        ``sightings`` ``(t_s, xy_mm)``, that frame's last, are where it was seen on its roll
        (``BallTrack.rolled_mm``); ``sigma_mm`` is the detector's uncertainty of that
        frame's sighting (0: none given)."""
        self.forget()
        xy, v = np.asarray(xy_mm, np.float64).copy(), np.asarray(v_mm_s, np.float64).copy()
        self._taken = (xy, v, float(sigma_mm), list(sightings))

    @property
    def lost(self) -> bool:
        """No ball is tracked."""
        return self._state == _LOST

    @property
    def vacated(self) -> bool:
        """The place of the ball at rest, unseen, has shown the bare cloth on
        ``VACATED_FRAMES`` frames in a row: it was struck away unseen."""
        return self._vacated >= VACATED_FRAMES

    @property
    def frame(self) -> int:
        """Index of the last update (-1 before the first)."""
        return self._frame

    # ------------------------------------------------------------------ steps
    def _choose(self, det: Detections, dt: float, vouched: bool) -> NDArray | None:
        """The candidate that continues the track (None when lost: see ``_newcomer_arrives``)."""
        if det.n_balls == 0 or self._state == _LOST:
            return None
        if self._state == _MOVING and self._kf is not None:
            centre, speed = self._kf.x[:2], math.hypot(*self._kf.x[2:])
            # A vouched candidate may also be as far off as its speed may be, as its
            # sightings so far know it: much just after a strike, whose speed the first
            # sightings may understate many times (the striking figure still on the ball,
            # or hiding it); little for a roll followed a while, however long it is unseen.
            doubt = 2.0 * self._kf.v_sigma_mm_s if vouched else 0.0
            gate = self.config.gate_mm + (speed + doubt) * (self._missing_s + dt)
        elif self._displaced and self._history[-1][2] is not None:
            # Displaced but not yet confirmed: extrapolate the first step of the movement.
            last = self._history[-1][2]
            centre = 2.0 * last - self._anchor
            gate = self.config.gate_mm + np.hypot(*(last - self._anchor))
        else:
            # A ball at rest can leave at flick speed; hidden for longer than a few frames, it
            # is found again through ``_newcomer_arrives`` (it may have been put elsewhere).
            centre = self._anchor
            hidden = min(self._missing_s, 0.05)
            gate = self.config.gate_mm + self.config.max_speed_mm_s * (hidden + dt)
        d = np.hypot(*(det.ball_xy_mm - centre).T)
        # Prefer near and ball-like: distance in gates, less a bonus for a high score.
        cost = d / gate - 0.5 * det.ball_score
        i = int(np.argmin(cost))
        if d[i] > gate:
            return None
        if det.ball_sigma_mm is not None:
            self._z_sigma = float(det.ball_sigma_mm[i])
        if det.ball_whole_patch is not None:
            self._z_patch = bool(det.ball_whole_patch[i])
        self._z_row = float(det.ball_xy_px[i, 1])
        return det.ball_xy_mm[i].copy()

    def _newcomer_arrives(self, det: Detections, dt: float, vouched: bool) -> NDArray | None:
        """Count sightings of a strong candidate away from the track; start a rest there.

        The second sighting may be up to a flick's travel from the first; later ones must
        continue the velocity of the two before within ``acquire_reach_mm``. Returns the
        candidate on the frame its sightings reach ``acquire_frames``, else None: the track then
        rests there, or rolls on when the sightings rolled, since its first sighting. A still
        candidate replaces a ball at rest only once the ball was seen leaving its place, its
        place has shown the bare cloth or it was out of sight for ``CARRY_S``, or when the
        candidates' watch ``vouched`` for it.
        """
        cfg = self.config
        strong = det.ball_score >= cfg.acquire_score
        if not strong.any():
            self._newcomer = None
            return None
        xy, score = det.ball_xy_mm[strong], det.ball_score[strong]
        k = int(np.argmax(score))  # the sighting kept this frame
        if self._newcomer is not None:
            last, v, seen = self._newcomer
            if v is None:
                reach = cfg.acquire_reach_mm + cfg.max_speed_mm_s * dt
                d = np.hypot(*(xy - last).T)
            else:
                reach = cfg.acquire_reach_mm
                d = np.hypot(*(xy - (last + v * dt)).T)
            i = int(np.argmin(d))
            if d[i] <= reach:
                v_new = (xy[i] - last) / max(dt, 1e-6)
                seen = [*seen, (self._frame, xy[i].copy(), float(det.ball_xy_px[strong][i, 1]))]
                self._newcomer, k = (xy[i].copy(), v_new, seen), i
            else:
                self._newcomer = None
        if self._newcomer is None:
            row = float(det.ball_xy_px[strong][k, 1])
            self._newcomer = (xy[k].copy(), None, [(self._frame, xy[k].copy(), row)])
        z, v, seen = self._newcomer
        if len(seen) < cfg.acquire_frames:
            return None
        sigma = self._z_sigma if det.ball_sigma_mm is None else float(det.ball_sigma_mm[strong][k])
        first, first_xy, _ = seen[0]
        # Seen rolling as a ball at rest is seen to start (``_step_rest``): every sighting
        # after the first farther from it than ``start_distance_mm``, or than ``START_SIGMAS``
        # of the fit's doubt where that is more. (The last few millimetres of a roll, 2 mm a
        # frame, were taken for a rest, and the clip's first frames placed where it stopped.)
        away = max(cfg.start_distance_mm, START_SIGMAS * sigma)
        rolls = all(np.hypot(*(xy - first_xy)) > away for _, xy, _ in seen[1:])
        # Seen leaving its place, gone from it, or out of sight long enough to be carried off.
        left = self._bare_seen or self._displaced > 0 or self._missing_s >= CARRY_S
        if not (rolls or vouched or left) and self._state == _REST:
            # A ball put down elsewhere was lifted off its place first. Missed there for a few
            # frames with no bare cloth showing, it is still there, misread (a red ball read
            # as a red kit's base), and a candidate standing elsewhere (a goalkeeper of its
            # colour, in view all along) is no ball set down, unless the candidates' watch
            # vouches for it.
            return None
        self._newcomer = None
        self._z_sigma = sigma
        self._z_row = seen[-1][2]
        if rolls:
            # Its speed over all its sightings: over the last two alone, a millimetre of fit
            # noise is 100 mm/s at 120 fps.
            span_s = max(self._t_s - self._t_at(first), 1e-6)
            self._start_rolling(z, (z - first_xy) / span_s, first)
            self._rolled = self._roll_points(seen)
        else:
            self._start_rest([z], first)
        return z

    def _take_up(self) -> None:
        """Start the roll ``take_rolling`` was given, in this frame: the track stands where the
        ball was seen (no prediction to it) since its first sighting in the frames kept."""
        xy, v, self._z_sigma, sightings = self._taken
        self._taken = None
        frame_at = {t: f for f, t, *_ in self._history}
        frame_at[self._t_s] = self._frame
        seen = [
            (frame_at[t], np.asarray(p, np.float64), None) for t, p in sightings if t in frame_at
        ]
        self._start_rolling(xy, v, seen[0][0] if seen else self._frame)
        if seen:
            self._rolled = self._roll_points(seen)

    def _start_rolling(self, z: NDArray, v: NDArray, since: int) -> None:
        """Take up a ball found rolling (a clip picked up in play): moving since its first
        sighting, not at rest where it was last seen (its start was not seen)."""
        cfg = self.config
        self._rest.clear()
        self._anchor = z.copy()
        self._displaced = 0
        self._kf = Kalman(z, v, self._z_noise_mm(), cfg.accel_sigma_mm_s2, cfg.friction_mm_s2)
        self._state = _MOVING
        self._since, self._since_s = since, None
        self._start_open = False

    def _start_rest(
        self,
        points: list[NDArray],
        since: int,
        since_s: float | None = None,
        *,
        whole_patch: bool = False,
    ) -> None:
        self._state = _REST
        self._since, self._since_s = since, since_s
        self._rest.clear()
        for z in points:
            if not self._rest or not np.array_equal(z, self._rest[-1]):
                self._rest.append(z)
        self._anchor = np.mean(self._rest, axis=0)
        self._rest_sigma = None
        self._fit_sq, self._fit_n = 0.0, 0
        self._add_fit_sigma()
        self._displaced = 0
        self._lean_mm = 0.0
        self._rest_patch = whole_patch
        self._kf = None

    def _add_fit_sigma(self, restated: bool = False) -> None:
        """Take this frame's fit uncertainty into the rest's. The rest point is the mean of
        its fits, so what they share is bounded by their typical uncertainty, not the worst
        one (a finger over the ball for a few frames). ``restated``: this frame's fit is the
        rest's last one again (the same placing) with a larger uncertainty, which replaces
        the one it was taken in with: the detector places a still ball as it is, a rolling
        one along its motion, and a spotted ball read as a short streak kept its rolling
        fits' 0.7 mm at rest, where the same placing, no longer rolling, said 2.4 mm."""
        if restated:
            if self._z_sigma <= self._last_claim:
                return
            self._fit_sq -= self._last_claim**2
            self._fit_n -= int(self._last_claim > 0)
            self._rest_sigma = None
        self._last_claim = self._z_sigma
        if self._z_sigma > 0:
            self._fit_sq += self._z_sigma**2
            self._fit_n += 1
        self._fit_sigma = math.sqrt(self._fit_sq / self._fit_n) if self._fit_n else 0.0

    def _step_rest(self, z: NDArray | None) -> int | None:
        cfg = self.config
        if z is None:
            if self._missing_s > cfg.coast_rest_s:
                self._state = _LOST
            return None
        if self._z_patch and not self._rest_patch:
            if np.hypot(*(z - self._anchor)) <= PLACING_SHIFT * cfg.start_distance_mm:
                # The rest's first placing by the whole patch: the detector places a ball at
                # rest so, a rolling one by its edges, which a dim side moves by up to a
                # millimetre. A change of placing is no movement: the rest starts from it.
                self._start_rest([z], self._since, self._since_s, whole_patch=True)
                return None
        off = float(np.hypot(*(z - self._anchor)))
        if off <= cfg.start_distance_mm:
            self._displaced = 0
            if not np.array_equal(z, self._rest[-1]):  # a repeated fit is no new measurement
                self._rest.append(z)
                self._anchor = np.mean(self._rest, axis=0)
                self._rest_sigma = None
                self._add_fit_sigma()
            else:
                self._add_fit_sigma(restated=True)
            return None
        if off <= START_SIGMAS * math.hypot(self._z_sigma, self._fit_sigma):
            # A lean the fits' doubt allows: no movement, nor a measurement. Yet the rest point
            # is no surer than how far such a fit stands off it: which placing is right, the
            # rest's or this one, the fits do not say (a crossbar over half the ball left its
            # edges 4 mm short of where its whole patch then placed it; a compressed frame's
            # patch strayed 2 mm from edges that were right).
            self._displaced = 0
            if off > self._lean_mm:
                self._lean_mm, self._rest_sigma = off, None
            return None
        self._displaced += 1
        self._off = (self._t_s, off)
        if self._displaced < cfg.start_frames:
            return None
        onset = self._onset_frame()
        first = next(
            (h for h in self._history if h[0] > onset and h[2] is not None), self._history[-1]
        )
        t_onset = self._t_at(onset)
        v = (z - self._anchor) / max(self._t_s - t_onset, 1e-6)
        self._since_s = None
        if first[0] != self._frame:  # two measurements since the onset: use their difference
            v = (z - first[2]) / max(self._t_s - first[1], 1e-6)
            if first[0] == onset + 1:  # the strike: the first roll traced back to the rest point
                back_s = np.hypot(*(first[2] - self._anchor)) / max(np.hypot(*v), 1e-6)
                self._since_s = min(max(first[1] - back_s, t_onset), first[1])
        self._kf = Kalman(z, v, self._z_noise_mm(), cfg.accel_sigma_mm_s2, cfg.friction_mm_s2)
        self._state = _MOVING
        self._since = onset + 1
        self._start_open = True
        self._rolled = self._roll_points(
            [(f, xy, row) for f, _, xy, row in self._history if f > onset and xy is not None]
        )
        return onset

    def _redate_start(self) -> None:
        """Date the start again from the roll, once it shows (see the module docstring).

        A figure arriving beside the ball shifts its fit by a millimetre or so a frame or two
        before the strike: enough to confirm a movement and date its onset to the last frame
        at the rest point, before the ball rolled at all. The first two measurements clearly
        off the rest point (``4 * start_distance_mm``) trace the roll back to the rest point:
        the strike. A start dated earlier than that moves to it (the frames between were at
        rest); never earlier than dated, never later than the first of those measurements.
        """
        far = [
            (f, t, d)
            for f, t, xy, _ in self._history
            if f >= self._since and xy is not None
            for d in (np.hypot(*(xy - self._anchor)),)
            if d > 4.0 * self.config.start_distance_mm
        ]
        if len(far) < 2:
            return
        self._start_open = False
        (f1, t1, d1), (_, t2, d2) = far[:2]
        if d2 <= d1:
            return  # not a roll away from the rest point
        strike_s = min(t1 - d1 * (t2 - t1) / (d2 - d1), t1)
        if self._since_s is not None and strike_s <= self._since_s:
            return
        first = next((h[0] for h in self._history if h[0] >= self._since and h[1] >= strike_s), f1)
        if first > self._since:
            self._since, self._since_s = first, strike_s
        elif self._since_s is None:  # the first frames after the strike showed no ball
            self._since_s = max(strike_s, self._t_at(self._since - 1))

    def _onset_frame(self) -> int:
        """The last frame, before the displaced ones, whose measurement was still at the rest
        point, or read the ball where the measurement before it did (a rest read anew within
        the fits' doubt, the same on every frame since: no movement)."""
        tol = self.config.onset_tolerance_mm
        newer = None
        measured = (h for h in reversed(self._history) if h[2] is not None)
        for frame, _, xy, _ in itertools.islice(measured, self._displaced, None):
            if newer is not None and np.hypot(*(newer[1] - xy)) <= tol:
                return newer[0]
            if np.hypot(*(xy - self._anchor)) <= tol:
                return frame
            newer = (frame, xy)
        return max(self._since, self._frame - self._displaced)

    def _t_at(self, frame: int) -> float:
        for f, t, _, _ in reversed(self._history):
            if f == frame:
                return t
        return self._history[0][1]

    def _step_moving(self, z: NDArray | None) -> None:
        cfg = self.config
        if z is None:
            if self._missing_s > cfg.coast_moving_s:
                self._state = _LOST
                self._kf = None
            return
        self._kf.update(*self._at_frame_time(z, self._z_row))
        if self._start_open:
            self._redate_start()
        # The window reaches back to the last frame at least ``stop_window_s`` old: at a frame
        # rate that does not divide the window (24 or 25 fps in 0.1 s) the frames within it
        # never span it, and the ball would never stop.
        window = []
        for h in reversed(self._history):
            window.append(h)
            if self._t_s - h[1] >= cfg.stop_window_s - 1e-9:
                break
        else:
            return
        pts = np.array([h[2] for h in reversed(window) if h[2] is not None])
        span = self._t_s - window[-1][1]
        if len(pts) < 3:
            return
        spread = np.max(np.hypot(*(pts - pts[-1]).T))
        if spread < cfg.stop_speed_mm_s * span:
            self._stop()

    def _stop(self) -> None:
        """Switch to rest, dating its start back to when the ball really stopped
        (``tracking/stop_dating.py``); the rest point starts from the measurements since."""
        tol = self.config.stop_tolerance_mm
        measured = [h for h in self._history if h[2] is not None and h[0] >= self._since]
        final = measured[-1][2]
        frames = np.array([h[0] for h in measured])
        t = np.array([h[1] for h in measured])
        xy = np.array([h[2] for h in measured])
        span = [h for h in self._history if h[0] >= frames[0]]
        dated = date_stop(
            frames, t, xy, tol, np.array([h[0] for h in span]), np.array([h[1] for h in span])
        )
        if dated is None:
            return  # still creeping to a stop: not at rest yet
        since, since_s = dated
        run = [h[2] for h in measured if h[0] >= since and np.hypot(*(h[2] - final)) <= tol]
        self._start_rest(run or [final], since, since_s)

    def _rest_sigma_mm(self) -> float:
        """Standard error of the rest point (see the module docstring), mm."""
        if self._rest_sigma is not None:  # a ball at rest: most frames add no new fit
            return self._rest_sigma
        cfg = self.config
        pts = np.asarray(self._rest)
        n = len(pts)
        d = pts - pts.mean(axis=0)
        scatter = d.T @ d  # (n - 1) times the sample covariance
        # A detector that reports its fits' uncertainty says how far one fit may stray; a fixed
        # guess would hold a sharp view's rest (0.06 mm a fit at 2304x1296) to a coarse one's.
        one_fit_mm = self._fit_sigma or cfg.measurement_sigma_mm
        prior = cfg.prior_frames * one_fit_mm**2
        pooled = (scatter + prior * np.eye(2)) / (n - 1 + cfg.prior_frames)
        floor = max(cfg.rest_floor_mm, self._fit_sigma, self._lean_mm / LEAN_SIGMAS)
        self._rest_sigma = max(math.sqrt(largest_eigenvalue(pooled) / n), floor)
        return self._rest_sigma

    def _at_frame_time(self, z: NDArray, row: float | None) -> tuple[NDArray, float]:
        """A rolling ball's measurement seen on image ``row`` (None: not known) carried to
        its frame's time (its row was exposed earlier or later), and its noise then, mm."""
        shutter, noise = self.config.shutter, self._z_noise_mm()
        if shutter is None or row is None:
            return z, noise
        delay_s, delay_sigma_s = shutter.delay_s(row)
        v = self._kf.x[2:]
        return z - v * delay_s, math.hypot(noise, math.hypot(*v) * delay_sigma_s)

    def _roll_points(self, points: list[tuple[int, NDArray, float | None]]) -> NDArray:
        """``BallTrack.rolled_mm`` of a roll just taken up from its measurements ``(frame,
        xy, image row)``, at the roll's velocity."""
        rows = []
        for frame, xy, row in points:
            at, sigma = self._at_frame_time(xy, row)
            rows.append((frame, *at, sigma))
        return np.array(rows, np.float64)

    def _z_noise_mm(self) -> float:
        """This frame's measurement noise: the configured one, the fit's own or the RMS of
        the recent fits' (see the module docstring), whichever is largest."""
        recent = math.sqrt(sum(self._claims) / len(self._claims)) if self._claims else 0.0
        return max(self.config.measurement_sigma_mm, self._z_sigma, recent)

    def _sigma_mm(self) -> float:
        if self._state == _MOVING:
            filtered = math.sqrt(largest_eigenvalue(self._kf.p[:2, :2]))
            return math.hypot(filtered, self._readout_doubt_mm())
        if self._displaced and self._history[-1][2] is not None:
            return self._z_noise_mm()  # one measurement off the rest point
        if self._displaced:
            left = self._left_mm()
            if left is not None:
                return left
        if self._vacated >= VACATED_FRAMES:  # gone from its place since it was last seen
            return self._rest_sigma_mm() + self.config.max_speed_mm_s * self._missing_s
        return self._rest_sigma_mm()

    def _readout_doubt_mm(self) -> float:
        """How far the doubt in the shutter's readout moves the rolling ball at its last
        measured row (0 with no shutter, or no row seen)."""
        shutter = self.config.shutter
        if shutter is None:
            return 0.0
        row = next((h[3] for h in reversed(self._history) if h[3] is not None), None)
        if row is None:
            return 0.0
        return math.hypot(*self._kf.x[2:]) * shutter.delay_s(row)[1]

    def _left_mm(self) -> float | None:
        """For a ball at rest last seen clearly off its rest point and not seen since: how
        far it may be from the rest point now (see the module docstring); else None."""
        cfg = self.config
        t_s, off = self._off
        if off <= ROLLING_SIGHTINGS * cfg.start_distance_mm:
            return None  # a fit nudged by a figure arriving beside the ball, then hidden
        return off + cfg.max_speed_mm_s * (self._t_s - t_s)

    def _track(self, measured: bool, onset: int | None) -> BallTrack:
        if self._state == _LOST:
            return BallTrack(self._frame, self._t_s, None, np.zeros(2), False, self._frame, False)
        if self._state == _MOVING:
            xy, v = self._kf.x[:2].copy(), self._kf.x[2:].copy()
        else:
            last = self._history[-1][2]
            xy = self._anchor.copy() if self._displaced == 0 or last is None else last
            v = np.zeros(2)
        rest = self._anchor.copy() if self._state == _REST else None
        return BallTrack(
            self._frame,
            self._t_s,
            xy,
            v,
            self._state == _MOVING,
            self._since,
            measured,
            onset,
            rest,
            self._sigma_mm(),
            self._since_s,
            self._rolled,
        )
