"""Optional lens calibration with a printed ChArUco board (``tablevar calibrate-lens``).

The pitch lines alone fix the camera well when it is tilted a little; a camera that looks
straight down leaves its focal length (and so its height) undetermined (``fit``). A lens
measured once with a board, from several views held at different angles, removes that: given
to ``calibrate``, only the pose is fitted to the lines.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.calibration_file import CalibrationError, LensModel

MIN_VIEWS = 3
MIN_CORNERS = 6  # per view: fewer leave the view's own pose loose


@dataclass(frozen=True, slots=True)
class BoardSpec:
    """The printed ChArUco board.

    Attributes:
        squares: (columns, rows) of chessboard squares.
        square_mm: side of a square as printed; marker_mm: side of an ArUco marker in it.
        dictionary: name of the OpenCV ArUco dictionary (``cv2.aruco.DICT_5X5_100``).
    """

    squares: tuple[int, int] = (7, 5)
    square_mm: float = 30.0
    marker_mm: float = 22.0
    dictionary: str = "DICT_5X5_100"

    def __post_init__(self) -> None:
        if min(self.squares) < 3:
            raise ValueError(f"a board needs at least 3x3 squares, got {self.squares}")
        if not 0 < self.marker_mm < self.square_mm:
            raise ValueError(
                f"markers ({self.marker_mm} mm) must be smaller than squares ({self.square_mm} mm)"
            )
        if not hasattr(cv2.aruco, self.dictionary):
            raise ValueError(f"unknown ArUco dictionary {self.dictionary!r}")

    def board(self) -> cv2.aruco.CharucoBoard:
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        return cv2.aruco.CharucoBoard(self.squares, self.square_mm, self.marker_mm, dictionary)


def calibrate_lens(images_bgr: Iterable[NDArray[np.uint8]], spec: BoardSpec) -> LensModel:
    """Intrinsics and distortion from pictures of a ChArUco board (``cv2.calibrateCamera``).

    Args:
        images_bgr: pictures (h, w, 3) uint8 of the board, all the same size, the board seen
            at different angles (tilted by 15-40 degrees, in different directions) and
            reaching into the picture's corners.
        spec: the printed board.

    Raises:
        CalibrationError: fewer than three pictures show enough of the board, or the pictures
            differ in size.
    """
    board = spec.board()
    detector = cv2.aruco.CharucoDetector(board)
    objects, points, size, seen = [], [], None, 0
    for image in images_bgr:
        seen += 1
        h, w = image.shape[:2]
        if size is not None and size != (w, h):
            raise CalibrationError(
                f"the board pictures differ in size ({size[0]}x{size[1]} and {w}x{h}): take "
                "them all at the resolution you film at"
            )
        size = (w, h)
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        corners, ids, _, _ = detector.detectBoard(grey)
        if ids is None or len(ids) < MIN_CORNERS:
            continue
        obj, img = board.matchImagePoints(corners, ids)
        objects.append(obj.astype(np.float32))
        points.append(img.astype(np.float32))
    if len(objects) < MIN_VIEWS:
        raise CalibrationError(
            f"the ChArUco board ({spec.squares[0]}x{spec.squares[1]} squares, "
            f"{spec.dictionary}) was found in {len(objects)} of {seen} pictures, at least "
            f"{MIN_VIEWS} are needed: check the board options and photograph the whole board, "
            "sharp, from several angles"
        )
    rms, k, dist, _, _ = cv2.calibrateCamera(
        objectPoints=objects,
        imagePoints=points,
        imageSize=size,
        cameraMatrix=None,
        distCoeffs=None,
        # k3 only matters for fisheye-like lenses; left free, a board that does not reach the
        # picture's corners trades it against k2 and the focal length.
        flags=cv2.CALIB_FIX_K3,
    )
    d = np.zeros(5)
    d[: min(5, dist.size)] = dist.ravel()[:5]
    return LensModel(
        size_px=size,
        camera_matrix=tuple(tuple(float(v) for v in row) for row in k),
        dist=tuple(float(v) for v in d),
        rms_px=float(rms),
        views=len(objects),
    )
