"""Screenshots of the live, review and calibration pages into docs/, from the demo recording.

Nothing on them is made up:

- the review page shows ``tablevar analyze``'s output for ``recordings/demo`` (in ``out/demo``,
  made once, as ``tablevar demo`` makes it);
- the live page is fed by the live runner playing the same recording as if it came from a
  camera (calibrated from its first second, evidence pictures cut from its frames), stopped
  once it has made ``--calls`` calls;
- the calibration page shows that live calibration and its overlay.

Run: ``make demo-recording`` once, then ``.venv/bin/python benchmarks/screenshots.py [--out
docs]``. Needs Debian's Chromium (``apt-get install chromium``). Serves the app with waitress
on a free loopback port. Prints what it pushed and where it wrote the pictures.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from hardware.sources import VideoFileSource
from tablevar.commands.review import ensure_analysis, linked_folder
from tablevar.live import LiveOptions, LiveRunner
from web.app import create_app, hub_of
from web.chromium import launch_chromium
from web.serving import make_server, stop, url_of

PIN = "2468"
RECORDING = Path("recordings/demo")
ANALYSIS = Path("out/demo")
LINE_KINDS = ("ball_out", "goal", "goal_disallowed", "close_call")
# The review page's video shows the frame it was asked for.
VIDEO_SETTLED = (
    "() => { const v = document.getElementById('video'); return v.readyState >= 2 && !v.seeking; }"
)


def feed_live(app, recording: Path, out: Path, calls: int, timeout_s: float = 600.0) -> None:
    """Run the live runner on ``recording`` (unpaced) until it has made ``calls`` calls."""
    hub = hub_of(app)
    hub.control("start")
    runner = LiveRunner(
        lambda: VideoFileSource(recording), hub, out, options=LiveOptions(pace_files=False)
    )
    runner.start()
    deadline = time.monotonic() + timeout_s
    try:
        while len(hub.calls) < calls and not runner.ended:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the live runner made no {calls} calls in {timeout_s:.0f} s")
            time.sleep(0.1)
        time.sleep(1.0)  # a second more of play on the radar
    finally:
        runner.stop()
    state = hub.snapshot()
    print(
        f"live: {runner.frames} frames, {state['calls_total']} calls, "
        f"clock {state['clock']['clock_s']:.1f} s, score {state['score']}"
    )


def review_index(folder: Path) -> int:
    """The review list's index of the first call decided on a line (else the first call)."""
    lines = (folder / "calls.jsonl").read_text(encoding="utf-8").splitlines()
    calls = sorted((json.loads(line) for line in lines), key=lambda c: c.get("frame", 0))
    if not calls:
        raise SystemExit(f"the analysis in {folder} made no calls: nothing to show yet")
    picks = [i for i, c in enumerate(calls) if c["kind"] in LINE_KINDS and c.get("line")]
    return picks[0] if picks else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs"))
    parser.add_argument("--calls", type=int, default=4, help="live calls before the picture")
    parser.add_argument("--recording", type=Path, default=RECORDING, help="recording folder")
    parser.add_argument("--analysis", type=Path, default=ANALYSIS, help="its analysis folder")
    parser.add_argument(
        "--review-only",
        action="store_true",
        help="only the review and report pages (no live run): playback, replay, drawn calls",
    )
    args = parser.parse_args()
    if not (args.recording / "meta.json").is_file():
        raise SystemExit(f"{args.recording} is missing: run `make demo-recording` first")
    folder = linked_folder(args.recording / "video.mp4", args.analysis)
    ensure_analysis(folder, source=args.recording, progress=False)
    index = review_index(folder)  # before the live run: no calls, no pictures worth taking
    if args.review_only:
        return shoot_review_only(folder, args.out)
    with tempfile.TemporaryDirectory() as tmp:
        live_out = Path(tmp) / "live"
        app = create_app(
            {
                "PIN": PIN,
                "RECORDINGS_DIR": folder.parent,
                "OUTPUT_DIR": live_out,
                "MATCH_LOG": Path(tmp) / "match.sqlite",
            }
        )
        feed_live(app, args.recording, live_out, args.calls)
        server = make_server(app, "127.0.0.1", 0, threads=8)
        url = url_of(server)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            shoot(url, args.out, folder.name, index)
        finally:
            stop(server, app)
            thread.join(5)
    return 0


def shoot(url: str, out: Path, name: str, index: int) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        browser = launch_chromium(p)
        for suffix, viewport in (
            ("", {"width": 1366, "height": 900}),
            ("-phone", {"width": 390, "height": 844}),
        ):
            context = browser.new_context(
                viewport=viewport, device_scale_factor=1 if not suffix else 2
            )
            page = context.new_page()
            page.goto(url)
            page.evaluate(f"sessionStorage.setItem('tablevar-pin', '{PIN}')")
            page.reload()
            page.wait_for_selector("#feed li img.evidence")
            page.wait_for_function("[...document.images].every(i => i.complete)")
            page.wait_for_selector("#radar circle.ball")
            page.screenshot(path=out / f"screenshot-live{suffix}.png", full_page=True)
            if suffix:
                context.close()
                continue
            page.goto(f"{url}review/{name}")
            page.locator(f'#review-calls li[data-index="{index}"] button.show-call').click()
            page.wait_for_function(VIDEO_SETTLED)
            page.evaluate("window.scrollTo(0, 0)")  # the sticky header at the top, not mid-page
            time.sleep(0.3)
            page.screenshot(path=out / "screenshot-review.png", full_page=True)
            page.goto(f"{url}calibration")
            page.wait_for_selector("#calib-report table")
            page.wait_for_function("document.getElementById('calib-overlay').complete")
            page.screenshot(path=out / "screenshot-calibration.png", full_page=True)
            context.close()
        browser.close()
    for path in sorted(out.glob("screenshot-*.png")):
        print(f"wrote {path}")


def _call_index(folder: Path, kinds: tuple[str, ...]) -> int | None:
    lines = (folder / "calls.jsonl").read_text(encoding="utf-8").splitlines()
    calls = sorted((json.loads(line) for line in lines), key=lambda c: c.get("frame", 0))
    return next((i for i, c in enumerate(calls) if c["kind"] in kinds), None)


def shoot_review_only(folder: Path, out: Path) -> int:
    """The review page at a line call, an offside and a disallowed goal with their decisions
    drawn, a call's replay zoomed on its spot, and the match report; desktop and phone."""
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(
            {"PIN": PIN, "RECORDINGS_DIR": folder.parent, "MATCH_LOG": Path(tmp) / "m.sqlite"}
        )
        server = make_server(app, "127.0.0.1", 0, threads=8)
        url = url_of(server)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            shoot_review(url, out, folder)
        finally:
            stop(server, app)
            thread.join(5)
    return 0


def shoot_review(url: str, out: Path, folder: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    shots = {
        "review": review_index(folder),
        "review-offside": _call_index(folder, ("offside",)),
        "review-shot": _call_index(folder, ("goal_disallowed",)) or _call_index(folder, ("goal",)),
    }
    with sync_playwright() as p:
        browser = launch_chromium(p)
        for suffix, viewport in (
            ("", {"width": 1366, "height": 900}),
            ("-phone", {"width": 390, "height": 844}),
        ):
            context = browser.new_context(viewport=viewport, device_scale_factor=1)
            page = context.new_page()
            page.goto(f"{url}review/{folder.name}")
            for name, index in shots.items():
                if index is None:
                    continue
                page.locator(f'#review-calls li[data-index="{index}"] button.show-call').click()
                page.wait_for_function(VIDEO_SETTLED)
                time.sleep(1.0)  # the overlays of the frame
                page.screenshot(path=out / f"screenshot-{name}{suffix}.png")
            page.locator(
                f'#review-calls li[data-index="{shots["review"]}"] button.replay-call'
            ).click()
            time.sleep(2.0)  # into the loop, zoomed on the call's spot
            page.screenshot(path=out / f"screenshot-review-replay{suffix}.png")
            page.goto(f"{url}review/{folder.name}/report")
            page.screenshot(path=out / f"screenshot-report{suffix}.png", full_page=True)
            context.close()
        browser.close()
    for path in sorted(out.glob("screenshot-re*.png")):
        print(f"wrote {path}")


if __name__ == "__main__":
    raise SystemExit(main())
