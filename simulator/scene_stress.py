"""Recording conditions drawn far wider than a club table looks, to find a detector's blind spots.

A simulator drawn by the same hands as the detector shares its blind spots, so ``draw`` varies
what the camera sees well past the natural: ``FACTORS`` names what each factor varies, from a
plain base condition (a white ball, the default look, a camera 1.3 m straight above, 30 fps,
H.264 at constant quality, a global shutter, a clip from the kick-off). ``draw(factor, rng)``
varies that factor alone; ``random`` varies all of them at once. The geometry stays exact:
conditions change only pixels and timing, never the scene or its truth.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, replace

import numpy as np

from calibration.camera import CameraModel
from rules.pitch import Pitch
from simulator.look import BALL_PATTERNS, BGR, Look
from simulator.render import EXPOSURE_S, default_exposure_s
from simulator.scene_camera import STRAIGHT_HEIGHT_MM, fits

BASE_SIZE_PX = (1280, 960)
BASE_FPS = 30.0
FACTORS: dict[str, str] = {
    "base": "nothing: the base condition",
    "ball_colour": "ball colour (white, cream, orange, yellow, red, pink, pale blue, black) and "
    "marks (plain, two-tone, a band, spots) in another colour",
    "ball_material": "the ball's highlight (strength 0-1.2, sharp to broad) and the share of "
    "ambient light (0.05-0.8: a dim side fading into the cloth)",
    "lights": "hard low side light, soft overhead light or 2-4 lights; colour temperature "
    "2700-7500 K unbalanced; uneven light up to 50 %; long or soft shadows",
    "kits": "team kits close to the ball's colour (an orange ball among orange and red kits, "
    "a white ball among white kits)",
    "cloth": "cloth shade (dark, bright, pale, olive, yellow-olive, teal, blue-green, "
    "grey-green, blue, or any dye from yellow-olive through green to blue), texture and "
    "mowing stripes",
    "camera_turn": "the camera turned by any angle about the vertical",
    "tilt_height": "camera tilted up to 15 degrees in any direction, 0.9-2.0 m above the cloth",
    "principal_point": "principal point 3-25 px off the image centre in x and y",
    "lens": "lens distortion: k1 -0.35 to +0.12, k2, tangential p1 p2 up to 0.003",
    "resolution": "frame size from 960x720 to 2304x1296",
    "fps": "frame rate 50-120 fps (the base is 30)",
    "codec": "H.264 at 800-6000 kbit/s or MPEG-4 part 2 at 1500-12000 kbit/s",
    "rolling_shutter": "rolling shutter: rows exposed one after another over 5-30 ms",
    "mid_play": "the clip starts in mid-play: the ball already rolling, no kick-off seen",
    "random": "every other factor at once",
    # Listed after ``random`` so that each earlier factor keeps its seeds (``benchmarks/stress``).
    "tone": "the camera's tone curve: levels raised to 1/gamma, gamma 1.0-2.4 (2.2: sRGB, a phone)",
    "sensor": "lens blur 0-1.5 px, sensor noise 0.5-10 levels, vignetting 0-0.5, a shutter "
    "from 1/2000 s to a whole frame period (long streaks), lights flickering up to 15 % at "
    "50 or 60 Hz",
    "paint": "the lines' paint: white, cream, yellowed, grey or faded into the cloth (a third "
    "to all of the way from the cloth to the paint), its ink bled 0.1-1 mm",
}
# Sizes and rates other than the base's, so that varying one of them always changes it.
SIZES_PX = ((960, 720), (1280, 720), (1640, 1232), (1920, 1080), (2304, 1296))
FPS_CHOICES = (50.0, 60.0, 90.0, 120.0)
# Ball colours, BGR: white, cream, orange, yellow, red, pink, pale blue, black.
_BALL_COLOURS: tuple[BGR, ...] = (
    (240, 240, 240),
    (200, 235, 245),
    (30, 140, 245),
    (40, 220, 240),
    (40, 40, 210),
    (180, 120, 240),
    (235, 200, 150),
    (35, 35, 35),
)
_MARK_COLOURS: tuple[BGR, ...] = ((25, 25, 25), (40, 40, 200), (170, 60, 20), (30, 140, 245))
_CLOTHS: tuple[BGR, ...] = (
    (30, 80, 20),  # dark green
    (50, 160, 40),  # bright green
    (120, 190, 120),  # pale green
    (40, 110, 95),  # olive
    (90, 120, 40),  # blue-green
    (95, 115, 95),  # grey-green
    (40, 130, 135),  # yellow-olive
    (110, 130, 30),  # teal
    (105, 112, 88),  # grey-teal
    (150, 90, 30),  # blue
)
# Any other dye: hue (OpenCV's 0-180 scale) from yellow-olive through green and teal to blue,
# value from dark to pale, and a colourfulness (max - min channel) from grey-green (30) to
# vivid (85 % of the value). A cloth is dyed: a greyer one is a grey table.
_CLOTH_HUE = (25.0, 115.0)
_CLOTH_VALUE = (60.0, 190.0)
_CLOTH_MIN_CHROMA = 30.0
_CLOTH_MAX_SATURATION = 0.85


@dataclass(frozen=True, slots=True)
class Conditions:
    """How one clip is recorded.

    Attributes:
        factor: the factor these conditions vary (a key of ``FACTORS``).
        look: colours, lights, ball.
        camera: the camera model; frames have its ``size_px``.
        fps: frame rate.
        codec: ``h264`` or ``mpeg4`` (MPEG-4 part 2).
        bitrate_kbps: the codec's bitrate; None: constant quality.
        readout_s: rolling shutter readout time (0: global shutter).
        mid_play: start the clip inside a roll, not at the kick-off.
        exposure_s: shutter time, at most a frame period.
    """

    factor: str
    look: Look
    camera: CameraModel
    fps: float
    codec: str = "h264"
    bitrate_kbps: float | None = None
    readout_s: float = 0.0
    mid_play: bool = False
    exposure_s: float = EXPOSURE_S

    def describe(self) -> dict:
        """A JSON-ready summary of what differs from the base."""
        w, h = self.camera.size_px
        return {
            "factor": self.factor,
            "size": f"{w}x{h}",
            "fps": self.fps,
            "codec": self.codec,
            "bitrate_kbps": self.bitrate_kbps,
            "readout_ms": round(1000 * self.readout_s, 2),
            "mid_play": self.mid_play,
            "ball_bgr": list(self.look.ball_bgr),
            "ball_pattern": self.look.ball_pattern,
            "ball_specular_gloss": [self.look.ball_specular, round(self.look.ball_gloss, 1)],
            "ambient": round(self.look.ambient, 3),
            "lights": self.look.lights,
            "light_tint": self.look.light_tint,
            "tone_gamma": round(self.look.tone_gamma, 2),
            "exposure_ms": round(1000 * self.exposure_s, 2),
            "defocus_px": round(self.look.defocus_px, 2),
            "noise_sigma": round(self.look.noise_sigma, 2),
            "vignetting": round(self.look.vignetting, 2),
            "flicker": [round(self.look.flicker, 3), self.look.mains_hz],
            "cloth_bgr": list(self.look.cloth_bgr),
            "line_bgr": list(self.look.line_bgr),
            "line_softness_mm": round(self.look.line_softness_mm, 2),
            "kits_bgr": [list(self.look.home_base_bgr), list(self.look.away_base_bgr)],
            "principal_offset_px": [
                round(self.camera.cx_px - 0.5 * (w - 1), 1),
                round(self.camera.cy_px - 0.5 * (h - 1), 1),
            ],
            "dist": list(self.camera.dist),
            "camera_mm": [round(v) for v in self.camera.centre_mm],
        }


def draw(
    factor: str,
    rng: np.random.Generator,
    pitch: Pitch,
    size_px: tuple[int, int] = BASE_SIZE_PX,
    fps: float = BASE_FPS,
) -> Conditions:
    """Conditions for one clip that vary ``factor`` (a key of ``FACTORS``) from the base.

    Raises:
        ValueError: an unknown factor (the message lists them).
    """
    if factor not in FACTORS:
        raise ValueError(f"unknown factor {factor!r}; factors: {', '.join(FACTORS)}")
    every = factor == "random"

    def on(name: str) -> bool:
        return every or factor == name

    look = Look()
    if on("ball_colour"):
        look = _ball_colour(rng, look)
    if on("ball_material"):
        look = replace(
            look,
            ball_specular=float(rng.uniform(0.0, 1.2)),
            ball_gloss=float(np.exp(rng.uniform(np.log(4.0), np.log(400.0)))),
            ambient=float(rng.uniform(0.05, 0.8)),
        )
    if on("lights"):
        look = _lights(rng, look)
    if on("kits"):
        look = _kits_like_the_ball(rng, look, keep_ball=every)
    if on("cloth"):
        look = _cloth(rng, look)
    if on("resolution"):
        size_px = SIZES_PX[rng.integers(len(SIZES_PX))]
    if on("fps"):
        fps = float(FPS_CHOICES[rng.integers(len(FPS_CHOICES))])
    camera = wide_camera(
        rng,
        pitch,
        size_px,
        turn=on("camera_turn"),
        tilt=on("tilt_height"),
        offset=on("principal_point"),
        lens=on("lens"),
    )
    codec, bitrate = "h264", None
    if on("codec"):
        codec = "mpeg4" if rng.random() < 0.5 else "h264"
        lo, hi = (1500.0, 12000.0) if codec == "mpeg4" else (800.0, 6000.0)
        bitrate = float(round(np.exp(rng.uniform(np.log(lo), np.log(hi)))))
    readout = 0.0
    if on("rolling_shutter"):
        readout = float(min(rng.uniform(0.005, 0.030), 0.9 / fps))  # within a frame period
    if on("tone"):
        look = replace(look, tone_gamma=float(_own_stream(rng).uniform(1.0, 2.4)))
    exposure = default_exposure_s(fps)
    if on("sensor"):
        look, exposure = _sensor(_own_stream(rng, "sensor"), look, fps)
    if on("paint"):
        look = _paint(_own_stream(rng, "paint"), look)
    mid_play = on("mid_play")
    return Conditions(factor, look, camera, fps, codec, bitrate, readout, mid_play, exposure)


def _own_stream(rng: np.random.Generator, salt: str = "") -> np.random.Generator:
    """A generator seeded by ``rng``'s state (and ``salt``, one stream per factor), which
    reading does not advance: what it draws takes nothing from ``rng``, so a factor added
    later leaves every draw of a seed that follows (here and the caller's: a clip's start in
    mid-play) what it was."""
    digest = hashlib.sha256((repr(rng.bit_generator.state) + salt).encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "little"))


# Paints, BGR: white, cream, yellowed, grey.
_PAINTS: tuple[BGR, ...] = ((240, 240, 240), (200, 235, 245), (150, 220, 235), (190, 190, 190))


def _paint(rng: np.random.Generator, look: Look) -> Look:
    """Lines of another paint, worn thin on the cloth or bled into it."""
    paint = np.asarray(_PAINTS[rng.integers(len(_PAINTS))], float)
    cloth = np.asarray(look.cloth_bgr, float)
    share = float(rng.uniform(0.3, 1.0)) if rng.random() < 0.5 else 1.0  # faded into the cloth
    line = tuple(int(v) for v in np.rint(cloth + share * (paint - cloth)))
    return replace(look, line_bgr=line, line_softness_mm=float(rng.uniform(0.1, 1.0)))


def _sensor(rng: np.random.Generator, look: Look, fps: float) -> tuple[Look, float]:
    """The lens, sensor and shutter of a cheap or badly set camera, and flickering lights;
    returns the look and the shutter time."""
    exposure = float(np.exp(rng.uniform(math.log(1 / 2000), math.log(1.0 / fps))))
    look = replace(
        look,
        defocus_px=float(rng.uniform(0.0, 1.5)),
        noise_sigma=float(np.exp(rng.uniform(math.log(0.5), math.log(10.0)))),
        vignetting=float(rng.uniform(0.0, 0.5)),
        flicker=float(rng.uniform(0.0, 0.15)) if rng.random() < 0.7 else 0.0,
        mains_hz=float(rng.choice([50.0, 60.0])),
    )
    return look, exposure


def wide_camera(
    rng: np.random.Generator,
    pitch: Pitch,
    size_px: tuple[int, int],
    *,
    turn: bool = False,
    tilt: bool = False,
    offset: bool = False,
    lens: bool = False,
) -> CameraModel:
    """A camera that sees the whole cloth: straight down 1.3 m up unless a factor is drawn."""
    height, tilt_x, tilt_y, yaw = STRAIGHT_HEIGHT_MM, 0.0, 0.0, 0.0
    dist, principal = (0.0, 0.0, 0.0, 0.0, 0.0), (0.0, 0.0)
    if turn:
        yaw = float(rng.uniform(0.0, 360.0))
    if tilt:
        height = float(rng.uniform(900.0, 2000.0))
        amount, angle = float(rng.uniform(0.0, 15.0)), float(rng.uniform(0.0, 2.0 * math.pi))
        tilt_x, tilt_y = amount * math.cos(angle), amount * math.sin(angle)
    if offset:
        sign = rng.choice([-1.0, 1.0], size=2)
        principal = tuple(float(v) for v in sign * rng.uniform(3.0, 25.0, size=2))
    if lens:
        dist = (
            float(rng.uniform(-0.35, 0.12)),
            float(rng.uniform(-0.08, 0.08)),
            float(rng.uniform(-0.003, 0.003)),
            float(rng.uniform(-0.003, 0.003)),
            0.0,
        )
    hx, hy = pitch.cloth_half_extent_mm
    w, h = size_px
    start = 1.8 * max(hx, hy * w / h)  # a little narrower than the cloth: widened until it fits
    # A strong barrel lens may fold over before a tilted view holds the whole cloth: no real
    # lens does, so the distortion drawn is halved until one view does.
    for _ in range(4):
        view = start
        for _ in range(150):
            cam = CameraModel.overhead(
                size_px,
                height,
                view,
                dist=dist,
                tilt_x_deg=tilt_x,
                tilt_y_deg=tilt_y,
                yaw_deg=yaw,
                principal_offset_px=principal,
            )
            if fits(cam, pitch) and lens_unfolded(cam, pitch):
                return cam
            view *= 1.02
        dist = tuple(0.5 * d for d in dist)
    raise ValueError(f"no camera view of {size_px} px holds the whole cloth")


def lens_unfolded(camera: CameraModel, pitch: Pitch) -> bool:
    """Whether the lens maps radii out to the cloth's corners one to one (no fold-over).

    A strong barrel term bends the outer image back inwards; a real lens does not, and the
    simulator's projections would no longer be unique there.
    """
    hx, hy = pitch.cloth_half_extent_mm
    corners = np.array([[sx * hx, sy * hy, 0.0] for sx in (-1, 1) for sy in (-1, 1)])
    cam_pts = corners @ camera.rotation.T + np.asarray(camera.tvec_mm)
    r2 = float(((cam_pts[:, :2] / cam_pts[:, 2:3]) ** 2).sum(axis=1).max()) * 1.3
    k1, k2, _, _, k3 = camera.dist
    s = np.linspace(0.0, r2, 50)
    return bool((1 + 3 * k1 * s + 5 * k2 * s**2 + 7 * k3 * s**3 > 0.2).all())


def _ball_colour(rng: np.random.Generator, look: Look) -> Look:
    ball = _jitter(rng, _BALL_COLOURS[rng.integers(len(_BALL_COLOURS))], 12)
    pattern = BALL_PATTERNS[rng.integers(len(BALL_PATTERNS))]
    mark = _MARK_COLOURS[rng.integers(len(_MARK_COLOURS))]
    return replace(look, ball_bgr=ball, ball_pattern=pattern, ball_mark_bgr=mark)


def _lights(rng: np.random.Generator, look: Look) -> Look:
    kind = rng.integers(3)
    az = float(rng.uniform(0.0, 360.0))
    if kind == 0:  # one hard light low at the side, little fill
        lamps = ((az, float(rng.uniform(15.0, 35.0)), 1.0),)
        ambient, shadow, soft = float(rng.uniform(0.08, 0.3)), float(rng.uniform(0.3, 0.6)), 0.5
    elif kind == 1:  # soft overhead light: much fill, faint broad shadows
        lamps = ((az, float(rng.uniform(70.0, 90.0)), 1.0),)
        ambient, shadow, soft = float(rng.uniform(0.6, 0.9)), float(rng.uniform(0.05, 0.2)), 2.0
    else:  # a hall's several lamps
        n = int(rng.integers(2, 5))
        lamps = tuple(
            (float(rng.uniform(0, 360)), float(rng.uniform(30, 80)), float(rng.uniform(0.3, 1)))
            for _ in range(n)
        )
        ambient, shadow, soft = float(rng.uniform(0.2, 0.6)), float(rng.uniform(0.1, 0.4)), 1.0
    return replace(
        look,
        lights=lamps,
        ambient=ambient,
        shadow=shadow,
        shadow_softness=soft,
        light_tint=colour_temperature_gain(float(rng.uniform(2700.0, 7500.0))),
        light_gradient=float(rng.uniform(0.0, 0.5)),
        light_angle_deg=float(rng.uniform(0.0, 360.0)),
    )


def colour_temperature_gain(kelvin: float) -> tuple[float, float, float]:
    """(b, g, r) gains of light at ``kelvin`` seen by a camera balanced for 5500 K.

    A smooth approximation of the black-body colour: warm light raises red and lowers blue,
    about 30 % each at 2700 K; cool light the other way. Green stays near 1.
    """
    x = math.log(kelvin / 5500.0)
    return (
        float(np.clip(1.0 + 0.45 * x, 0.6, 1.4)),
        float(np.clip(1.0 + 0.05 * x, 0.9, 1.1)),
        float(np.clip(1.0 - 0.4 * x, 0.6, 1.4)),
    )


def _kits_like_the_ball(rng: np.random.Generator, look: Look, keep_ball: bool) -> Look:
    """Kits in colours close to the ball's: orange and red kits for an orange ball, white kits
    for a white ball (one team or both, bases or shirts or both).

    Two teams never play on bases alike (FISTF Law 4.1.2: the loser of a toss changes his
    figures): where both teams wear the ball's colour, the second wears it on its shirts, and
    on its bases only as red beside an orange or yellow ball's."""
    if not keep_ball:
        pick = rng.integers(3)
        ball = ((240, 240, 240), (30, 140, 245), (40, 220, 240))[pick]
        look = replace(look, ball_bgr=ball)
    near = [_jitter(rng, look.ball_bgr, 25) for _ in range(4)]
    red = None
    if look.ball_bgr[2] > 200 and look.ball_bgr[0] < 120:  # an orange or yellow ball: red too
        red_bgr = _jitter(rng, (40, 40, 210), 20)  # drawn first: a seed keeps its conditions
        red = int(rng.integers(4))
        near[red] = red_bgr
    both = rng.random() < 0.5
    return replace(
        look,
        home_base_bgr=near[0],
        home_shirt_bgr=near[1],
        away_base_bgr=near[2] if both and red == 2 else look.away_base_bgr,
        away_shirt_bgr=near[3] if both else look.away_shirt_bgr,
        home_goalkeeper_shirt_bgr=_jitter(rng, look.ball_bgr, 20),
    )


def _cloth(rng: np.random.Generator, look: Look) -> Look:
    if rng.random() < 0.5:
        cloth = _jitter(rng, _CLOTHS[rng.integers(len(_CLOTHS))], 12)
    else:
        value = float(rng.uniform(*_CLOTH_VALUE))
        chroma = float(rng.uniform(_CLOTH_MIN_CHROMA, _CLOTH_MAX_SATURATION * value))
        cloth = hsv_bgr(float(rng.uniform(*_CLOTH_HUE)), chroma / value, value)
    return replace(
        look,
        cloth_bgr=cloth,
        cloth_texture=float(rng.uniform(0.0, 0.15)),
        mowing_stripes=float(rng.choice([0.0, rng.uniform(0.02, 0.1)])),
        stripe_count=int(rng.choice([8, 10, 12, 14, 16])),
    )


def hsv_bgr(hue: float, saturation: float, value: float) -> BGR:
    """BGR of a colour given as hue (OpenCV's 0-180 scale), saturation (0-1), value (0-255)."""
    c = value * saturation
    h6 = (hue / 30.0) % 6.0
    x = c * (1.0 - abs(h6 % 2.0 - 1.0))
    r, g, b = ((c, x, 0), (x, c, 0), (0, c, x), (0, x, c), (x, 0, c), (c, 0, x))[int(h6)]
    m = value - c
    return (round(b + m), round(g + m), round(r + m))


def _jitter(rng: np.random.Generator, bgr: BGR, spread: int) -> BGR:
    values = np.clip(np.asarray(bgr) + rng.integers(-spread, spread + 1, size=3), 0, 255)
    return (int(values[0]), int(values[1]), int(values[2]))
