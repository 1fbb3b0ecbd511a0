"""Which ball candidate is the ball, while that is not yet known.

A clip may start anywhere (DESIGN.md section 4): the first frame may show a goalkeeper in a
plain kit as round, even and ball-sized as the ball, or a ball of a usual colour beside a kit
of the same colour. Colour and shape rank the candidates; motion settles them: *a ball is what
gets struck and rolls*. ``BallHypotheses`` follows every candidate the detector reports (in mm)
from frame to frame and

- chooses the best-ranked one as the ball (its score of late, once seen in a few frames), and
  keeps it until another, in view, ranks clearly better for ``switch_s`` or it has not been
  seen for ``forget_s``;
- settles on the first candidate that rolls ``roll_mm`` from where it stood (its first place,
  or where it came to rest after moving: one that rolled in as the clip began, stopped and
  is struck again), seen as a ball along the way and going on away from its place the way it
  left by (not only where it ended: a patch of kit that vanishes and another one that appears
  a flick's travel away make no roll, nor does a flicked figure's part that stops, nor patch
  after patch taken up in turn, zigzagging among bases of its colour): from then on it is the
  ball (``confirmed``), and the caller hands every candidate to the ball tracker again. One
  first seen a moment after the chosen one stood unseen (the striking figure over it) and
  going straight away from its place is it struck while hidden, and takes over its history;
- until then, prefers a candidate already rolling in the clip's first frames (struck before
  the clip began) that has rolled ``roll_mm``, whatever its rank: a ball is what rolls, and a
  keeper of its colour stands still. It stays the choice after it comes to rest; a candidate
  struck and rolled in view still settles the ball. The only one so rolling that has gone
  ``settle_roll_mm`` settles it too: unsettled, the identity doubt (``rival_mm``) would leave
  every call of a clip picked up in play to the referee whenever a kit shares the ball's
  colour. A figure's part of that colour rides on its base, and candidates on bases are
  removed before;
- failing both, prefers one first seen moving later on (struck where it was never a
  candidate: among bases of its colour) that has rolled ``settle_roll_mm`` looking no less a
  ball than the choice, or rolled as far as a shot carries the ball (``long_roll_mm``)
  however it ranks (smeared by its motion, a rolling ball ranks below a still figure of its
  colour), without settling anything; rolling still or at rest: come to rest
  among those bases it is read as one of them, no candidate there;
- once the place where the chosen one stood shows the bare cloth (``vacate``: it was struck
  away unseen, its roll hidden or too blurred to be a candidate), takes the next ball-like
  candidate first seen within a flick's travel of it for it, with its history: held against a
  candidate no longer anywhere, the ball lying in view elsewhere could never win the choice;
  one lost as it rolled is the next found ahead on its way, within its pace's reach
  (``_rolled_on``);
- takes a candidate first seen a moment after a figure's base was lost as it moved, a
  flick's travel on from it, for the ball that stood there read as a base, struck away
  (``_from_base``, ``tracking/left_bases.py``): it inherits a stand there, so its roll settles
  it (a ball of a kit's colour at rest is no candidate, only a base), and the history of the
  candidate seen standing there before the base was;
- takes a candidate first seen standing where the chosen one was a moment ago, and has left
  (``_in_wake``: what a codec leaves of a ball that rolled on), for no rival of it and never
  the choice, until it moves itself.

Until motion has settled it, the choice may be wrong however well the chosen one is placed:
``rival_mm`` is how far the farthest other ball-like candidate stands from it, the error the
ball's position carries if it is that one. It is reported beside the position (an identity
doubt, ``tracking/tracker.py``), never fed to the ball's own track, whose search must stay
narrow.

Each candidate keeps its trail (``BallRun``: where it was seen, when; a place it stood at is
one run however long it stood), so that once motion settles it the frames before can be told
where the ball was (``chosen_trail``): a recording analysed as a whole is told in hindsight.

Candidates on figures' bases are removed before (``tracking/tracker.py``): a figure flicked
across the cloth is a figure, not a rolling ball. Time comes only from ``t_s``.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

# A candidate's trail keeps this many runs at most (a place stood at is one run; a roll, one
# per sighting): about a minute of rolling, whatever the match's length.
TRAIL_RUNS = 4096
# How far a standing ball's fits stray from its first one at most (a compressed clip's: up to a
# millimetre).
JITTER_MM = 1.0
# A rolling candidate's pace is taken over this long of its last sightings (a few frames at
# any rate: one frame's step is as much the fits' jitter as the roll).
PACE_S = 0.08
# How far a roll may turn from the way it left its place and still be one (cosine of 45
# degrees): fits' jitter turns a roll seen a reach on by a few degrees.
MAX_TURN_COS = 0.7


@dataclass(frozen=True, slots=True)
class BallRun:
    """Where a candidate was seen from ``first_s`` to ``last_s``: one sighting while it
    rolls; while it stands, the mean of its ``sightings`` within ``reach_mm`` of where it
    first stood, and the moments between (hidden there)."""

    first_s: float
    last_s: float
    x_mm: float
    y_mm: float
    moving: bool
    sightings: int = 1


@dataclass(frozen=True, slots=True)
class LeftBase:
    """A figure's base that stood at ``rest_xy_mm`` from ``rest_s`` to ``stood_s``, moved,
    and was lost after its sighting at ``last_xy_mm`` at ``last_s``: born after the clip's
    first base search, with no ball candidate ever on it (``tracking/left_bases.py``), perhaps
    the ball read as a base, struck away."""

    rest_xy_mm: NDArray[np.float64]
    rest_s: float
    stood_s: float
    last_xy_mm: NDArray[np.float64]
    last_s: float


@dataclass(frozen=True, slots=True)
class HypothesisConfig:
    """Tunables of the choice between ball candidates.

    Attributes:
        reach_mm: a candidate seen again within this of where it was predicted is the same.
        max_speed_mm_s: fastest flick: how far a still candidate may have gone when struck.
        roll_mm: a candidate seen standing still (``settle_frames`` sightings) that then
            moves this far from where it stood, about two ball diameters, has been struck and
            rolled: it is the ball. (A figure's part first seen as it runs up to the ball was
            never seen standing.)
        min_score: least mean detection score of a candidate that may be the ball (as the
            ball tracker's ``acquire_score``).
        rank_s: a candidate ranks by its detection scores of about this long ago and since:
            how it looks now, not since the clip began (a figure scored as a ball while the
            ball was a blur at the clip's start would hold the choice for many seconds). Its
            mean over every sighting still says whether it may be a ball at all: a rolling
            ball scores little while it is a streak.
        flick_gap_s: a candidate unseen for at most this long may be found a flick's travel
            away (struck between two frames); after longer, only within ``reach_mm``.
        forget_s: a candidate not seen for this long is dropped (a ball under a hand for a
            moment keeps its place).
        settle_frames: sightings before a candidate's rank counts in full (one glint is not a
            ball).
        switch_margin: rank lead another candidate needs to replace the chosen one before
            motion has settled it (so the choice does not flicker between two).
        switch_s: how long that lead must hold: a figure of the ball's colour stopping
            beside the ball to strike it ranks as well as a ball for the moment it stands
            there, and a hand over the ball hides it for a moment.
        max_hypotheses: candidates followed at most (the lowest ranked are dropped).
        settle_roll_mm: a candidate rolling from the clip's first updates that has rolled this
            far, the only one, is the ball (three times ``roll_mm``: a roll, not a nudge).
        long_roll_mm: a candidate first seen moving later on that has rolled this far, seen
            along its way, takes the choice however it ranks (``_rolled_far``).
        coast_s: a moving candidate unseen for longer than this (and two frames) is looked
            for where it was last seen: a rolling ball has stopped by then, or been stopped.
        rest_speed_mm_s: a candidate seen moving slower than this is at rest (a resting
            ball's fits jitter by a few tenths of a millimetre a frame).
        opening_s: the clip's first updates are its first ``settle_frames`` and those within
            this of its first: a ball rolling when a clip at a high frame rate begins may show
            only as a streak for its first frames.
    """

    reach_mm: float = 8.0
    max_speed_mm_s: float = 3000.0
    roll_mm: float = 40.0
    min_score: float = 0.3
    rank_s: float = 0.5
    flick_gap_s: float = 0.1
    forget_s: float = 2.0
    settle_frames: int = 3
    switch_margin: float = 0.15
    switch_s: float = 0.5
    max_hypotheses: int = 24
    settle_roll_mm: float = 120.0
    long_roll_mm: float = 300.0
    coast_s: float = 0.5
    rest_speed_mm_s: float = 50.0
    opening_s: float = 0.1


@dataclass(slots=True, eq=False)
class _Stand:
    """A place a candidate came to rest at after it had moved, and its way from there."""

    place_mm: NDArray[np.float64]
    left_mm: NDArray[np.float64] | None = None  # its first sighting away from there
    along_mm: float = 0.0  # how far from that sighting it has been seen since
    moved_frames: int = 0  # sightings away from there

    def seen_at(self, xy_mm: NDArray[np.float64], reach_mm: float) -> None:
        if np.hypot(*(xy_mm - self.place_mm)) > reach_mm:
            self.moved_frames += 1
            if self.left_mm is None:
                self.left_mm = xy_mm.copy()
            self.along_mm = max(self.along_mm, float(np.hypot(*(xy_mm - self.left_mm))))


@dataclass(slots=True, eq=False)
class _Candidate:
    xy_mm: NDArray[np.float64]
    v_mm_s: NDArray[np.float64]
    start_mm: NDArray[np.float64]  # where it stood before it moved
    seen_s: float
    sightings: int = 1
    score_sum: float = 0.0
    score_now: float = 0.0  # its score averaged over about the last ``rank_s``
    first_frame: int = 0  # the update it was first seen in
    first_s: float = 0.0  # and when
    moved_frames: int = 0  # sightings since it left its place
    still_frames: int = 0  # sightings at its place before it left
    left_mm: NDArray[np.float64] | None = None  # its first sighting away from its place
    along_mm: float = 0.0  # how far from there it has been seen since
    rest_frames: int = 0  # sightings in a row slower than ``rest_speed_mm_s``
    # Where it last came to rest after moving, and its way from there: a ball that rolled in
    # from the clip's start, stopped and is struck again rolls from there.
    rest_stand: _Stand | None = None
    wake: bool = False  # first seen standing where the chosen one had just been (``_in_wake``)
    # One that stood, unseen since, where it may have been struck from: (it, when it was last
    # seen then, how far along the way from its place this one was last seen, and first).
    origin: tuple[_Candidate, float, float, float | None] | None = None
    key: int = field(default=0)
    trail: deque[BallRun] = field(default_factory=lambda: deque(maxlen=TRAIL_RUNS))

    def seen(self, t_s: float, moving: bool, reach_mm: float) -> None:
        """Add this sighting to the trail: it extends the last run where the candidate
        stood within ``reach_mm`` of it, else starts one."""
        x, y = float(self.xy_mm[0]), float(self.xy_mm[1])
        last = self.trail[-1] if self.trail else None
        if (
            last is not None
            and not (moving or last.moving)
            and math.hypot(x - last.x_mm, y - last.y_mm) <= reach_mm
        ):
            n = last.sightings
            mx, my = (last.x_mm * n + x) / (n + 1), (last.y_mm * n + y) / (n + 1)
            self.trail[-1] = BallRun(last.first_s, t_s, mx, my, False, n + 1)
        else:
            self.trail.append(BallRun(t_s, t_s, x, y, moving))


class BallHypotheses:
    """Follows every ball candidate until one rolls; see the module docstring."""

    def __init__(self, config: HypothesisConfig | None = None) -> None:
        self.config = config or HypothesisConfig()
        self._cands: list[_Candidate] = []
        self._t_s: float | None = None
        self._t0_s = 0.0  # the first update's time
        self._chosen: int | None = None  # key of the chosen candidate
        self._next_key = 0
        self.confirmed = False
        self.switched = False  # the chosen candidate changed in the last update
        # Since when each candidate has led the chosen one by ``switch_margin`` without a break.
        self._leads: dict[int, float] = {}
        self._frame = -1  # index of the last update
        self._chosen_at = 0  # the update the current choice was made in
        self._vacated: tuple[int, float] | None = None  # (key, when) of a chosen one gone

    @property
    def chosen_xy_mm(self) -> NDArray[np.float64] | None:
        """Where the chosen candidate was last seen, or None."""
        c = self._find(self._chosen)
        return None if c is None else c.xy_mm.copy()

    def chosen_standing(self) -> tuple[NDArray[np.float64], int] | None:
        """Where the chosen candidate stands and the update it was first seen in, when it has
        been seen standing in a few updates and not moved since; else None.

        Standing is no drift: the last millimetres of a roll stay within ``reach_mm`` of its
        first sighting for a few frames, yet go farther from it than ``rest_speed_mm_s``
        allows for the time (a fit's jitter does not add up, beyond ``JITTER_MM``)."""
        cfg = self.config
        c = self._find(self._chosen)
        if c is None or c.moved_frames or c.still_frames < cfg.settle_frames:
            return None
        drift_mm = float(np.hypot(*(c.xy_mm - c.start_mm)))
        if drift_mm > max(cfg.rest_speed_mm_s * (c.seen_s - c.first_s), JITTER_MM):
            return None
        return c.xy_mm.copy(), c.first_frame

    def chosen_rolling(self) -> tuple[NDArray, NDArray, list[tuple[float, NDArray]]] | None:
        """Where the chosen candidate was seen in the last update, its velocity there and its
        sightings ``(t_s, xy_mm)`` on its roll, when it was seen rolling (no slower than
        ``rest_speed_mm_s`` over its last sightings); else None. The roll's sightings are
        those since it last stood, and a lone first sighting before them (its speed then
        unknown: a ball rolling as the clip began)."""
        c = self._find(self._chosen)
        if c is None or c.seen_s != self._t_s or not c.trail or not c.trail[-1].moving:
            return None
        v = np.array(_velocity_mm_s(c.trail, short=True))
        if np.hypot(*v) < self.config.rest_speed_mm_s:
            return None
        runs = list(c.trail)
        k = len(runs)
        while k > 0 and runs[k - 1].moving:
            k -= 1
        if k > 0 and runs[k - 1].sightings == 1:
            k -= 1
        roll = [(run.first_s, np.array([run.x_mm, run.y_mm])) for run in runs[k:]]
        return c.xy_mm.copy(), v, roll

    @property
    def chosen_for(self) -> int:
        """Updates since the current choice was made (0: in the last one)."""
        return self._frame - self._chosen_at

    def chosen_trail(self) -> tuple[BallRun, ...]:
        """The chosen candidate's trail, oldest first (empty when none is chosen)."""
        c = self._find(self._chosen)
        return () if c is None else tuple(c.trail)

    def rival_mm(self, xy_mm: NDArray) -> float:
        """How far from ``xy_mm (2,)`` (the ball as tracked) the farthest ball-like candidate
        other than the chosen one stands, mm, while motion has not settled the choice (0 once
        it has, or when there is none). Ball-like: ranked as a ball may be (``min_score``,
        seen in ``settle_frames`` updates), so one glint raises no doubt."""
        cfg = self.config
        if self.confirmed:
            return 0.0
        xy_mm = np.asarray(xy_mm, np.float64)
        far = [
            float(np.hypot(*(c.xy_mm - xy_mm)))
            for c in self._cands
            if c.key != self._chosen
            and c.sightings >= cfg.settle_frames
            and self._mean_score(c) >= cfg.min_score
            and not self._ghost(c)
        ]
        return max(far, default=0.0)

    def __len__(self) -> int:
        return len(self._cands)

    def vacate(self, t_s: float) -> None:
        """The chosen candidate's place, where it stood unseen, shows the bare cloth at
        ``t_s``: it was struck away unseen (``_from_vacated``)."""
        if self._chosen is not None and (self._vacated is None or self._vacated[0] != self._chosen):
            self._vacated = (self._chosen, t_s)

    def update(
        self, xy_mm: NDArray, score: NDArray, t_s: float, left: tuple[LeftBase, ...] = ()
    ) -> int | None:
        """Take this frame's candidates ``(m, 2)`` mm with their scores ``(m,)`` and the
        figures' bases lost as they moved (``left``); return the index of the one that is the
        ball this frame, or None when it is not among them."""
        cfg = self.config
        xy_mm = np.asarray(xy_mm, np.float64).reshape(-1, 2)
        score = np.asarray(score, np.float64).reshape(-1)
        # Candidates nearer than ``reach_mm`` are one object reported twice (two balls' centres
        # stand a diameter apart): as two, one would carry on the object's history and the
        # other its identity, and the chosen ball would stay behind where it was struck.
        idx = _distinct(xy_mm, score, cfg.reach_mm)
        xy_mm, score = xy_mm[idx], score[idx]
        if self._t_s is None:
            dt, self._t0_s = 0.0, t_s
        else:
            dt = max(t_s - self._t_s, 0.0)
        self._t_s = t_s
        self._frame += 1
        match = self._associate(xy_mm, t_s)
        # Read before this frame's sightings update them; only needed for a new candidate.
        standing = self._standing(t_s) if any(c is None for c in match) else []
        for i, c in enumerate(match):
            if c is None:
                c = _Candidate(xy_mm[i].copy(), np.zeros(2), xy_mm[i].copy(), t_s)
                c.key, self._next_key = self._next_key, self._next_key + 1
                c.sightings, c.first_frame, c.first_s = 0, self._frame, t_s
                if not (
                    self._struck_from(c, standing, t_s)
                    or self._from_vacated(c, score[i])
                    or self._from_base(c, left, t_s)
                    or self._rolled_on(c, score[i], match)
                ):
                    c.origin = self._hidden_near(c, t_s)
                    c.wake = self._in_wake(c, t_s)
                self._cands.append(c)
                match[i] = c
            else:
                step_s = max(t_s - c.seen_s, 1e-6)
                c.v_mm_s = (xy_mm[i] - c.xy_mm) / step_s
                c.xy_mm = xy_mm[i].copy()
                slow = np.hypot(*c.v_mm_s) < cfg.rest_speed_mm_s
                c.rest_frames = c.rest_frames + 1 if slow else 0
            keep = np.exp(-max(t_s - c.seen_s, 0.0) / cfg.rank_s) if c.sightings else 0.0
            c.score_now = keep * c.score_now + (1.0 - keep) * float(score[i])
            c.seen_s = t_s
            c.sightings += 1
            c.score_sum += float(score[i])
            if np.hypot(*(c.xy_mm - c.start_mm)) > cfg.reach_mm:
                c.moved_frames += 1
                if c.left_mm is None:
                    c.left_mm = c.xy_mm.copy()
                c.along_mm = max(c.along_mm, float(np.hypot(*(c.xy_mm - c.left_mm))))
            else:
                c.v_mm_s = np.zeros(2)
                if c.moved_frames == 0:
                    c.still_frames += 1
            if c.moved_frames and c.rest_frames == cfg.settle_frames:
                c.rest_stand = _Stand(c.xy_mm.copy())
            elif c.rest_stand is not None:
                c.rest_stand.seen_at(c.xy_mm, cfg.reach_mm)
            c.seen(t_s, bool(np.hypot(*c.v_mm_s) >= cfg.rest_speed_mm_s), cfg.reach_mm)
        for c in match:
            if c.origin is not None:
                self._struck_unseen(c)
        for c in self._cands:  # one unseen for a while is predicted where it was last seen
            if t_s - c.seen_s > max(2.0 * dt, cfg.coast_s):
                c.v_mm_s = np.zeros(2)
        self._cands = [c for c in self._cands if t_s - c.seen_s <= cfg.forget_s]
        self._choose()
        chosen = self._find(self._chosen)
        i = next((i for i, c in enumerate(match) if c is chosen), None)
        return None if i is None else int(idx[i])

    # ------------------------------------------------------------------ steps
    def _standing(self, t_s: float) -> list[_Candidate]:
        """Candidates seen standing at their place a moment ago (before this frame)."""
        cfg = self.config
        return [
            c
            for c in self._cands
            if c.moved_frames == 0
            and c.still_frames >= cfg.settle_frames
            and t_s - c.seen_s <= cfg.flick_gap_s
        ]

    def _struck_from(self, new: _Candidate, standing: list[_Candidate], t_s: float) -> bool:
        """A candidate that appears within a flick's travel of one that stood there a moment
        ago is that one struck away: it takes over its place and history, so its roll from
        there settles it (True). The detector may still report the old place for a frame (a
        fit kept where the frame seemed not to change), which holds the standing one where
        it was."""
        cfg = self.config
        near = [
            (d, k)
            for k, c in enumerate(standing)
            if (d := float(np.hypot(*(new.xy_mm - c.xy_mm))))
            <= cfg.reach_mm + cfg.max_speed_mm_s * (t_s - c.seen_s)
        ]
        if not near:
            return False
        self._take_over(new, standing[min(near)[1]])
        return True

    def _from_vacated(self, new: _Candidate, score: float) -> bool:
        """Whether ``new``, a ball-like candidate first seen after the chosen one's place
        showed the bare cloth, within a flick's travel of where it was last seen, is that one
        struck away unseen (module docstring): if so it takes over its place and history (as
        ``_struck_from``). A candidate already followed before (a figure's part) takes
        nothing."""
        cfg = self.config
        if self._vacated is None or score < cfg.min_score:
            return False
        key, gone_s = self._vacated
        parent = self._find(key)
        if parent is None or key != self._chosen or parent.seen_s > gone_s:
            return False
        # One last seen rolling left its place anyway, and is found on its way if anywhere
        # (``_rolled_on``).
        if parent.trail and parent.trail[-1].moving:
            return False
        reach = cfg.reach_mm + cfg.max_speed_mm_s * (new.first_s - parent.seen_s)
        if float(np.hypot(*(new.xy_mm - parent.xy_mm))) > reach:
            return False
        self._take_over(new, parent)
        self._vacated = None
        return True

    def _rolled_on(self, new: _Candidate, score: float, match: list[_Candidate | None]) -> bool:
        """Whether ``new``, a ball-like candidate first seen ahead of where the chosen one was
        last seen rolling (unseen since), is that one rolled on unseen: its image blurred or
        its colours drawn into the cloth's by a codec as it rolled, found again where it
        slowed or stopped. Ahead is within a cone of a quarter of the distance round its last
        way, no farther than its pace carries it in the time (a rolling ball only slows). If
        so it takes over its place and history (as ``_struck_from``). Not while the chosen
        one is seen in this frame (``match``): then the two are two."""
        cfg = self.config
        c = self._find(self._chosen)
        if c is None or score < cfg.min_score or not c.trail or not c.trail[-1].moving:
            return False
        if any(m is c for m in match):
            return False
        gap_s = new.first_s - c.seen_s
        v = np.array(_velocity_mm_s(c.trail, short=True))  # a clip picked up in its last frames
        pace = float(np.hypot(*v))
        if gap_s <= 0.0 or pace < cfg.rest_speed_mm_s:
            return False
        along, across = _along_across(new.xy_mm - c.xy_mm, v)
        if not (-cfg.reach_mm <= along <= cfg.reach_mm + pace * gap_s):
            return False
        if across > cfg.reach_mm + 0.25 * max(along, 0.0):
            return False
        self._take_over(new, c)
        return True

    def _from_base(self, new: _Candidate, left: tuple[LeftBase, ...], t_s: float) -> bool:
        """Whether ``new`` is the ball that stood read as a figure's base, struck away: first
        seen within a flick's travel of where the base was lost a moment ago, on beyond it
        from where it stood. If so it takes over a history of standing there until the base
        moved (as ``_struck_from``), so that its roll settles it and the frames it stood are
        told in hindsight. A figure's part of the ball's colour, flicked with its base lost
        in the blur, is no such candidate: it showed on the base as it stood, or the figure
        stood there when the clip began, and such a base is never offered
        (``tracking/left_bases.py``)."""
        cfg = self.config
        for b in left:
            gap_s = t_s - b.last_s
            off = new.xy_mm - b.last_xy_mm
            way = b.last_xy_mm - b.rest_xy_mm
            if gap_s > cfg.flick_gap_s or float(off @ way) < 0.0:
                continue
            if float(np.hypot(*off)) > cfg.reach_mm + cfg.max_speed_mm_s * gap_s:
                continue
            parent = self._read_as_base(b)
            if parent is None:
                parent = _Candidate(
                    b.rest_xy_mm.copy(), np.zeros(2), b.rest_xy_mm.copy(), b.stood_s, sightings=0
                )
                parent.first_frame, parent.first_s = self._frame, b.rest_s
                parent.still_frames, parent.key = cfg.settle_frames, self._next_key
                self._next_key += 1
            # Where its own fits placed it, if it had any: a ball's fit, not a base's.
            x, y = float(parent.xy_mm[0]), float(parent.xy_mm[1])
            parent.trail.append(BallRun(b.rest_s, b.stood_s, x, y, False))
            self._take_over(new, parent)
            return True
        return False

    def _read_as_base(self, b: LeftBase) -> _Candidate | None:
        """The candidate seen standing where ``b`` stood, never while the base stood there:
        the ball itself, a candidate until it was read as that base (the bases of its colour
        came to stand round it, a codec drew its colours nearer a kit's). Its history is the
        ball's: where it stood since it was first seen. None when there is none. Placed as a
        base (by a base's outline and height) the ball stands some millimetres off its own
        fits: within two ``reach_mm``."""
        cfg = self.config
        return next(
            (
                c
                for c in self._cands
                if c.sightings
                and self._stands(c)
                and c.seen_s < b.rest_s
                and float(np.hypot(*(c.xy_mm - b.rest_xy_mm))) <= 2.0 * cfg.reach_mm
            ),
            None,
        )

    def _hidden_near(
        self, new: _Candidate, t_s: float
    ) -> tuple[_Candidate, float, float, float | None] | None:
        """The chosen candidate if it stood within a flick's travel of ``new``, unseen for
        longer than a flick takes but less than ``coast_s``, or None: the striking hand or
        figure may hide the ball for a few frames as it is struck. Unlike a flick seen, this
        is a clue only; ``_struck_unseen`` decides once ``new`` has shown its way. Only the
        chosen one is followed through such a gap: a figure whose part of the ball's colour
        the hand hid as it flicked it leaves the same way."""
        cfg = self.config
        c = self._find(self._chosen)
        if c is None or not self._stands(c):
            return None
        d = float(np.hypot(*(new.xy_mm - c.xy_mm)))
        unseen_s = t_s - c.seen_s
        if not (cfg.flick_gap_s < unseen_s <= cfg.coast_s):
            return None
        if not (cfg.reach_mm < d <= cfg.reach_mm + cfg.max_speed_mm_s * cfg.flick_gap_s):
            return None
        return c, c.seen_s, 0.0, None

    def _stands(self, c: _Candidate) -> bool:
        """``c`` was seen standing in ``settle_frames`` sightings: at its first place, or
        where it came to rest after a roll (struck again, it leaves from there)."""
        settle = self.config.settle_frames
        return (c.moved_frames == 0 and c.still_frames >= settle) or c.rest_frames >= settle

    def _struck_unseen(self, c: _Candidate) -> None:
        """``c`` first appeared near where ``c.origin`` stood before it went unseen. If it has
        gone straight away from there, in ``settle_frames`` sightings or more, never back and
        on by more than ``reach_mm`` since its first, while ``c.origin`` stayed unseen, it is
        that one struck while hidden, and takes over its place and history (as
        ``_struck_from``). A patch of kit uncovered near a ball under a hand stands still, and
        a figure's part that ran up to the ball came towards it. The same place twice in a row
        is no step back: a codec short of bits repeats a frame's picture of a rolling ball."""
        cfg = self.config
        (parent, seen_s, before, first), c.origin = c.origin, None
        taken = parent.sightings == 0  # by another struck from there (``_inherit``)
        if parent not in self._cands or parent.seen_s != seen_s or taken:
            return  # forgotten, seen again, or taken up by another: it was not struck
        place = parent.xy_mm
        # Along the way from the place to its first sighting, and across it.
        along, across = _along_across(c.xy_mm - place, c.start_mm - place)
        # Its first sighting may be a few millimetres off (the striker still covering part
        # of it), which tilts the way: a cone of a quarter of the distance, not a lane.
        if across > cfg.reach_mm + 0.25 * along or along < before - JITTER_MM:
            return  # not on its way from there, or coming back
        first = along if first is None else first
        if c.sightings < cfg.settle_frames or along <= first + cfg.reach_mm:
            c.origin = (parent, seen_s, max(along, before), first)
            return
        # Every one of its own sightings was away from the place, the first where it left.
        c.moved_frames, c.left_mm = c.sightings, c.start_mm.copy()
        c.along_mm = float(np.hypot(*(c.xy_mm - c.left_mm)))
        self._inherit(c, parent)

    def _take_over(self, new: _Candidate, parent: _Candidate) -> None:
        """A candidate just seen for the first time is ``parent`` struck away: it ranks and was
        last seen as that one, and inherits the rest (``_inherit``)."""
        new.score_now, new.seen_s = parent.score_now, parent.seen_s
        self._inherit(new, parent)

    def _inherit(self, new: _Candidate, parent: _Candidate) -> None:
        """``new`` is ``parent`` struck away: it takes its place, history and identity (a
        chosen ball stays chosen as it leaves); what is left at the place starts afresh."""
        new.start_mm = parent.start_mm.copy()
        new.still_frames = parent.still_frames
        new.sightings += parent.sightings
        new.score_sum += parent.score_sum
        new.first_frame, new.first_s = parent.first_frame, parent.first_s
        new.rest_stand = parent.rest_stand
        new.trail = deque([*parent.trail, *new.trail], maxlen=TRAIL_RUNS)
        new.key, parent.key = parent.key, new.key
        parent.sightings, parent.score_sum, parent.still_frames = 0, 0.0, 0
        parent.rest_stand = None
        parent.trail.clear()
        parent.first_frame, parent.first_s = self._frame, self._t_s

    def _associate(self, xy_mm: NDArray, t_s: float) -> list[_Candidate | None]:
        """The followed candidate each detection continues (None: a new one), nearest to its
        prediction first: within ``reach_mm`` (more for a fast one) of its prediction or of its
        way there from where it was last seen, or else within a flick's travel of one seen a
        moment ago."""
        cfg = self.config
        m = len(xy_mm)
        match: list[_Candidate | None] = [None] * m
        if not self._cands or m == 0:
            return match
        last = np.array([c.xy_mm for c in self._cands])
        since = np.array([t_s - c.seen_s for c in self._cands])
        travel = np.array([c.v_mm_s for c in self._cands]) * since[:, None]
        d = np.linalg.norm(xy_mm[:, None, :] - (last + travel)[None], axis=2)  # (m, n)
        # How far each may have gone since: its travel, or while it coasts the pace of its last
        # moments if more (its velocity is of its last two sightings, and a fit given twice,
        # the ball's part of the frame barely changed, makes it nought while it creeps on).
        pace = np.array([_pace_mm_s(c.trail) for c in self._cands])
        gone = np.maximum(
            np.hypot(travel[:, 0], travel[:, 1]), np.where(since <= cfg.coast_s, pace * since, 0.0)
        )
        # A moving candidate's prediction is as good as its speed is steady: it may stop short
        # of it anywhere on its way (a rolling ball slows, and may go unseen for frames,
        # blurred). The nearest to the prediction is still taken first: the detector may
        # report the place it left for a frame more.
        # A slow ball's velocity is mostly the jitter of two sightings a frame apart (a
        # millimetre a frame is 60 mm/s at 60 fps): its direction says little, so it may be
        # anywhere within its travel of where it was last seen.
        near_last = np.linalg.norm(xy_mm[:, None, :] - last[None], axis=2)
        on_way = (
            (d <= cfg.reach_mm + 0.5 * gone[None])
            | (to_paths(xy_mm, last, travel) <= cfg.reach_mm)
            | (near_last <= cfg.reach_mm + gone[None])
        )
        taken = np.zeros(len(self._cands), bool)
        # A flick between two frames: only a candidate seen a moment ago may have been struck
        # away unseen; one not seen for longer may be anywhere, and is no clue to identity.
        recent = since <= cfg.flick_gap_s
        flick = d <= cfg.reach_mm + np.where(recent, cfg.max_speed_mm_s * since, 0.0)[None]
        # One seen a moment ago explains a sighting better than one unseen for longer, whose
        # place is a guess from a speed it may have long lost: a ball struck from where it
        # stood a frame ago is not a figure's part that went out of sight running up to it.
        for near in (on_way & recent[None], flick, on_way):
            free = np.array([mt is None for mt in match])
            cost = np.where(free[:, None] & ~taken[None, :] & near, d, np.inf)
            while np.isfinite(cost).any():
                i, j = np.unravel_index(np.argmin(cost), cost.shape)
                match[i] = self._cands[j]
                taken[j] = True
                cost[i, :] = np.inf
                cost[:, j] = np.inf
        return match

    def _in_wake(self, new: _Candidate, t_s: float) -> bool:
        """Whether ``new`` is first seen where the chosen candidate was within ``forget_s``
        and has left since: what a codec leaves of a ball that rolled on (its image held in
        blocks not yet refreshed, a ball-like blob for a dozen frames and more), not a ball
        of its own. Nothing was there before the ball passed, and a ball rolls over nothing."""
        cfg = self.config
        chosen = self._find(self._chosen)
        if chosen is None or np.hypot(*(chosen.xy_mm - new.xy_mm)) <= cfg.reach_mm:
            return False
        for run in reversed(chosen.trail):
            if t_s - run.last_s > cfg.forget_s:
                break
            if math.hypot(run.x_mm - new.xy_mm[0], run.y_mm - new.xy_mm[1]) <= cfg.reach_mm:
                return True
        return False

    @staticmethod
    def _ghost(c: _Candidate) -> bool:
        """Left in the chosen one's wake and never moved since: no rival of it (``_in_wake``)."""
        return c.wake and c.moved_frames == 0

    def _seen_rolling(self, c: _Candidate) -> bool:
        """Seen on its way, not only at its end: two sightings away from its place that stand
        ``reach_mm`` apart. A candidate that stood, vanished and is next seen standing a
        flick's travel away (a kit's patch that a figure hid, another uncovered) has made no
        roll, however far it seems to have gone. Nor has one seen nearer its place again than
        at its first sighting away: a ball struck away goes on away, and what comes back at
        once was something else taken up a flick's travel off (a part of a figure flicked
        past, that stops)."""
        return self._on_its_way(c.xy_mm, c.start_mm, c.left_mm, c.along_mm)

    def _on_its_way(self, xy_mm, place_mm, left_mm, along_mm: float) -> bool:
        """``_seen_rolling`` from ``place_mm``, last seen at ``xy_mm``: and seen going on the
        way it left by (within ``MAX_TURN_COS``): a ball struck from its place rolls straight
        until it meets something, while a candidate unseen for a few frames and taken up by
        one kit's patch after another (a flick's travel apart, among bases of the ball's
        colour) zigzags between them."""
        reach = self.config.reach_mm
        if left_mm is None or along_mm < reach:
            return False
        first, then = left_mm - place_mm, xy_mm - left_mm
        away, on = float(np.hypot(*first)), float(np.hypot(*then))
        if on >= reach and float(first @ then) < MAX_TURN_COS * away * on:
            return False
        return bool(np.hypot(*(xy_mm - place_mm)) >= away - reach)

    def _rolled(self, c: _Candidate) -> bool:
        """Struck and rolled ``roll_mm`` from where it stood, seen along the way: from its
        first place, or from where it came to rest after moving (it rolled in, perhaps
        unseen in part, as a clip picked up in play begins)."""
        cfg = self.config
        ways = []  # (place, first sighting away, farthest along since, sightings away)
        if c.still_frames >= cfg.settle_frames:
            ways.append((c.start_mm, c.left_mm, c.along_mm, c.moved_frames))
        if c.rest_stand is not None:
            r = c.rest_stand
            ways.append((r.place_mm, r.left_mm, r.along_mm, r.moved_frames))
        return any(
            moved >= 2
            and np.hypot(*(c.xy_mm - place)) >= cfg.roll_mm
            and self._on_its_way(c.xy_mm, place, left, along)
            for place, left, along, moved in ways
        )

    def _rolled_far(self, c: _Candidate) -> bool:
        """Seen rolling on its way ``long_roll_mm`` and more: as far as a shot or a long
        pass carries the ball, and farther than a figure is flicked."""
        return c.along_mm >= self.config.long_roll_mm and self._seen_rolling(c)

    def _from_opening(self, c: _Candidate) -> bool:
        """First seen among the clip's first updates (``opening_s``)."""
        cfg = self.config
        return c.first_frame < cfg.settle_frames or c.first_s - self._t0_s <= cfg.opening_s

    @staticmethod
    def _mean_score(c: _Candidate) -> float:
        return c.score_sum / max(c.sightings, 1)

    def _rank(self, c: _Candidate) -> float:
        return c.score_now * min(1.0, c.sightings / self.config.settle_frames)

    def _choose(self) -> None:
        cfg = self.config
        before = self._chosen
        self.switched = False
        rolled = [c for c in self._cands if self._rolled(c)]
        # Rolling when the clip began (struck before it): the ball, until one struck in view
        # settles it. Only from the clip's first updates: later, a part of a figure first
        # seen as it runs up to the ball would pass for one.
        rolling = [
            c
            for c in self._cands
            if self._from_opening(c)
            and c.moved_frames >= cfg.settle_frames
            and np.hypot(*(c.xy_mm - c.start_mm)) >= cfg.roll_mm
            and self._mean_score(c) >= cfg.min_score
            and self._seen_rolling(c)
        ]
        # Struck in view where it was never seen standing (among bases of its colour, or
        # hidden under the striking hand): first seen moving later on, it has rolled a long
        # way, seen along it, looking no less a ball than the choice (or a shot's length,
        # ``_rolled_far``). Not only once at rest:
        # a ball of a kit's colour that comes to rest is read as a base there and is no
        # candidate, so it would never be chosen, while the chosen one's track follows it to
        # rest. A figure's part of its colour whose base went unseen, flicked as far, would
        # pass too (it then stops by the ball it ran up to, which is struck and rolls next),
        # so it is chosen but settles nothing.
        current = self._find(self._chosen)
        travelled = [
            c
            for c in self._cands
            if not self._from_opening(c)
            and c.still_frames < cfg.settle_frames
            and c.along_mm >= cfg.settle_roll_mm
            and self._mean_score(c) >= cfg.min_score
            and (
                current is None
                or current is c
                or self._rank(c) >= self._rank(current)
                or self._rolled_far(c)
            )
        ]
        if rolled:  # struck and rolled: the ball
            best = max(rolled, key=lambda c: (c.moved_frames, self._rank(c)))
            self._chosen, self.confirmed = best.key, True
        elif rolling:
            best = max(rolling, key=lambda c: (c.moved_frames, self._rank(c)))
            self._chosen = best.key
            far = np.hypot(*(best.xy_mm - best.start_mm)) >= cfg.settle_roll_mm
            self.confirmed = self.confirmed or (far and len(rolling) == 1)
        elif travelled:
            self._chosen = max(travelled, key=lambda c: (c.moved_frames, self._rank(c))).key
        elif self._cands:
            # Only a candidate in view now may take the choice: one glimpsed for a few frames
            # a while ago (a kit's patch as a figure passed) is no better evidence than the
            # one in view, though it keeps its rank until it is forgotten.
            real = [c for c in self._cands if not self._ghost(c)]
            now = [c for c in real if c.seen_s == self._t_s]
            best = max(now or real or self._cands, key=self._rank)
            if self._mean_score(best) < cfg.min_score:
                self._chosen = None  # nothing ball-like enough: no ball
                self._leads = {}
            elif current is None:
                self._chosen = best.key
                self._leads = {}
            else:
                # Each one leading is timed on its own, and keeps its lead while missed for a
                # moment: a rolling ball's blurred frames, or another leading one ranked first
                # for a while, would otherwise start it again.
                bar = self._rank(current) + cfg.switch_margin
                ahead = [
                    c
                    for c in real
                    if c is not current
                    and self._t_s - c.seen_s <= cfg.flick_gap_s
                    and self._rank(c) > bar
                ]
                self._leads = {c.key: self._leads.get(c.key, self._t_s) for c in ahead}
                # Held against a chosen one out of sight too: a hand over the ball, or a
                # blurred frame or two, hides it for less than that.
                held = [
                    c
                    for c in ahead
                    if c.seen_s == self._t_s and self._t_s - self._leads[c.key] >= cfg.switch_s
                ]
                if held:
                    self._chosen = max(held, key=self._rank).key
                    self._leads = {}
        else:
            self._chosen = None
        self.switched = before is not None and self._chosen != before
        if self._chosen != before:
            self._chosen_at = self._frame
        if len(self._cands) > cfg.max_hypotheses:
            keep = sorted(self._cands, key=self._rank, reverse=True)[: cfg.max_hypotheses]
            chosen = self._find(self._chosen)
            if chosen is not None and chosen not in keep:
                keep[-1] = chosen
            self._cands = keep

    def _find(self, key: int | None) -> _Candidate | None:
        return next((c for c in self._cands if c.key == key), None)


def _pace_mm_s(trail: deque[BallRun]) -> float:
    """How fast a candidate went over its last ``PACE_S`` of sightings, on average (0 when it
    was seen for less)."""
    return math.hypot(*_velocity_mm_s(trail))


def _velocity_mm_s(trail: deque[BallRun], short: bool = False) -> tuple[float, float]:
    """A candidate's mean velocity (x, y) over its last ``PACE_S`` of sightings; when it was
    seen for less, zero, or with ``short`` over all of them. (Plain floats: taken for every
    candidate on every frame while the ball is unsettled.)"""
    if not trail:
        return 0.0, 0.0
    last, first = trail[-1], trail[0]
    for run in reversed(trail):
        if last.last_s - run.last_s >= PACE_S:
            first = run
            break
    else:
        if not short:
            return 0.0, 0.0
    span_s = last.last_s - first.last_s
    if span_s <= 0.0:
        return 0.0, 0.0
    return (last.x_mm - first.x_mm) / span_s, (last.y_mm - first.y_mm) / span_s


def _along_across(off_mm: NDArray, way: NDArray) -> tuple[float, float]:
    """How far the offset ``off_mm (2,)`` reaches along the direction ``way (2,)`` (non-zero),
    and how far off its line, mm."""
    length = float(np.hypot(*way))
    along = float(off_mm @ way) / length
    across = abs(float(way[0] * off_mm[1] - way[1] * off_mm[0])) / length
    return along, across


def to_paths(xy_mm: NDArray, start_mm: NDArray, travel_mm: NDArray) -> NDArray[np.float64]:
    """Distances ``(m, n)`` from points ``(m, 2)`` to the paths ``start_mm + s * travel_mm``,
    ``0 <= s <= 1`` (``(n, 2)`` each; a still one's path is its point)."""
    off = xy_mm[:, None, :] - start_mm[None]  # (m, n, 2)
    length2 = np.einsum("nk,nk->n", travel_mm, travel_mm)
    s = np.einsum("mnk,nk->mn", off, travel_mm) / np.maximum(length2, 1e-12)[None]
    s = np.clip(s, 0.0, 1.0)
    return np.linalg.norm(off - s[..., None] * travel_mm[None], axis=2)


def _distinct(xy_mm: NDArray, score: NDArray, apart_mm: float) -> NDArray[np.intp]:
    """Indices of the candidates ``(m, 2)`` that stand ``apart_mm`` or more from every
    better-scored one (ties: the first listed), in their order."""
    keep = np.ones(len(xy_mm), bool)
    for a in np.argsort(-score, kind="stable"):  # a handful of candidates
        if keep[a]:
            near = np.hypot(*(xy_mm - xy_mm[a]).T) < apart_mm
            near[a] = False
            keep &= ~near
    return np.flatnonzero(keep)
