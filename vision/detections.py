"""What one frame's detection found: plain struct-of-arrays data for the tracker.

Pixels are image (x, y) with x right and y down; millimetres are ground points in the pitch frame
(DESIGN.md section 3): the point where the ball touches the cloth, the centre of a base's
footprint. Vision has already corrected parallax, so ``*_xy_mm`` is what tracking and rules use.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

HOME, AWAY = 0, 1


class DetectionsShapeError(ValueError):
    """A ``Detections`` field does not have the shape its siblings imply."""


def _check(name: str, arr: NDArray, shape: tuple[int, ...]) -> None:
    if arr.shape != shape:
        raise DetectionsShapeError(
            f"Detections.{name}: expected shape {shape}, got {arr.shape}; every ball field must "
            "have one row per ball candidate and every base field one row per base"
        )


@dataclass(frozen=True, slots=True)
class Detections:
    """Ball candidates and figure bases seen in one frame.

    Attributes:
        ball_xy_px: (m, 2) float64, sub-pixel centre of each ball candidate's silhouette.
        ball_r_px: (m,) float64, silhouette radius in pixels.
        ball_score: (m,) float64 in [0, 1], how ball-like the candidate is (best first).
        ball_xy_mm: (m, 2) float64, ground point of each candidate, parallax corrected.
        base_xy_px: (n, 2) float64, centre of each base's top rim in pixels.
        base_r_px: (n,) float64, rim radius in pixels.
        base_team: (n,) int8, ``HOME`` or ``AWAY``.
        base_xy_mm: (n, 2) float64, footprint centre of each base on the cloth.
        bases_searched: False when this frame skipped the base search (bases at rest are
            refreshed on a slower schedule); the tracker then keeps its figures as they are.
        ball_sigma_mm: (m,) float64, standard uncertainty of each ball ground point that
            averaging over frames does not remove: what every fit shares
            (``VisionConfig.fit_sigma_px`` at the ball's scale) and, in quadrature, the doubt
            the fit's own edges show (how far apart other reasonable readings of its outline
            put it, and their scatter; ``vision.refine``), or None when the source does not
            say.
        ball_whole_patch: (m,) bool, which candidates were placed by their whole patch (a ball
            at rest, ``vision.refine.refine_balls``) rather than by their edges, or None when
            the source does not say.
        ball_vacated: the place the ball was looked for shows the bare cloth: no ball there,
            not hidden under a finger or a figure either (it was struck away unseen).
    """

    ball_xy_px: NDArray[np.float64]
    ball_r_px: NDArray[np.float64]
    ball_score: NDArray[np.float64]
    ball_xy_mm: NDArray[np.float64]
    base_xy_px: NDArray[np.float64]
    base_r_px: NDArray[np.float64]
    base_team: NDArray[np.int8]
    base_xy_mm: NDArray[np.float64]
    bases_searched: bool = True
    ball_sigma_mm: NDArray[np.float64] | None = None
    ball_whole_patch: NDArray[np.bool_] | None = None
    ball_vacated: bool = False

    def __post_init__(self) -> None:
        m, n = len(self.ball_r_px), len(self.base_r_px)
        _check("ball_xy_px", self.ball_xy_px, (m, 2))
        _check("ball_r_px", self.ball_r_px, (m,))
        _check("ball_score", self.ball_score, (m,))
        _check("ball_xy_mm", self.ball_xy_mm, (m, 2))
        _check("base_xy_px", self.base_xy_px, (n, 2))
        _check("base_r_px", self.base_r_px, (n,))
        _check("base_team", self.base_team, (n,))
        _check("base_xy_mm", self.base_xy_mm, (n, 2))
        if self.ball_sigma_mm is not None:
            _check("ball_sigma_mm", self.ball_sigma_mm, (m,))
        if self.ball_whole_patch is not None:
            _check("ball_whole_patch", self.ball_whole_patch, (m,))

    def with_balls(self, keep: NDArray[np.bool_]) -> Detections:
        """The same detections with only the ball candidates ``keep`` ``(m,)`` selects."""
        sigma = None if self.ball_sigma_mm is None else self.ball_sigma_mm[keep]
        patch = None if self.ball_whole_patch is None else self.ball_whole_patch[keep]
        return replace(
            self,
            ball_xy_px=self.ball_xy_px[keep],
            ball_r_px=self.ball_r_px[keep],
            ball_score=self.ball_score[keep],
            ball_xy_mm=self.ball_xy_mm[keep],
            ball_sigma_mm=sigma,
            ball_whole_patch=patch,
        )

    def with_bases(self, keep: NDArray[np.bool_]) -> Detections:
        """The same detections with only the bases ``keep`` ``(n,)`` selects."""
        return replace(
            self,
            base_xy_px=self.base_xy_px[keep],
            base_r_px=self.base_r_px[keep],
            base_team=self.base_team[keep],
            base_xy_mm=self.base_xy_mm[keep],
        )

    @property
    def n_balls(self) -> int:
        return len(self.ball_r_px)

    @property
    def n_bases(self) -> int:
        return len(self.base_r_px)

    @classmethod
    def empty(cls, *, bases_searched: bool = True) -> Detections:
        """No ball and no base (a frame where nothing was seen or searched)."""
        return cls.build(bases_searched=bases_searched)

    @classmethod
    def build(
        cls,
        *,
        ball_xy_px=None,
        ball_r_px=None,
        ball_score=None,
        ball_xy_mm=None,
        base_xy_px=None,
        base_r_px=None,
        base_team=None,
        base_xy_mm=None,
        bases_searched: bool = True,
        ball_sigma_mm=None,
        ball_whole_patch=None,
        ball_vacated: bool = False,
    ) -> Detections:
        """Detections from array-likes; a missing field is zeros of the implied length.

        Handy for tests and for tracking-only code that knows millimetres but not pixels.
        """
        m = _rows(ball_xy_mm, ball_xy_px, ball_r_px, ball_score)
        n = _rows(base_xy_mm, base_xy_px, base_r_px, base_team)
        return cls(
            ball_xy_px=_arr(ball_xy_px, (m, 2)),
            ball_r_px=_arr(ball_r_px, (m,)),
            ball_score=_arr(ball_score, (m,), fill=1.0),
            ball_xy_mm=_arr(ball_xy_mm, (m, 2)),
            base_xy_px=_arr(base_xy_px, (n, 2)),
            base_r_px=_arr(base_r_px, (n,)),
            base_team=_arr(base_team, (n,), dtype=np.int8),
            base_xy_mm=_arr(base_xy_mm, (n, 2)),
            bases_searched=bases_searched,
            ball_sigma_mm=None if ball_sigma_mm is None else _arr(ball_sigma_mm, (m,)),
            ball_whole_patch=None
            if ball_whole_patch is None
            else _arr(ball_whole_patch, (m,), dtype=bool),
            ball_vacated=ball_vacated,
        )


def _rows(*fields) -> int:
    for f in fields:
        if f is not None:
            return len(np.asarray(f).reshape(len(f), -1)) if len(f) else 0
    return 0


def _arr(value, shape: tuple[int, ...], *, fill: float = 0.0, dtype=np.float64) -> NDArray:
    if value is None:
        return np.full(shape, fill, dtype=dtype)
    arr = np.asarray(value, dtype=dtype)
    return arr.reshape(shape) if arr.size == int(np.prod(shape)) else arr
