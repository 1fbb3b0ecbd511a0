"""The live page in a real browser (Debian's Chromium), fed by the simulator through the
live runner and served by waitress: the radar moves, the clock runs and stops with the ball."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from simulator.sim_source import SimSource
from tablevar.live import LiveOptions, LiveRunner
from web.app import create_app, hub_of, set_recalibrate
from web.serving import make_server, run_in_thread, stop, url_of

PIN = "2468"
TIMEOUT_MS = 60_000  # the simulated match takes several seconds on a busy machine


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[str, LiveRunner]]:
    """The app on a free loopback port and a live runner on the simulator (not yet started)."""
    out = tmp_path / "out"
    app = create_app({"PIN": PIN, "OUTPUT_DIR": out, "MATCH_LOG": tmp_path / "match.sqlite"})
    runner = LiveRunner(
        # Frames as fast as they render, so every run sees the same frames.
        lambda: SimSource(
            "touchline_out", size_px=(800, 600), fps=20.0, lead_s=0.4, realtime=False
        ),
        hub_of(app),
        out,
        options=LiveOptions(calibration_s=0.05, calibration_frames=1),
    )
    set_recalibrate(app, runner.recalibrate)
    server = make_server(app, "127.0.0.1", 0, threads=8)
    thread = run_in_thread(server)
    yield url_of(server), runner
    runner.stop()
    stop(server, app)
    thread.join(5.0)


def test_live_page_follows_the_simulated_match(live, page: Page):
    url, runner = live
    runner.hub.control("start")  # the referee starts the match: the clock may run
    page.goto(url)
    expect(page.locator("#conn")).to_have_text("● live", timeout=TIMEOUT_MS)
    expect(page.locator("#clock")).to_have_text("00:00", timeout=TIMEOUT_MS)
    # Keep every clock status the page shows: the match runs faster than a test can poll.
    page.evaluate(
        """() => {
        const el = document.getElementById('clock-status');
        window.statuses = [el.textContent];
        new MutationObserver(() => {
            if (window.statuses.at(-1) !== el.textContent) window.statuses.push(el.textContent);
        }).observe(el, {childList: true, characterData: true, subtree: true});
    }"""
    )
    runner.start()

    # The radar shows the ball and the figures (22 on the table), and moves on with the frames.
    expect(page.locator("#radar circle.ball")).to_have_count(1, timeout=TIMEOUT_MS)
    page.wait_for_function("document.querySelectorAll('#radar circle.figure').length >= 20")
    info = page.locator("#radar-info")
    first = info.text_content()
    expect(info).not_to_have_text(first, timeout=TIMEOUT_MS)
    # Each disc keeps its circle from update to update, and glides to its new place over the
    # time between the server's updates (a transition of cx and cy).
    page.evaluate("() => { window.kept = document.querySelector('#radar circle.figure'); }")
    page.wait_for_function(
        "() => parseFloat(getComputedStyle(window.kept).getPropertyValue('--glide')) > 0",
        timeout=TIMEOUT_MS,
    )
    assert page.evaluate("() => window.kept.isConnected")
    assert "cx" in page.evaluate("() => getComputedStyle(window.kept).transitionProperty")

    # The scripted throw-in arrives with its evidence picture.
    # (The feed is redrawn as calls come, so look at whichever picture loaded.)
    expect(page.locator("#feed li").first).to_be_visible(timeout=TIMEOUT_MS)
    widths = page.wait_for_function(
        """() => {
        const done = [...document.querySelectorAll('#feed li img.evidence')]
            .filter(img => img.complete && img.naturalWidth > 0);
        return done.length ? done.map(img => img.naturalWidth) : null;
    }"""
    ).json_value()
    assert set(widths) == {480}  # zoomed on the ball, as a recorded match's pictures

    # At the end the page says the source ended, and shows the runner's final clock.
    warning = page.locator("#source-warning")
    expect(warning).to_contain_text("the simulated match has ended", timeout=TIMEOUT_MS)
    deadline = time.monotonic() + 10
    while not runner.ended:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    clock_s = runner.hub.match.clock.elapsed_s
    assert clock_s > 0.3
    # The clock ran while the ball rolled and stood once it rested.
    statuses = page.evaluate("window.statuses")
    assert "Running" in statuses, statuses
    assert "Stopped · ball at rest" in statuses[statuses.index("Running") :], statuses
    expect(page.locator("#clock")).to_have_text(f"00:{int(clock_s):02d}", timeout=TIMEOUT_MS)
