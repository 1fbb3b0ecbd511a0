"""Screenshots of the three pages into docs/, from a rendered demo match.

Run: ``.venv/bin/python benchmarks/screenshots.py [--out docs]``. Needs Debian's Chromium
(``apt-get install chromium``). Serves the app with waitress on a free loopback port.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).parent))
import demo_analysis

from web.app import create_app, hub_of
from web.serving import make_server, stop, url_of

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PIN = "2468"


def feed_live_match(hub, folder: Path) -> None:
    """Push a plausible match into the hub: calls with evidence, score, clock, one frame."""
    calls = demo_analysis.demo_calls()
    out_call = {
        **calls[0],
        "kind": "ball_out",
        "law": "FISTF 9",
        "line": "touchline",
        "fully_crossed": True,
        "margin_mm": 3.1,
        "uncertainty_mm": 0.5,
        "team": "away",
        "restart": "throw_in",
        "frame": 1204,
        "t_s": 40.13,
    }
    hub.push_call(out_call)
    hub.push_call({**calls[0], "frame": 5510, "t_s": 183.7})
    goal = hub.push_call({**calls[1], "frame": 9342, "t_s": 311.4})
    hub.push_score(1, 0)
    hub.control("start")
    hub.control("added_time", seconds=30)
    hub.push_clock(312.0, 1, "running")
    hub.push_frame(demo_analysis.tracks_record(40))
    assert goal["evidence_rel"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = demo_analysis.write_demo(root / "recordings" / "demo-match")
        app = create_app(
            {
                "PIN": PIN,
                "RECORDINGS_DIR": root / "recordings",
                "OUTPUT_DIR": folder,
                "MATCH_LOG": root / "match.sqlite",
            }
        )
        feed_live_match(hub_of(app), folder)
        server = make_server(app, "127.0.0.1", 0, threads=8)
        url = url_of(server)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            shoot(url, args.out)
        finally:
            stop(server, app)
            thread.join(5)
    return 0


def shoot(url: str, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        for name, viewport in (
            ("", {"width": 1366, "height": 900}),
            ("-phone", {"width": 390, "height": 844}),
        ):
            context = browser.new_context(
                viewport=viewport, device_scale_factor=1 if not name else 2
            )
            page = context.new_page()
            page.goto(url)
            page.evaluate(f"sessionStorage.setItem('tablevar-pin', '{PIN}')")
            page.reload()
            page.wait_for_selector("#feed li img.evidence")
            page.wait_for_function("[...document.images].every(i => i.complete)")
            page.wait_for_selector("#radar circle.ball")
            page.screenshot(path=out / f"screenshot-live{name}.png", full_page=True)
            if name:
                context.close()
                continue
            page.goto(f"{url}review/demo-match")
            page.locator('#review-calls li[data-index="1"]').click()
            page.wait_for_selector("#overlay line.margin", state="attached")
            page.select_option("#ask-line", "goal_line")
            page.click("#ask-form button")
            page.wait_for_selector("#ask-answer:not([hidden])")
            page.wait_for_function("document.getElementById('frame').complete")
            time.sleep(0.2)
            page.screenshot(path=out / "screenshot-review.png", full_page=True)
            page.goto(f"{url}calibration")
            page.wait_for_selector("#calib-report table")
            page.wait_for_function("document.getElementById('calib-overlay').complete")
            page.screenshot(path=out / "screenshot-calibration.png", full_page=True)
            context.close()
        browser.close()
    for path in sorted(out.glob("screenshot-*.png")):
        print(f"wrote {path}")


if __name__ == "__main__":
    raise SystemExit(main())
