"""The whole-cloth blob pass, kept up to date only where the image changed.

The coarse pass (``Detector``) finds every ball-, base- and figure-sized blob on the cloth from
every ``step``-th pixel. Redoing it on every frame costs a read of a quarter of the frame's rows
even when nothing moved, and the whole classification when one figure moved. ``ClothBlobs``
keeps the blob table of the last pass and, each frame:

- compares every ``2 step``-th row of the frame (a base is crossed by at least two of them;
  every pixel of a row, so that an outline moved by a fraction of a pixel shows) with the rows
  the table was made from; a pixel has changed when a channel differs by more than twice the
  foreground threshold, as in ``vision/changes.py``, or by more than the threshold itself
  where it came into or left the foreground (against the background) beside a neighbour in
  its row that did too: an object whose colour differs from the cloth by less than twice the
  threshold (a dark ball on a textured cloth) is foreground all the same, and moving it must
  renew the table; noise flips a lone pixel at most. The rows are compared in the
  background's light, and the searches below search in it: a flickering lamp changes nothing
  on the table (``vision/changes.py``), where a whole cloth a few tenths darker read as
  specks of a dark ball's or kit's colour all over. Asked to, it compares only inside
  *watched* boxes (around the ball a figure may come to strike, around the figures already
  moving), and the rest of the cloth on the detector's slower schedule for bases at rest;
- around each group of changed samples (the *core*, grown by the largest blob's radius, so it
  holds the centre of every blob that changed) searches a box one more blob radius wide at the
  full pass's sample grid, and replaces the table's blobs centred in the core by the box's;
- redoes the whole pass every ``max_age`` frames, when the changes cover much of the cloth, or
  when a blob found in a box runs into the box's edge (a hand or an arm larger than a figure).

A blob of a box is *fresh* when a changed pixel lies within its reach (the detector then fits
it again); a blob that only stands in a box next to one that moved keeps its fit.

The reference rows are renewed only inside the cores: a slow change below the threshold from
one frame to the next still adds up until it shows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.changes import in_light, light_gains

# blobs(image, background, roi, origin (2,) px, step) -> (centre (n, 2) px, class (n,),
# area (n,) mm^2, elongation (n,), touches the region's edge (n,)) or None when there are none.
BlobSearch = Callable[..., tuple[NDArray, ...] | None]


@dataclass(frozen=True, slots=True)
class BlobTable:
    """Blobs on the cloth after one update; n blobs.

    Attributes:
        centre_px: (n, 2) float64 centres in full-resolution pixels.
        cls: (n,) int64 colour class (the detector's ``_BALL``, ``_HOME``, ``_AWAY``).
        area_mm2: (n,) float64 area on the cloth.
        elongation: (n,) float64 ratio of the principal spreads (>= 1).
        fresh: (n,) bool, found again this frame with changed pixels within its reach.
    """

    centre_px: NDArray[np.float64]
    cls: NDArray[np.int64]
    area_mm2: NDArray[np.float64]
    elongation: NDArray[np.float64]
    fresh: NDArray[np.bool_]

    @classmethod
    def of(cls, blobs: tuple[NDArray, ...] | None, fresh: bool) -> BlobTable:
        if blobs is None:
            z = np.zeros(0)
            return cls(np.zeros((0, 2)), np.zeros(0, np.int64), z, z, np.zeros(0, bool))
        c, k, a, e = blobs[:4]
        return cls(c, k.astype(np.int64), a, e, np.full(len(c), fresh))

    def select(self, keep: NDArray[np.bool_]) -> BlobTable:
        return BlobTable(
            self.centre_px[keep],
            self.cls[keep],
            self.area_mm2[keep],
            self.elongation[keep],
            self.fresh[keep],
        )

    def with_fresh(self, fresh: NDArray[np.bool_]) -> BlobTable:
        return BlobTable(self.centre_px, self.cls, self.area_mm2, self.elongation, fresh)

    @staticmethod
    def join(parts: list[BlobTable]) -> BlobTable:
        return BlobTable(
            *(np.concatenate([getattr(p, f) for p in parts]) for f in BlobTable.__slots__)
        )


class ClothBlobs:
    """The blob table of the whole cloth, updated where the frame changed; see the module."""

    def __init__(
        self,
        search: BlobSearch,
        background: NDArray[np.uint8],
        roi: NDArray[np.uint8],
        *,
        step: int,
        blob_radius_px: float,
        threshold: float,
        max_age: int,
        min_pixels: int = 3,
    ) -> None:
        self._search = search
        self._step = step
        self._bg_small = self._grid(background)
        self._roi_small = self._grid(roi)
        self._bg_rows = self._rows(background)
        self._t_fg = float(threshold)  # the foreground's per-channel threshold
        self._t = 2.0 * float(threshold)
        self._max_age = max_age
        self._min_pixels = min_pixels
        # Cores grow by a blob's radius: in pixels across, in sampled rows (2 step apart) down.
        self._grow = (int(np.ceil(blob_radius_px)), int(np.ceil(blob_radius_px / step / 2)))
        self._reach_px = 0.75 * blob_radius_px  # a blob's outline and what leans out of it
        self._ref: NDArray[np.uint8] | None = None
        self._dirty: NDArray[np.uint8] | None = None  # sampled rows where the background changed
        self._frame = 0
        self.table: BlobTable | None = None
        self.full_passes = 0

    def renew_background(self, background: NDArray[np.uint8], changed: NDArray[np.bool_]) -> None:
        """Search against ``background`` from now on; where it ``changed`` (``(h, w)``) the
        table is searched again on the next update, as where the frame changed."""
        self._bg_small = self._grid(background)
        self._bg_rows = self._rows(background)
        # A change between two sampled rows shows on the nearer one.
        tall = np.ones((4 * self._step + 1, 1), np.uint8)
        rows = self._rows(cv2.dilate(changed.astype(np.uint8) * 255, kernel=tall))
        self._dirty = rows if self._dirty is None else cv2.bitwise_or(self._dirty, rows)

    def _grid(self, image: NDArray) -> NDArray:
        """The full pass's samples: every ``step``-th pixel in x and y."""
        f = 1.0 / self._step  # the exact scale keeps samples at multiples of the step
        return cv2.resize(image, dsize=None, fx=f, fy=f, interpolation=cv2.INTER_NEAREST)

    def _rows(self, image: NDArray) -> NDArray:
        """Every ``2 step``-th row (a view)."""
        return image[:: 2 * self._step]

    def update(
        self, image: NDArray[np.uint8], frame: int, watch: list[tuple] | None = None
    ) -> tuple[BlobTable, bool]:
        """The blob table for ``image`` and whether it differs from the last one.

        Args:
            watch: boxes ``(x0, y0, x1, y1)`` in pixels: compare only inside them (the rest of
                the cloth keeps its blobs); None compares the whole cloth.
        """
        if self._ref is None or self.table is None or frame - self._frame >= self._max_age:
            return self._full(image, frame), True
        rows = _Lit(self._rows(image), self._bg_rows, self._t_fg)
        changed = self._changes(rows, watch)
        if self._dirty is not None:
            changed = self._dirty if changed is None else cv2.bitwise_or(changed, self._dirty)
            self._dirty = None
        if changed is None:
            return self.table, False  # nearly always: nothing at all changed
        cores = self._cores(changed)
        table = None if cores is None else self._patch(image, cores, changed, rows)
        if table is None:
            return self._full(image, frame), True
        if watch is not None and not _same_kinds(self.table, table):
            # A blob came into or left the watched boxes: where it came from or went to,
            # outside them, is looked at now, not on the next whole look.
            self._renew(rows.lit(), cores)
            self.table = table
            return self.update(image, frame, None)[0], True
        self._renew(rows.lit(), cores)
        self.table = table
        return table, True

    def _renew(self, rows, cores) -> None:
        """Renew the reference where the table was renewed, from the sampled ``rows``."""
        s = self._step
        for x0, y0, x1, y1 in cores:
            self._ref[y0:y1, s * x0 : s * x1] = rows[y0:y1, s * x0 : s * x1]

    def _changes(self, rows: _Lit, watch) -> NDArray[np.uint8] | None:
        """Mask ``(rows, w)`` of the changed pixels of the sampled ``rows`` (255), or None
        when too few changed."""
        hs, ws = self._ref.shape[:2]
        if watch is None:
            parts = [(0, 0, ws, hs)]
        else:
            parts = []
            rs = 2 * self._step
            for x0, y0, x1, y1 in watch:
                sx0, sy0 = max(0, int(x0)), max(0, int(y0) // rs)
                sx1, sy1 = min(ws, int(x1) + 1), min(hs, int(y1) // rs + 1)
                if sx1 > sx0 and sy1 > sy0:
                    parts.append((sx0, sy0, sx1, sy1))
        changed, count = None, 0
        for x0, y0, x1, y1 in parts:
            ref = self._ref[y0:y1, x0:x1]
            # Nearly always nothing changed: the largest difference says so in one pass, and
            # only then are the rows brought to the background's light.
            if cv2.norm(rows.raw[y0:y1, x0:x1], ref, normType=cv2.NORM_INF) <= self._t_fg:
                continue
            sub = rows.lit()[y0:y1, x0:x1]
            if rows.levelled and cv2.norm(sub, ref, normType=cv2.NORM_INF) <= self._t_fg:
                continue
            here = self._changed(sub, ref, (x0, y0))
            if changed is None:
                changed = np.zeros(self._ref.shape[:2], np.uint8)
            h, w = here.shape
            changed[y0 : y0 + h, x0 : x0 + w] |= here
            count += cv2.countNonZero(here)
        return changed if count >= self._min_pixels else None

    def _changed(self, sub, ref, origin) -> NDArray[np.uint8]:
        """Changed pixels (255) of sampled rows ``sub`` against ``ref`` (see the module
        docstring), the part at ``origin`` (column, sampled row) of the rows. Only the few
        pixels that changed by more than the foreground threshold are looked at one by one."""
        diff = cv2.absdiff(sub, ref)
        t_fg = self._t_fg
        some = cv2.findNonZero(
            cv2.bitwise_not(cv2.inRange(diff, lowerb=(0, 0, 0), upperb=(t_fg, t_fg, t_fg)))
        )
        here = np.zeros(sub.shape[:2], np.uint8)
        if some is None:
            return here
        xs, ys = some.reshape(-1, 2).T
        big = (diff[ys, xs] > np.rint(self._t)).any(axis=1)
        bg = self._bg_rows[origin[1] + ys, origin[0] + xs].astype(np.int16)
        level = np.rint(t_fg)
        now = (np.abs(sub[ys, xs].astype(np.int16) - bg) > level).any(axis=1)
        then = (np.abs(ref[ys, xs].astype(np.int16) - bg) > level).any(axis=1)
        # A pair of neighbours in a row: noise flips lone pixels.
        key = ys.astype(np.int64) * sub.shape[1] + xs
        flip = key[now != then]
        pair = np.isin(flip + 1, flip) | np.isin(flip - 1, flip)
        here[ys[big], xs[big]] = 255
        w = sub.shape[1]
        here[flip[pair] // w, flip[pair] % w] = 255
        return here

    def _full(self, image, frame) -> BlobTable:
        self._dirty = None
        rows = _Lit(self._rows(image), self._bg_rows, self._t_fg)
        self._ref, self._frame = rows.lit().copy(), frame
        small = rows.level(self._grid(image))
        found = self._search(small, self._bg_small, self._roi_small, np.zeros(2), self._step)
        self.table = BlobTable.of(found, fresh=False)
        self.full_passes += 1
        return self.table

    def _cores(self, changed: NDArray[np.uint8]) -> list[tuple[int, int, int, int]] | None:
        """Cores ``(x0, y0, x1, y1)`` around groups of changed pixels, in columns of the full
        pass's grid (``step`` pixels) across and sampled rows down, or None when they cover
        much of the cloth (the whole pass is then cheaper)."""
        s = self._step
        h, w = changed.shape
        gx, gy = -(-self._grow[0] // s), self._grow[1]
        # Only the part around the changes (grown by a core's margin) is looked at.
        bx, by, bw, bh = cv2.boundingRect(changed)
        x0, x1 = max(0, bx // s - gx - 1) * s, min(-(-w // s), -(-(bx + bw) // s) + gx + 1) * s
        y0, y1 = max(0, by - gy - 1), min(h, by + bh + gy + 1)
        part = changed[y0:y1, x0 : min(x1, w)]
        if part.shape[1] < x1 - x0:  # the grid's last column reaches past the image
            part = cv2.copyMakeBorder(part, 0, 0, 0, x1 - x0 - part.shape[1], cv2.BORDER_CONSTANT)
        # Changed anywhere in a grid column: the block mean is not 0 (255 / step rounds up).
        pooled = cv2.resize(part, dsize=((x1 - x0) // s, y1 - y0), interpolation=cv2.INTER_AREA)
        kernel = np.ones((2 * gy + 1, 2 * gx + 1), np.uint8)
        grown = cv2.dilate(pooled, kernel=kernel)
        # The boxes of the outer outlines are those of the groups (and several times faster
        # to get than connected components with their statistics).
        outlines, _ = cv2.findContours(
            grown, mode=cv2.RETR_EXTERNAL, method=cv2.CHAIN_APPROX_SIMPLE
        )
        boxes = [cv2.boundingRect(c) for c in outlines]
        if sum(bw * bh for _, _, bw, bh in boxes) > 0.25 * h * -(-w // s):
            return None
        cx, cy = x0 // s, y0
        return [(cx + x, cy + y, cx + x + bw, cy + y + bh) for x, y, bw, bh in boxes]

    def _patch(self, image, cores, changed, rows: _Lit) -> BlobTable | None:
        """The table with the blobs centred in ``cores`` searched again; None when a blob
        found runs into the edge of its box (it may be larger than the box)."""
        s = self._step
        moved = cv2.findNonZero(changed).reshape(-1, 2) * (1, 2 * s)  # changed pixels, px
        hs, ws = self._bg_small.shape[:2]
        gx, gy = -(-self._grow[0] // s), self._grow[1]
        old = self.table
        keep = np.ones(len(old.cls), bool)
        parts, done = [], []
        for x0, y0, x1, y1 in cores:
            # Core and box on the full pass's grid (every step-th pixel in x and y).
            cx0, cx1, cy0, cy1 = x0, x1, 2 * y0, 2 * y1
            bx0, bx1 = max(0, cx0 - gx), min(ws, cx1 + gx)
            by0, by1 = max(0, cy0 - 2 * gy), min(hs, cy1 + 2 * gy)
            crop = rows.level(
                np.ascontiguousarray(image[by0 * s : by1 * s : s, bx0 * s : bx1 * s : s])
            )
            found = self._search(
                crop,
                self._bg_small[by0:by1, bx0:bx1],
                self._roi_small[by0:by1, bx0:bx1],
                np.array([bx0 * s, by0 * s], np.float64),
                s,
            )
            lo = np.array([cx0 * s, cy0 * s]) - 0.5 * s
            hi = np.array([cx1 * s, cy1 * s]) - 0.5 * s
            keep &= ~_inside(old.centre_px, lo, hi)
            if found is None:
                done.append((lo, hi))
                continue
            here = _inside(found[0], lo, hi)
            for a, b in done:  # boxes of two groups may overlap: a blob is taken once
                here &= ~_inside(found[0], a, b)
            done.append((lo, hi))
            inner = (bx0 > 0, by0 > 0, bx1 < ws, by1 < hs)  # box edges that are not the frame's
            if (here & _on_edges(found[4], inner)).any():
                return None
            part = BlobTable.of(tuple(f[here] for f in found), fresh=True)
            parts.append(part.with_fresh(_within(part.centre_px, moved, self._reach_px)))
        kept = old.select(keep)
        return BlobTable.join([kept.with_fresh(np.zeros(len(kept.cls), bool)), *parts])


class _Lit:
    """Sampled rows of a frame, and the same in the background's light (``in_light``), read
    once and only when asked for."""

    def __init__(self, raw: NDArray[np.uint8], background: NDArray[np.uint8], limit: float):
        self.raw, self._background, self._limit = raw, background, limit
        self._lit: NDArray[np.uint8] | None = None
        self.gains = np.ones(3)

    def lit(self) -> NDArray[np.uint8]:
        if self._lit is None:
            self.gains = 1.0 / light_gains(self.raw, self._background)
            self._lit = in_light(self.raw, self.gains, self._limit)
        return self._lit

    def level(self, image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        """Pixels of the same frame in the background's light, as the rows."""
        return in_light(image, self.gains, self._limit) if self.levelled else image

    @property
    def levelled(self) -> bool:
        """The light was off the background's by enough to bring the rows to it."""
        return self._lit is not None and self._lit is not self.raw


def _same_kinds(a: BlobTable, b: BlobTable) -> bool:
    """Both tables hold as many blobs of each class."""
    n = int(max(a.cls.max(initial=0), b.cls.max(initial=0))) + 1
    return np.array_equal(np.bincount(a.cls, minlength=n), np.bincount(b.cls, minlength=n))


def _within(xy: NDArray, points: NDArray, reach: float) -> NDArray[np.bool_]:
    """Which of ``xy (n, 2)`` have one of ``points (k, 2)`` within ``reach``."""
    if len(xy) == 0 or len(points) == 0:
        return np.zeros(len(xy), bool)
    d2 = ((xy[:, None, :] - points[None, :, :]) ** 2).sum(axis=2)
    return d2.min(axis=1) <= reach * reach


def _inside(xy: NDArray, lo: NDArray, hi: NDArray) -> NDArray[np.bool_]:
    return ((xy >= lo) & (xy < hi)).all(axis=1)


def _on_edges(touch: NDArray, inner: tuple[bool, bool, bool, bool]) -> NDArray[np.bool_]:
    """Which blobs ``(n,)`` touch an inner edge of their box: ``touch`` is (n, 4) for the
    left, top, right and bottom edges."""
    return (touch & np.asarray(inner)[None, :]).any(axis=1)
