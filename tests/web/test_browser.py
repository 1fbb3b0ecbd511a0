"""The pages in a real browser: Debian's Chromium driven by Playwright, the app on waitress."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from calibration.calibration_file import read_calibration
from web.app import create_app, hub_of
from web.serving import make_server, run_in_thread, stop, url_of

PIN = "2468"  # conftest.PIN
TIMEOUT_MS = 10_000


class Running:
    """An app served by waitress on a free loopback port, in a thread."""

    def __init__(self, config: dict):
        self.app = create_app(config)
        self.server = make_server(self.app, "127.0.0.1", 0, threads=8)
        self.url = url_of(self.server)
        self.thread = run_in_thread(self.server)

    @property
    def hub(self):
        return hub_of(self.app)

    def stop(self) -> None:
        stop(self.server, self.app)
        self.thread.join(5.0)
        assert not self.thread.is_alive(), "the server did not stop"


@pytest.fixture
def serve(config: dict) -> Iterator[Callable[[], Running]]:
    started: list[Running] = []

    def start() -> Running:
        started.append(Running(config))
        return started[-1]

    yield start
    for running in started:
        running.stop()


def wait_for_subscriber(running: Running, count: int = 1) -> None:
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while running.hub.subscriber_count < count:
        assert time.monotonic() < deadline, "the page never opened its event stream"
        time.sleep(0.02)


def started_with_pin(serve, page: Page) -> Running:
    """A served live page, unlocked with the PIN and subscribed, its match started."""
    running = serve()
    page.goto(running.url)
    page.fill("#pin-input", PIN)
    page.click("#pin-button")
    # The PIN is checked by the server: a control used before its answer is refused.
    expect(page.locator("#pin-lock")).to_be_visible()
    expect(page.locator("#conn")).to_have_text("● live")
    wait_for_subscriber(running)
    running.hub.control("start")
    return running


def test_live_page_shows_a_call_pushed_over_sse_with_its_evidence_picture(
    serve, page: Page, config: dict, sample
):
    running = serve()
    sample.write_jpeg(Path(config["OUTPUT_DIR"]) / "evidence" / "12.jpg")
    page.goto(running.url)
    expect(page.locator("#conn")).to_have_text("● live")
    wait_for_subscriber(running)

    running.hub.push_frame(sample.tracks_record(12))
    running.hub.control("start")
    play = sample.Play(running.hub, publish=False)  # the call waits for its picture
    out = play.ball_out()
    (call,) = running.hub.publish_calls([(out, "evidence/12.jpg", None)])
    item = page.locator(f'#feed li[data-id="{call["id"]}"]')
    expect(item.locator(".kind")).to_have_text("Out · throw-in Away")
    expect(item).to_contain_text("FISTF 14.1")
    expect(item).to_contain_text(f"margin +{out.margin_mm:.2f} mm")
    image = item.locator("img.evidence")
    page.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=image.element_handle()
    )
    assert image.evaluate("img => img.naturalWidth") == 120
    # The radar drew the ball and all four figures of the pushed frame.
    expect(page.locator("#radar circle.ball")).to_have_count(1)
    expect(page.locator("#radar circle.figure")).to_have_count(4)


def test_controls_are_refused_without_the_pin_and_work_with_it(serve, page: Page):
    running = serve()
    page.goto(running.url)
    start = page.locator('#controls button[data-action="start"]')
    expect(start).to_be_hidden()  # locked: the page is read-only

    status = page.evaluate("() => fetch('/api/match/start', {method: 'POST'}).then(r => r.status)")
    assert status == 403
    page.fill("#pin-input", "0000")
    page.click("#pin-button")
    expect(page.locator("#toast")).to_have_text("wrong PIN")
    expect(start).to_be_hidden()
    assert running.hub.match.hold == "not_started"

    page.fill("#pin-input", PIN)
    page.click("#pin-button")
    expect(start).to_be_visible()
    start.click()
    # Started, the rules' clock waits for the ball to roll (DESIGN.md 6).
    expect(page.locator("#clock-status")).to_have_text("Stopped · ball at rest")
    assert running.hub.match.hold is None


@pytest.mark.parametrize(
    ("verdict", "status", "reason", "confirmed", "score"),
    [
        ("Uphold", "upheld", "upheld by the referee", "Goal for Home · kick-off Away", "1"),
        ("Reject", "rejected", "rejected by the referee", "No goal · goal kick Away", "0"),
    ],
)
def test_a_goal_too_close_to_call_is_upheld_or_rejected_by_the_referee(
    serve, page: Page, sample, verdict, status, reason, confirmed, score
):
    running = started_with_pin(serve, page)
    # A shot 0.2 mm inside the shooting zone: the rules leave the goal to the referee (7.1).
    close_id = sample.Play(running.hub).close_goal().id
    close = page.locator(f'#feed li[data-id="{close_id}"]')
    expect(close.locator(".kind")).to_have_text("Too close to call · the referee decides")
    expect(close.locator(".call-actions button")).to_have_text(["Uphold", "Reject"])
    close.get_by_role("button", name=verdict).click()
    expect(close).to_contain_text(reason)
    expect(close.locator(".kind")).to_have_text("Too close to call · the referee decided")
    expect(close.locator(".call-actions button")).to_have_count(0)
    # The rules' decision: upheld, the goal counts and away kicks off (FISTF 7.1, 4.1);
    # rejected, a goal kick to away (7.2.1). The decision is a call of its own.
    expect(page.locator("#feed li .kind").first).to_have_text(confirmed)
    expect(page.locator("#feed li .call-actions").first.locator("button")).to_have_text(
        ["Overrule"]
    )
    expect(page.locator("#score-home")).to_have_text(score)
    assert running.hub.calls[close_id - 1].status == status
    restart = running.hub.snapshot()["restart"]
    assert (restart["kind"], restart["team"]) == (
        ("kick_off", "away") if verdict == "Uphold" else ("goal_kick", "away")
    )


@pytest.mark.parametrize(
    ("verdict", "reason", "restart"),
    [
        ("Uphold", "upheld by the referee", {"kind": "free_kick", "team": "away"}),
        ("Reject", "rejected by the referee", None),
    ],
)
def test_an_offside_too_close_to_call_is_upheld_or_rejected_by_the_referee(
    serve, page: Page, sample, verdict, reason, restart
):
    """FISTF 13.1: play goes on from a too-close offside; the referee's buttons settle it."""
    running = started_with_pin(serve, page)
    close_id = sample.Play(running.hub).close_offside().id
    close = page.locator(f'#feed li[data-id="{close_id}"]')
    expect(close.locator(".call-actions button")).to_have_text(["Uphold", "Reject"])
    close.get_by_role("button", name=verdict).click()
    expect(close).to_contain_text(reason)
    expect(close.locator(".call-actions button")).to_have_count(0)
    got = running.hub.snapshot()["restart"]
    assert (got and {"kind": got["kind"], "team": got["team"]}) == restart


def test_the_ball_is_picked_by_a_click_on_the_calibration_picture(
    serve, page: Page, recordings_dir, sample
):
    centre = sample.write_ball_view(recordings_dir / "match1", (20, 110, 240))
    running = serve()
    page.goto(f"{running.url}/calibration?recording=match1")
    picture = page.locator("#calib-view")
    expect(picture).to_be_visible()
    page.fill("#pin-input", PIN)
    page.click("#pin-button")
    expect(page.locator("#pin-lock")).to_be_visible()
    natural_w = picture.evaluate("img => img.naturalWidth")
    shown = picture.bounding_box()
    scale = shown["width"] / natural_w
    picture.click(position={"x": centre[0] * scale, "y": centre[1] * scale})
    expect(page.locator("#ball-result")).to_contain_text("Ball colour saved: #")
    expect(page.locator("#ball-colour")).to_contain_text("The ball is the colour picked")
    assert read_calibration(recordings_dir / "match1" / "calibration.json").ball_colour


def test_the_match_resumes_after_a_restart(serve, page: Page, sample):
    first = serve()
    first.hub.control("start")
    play = sample.Play(first.hub)
    play.roll(2.5)
    play.goal()
    clock_s = first.hub.match.clock.elapsed_s
    first.stop()

    second = serve()
    page.goto(second.url)
    expect(page.locator("#score-home")).to_have_text("1")
    expect(page.locator("#score-away")).to_have_text("0")
    expect(page.locator("#clock")).to_have_text(f"00:{int(clock_s):02d}")
    expect(page.locator("#clock-status")).to_have_text("Stopped · ball at rest")  # a kick-off
    expect(page.locator("#feed li .kind")).to_have_text(["Goal for Home · kick-off Away"])


def test_the_live_page_counts_the_camera_frames_dropped(serve, page: Page):
    running = serve()
    page.goto(running.url)
    expect(page.locator("#conn")).to_have_text("● live")
    wait_for_subscriber(running)
    dropped = page.locator("#dropped")
    expect(dropped).to_be_hidden()  # none dropped: nothing to say
    running.hub.set_dropped(7)
    running.hub.set_source(True, "")  # the next scoreboard carries the count
    expect(dropped).to_have_text("7 frames dropped")
