"""The renderer draws what the camera and pitch models say, to a fraction of a pixel."""

from __future__ import annotations

import math
from dataclasses import replace
from functools import cache

import cv2
import numpy as np
import pytest

from calibration.camera import CameraModel
from calibration.tables import load_pitch
from simulator.look import Look
from simulator.render import Renderer
from simulator.scene import AWAY, HOME, Figures, Finger, SceneFrame

SIZE = (1280, 960)
CAMERAS = {
    "straight": dict(),
    "barrel_tilt8": dict(dist=(-0.25, 0.0, 0.0, 0.0, 0.0), tilt_x_deg=8.0),
    "tilt_yaw_mixed": dict(
        dist=(-0.1, 0.02, 0.001, -0.001, 0.0), tilt_y_deg=-6.0, yaw_deg=1.5, tilt_x_deg=2.0
    ),
}
PROFILES = ("fistf", "subbuteo-classic")
CASES = [(c, p) for c in CAMERAS for p in PROFILES]
# Exact: no noise, no texture; light and lens fall-off stay on (they are smooth).
EXACT = Look(noise_sigma=0.0, cloth_texture=0.0, shadow=0.0, figure_bodies=False)
# Flat: also no shading and no light fall-off, so a pixel's colour tells its coverage.
FLAT = Look(
    noise_sigma=0.0,
    cloth_texture=0.0,
    shadow=0.0,
    shading=0.0,
    light_gradient=0.0,
    vignetting=0.0,
    figure_bodies=False,
)


def camera(name: str, size: tuple[int, int] = SIZE) -> CameraModel:
    return CameraModel.overhead(size, 1300.0, 1450.0, **CAMERAS[name])


@cache
def renderer(cam: str, profile: str, look: Look = EXACT, seed: int = 0) -> Renderer:
    return Renderer(camera(cam), load_pitch(profile), look, seed=seed)


def scene(ball=None, ball_v=(0.0, 0.0), figures=(), t_s=0.0) -> SceneFrame:
    """``figures`` holds (team, goalkeeper, x, y, vx, vy) rows."""
    rows = np.array(figures, dtype=np.float64).reshape(-1, 6)
    figs = Figures(
        np.arange(len(rows)),
        rows[:, 0].astype(np.int8),
        rows[:, 1].astype(bool),
        rows[:, 2:4].copy(),
        rows[:, 4:6].copy(),
    )
    b = None if ball is None else np.asarray(ball, np.float64)
    return SceneFrame(t_s, b, np.asarray(ball_v, np.float64), figs)


def line_samples(pitch) -> list[tuple[np.ndarray, np.ndarray]]:
    """(point on a line centre, unit tangent) in mm, away from line ends and crossings."""
    out = []
    for band in pitch.lines:
        if band.radius_mm == 0.0 and band.shape == "arc":
            continue  # spots have no centre line
        for f in np.linspace(0.05, 0.95, 12):
            if band.shape == "segment":
                a, b = np.asarray(band.a_mm), np.asarray(band.b_mm)
                p, tangent = a + f * (b - a), (b - a) / np.linalg.norm(b - a)
            else:
                ang = band.start_rad + f * band.sweep_rad
                radial = np.array([math.cos(ang), math.sin(ang)])
                p, tangent = np.asarray(band.a_mm) + band.radius_mm * radial, radial[::-1] * (-1, 1)
            out.append((band, p, tangent))
    pts = np.array([p for _, p, _ in out])
    # Keep points at least 12 mm from every other line (crossings, ends, neighbours).
    clear = np.ones(len(out), bool)
    for other in pitch.lines:
        near = other.paint_distance_mm(pts) < 12.0
        clear &= ~near | np.array([band is other for band, _, _ in out])
    return [(p, t) for (_, p, t), ok in zip(out, clear, strict=True) if ok]


def profile_centre_px(grey: np.ndarray, cam: CameraModel, p_mm, tangent) -> float:
    """Signed offset (px) of the intensity centre across a line from the projected centre."""
    ends = cam.project(np.array([p_mm - 0.5 * tangent, p_mm + 0.5 * tangent]))
    c = cam.project(np.asarray(p_mm)[None])[0]
    t = (ends[1] - ends[0]) / np.linalg.norm(ends[1] - ends[0])
    n = np.array([-t[1], t[0]])
    k = np.arange(-70, 71) * 0.1  # +-7 px across the line
    pts = (c + k[:, None] * n).astype(np.float32)
    prof = cv2.remap(grey, pts[:, 0].reshape(1, -1), pts[:, 1].reshape(1, -1), cv2.INTER_LINEAR)
    prof = prof.ravel()
    edge = np.r_[0:10, len(k) - 10 : len(k)]
    base = np.polyval(np.polyfit(k[edge], prof[edge], 1), k)  # smooth light fall-off
    w = np.clip(prof - base, 0.0, None)
    return float((w * k).sum() / w.sum())


@pytest.mark.parametrize(("cam", "profile"), CASES)
def test_line_centres_land_on_projected_centre_geometry(cam, profile):
    r = renderer(cam, profile)
    img = r.render(scene())
    samples = line_samples(r.pitch)
    assert len(samples) > 100
    grey = img.astype(np.float32).sum(axis=2)
    errors = np.array([profile_centre_px(grey, r.camera, p, t) for p, t in samples])
    # The bar is 0.2 px; the renderer is exact to about 0.02 px, so hold it to 0.05.
    assert np.abs(errors).max() < 0.05, f"worst line-centre error {np.abs(errors).max():.3f} px"


def expected_ball_centroid(cam: CameraModel, centre_mm, radius_mm, step_px=1 / 10) -> np.ndarray:
    """Centroid (px) of the sphere's exact silhouette, by casting rays on a fine grid."""
    c = cam.project(np.asarray(centre_mm)[None])[0]
    half = 2.0 * radius_mm / float(cam.mm_per_px(centre_mm[:2])[0]) + 3
    u, v = np.meshgrid(*(np.arange(x - half, x + half, step_px) for x in c))
    px = np.stack([u.ravel(), v.ravel()], axis=1)
    origin, dirs = cam.rays(px)
    dirs = dirs / np.linalg.norm(dirs, axis=1, keepdims=True)
    oc = origin - np.asarray(centre_mm)
    b = dirs @ oc
    hit = b * b - (oc @ oc - radius_mm**2) >= 0
    return px[hit].mean(axis=0)


def blob_centroid(img, empty, channel: int, contrast: float) -> np.ndarray:
    cover = (img[..., channel].astype(np.float64) - empty[..., channel]) / contrast
    ys, xs = np.nonzero(np.abs(cover) > 1e-9)
    w = cover[ys, xs]
    return np.array([(w * xs).sum() / w.sum(), (w * ys).sum() / w.sum()])


def free_spots(pitch, radius: float) -> list[tuple[float, float]]:
    """Ball positions spread from the centre to the corners, clear of any paint."""
    hx, hy = 0.5 * pitch.profile.length_mm - 25, 0.5 * pitch.profile.width_mm - 25
    spots = []
    for fx, fy in ((0.1, 0.08), (0.45, -0.5), (-0.75, 0.6), (-0.95, -0.93), (0.93, 0.93)):
        x, y = fx * hx, fy * hy
        while pitch.paint_distance_mm((x, y))[0] < radius + 4:
            x -= 3.0
        spots.append((x, y))
    return spots


@pytest.mark.parametrize(("cam", "profile"), CASES)
def test_ball_blob_shows_the_parallax_of_a_sphere_on_the_cloth(cam, profile):
    r = renderer(cam, profile, FLAT)
    radius = r.pitch.profile.ball_radius_mm
    empty = r.render(scene())
    contrast = FLAT.ball_bgr[0] - FLAT.cloth_bgr[0]  # blue channel: white ball on green
    parallax = []
    for x, y in free_spots(r.pitch, radius):
        img = r.render(scene(ball=(x, y)))
        got = blob_centroid(img, empty, 0, contrast)
        exact = expected_ball_centroid(r.camera, (x, y, radius), radius)
        centre = r.camera.project([(x, y, radius)])[0]
        ground = r.camera.project([(x, y, 0.0)])[0]
        assert np.linalg.norm(got - exact) < 0.05  # measured: <= 0.022 px
        assert np.linalg.norm(got - centre) < 0.2
        parallax.append((np.hypot(x, y), np.linalg.norm(got - ground)))
    # Parallax grows with the distance from the centre of the view.
    parallax.sort()
    assert parallax[-1][1] > 2.0 * parallax[0][1]
    assert parallax[-1][1] > 3.0  # px: several mm at the corners, as DESIGN.md says


def rim_edge_points(cover: np.ndarray, centre: np.ndarray, outward: np.ndarray) -> np.ndarray:
    """Sub-pixel points where the coverage falls through 0.5, on rays leaving ``centre``
    within 70 degrees of ``outward`` (where the silhouette is the top rim, not the side)."""
    base = math.atan2(outward[1], outward[0])
    angles = base + np.radians(np.linspace(-70, 70, 57))
    radii = np.arange(0.0, 30.0, 0.05)
    dirs = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    pts = centre + radii[None, :, None] * dirs[:, None, :]
    prof = cv2.remap(
        cover.astype(np.float32),
        pts[..., 0].astype(np.float32),
        pts[..., 1].astype(np.float32),
        cv2.INTER_LINEAR,
    )
    out = []
    for i, row in enumerate(prof):
        j = int(np.argmax(row < 0.5))
        f = (row[j - 1] - 0.5) / (row[j - 1] - row[j])
        out.append(centre + (radii[j - 1] + f * (radii[j] - radii[j - 1])) * dirs[i])
    return np.array(out)


def shift_onto(points: np.ndarray, curve: np.ndarray) -> np.ndarray:
    """Translation (px) that best moves the closed polyline ``curve`` onto ``points``."""
    shift = np.zeros(2)
    for _ in range(5):
        c = curve + shift
        nearest = np.argmin(((points[:, None] - c[None]) ** 2).sum(axis=2), axis=1)
        tangent = np.roll(c, -1, axis=0)[nearest] - np.roll(c, 1, axis=0)[nearest]
        n = np.stack([-tangent[:, 1], tangent[:, 0]], axis=1)
        n /= np.linalg.norm(n, axis=1, keepdims=True)
        resid = ((points - c[nearest]) * n).sum(axis=1)
        shift += np.linalg.solve(n.T @ n, n.T @ resid)
    return shift


@pytest.mark.parametrize(("cam", "profile"), CASES)
@pytest.mark.parametrize("team", [HOME, AWAY])
def test_base_top_rim_centre_is_the_projection_of_its_height(cam, profile, team):
    r = renderer(cam, profile, FLAT)
    p = r.pitch.profile
    x, y = 0.5 * p.length_mm - 150.0, -(0.5 * p.width_mm - 40.0)  # near a corner: parallax
    if team == AWAY:
        x, y = -x, -y
    empty = r.render(scene()).astype(np.float64)
    img = r.render(scene(figures=[(team, 0, x, y, 0, 0)])).astype(np.float64)
    diff = np.asarray(FLAT.base_bgr(team), np.float64) - FLAT.cloth_bgr
    ch = int(np.argmax(np.abs(diff)))
    cover = (img[..., ch] - empty[..., ch]) / diff[ch]
    rim = r.camera.project([(x, y, p.base_height_mm)])[0]
    ground = r.camera.project([(x, y, 0.0)])[0]
    outward = (rim - ground) / np.linalg.norm(rim - ground)
    edge = rim_edge_points(cover, rim, outward)
    # The exact top rim and the base's footprint as seen by the camera (ellipses, distorted).
    phi = np.linspace(0.0, 2.0 * np.pi, 1440, endpoint=False)
    circle = np.stack([x + p.base_radius_mm * np.cos(phi), y + p.base_radius_mm * np.sin(phi)], 1)
    top = r.camera.project(np.column_stack([circle, np.full(len(phi), p.base_height_mm)]))
    foot = r.camera.project(circle)
    assert np.linalg.norm(shift_onto(edge, top)) < 0.2
    assert np.linalg.norm(shift_onto(edge, foot)) > 1.0  # the test would notice a flat base


def test_same_seed_same_frame_and_noise_differs_between_frames():
    look = Look()
    sc = scene(ball=(30, 40), ball_v=(500, 0), figures=[(HOME, 0, 100, 50, 0, 0)], t_s=1.5)
    small = camera("straight", (640, 480))  # determinism does not need the full size
    a = Renderer(small, load_pitch("fistf"), look, seed=5)
    b = Renderer(small, load_pitch("fistf"), look, seed=5)
    c = Renderer(small, load_pitch("fistf"), look, seed=6)
    first = a.render(sc)
    assert np.array_equal(first, b.render(sc))
    assert np.array_equal(first, a.render(sc))
    assert not np.array_equal(first, c.render(sc))
    later = a.render(scene(ball=(30, 40), ball_v=(500, 0), figures=[(HOME, 0, 100, 50, 0, 0)]))
    noise = later.astype(np.int16) - first
    assert 1.0 < noise[100:300, 100:300].std() < 4.0  # two frames' noise, sigma 2 each


def weighted_moments(cover: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Centroid (2,), covariance (2, 2) in px and total weight of a coverage image."""
    ys, xs = np.nonzero(cover > 1e-9)
    w = cover[ys, xs]
    pts = np.stack([xs, ys], axis=1)
    mean = (w[:, None] * pts).sum(axis=0) / w.sum()
    return mean, ((pts - mean).T * w) @ (pts - mean) / w.sum(), float(w.sum())


@pytest.mark.parametrize("velocity", [(1500.0, 0.0), (0.0, -2500.0), (1100.0, 1100.0)])
def test_motion_blur_streaks_the_ball_along_its_velocity(velocity):
    r = renderer("barrel_tilt8", "fistf", FLAT)
    empty = r.render(scene()).astype(np.float64)
    contrast = FLAT.ball_bgr[0] - FLAT.cloth_bgr[0]
    xy = np.array([150.0, 160.0])  # clear of every line
    moments = []
    for v in (velocity, (0.0, 0.0)):
        img = r.render(scene(ball=xy, ball_v=v))
        moments.append(weighted_moments((img[..., 0] - empty[..., 0]) / contrast))
    (mean, cov, total), (mean0, cov0, total0) = moments
    ends = r.camera.project(
        np.array(
            [
                xy - 0.5 * r.exposure_s * np.asarray(velocity),
                xy + 0.5 * r.exposure_s * np.asarray(velocity),
            ]
        )
    )
    streak = ends[1] - ends[0]
    length = np.linalg.norm(streak)
    # A disc swept uniformly over a straight path: its covariance grows by L^2/12 along it.
    values, vectors = np.linalg.eigh(cov - cov0)  # a plain pair in numpy 1.24, too
    assert values[1] == pytest.approx(length**2 / 12.0, rel=0.1)
    assert abs(vectors[:, 1] @ streak / length) > 0.99
    assert abs(values[0]) < 0.05 * values[1]
    assert np.linalg.norm(mean - mean0) < 0.25  # centred on the mid-exposure position
    assert total == pytest.approx(total0, rel=0.02)  # blur spreads the ball, keeps its light


@pytest.mark.parametrize("profile", PROFILES)
def test_roof_net_partly_hides_a_ball_inside_the_goal(profile):
    pitch = load_pitch(profile)
    net = renderer("straight", profile, FLAT)
    no_net = Renderer(camera("straight"), pitch, replace(FLAT, net_opacity=0.0))
    goal = pitch.goal("right")
    inside = ((goal.x_line_mm + goal.x_back_mm) / 2, 0.0)
    seen = []
    for r in (net, no_net):
        empty = r.render(scene()).astype(np.int32)
        seen.append(np.abs(r.render(scene(ball=inside)).astype(np.int32) - empty).sum())
    assert 0.3 * seen[1] < seen[0] < 0.9 * seen[1]


def test_figure_body_hides_part_of_its_base():
    pitch = load_pitch("fistf")
    with_body = Renderer(camera("straight"), pitch, Look(noise_sigma=0.0))
    r = renderer("straight", "fistf")
    base = np.asarray(EXACT.home_base_bgr, np.float32)
    counts = []
    for rr in (r, with_body):
        img = rr.render(scene(figures=[(HOME, 0, 200.0, 100.0, 0, 0)])).astype(np.float32)
        counts.append(int((np.linalg.norm(img - base, axis=2) < 30).sum()))
    assert counts[1] < 0.85 * counts[0]


def test_finger_is_a_skin_coloured_capsule_over_everything():
    r = renderer("straight", "fistf", FLAT)
    tip, root = (100.0, -50.0, 15.0), (100.0, -400.0, 120.0)
    finger = SceneFrame(0.0, None, np.zeros(2), Figures.empty(), (Finger(tip, root, 8.0),))
    img = r.render(finger).astype(np.float64)
    empty = r.render(scene()).astype(np.float64)
    for f in (0.05, 0.5, 0.9):  # points along the finger's axis, seen from above
        p = np.asarray(tip) + f * (np.subtract(root, tip))
        p[2] += 8.0  # its top surface
        u, v = np.round(r.camera.project([p])[0]).astype(int)
        assert np.abs(img[v, u] - FLAT.skin_bgr).max() < 3
    # Nothing beside the capsule changed (its contact shadow is off in this look).
    _, us = np.nonzero(np.abs(img - empty).max(axis=2) > 0)
    f = np.linspace(0.0, 1.0, 50)[:, None]
    axis = np.asarray(tip) + f * np.subtract(root, tip)
    sides = np.concatenate([axis + np.array([dx, 0.0, dz]) for dx in (-8, 8) for dz in (-8, 8)])
    u_side = r.camera.project(sides)[:, 0]
    assert u_side.min() - 2 <= us.min() and us.max() <= u_side.max() + 2


def test_figure_body_hides_part_of_a_ball_behind_it():
    """Near a corner a low camera looks over a figure's head onto a ball just beyond it."""
    low = CameraModel.overhead(SIZE, 700.0, 1450.0)
    r = Renderer(low, load_pitch("fistf"), replace(FLAT, figure_bodies=True))
    fig = np.array([480.0, 280.0])
    out = fig / np.linalg.norm(fig)
    ball = fig + out * (r.pitch.profile.base_radius_mm + r.pitch.profile.ball_radius_mm + 0.5)
    empty = r.render(scene()).astype(np.int32)
    alone = [
        r.render(scene(ball=ball)).astype(np.int32),
        r.render(scene(figures=[(HOME, 0, *fig, 0, 0)])).astype(np.int32),
    ]
    both = r.render(scene(ball=ball, figures=[(HOME, 0, *fig, 0, 0)])).astype(np.int32)
    seen_ball, seen_fig = (np.abs(a - empty).max(axis=2) > 0 for a in alone)
    overlap = seen_ball & seen_fig
    assert overlap.sum() > 20  # the figure's image reaches over the ball's
    # Where both could be seen, the figure (nearer to the camera) is what is seen; only
    # pixels on the figure's outline mix in some ball.
    like = [(np.abs(both - a).max(axis=2) <= 1)[overlap].mean() for a in alone]
    assert like[1] > 0.6
    assert like[0] < 0.1
    # The moving-ball window and the cached figure agree outside the overlap.
    assert np.abs(both - alone[0])[seen_ball & ~seen_fig].max() <= 1


def test_cached_figures_follow_the_scene_without_ghosts():
    """Figures at rest are drawn into a cache; moving one must leave no trace behind."""
    pitch = load_pitch("fistf")
    small = CameraModel.overhead((576, 324), 1300.0, 1900.0)  # 16:9, like 2304x1296
    look = replace(FLAT, figure_bodies=True)
    cached = Renderer(small, pitch, look)
    a = [(HOME, 0, -200.0, 50.0, 0, 0), (AWAY, 1, 500.0, 0.0, 0, 0)]
    b = [(HOME, 0, -150.0, 80.0, 0, 0), (AWAY, 1, 500.0, 0.0, 0, 0)]
    moving = [(HOME, 0, -175.0, 65.0, 3000.0, 1800.0), (AWAY, 1, 500.0, 0.0, 0, 0)]
    for figures in (a, moving, b):
        last = cached.render(scene(ball=(0.0, 0.0), figures=figures))
    fresh = Renderer(small, pitch, look).render(scene(ball=(0.0, 0.0), figures=b))
    assert last.shape == (324, 576, 3)
    assert np.array_equal(last, fresh)
    assert not np.array_equal(last, cached.render(scene(ball=(0.0, 0.0), figures=a)))


def test_random_looks_are_valid_varied_and_reproducible():
    looks = [Look.random(np.random.default_rng(i)) for i in range(30)]
    assert looks[3] == Look.random(np.random.default_rng(3))
    assert len({lk.cloth_bgr for lk in looks}) > 10
    assert all(lk.home_base_bgr != lk.away_base_bgr for lk in looks)
    assert max(lk.light_gradient for lk in looks) > 0.2
    assert min(lk.noise_sigma for lk in looks) < 1.5 < max(lk.noise_sigma for lk in looks)


@pytest.mark.parametrize(
    "bad", [dict(vignetting=1.5), dict(noise_sigma=-1.0), dict(net_mesh_mm=0.0), dict(ambient=2)]
)
def test_impossible_looks_are_refused_with_the_field_named(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        Look(**bad)
