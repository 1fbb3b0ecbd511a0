"""Playback speed of the review page's video at 1x in headless Chromium, on a real recording.

Counts the frames the page shows with ``requestVideoFrameCallback`` over ``--seconds`` of
steady play (from the 15th frame shown) and prints frames shown per second against the
recording's rate and media time against wall time (1.00 is real time).

Run: ``.venv/bin/python benchmarks/playback_rate.py [--analysis out/demo] [--seconds 5]``
(``tablevar demo`` makes ``out/demo``). Serves the app with waitress on a free loopback port.
"""

from __future__ import annotations

import argparse
import tempfile
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

from web.app import create_app
from web.chromium import launch_chromium
from web.serving import make_server, stop, url_of

MEASURE_JS = """(ms) => new Promise((done) => {
    const v = document.getElementById('video');
    let first = null, n = 0;
    const onFrame = (now, meta) => {
        n += 1;
        if (n === 15) first = meta;
        if (first && meta.expectedDisplayTime - first.expectedDisplayTime >= ms) {
            const wall_s = (meta.expectedDisplayTime - first.expectedDisplayTime) / 1000;
            done({fps: (meta.presentedFrames - first.presentedFrames) / wall_s,
                  speed: (meta.mediaTime - first.mediaTime) / wall_s,
                  dropped: v.getVideoPlaybackQuality().droppedVideoFrames});
        } else v.requestVideoFrameCallback(onFrame);
    };
    v.requestVideoFrameCallback(onFrame);
    document.getElementById('play').click();
})"""


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
                got = page.evaluate(MEASURE_JS, args.seconds * 1000)
                browser.close()
        finally:
            stop(server, app)
            thread.join(5)
    print(
        f"{args.analysis.name}: recorded at {fps:.2f} fps, shown at 1x {got['fps']:.2f} frames/s "
        f"({100 * (got['fps'] / fps - 1):+.1f} %), media time / wall time {got['speed']:.3f}, "
        f"{got['dropped']} frames dropped"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
