"""The appearance of a simulated table: colours, light, lens fall-off, noise.

Geometry comes from the camera and pitch models; everything that only changes how the table
*looks* lives here, so benchmarks can vary it (``Look.random``) without touching the truth.
All colours are BGR ``uint8`` triples (OpenCV's channel order).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

BGR = tuple[int, int, int]

# Pairs of (base, shirt) colours that real teams use; ``random`` draws two different ones.
_TEAM_KITS: tuple[tuple[BGR, BGR], ...] = (
    ((40, 40, 200), (35, 35, 215)),  # red
    ((190, 90, 30), (200, 100, 40)),  # blue
    ((235, 235, 235), (240, 240, 240)),  # white
    ((30, 30, 30), (40, 40, 40)),  # black
    ((20, 200, 230), (30, 210, 235)),  # yellow
    ((120, 40, 110), (130, 50, 120)),  # claret
    ((20, 120, 240), (30, 130, 245)),  # orange
    ((200, 200, 90), (210, 200, 100)),  # sky blue
)
_CLOTHS: tuple[BGR, ...] = ((48, 128, 38), (40, 110, 30), (60, 140, 55), (45, 120, 70))
_BALLS: tuple[BGR, ...] = ((240, 240, 240), (30, 140, 245), (40, 220, 240))
BALL_PATTERNS = ("plain", "two_tone", "band", "spots")


@dataclass(frozen=True, slots=True)
class Look:
    """Appearance of a simulated table; the defaults are a green club cloth under hall lights.

    Attributes:
        cloth_bgr: the green baize inside the cloth margin.
        line_bgr: painted lines.
        surround_bgr: the table frame around the cloth.
        floor_bgr: the floor beyond the table frame.
        frame_width_mm: width of the table frame beyond the cloth edge.
        ball_bgr: the ball.
        home_base_bgr, away_base_bgr: base colour of each team.
        home_shirt_bgr, away_shirt_bgr: shirt colour of each team's outfield figures.
        home_goalkeeper_shirt_bgr, away_goalkeeper_shirt_bgr: each team's goalkeeper shirt.
        hair_bgr: the figures' hair (the top of the head, as seen from above).
        skin_bgr: players' fingers.
        net_bgr: goal nets.
        goal_frame_bgr: goal posts, crossbar and frame.
        rod_bgr: the goalkeepers' rods.
        figure_bodies: draw figures on their bases; False leaves flat discs (button football).
        light_gradient: relative brightness change across the table (0 = even light, ~0.4
            strong); a smooth ramp along ``light_angle_deg``.
        light_angle_deg: direction of the brightness ramp in the pitch frame.
        vignetting: relative fall-off in the image corners (0 = none, ~0.4 strong).
        noise_sigma: sensor noise, grey levels (standard deviation per channel).
        cloth_texture: relative amplitude of the cloth's fine texture (0 = flat colour).
        mowing_stripes: relative brightness step between the lighter and darker bands printed
            across the pitch like a mown lawn (0 = none, ~0.08 strong).
        stripe_count: number of such bands along the playing length.
        line_softness_mm: ink bleed of the painted lines (Gaussian sigma, mm).
        shading: strength of Lambert and specular shading on objects (0 = flat colours).
        ambient: share of light that reaches every surface regardless of its normal.
        specular: strength of the highlight on the ball and figures.
        net_opacity: how much of what lies under a net string it hides (0..1).
        net_mesh_mm: spacing of the net strings.
        shadow: darkness of the soft contact shadow under objects (0 = none).
        ball_pattern: marks on the ball: ``plain``, ``two_tone``, ``band`` or ``spots``
            (``simulator.render_shapes.Pattern``); they turn with the ball as it rolls.
        ball_mark_bgr: the colour of those marks.
        ball_specular: strength of the ball's highlight (None: ``specular``).
        ball_gloss: exponent of the ball's highlight: ~5 a broad sheen, ~40 a plastic ball,
            ~300 a small sharp spot.
        lights: (azimuth_deg, elevation_deg, strength) of each distant light, azimuth in
            the pitch frame from +x, elevation above the cloth; None: one light high
            overhead. A low light lights one side of the ball and leaves the other dim, and
            throws the contact shadows away from it.
        light_tint: (b, g, r) gain of the light's colour (colour temperature): (1, 1, 1)
            neutral, e.g. (0.8, 0.95, 1.15) a warm tungsten lamp the camera did not balance.
        shadow_softness: width of the contact shadows' fade (1 = the default, < 1 harder).
        tone_gamma: the camera's tone curve: a level ``v`` (0-255, proportional to the light)
            comes out as ``255 (v / 255) ** (1 / tone_gamma)``, after the sensor's noise. 1: the
            levels as the sensor gives them (the Pi camera as tablevar opens it); about 2.2: an
            sRGB camera, a phone. Colours here are levels before the curve.
        defocus_px: the lens' blur, the standard deviation of a Gaussian in pixels (0: sharp;
            about 1: a lens focused a little off the cloth, or a soft one), applied to the
            whole picture before the sensor's noise.
        flicker: how far the lights' brightness swings at twice the mains frequency, as a
            share of their mean (0: steady; about 0.1: a cheap LED or fluorescent lamp). The
            exposure averages it out (wholly at a whole number of half-periods), and a rolling
            shutter shows it as bands across the rows.
        mains_hz: the mains frequency behind that flicker (50 or 60).
    """

    cloth_bgr: BGR = (48, 128, 38)
    line_bgr: BGR = (232, 238, 238)
    surround_bgr: BGR = (28, 42, 66)
    floor_bgr: BGR = (80, 86, 92)
    frame_width_mm: float = 45.0
    ball_bgr: BGR = (240, 240, 240)
    home_base_bgr: BGR = (40, 40, 200)
    away_base_bgr: BGR = (190, 90, 30)
    home_shirt_bgr: BGR = (35, 35, 215)
    away_shirt_bgr: BGR = (235, 235, 235)
    home_goalkeeper_shirt_bgr: BGR = (20, 200, 230)
    away_goalkeeper_shirt_bgr: BGR = (40, 40, 40)
    hair_bgr: BGR = (25, 35, 55)
    skin_bgr: BGR = (130, 165, 220)
    net_bgr: BGR = (225, 228, 228)
    goal_frame_bgr: BGR = (245, 245, 245)
    rod_bgr: BGR = (170, 170, 175)
    figure_bodies: bool = True
    light_gradient: float = 0.15
    light_angle_deg: float = 30.0
    vignetting: float = 0.15
    noise_sigma: float = 2.0
    cloth_texture: float = 0.05
    mowing_stripes: float = 0.0
    stripe_count: int = 14
    line_softness_mm: float = 0.25
    shading: float = 1.0
    ambient: float = 0.4
    specular: float = 0.25
    net_opacity: float = 0.8
    net_mesh_mm: float = 6.0
    shadow: float = 0.25
    ball_pattern: str = "plain"
    ball_mark_bgr: BGR = (30, 30, 30)
    ball_specular: float | None = None
    ball_gloss: float = 40.0
    lights: tuple[tuple[float, float, float], ...] | None = None
    light_tint: tuple[float, float, float] = (1.0, 1.0, 1.0)
    shadow_softness: float = 1.0
    tone_gamma: float = 1.0
    defocus_px: float = 0.0
    flicker: float = 0.0
    mains_hz: float = 50.0

    def __post_init__(self) -> None:
        if self.stripe_count < 1:
            raise ValueError(f"Look.stripe_count must be >= 1, got {self.stripe_count}")
        for name in ("light_gradient", "vignetting", "shading", "net_opacity", "shadow", "flicker"):
            value = getattr(self, name)
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"Look.{name} must lie in 0..1, got {value}")
        for name in (
            "noise_sigma",
            "cloth_texture",
            "line_softness_mm",
            "specular",
            "mowing_stripes",
            "defocus_px",
        ):
            if getattr(self, name) < 0.0:
                raise ValueError(f"Look.{name} must be >= 0, got {getattr(self, name)}")
        if self.net_mesh_mm <= 0.0 or self.frame_width_mm < 0.0:
            raise ValueError("Look.net_mesh_mm must be > 0 and frame_width_mm >= 0")
        if not 0.0 <= self.ambient <= 1.0:
            raise ValueError(f"Look.ambient must lie in 0..1, got {self.ambient}")
        if self.ball_pattern not in BALL_PATTERNS:
            raise ValueError(
                f"Look.ball_pattern must be one of {', '.join(BALL_PATTERNS)}, "
                f"got {self.ball_pattern!r}"
            )
        if (self.ball_specular is not None and self.ball_specular < 0) or self.ball_gloss <= 0:
            raise ValueError("Look.ball_specular must be >= 0 and Look.ball_gloss > 0")
        if self.lights is not None and (
            not self.lights
            or any(len(lamp) != 3 or not 0 < lamp[1] <= 90 or lamp[2] <= 0 for lamp in self.lights)
        ):
            raise ValueError(
                "Look.lights must hold (azimuth_deg, elevation_deg in (0, 90], strength > 0) "
                f"triples, got {self.lights!r}"
            )
        if len(self.light_tint) != 3 or min(self.light_tint) <= 0 or self.shadow_softness <= 0:
            raise ValueError("Look.light_tint needs three gains > 0, shadow_softness > 0")
        if not self.tone_gamma > 0:
            raise ValueError(f"Look.tone_gamma must be > 0, got {self.tone_gamma}")
        if not self.mains_hz > 0:
            raise ValueError(f"Look.mains_hz must be > 0, got {self.mains_hz}")

    def base_bgr(self, team: int) -> BGR:
        return self.home_base_bgr if team == 0 else self.away_base_bgr

    def shirt_bgr(self, team: int, goalkeeper: bool) -> BGR:
        if goalkeeper:
            return self.home_goalkeeper_shirt_bgr if team == 0 else self.away_goalkeeper_shirt_bgr
        return self.home_shirt_bgr if team == 0 else self.away_shirt_bgr

    @classmethod
    def random(cls, rng: np.random.Generator) -> Look:
        """A varied but plausible look: cloth shade, team kits, ball, light and noise."""
        home, away = rng.choice(len(_TEAM_KITS), size=2, replace=False)
        keepers = rng.choice(len(_TEAM_KITS), size=2, replace=False)
        cloth = _jitter(rng, _CLOTHS[rng.integers(len(_CLOTHS))], 10)
        return cls(
            cloth_bgr=cloth,
            line_bgr=_jitter(rng, (232, 238, 238), 8),
            surround_bgr=_jitter(rng, (28, 42, 66), 15),
            floor_bgr=_jitter(rng, (80, 86, 92), 25),
            ball_bgr=_BALLS[rng.integers(len(_BALLS))],
            home_base_bgr=_TEAM_KITS[home][0],
            away_base_bgr=_TEAM_KITS[away][0],
            home_shirt_bgr=_TEAM_KITS[home][1],
            away_shirt_bgr=_TEAM_KITS[away][1],
            home_goalkeeper_shirt_bgr=_TEAM_KITS[keepers[0]][1],
            away_goalkeeper_shirt_bgr=_TEAM_KITS[keepers[1]][1],
            light_gradient=float(rng.uniform(0.0, 0.35)),
            light_angle_deg=float(rng.uniform(0.0, 360.0)),
            vignetting=float(rng.uniform(0.0, 0.35)),
            noise_sigma=float(rng.uniform(0.5, 5.0)),
            cloth_texture=float(rng.uniform(0.0, 0.1)),
            mowing_stripes=float(rng.choice([0.0, rng.uniform(0.02, 0.08)])),
            stripe_count=int(rng.choice([10, 12, 14, 16])),
            line_softness_mm=float(rng.uniform(0.1, 0.5)),
            shadow=float(rng.uniform(0.0, 0.4)),
        )


def _jitter(rng: np.random.Generator, bgr: BGR, spread: int) -> BGR:
    values = np.clip(np.asarray(bgr) + rng.integers(-spread, spread + 1, size=3), 0, 255)
    return (int(values[0]), int(values[1]), int(values[2]))
