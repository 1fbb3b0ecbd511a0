"""A table's calibration as plain data, and its versioned files ``calibration.json``/``lens.json``.

``calibration.json`` (DESIGN.md section 4)::

    {"schema_version": 1, "table": "fistf", "image_size_px": [w, h],
     "camera": <CameraModel.to_dict()>, "home": "left",
     "line_edges_mm": {"touchline_top": {"inner_mm": -1.48, "outer_mm": 1.53}, ...},
     "residuals": {"rms_px", "rms_mm", "local_mm", "per_line_mm": {...}, "per_line_px": {...}},
     "lines_used": ["touchline_top", ...],
     "focal": {"source": "goals", "sigma_pct": 0.4, "goals": 2,
               "centre_cov_mm2": [[...], [...], [...]]}, "ball_colour": "orange"}

``focal`` says what fixed the focal length (and so the camera's height, which the parallax
correction of the ball and the bases rests on): ``lens`` (a lens file), ``lines`` (the view's
perspective), ``goals`` (the balance of the two goals' parallax) or ``none`` (neither: the
mapping to the cloth is exact, the height is a guess); ``sigma_pct`` its 1-sigma uncertainty
and ``centre_cov_mm2`` the covariance of the camera's centre (pitch x, y, height), mm^2.
Files written before they were added lack ``focal`` or ``centre_cov_mm2``.
``ball_colour`` is the ball's colour as the user named it (a name or ``#rrggbb``, a two-tone
ball's joined by ``+``; see ``tablevar analyze --ball-colour``); absent when it was not named.
``camera_controls`` are the camera's settings locked for the match (a Raspberry Pi camera:
exposure, gain, white balance, lens position and frame duration), so that a camera opened again
shows the colours and sharpness the detection learnt; absent for other cameras::

    "camera_controls": {"model": "imx708", "mode_px": [2304, 1296], "exposure_us": 10000,
                        "analogue_gain": 2.5, "colour_gains": [1.9, 1.6],
                        "lens_position": 1.1, "frame_duration_us": 17857, "mains_hz": 50}

``lens.json`` holds the intrinsics of a camera measured with a ChArUco board::

    {"schema_version": 1, "size_px": [w, h], "camera_matrix": [[...]], "dist": [k1, k2, p1, p2, k3],
     "rms_px": 0.2, "views": 6}

Reading rejects unknown keys, missing keys and other schema versions, naming them (STYLE.md
habit 12): a file written by a newer tablevar is refused, not half understood.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from calibration.camera import CameraModel
from rules.pitch import Pitch

# Painted lines differ from their profile's width by a few tenths of a millimetre; a line
# measured wider or narrower by more than this has its edges in doubt (``width_doubt_mm``),
# and calls read them midway between the two widths (``called_edges``).
WIDTH_TOLERANCE_MM = 0.5
SCHEMA_VERSION = 1
HOME_SIDES = ("left", "right", "top", "bottom")
_CALIBRATION_KEYS = frozenset(
    {"schema_version", "table", "image_size_px", "camera", "home", "line_edges_mm"}
    | {"residuals", "lines_used"}
)
_OPTIONAL_CALIBRATION_KEYS = frozenset({"focal", "ball_colour", "camera_controls"})
_FOCAL_KEYS = frozenset({"source", "sigma_pct", "goals"})
_OPTIONAL_FOCAL_KEYS = frozenset({"centre_cov_mm2"})
# The fit's prior on f, by which a file that recorded only what the lines said of f
# (``sigma_pct`` before ``centre_cov_mm2`` was added) is read (``fit.Priors.f_sigma``).
_PRIOR_F_SIGMA = 0.3
FOCAL_SOURCES = ("lens", "lines", "goals", "none")
_RESIDUAL_KEYS = frozenset({"rms_px", "rms_mm", "per_line_mm", "per_line_px"})
_OPTIONAL_RESIDUAL_KEYS = frozenset({"local_mm", "width_doubt_mm"})
_CONTROL_KEYS = frozenset(
    {"model", "mode_px", "exposure_us", "analogue_gain", "colour_gains", "lens_position"}
    | {"frame_duration_us", "mains_hz"}
)
MAINS_HZ = (0, 50, 60)  # 0: lights that do not flicker (daylight, DC-driven LEDs)
_LENS_KEYS = frozenset({"schema_version", "size_px", "camera_matrix", "dist", "rms_px", "views"})


class CalibrationError(ValueError):
    """Calibration failed; the message says what is missing and what to do."""


class CalibrationFileError(CalibrationError):
    """A calibration or lens file is missing, malformed or of another schema version."""


@dataclass(frozen=True, slots=True)
class EdgeSamples:
    """The sub-pixel line edges found in the image, for the overlay; n samples.

    Attributes:
        line: (n,) int, index into ``Pitch.lines``.
        inner_px: (n, 2) float, the edge on the line's inner side (negative offsets), pixels.
        outer_px: (n, 2) float, the edge on the outer side, pixels.
        inlier: (n,) bool, used by the final fit.
    """

    line: NDArray[np.int64]
    inner_px: NDArray[np.float64]
    outer_px: NDArray[np.float64]
    inlier: NDArray[np.bool_]

    def __post_init__(self) -> None:
        n = len(self.line)
        for name, arr, shape in (
            ("inner_px", self.inner_px, (n, 2)),
            ("outer_px", self.outer_px, (n, 2)),
            ("inlier", self.inlier, (n,)),
        ):
            if arr.shape != shape:
                raise ValueError(f"EdgeSamples.{name}: expected shape {shape}, got {arr.shape}")

    def __len__(self) -> int:
        return len(self.line)

    @classmethod
    def empty(cls) -> EdgeSamples:
        return cls(np.zeros(0, np.int64), np.zeros((0, 2)), np.zeros((0, 2)), np.zeros(0, bool))


@dataclass(frozen=True, slots=True)
class FocalCheck:
    """What fixed the focal length, and how well.

    Attributes:
        source: ``lens`` (a lens file), ``lines`` (the perspective of a tilted view), ``goals``
            (the balance of the two goals' parallax, which a tilted view ties to f, whatever
            the goals' height) or ``none``: none of them to 1 %, so f and the camera's height
            are only a plausible guess (the mapping to the cloth is exact).
        sigma_pct: estimated 1-sigma uncertainty of f, percent.
        goals: number of goals whose crossbar was measured.
        centre_cov_mm2: (3, 3) covariance of the camera's centre (pitch x, y and height),
            mm^2; None: not recorded (an older file).
    """

    source: str
    sigma_pct: float
    goals: int = 0
    centre_cov_mm2: tuple[tuple[float, float, float], ...] | None = None

    def __post_init__(self) -> None:
        if self.source not in FOCAL_SOURCES:
            raise ValueError(f"focal source must be one of {FOCAL_SOURCES}, got {self.source!r}")

    @property
    def constrained(self) -> bool:
        """The data, not a guess, fixed f."""
        return self.source != "none"

    def to_dict(self) -> dict[str, Any]:
        out = {"source": self.source, "sigma_pct": _round(self.sigma_pct), "goals": self.goals}
        if self.centre_cov_mm2 is not None:
            out["centre_cov_mm2"] = [[_round(v) for v in row] for row in self.centre_cov_mm2]
        return out

    @classmethod
    def from_dict(cls, data: Any, source: str) -> FocalCheck:
        _check_keys(data, _FOCAL_KEYS, source, optional=_OPTIONAL_FOCAL_KEYS)
        cov = data.get("centre_cov_mm2")
        if cov is not None:
            cov = tuple(tuple(float(v) for v in row) for row in cov)
            if np.shape(cov) != (3, 3):
                raise ValueError(f"centre_cov_mm2 must be 3x3, got {np.shape(cov)}")
        return cls(str(data["source"]), float(data["sigma_pct"]), int(data["goals"]), cov)

    def centre_covariance_mm2(self, height_mm: float) -> NDArray[np.float64]:
        """Covariance (3, 3) mm^2 of the camera's centre (x, y, height) at ``height_mm``.

        An older file without ``centre_cov_mm2`` gives only the height's, from ``sigma_pct``
        (what the lines said of f) and the fit's prior on f: the height scales with f.
        """
        if self.centre_cov_mm2 is not None:
            return np.asarray(self.centre_cov_mm2, dtype=np.float64)
        rel = self.sigma_pct / 100.0
        if rel > 0.0:
            rel = (rel**-2 + _PRIOR_F_SIGMA**-2) ** -0.5
        return np.diag([0.0, 0.0, (rel * height_mm) ** 2])


@dataclass(frozen=True, slots=True)
class CameraControls:
    """A camera's settings locked for the match: nothing automatic changes them while it runs.

    Attributes:
        model: the sensor as libcamera names it (``imx708``, ``imx477``, ``imx296``).
        mode_px: (width, height) of the sensor mode streamed.
        exposure_us: exposure time, microseconds (a whole number of mains half-periods under
            flickering light).
        analogue_gain: sensor gain, >= 1.
        colour_gains: (red, blue) white-balance gains.
        lens_position: focus, dioptres (1 / distance in m); None: a fixed-focus lens.
        frame_duration_us: time from one frame to the next, microseconds (a steady rate).
        mains_hz: frequency of the mains the lights flicker with (twice as fast); 0: none.
    """

    model: str
    mode_px: tuple[int, int]
    exposure_us: int
    analogue_gain: float
    colour_gains: tuple[float, float]
    lens_position: float | None
    frame_duration_us: int
    mains_hz: int

    def __post_init__(self) -> None:
        if not 0 < self.exposure_us <= self.frame_duration_us:
            raise ValueError(
                f"exposure {self.exposure_us} us must be above 0 and at most the frame "
                f"duration {self.frame_duration_us} us"
            )
        if not (math.isfinite(self.analogue_gain) and self.analogue_gain >= 1.0):
            raise ValueError(f"analogue gain must be >= 1, got {self.analogue_gain}")
        if len(self.colour_gains) != 2 or not all(
            math.isfinite(g) and g > 0 for g in self.colour_gains
        ):
            raise ValueError(f"colour gains must be two positive numbers, got {self.colour_gains}")
        if self.lens_position is not None and not (
            math.isfinite(self.lens_position) and self.lens_position >= 0
        ):
            raise ValueError(f"lens position must be >= 0 dioptres, got {self.lens_position}")
        if self.mains_hz not in MAINS_HZ:
            raise ValueError(f"mains frequency must be one of {MAINS_HZ} Hz, got {self.mains_hz}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "mode_px": list(self.mode_px),
            "exposure_us": self.exposure_us,
            "analogue_gain": _round(self.analogue_gain),
            "colour_gains": [_round(g) for g in self.colour_gains],
            "lens_position": None if self.lens_position is None else _round(self.lens_position),
            "frame_duration_us": self.frame_duration_us,
            "mains_hz": self.mains_hz,
        }

    @classmethod
    def from_dict(cls, data: Any, source: str) -> CameraControls:
        _check_keys(data, _CONTROL_KEYS, source)
        lens = data["lens_position"]
        return cls(
            model=str(data["model"]),
            mode_px=(int(data["mode_px"][0]), int(data["mode_px"][1])),
            exposure_us=int(data["exposure_us"]),
            analogue_gain=float(data["analogue_gain"]),
            colour_gains=(float(data["colour_gains"][0]), float(data["colour_gains"][1])),
            lens_position=None if lens is None else float(lens),
            frame_duration_us=int(data["frame_duration_us"]),
            mains_hz=int(data["mains_hz"]),
        )


def called_edges(
    pitch: Pitch, edges: Mapping[str, tuple[float, float]]
) -> dict[str, tuple[float, float]]:
    """The edges calls read of each line measured (``edges``, offsets from its nominal
    centre): as measured, but those of a line measured wider or narrower than its profile's
    width by more than ``WIDTH_TOLERANCE_MM`` about its measured centre, midway between the
    two widths. A line a pixel or two wide under a blur of as much reads too wide (the blur
    and the width trade off), a table may have wider paint than its profile says, and the
    picture does not tell which: midway, each edge is off by at most a quarter of the gap,
    which ``Calibration.width_doubt_mm`` covers. The lines as they look stay as measured."""
    out = {}
    for b in pitch.lines:
        if b.name not in edges:
            continue
        inner, outer = edges[b.name]
        if _off_width_mm(b.width_mm, edges[b.name]) > 0.0:
            centre, half = 0.5 * (inner + outer), 0.25 * (outer - inner + b.width_mm)
            inner, outer = centre - half, centre + half
        out[b.name] = (inner, outer)
    return out


def width_doubt_mm(pitch: Pitch, edges: Mapping[str, tuple[float, float]]) -> float:
    """``Calibration.width_doubt_mm`` of the measured ``edges`` (offsets from each line's
    nominal centre, mm): half of how far each touchline and goal line measured off its
    paint's width beyond ``WIDTH_TOLERANCE_MM``, root mean square over them."""
    excess = [
        _off_width_mm(b.width_mm, edges[b.name])
        for b in pitch.lines
        if b.name in edges and b.kind in ("touchline", "goal_line")
    ]
    return math.sqrt(float(np.mean(np.square(0.5 * np.asarray(excess))))) if excess else 0.0


def _off_width_mm(width_mm: float, edges: tuple[float, float]) -> float:
    """How far a line's measured ``edges`` (inner, outer) lie apart beyond its profile's
    ``width_mm`` give or take ``WIDTH_TOLERANCE_MM`` (0 within it)."""
    return max(0.0, abs(edges[1] - edges[0] - width_mm) - WIDTH_TOLERANCE_MM)


@dataclass(frozen=True, slots=True)
class Calibration:
    """What calibration found on one table: the camera and the measured line edges.

    Attributes:
        table: table profile name (or path) the pitch came from.
        image_size_px: (width, height) of the calibrated view.
        camera: intrinsics, distortion and pose pitch -> camera; the pose puts home at x < 0.
        home: image side of home's goal line: ``left``, ``right``, ``top`` or ``bottom``.
        line_edges_mm: per line name, the measured (inner_mm, outer_mm) edge offsets from the
            nominal centre along the line's normal (``Pitch.with_measured_edges``).
        rms_px: RMS distance of the inlier edge samples to their fitted edges, pixels.
        rms_mm: the same on the cloth, mm.
        per_line_px, per_line_mm: RMS residual per used line.
        local_mm: RMS over every line of its residuals' mean along each stretch of about two
            balls (``calibrate.LOCAL_STRETCH_MM``): the error of a line's edge where a call
            reads it. One sample's residual (``rms_mm``) is mostly the noise of that sample.
            None: not recorded (an older file).
        width_doubt_mm: how far the edges of the lines calls read (touchlines, goal lines) may
            lie off where they are placed because the paint measured wider or narrower than
            the profile's width by more than real lines differ from it
            (``WIDTH_TOLERANCE_MM``): a line a pixel or two wide under a blur of as much reads
            too wide, and which of the two is the paint's edge the picture does not tell, so
            calls read such a line's edges midway (``called_edges``; root mean square over
            those lines, half the excess each). 0 for an older file.
        lines_used: names of the lines the fit used, in pitch order.
        samples: the edge samples behind the fit (empty when read from a file).
        focal: what fixed the focal length (None: not recorded, an older file).
        ball_colour: the ball's colour as the user named it (a name or ``#rrggbb``), or None.
        camera_controls: the camera's settings locked for the match (None: not locked).
    """

    table: str
    image_size_px: tuple[int, int]
    camera: CameraModel
    home: str
    line_edges_mm: Mapping[str, tuple[float, float]]
    rms_px: float
    rms_mm: float
    per_line_px: Mapping[str, float]
    per_line_mm: Mapping[str, float]
    lines_used: tuple[str, ...]
    samples: EdgeSamples = field(default_factory=EdgeSamples.empty, compare=False, repr=False)
    focal: FocalCheck | None = None
    local_mm: float | None = None
    width_doubt_mm: float = 0.0
    ball_colour: str | None = None
    camera_controls: CameraControls | None = None

    def __post_init__(self) -> None:
        if self.home not in HOME_SIDES:
            raise ValueError(f"home must be one of {HOME_SIDES}, got {self.home!r}")
        if tuple(self.image_size_px) != tuple(self.camera.size_px):
            raise ValueError(
                f"image size {self.image_size_px} differs from the camera's {self.camera.size_px}"
            )
        for name, (inner, outer) in self.line_edges_mm.items():
            if not inner < outer:
                raise ValueError(f"line {name!r}: inner edge {inner} must be < outer edge {outer}")

    @property
    def line_sigma_mm(self) -> float:
        """Standard uncertainty of a measured line edge where a call reads it, mm (the
        per-sample RMS for an older file without ``local_mm``: an upper bound), with the doubt
        of the paint's width (``width_doubt_mm``)."""
        local = self.rms_mm if self.local_mm is None else self.local_mm
        return math.hypot(local, self.width_doubt_mm)

    def parallax_sigma_mm(self, xy_mm: NDArray, z_mm: float) -> NDArray[np.float64]:
        """Standard uncertainty ``(n,)`` mm of ground points ``(n, 2)`` of objects whose seen
        point stands ``z_mm`` above the cloth, from the camera's centre alone (the larger
        principal axis).

        The lines pin where a ray meets the cloth; the point ``z_mm`` up that ray then moves
        with the camera's centre ``C`` (height ``H``): ``z / H * (dC_xy + (X - C_xy) dH / H)``.
        A camera looking nearly straight down leaves ``H`` as loose as f: at 600 mm from the
        nadir a ball's centre is then off by tenths of a millimetre per 10 % of height.
        0 without a recorded focal check (an older file).
        """
        xy = np.asarray(xy_mm, dtype=np.float64).reshape(-1, 2)
        if self.focal is None or z_mm == 0.0:
            return np.zeros(len(xy))
        centre = self.camera.centre_mm
        height = float(centre[2])
        cov = self.focal.centre_covariance_mm2(height)
        n = len(xy)
        jac = np.zeros((n, 2, 3))
        jac[:, 0, 0] = jac[:, 1, 1] = z_mm / height
        jac[:, :, 2] = z_mm * (xy - centre[:2]) / height**2
        point_cov = jac @ cov @ jac.transpose(0, 2, 1)
        return np.sqrt(np.maximum(np.linalg.eigvalsh(point_cov)[:, -1], 0.0))

    def measured_pitch(self, pitch: Pitch) -> Pitch:
        """``pitch`` with every measured line's nominal edges replaced by the measured ones:
        the lines as the picture shows them (what the ball's detector draws into its view of
        the bare cloth)."""
        return pitch.with_measured_edges(self.line_edges_mm)

    def called_pitch(self, pitch: Pitch) -> Pitch:
        """``pitch`` with the edges the calls read (``called_edges``)."""
        return pitch.with_measured_edges(called_edges(pitch, self.line_edges_mm))

    def to_dict(self) -> dict[str, Any]:
        out = {
            "schema_version": SCHEMA_VERSION,
            "table": self.table,
            "image_size_px": list(self.image_size_px),
            "camera": self.camera.to_dict(),
            "home": self.home,
            "line_edges_mm": {
                name: {"inner_mm": _round(inner), "outer_mm": _round(outer)}
                for name, (inner, outer) in self.line_edges_mm.items()
            },
            "residuals": {
                "rms_px": _round(self.rms_px),
                "rms_mm": _round(self.rms_mm),
                **({} if self.local_mm is None else {"local_mm": _round(self.local_mm)}),
                "width_doubt_mm": _round(self.width_doubt_mm),
                "per_line_mm": {k: _round(v) for k, v in self.per_line_mm.items()},
                "per_line_px": {k: _round(v) for k, v in self.per_line_px.items()},
            },
            "lines_used": list(self.lines_used),
        }
        if self.focal is not None:
            out["focal"] = self.focal.to_dict()
        if self.ball_colour is not None:
            out["ball_colour"] = self.ball_colour
        if self.camera_controls is not None:
            out["camera_controls"] = self.camera_controls.to_dict()
        return out

    @classmethod
    def from_dict(cls, data: Any, source: str = "calibration") -> Calibration:
        """Build from the parsed JSON; ``source`` names the file in error messages."""
        _check_keys(data, _CALIBRATION_KEYS, source, optional=_OPTIONAL_CALIBRATION_KEYS)
        residuals = data["residuals"]
        _check_keys(
            residuals, _RESIDUAL_KEYS, f"{source}: 'residuals'", optional=_OPTIONAL_RESIDUAL_KEYS
        )
        try:
            edges = {
                str(name): (float(e["inner_mm"]), float(e["outer_mm"]))
                for name, e in data["line_edges_mm"].items()
            }
            return cls(
                table=str(data["table"]),
                image_size_px=(int(data["image_size_px"][0]), int(data["image_size_px"][1])),
                camera=CameraModel.from_dict(data["camera"]),
                home=str(data["home"]),
                line_edges_mm=edges,
                rms_px=float(residuals["rms_px"]),
                rms_mm=float(residuals["rms_mm"]),
                per_line_px={str(k): float(v) for k, v in residuals["per_line_px"].items()},
                per_line_mm={str(k): float(v) for k, v in residuals["per_line_mm"].items()},
                lines_used=tuple(str(n) for n in data["lines_used"]),
                focal=(
                    FocalCheck.from_dict(data["focal"], f"{source}: 'focal'")
                    if "focal" in data
                    else None
                ),
                local_mm=float(residuals["local_mm"]) if "local_mm" in residuals else None,
                width_doubt_mm=float(residuals.get("width_doubt_mm", 0.0)),
                ball_colour=str(data["ball_colour"]) if "ball_colour" in data else None,
                camera_controls=(
                    CameraControls.from_dict(
                        data["camera_controls"], f"{source}: 'camera_controls'"
                    )
                    if "camera_controls" in data
                    else None
                ),
            )
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            raise CalibrationFileError(
                f"{source} is malformed ({exc}); run `tablevar calibrate` again to rewrite it"
            ) from exc


@dataclass(frozen=True, slots=True)
class LensModel:
    """Intrinsics and distortion measured with a ChArUco board (``tablevar calibrate-lens``).

    Attributes:
        size_px: (width, height) the lens was calibrated at.
        camera_matrix: (3, 3) pinhole matrix, pixels.
        dist: (k1, k2, p1, p2, k3).
        rms_px: reprojection RMS of the board corners, pixels.
        views: number of board images used.
    """

    size_px: tuple[int, int]
    camera_matrix: tuple[tuple[float, float, float], ...]
    dist: tuple[float, float, float, float, float]
    rms_px: float
    views: int

    def __post_init__(self) -> None:
        k = np.asarray(self.camera_matrix, dtype=float)
        if k.shape != (3, 3) or not (k[0, 0] > 0 and k[1, 1] > 0):
            raise ValueError(f"camera_matrix must be a 3x3 pinhole matrix, got {k.tolist()}")
        if len(self.dist) != 5:
            raise ValueError(f"dist must hold (k1, k2, p1, p2, k3), got {self.dist}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": SCHEMA_VERSION,
            "size_px": list(self.size_px),
            "camera_matrix": [list(row) for row in self.camera_matrix],
            "dist": list(self.dist),
            "rms_px": _round(self.rms_px),
            "views": self.views,
        }

    @classmethod
    def from_dict(cls, data: Any, source: str = "lens") -> LensModel:
        _check_keys(data, _LENS_KEYS, source)
        try:
            return cls(
                size_px=(int(data["size_px"][0]), int(data["size_px"][1])),
                camera_matrix=tuple(tuple(float(v) for v in row) for row in data["camera_matrix"]),
                dist=tuple(float(v) for v in data["dist"]),
                rms_px=float(data["rms_px"]),
                views=int(data["views"]),
            )
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise CalibrationFileError(
                f"{source} is malformed ({exc}); run `tablevar calibrate-lens` again"
            ) from exc


def write_calibration(path: str | Path, calibration: Calibration) -> None:
    """Write ``calibration.json`` (UTF-8, indented)."""
    _write_json(Path(path), calibration.to_dict())


def read_calibration(path: str | Path) -> Calibration:
    """Read ``calibration.json``.

    Raises:
        CalibrationFileError: unreadable, not JSON, unknown or missing keys, other schema version.
    """
    return Calibration.from_dict(_read_json(Path(path)), source=str(path))


def write_lens(path: str | Path, lens: LensModel) -> None:
    """Write ``lens.json`` (UTF-8, indented)."""
    _write_json(Path(path), lens.to_dict())


def read_lens(path: str | Path) -> LensModel:
    """Read ``lens.json``; errors as ``read_calibration``."""
    return LensModel.from_dict(_read_json(Path(path)), source=str(path))


def _check_keys(
    data: Any, expected: frozenset[str], source: str, optional: frozenset[str] = frozenset()
) -> None:
    if not isinstance(data, Mapping):
        raise CalibrationFileError(f"{source} must be a JSON object, got {type(data).__name__}")
    if "schema_version" in expected and data.get("schema_version") != SCHEMA_VERSION:
        raise CalibrationFileError(
            f"{source} has schema_version {data.get('schema_version')!r}, this tablevar reads "
            f"version {SCHEMA_VERSION}: calibrate again with this version"
        )
    unknown = sorted(set(data) - expected - optional)
    if unknown:
        raise CalibrationFileError(
            f"{source} has unknown keys {unknown}; expected only {sorted(expected | optional)}"
        )
    missing = sorted(expected - set(data))
    if missing:
        raise CalibrationFileError(f"{source} lacks keys {missing}")


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Write whole or not at all: a reader (the page, a process started again after a power
    cut) sees the old file or the new one, never half of one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(json.dumps(data, indent=2) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CalibrationFileError(f"cannot read {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise CalibrationFileError(
            f"{path} is not UTF-8 text (byte {exc.start}); run `tablevar calibrate` again"
        ) from exc
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise CalibrationFileError(f"{path} is not valid JSON: {exc}") from exc
    except ValueError as exc:  # NaN or Infinity: no measurement, and no JSON a browser reads
        raise CalibrationFileError(
            f"{path} holds {exc}; run `tablevar calibrate` again to rewrite it"
        ) from exc


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name}, not a number")


def _round(value: float) -> float:
    """Round for the file: 1e-6 of a pixel or millimetre is far below any measurement."""
    return float(round(value, 6)) if math.isfinite(value) else float("nan")
