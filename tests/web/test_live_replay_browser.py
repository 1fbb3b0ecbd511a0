"""The live page and the TV view on a simulated goal, in Chromium: the call in words, its
zoomed evidence picture, its replay (slow on the TV), a recording that stops on a full disk,
and a server that goes away."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from simulator.sim_source import SimSource
from tablevar.live import LiveOptions, LiveRunner
from web.app import create_app, hub_of
from web.serving import make_server, run_in_thread, stop, url_of

PIN = "2468"
TIMEOUT_MS = 90_000  # the simulated match takes several seconds on a busy machine
SHOTS = Path(os.environ.get("TABLEVAR_SCREENSHOTS", "out/screenshots"))


@pytest.fixture
def goal(tmp_path: Path, disk_fills_up) -> Iterator[tuple[str, LiveRunner, object]]:
    """A goal from inside the shooting zone, refereed live and recorded onto a disk that fills
    up after 10 frames; the app on a free loopback port (runner not yet started)."""
    out = tmp_path / "out"
    app = create_app({"PIN": PIN, "OUTPUT_DIR": out, "MATCH_LOG": tmp_path / "match.sqlite"})
    rec = tmp_path / "rec"
    hub_of(app).control("start")  # the rules judge once the referee has started the match

    def open_source():
        source = SimSource(
            "goal_inside_zone", size_px=(800, 600), fps=20.0, lead_s=0.4, realtime=False
        )
        return disk_fills_up(source, rec, at_frame=10)

    runner = LiveRunner(
        open_source,
        hub_of(app),
        out,
        options=LiveOptions(calibration_s=0.05, calibration_frames=1),
        record_dir=rec,
    )
    server = make_server(app, "127.0.0.1", 0, threads=8)
    thread = run_in_thread(server)
    yield url_of(server), runner, (server, app, thread)
    runner.stop()
    stop(server, app)
    thread.join(5.0)


def test_a_live_goal_is_said_in_words_with_its_picture_and_replay(goal, page: Page, browser):
    url, runner, (server, app, _thread) = goal
    page.goto(url)
    page.evaluate(f"sessionStorage.setItem('tablevar-pin', '{PIN}')")
    page.reload()
    expect(page.locator("#conn")).to_have_text("● live", timeout=TIMEOUT_MS)
    tv = browser.new_page(viewport={"width": 1280, "height": 720})
    tv.goto(f"{url}/tv")
    tv.evaluate(
        """() => { window.replays = [];
        document.getElementById('tv-replay').addEventListener('playing', (e) =>
            window.replays.push({src: e.target.src, rate: e.target.playbackRate})); }"""
    )
    runner.start()

    # The recording disk fills up: the page says so, and refereeing goes on.
    warning = page.locator("#recording-warning")
    expect(warning).to_contain_text("Recording: recording stopped after", timeout=TIMEOUT_MS)
    expect(warning).to_contain_text("No space left on device", timeout=TIMEOUT_MS)
    expect(warning).to_contain_text("refereeing goes on", timeout=TIMEOUT_MS)
    expect(page.locator("#recording")).to_be_hidden(timeout=TIMEOUT_MS)

    # The goal, in a player's words, with the zoomed, annotated picture of a recorded match.
    item = page.locator("#feed li.kind-goal").first
    expect(item.locator(".kind")).to_have_text("Goal for Home · kick-off Away", timeout=TIMEOUT_MS)
    width = page.wait_for_function(
        """() => { const img = document.querySelector('#feed li.kind-goal img.evidence');
        return img && img.complete && img.naturalWidth ? img.naturalWidth : null; }"""
    ).json_value()
    assert width == 480  # the crop, not the 800 px frame
    SHOTS.mkdir(parents=True, exist_ok=True)
    item.locator("img.evidence").click()
    expect(page.locator("#evidence-large")).to_be_visible(timeout=TIMEOUT_MS)
    page.wait_for_function("document.getElementById('evidence-large').naturalWidth > 0")
    page.locator("#evidence-large").screenshot(path=str(SHOTS / "live-goal-evidence.png"))
    page.keyboard.press("Escape")

    # Its replay comes once the second after the goal has been played, and plays.
    replay = item.locator(".replay-button")
    expect(replay).to_be_visible(timeout=TIMEOUT_MS)
    replay.click()
    page.wait_for_function(
        "() => { const v = document.getElementById('replay-large');"
        " return v.readyState >= 2 && v.currentTime > 0.5; }"
    )
    assert page.evaluate("document.getElementById('replay-large').videoWidth") == 480
    page.evaluate("document.getElementById('replay-large').pause()")
    page.locator("#replay-large").screenshot(path=str(SHOTS / "live-goal-replay.png"))
    page.keyboard.press("Escape")

    # The TV view shows the score and plays the goal again, in slow motion.
    expect(tv.locator("#tv-home")).to_have_text("1", timeout=TIMEOUT_MS)
    expect(tv.locator("#tv-call")).to_have_text("Goal for Home · kick-off Away", timeout=TIMEOUT_MS)
    tv.wait_for_function("window.replays.length > 0")
    played = tv.evaluate("window.replays")
    assert played[0]["rate"] == pytest.approx(0.4) and played[0]["src"].endswith("-replay.mp4")
    expect(tv.locator("#tv-replay-box")).to_be_visible(timeout=TIMEOUT_MS)
    tv.screenshot(path=str(SHOTS / "tv-goal-replay.png"))
    expect(tv.locator("#tv-replay-box")).to_be_hidden(timeout=TIMEOUT_MS)  # then the score again

    # Frames went on after the recording stopped.
    while not runner.ended:
        time.sleep(0.1)
    assert runner.error is None and runner.refereed == runner.frames > 100

    # The server goes away: a clear banner, and the controls are off until it is back.
    expect(page.locator("#controls button[data-action=start]")).to_be_enabled(timeout=TIMEOUT_MS)
    stop(server, app)
    expect(page.locator("#offline-banner")).to_be_visible(timeout=TIMEOUT_MS)
    expect(page.locator("#offline-banner")).to_contain_text("cannot be reached", timeout=TIMEOUT_MS)
    for button in page.locator("#controls button, .call-actions button").all():
        expect(button).to_be_disabled(timeout=TIMEOUT_MS)
    page.screenshot(path=str(SHOTS / "live-offline.png"))
    tv.close()
