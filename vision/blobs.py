"""Classified foreground blobs: which pixels differ from the learnt background, which colour
each is (ball, home, away; shading tolerant), and the connected blobs of each colour.

A pixel is foreground when its colour differs from the background by the model's threshold in
at least one channel (``cv2.absdiff`` and ``cv2.inRange``); only foreground pixels are
classified, by the nearest of the learnt colours under shading.
"""

from __future__ import annotations

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.colour import ball_coloured, darkened, shaded_distance, shadow_residual

BALL, HOME, AWAY = 0, 1, 2  # colour classes; a team's index is its class minus HOME
# A background whose channels lie this share of its brightest apart is a coloured cloth,
# whose shadows are told from objects (a line's white, darkened, is any grey).
CHROMA = 0.3


def _moments(lab: NDArray, x: NDArray, y: NDArray, n: int):
    """Area, centroid (x, y) and central second moments (xx, yy, xy) of ``n`` labels."""
    area = np.bincount(lab, minlength=n).astype(np.float64)
    a = np.maximum(area, 1.0)
    y = y.astype(np.float64)
    cx = np.bincount(lab, x, minlength=n) / a
    cy = np.bincount(lab, y, minlength=n) / a
    dx, dy = x - cx[lab], y - cy[lab]
    vxx = np.bincount(lab, dx * dx, minlength=n) / a
    vyy = np.bincount(lab, dy * dy, minlength=n) / a
    vxy = np.bincount(lab, dx * dy, minlength=n) / a
    return area, cx, cy, vxx, vyy, vxy


def _coloured(bgr: NDArray, floor: float = 0.0) -> NDArray[np.bool_]:
    """Which colours ``(n, 3)`` have a hue of their own: their channels ``CHROMA`` of the
    brightest apart, and ``floor`` grey levels (a near black's hue is its noise's); not a
    grey or a white's tint."""
    c = np.asarray(bgr, np.float32)
    top = c.max(axis=1)
    return top - c.min(axis=1) >= np.maximum(CHROMA * top, floor)


# A pixel nearer one team's colour than this share of its distance to the other's is clearly
# of that team; between, it may be either (``ColourBlobs.rim_teams``).
CLEAR_TEAM_SHARE = 0.75


class ColourBlobs:
    """The colour classes of one learnt table, and its blobs in frames or parts of them."""

    def __init__(
        self,
        ball_bgr: NDArray,
        team_bgr: NDArray,
        threshold: float,
        shading_range: tuple[float, float],
    ) -> None:
        """Ball colour hypotheses (3,) or (k, 3) and team colours (2, 3) BGR, the foreground
        threshold (a colour distance) and the range of shading an object's colour may show
        (``VisionConfig.shading_range``). A pixel is ball-coloured when any hypothesis
        explains it."""
        ball_bgr = np.asarray(ball_bgr, np.float32).reshape(-1, 3)
        team_bgr = np.asarray(team_bgr, np.float32).reshape(2, 3)
        # Per-channel threshold: a Euclidean colour distance t shows as >= t / sqrt(3) in at
        # least one channel.
        self.threshold_ch = float(threshold / np.sqrt(3.0))
        self._threshold = float(threshold)
        self._shading = shading_range
        self.ball_bgr = ball_bgr
        self._k = k = len(ball_bgr)
        self._colours = np.concatenate([ball_bgr, team_bgr])
        # Colour index -> class: the k ball colours are BALL, then HOME and AWAY.
        self._class_of = np.array([BALL] * k + [HOME, AWAY])
        # A team whose bases have a ball's colour (a yellow ball, a yellow team): its pixels
        # may be either, so ball candidates come from both classes and size decides.
        d = shaded_distance(ball_bgr, team_bgr, shading_range)  # (k, 2)
        near = (d < 0.25 * np.linalg.norm(ball_bgr, axis=1)[:, None] + 10.0).any(axis=0)
        self.ball_classes = [BALL] + [HOME + i for i in np.flatnonzero(near)]
        self._is_ball_class = np.isin(np.arange(3), self.ball_classes)  # by class

    def narrowed(self, i: int) -> ColourBlobs:
        """The same classes with only ball colour ``i`` (the ball has shown its colour)."""
        return ColourBlobs(
            self.ball_bgr[i],
            self._colours[self._k :],
            np.sqrt(3.0) * self.threshold_ch,
            self._shading,
        )

    def face(
        self, pixels: NDArray, share: float, uniformity: float
    ) -> tuple[NDArray[np.bool_], NDArray[np.float32] | None]:
        """The colours the pixels ``(n, 3)`` of a ball's face show: which ball colours
        ``(k,)`` explain a ``share`` of them each, and the lit colour ``(3,)`` (the median of
        its brightest 30 %) of the part no ball colour explains, when that part is as large
        and at least ``uniformity`` of it is that one colour under shading (a half or a band;
        not a finger's edge, a glint and a shadow together), else None."""
        k = self._k
        _, ball = self.classes(pixels)
        idx = self.ball_colour_index(pixels)
        shown = np.bincount(idx[ball], minlength=k) / len(pixels) >= share
        other = np.asarray(pixels, np.float32)[~ball]
        if len(other) < max(share * len(pixels), 3):
            return shown, None
        lum = other.sum(axis=1)
        colour = np.median(other[lum >= np.percentile(lum, 70)], axis=0).astype(np.float32)
        a = np.clip(other @ colour / max(float(colour @ colour), 1.0), *self._shading)
        off = np.linalg.norm(other - a[:, None] * colour, axis=1)
        even = off < 0.2 * np.linalg.norm(colour) + 10.0
        return shown, (colour if even.mean() >= uniformity else None)

    def ball_colour_index(self, pixels: NDArray) -> NDArray[np.int64]:
        """Index ``(n,)`` of the ball colour that best explains each pixel ``(n, 3)``."""
        return np.argmin(shaded_distance(pixels, self.ball_bgr, self._shading), axis=1)

    def classes(self, pixels: NDArray) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """Team class and ball colour of each pixel ``(n, 3)``.

        Returns the class (n,) of the nearest shaded colour (``BALL``, ``HOME``, ``AWAY``;
        a pixel of the ball's colour counts for its twin team, if there is one) and whether
        a ball colour explains the pixel under shading (n,). Team pixels keep their class
        however far they are (rims, walls and bodies vary more), but only pixels a ball
        colour explains can make a ball: a finger or a shirt nearest a pale team's colour is
        not ball-coloured. A pixel nearest a ball colour that no ball colour explains, and
        about as near a team (within a quarter), counts for that team: while the ball's
        colour is open, an orange hypothesis lies as near a red rim in the light as the
        learnt dark red, and a rim whose pixels fell out of its team broke into pieces too
        small for a base. One much nearer a ball colour (the cloth and the paint mixed where
        a line shows again from under a figure) stays out of both.
        """
        return self._classes(pixels)[:2]

    def classes_and_shadows(self, pixels: NDArray, background: NDArray):
        """``classes`` of the pixels ``(n, 3)`` and which of them are a shadow on their
        background ``(n, 3)`` (``_shadows``): class ``(n,)``, ball colour ``(n,)``, shadow
        ``(n,)``."""
        cls, ball, d = self._classes(pixels)
        return cls, ball, self._shadows(pixels, background, cls, ball, d)

    def rim_teams(self, pixels: NDArray, background: NDArray):
        """``classes`` of the pixels of a base's rim ``(n, 3)``, which of them are clearly of
        their team's colour, and which are of a ball's colour or a shadow on their
        background ``(n, 3)`` (``_shadows``): ``(n,)`` each.

        Clearly: nearer that team's colour than ``CLEAR_TEAM_SHARE`` of its distance to the
        other's, under shading. A rim blended with the cloth, or with a shirt of a third
        colour, lies about as far from both kits; and a pale ball hypothesis (a shaded white
        base's top taken for a ball while the ball's colour is open) shaded deep explains a
        navy rim's near-black pixels as well as the white team's shaded ones, which as its
        twin's would read a navy base white.
        """
        cls, ball, d = self._classes(pixels)
        shade = self._shadows(pixels, background, cls, ball, d)
        d_team = d[:, self._k :]
        clear = d_team.min(axis=1) <= CLEAR_TEAM_SHARE * d_team.max(axis=1)
        clear &= cls == HOME + np.argmin(d_team, axis=1)
        return cls, clear, ball | shade

    def _classes(self, pixels: NDArray):
        """``classes`` and the shaded distances ``(n, k + 2)`` it read them from."""
        d = shaded_distance(pixels, self._colours, self._shading)
        k = self._k
        cls = self._class_of[np.argmin(d, axis=1)]
        size = np.linalg.norm(np.asarray(pixels, np.float32), axis=1)
        d_ball = d[:, 0] if k == 1 else d[:, :k].min(axis=1)
        ball = ball_coloured(d_ball, size) & self._is_ball_class[cls]
        twins = self.ball_classes[1:]
        if twins:  # the ball's pixels count for its twin team (the nearer, if both are)
            cols = [k + t - HOME for t in twins]
            nearer = np.asarray(twins)[np.argmin(d[:, cols], axis=1)]
            cls = np.where(cls == BALL, nearer, cls)
        else:
            # Nearest a ball colour the ball does not explain (a red rim in the shade reads
            # nearer an orange ball hypothesis than its own dark red): the nearer team's.
            d_team = d[:, k:]
            team = np.argmin(d_team, axis=1)
            near = d_team[np.arange(len(team)), team] <= 1.25 * d_ball
            cls = np.where((cls == BALL) & ~ball, np.where(near, HOME + team, -1), cls)
        return cls, ball, d

    def _shadows(self, pixels, background, cls, ball, d) -> NDArray[np.bool_]:
        """Which foreground pixels ``(n,)`` of a team's class or a ball's colour are a shadow,
        from their shaded distances ``d (n, k + 2)`` to the colours (``_classes``).

        A shadow is the cloth darkened, no object's colour: a low light's long shadow, read
        as the team nearest its dark green, joins a figure's blob (too long for a base then)
        or stands apart as a base where none stands; read as the dark side of a white ball,
        it is a ball where none lies. Only a shadow that shows the cloth's hue is told so: a
        white line darkened is grey, as a black base on it is, and as a white ball's shaded
        side; a near black's hue is its noise. A pixel nearer its own colour under shading
        (its team's, or the nearest ball colour's) than the darkened cloth is that colour's (a
        black base is the cloth darkened too, within the noise), and a colour that is itself
        the cloth darkened there (a dark green base) keeps such pixels.
        """
        shade = (ball | (cls >= HOME)) & _coloured(background)
        shade &= _coloured(pixels, 0.5 * self.threshold_ch)
        if not shade.any():
            return shade
        p, bg = pixels[shade].astype(np.float32), background[shade].astype(np.float32)
        dark, cloth = darkened(p, bg, self._threshold), shadow_residual(p, bg)
        d, k = d[shade], self._k
        which = np.where(ball[shade], np.argmin(d[:, :k], axis=1), k + cls[shade] - HOME)
        own = d[np.arange(len(p)), which]
        kept = ~dark | (own <= cloth) | darkened(self._colours[which], bg, self._threshold)
        shade[np.flatnonzero(shade)[kept]] = False
        return shade

    def find(self, image, background, roi, scale_px_per_mm, origin, step, classes=None):
        """Classified foreground blobs of a (sub-sampled) region, of ``classes`` (default all).

        ``BALL`` blobs are made of ball-coloured pixels, team blobs of their team's pixels
        (with a twin team, the ball is in both). Returns per blob: centre in full-resolution
        pixels (n, 2), class (n,), area in mm^2 (n,), elongation (n,), and which edges of the
        region (left, top, right, bottom) it touches (n, 4).
        """
        diff = cv2.absdiff(image, background)
        t = self.threshold_ch
        quiet = cv2.inRange(diff, lowerb=(0, 0, 0), upperb=(t, t, t))
        fg = cv2.bitwise_and(cv2.bitwise_not(quiet), roi) if roi is not None else ~quiet
        pts = cv2.findNonZero(fg)
        if pts is None:
            return None
        pts = pts.reshape(-1, 2)
        xs, ys = pts[:, 0], pts[:, 1]
        cls, ball, shadow = self.classes_and_shadows(image[ys, xs], background[ys, xs])
        if shadow.any():
            # A shadow is broad; the rim of a dark base, its blend with the cloth, is thin.
            mask = np.zeros(fg.shape, np.uint8)
            mask[ys[shadow], xs[shadow]] = 1
            mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
            shadow = mask[ys, xs] > 0
            cls, ball = np.where(shadow, -1, cls), ball & ~shadow
        # Labels per class (connectivity within a class); then the moments of all classes'
        # blobs at once, their labels offset class by class.
        labs, xs_in, ys_in, kinds, touches = [], [], [], [], []
        count = 0
        mask = np.zeros(fg.shape, np.uint8)
        for c in classes or (BALL, HOME, AWAY):
            sel = ball if c == BALL else cls == c
            if not sel.any():
                continue
            mask[:] = 0
            x, y = xs[sel], ys[sel]
            mask[y, x] = 255
            n, labels = cv2.connectedComponents(mask, connectivity=8, ltype=cv2.CV_32S)
            labs.append(labels[y, x] - 1 + count)
            xs_in.append(x)
            ys_in.append(y)
            kinds.append(np.full(n - 1, c))
            touch = np.zeros((n - 1, 4), bool)
            for k, edge in enumerate((labels[:, 0], labels[0], labels[:, -1], labels[-1])):
                touch[edge[edge > 0] - 1, k] = True
            touches.append(touch)
            count += n - 1
        if count == 0:
            return None
        x = np.concatenate(xs_in).astype(np.float64)
        area, cx, cy, vxx, vyy, vxy = _moments(
            np.concatenate(labs), x, np.concatenate(ys_in), count
        )
        half = 0.5 * (vxx + vyy)
        disc = np.sqrt(0.25 * (vxx - vyy) ** 2 + vxy**2)
        pixel = 1.0 / 12.0  # a single pixel's own spread
        elong = np.sqrt((half + disc + pixel) / np.maximum(half - disc + pixel, pixel))
        centre = origin + np.stack([cx, cy], 1) * step
        scale = scale_px_per_mm(centre)
        area_mm2 = area * step * step / scale**2
        return centre, np.concatenate(kinds), area_mm2, elong, np.concatenate(touches)
