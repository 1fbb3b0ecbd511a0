"""The simulator's wider conditions draw what they say: ball colours and marks, lights,
rolling shutter timing, MPEG-4 part 2 files, clips from mid-play, the per-factor draws."""

from __future__ import annotations

import math
from dataclasses import replace
from functools import cache

import cv2
import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.lines import MIN_CLOTH_CHROMA
from calibration.tables import load_pitch
from hardware.sources import VideoFileSource
from hardware.video_writer import VideoWriter
from simulator.look import Look
from simulator.render import Renderer
from simulator.scene import Figures, SceneFrame
from simulator.scene_camera import fits
from simulator.scene_margins import build_margin_scene
from simulator.scene_stress import FACTORS, draw, lens_unfolded
from simulator.truth import clip_truth, frame_truth, truth_calls

PITCH = load_pitch("fistf")
R_BALL = PITCH.profile.ball_radius_mm
SIZE = (960, 720)
# No noise, texture, shading or light fall-off: a pixel's colour is its surface's colour.
FLAT = Look(
    noise_sigma=0.0,
    cloth_texture=0.0,
    shadow=0.0,
    shading=0.0,
    light_gradient=0.0,
    vignetting=0.0,
    figure_bodies=False,
)
ORANGE = (30, 140, 245)
MARK = (20, 20, 20)


@cache
def camera() -> CameraModel:
    return CameraModel.overhead(SIZE, 1300.0, 1450.0)


def frame(ball=(0.0, 0.0), v=(0.0, 0.0), t_s: float = 0.0) -> SceneFrame:
    return SceneFrame(t_s, np.asarray(ball, float), np.asarray(v, float), Figures.empty())


def ball_pixels(img: np.ndarray, xy_mm) -> np.ndarray:
    """(n, 3) pixels well inside the ball's image (its top, seen from above)."""
    c = camera().project(np.array([[xy_mm[0], xy_mm[1], R_BALL]]))[0]
    r_px = R_BALL / float(camera().mm_per_px(np.asarray(xy_mm))[0])
    yy, xx = np.mgrid[: SIZE[1], : SIZE[0]]
    inside = np.hypot(xx - c[0], yy - c[1]) < 0.7 * r_px
    return img[inside].astype(float)


@pytest.mark.parametrize("bgr", [ORANGE, (40, 220, 240), (240, 240, 240), (35, 35, 35)])
def test_ball_is_drawn_in_its_colour(bgr):
    img = Renderer(camera(), PITCH, replace(FLAT, ball_bgr=bgr)).render(frame((100.0, 50.0)))
    px = ball_pixels(img, (100.0, 50.0))
    assert np.abs(px.mean(axis=0) - bgr).max() < 2.0


@pytest.mark.parametrize(
    ("x_mm", "marked"),
    [
        (0.0, 0.0),  # the unmarked half on top
        (0.5 * math.pi * R_BALL, 0.5),  # a quarter turn along +x: half and half
        (math.pi * R_BALL, 1.0),  # half a turn: the marked half on top
    ],
)
def test_two_tone_marks_turn_as_the_ball_rolls(x_mm, marked):
    look = replace(FLAT, ball_bgr=ORANGE, ball_pattern="two_tone", ball_mark_bgr=MARK)
    img = Renderer(camera(), PITCH, look).render(frame((x_mm, 0.0)))
    px = ball_pixels(img, (x_mm, 0.0))
    share = float((np.abs(px - MARK).max(axis=1) < 40).mean())
    assert share == pytest.approx(marked, abs=0.12)


@pytest.mark.parametrize("pattern", ["band", "spots"])
def test_patterned_balls_show_both_colours(pattern):
    look = replace(FLAT, ball_bgr=(240, 240, 240), ball_pattern=pattern, ball_mark_bgr=MARK)
    # Turned a little off the axes, so a band or a spot shows from above.
    img = Renderer(camera(), PITCH, look).render(frame((0.6 * R_BALL, 0.4 * R_BALL)))
    px = ball_pixels(img, (0.6 * R_BALL, 0.4 * R_BALL))
    dark = (np.abs(px - MARK).max(axis=1) < 40).mean()
    assert 0.05 < dark < 0.95


def test_low_side_light_leaves_the_far_side_dim_and_throws_the_shadow_away():
    # One light low in the +x direction, little fill.
    plain = Look(noise_sigma=0.0, cloth_texture=0.0, light_gradient=0.0, vignetting=0.0)
    look = replace(plain, lights=((0.0, 20.0, 1.0),), ambient=0.1, shadow=0.6, figure_bodies=False)
    rend = Renderer(camera(), PITCH, look)
    img = rend.render(frame((0.0, 0.0))).astype(float).sum(axis=2)
    empty = rend.background().astype(float).sum(axis=2)
    c = camera().project(np.array([[0.0, 0.0, R_BALL]]))[0]
    r_px = R_BALL / float(camera().mm_per_px(np.zeros(2))[0])
    row, col = round(c[1]), round(c[0])
    near = img[row, round(col + 0.6 * r_px)]  # the side facing the light (image +x = pitch +x)
    far = img[row, round(col - 0.6 * r_px)]
    assert near > 2.0 * far
    # The shadow lies on the cloth beyond the ball's far side, none on its lit side.
    shadow_far = empty[row, round(col - 2.0 * r_px)] - img[row, round(col - 2.0 * r_px)]
    shadow_near = empty[row, round(col + 2.0 * r_px)] - img[row, round(col + 2.0 * r_px)]
    assert shadow_far > 30.0 and abs(shadow_near) < 3.0


def test_light_tint_scales_each_channel():
    tint = (0.8, 1.0, 1.2)
    plain = Renderer(camera(), PITCH, FLAT).background().astype(float)
    warm = Renderer(camera(), PITCH, replace(FLAT, light_tint=tint)).background().astype(float)
    cloth = (slice(300, 400), slice(400, 500))
    ratio = warm[cloth].mean(axis=(0, 1)) / plain[cloth].mean(axis=(0, 1))
    np.testing.assert_allclose(ratio, tint, atol=0.02)


def _edge_steepness(img: np.ndarray, xy_mm) -> float:
    """The steepest step between neighbouring pixels along the row through the ball."""
    c = camera().project(np.array([[xy_mm[0], xy_mm[1], R_BALL]]))[0]
    row = img[round(c[1])].astype(float).sum(axis=1)
    return float(np.abs(np.diff(row)).max())


def test_a_defocused_lens_softens_the_ball_s_outline_and_keeps_its_light():
    sharp = Renderer(camera(), PITCH, FLAT).render(frame((100.0, 50.0)))
    soft = Renderer(camera(), PITCH, replace(FLAT, defocus_px=1.5)).render(frame((100.0, 50.0)))
    assert _edge_steepness(soft, (100.0, 50.0)) < 0.6 * _edge_steepness(sharp, (100.0, 50.0))
    assert abs(soft.astype(float).mean() - sharp.astype(float).mean()) < 0.5


def test_flicker_swings_the_brightness_from_frame_to_frame_unless_the_shutter_spans_it():
    """Lamps on 50 Hz mains swing at 100 Hz: a short shutter catches the swing, one that lasts
    a whole half-period (10 ms) averages it away."""
    cloth = (slice(300, 400), slice(400, 500))
    look = replace(FLAT, flicker=0.1, mains_hz=50.0)

    def means(exposure_s):
        rend = Renderer(camera(), PITCH, look, exposure_s=exposure_s)
        return [rend.background()[cloth].mean()] + [
            rend.render(frame((450.0, 250.0), t_s=t))[cloth].astype(float).mean()
            for t in np.arange(8) / 730.0  # spread over the 10 ms cycle
        ]

    steady, *short = means(1 / 4000)
    assert max(short) - min(short) > 0.15 * steady  # +-10 %, all but the swing's tops
    steady, *spanned = means(1 / 100)
    assert max(abs(m - steady) for m in spanned) < 0.6


def test_flicker_under_a_rolling_shutter_bands_the_rows():
    """Each row is exposed at its own time: one frame shows the swing as bands across it."""
    look = replace(FLAT, flicker=0.1, mains_hz=60.0)
    rend = Renderer(camera(), PITCH, look, exposure_s=1 / 4000, readout_s=0.02)
    img = rend.render(frame((450.0, 250.0))).astype(float)
    ratio = img[:, 400:560].mean(axis=(1, 2)) / rend.background()[:, 400:560].mean(axis=(1, 2))
    rows = slice(100, 620)  # the cloth
    assert ratio[rows].max() - ratio[rows].min() > 0.15


def test_a_tone_curve_lifts_the_levels_and_draws_the_ball_toward_white():
    """An sRGB-like camera (``tone_gamma`` 2.2): every level ``v`` comes out as
    ``255 (v / 255) ** (1 / 2.2)``, the empty cloth and the ball's top alike, so an orange
    ball's channels come closer together."""
    linear = Renderer(camera(), PITCH, FLAT)
    curved = Renderer(camera(), PITCH, replace(FLAT, tone_gamma=2.2))
    cloth = (slice(300, 400), slice(400, 500))
    v = linear.background()[cloth].astype(float)
    np.testing.assert_allclose(
        curved.background()[cloth].astype(float), 255.0 * (v / 255.0) ** (1 / 2.2), atol=0.6
    )
    look = replace(FLAT, ball_bgr=ORANGE)
    top_linear = ball_pixels(Renderer(camera(), PITCH, look).render(frame()), (0, 0)).mean(0)
    top_curved = ball_pixels(
        Renderer(camera(), PITCH, replace(look, tone_gamma=2.2)).render(frame()), (0, 0)
    ).mean(0)
    np.testing.assert_allclose(top_curved, 255.0 * (top_linear / 255.0) ** (1 / 2.2), atol=1.0)
    assert np.ptp(top_curved) < 0.8 * np.ptp(top_linear)


def test_the_tone_curve_must_be_positive():
    with pytest.raises(ValueError, match="tone_gamma must be > 0"):
        Look(tone_gamma=0.0)


def _centroid_x(img: np.ndarray, background: np.ndarray) -> tuple[float, float]:
    diff = np.abs(img.astype(float) - background.astype(float)).sum(axis=2)
    ys, xs = np.nonzero(diff > 60)
    w = diff[ys, xs]
    return float((xs * w).sum() / w.sum()), float((ys * w).sum() / w.sum())


@pytest.mark.parametrize("y_mm", [-250.0, 0.0, 250.0])
def test_rolling_shutter_draws_a_moving_ball_where_it_is_when_its_rows_are_exposed(y_mm):
    readout, v = 0.03, np.array([1500.0, 0.0])
    look = replace(FLAT, shadow=0.0)
    rolling = Renderer(camera(), PITCH, look, exposure_s=0.0, readout_s=readout)
    globl = Renderer(camera(), PITCH, look, exposure_s=0.0)
    bg = globl.background()
    xy = np.array([0.0, y_mm])
    cx_rolling, cy = _centroid_x(rolling.render(frame(xy, v)), bg)
    # Row v is exposed at t + (v - (h - 1) / 2) * readout / h (the frame time: the middle row).
    dt = (cy - 0.5 * (SIZE[1] - 1)) * readout / SIZE[1]
    cx_truth, _ = _centroid_x(globl.render(frame(xy + v * dt, v)), bg)
    cx_frame_time, _ = _centroid_x(globl.render(frame(xy, v)), bg)
    assert cx_rolling == pytest.approx(cx_truth, abs=0.05)
    if y_mm != 0.0:  # away from the middle row it visibly differs from the frame time's
        assert abs(cx_rolling - cx_frame_time) > 5.0


def test_rolling_shutter_leaves_resting_things_alone():
    look = replace(FLAT, shadow=0.3)
    still = frame((200.0, -300.0))
    a = Renderer(camera(), PITCH, look, readout_s=0.03).render(still)
    b = Renderer(camera(), PITCH, look).render(still)
    assert np.array_equal(a, b)


@pytest.mark.parametrize(("codec", "kbps"), [("mpeg4", 2000.0), ("mpeg4", None), ("h264", 1500)])
def test_lossy_codecs_at_a_bitrate_decode_back_to_the_frames(tmp_path, codec, kbps):
    rend = Renderer(camera(), PITCH, Look(noise_sigma=1.0))
    frames = [rend.render(frame((10.0 * i, 0.0), t_s=i / 30)) for i in range(12)]
    path = tmp_path / "v.mp4"
    writer = VideoWriter(path, 30.0, SIZE, codec=codec, bitrate_kbps=kbps, repeatable=True)
    for f in frames:
        writer.write(f)
    writer.close()
    with VideoFileSource(path) as src:
        got = [f.image_bgr for f in src.frames()]
        assert src.lossy
    assert len(got) == len(frames)
    mse = np.mean(
        [(g.astype(float) - f.astype(float)) ** 2 for g, f in zip(got, frames, strict=True)]
    )
    assert 10 * math.log10(255**2 / mse) > 30.0  # PSNR, dB


def test_unknown_codec_and_bad_bitrate_are_refused(tmp_path):
    from hardware.video_writer import VideoWriteError

    with pytest.raises(VideoWriteError, match="unknown codec"):
        VideoWriter(tmp_path / "a.mp4", 30.0, SIZE, codec="vp9")
    with pytest.raises(VideoWriteError, match="bitrate"):
        VideoWriter(tmp_path / "b.mp4", 30.0, SIZE, bitrate_kbps=0)


@cache
def margin_scene():
    return build_margin_scene("line", 21, "fistf", line="touchline", margin_mm=1.0)


def test_a_clip_from_mid_play_counts_its_truth_from_its_first_frame():
    scene, fps = margin_scene(), 30.0
    roll = scene.strikes[-1]
    first = math.floor(roll.t_s * fps) + 3  # the ball already rolling to the line
    n = scene.frame_count(fps) - first
    frames, calls = clip_truth(scene, fps, first, n)
    full = frame_truth(scene, fps)
    assert len(frames) == n and frames[0]["frame"] == 0 and frames[0]["t_s"] == 0.0
    assert frames[0]["ball"] == full[first]["ball"] and frames[0]["ball"]["moving"]
    assert all(k["onset_frame"] >= 0 for f in frames for k in f["contacts"])
    expected = [c for c in truth_calls(scene, fps) if c["frame"] >= first]
    assert [c["frame"] for c in calls] == [c["frame"] - first for c in expected]
    assert [c["margin_mm"] for c in calls] == [c["margin_mm"] for c in expected]


def test_a_clip_cannot_start_outside_its_scene():
    with pytest.raises(ValueError, match="cannot start"):
        clip_truth(margin_scene(), 30.0, 10_000, 5)


@pytest.mark.parametrize("factor", list(FACTORS))
def test_each_factor_draws_a_valid_reproducible_camera_and_look(factor):
    a = draw(factor, np.random.default_rng(5), PITCH)
    b = draw(factor, np.random.default_rng(5), PITCH)
    assert a == b
    assert fits(a.camera, PITCH) and lens_unfolded(a.camera, PITCH)
    assert a.readout_s < 1.0 / a.fps and 0 < a.exposure_s <= 1.0 / a.fps
    base = draw("base", np.random.default_rng(5), PITCH)
    looks_differ = a.look != base.look
    assert looks_differ == (
        factor
        in (
            "ball_colour",
            "ball_material",
            "lights",
            "kits",
            "cloth",
            "random",
            "tone",
            "sensor",
            "paint",
        )
    )
    assert (a.exposure_s != base.exposure_s) == (factor in ("sensor", "random"))
    assert (a.camera != base.camera) == (
        factor in ("camera_turn", "tilt_height", "principal_point", "lens", "resolution", "random")
    )


def test_kits_like_the_ball_never_put_both_teams_on_bases_alike():
    """FISTF Law 4.1.2: two players with bases of the same or a similar colour do not play
    (the loser of a toss changes his figures). The kits factor dresses one team's bases, or
    both teams' shirts, in the ball's colour; the other team's bases stay apart."""
    looks = [draw("kits", np.random.default_rng(s), PITCH).look for s in range(60)]
    apart = [np.abs(np.subtract(lk.home_base_bgr, lk.away_base_bgr)).max() for lk in looks]
    assert min(apart) > 60

    def near_ball(lk, bgr):
        return np.abs(np.subtract(bgr, lk.ball_bgr)).max() <= 25

    assert all(near_ball(lk, lk.home_base_bgr) or near_ball(lk, lk.home_shirt_bgr) for lk in looks)
    assert any(near_ball(lk, lk.away_shirt_bgr) for lk in looks)  # both teams, on shirts


def test_cloths_range_past_green_but_stay_dyed():
    """The cloth factor draws shades from yellow-olive through green to blue, dark to pale,
    none of them grey (a cloth is dyed: ``calibration.lines.MIN_CLOTH_CHROMA``)."""
    cloths = np.array(
        [draw("cloth", np.random.default_rng(s), PITCH).look.cloth_bgr for s in range(60)]
    )
    hsv = cv2.cvtColor(cloths.astype(np.uint8)[None], cv2.COLOR_BGR2HSV)[0].astype(float)
    lab = cv2.cvtColor(cloths.astype(np.uint8)[None], cv2.COLOR_BGR2Lab)[0].astype(float)
    assert hsv[:, 0].min() < 35 and hsv[:, 0].max() > 95  # olive ... blue (green is 60)
    assert hsv[:, 2].min() < 90 and hsv[:, 2].max() > 160
    assert np.hypot(lab[:, 1] - 128, lab[:, 2] - 128).min() >= MIN_CLOTH_CHROMA


def test_unknown_factor_names_the_factors():
    with pytest.raises(ValueError, match="factors: base"):
        draw("fog", np.random.default_rng(0), PITCH)


@pytest.mark.parametrize("seed", range(6))
def test_mid_play_starts_inside_a_roll_with_time_left(seed):
    from simulator.simulate import mid_play_start_s

    scene = margin_scene()
    t = mid_play_start_s(scene, np.random.default_rng(seed))
    _, v, on = scene.ball_state(np.array([t]))
    assert on[0] and np.hypot(*v[0]) > 0  # the ball rolls on the first frame
    assert scene.duration_s - t >= 2.0
