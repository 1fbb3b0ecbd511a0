"""One object that tracks everything on the table: ball, figures and their contacts.

``Tracker(config, pitch).update(detections, t_s) -> Tracks`` once per frame; the three parts
stay usable on their own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rules.pitch import Pitch
from tracking.ball import BallTrack, BallTracker, BallTrackerConfig
from tracking.contacts import Contact, ContactConfig, ContactDetector
from tracking.figures import FigureTracker, FigureTrackerConfig, FigureTracks
from tracking.hypotheses import BallHypotheses, HypothesisConfig, to_paths
from tracking.left_bases import LeftBases
from tracking.strikes import StrikeConfig, StrikeWatch
from vision.detections import Detections

# A figure track whose base the searches have not found for this long no longer hides ball
# candidates, unless it stood there from the clip's start and the ball is not yet settled
# (``_off_bases``).
GHOST_S = 0.25
# A ball candidate chosen before motion settles it that has stood this long with no figure on
# it is no figure's part: a base found on it later is the ball taken for a base.
ALONE_S = 0.25


@dataclass(frozen=True, slots=True)
class TrackerConfig:
    """Tunables of all three trackers."""

    ball: BallTrackerConfig = field(default_factory=BallTrackerConfig)
    figures: FigureTrackerConfig = field(default_factory=FigureTrackerConfig)
    contacts: ContactConfig = field(default_factory=ContactConfig)
    hypotheses: HypothesisConfig = field(default_factory=HypothesisConfig)
    strikes: StrikeConfig | None = None  # None: bases hitting bases are not looked for

    @classmethod
    def for_pitch(cls, pitch: Pitch) -> TrackerConfig:
        """Defaults with the ball and base sizes of the table profile; a button-football
        table also watches for a struck button hitting another before the ball (its foul;
        FISTF's fouls are judged by its referee, so its tracks do not look for them yet)."""
        p = pitch.profile
        strikes = StrikeConfig(p.base_radius_mm) if p.game == "button-football" else None
        return cls(contacts=ContactConfig(p.ball_radius_mm, p.base_radius_mm), strikes=strikes)


@dataclass(frozen=True, slots=True)
class Tracks:
    """Everything tracked after one frame.

    Attributes:
        ball: the ball's track.
        figures: the figures' tracks.
        contacts: contacts found on this frame.
        ball_doubt_mm: while motion has not settled which candidate is the ball, how far the
            farthest other ball-like candidate stands from the tracked ball
            (``BallHypotheses.rival_mm``), or from where the ball was last seen when it was
            found again where it could not have got to (``Tracker._check_reach``): the ball's
            position is off by that much if the choice is wrong. 0 once a candidate has
            rolled, or with no rival. Reported only; the ball's own ``sigma_mm`` (and its
            search) leaves it out.
    """

    ball: BallTrack
    figures: FigureTracks
    contacts: tuple[Contact, ...]
    ball_doubt_mm: float = 0.0


class Tracker:
    """Ball, figures and contacts, updated together."""

    def __init__(self, config: TrackerConfig | None = None, pitch: Pitch | None = None) -> None:
        if config is None:
            config = TrackerConfig.for_pitch(pitch) if pitch is not None else TrackerConfig()
        self.config = config
        self.ball = BallTracker(config.ball)
        self.figures = FigureTracker(config.figures, pitch)
        self.contacts = ContactDetector(config.contacts)
        self.strikes = StrikeWatch(config.strikes) if config.strikes is not None else None
        self.hypotheses = BallHypotheses(config.hypotheses)
        self._left_bases = LeftBases(config.contacts.base_radius_mm)
        self._settled = False  # the ball rolled and the ball tracker has taken it up
        self._seen: tuple[np.ndarray, float] | None = None  # the settled ball's last sighting
        self._vanished_mm: np.ndarray | None = None  # where it was before its identity reopened
        self._base_r_mm = config.contacts.base_radius_mm
        self._ball_r_mm = config.contacts.ball_radius_mm
        # The settled ball on the last update, at rest or seen rolling: (mm, mm/s, s); a base
        # found where that puts it now (a roll's prediction a few mm off) is the ball.
        self._ball_at: tuple[np.ndarray, np.ndarray, float] | None = None
        # The settled ball's way since its last sighting while it rolled on unseen (from
        # there to where its prediction would stop it), until it is seen again
        # (``_follow_unseen``).
        self._unseen_way: tuple[np.ndarray, np.ndarray] | None = None
        self._figures_before: FigureTracks | None = None  # the last update's figure tracks
        # Where figures that stood there since the clip began are read as ball candidates
        # (``_read_as_balls``): (k, 2) mm.
        self._figures_as_balls = np.zeros((0, 2))
        self._balls_before = np.zeros((0, 2))  # the last update's ball candidates, mm
        # The chosen ball before it is settled, standing with no figure on it: (mm, since s).
        self._alone: tuple[np.ndarray, float] | None = None

    @property
    def ball_confirmed(self) -> bool:
        """A candidate has rolled and is tracked: the ball is known
        (``tracking/hypotheses.py``), until it is seen where it could not have got to."""
        return self._settled

    def update(self, detections: Detections, t_s: float) -> Tracks:
        if self._ball_at is not None:  # at rest its velocity is zero: its place
            xy, v, seen_s = self._ball_at
            detections = _not_the_ball(detections, xy + v * (t_s - seen_s), None, self._base_r_mm)
        elif self._unseen_way is not None:
            detections = _not_the_ball(
                detections, *self._unseen_way, self._base_r_mm, self._figures_before
            )
        elif self._alone is not None and t_s - self._alone[1] >= ALONE_S:
            # Only a base centred on it (its parallax and the fits' errors apart): until motion
            # settles the ball, a figure come to touch it must not be taken for it.
            detections = _not_the_ball(detections, self._alone[0], None, 0.5 * self._ball_r_mm)
        figures = self.figures.update(detections, t_s)
        self._read_as_balls(figures, detections.ball_xy_mm)
        det = _off_bases(
            detections, figures, self._base_r_mm, self._settled, self._figures_as_balls
        )
        if not self._settled:
            # Until one candidate rolls and is tracked, the ball tracker sees only the chosen
            # one; its place emptied, a ball found next may be it struck away unseen.
            if self.ball.vacated:
                self.hypotheses.vacate(t_s)
            left = self._left_bases.update(figures, detections.ball_xy_mm, t_s)
            i = self.hypotheses.update(det.ball_xy_mm, det.ball_score, t_s, left)
            if self.hypotheses.switched or (i is not None and self.ball.lost):
                # Seen standing there, or rolling, already: no new wait.
                sigma = det.ball_sigma_mm
                fit_mm = 0.0 if sigma is None or i is None else float(sigma[i])
                standing = self.hypotheses.chosen_standing()
                if standing is not None:
                    self.ball.adopt(*standing, sigma_mm=fit_mm)
                elif i is not None and (rolling := self.hypotheses.chosen_rolling()):
                    self.ball.take_rolling(*rolling, sigma_mm=fit_mm)
                elif self.hypotheses.switched:
                    self.ball.forget()
            keep = np.zeros(det.n_balls, bool)
            if i is not None:
                keep[i] = True
            det = det.with_balls(keep)
        ball = self.ball.update(det, t_s, vouched=not self._settled)
        if not self._settled and self.hypotheses.confirmed and ball.xy_mm is not None:
            self._settled, self._vanished_mm = True, None
        if self._settled:
            self._check_reach(ball, t_s)
        placed = ball.xy_mm is not None and (not ball.moving or ball.measured)
        self._ball_at = (
            (ball.xy_mm.copy(), np.array(ball.v_mm_s, float), t_s)
            if self._settled and placed
            else None
        )
        self._follow_unseen(ball)
        self._figures_before = figures
        self._watch_alone(ball, figures, t_s)
        doubt = 0.0
        if not self._settled and ball.xy_mm is not None:
            doubt = self.hypotheses.rival_mm(ball.xy_mm)
            if self._vanished_mm is not None:
                doubt = max(doubt, float(np.hypot(*(ball.xy_mm - self._vanished_mm))))
        contacts = self.contacts.update(ball, figures)
        if self.strikes is not None:
            contacts += self.strikes.update(ball, figures)
        return Tracks(ball, figures, contacts, doubt)

    def _watch_alone(self, ball: BallTrack, figures: FigureTracks, t_s: float) -> None:
        """Keep ``_alone``: where and since when the chosen ball, not yet settled, has stood
        with no figure's base within a base radius of it.

        Until motion settles it the chosen candidate may be a part of a figure (a white shirt
        on a blue base), and a base found there is that figure. But a candidate that has stood
        alone for ``ALONE_S`` is no figure's part, and no figure comes to stand on a ball
        without moving it: a base found there afterwards is the ball itself, read as a base
        (an orange ball beside a yellow kit whose colours a codec drew together), and as a
        figure's track it would hide the ball from its own track, flick and all."""
        if self._settled or ball.xy_mm is None or ball.moving or not ball.measured:
            self._alone = None
            return
        on = np.hypot(*(figures.xy_mm - ball.xy_mm).T) <= self._base_r_mm
        if on.any():
            self._alone = None
        elif self._alone is None or np.hypot(*(self._alone[0] - ball.xy_mm)) > self._base_r_mm:
            self._alone = (ball.xy_mm.copy(), t_s)

    def _read_as_balls(self, figures: FigureTracks, balls_mm: np.ndarray) -> None:
        """Keep ``_figures_as_balls``: the places of the figures that stood there since the
        clip began whose tracks were dropped (their bases unfound) while a ball candidate
        stood on them, for as long as one still does, until the ball is settled.

        A figure of the ball's colour (shirt and base) is read as a ball when the searched
        colours come to take in its base's: its base goes unfound, its track is dropped, and
        the candidate on it, no longer on a figure's base, stood there as a ball would. When
        the figure is flicked it rolls from there, and would settle the ball on a figure
        (stress: the ball at rest in view, a kit's figure flicked beside it)."""
        balls_mm = np.asarray(balls_mm, np.float64).reshape(-1, 2)
        balls_before, self._balls_before = self._balls_before, balls_mm
        if self._settled:
            self._figures_as_balls = np.zeros((0, 2))
            return
        places = self._figures_as_balls
        before = self._figures_before
        if before is not None and before.from_start.any():
            # By place, not id: a track whose base went unfound may be handed another base.
            stood = before.xy_mm[before.from_start]
            gone = _nearest_mm(stood, figures.xy_mm.reshape(-1, 2)) > self._base_r_mm
            # Read as a ball while its track still stood there: a ball of a kit's colour
            # rolling when the clip began, read as a base by the first search, is a base or
            # a candidate, never both at once.
            gone &= _nearest_mm(stood, balls_before) <= self._base_r_mm
            places = np.concatenate([places, stood[gone]])
        self._figures_as_balls = places[_nearest_mm(places, balls_mm) <= self._base_r_mm]

    def _follow_unseen(self, ball: BallTrack) -> None:
        """Keep ``_unseen_way``: while the settled ball rolls on unseen (its track predicted
        on from its last sighting) and after its track is lost so, until it is seen again;
        the way runs on to where the prediction would stop it (its track is dropped long
        before: a fast ball rolled hundreds of millimetres past where it was lost).

        A ball of a kit's colour slowing down is read as a base where it stops (its window
        fit fails as its colours blur into the kit's), and as a figure's track that base
        hides the ball's candidates from its own track for as long as it is kept: the ball
        is never found again. No figure stands or is born on the ball's way: a base found
        there that no figure's track continues is the ball."""
        if not self._settled or ball.measured or self._seen is None:
            self._unseen_way = None
        elif ball.xy_mm is not None and ball.moving:
            v = np.asarray(ball.v_mm_s, np.float64)
            stop = ball.xy_mm + v * np.hypot(*v) / (2.0 * self.config.ball.friction_mm_s2)
            self._unseen_way = (self._seen[0], stop)
        elif ball.xy_mm is not None:  # held at rest, unseen (a finger over it)
            self._unseen_way = None

    def _check_reach(self, ball: BallTrack, t_s: float) -> None:
        """A settled ball seen where it could not have got to since its last sighting (farther
        than a flick carries it) is another candidate taken up for it while the ball was
        hidden or lost: its identity is open again until motion settles it, and until then
        the place where the ball was last seen is a rival (it may be there, unseen)."""
        if not ball.measured or ball.xy_mm is None:
            return
        if self._seen is not None:
            last_mm, last_t = self._seen
            cfg = self.config.hypotheses
            reach = cfg.reach_mm + cfg.max_speed_mm_s * (t_s - last_t)
            if np.hypot(*(ball.xy_mm - last_mm)) > reach:
                self._settled, self._vanished_mm, self._seen = False, last_mm, None
                self.hypotheses = BallHypotheses(cfg)
                return
        self._seen = (ball.xy_mm.copy(), t_s)


def _not_the_ball(
    det: Detections,
    ball_mm: np.ndarray,
    way_end_mm: np.ndarray | None,
    within_mm: float,
    figures: FigureTracks | None = None,
) -> Detections:
    """The detections without bases standing on the ball: at rest at ``ball_mm`` (settled, or
    chosen and alone, ``Tracker._watch_alone``; ``way_end_mm`` None), where the settled ball
    seen rolling on the last frame is predicted now (a red ball rolling beside red kits, read
    as a base where its window fit failed, became a figure that hid the ball as it slowed
    down), or somewhere on its way from ``ball_mm`` to ``way_end_mm`` as it rolled on unseen
    (``Tracker._follow_unseen``), where a base continuing one of the ``figures`` tracked stays
    (a figure arriving there).

    No figure stands nearer the ball than a base and a ball radius, so a base found within
    ``within_mm`` of it (the settled ball: a base radius) is the ball taken for a base: a ball
    of a kit's colour whose window fit failed (a codec's key frame redrawing a ball its
    predicted frames had left behind, millimetres off), which as a figure's track would hide
    the ball from its own track.
    """
    if det.n_bases == 0:
        return det
    way = np.zeros((1, 2)) if way_end_mm is None else (way_end_mm - ball_mm)[None]
    keep = to_paths(det.base_xy_mm, ball_mm[None], way)[:, 0] > within_mm
    if figures is not None and not keep.all():
        keep |= _nearest_mm(det.base_xy_mm, figures.xy_mm.reshape(-1, 2)) <= within_mm
    return det if keep.all() else det.with_bases(keep)


def _nearest_mm(points: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Distance ``(n,)`` from each of ``points (n, 2)`` to the nearest of ``others (m, 2)``
    (infinite when there is none)."""
    if len(others) == 0:
        return np.full(len(points), np.inf)
    return np.linalg.norm(points[:, None, :] - others[None], axis=2).min(axis=1)


def _off_bases(
    det: Detections,
    figures: FigureTracks,
    base_r_mm: float,
    settled: bool,
    read_as_balls: np.ndarray | None = None,
) -> Detections:
    """The detections without ball candidates standing on a figure's base.

    The ball's centre is at least a ball and a base radius from a base's centre; a
    ball-coloured candidate within a base radius of one is part of that figure (a goalkeeper
    or a base of the ball's colour, which the detector cannot tell from the ball by colour).
    A figure whose base the searches have not found for ``GHOST_S`` counts no more: a track
    kept from memory may be a ghost of the ball itself (a ball of a kit's colour read as a
    base as it slowed down), which would hide the ball at rest on its place for as long as
    the ghost is kept. A base missed by one search (blurred, or under a hand) still counts:
    the part of its kit that shows may be of the ball's colour. Before the ball is
    ``settled``, every figure that has stood there since the clip's start counts too: a
    figure of the ball's colour is a candidate as good as the ball, and its base, taken for
    the ball's, goes unfound. A track born later, or one that has moved since (a ball of a
    kit's colour rolling when the clip began, read as a base), is no such figure when its
    base goes unfound: hidden by it, the ball never rolls as a candidate, and is never
    settled. Until then the places where a figure of the clip's start was read as a ball
    and its track dropped count too (``read_as_balls (k, 2)``, ``Tracker._read_as_balls``).
    """
    found = figures.missing_s < GHOST_S
    on = figures.xy_mm[found if settled else found | figures.from_start]
    if not settled and read_as_balls is not None:
        on = np.concatenate([on, read_as_balls])
    if det.n_balls == 0 or len(on) == 0:
        return det
    keep = _nearest_mm(det.ball_xy_mm, on) > base_r_mm
    if keep.all():
        return det
    return det.with_balls(keep)
