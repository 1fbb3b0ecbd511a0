"""Button football on the renderer: buttons are flat discs of the profile's size and the team's
colours, a keeper is a block of the profile's size."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from simulator.scene import AWAY, HOME
from tests.simulator.test_render import FLAT, renderer, rim_edge_points, scene, shift_onto

PROFILE = "button-football"


@pytest.mark.parametrize("cam", ["straight", "barrel_tilt8"])
@pytest.mark.parametrize("team", [HOME, AWAY])
def test_a_button_is_a_flat_disc_of_its_size_and_colours(cam, team):
    r = renderer(cam, PROFILE, FLAT)
    p = r.pitch.profile
    x, y = 0.5 * p.length_mm - 150.0, -(0.5 * p.width_mm - 40.0)
    if team == AWAY:
        x, y = -x, -y
    empty = r.render(scene()).astype(np.float64)
    img = r.render(scene(figures=[(team, 0, x, y, 0, 0)])).astype(np.float64)
    diff = np.asarray(FLAT.base_bgr(team), np.float64) - FLAT.cloth_bgr
    ch = int(np.argmax(np.abs(diff)))
    cover = np.clip((img[..., ch] - empty[..., ch]) / diff[ch], 0.0, 1.0)
    # The shirt-coloured label covers the middle: count it as the disc too.
    centre = r.camera.project([(x, y, p.base_height_mm)])[0]
    u, v = np.round(centre).astype(int)
    assert np.allclose(img[v, u], FLAT.shirt_bgr(team, False), atol=3)
    cover[np.linalg.norm(img - FLAT.shirt_bgr(team, False), axis=-1) < 3] = 1.0
    ground = r.camera.project([(x, y, 0.0)])[0]
    outward = (centre - ground) / np.linalg.norm(centre - ground)
    edge = rim_edge_points(cover, centre, outward)
    phi = np.linspace(0.0, 2.0 * np.pi, 1440, endpoint=False)
    circle = np.stack([x + p.base_radius_mm * np.cos(phi), y + p.base_radius_mm * np.sin(phi)], 1)
    top = r.camera.project(np.column_stack([circle, np.full(len(phi), p.base_height_mm)]))
    assert np.linalg.norm(shift_onto(edge, top)) < 0.25
    assert p.base_radius_mm == 16.0  # the profile's button, not a FISTF base


def test_a_keeper_is_a_block_of_the_profile_size():
    r = renderer("barrel_tilt8", PROFILE, FLAT)
    p = r.pitch.profile
    x, y = -0.5 * p.length_mm + 20.0, 30.0
    img = r.render(scene(figures=[(HOME, 1, x, y, 0, 0)])).astype(np.float64)
    shirt = np.asarray(FLAT.shirt_bgr(HOME, True), np.float64)
    # Lit faces differ in brightness but not in hue: compare chromaticity.
    chroma = img / np.maximum(img.sum(axis=-1, keepdims=True), 1.0)
    want = shirt / shirt.sum()
    mask = (np.linalg.norm(chroma - want, axis=-1) < 0.02).astype(np.uint8)
    hw, hd, h = (
        p.size_mm(f"keeper.{k}_mm") / d for k, d in (("width", 2), ("depth", 2), ("height", 1))
    )
    corners = np.array(
        [(x + sx * hd, y + sy * hw, z) for sx in (-1, 1) for sy in (-1, 1) for z in (0.0, h)]
    )
    hull = cv2.convexHull(r.camera.project(corners).astype(np.float32))
    expected = cv2.contourArea(hull)
    assert mask.sum() == pytest.approx(expected, rel=0.06)
    top = r.camera.project([(x, y, h)])[0]
    u, v = np.round(top).astype(int)
    assert mask[v, u] == 1
