"""Debian's Chromium, headless, as the page tests, the screenshots and the load script open it.

tablevar serves its pages to any browser; this only fixes how *we* drive one. The flags keep a
headless Chromium off the network (no background services, component updates or QUIC), so it
runs on a machine that reaches nothing but the page under test, and ``--no-sandbox`` lets it
run as root in CI. The caller passes its Playwright object, so tablevar does not depend on it.
"""

from __future__ import annotations

from typing import Any

CHROMIUM_PATH = "/usr/bin/chromium"
CHROMIUM_ARGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def launch_chromium(playwright: Any) -> Any:
    """Launch headless Chromium through a started ``sync_playwright()`` object."""
    return playwright.chromium.launch(executable_path=CHROMIUM_PATH, args=list(CHROMIUM_ARGS))
