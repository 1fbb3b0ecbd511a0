"""A picamera2 stand-in that records what is set and answers like a camera.

It keeps the controls in force, applies those set while streaming ``latency`` frames late (as
libcamera does), meters like an automatic exposure (``metered``: exposure us and gain while
``AeEnable``) and reports it all in each request's metadata. Each frame's first pixel is 255
when the frame was taken with the automatics off, 0 otherwise. Tuning files are found for the
sensors in ``TUNINGS`` (their algorithms as in libcamera's files, abridged); the tuning a camera
was opened with is kept (``tuning``).
"""

from __future__ import annotations

import copy
import types
from contextlib import contextmanager
from typing import Any

import numpy as np

MODES = {
    "imx708": [
        ((1536, 864), 120.13, (768, 432, 3072, 1728)),
        ((2304, 1296), 56.03, (0, 0, 4608, 2592)),
    ],
    "imx477": [((2028, 1520), 40.01, (0, 0, 4056, 3040))],
    "imx219": [((1640, 1232), 41.85, (0, 0, 3280, 2464))],
}
# A gamma with a contrast boost, as the sensors' own files have it.
_GAMMA = [0, 0, 1024, 5040, 4096, 15264, 16384, 40392, 65535, 65535]
TUNINGS = {
    "imx708": {
        "version": 2.0,
        "target": "pisp",
        "algorithms": [
            {"rpi.black_level": {"black_level": 4096}},
            {"rpi.agc": {"exposure_modes": {"normal": {"shutter": [100, 66666]}}}},
            {"rpi.contrast": {"ce_enable": 1, "gamma_curve": list(_GAMMA)}},
        ],
    },
    # An old (version 1) file: algorithms by name at the top level, no contrast stage.
    "imx477": {"rpi.black_level": {"black_level": 4096}, "rpi.agc": {}},
}


class Request:
    def __init__(self, metadata: dict[str, Any], image: np.ndarray):
        self._metadata, self.buffer = metadata, image
        self.released = False

    def get_metadata(self) -> dict[str, Any]:
        return dict(self._metadata)


class MappedArray:
    """Stand-in for ``picamera2.MappedArray``: the request's own buffer, no copy."""

    def __init__(self, request: Request, stream: str):
        assert stream == "main"
        self._request = request
        self.array: np.ndarray | None = None

    def __enter__(self) -> MappedArray:
        assert not self._request.released, "a buffer read after its request went back"
        self.array = self._request.buffer
        return self

    def __exit__(self, *exc: Any) -> None:
        self.array = None


class Picamera2:
    """Stand-in for ``picamera2.Picamera2``; see the module docstring."""

    model = "imx708"
    metered = (8000, 2.0)
    awb = (1.8, 1.5)
    lens = 1.25
    latency = 2

    def __init__(self, camera_num: int = 0, tuning: dict[str, Any] | None = None):
        self.tuning = tuning
        self.camera_properties = {"Model": self.model}
        self.camera_controls: dict[str, tuple] = {
            "AnalogueGain": (1.0, 16.0, None),
            "ExposureTime": (13, 112015443, None),
            "AeFlickerMode": (0, 2, 0),
        }
        if self.model == "imx708":
            self.camera_controls |= {"AfMode": (0, 2, 0), "LensPosition": (0.0, 15.0, 1.0)}
        self.sensor_modes = [
            {"size": s, "fps": f, "crop_limits": c} for s, f, c in MODES[self.model]
        ]
        self.configs: list[dict[str, Any]] = []
        self.set: list[dict[str, Any]] = []
        self.in_force: dict[str, Any] = {}
        self._pending: list[tuple[int, dict[str, Any]]] = []
        self.frame = 0
        self.started = self.closed = False

    @classmethod
    def global_camera_info(cls) -> list[dict[str, Any]]:
        return [{"Model": cls.model, "Num": 0, "Id": "/base/axi/i2c@80000/imx@1a"}]

    @staticmethod
    def load_tuning_file(tuning_file: str, dir: str | None = None) -> dict[str, Any]:
        name = tuning_file.removesuffix(".json")
        if name not in TUNINGS:
            raise RuntimeError("Tuning file not found")
        return copy.deepcopy(TUNINGS[name])

    @staticmethod
    def find_tuning_algo(tuning: dict[str, Any], name: str) -> dict[str, Any]:
        if tuning.get("version", 1) == 1:
            return tuning[name]
        return next(algo for algo in tuning["algorithms"] if name in algo)[name]

    def create_video_configuration(self, main, sensor=None, controls=None) -> dict[str, Any]:
        return {"main": dict(main), "sensor": sensor, "controls": dict(controls or {})}

    def configure(self, config: dict[str, Any]) -> None:
        self.configs.append(config)
        self.in_force = dict(config["controls"])

    def start(self) -> None:
        self.started = True

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        self.closed = True

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.set.append(dict(controls))
        self._pending.append((self.frame + self.latency, dict(controls)))

    @contextmanager
    def captured_request(self):
        assert self.started, "a request before start()"
        for due, controls in list(self._pending):
            if due <= self.frame:
                self.in_force.update(controls)
                self._pending.remove((due, controls))
        c = self.in_force
        auto = c.get("AeEnable", True)
        metadata = {
            "SensorTimestamp": 1_000_000_000 + self.frame * int(c["FrameDurationLimits"][0]) * 1000,
            "ExposureTime": self.metered[0] if auto else c["ExposureTime"],
            "AnalogueGain": self.metered[1] if auto else c["AnalogueGain"],
            "ColourGains": self.awb if c.get("AwbEnable", True) else c["ColourGains"],
            "FrameDuration": c["FrameDurationLimits"][0],
        }
        if "AfMode" in self.camera_controls:
            metadata["LensPosition"] = c.get("LensPosition", self.lens)
        w, h = self.configs[-1]["main"]["size"]
        fmt = self.configs[-1]["main"]["format"]
        image = np.zeros((h * 3 // 2, w) if fmt == "YUV420" else (h, w, 3), np.uint8)
        image.flat[0] = 0 if auto else 255
        self.frame += 1
        request = Request(metadata, image)
        try:
            yield request
        finally:  # the buffer goes back to the camera, which fills it again
            request.released = True
            image[...] = 7


def module(**attrs: Any) -> types.ModuleType:
    """A ``picamera2`` module whose ``Picamera2`` has the given class attributes."""
    cls = type("Picamera2", (Picamera2,), attrs)
    mod = types.ModuleType("picamera2")
    mod.Picamera2 = cls
    mod.MappedArray = MappedArray
    return mod
