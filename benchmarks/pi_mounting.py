"""The mounting height of each Raspberry Pi camera preset, and the blur of each exposure there.

For every preset and sensor mode (``hardware/camera_presets.py``) and every shipped table
profile: the field of view, the lowest height at which the whole cloth (the pitch and its
margin) is in view looking straight down, what one pixel spans on the cloth there, and the ball
speed that smears over one pixel at 10 ms and 8.3 ms (one half-period of 50 / 60 Hz light) and
at 2 ms (no flicker). The table in docs/raspberry-pi.md comes from this.

Usage: ``.venv/bin/python benchmarks/pi_mounting.py``
"""

from __future__ import annotations

from calibration.tables import load_pitch
from hardware.camera_presets import PRESETS, blur_speed_mm_s, mm_per_px, mounting_height_mm

TABLES = ("fistf", "subbuteo-classic")
EXPOSURES_US = (10000, 8333, 2000)


def main() -> None:
    views = {}
    for table in TABLES:
        half_l, half_w = load_pitch(table).cloth_half_extent_mm
        views[table] = (2 * half_l, 2 * half_w)
    print(
        "camera mode            fov deg      "
        + "  ".join(f"{t:>16}" for t in TABLES)
        + "   mm/px   1 px blur mm/s at 10 / 8.3 / 2 ms"
    )
    for camera in PRESETS.values():
        for mode in camera.modes:
            fov = camera.fov_deg(mode)
            heights = [mounting_height_mm(camera, mode, views[t]) for t in TABLES]
            mpp = mm_per_px(camera, mode, heights[0])
            blur = " / ".join(f"{blur_speed_mm_s(e, mpp):.0f}" for e in EXPOSURES_US)
            print(
                f"{camera.name:4} {mode.size_px[0]:4}x{mode.size_px[1]:<4} @{mode.max_fps:3.0f} "
                f"{fov[0]:5.1f} x {fov[1]:4.1f}  "
                + "  ".join(f"{h / 1000:14.2f} m" for h in heights)
                + f"   {mpp:5.3f}   {blur}"
            )


if __name__ == "__main__":
    main()
