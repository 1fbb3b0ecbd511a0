"""The hot loop: frames -> detections -> tracks -> tracked frames (``TrackedFrame``).

``Pipeline(model, ...)`` is fed one frame at a time (``process``) and hands back the tracked
frames that are final. A frame is held back for ``revise_frames`` frames because the ball
tracker dates its moving / at-rest switches back in time (``BallTrack.state_since_frame``) and
a ball at rest is best placed by the mean of its whole rest, which also says which placings of
the roll's last moments cannot be right (``tracking.roll_end``): held frames are corrected
before they leave. The rules see them afterwards, in order (``tablevar.driver``).

Wall-clock time is read here, and only to report ``ms_per_frame``; tracking and rules see
frame timestamps only.
"""

from __future__ import annotations

import math
import time
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from rules.observation import Contact, Figures
from rules.pitch import Pitch
from tablevar.rules_stage import BALL_UNCERTAINTY_MM, COVERAGE
from tablevar.tracked import TrackedBall, TrackedFrame
from tracking.hypotheses import BallRun
from tracking.roll_end import roll_end_sigmas
from tracking.shutter import RollingShutter
from tracking.tracker import Tracker, TrackerConfig, Tracks
from vision.colour import parse_colours
from vision.config import VisionConfig
from vision.detector import Detector
from vision.model import SceneModel

SETTLED_TRAILS = 4  # ``Pipeline.settled_trails`` kept (memory stays flat over a match)
# Frames the tracked ball is seen rolling in a colour learnt from a roll before that colour is
# taken for the ball's: the probe saw a blob of it arrive, and the tracker, following it as the
# ball, saw it roll on (a stray learnt from a hand or a figure's part is seldom followed so).
ROLL_SIGHTINGS = 5


@dataclass(frozen=True, slots=True)
class PipelineConfig:
    """Tunables of the hot loop.

    Attributes:
        vision: detection settings.
        tracker: tracking settings (None: defaults for the table's ball and base sizes).
        revise_s: how long records are held back for corrections (a few frames).
        readout_s: the camera's rolling-shutter readout (0: a global shutter; None: not
            known, see ``tracking/shutter.py``); used unless ``tracker`` names a shutter.
    """

    vision: VisionConfig = field(default_factory=VisionConfig)
    tracker: TrackerConfig | None = None
    revise_s: float = 0.15
    readout_s: float | None = None

    @classmethod
    def for_frames(
        cls,
        lossy: bool,
        ball_colour: str | None = None,
        readout_s: float | None = None,
        rolled_colour: str | None = None,
    ) -> PipelineConfig:
        """The defaults for frames that are lossy or exact (``FrameSource.lossy``) from a
        shutter of ``readout_s`` (``FrameSource.readout_s``), looking only for a ball of
        ``ball_colour`` (a name or ``#rrggbb``, several joined by ``+``) when one is named;
        else from the first frame for one of ``rolled_colour`` instead of the colours learning
        lists, when an earlier look at the same video saw the ball roll in it
        (``Pipeline.ball_colour_from_roll``)."""
        named = ball_colour is not None
        colour = ball_colour if named else rolled_colour
        ball_bgr = None if colour is None else parse_colours(colour)
        vision = VisionConfig(ball_bgr=ball_bgr, ball_named=named, lossy_frames=lossy)
        return cls(vision=vision, readout_s=readout_s)


@dataclass(slots=True)
class _Pending:
    """A frame held back for corrections (``_revise``): only its ball changes."""

    frame: int
    t_s: float
    ball_xy: tuple[float, float] | None
    moving: bool
    figures: Figures
    contacts: list[Contact] = field(default_factory=list)
    ball_sigma_mm: float | None = None
    ball_switch_before_s: float | None = None  # the ball started or stopped that long before
    ball_doubt_mm: float = 0.0  # ``Tracks.ball_doubt_mm``: which candidate is the ball

    def released(self, offset: int) -> TrackedFrame:
        ball = None if self.ball_xy is None else TrackedBall(*self.ball_xy, self.moving)
        contacts = tuple(replace(c, onset_frame=c.onset_frame + offset) for c in self.contacts)
        return TrackedFrame(
            self.frame + offset,
            self.t_s,
            ball,
            self.figures,
            contacts,
            self.ball_sigma_mm,
            self.ball_switch_before_s,
            self.ball_doubt_mm if ball is not None else 0.0,
        )


class Pipeline:
    """Detection and tracking for one camera, frame by frame."""

    def __init__(
        self,
        model: SceneModel,
        *,
        fps: float,
        config: PipelineConfig | None = None,
        first_frame: int = 0,
        t0_s: float | None = None,
    ) -> None:
        self.config = config or PipelineConfig()
        self.model = model
        self.pitch: Pitch = model.pitch
        self.detector = Detector(model, self.config.vision)
        self.tracker = Tracker(self._tracker_config(fps), self.pitch)
        self.revise_frames = max(1, math.ceil(self.config.revise_s * fps))
        self._frame_s = 1.0 / fps
        self._pending: deque[_Pending] = deque()
        self._last: Tracks | None = None
        self._last_t: float | None = None
        self._t0: float | None = t0_s
        self._offset = first_frame  # frame number of the first frame this pipeline sees
        self.frames = 0
        self.busy_s = 0.0
        self.moving_s = 0.0
        # The latest contacts (kind, frame, figure id), for benchmarks and live views; bounded.
        self.recent_contacts: deque[tuple[str, int, int | None]] = deque(maxlen=256)
        self._prev_t: float | None = None
        self._hint_key: bytes | None = None  # the predicted ball point of ``_hint``
        self._hint: tuple[np.ndarray, float] = (np.zeros(2), 1.0)  # its pixel and px per mm
        self._figs_key: object = None  # the FigureTracks whose figures are ``_figs``
        self._figs = Figures.empty()
        self._moving_since: int | None = None  # first frame of the ball's current movement
        self._rest_xy: tuple[float, float] | None = None  # the last rest point, rounded
        # The trail of each candidate motion settled, from before it did (``BallInHindsight``);
        # a few: the ball is settled again only after it was lost to another candidate.
        self.settled_trails: deque[tuple[BallRun, ...]] = deque(maxlen=SETTLED_TRAILS)
        # Frames the tracked ball was seen rolling in each colour learnt from a roll, the first
        # such colour seen ``ROLL_SIGHTINGS`` times, and whether that is settled either way
        # (``_note_roll_colour``: then it looks no more, frame after frame).
        self._roll_sightings: dict[bytes, int] = {}
        self.ball_colour_from_roll: np.ndarray | None = None
        self._roll_colour_settled = False

    def _tracker_config(self, fps: float) -> TrackerConfig:
        """The tracker's settings, with this camera's shutter unless they name one."""
        config = self.config.tracker or TrackerConfig.for_pitch(self.pitch)
        if config.ball.shutter is not None:
            return config
        shutter = RollingShutter.of(self.config.readout_s, fps, self.model.size_px[1])
        return replace(config, ball=replace(config.ball, shutter=shutter))

    # ------------------------------------------------------------------ public
    def process(self, image, t_s: float) -> list[TrackedFrame]:
        """Run one frame; return the tracked frames that became final."""
        start = time.perf_counter()
        if self._t0 is None:
            self._t0 = t_s
        t = t_s - self._t0
        settled = self.tracker.ball_confirmed
        # Until the ball has rolled, every candidate on the cloth is watched (one of them may
        # be struck while the chosen one is a goalkeeper).
        det = self.detector.detect(image, all_balls=not settled, **self._hints(t))
        tracks = self.tracker.update(det, t)
        self._note_roll_colour(tracks.ball, det)  # by this frame's colours, before settling
        if not settled and self.tracker.ball_confirmed:
            self.settled_trails.append(self.tracker.hypotheses.chosen_trail())
            self._settle_colour(image, det)
            self._no_doubt_since(tracks.ball.frame - self.tracker.hypotheses.chosen_for)
        self._revise(tracks)
        self._pending.append(self._held(tracks))
        self._attach_contacts(tracks)
        self._last, self._last_t = tracks, t
        self.frames += 1
        out = self._release(self.revise_frames)
        self.busy_s += time.perf_counter() - start
        return out

    def finish(self) -> list[TrackedFrame]:
        """Release every held frame (end of the video)."""
        return self._release(0)

    @property
    def ms_per_frame(self) -> float:
        return 1000.0 * self.busy_s / max(self.frames, 1)

    # ------------------------------------------------------------------ steps
    def _settle_colour(self, image, det) -> None:
        """The ball has rolled: search only for the colours it shows from now on.

        Read from the candidate that rolled, not from the ball as tracked: struck while
        hidden, or faster than its first sightings said, it may have left the track's gate,
        and the colour of whatever stands nearest the track would then be searched for in
        its place. Not in view this frame, the colours stay open."""
        colours = self.detector.last_ball_colours
        rolled = self.tracker.hypotheses.chosen_xy_mm
        if rolled is None or det.n_balls == 0 or len(colours) != det.n_balls:
            return
        d = np.linalg.norm(det.ball_xy_mm - rolled, axis=1)
        i = int(np.argmin(d))
        if d[i] > self.pitch.profile.ball_radius_mm:
            return
        self.detector.settle_ball_colour(
            int(colours[i]), image, det.ball_xy_px[i], float(det.ball_r_px[i])
        )

    def _note_roll_colour(self, ball, det) -> None:
        """Count the frames the tracked ball is seen rolling in a colour learning did not list
        (``Detector.learnt_from_roll``: a ball of a kit's colour, learnt from a blob that
        arrived); on ``ROLL_SIGHTINGS`` of them it is ``ball_colour_from_roll``, unless the
        ball was ever placed in a colour learning listed before: it had a place, and a
        colour learnt from a roll since (a figure's part, a two-tone ball's other half) is
        no reason to look again. Learnt late, the frames before the roll had no ball: a
        recording can be analysed again looking for it from the first frame."""
        if self._roll_colour_settled or not ball.measured or ball.xy_mm is None:
            return
        colours = self.detector.last_ball_colours
        if det.n_balls == 0 or len(colours) != det.n_balls:
            return
        d = np.linalg.norm(det.ball_xy_mm - ball.xy_mm, axis=1)
        i = int(np.argmin(d))
        if d[i] > self.pitch.profile.ball_radius_mm:
            return
        colour = self.detector.learnt_from_roll(int(colours[i]))
        if colour is None:  # placed in a colour learning listed
            self._roll_colour_settled = True
            return
        if not ball.moving:
            return
        key = colour.tobytes()
        self._roll_sightings[key] = self._roll_sightings.get(key, 0) + 1
        if self._roll_sightings[key] >= ROLL_SIGHTINGS:
            self.ball_colour_from_roll, self._roll_colour_settled = colour, True

    def _no_doubt_since(self, frame: int) -> None:
        """The candidate chosen since ``frame`` has rolled: it was the ball all along, so
        the held records since carry no identity doubt (a rival elsewhere), and the flick
        that struck it is placed as surely as its fit (the shot's place, FISTF 7.1)."""
        for p in self._pending:
            if p.frame >= frame:
                p.ball_doubt_mm = 0.0

    def _hints(self, t: float) -> dict[str, Any]:
        last = self._last
        if last is None and self.model.ball_px is not None:
            # First frame: the ball is where learning saw it.
            return {"ball_hint_px": self.model.ball_px, "search_bases": True}
        if last is None or last.ball.xy_mm is None:
            chosen = self.tracker.hypotheses.chosen_xy_mm
            if chosen is not None and not self.tracker.ball_confirmed:
                # The candidate taken for the ball, not yet tracked: fitted in its window.
                r = self.pitch.profile.ball_radius_mm
                try:
                    hint = self.model.lens.project(np.array([[chosen[0], chosen[1], r]]))[0]
                except ValueError:
                    return {"search_bases": True}
                return {"ball_hint_px": hint, "ball_travel_px": 2.0, "search_bases": True}
            return {"search_bases": True}  # the whole cloth is searched for the ball anyway
        dt = t - self._last_t
        cam = self.model.lens
        xy = last.ball.xy_mm + last.ball.v_mm_s * dt
        key = xy.tobytes()
        if key != self._hint_key:  # a ball at rest: the same point, frame after frame
            r = self.pitch.profile.ball_radius_mm
            try:
                hint = cam.project(np.array([[xy[0], xy[1], r]]))[0]
            except ValueError:  # a wild prediction far off the table: search everywhere
                return {}
            self._hint_key, self._hint = key, (hint, float(self.model.px_per_mm(hint)[0]))
        hint, scale = self._hint
        travel = float(np.hypot(*last.ball.v_mm_s)) * max(dt, 1e-3) * scale
        w, h = self.model.size_px
        if not (0 <= hint[0] < w and 0 <= hint[1] < h):
            return {}
        hints: dict[str, Any] = {
            "ball_hint_px": hint,
            "ball_travel_px": 0.5 * travel + 2.0,
            "ball_rolling": bool(last.ball.moving),
            "ball_step_px": travel,
        }
        figs = last.figures
        moving = figs.v_mm_s.any(axis=1)
        if moving.any():
            hb = self.pitch.profile.base_height_mm
            xy = figs.xy_mm[moving] + figs.v_mm_s[moving] * dt
            try:
                hints["base_hints_px"] = cam.project(
                    np.concatenate([xy, np.full((len(xy), 1), hb)], 1)
                )
            except ValueError:  # a wild prediction: wait for the next whole-table search
                pass
        if not last.ball.moving or last.ball.onset_frame is not None:
            # A ball at rest is struck by a figure that starts from rest, unseen by the
            # moving-base windows: look at the bases (the detector compares the cloth near
            # the ball every frame, the rest on its slower schedule, and searches only where
            # the frame changed), and at the flick.
            hints["search_bases"] = True
        return hints

    def _held(self, tracks: Tracks) -> _Pending:
        ball = tracks.ball
        xy = None
        if ball.xy_mm is not None:
            xy = (round(float(ball.xy_mm[0]), 3), round(float(ball.xy_mm[1]), 3))
        return _Pending(
            ball.frame,
            round(float(ball.t_s), 6),
            xy,
            bool(ball.moving) if xy is not None else False,
            self._figures(tracks.figures),
            ball_sigma_mm=tracks.ball.sigma_mm,
            ball_doubt_mm=tracks.ball_doubt_mm,
        )

    def _figures(self, figs) -> Figures:
        """The figures of a frame (kit as team, base centres to 0.001 mm), built again only
        when the tracks changed.

        Most frames the figure tracker hands back the same tracks as before (nothing moved):
        their ``Figures`` are shared between frames (frozen; ``_revise`` touches only the
        ball), and later stages cache their own work on that identity.
        """
        if figs is self._figs_key:
            return self._figs
        self._figs_key = figs
        self._figs = Figures.build(
            figs.id.tolist(),
            figs.team.tolist(),
            [False] * len(figs.id),
            np.round(figs.xy_mm, 3),
            self.pitch.profile.base_radius_mm,
        )
        return self._figs

    def _revise(self, tracks: Tracks) -> None:
        """Correct held records from the dated state switch and the rest point.

        A ball at rest is placed at its rest point since the rest began (also on frames that
        waited for the ball to be confirmed), a roll just taken up where it was measured since
        it began (``BallTrack.rolled_mm``: a start confirmed late, a ball found rolling); a
        movement not yet confirmed changes nothing.
        """
        ball = tracks.ball
        if ball.xy_mm is None:
            return
        rest = ball.rest_xy_mm
        if rest is not None and not np.array_equal(ball.xy_mm, rest):
            return  # displaced from its rest point: wait for the tracker to decide
        since, moving = ball.state_since_frame, bool(ball.moving)
        if rest is not None:
            x, y = np.round(rest, 3).tolist()
            self._rest_xy = (x, y)
        if moving:
            self._unflag_before(since)
        else:
            self._moving_since = None
        if ball.rolled_mm is not None:
            self._place_roll(ball.rolled_mm)
        if rest is not None and not moving and ball.sigma_mm is not None:
            self._doubt_roll_end(rest, ball.sigma_mm, since, ball.state_since_s)
        for p in self._pending:
            if p.frame < since:
                continue
            p.ball_switch_before_s = None
            if p.frame == since and ball.state_since_s is not None:
                p.ball_switch_before_s = max(p.t_s - ball.state_since_s, 0.0)
            if p.ball_xy is None and rest is None:
                continue
            if rest is not None:
                p.ball_xy = (x, y)
                if ball.measured:  # unseen, the rest point's sigma is not this frame's
                    p.ball_sigma_mm = ball.sigma_mm
                # Placed at this rest point, it is in the same doubt as the ball placed now.
                p.ball_doubt_mm = max(p.ball_doubt_mm, tracks.ball_doubt_mm)
            p.moving = moving

    def _doubt_roll_end(
        self, rest_mm: np.ndarray, rest_sigma_mm: float, since: int, stop_s: float | None
    ) -> None:
        """Held records of the roll that ended at ``rest_mm``, in the doubt its rest point
        casts on them (``tracking.roll_end``). An undated stop was at the latest on the
        first frame at rest."""
        roll = [p for p in self._pending if p.frame < since and p.moving and p.ball_xy]
        if not roll:  # the usual case at rest: the roll's frames have left
            return
        if stop_s is None:
            stop_s = next((p.t_s for p in self._pending if p.frame == since), None)
            if stop_s is None:
                return
        default = BALL_UNCERTAINTY_MM / COVERAGE  # what the rules take for a record without
        sigma = roll_end_sigmas(
            np.array([p.t_s for p in roll]),
            np.array([p.ball_xy for p in roll]),
            np.array([default if p.ball_sigma_mm is None else p.ball_sigma_mm for p in roll]),
            rest_mm,
            rest_sigma_mm,
            stop_s,
            self._frame_s,
            COVERAGE,
            self.pitch,
            roll[-1].figures.xy_mm,
        )
        for p, s in zip(roll, sigma.tolist(), strict=True):
            if p.ball_sigma_mm is not None or s > default:
                p.ball_sigma_mm = s

    def _place_roll(self, rolled_mm: np.ndarray) -> None:
        """Held records of a roll's first frames where it was measured (between two
        measurements, on the line between them), as sure as that: until the roll was taken
        up they held the rest point, or no ball."""
        frames = rolled_mm[:, 0]
        for p in self._pending:
            if frames[0] <= p.frame <= frames[-1]:
                x, y, sigma = (float(np.interp(p.frame, frames, c)) for c in rolled_mm[:, 1:].T)
                p.ball_xy = (round(x, 3), round(y, 3))
                p.ball_sigma_mm = max(p.ball_sigma_mm or 0.0, sigma)

    def _unflag_before(self, since: int) -> None:
        """A movement's start dated later than first thought (``BallTrack.state_since_frame``
        moved on): the held records between were at rest, where the ball rested."""
        first = self._moving_since
        self._moving_since = since
        if first is None or since <= first:
            return
        for p in self._pending:
            if first <= p.frame < since and p.ball_xy is not None and p.moving:
                p.moving = False
                p.ball_switch_before_s = None
                if self._rest_xy is not None:
                    p.ball_xy = self._rest_xy

    def _attach_contacts(self, tracks: Tracks) -> None:
        """File each contact on the first frame it shows (a flick: the frame after onset).

        A flicked figure runs out of its track and is taken up by a new one a few frames on
        (``tracking.figures``), which may be the striker: the new track stood there since
        the strike, and the held frames before it was listed list it from there, where it is
        now (the rules read a touch by the figures of its frame: a kick-off taken by such a
        figure was lost, and the match waited for it to the end of the clip)."""
        for c in tracks.contacts:
            self.recent_contacts.append((c.kind, c.frame, c.figure_id))
            if c.figure_id is None:
                continue
            frame = c.frame + 1 if c.kind == "flick" and c.target_id is None else c.frame
            if c.target_id is not None and self._pending:
                # A hit is decided a few frames late: filed on its frame if still held.
                frame = max(frame, self._pending[0].frame)
            held = [p for p in self._pending if p.frame >= frame]
            if not held or held[0].frame != frame:
                continue
            now = self._pending[-1].figures
            row = now.index_of(c.figure_id)
            if row is not None:  # listed now: listed from the strike on
                for p in held:
                    if p.figures.index_of(c.figure_id) is not None:
                        break
                    p.figures = _with_row(p.figures, now, row)
            held[0].contacts.append(Contact(c.figure_id, c.kind, c.frame, c.target_id))

    def _release(self, keep: int) -> list[TrackedFrame]:
        out = []
        while len(self._pending) > keep:
            p = self._pending.popleft()
            if p.ball_xy is not None and p.moving and self._prev_t is not None:
                self.moving_s += p.t_s - self._prev_t
            self._prev_t = p.t_s
            out.append(p.released(self._offset))
        return out


def _with_row(figures: Figures, source: Figures, row: int) -> Figures:
    """``figures`` and row ``row`` of ``source``."""
    pick = slice(row, row + 1)
    return Figures(
        np.concatenate([figures.id, source.id[pick]]),
        np.concatenate([figures.team, source.team[pick]]),
        np.concatenate([figures.goalkeeper, source.goalkeeper[pick]]),
        np.concatenate([figures.xy_mm, source.xy_mm[pick]]),
        np.concatenate([figures.radius_mm, source.radius_mm[pick]]),
    )
