"""Rod goalkeepers: found by their silhouette in the goal areas, placed by their geometry.

A rod goalkeeper has no base (FISTF 8.1: it is held by a rod from behind its goal). It is a
flat figure standing on the cloth, at most ``KEEPER_HEIGHT_MM`` high and ``KEEPER_THICKNESS_MM``
thick (FISTF circular 14-2014, rule 5), in any kit: its shirt may be neither team's base colour,
so it is looked for as whatever differs from the background in a goal area, whatever its colour
(beyond what the background shows within a pixel and any blend of it: a line's or the net's
edge drawn a pixel off by a codec is no silhouette).

Seen from above, the keeper's silhouette is its footprint swept along the image ray from its
foot to its head: for an upright prism the centroid of that silhouette is the image of the
point half way up the figure, above the middle of its footprint. So the footprint centre is
the silhouette's centroid carried down to the cloth from half the keeper's height (the
camera's parallax), not a base's rim. The rod (thin, at the keeper's back) is opened away
first: it would pull the centroid toward the goal.

Field figures may not stand in a goal area (FISTF 2.1): of the silhouettes there (or on its
lines, in front of the net: ``KEEPER_REACH_MM``), the one nearest the middle of the goal line
is that goal's keeper, unless one stands within a keeper's width of the keeper found last:
moved on its rod it is still there, and another silhouette showing up meanwhile nearer the
middle (a net a low bitrate garbles, a hand) is no keeper.

A keeper's silhouette lies wholly inside the goal area's search box, which holds every keeper
that can stand within reach, head and all. A silhouette that runs on out of the box reaches in
from beyond where any keeper stands (a hand taking the ball from the net, an arm over the
keeper) and is no keeper: read as one, it stood for frames as a second figure on the arm.

A button-football keeper is a block whose sizes the table profile gives (``[keeper]``: width
across the goal, depth along the pitch, height): the same geometry holds with its depth for the
rod keeper's thickness and its height for the figure's (``KeeperShape.of``).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from rules.keepers import KEEPER_REACH_MM
from rules.profile import TableProfile
from vision.changes import ChangeGate
from vision.model import SceneModel

KEEPER_HEIGHT_MM = 39.0  # FISTF circular 14-2014 rule 5: at most 39 mm high
KEEPER_THICKNESS_MM = 6.0  # ... and 6 mm thick
KEEPER_MIN_WIDTH_MM = 13.0  # ... its narrow side at most 13 mm
KEEPER_MAX_WIDTH_MM = 21.0  # ... its wide side at most 21 mm
ROD_WIDTH_MM = 4.5  # ... on a rod at most 4.5 mm wide
# A pixel within the colours the background shows within a pixel of it lies this many
# foreground thresholds from a blend of them at most to be background (``_in_box``).
BLEND_THRESHOLDS = 3.0
ENDS = ("left", "right")  # home defends the left goal (DESIGN.md section 3)


@dataclass(frozen=True, slots=True)
class KeeperShape:
    """The solid a goalkeeper is, as its finder needs it (mm).

    Attributes:
        height_mm: its height above the cloth.
        depth_mm: its thickness along the pitch's length (the footprint's centre stands half
            of it behind the foot of the face turned to the camera's nadir).
        min_width_mm: its narrowest side (the least silhouette it shows).
        max_width_mm: its width across the goal (a base this near overlaps it).
        rod_width_mm: the width of the rod it is held by (0: none).
    """

    height_mm: float = KEEPER_HEIGHT_MM
    depth_mm: float = KEEPER_THICKNESS_MM
    min_width_mm: float = KEEPER_MIN_WIDTH_MM
    max_width_mm: float = KEEPER_MAX_WIDTH_MM
    rod_width_mm: float = ROD_WIDTH_MM

    @property
    def foot_radius_mm(self) -> float:
        """The farthest any part of its footprint stands from its centre (half its diagonal)."""
        return 0.5 * float(np.hypot(self.max_width_mm, self.depth_mm))

    def overlaps(self, off_mm: NDArray, radius_mm: float) -> NDArray[np.bool_]:
        """Whether a disc of ``radius_mm`` whose centre stands ``off_mm (..., 2)`` from the
        keeper's footprint centre overlaps the keeper: a rod keeper within its arms' reach
        all round, a block (no rod) within its rectangle, wide across the goal."""
        off = np.abs(np.asarray(off_mm, np.float64))
        if self.rod_width_mm > 0:
            return np.hypot(off[..., 0], off[..., 1]) < radius_mm + 0.5 * self.max_width_mm
        return (off[..., 0] < radius_mm + 0.5 * self.depth_mm) & (
            off[..., 1] < radius_mm + 0.5 * self.max_width_mm
        )

    @classmethod
    def of(cls, profile: TableProfile) -> KeeperShape:
        """The keeper block of a profile with a ``[keeper]`` section, else FISTF's rod keeper."""
        sizes = dict(profile.sizes_mm)
        keys = ("keeper.width_mm", "keeper.depth_mm", "keeper.height_mm")
        if not all(k in sizes for k in keys):
            return cls()
        width, depth, height = (sizes[k] for k in keys)
        return cls(height, depth, min(width, depth), max(width, depth), 0.0)


@dataclass(frozen=True, slots=True)
class Keepers:
    """The rod goalkeepers seen in one frame, struct-of-arrays; k <= 2.

    Attributes:
        xy_mm: (k, 2) footprint centres on the cloth.
        xy_px: (k, 2) the silhouette centroids (the point half way up each keeper).
        end: (k,) int8, the goal each keeps: 0 the left (home's), 1 the right.
    """

    xy_mm: NDArray[np.float64]
    xy_px: NDArray[np.float64]
    end: NDArray[np.int8]

    def __post_init__(self) -> None:
        k = len(self.end)
        for name, shape in (("xy_mm", (k, 2)), ("xy_px", (k, 2)), ("end", (k,))):
            if getattr(self, name).shape != shape:
                got = getattr(self, name).shape
                raise ValueError(f"Keepers.{name}: expected shape {shape}, got {got}")

    def __len__(self) -> int:
        return len(self.end)

    @classmethod
    def empty(cls) -> Keepers:
        return cls(np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0, np.int8))


class KeeperFinder:
    """Finds the rod goalkeeper of each goal area in frames of one calibrated camera."""

    def __init__(self, model: SceneModel, threshold_ch: float, max_age: int) -> None:
        """``threshold_ch``: the per-channel foreground threshold (``ColourBlobs``);
        ``max_age``: a goal area that shows nothing new keeps its answer this many frames."""
        self.model = model
        self.shape = shape = KeeperShape.of(model.pitch.profile)
        self._t = threshold_ch
        pitch = model.pitch
        self._boxes = [self._box(end) for end in ENDS]
        self._mouths = []
        for end in ENDS:
            goal = pitch.goal(end)
            self._mouths.append(np.array([goal.x_line_mm, 0.5 * (goal.y_min_mm + goal.y_max_mm)]))
        scale = float(np.median(model.scale_grid))
        # Opening by a disc wider than the rod and narrower than the keeper's thickness (all
        # of it a straight-down view shows) removes the rod and keeps the keeper.
        open_mm = 0.5 * (ROD_WIDTH_MM + min(shape.depth_mm, KEEPER_THICKNESS_MM))
        k = max(3, int(np.rint(open_mm * scale)) | 1)
        self._kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
        # A keeper's silhouette covers at least its top face; a hand covers far more.
        self._min_area_mm2 = 0.5 * shape.min_width_mm * shape.depth_mm
        self._max_area_mm2 = 8.0 * shape.height_mm * max(shape.min_width_mm, KEEPER_MIN_WIDTH_MM)
        self._max_area_mm2 = max(self._max_area_mm2, 4.0 * shape.max_width_mm * shape.depth_mm)
        self._gates = [ChangeGate(threshold_ch, max_age=max_age) for _ in ENDS]
        self._frame = 0
        self._last: list[NDArray | None] = [None for _ in ENDS]  # each goal's keeper, mm
        # Each box's background within a pixel (``_near_background``), kept with the
        # background it was read from: it changes only when the background is renewed.
        self._near: list[tuple | None] = [None for _ in ENDS]

    def _box(self, end: str) -> tuple[int, int, int, int] | None:
        """The pixel box ``(x0, y0, x1, y1)`` where a keeper of goal ``end`` can show."""
        pitch, lens = self.model.pitch, self.model.lens
        goal = pitch.goal(end)
        # The goal area's ground box, found from the zone itself (the profile's numbers
        # place its lines), with the reach around it and a keeper's footprint beyond that: a
        # keeper standing anywhere within reach is wholly inside.
        xs = np.linspace(goal.x_line_mm - 250.0, goal.x_line_mm + 250.0, 251)
        ys = np.linspace(-300.0, 300.0, 301)
        grid = np.stack(np.meshgrid(xs, ys), axis=2).reshape(-1, 2)
        margin = pitch.zone_margin_mm(f"goal_area_{end}", grid)
        inside = grid[margin > -(KEEPER_REACH_MM + self.shape.foot_radius_mm)]
        if len(inside) == 0:
            return None
        lo, hi = inside.min(axis=0), inside.max(axis=0)
        corners = np.array([[x, y] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])])
        pts = np.concatenate(
            [
                np.concatenate([corners, np.zeros((4, 1))], 1),
                np.concatenate([corners, np.full((4, 1), self.shape.height_mm)], 1),
            ]
        )
        try:
            px = lens.project(pts)
        except ValueError:
            return None
        w, h = self.model.size_px
        x0, y0 = np.floor(px.min(axis=0)).astype(int) - 2
        x1, y1 = np.ceil(px.max(axis=0)).astype(int) + 3
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 - x0 < 3 or y1 - y0 < 3:
            return None
        return int(x0), int(y0), int(x1), int(y1)

    def find(self, image: NDArray[np.uint8], balls_px: NDArray, balls_r_px: NDArray) -> Keepers:
        """The keepers in ``image (h, w, 3)`` BGR; ``balls_px (m, 2)``, ``balls_r_px (m,)``:
        the ball candidates (a ball in a goal area is not its keeper)."""
        self._frame += 1
        xy_mm, xy_px, end = [], [], []
        balls_px = np.asarray(balls_px, np.float64).reshape(-1, 2)
        balls_r_px = np.asarray(balls_r_px, np.float64).reshape(-1)
        for i, box in enumerate(self._boxes):
            if box is None:
                continue
            x0, y0, x1, y1 = box
            region = image[y0:y1, x0:x1]
            gate = self._gates[i]
            # Only a ball that reaches the box changes what is found in it (``_in_box``): a
            # ball rolling elsewhere leaves an unchanged box its keeper.
            key = balls_px[_reaches(balls_px, balls_r_px, box)].round(0).tobytes()
            found = gate.lookup(key, region, self._frame)
            if found is None:
                found = self._in_box(i, region, balls_px, balls_r_px)
                gate.store(key, region, found, self._frame)
            self._last[i] = found[0]
            if found[0] is not None:
                xy_mm.append(found[0])
                xy_px.append(found[1])
                end.append(i)
        if not end:
            return Keepers.empty()
        return Keepers(np.array(xy_mm), np.array(xy_px), np.array(end, np.int8))

    def _in_box(self, i: int, region: NDArray[np.uint8], balls_px: NDArray, balls_r_px: NDArray):
        """(footprint mm (2,), centroid px (2,)) of the keeper in goal box ``i``, or Nones."""
        x0, y0, x1, y1 = self._boxes[i]
        model = self.model
        t = self._t
        # A pixel differs from the background when it lies outside what the background shows
        # within a pixel of it, channel by channel, by more than the threshold, or far from
        # any blend of those colours: a codec that draws a line's edge or the net a pixel off
        # or softer than the learnt background (a key frame after predicted ones) makes no
        # silhouette there (those had merged with the keeper into one that ran out of the
        # box, and a speck on the goal line was taken for it), while a finger over a line
        # is no blend of the line and the cloth and stays whole.
        lo, hi, span, span2 = self._near_background(i)
        quiet = cv2.inRange(cv2.subtract(lo, region), (0, 0, 0), (t, t, t))
        quiet &= cv2.inRange(cv2.subtract(region, hi), (0, 0, 0), (t, t, t))
        rel = region.astype(np.float32) - lo
        share = np.clip((rel * span).sum(axis=2) / span2, 0, 1)
        quiet[np.abs(rel - share[..., None] * span).max(axis=2) > BLEND_THRESHOLDS * t] = 0
        fg = cv2.bitwise_and(cv2.bitwise_not(quiet), model.roi[y0:y1, x0:x1].astype(np.uint8))
        # The ball is not the keeper, even touching it (a save): its disc is left out, and
        # what it hides of the keeper is not taken for the keeper's outline.
        hidden = np.zeros_like(fg)
        near = _reaches(balls_px, balls_r_px, self._boxes[i])
        for (bx, by), br in zip(balls_px[near] - np.array([x0, y0]), balls_r_px[near], strict=True):
            cv2.circle(hidden, (round(bx), round(by)), int(np.ceil(1.2 * br)), 255, -1)
        if hidden.any():
            fg[hidden > 0] = 0
            grow = self._kernel.shape[0] + 2
            hidden = cv2.dilate(hidden, np.ones((grow, grow), np.uint8))
        fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, self._kernel)
        n, labels, stats, centroids = cv2.connectedComponentsWithStats(fg, connectivity=8)
        if n <= 1:
            return None, None
        c_px = centroids[1:] + np.array([x0, y0], np.float64)
        area_px = stats[1:, cv2.CC_STAT_AREA].astype(np.float64)
        area_mm2 = area_px / model.px_per_mm(c_px) ** 2
        ok = (area_mm2 >= self._min_area_mm2) & (area_mm2 <= self._max_area_mm2)
        ok &= ~self._runs_out(i, stats)
        if not ok.any():
            return None, None
        ground = model.lens.back_project(c_px[ok], 0.5 * self.shape.height_mm)
        zone = model.pitch.zone_margin_mm(f"goal_area_{ENDS[i]}", ground) > -KEEPER_REACH_MM
        if not zone.any():
            return None, None
        ground, c = ground[zone], c_px[ok][zone]
        j = int(np.argmin(np.linalg.norm(ground - self._mouths[i], axis=1)))
        last = self._last[i]
        if last is not None:
            # The keeper found last is still the keeper where a silhouette stands within a
            # keeper's width of it: one nearer the goal's middle that shows up meanwhile (a
            # net a codec garbles, a hand) does not take its place.
            d = np.linalg.norm(ground - last, axis=1)
            if d.min() <= self.shape.max_width_mm:
                j = int(np.argmin(d))
        label = 1 + np.flatnonzero(ok)[np.flatnonzero(zone)[j]]
        ys, xs = np.nonzero(labels == label)
        pixels = np.stack([xs + x0, ys + y0], 1).astype(np.float64)
        foot = self._footprint(pixels, hidden[ys, xs] > 0, ground[j])
        return (None, None) if foot is None else (foot, c[j])

    def _near_background(self, i: int) -> tuple[NDArray, NDArray, NDArray, NDArray]:
        """Box ``i``'s background within a pixel of each pixel: its least and greatest levels
        ``(h, w, 3)`` uint8, their difference ``(h, w, 3)`` float32 and its squared length
        ``(h, w)`` (at least 1), read once for each background the model is given."""
        background = self.model.background
        kept = self._near[i]
        if kept is None or kept[0] is not background:
            x0, y0, x1, y1 = self._boxes[i]
            bg = background[y0:y1, x0:x1]
            ring = np.ones((3, 3), np.uint8)
            lo, hi = cv2.erode(bg, ring), cv2.dilate(bg, ring)
            span = hi.astype(np.float32) - lo
            kept = (background, lo, hi, span, np.maximum((span * span).sum(axis=2), 1.0))
            self._near[i] = kept
        return kept[1:]

    def _runs_out(self, i: int, stats: NDArray) -> NDArray[np.bool_]:
        """Which silhouettes (``stats``: connected components' stats without the background)
        run on out of goal box ``i``: they touch a side of the box that is not the image's
        edge (a keeper cut by the edge of the view may touch that)."""
        x0, y0, x1, y1 = self._boxes[i]
        w, h = self.model.size_px
        left, top = stats[1:, cv2.CC_STAT_LEFT], stats[1:, cv2.CC_STAT_TOP]
        right = left + stats[1:, cv2.CC_STAT_WIDTH]
        bottom = top + stats[1:, cv2.CC_STAT_HEIGHT]
        return (
            ((left == 0) & (x0 > 0))
            | ((top == 0) & (y0 > 0))
            | ((right == x1 - x0) & (x1 < w))
            | ((bottom == y1 - y0) & (y1 < h))
        )

    def _footprint(self, pixels: NDArray, hidden: NDArray, rough_mm: NDArray) -> NDArray | None:
        """The footprint centre (2,) mm of a keeper from its silhouette's pixels (n, 2), of
        which ``hidden (n,)`` border on the ball (the keeper's outline goes on behind it);
        None when the ball hides most of the face's foot.

        The keeper faces along the pitch's length, on its rod. Carried down to the cloth, every
        point of it above the cloth lands farther from the nadir than it stands, so the part of
        the silhouette nearest the nadir along the length is the foot of the face turned to the
        nadir: the footprint's centre is half the keeper's thickness behind it. Across, the
        silhouette's centroid (``rough_mm``) stands over the middle of the footprint.
        """
        lens = self.model.lens
        ground = lens.back_project(pixels, 0.0)
        toward = 1.0 if lens.centre_mm[0] >= rough_mm[0] else -1.0  # toward the nadir, along x
        reach = ground[:, 0] * toward
        # The face's foot along each strip across (a pixel wide): the median of the strips
        # ignores a corner rounded by the blur and a stray pixel of shadow.
        mm_px = 1.0 / float(np.median(self.model.scale_grid))
        strip = np.floor(ground[:, 1] / mm_px)
        order = np.lexsort((reach, strip))
        strip, reach, hidden = strip[order], reach[order], hidden[order]
        last = np.flatnonzero(np.r_[strip[1:] != strip[:-1], True])
        seen = last[~hidden[last]]  # strips whose foot the ball does not hide
        if 2 * len(seen) < len(last):
            return None  # the ball hides the face's foot: not placed from what is left
        front = float(np.median(reach[seen]))
        return np.array([(front - 0.5 * self.shape.depth_mm) * toward, rough_mm[1]])


def _reaches(balls_px: NDArray, balls_r_px: NDArray, box: tuple[int, int, int, int]):
    """Which balls ``(m, 2)`` px of radii ``(m,)`` reach into ``box`` ``(x0, y0, x1, y1)``
    (within a radius of it): those whose disc ``_in_box`` leaves out of a keeper."""
    x0, y0, x1, y1 = box
    bx, by = balls_px[:, 0] - x0, balls_px[:, 1] - y0
    r = balls_r_px
    return (-r <= bx) & (bx < x1 - x0 + r) & (-r <= by) & (by < y1 - y0 + r)
