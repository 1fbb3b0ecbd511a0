"""Optional lens calibration with a printed ChArUco board (``tablevar calibrate-lens``).

The pitch lines alone fix the camera well when it is tilted a little; a camera that looks
straight down leaves its focal length (and so its height) undetermined (``fit``). A lens
measured once with a board, from several views held at different angles, removes that: given
to ``calibrate``, only the pose is fitted to the lines.

OpenCV 4.7 gave ArUco a new interface (``CharucoDetector``, ``generateImage``); OpenCV 4.6,
what Debian 12 and Raspberry Pi OS install, has only the older functions, which are used there.
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
# OpenCV >= 4.7 (CharucoDetector); 4.6 has detectMarkers and interpolateCornersCharuco.
_NEW_ARUCO = hasattr(cv2.aruco, "CharucoDetector")


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
        if _NEW_ARUCO:
            return cv2.aruco.CharucoBoard(self.squares, self.square_mm, self.marker_mm, dictionary)
        columns, rows = self.squares
        return cv2.aruco.CharucoBoard_create(
            columns, rows, self.square_mm, self.marker_mm, dictionary
        )

    def image(self, size_px: tuple[int, int], margin_px: int) -> NDArray[np.uint8]:
        """The board to print: (h, w) uint8, ``margin_px`` of white around it."""
        board = self.board()
        if _NEW_ARUCO:
            return board.generateImage(size_px, marginSize=margin_px)
        return board.draw(size_px, marginSize=margin_px)


def _board_points(
    board: cv2.aruco.CharucoBoard, detector: object, grey: NDArray[np.uint8]
) -> tuple[NDArray[np.float32], NDArray[np.float32]] | None:
    """The board's chessboard corners found in ``grey``: (n, 3) on the board, mm, and (n, 2)
    in the picture, px; None when none is found."""
    if _NEW_ARUCO:
        corners, ids, _, _ = detector.detectBoard(grey)
        if ids is None:
            return None
        obj, img = board.matchImagePoints(corners, ids)
    else:
        markers, marker_ids, _ = cv2.aruco.detectMarkers(grey, board.dictionary)
        if marker_ids is None:
            return None
        _, corners, ids = cv2.aruco.interpolateCornersCharuco(markers, marker_ids, grey, board)
        if ids is None:
            return None
        obj, img = board.chessboardCorners[ids.ravel()], corners
    return obj.reshape(-1, 3).astype(np.float32), img.reshape(-1, 2).astype(np.float32)


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
    detector = cv2.aruco.CharucoDetector(board) if _NEW_ARUCO else None
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
        found = _board_points(board, detector, grey)
        if found is None or len(found[0]) < MIN_CORNERS:
            continue
        objects.append(found[0])
        points.append(found[1])
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
