"""The live page of button football in a real browser (Debian's Chromium, the app on
waitress), its match judged by the rules from one-line observations: the shot-call buttons
(clicked and from the keyboard), the restart's spot on the radar with the buttons moved for it,
the game's words, and axe-core with no serious violation, on a desktop and on a 390 px phone."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, expect

from tests.web.test_button_live import FIGS, Play
from web.app import create_app, hub_of
from web.serving import make_server, run_in_thread, stop, url_of

PIN = "2468"
TIMEOUT_MS = 10_000
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}


@pytest.fixture
def served(tmp_path) -> Iterator[tuple[str, object]]:
    """A button-football live page on a free loopback port, and its hub."""
    app = create_app(
        {
            "PIN": PIN,
            "TABLE": "button-football",
            "OUTPUT_DIR": tmp_path / "out",
            "MATCH_LOG": tmp_path / "match.sqlite",
        }
    )
    server = make_server(app, "127.0.0.1", 0, threads=8)
    thread = run_in_thread(server)
    yield url_of(server), hub_of(app)
    stop(server, app)
    thread.join(5.0)


def _open(browser: Browser, url: str, hub, viewport: dict) -> Page:
    """The page, unlocked with the PIN, its event stream open, the match started."""
    page = browser.new_context(viewport=viewport).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(url)
    page.fill("#pin-input", PIN)
    page.click("#pin-button")
    # The PIN is checked by the server: a control used before its answer is refused.
    expect(page.locator("#pin-lock")).to_be_visible()
    expect(page.locator("#conn")).to_have_text("● live")
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while hub.subscriber_count < 1:
        assert time.monotonic() < deadline, "the page never opened its event stream"
        time.sleep(0.02)
    hub.control("start")
    return page


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_shots_are_called_by_click_and_by_key_and_the_rules_judge_them(
    served, browser: Browser, viewport
):
    """BF Angesagte Schüsse: a call stands only with the ball wholly in the caller's attacking
    half; home attacks the right goal, so with the ball at x = 400 mm home's call stands and
    away's is refused."""
    url, hub = served
    page = _open(browser, url, hub, viewport)
    Play(hub)(*["ball 400,0 rest"] * 3)
    home, away = page.locator("#shot-home"), page.locator("#shot-away")
    for button in (home, away):  # big enough for a thumb, inside the screen
        box = button.bounding_box()
        assert box is not None and box["height"] >= 44 and box["width"] >= 44
        assert box["x"] >= 0 and box["x"] + box["width"] <= viewport["width"]
    expect(home).to_have_accessible_name("Home calls a shot H")
    expect(home).to_have_attribute("aria-keyshortcuts", "H")

    home.click()
    expect(page.locator("#feed li.kind-shot_called")).to_have_count(1)
    expect(page.locator("#feed li.kind-shot_called .kind")).to_have_text(
        "Shot called by Home · accepted"
    )
    expect(page.locator("#shot-state")).to_have_text("Home called a shot")
    expect(page.locator("#feed li.kind-shot_called .team-tag")).to_have_text("Home calls")

    page.locator("body").press("a")  # the keyboard at the table: A is away's call
    expect(page.locator("#feed li.kind-shot_called")).to_have_count(2)
    expect(page.locator("#feed li.kind-shot_called .kind").first).to_have_text(
        "Shot called by Away · refused: the ball is not in the opponents' half"
    )
    expect(page.locator("#shot-state")).to_have_text("Home called a shot")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
    assert page.errors == []  # type: ignore[attr-defined]
    page.context.close()


def test_the_restart_spot_and_the_buttons_moved_are_shown(served, browser: Browser):
    """BF Ball im Aus: over the top touchline, a throw-in for away where the ball crossed: the
    spot on the radar, the restart in words, and a button moved for it counted."""
    url, hub = served
    page = _open(browser, url, hub, DESKTOP)
    play = Play(hub)
    play("ball -100,300 rest", "ball -100,300 rest; flick 5", "ball -100,390 moving")
    play("ball -100,420 moving")
    mark = page.locator("#radar .spot-mark")
    expect(mark).to_have_count(1)
    expect(mark).to_have_attribute("data-kind", "throw_in")
    cx = float(mark.locator("circle").get_attribute("cx"))
    cy = float(mark.locator("circle").get_attribute("cy"))
    assert cx == pytest.approx(-100.0, abs=1.0) and cy == pytest.approx(375 - 3 - 10.5)
    expect(page.locator("#restart-line")).to_contain_text("Restart: throw-in Away")
    expect(page.locator("#moves-home")).to_have_text("0 of any")
    play.figs = FIGS.replace("home 7 -200,0", "home 7 -260,40")
    play("ball -100,361.5 rest")
    expect(page.locator("#moves-home")).to_have_text("1 of any")
    # Taken: the spot goes, the turn is away's.
    play("ball -100,361.5 rest; flick 9", "ball -100,340 moving")
    expect(mark).to_have_count(0)
    expect(page.locator("#turn-team")).to_have_text("Away")
    page.context.close()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_page_speaks_of_buttons_and_has_no_serious_accessibility_violation(
    served, browser: Browser, viewport
):
    """The game's words (buttons, keeper blocks, shots called, contacts counted this turn);
    the controls button football has no use for are hidden; axe-core finds no serious or
    critical violation (WCAG 2 AA)."""
    url, hub = served
    page = _open(browser, url, hub, viewport)
    play = Play(hub)
    play("ball -100,300 rest", "ball -100,300 rest; flick 5", "ball -100,390 moving")
    play("ball -100,420 moving")  # a restart on the page, its spot on the radar
    expect(page.locator("#restart-box")).to_be_visible()
    expect(page.locator(".legend")).to_contain_text("buttons and keeper blocks")
    expect(page.locator(".turn-line")).to_contain_text("contacts counted this turn")
    expect(page.get_by_role("group", name="Shots called: call a shot")).to_be_visible()
    expect(page.locator(".moves caption")).to_contain_text("Buttons moved")
    expect(page.locator('#controls button[data-added="30"]')).to_be_hidden()
    expect(page.locator('#controls button[data-action="start"]')).to_be_visible()
    violations = Axe().run(page).response["violations"]
    serious = [v["id"] for v in violations if v["impact"] in ("serious", "critical")]
    assert serious == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= viewport["width"]
    page.context.close()
