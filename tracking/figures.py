"""Figure tracks: stable ids for the bases on the table, their team and the goalkeepers.

``FigureTracker(config, pitch).update(detections, t_s) -> FigureTracks``, once per frame. Bases
are matched to tracks by ``scipy.optimize.linear_sum_assignment`` on the distance from each
track's predicted position; a track may also stay unmatched rather than push another off its
own base.

A figure never changes team, but its colours can read wrong for a frame or a while (blurred as
it runs, a shirt of the other team's colour, a hand over it): a base read in the other team's
colour continues the nearest track within reach when no track of its own colour claims it, so
a misread neither breaks a track nor starts a second figure. A track's team is the one its base
reads most often at rest (a blurred base reads least reliably, and a track may start on one).

A track that misses frames is kept for ``max_missing_s`` (a hand over a figure), one last seen
moving only for ``max_missing_moving_s`` (a flicked figure is wherever it went: a new track
takes it up when it is seen again, where a track left behind would be a figure where there is
none); a confirmed track that lost its base takes an unclaimed base of its team within
``relink_mm`` (a figure that moved unwatched between two whole-table searches). A new base
becomes a track after ``confirm_hits`` sightings, and a track not yet confirmed is dropped as
soon as a base search misses it (a ghost of a hand or a misread blob never stands in for a
figure). The bases of the first search are reported at once: they stood on the table before
the clip began, and a clip's first frames are scored like any other; one of them that is not
seen again goes at the next search. When a frame skipped the whole-table base search
(``Detections.bases_searched`` is False) its bases (the moving ones, looked for where they were
predicted) update their tracks, and the other tracks neither age nor get new company. A frame
whose bases are exactly those of the last frame (the detector gave its fits again: that part of
the image showed nothing new) adds nothing when every base and track matched then and nothing
moves: the tracks stand. Ids are owned by the instance and never
reused.

No figure stands on a goal post: a base fit centred within a base radius of a post (the disc
would overlap the solid post by more than its width) is the post's top or its shadow read as a
base, and is no base at all. Left in, it stood for seconds as a figure where there was none
(two such ghosts on the demo recording, 370 frames, each also giving a false placement call).
Nor in a goal, farther behind its line than a keeper reaches (the detector drops such bases,
``vision.detector``): a track carried there, by its velocity while unseen or by a fit of the
ball taken for its base, is dropped (a keeper's track once followed a ball read as a red base
into the goal and stood there as a field figure, and the ball running in "touched" it: an own
goal instead of a shot from outside the zone).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment

from rules.keepers import KEEPER_REACH_MM, in_a_goal
from rules.pitch import Pitch
from vision.detections import Detections

_END_OF_TEAM = ("left", "right")  # home defends the left goal (DESIGN.md section 3)


def _post_centres_mm(pitch: Pitch | None) -> NDArray[np.float64]:
    """The centres of the four goal posts, (4, 2) mm: beside each goal mouth, on the goal
    line's outer half (the posts stand on the line, DESIGN.md section 3); (0, 2) unknown."""
    if pitch is None:
        return np.zeros((0, 2))
    half_post = 0.5 * pitch.profile.goal_post_width_mm
    posts = []
    for goal in pitch.goals:
        sx = 1.0 if goal.end == "right" else -1.0
        x = goal.x_line_mm - sx * half_post
        posts += [(x, goal.y_min_mm - half_post), (x, goal.y_max_mm + half_post)]
    return np.array(posts, dtype=np.float64)


@dataclass(frozen=True, slots=True)
class FigureTrackerConfig:
    """Tunables of the figure tracks.

    Attributes:
        gate_mm: farthest a base may be from a track's prediction (plus its travel) to match.
        flick_speed_mm_s: speed a base at rest may leave at when flicked: the gate widens by
            this speed times the frame time (at 24 fps a flicked base moves 25 mm or more in
            its first frame; a narrow gate leaves a ghost where it stood), and the time the
            track went unseen, up to ``max_missing_moving_s``.
        max_missing_s: a track unseen this long is dropped.
        max_missing_moving_s: a track last seen moving is dropped when unseen this long.
        confirm_hits: sightings before a new track is reported.
        relink_mm: a confirmed track that lost its base takes an unclaimed base of its team
            this near: a figure that started to move unwatched is found at the next
            whole-table search (6 frames on: 100 ms at 60 fps, ~100 mm at a flick's speed).
        smoothing: least weight of a new measurement of a base at rest: a base at rest is
            the running mean of its sightings since it stopped (the last sighting while it
            moved not among them), over ~1/smoothing frames.
        moving_step_mm: a base that moved farther than this since the last frame is moving
            (no smoothing then, and a velocity); below it the step is noise. A base already
            moving keeps moving while its steps exceed half of this.
    """

    gate_mm: float = 20.0
    flick_speed_mm_s: float = 1000.0
    max_missing_s: float = 2.0
    max_missing_moving_s: float = 0.2
    confirm_hits: int = 3
    relink_mm: float = 150.0
    smoothing: float = 0.03
    moving_step_mm: float = 2.0


@dataclass(frozen=True, slots=True)
class FigureTracks:
    """Confirmed figure tracks after one update, struct-of-arrays; n tracks.

    Attributes:
        id: (n,) int64, stable ids.
        team: (n,) int8, 0 home / 1 away.
        goalkeeper: (n,) bool, the figure stands in its own goal area.
        xy_mm: (n, 2) base footprint centres.
        v_mm_s: (n, 2) velocities.
        seen: (n,) bool, matched to a base this frame.
        missing_s: (n,) float, how long its base has not been found by the whole-table
            searches (0: found at the last one; more: the track stands from memory, its
            figure hidden, or gone).
        from_start: (n,) bool, born on the first base search and never seen moving since: a
            figure that has stood there since the clip began (one born later, or one that has
            moved, may be the ball read as a base: in a clip picked up in play, rolling).
    """

    id: NDArray[np.int64]
    team: NDArray[np.int8]
    goalkeeper: NDArray[np.bool_]
    xy_mm: NDArray[np.float64]
    v_mm_s: NDArray[np.float64]
    seen: NDArray[np.bool_]
    missing_s: NDArray[np.float64]
    from_start: NDArray[np.bool_]

    def __post_init__(self) -> None:
        n = len(self.id)
        for name, shape in (
            ("team", (n,)),
            ("goalkeeper", (n,)),
            ("xy_mm", (n, 2)),
            ("v_mm_s", (n, 2)),
            ("seen", (n,)),
            ("missing_s", (n,)),
            ("from_start", (n,)),
        ):
            if getattr(self, name).shape != shape:
                got = getattr(self, name).shape
                raise ValueError(f"FigureTracks.{name}: expected shape {shape}, got {got}")

    def __len__(self) -> int:
        return len(self.id)

    @classmethod
    def empty(cls) -> FigureTracks:
        return cls(
            np.zeros(0, np.int64),
            np.zeros(0, np.int8),
            np.zeros(0, bool),
            np.zeros((0, 2)),
            np.zeros((0, 2)),
            np.zeros(0, bool),
            np.zeros(0),
            np.zeros(0, bool),
        )


class FigureTracker:
    """Keeps ids of the figures stable from frame to frame; see the module docstring."""

    _PER_TRACK = (
        "_id",
        "_team",
        "_xy",
        "_v",
        "_hits",
        "_rest_n",
        "_missing_s",
        "_seen",
        "_was_moving",
        "_votes",
        "_first",
        "_stood",
    )

    def __init__(self, config: FigureTrackerConfig | None = None, pitch: Pitch | None = None):
        self.config = config or FigureTrackerConfig()
        self._pitch = pitch
        self._posts_xy = _post_centres_mm(pitch)
        self._next_id = 0
        self._t_s: float | None = None
        self._id = np.zeros(0, np.int64)
        self._team = np.zeros(0, np.int8)
        self._xy = np.zeros((0, 2))
        self._v = np.zeros((0, 2))
        self._hits = np.zeros(0, np.int64)
        self._rest_n = np.zeros(0, np.int64)  # sightings at rest since the base last moved
        self._missing_s = np.zeros(0)
        self._seen = np.zeros(0, bool)
        self._was_moving = np.zeros(0, bool)  # moving at its last sighting
        self._votes = np.zeros((0, 2), np.int64)  # sightings at rest read as each team
        self._first = np.zeros(0, bool)  # born on the first base search
        self._stood = np.zeros(0, bool)  # never seen moving since it was born
        self._searched = False  # a base search has been seen
        self._keeps: tuple[NDArray, NDArray] | None = None  # (xy mm, ``_keepers``) last
        self._last: FigureTracks | None = None
        # The bases (xy mm, team) of the last searched frame, when every base and every
        # track matched then, all tracks confirmed and at rest; else None.
        self._steady: tuple[NDArray, NDArray] | None = None

    def update(self, detections: Detections, t_s: float) -> FigureTracks:
        """Advance to ``t_s`` with this frame's bases and return the confirmed tracks."""
        if self._t_s is not None and t_s < self._t_s:
            raise ValueError(f"frame timestamps went backwards: {t_s} s after {self._t_s} s")
        dt = 0.0 if self._t_s is None else t_s - self._t_s
        self._t_s = t_s
        detections = self._off_posts(detections)
        last = self._last
        if (
            not detections.bases_searched
            and detections.n_bases == 0
            and last is not None
            and not last.seen.any()
            and not self._v.any()
        ):
            return last  # nothing searched, nothing moving: the tracks stand as they were
        if self._repeats(detections):
            return last  # the same bases again, all matched and still: nothing new to add
        pred = self._xy + self._v * dt
        rows, cols = self._match(pred, detections, dt)
        relinked = np.zeros(0, np.int64)
        if detections.bases_searched:
            relinked, more = self._relink(pred, detections, rows, cols)
            rows, cols = np.concatenate([rows, relinked]), np.concatenate([cols, more])
        z = detections.base_xy_mm
        self._seen = np.zeros(len(self._id), bool)
        self._seen[rows] = True
        if not detections.bases_searched:
            # Only moving bases were looked at: the others are not missing, just not searched.
            unseen = ~self._seen
            pred[unseen] = self._xy[unseen] + self._v[unseen] * dt
        else:
            self._missing_s = np.where(self._seen, 0.0, self._missing_s + dt)
        new_xy = pred.copy()
        if len(rows):
            new_xy[rows] = self._blend(pred[rows], z[cols], dt, rows)
        if dt > 0:
            moved = np.linalg.norm(new_xy - self._xy, axis=1) > 0.5 * self.config.moving_step_mm
            self._v = np.where((self._seen & moved)[:, None], (new_xy - self._xy) / dt, 0.0)
            if len(relinked):  # it moved over some frames unseen: no faster than a flick
                speed = np.linalg.norm(self._v[relinked], axis=1, keepdims=True)
                self._v[relinked] *= np.minimum(1.0, self.config.flick_speed_mm_s / speed)
        self._xy = new_xy
        self._hits[rows] += 1
        self._was_moving[rows] = self._v[rows].any(axis=1)
        self._stood[rows] &= ~self._was_moving[rows]
        self._vote(rows, detections.base_team[cols])
        cfg = self.config
        keep = self._missing_s <= np.where(
            self._was_moving, cfg.max_missing_moving_s, cfg.max_missing_s
        )
        if self._pitch is not None:
            keep &= ~in_a_goal(self._pitch, self._xy)
        if detections.bases_searched:
            keep &= self._seen | (self._hits >= cfg.confirm_hits)  # an unconfirmed miss: a ghost
        self._drop(~keep)
        if detections.bases_searched:
            unmatched = np.ones(detections.n_bases, bool)
            unmatched[cols] = False
            if unmatched.any():
                self._add(z[unmatched], detections.base_team[unmatched], not self._searched)
            self._searched = True
        self._last = self._tracks()
        steady = (
            detections.bases_searched
            and len(rows) == len(self._id) == detections.n_bases
            and not self._v.any()
            and bool((self._hits >= self.config.confirm_hits).all())
        )
        self._steady = (z.copy(), detections.base_team.copy()) if steady else None
        return self._last

    def _off_posts(self, det: Detections) -> Detections:
        """``det`` without the bases no figure can be: those standing on a goal post."""
        if det.n_bases == 0 or len(self._posts_xy) == 0:
            return det
        gap = np.linalg.norm(det.base_xy_mm[:, None, :] - self._posts_xy[None, :, :], axis=2)
        keep = gap.min(axis=1) >= self._pitch.profile.base_radius_mm
        return det if keep.all() else det.with_bases(keep)

    def _repeats(self, det: Detections) -> bool:
        """The bases are exactly the last searched frame's, which left the tracks steady."""
        last = self._steady
        return (
            last is not None
            and det.bases_searched
            and np.array_equal(det.base_xy_mm, last[0])
            and np.array_equal(det.base_team, last[1])
        )

    def _match(self, pred: NDArray, det: Detections, dt: float) -> tuple[NDArray, NDArray]:
        if len(pred) == 0 or det.n_bases == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        d = np.linalg.norm(pred[:, None, :] - det.base_xy_mm[None, :, :], axis=2)
        speed = np.maximum(np.linalg.norm(self._v, axis=1), self.config.flick_speed_mm_s)
        # The reach grows with the time since the track was last seen (a few frames at most:
        # the first blurred steps of a flick may go unseen).
        unseen_s = np.minimum(self._missing_s, self.config.max_missing_moving_s)
        gate = self.config.gate_mm + speed * np.maximum(dt + unseen_s, 1e-3)
        bad = d > gate[:, None]
        # A base of its own colour is preferred to one read in the other's (see the module
        # docstring): the other's costs more than any base within reach of its own.
        other = self._team[:, None] != det.base_team[None, :]
        cost = np.where(bad, 1e9, d + other * gate.max())
        # Each track may also stay unmatched, at one cost above any base a track may take: a
        # track is never pushed onto a far base so that another can have its own.
        n = len(pred)
        spare = np.full((n, n), 1e9)
        np.fill_diagonal(spare, 2.0 * gate.max() + 1.0)
        rows, cols = linear_sum_assignment(np.concatenate([cost, spare], axis=1))
        ok = (cols < det.n_bases) & ~bad[rows, np.minimum(cols, det.n_bases - 1)]
        return rows[ok], cols[ok]

    def _relink(self, pred: NDArray, det: Detections, rows: NDArray, cols: NDArray):
        """More (track rows, base cols): confirmed tracks that lost their base take unclaimed
        bases of their team within ``relink_mm``, nearest first.

        A base at rest that starts to move is looked at only where the frame is watched (near
        the ball and the moving bases) until the next whole-table search, which finds it
        farther than any frame's reach: its track goes there instead of being left behind,
        a figure where there is none, while a new track starts on the figure.
        """
        lost = np.ones(len(pred), bool)
        lost[rows] = False
        lost &= self._hits >= self.config.confirm_hits
        free = np.ones(det.n_bases, bool)
        free[cols] = False
        none = np.zeros(0, np.int64)
        if not lost.any() or not free.any():
            return none, none
        t, b = np.flatnonzero(lost), np.flatnonzero(free)
        d = np.linalg.norm(pred[t][:, None] - det.base_xy_mm[b][None], axis=2)
        d[self._team[t][:, None] != det.base_team[b][None, :]] = np.inf
        d[d > self.config.relink_mm] = np.inf
        if not np.isfinite(d).any():
            return none, none
        i, j = linear_sum_assignment(np.where(np.isfinite(d), d, 1e9))
        ok = np.isfinite(d[i, j])
        return t[i[ok]], b[j[ok]]

    def _blend(self, pred: NDArray, z: NDArray, dt: float, rows: NDArray) -> NDArray:
        """Follow a moving base at once; average a resting one (less noise)."""
        prev = self._xy[rows]
        step = np.linalg.norm(z - prev, axis=1)
        was_moving = np.linalg.norm(self._v[rows], axis=1) > 0
        limit = np.where(was_moving, 0.5, 1.0) * self.config.moving_step_mm
        moving = step > limit
        self._rest_n[rows] = np.where(moving, 0, self._rest_n[rows] + 1)
        # The mean of the sightings at rest (the first one after a move starts it afresh).
        w = np.maximum(self.config.smoothing, 1.0 / np.maximum(self._rest_n[rows], 1))
        w = np.where(moving, 1.0, w)
        return prev + w[:, None] * (z - prev)

    def _vote(self, rows: NDArray, team: NDArray) -> None:
        """Count the team each matched base reads at rest; a track takes the most read."""
        at_rest = self._rest_n[rows] > 0
        np.add.at(self._votes, (rows[at_rest], team[at_rest].astype(np.intp)), 1)
        voted = self._votes[rows].sum(axis=1) > 0
        self._team[rows[voted]] = np.argmax(self._votes[rows[voted]], axis=1)

    def _drop(self, gone: NDArray) -> None:
        if not gone.any():
            return
        keep = ~gone
        for name in self._PER_TRACK:
            setattr(self, name, getattr(self, name)[keep])

    def _add(self, xy: NDArray, team: NDArray, first: bool) -> None:
        n = len(xy)
        if n == 0:
            return
        self._first = np.concatenate([self._first, np.full(n, first)])
        self._stood = np.concatenate([self._stood, np.ones(n, bool)])
        self._id = np.concatenate([self._id, np.arange(self._next_id, self._next_id + n)])
        self._next_id += n
        self._team = np.concatenate([self._team, team.astype(np.int8)])
        self._xy = np.concatenate([self._xy, xy])
        self._v = np.concatenate([self._v, np.zeros((n, 2))])
        self._hits = np.concatenate([self._hits, np.ones(n, np.int64)])
        self._rest_n = np.concatenate([self._rest_n, np.ones(n, np.int64)])
        self._missing_s = np.concatenate([self._missing_s, np.zeros(n)])
        self._seen = np.concatenate([self._seen, np.ones(n, bool)])
        self._was_moving = np.concatenate([self._was_moving, np.zeros(n, bool)])
        self._votes = np.concatenate([self._votes, np.zeros((n, 2), np.int64)])

    def _keepers(self, xy: NDArray) -> NDArray[np.int8]:
        """The team whose goal each figure ``(n, 2)`` keeps ``(n,)``, -1 for a field figure.

        Field figures may not stand in a goal area (FISTF 2.1): of the figures in a goal area
        (or on its line, in front of the net), the one nearest the middle of the goal line
        is that goal's rod goalkeeper. A rod goalkeeper has no base, and its shirt may be any
        colour (the other team's, the cloth's), so its team is the one that defends that goal.
        """
        last = self._keeps
        if last is not None and np.array_equal(last[0], xy):
            return last[1]  # the same figures where they stood (most frames)
        out = np.full(len(xy), -1, np.int8)
        if self._pitch is not None and len(xy):
            for team, end in enumerate(_END_OF_TEAM):
                near = self._pitch.zone_margin_mm(f"goal_area_{end}", xy) > -KEEPER_REACH_MM
                if not near.any():
                    continue
                goal = self._pitch.goal(end)
                mouth = np.array([goal.x_line_mm, 0.5 * (goal.y_min_mm + goal.y_max_mm)])
                rows = np.flatnonzero(near)
                out[rows[np.argmin(np.linalg.norm(xy[rows] - mouth, axis=1))]] = team
        self._keeps = (xy.copy(), out)
        return out

    def _tracks(self) -> FigureTracks:
        ok = (self._hits >= self.config.confirm_hits) | self._first
        xy = self._xy[ok]
        keeps = self._keepers(xy)
        team = np.where(keeps >= 0, keeps, self._team[ok]).astype(np.int8)
        return FigureTracks(
            self._id[ok].copy(),
            team,
            keeps >= 0,
            xy.copy(),
            self._v[ok].copy(),
            self._seen[ok].copy(),
            self._missing_s[ok].copy(),
            self._first[ok] & self._stood[ok],
        )
