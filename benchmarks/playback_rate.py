"""Playback speed of the review page's video at 1x in headless Chromium, on a real recording.

Over one window of ``--seconds`` of steady play (from the 15th frame shown), from the video's
own frame metadata (``requestVideoFrameCallback``) and playback counters
(``getVideoPlaybackQuality``), prints against the recording's rate:

- media time over the frames' display times (1.000 is real time; below it while a loaded
  machine's decoder falls behind and the player waits);
- frames the player decoded for display per second of media time (``totalVideoFrames``): the
  recording's rate, however loaded the machine (the test asserts it);
- frames the browser painted a second (``presentedFrames``) and the frames it reports dropped:
  these depend on the CPU the browser's compositor gets, so the load average (1 min) before and
  after is printed beside them.

Run: ``.venv/bin/python benchmarks/playback_rate.py [--analysis out/demo] [--seconds 5]``
(``tablevar demo`` makes ``out/demo``). Serves the app with waitress on a free loopback port.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

from web.app import create_app
from web.chromium import launch_chromium
from web.playback import PLAYBACK_RATE_JS
from web.serving import make_server, stop, url_of


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--analysis", type=Path, default=Path("out/demo"))
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(
            {"RECORDINGS_DIR": args.analysis.parent, "MATCH_LOG": Path(tmp) / "m.sqlite"}
        )
        server = make_server(app, "127.0.0.1", 0, threads=8)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            with sync_playwright() as p:
                browser = launch_chromium(p)
                page = browser.new_page(viewport={"width": 1366, "height": 900})
                page.goto(f"{url_of(server)}review/{args.analysis.name}")
                page.wait_for_function("() => document.getElementById('video').readyState >= 3")
                info = page.evaluate(
                    "() => fetch(location.pathname.replace('/review/', '/api/recordings/'))"
                    ".then(r => r.json())"
                )
                fps = float(info["fps"])
                load_before = os.getloadavg()[0]
                got = page.evaluate(PLAYBACK_RATE_JS, args.seconds * 1000)
                load_after = os.getloadavg()[0]
                browser.close()
        finally:
            stop(server, app)
            thread.join(5)
    print(
        f"{args.analysis.name}: recorded at {fps:.2f} fps; at 1x over {args.seconds:g} s: "
        f"media time / display time {got['speed']:.3f}, decoded for display "
        f"{got['decoded_per_media_s']:.2f} frames per media second "
        f"({100 * (got['decoded_per_media_s'] / fps - 1):+.1f} %), "
        f"painted {got['shown_fps']:.2f} frames/s ({100 * (got['shown_fps'] / fps - 1):+.1f} %), "
        f"{got['dropped']} reported dropped; load average {load_before:.1f} -> {load_after:.1f} "
        f"on {os.cpu_count()} cores"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
