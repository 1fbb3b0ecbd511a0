"""The review page in Chromium: the recording in a <video> element, stepped frame by frame,
played at its own speed, a call replayed in a loop, the decisions drawn on the frame."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from hardware.video_writer import VideoWriter
from web.app import create_app
from web.serving import make_server, run_in_thread, stop, url_of

TIMEOUT_MS = 15_000
PHONE = {"width": 390, "height": 844}


class Running:
    def __init__(self, config: dict):
        self.app = create_app(config)
        self.server = make_server(self.app, "127.0.0.1", 0, threads=8)
        self.url = url_of(self.server)
        self.thread = run_in_thread(self.server)

    def stop(self) -> None:
        stop(self.server, self.app)
        self.thread.join(5.0)


@pytest.fixture
def serve(config: dict) -> Iterator[Callable[[], Running]]:
    started: list[Running] = []
    yield lambda: started.append(Running(config)) or started[-1]
    for running in started:
        running.stop()


def shown_grey(page: Page) -> float:
    """Mean green level of the video frame on screen, once the page's frame is shown."""
    page.wait_for_function(
        "() => { const v = document.getElementById('video');"
        " return v.readyState >= 2 && !v.seeking; }"
    )
    return page.evaluate(
        """() => {
        const v = document.getElementById('video');
        const c = document.createElement('canvas');
        c.width = v.videoWidth; c.height = v.videoHeight;
        const ctx = c.getContext('2d');
        ctx.drawImage(v, 0, 0);
        const d = ctx.getImageData(0, 0, c.width, c.height).data;
        let sum = 0;
        for (let i = 0; i < d.length; i += 4) sum += d[i + 1];
        return sum / (d.length / 4);
    }"""
    )


def test_review_steps_exact_frames_of_a_video_browsers_cannot_play_through_its_proxy(
    serve, page: Page, sample, recordings_dir: Path
):
    # The fixture's video is MPEG-4 part 2, which Chromium does not play: the page gets the
    # H.264 proxy, made once beside the recording, and frame i is still frame i.
    running = serve()
    page.goto(f"{running.url}review/match1")
    number = page.locator("#frame-number")
    expect(number).to_have_attribute("data-frame", "0")
    assert shown_grey(page) < sample.GREY_STEP / 2
    assert (recordings_dir / "match1" / "video.browser.mp4").is_file()
    assert page.evaluate("() => document.getElementById('video').currentSrc").endswith("/video")

    page.locator('#review-calls li[data-index="1"] button.show-call').click()  # goal, frame 18
    expect(number).to_have_attribute("data-frame", str(sample.GOAL_FRAME))
    assert abs(shown_grey(page) - sample.GREY_STEP * sample.GOAL_FRAME) < sample.GREY_STEP / 2
    expect(page.locator("#overlay line.margin")).to_have_count(1)
    expect(page.locator("#overlay .footprint")).to_have_count(1)
    # The call's uncertainty widens the footprint: a dashed ring around the ball.
    expect(page.locator("#overlay .footprint-margin")).to_have_count(1)

    page.keyboard.press("ArrowRight")
    expect(number).to_have_attribute("data-frame", str(sample.GOAL_FRAME + 1))
    assert abs(shown_grey(page) - sample.GREY_STEP * (sample.GOAL_FRAME + 1)) < sample.GREY_STEP / 2
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(number).to_have_attribute("data-frame", str(sample.GOAL_FRAME - 1))
    assert abs(shown_grey(page) - sample.GREY_STEP * (sample.GOAL_FRAME - 1)) < sample.GREY_STEP / 2
    expect(page.locator("#overlay line.margin")).to_have_count(0)  # only on the call's frame

    page.locator("#show-ball").uncheck()
    assert page.locator("#overlay .layer-ball").evaluate("g => g.style.display") == "none"


FPS = 60
SECONDS = 8


@pytest.fixture
def long_recording(recordings_dir: Path, sample) -> str:
    """An 8-second H.264 recording at 60 fps (plays as it is) with a goal at 2 s."""
    folder = recordings_dir / "long"
    folder.mkdir()
    writer = VideoWriter(folder / "video.mp4", FPS, (320, 200))
    for i in range(FPS * SECONDS):
        writer.write(np.full((200, 320, 3), i % 250, np.uint8))
    writer.close()
    goal = sample.call_record(2 * FPS, "goal", team="home", restart="kick_off", evidence=None)
    goal["t_s"] = 2.0
    (folder / "calls.jsonl").write_text(json.dumps(goal) + "\n", "utf-8")
    return "long"


def test_playback_at_1x_shows_the_recordings_frame_rate_and_a_call_replays_in_a_loop(
    serve, page: Page, long_recording: str, recordings_dir: Path
):
    running = serve()
    page.goto(f"{running.url}review/{long_recording}")
    expect(page.locator("#frame-count")).to_have_text(str(FPS * SECONDS - 1))
    assert not (recordings_dir / long_recording / "video.browser.mp4").exists()  # H.264 plays
    # Frames shown a second at 1x, counted with requestVideoFrameCallback over windows of
    # 1.5 s of steady play (from the 15th frame: the first ones start the decoder). The first good
    # window of up to four counts: on a shared machine a stall of the whole browser in one window
    # says nothing of the page's playback.
    windows = page.evaluate(
        """(fps) => new Promise((done) => {
        const v = document.getElementById('video');
        const out = [];
        const good = (w) => Math.abs(w.fps - fps) < 0.05 * fps && Math.abs(w.speed - 1) < 0.05;
        let first = null, n = 0;
        const onFrame = (now, meta) => {
            n += 1;
            if (n === 15) first = meta;
            if (first && meta.expectedDisplayTime - first.expectedDisplayTime >= 1500) {
                const wall_s = (meta.expectedDisplayTime - first.expectedDisplayTime) / 1000;
                out.push({fps: (meta.presentedFrames - first.presentedFrames) / wall_s,
                          speed: (meta.mediaTime - first.mediaTime) / wall_s});
                first = meta;
            }
            if (out.length === 4 || v.ended || (out.length && good(out[out.length - 1]))) done(out);
            else v.requestVideoFrameCallback(onFrame);
        };
        v.requestVideoFrameCallback(onFrame);
        document.getElementById('play').click();
    })""",
        FPS,
    )
    best = min(windows, key=lambda w: abs(w["fps"] - FPS))
    assert abs(best["speed"] - 1.0) < 0.05, windows
    assert abs(best["fps"] - FPS) < 0.05 * FPS, windows

    # Replay: from 2 s before the goal to 1 s after, at 0.25x, and again from the start.
    page.locator('#review-calls li[data-index="0"] button.replay-call').click()
    expect(page.locator("#replay-bar")).to_be_visible()
    video = page.locator("#video")
    assert video.evaluate("v => v.playbackRate") == 0.25
    page.evaluate("() => { document.getElementById('video').playbackRate = 4; }")  # quicker loop
    page.wait_for_function("() => document.getElementById('video').currentTime > 2.5")
    page.wait_for_function("() => document.getElementById('video').currentTime < 0.5")
    assert not video.evaluate("v => v.paused")
    page.click("#replay-stop")
    expect(page.locator("#replay-bar")).to_be_hidden()
    assert video.evaluate("v => v.paused")


def test_on_a_phone_a_tapped_call_brings_its_frame_into_view_and_targets_are_44px(
    serve, browser, sample
):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    running = serve()
    page.goto(f"{running.url}review/match1")
    expect(page.locator("#frame-number")).to_have_attribute("data-frame", "0")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    call = page.locator('#review-calls li[data-index="1"] button.show-call')
    call.scroll_into_view_if_needed()
    call.tap()
    expect(page.locator("#frame-number")).to_have_attribute("data-frame", str(sample.GOAL_FRAME))
    box = page.locator("#viewer").bounding_box()
    bar = page.locator(".topbar").bounding_box()
    # The whole frame is in view, below the sticky bar.
    assert box["y"] >= bar["y"] + bar["height"] - 1 and box["y"] + box["height"] <= PHONE["height"]
    small = page.evaluate(
        """() => [...document.querySelectorAll('main button, main select, main a')]
        .filter((e) => e.offsetParent !== null)
        .map((e) => e.getBoundingClientRect())
        .filter((r) => r.height < 44 || r.width < 44).map((r) => [r.width, r.height])"""
    )
    assert small == []
    context.close()


@pytest.mark.parametrize(
    "viewport", [{"width": 1280, "height": 900}, PHONE], ids=["desktop", "phone"]
)
def test_the_pages_have_no_serious_accessibility_violations(serve, browser, viewport):
    """axe-core (the engine browsers' own audits use) on the live page, the list of matches,
    the review page with a call selected, the match report and an error page, none wider than
    the screen: no serious or critical violation (WCAG 2 AA: contrast >= 4.5:1, names and
    labels, landmarks)."""
    axe = Axe()
    context = browser.new_context(viewport=viewport)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    running = serve()
    found = {}
    paths = ("", "review", "review/match1", "review/match1/report", "review/nope")
    for path in paths:
        page.goto(f"{running.url}{path}")
        if path == "review/match1":
            page.locator('#review-calls li[data-index="0"] button.show-call').click()
            expect(page.locator("#overlay .footprint")).to_have_count(1)
        violations = axe.run(page).response["violations"]
        found[path] = [v["id"] for v in violations if v["impact"] in ("serious", "critical")]
        assert page.locator("h1").count() == 1
        assert page.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
    assert found == {path: [] for path in paths}
    context.close()
