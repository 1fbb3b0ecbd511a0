"""Load on the live page's event stream: many SSE clients while the pipeline pushes at 60 fps.

Serves the app with waitress on 127.0.0.1 (loopback only), connects ``--clients`` event-stream
clients from a separate process (so their parsing does not compete with the pipeline for the
GIL), then pushes frame records, clock snapshots and calls into the hub for ``--seconds``.

Prints:
- calls lost: calls pushed that some client never saw (must be 0: a client that falls behind
  is closed and resyncs from a full state, and its calls are counted from that state);
- frames delivered per client (frames coalesce by design: a slow client gets the newest);
- the paced push rate achieved, and the unpaced push rate with the clients connected relative
  to none (the cost the clients put on the pipeline);
- the live page's load time (HTML, CSS, JS, state and pitch over HTTP; and in Chromium until
  the event stream is live and the radar drew the ball, when /usr/bin/chromium exists).

Run: ``.venv/bin/python benchmarks/load_sse.py [--clients 50] [--seconds 10]``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing as mp
import shutil
import tempfile
import threading
import time
from pathlib import Path

from web.app import create_app, hub_of
from web.serving import make_server, stop

HOST = "127.0.0.1"
CALL = {
    "t_s": 0.0,
    "kind": "close_call",
    "law": "FISTF 9",
    "line": "touchline",
    "fully_crossed": False,
    "margin_mm": -0.4,
    "uncertainty_mm": 0.5,
    "team": "home",
    "restart": None,
    "position": {"x_mm": 10.0, "y_mm": 372.0},
    "figure": None,
    "evidence": None,
}


def tracks_record(i: int) -> dict:
    """A ``tracks.jsonl`` record of the size the pipeline pushes: a rolling ball, 22 figures."""
    figures = [
        {
            "id": k + 1,
            "team": "home" if k < 11 else "away",
            "x_mm": round((-1 if k < 11 else 1) * (60.0 + 50.0 * (k % 11)), 1),
            "y_mm": round(-300.0 + 55.0 * (k % 11), 1),
        }
        for k in range(22)
    ]
    ball = {"x_mm": round(-400.0 + 9.0 * i, 2), "y_mm": round(40.0 + 1.5 * i, 2), "moving": i < 72}
    return {"frame": i, "t_s": round(i / 30.0, 4), "ball": ball, "figures": figures}


# ---------------------------------------------------------------------- clients (subprocess)
def _client(port: int, done, ready, out: dict, key: int) -> None:
    """One event-stream client: counts frames, collects call ids, reconnects when closed."""
    calls: set[int] = set()
    frames = reconnects = 0
    first = True
    while not done.is_set():
        conn = http.client.HTTPConnection(HOST, port, timeout=2.0)
        try:
            conn.request("GET", "/events")
            resp = conn.getresponse()
            buf = b""
            if first:
                ready.release()
                first = False
            while not done.is_set():
                try:
                    chunk = resp.read1(65536)
                except TimeoutError:
                    continue
                if not chunk:
                    break
                buf += chunk
                *blocks, buf = buf.split(b"\n\n")
                for block in blocks:
                    if block.startswith(b"event: frame"):
                        frames += 1
                    elif block.startswith(b"event: call"):
                        calls.add(json.loads(block.split(b"data: ", 1)[1])["id"])
                    elif block.startswith(b"event: state"):
                        state = json.loads(block.split(b"data: ", 1)[1])
                        calls.update(c["id"] for c in state["calls"])
        except (OSError, http.client.HTTPException):
            time.sleep(0.05)
        finally:
            conn.close()
        reconnects += 1
    out[key] = {"calls": sorted(calls), "frames": frames, "reconnects": reconnects - 1}


def _clients_process(port: int, n: int, done, ready, results) -> None:
    out: dict[int, dict] = {}
    threads = [
        threading.Thread(target=_client, args=(port, done, ready, out, i), daemon=True)
        for i in range(n)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30.0)
    results.put(out)


# ---------------------------------------------------------------------- pipeline side
def push_burst(hub, frames: int) -> float:
    """Push ``frames`` records with their clock snapshots unpaced; return pushes per second."""
    t0 = time.perf_counter()
    for i in range(frames):
        hub.push_frame(tracks_record(i % 90))
        hub.push_clock(i / 60.0, 1, "running")
    return frames / (time.perf_counter() - t0)


def push_paced(hub, seconds: float, fps: float, call_every: int) -> tuple[float, list[int], float]:
    """Push at ``fps`` for ``seconds``; a call every ``call_every`` frames.

    Returns the achieved frame rate, the pushed call ids, and the worst push time in ms.
    """
    period = 1.0 / fps
    frames = int(seconds * fps)
    call_ids = []
    worst = 0.0
    t0 = time.perf_counter()
    next_t = t0
    for i in range(frames):
        s = time.perf_counter()
        hub.push_frame(tracks_record(i % 90))
        hub.push_clock(i / fps, 1, "running")
        if i % call_every == call_every - 1:
            call_ids.append(hub.push_call({**CALL, "frame": i, "t_s": i / fps})["id"])
        worst = max(worst, time.perf_counter() - s)
        next_t += period
        time.sleep(max(0.0, next_t - time.perf_counter()))
    return frames / (time.perf_counter() - t0), call_ids, worst * 1000.0


# ---------------------------------------------------------------------- page load
def http_page_load_ms(port: int) -> float:
    """Fetch everything the live page needs on first load, over one keep-alive connection."""
    conn = http.client.HTTPConnection(HOST, port, timeout=10)
    t0 = time.perf_counter()
    for path in (
        "/",
        "/static/style.css",
        "/static/tablevar.js",
        "/static/live.js",
        "/api/state",
        "/api/pitch",
    ):
        conn.request("GET", path)
        resp = conn.getresponse()
        resp.read()
        assert resp.status == 200, (path, resp.status)
    conn.close()
    return (time.perf_counter() - t0) * 1000.0


def browser_page_load_ms(port: int) -> float | None:
    """Chromium: navigation until the stream is live and the radar shows the ball."""
    if not shutil.which("chromium") and not Path("/usr/bin/chromium").exists():
        return None
    from playwright.sync_api import sync_playwright

    args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
    ]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=args)
        page = browser.new_page()
        t0 = time.perf_counter()
        page.goto(f"http://{HOST}:{port}/")
        page.wait_for_selector("#conn.live", timeout=15_000)
        page.wait_for_selector("#radar circle.ball", state="attached", timeout=15_000)
        elapsed = (time.perf_counter() - t0) * 1000.0
        browser.close()
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--fps", type=float, default=60.0)
    parser.add_argument("--call-every", type=int, default=15, help="frames between calls")
    parser.add_argument("--burst", type=int, default=3000, help="frames in each unpaced burst")
    args = parser.parse_args()
    if not (1 <= args.clients <= 500 and 0 < args.seconds <= 120):
        parser.error("--clients must be 1..500 and --seconds 0..120")

    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(
            {
                "MATCH_LOG": Path(tmp) / "match.sqlite",
                "SSE_HEARTBEAT_S": 1.0,
                "OUTPUT_DIR": Path(tmp),
            }
        )
        hub = hub_of(app)
        server = make_server(app, HOST, 0, threads=args.clients + 16)
        port = server.effective_port
        serving = threading.Thread(target=server.run, daemon=True)
        serving.start()
        try:
            push_burst(hub, 300)  # warm up
            alone = push_burst(hub, args.burst)

            ctx = mp.get_context("spawn")
            done, ready, results = ctx.Event(), ctx.Semaphore(0), ctx.Queue()
            proc = ctx.Process(
                target=_clients_process, args=(port, args.clients, done, ready, results)
            )
            proc.start()
            for _ in range(args.clients):
                if not ready.acquire(timeout=30):
                    raise SystemExit("clients did not connect within 30 s")
            deadline = time.monotonic() + 10
            while hub.subscriber_count < args.clients and time.monotonic() < deadline:
                time.sleep(0.05)
            connected = hub.subscriber_count

            loaded = {}

            def load_page() -> None:
                loaded["http_ms"] = http_page_load_ms(port)
                loaded["browser_ms"] = browser_page_load_ms(port)

            loader = threading.Thread(target=load_page)
            loader.start()
            fps, call_ids, worst_ms = push_paced(hub, args.seconds, args.fps, args.call_every)
            loader.join(60)
            with_clients = push_burst(hub, args.burst)
            time.sleep(1.5)  # let the last events drain
            done.set()
            out = results.get(timeout=60)
            proc.join(30)
        finally:
            stop(server, app)

    pushed = set(call_ids)
    lost = sum(len(pushed - set(r["calls"])) for r in out.values())
    frames = [r["frames"] for r in out.values()]
    reconnects = sum(r["reconnects"] for r in out.values())
    print(f"clients connected              {connected} of {args.clients} (loopback)")
    print(
        f"paced push                     {fps:.1f} fps achieved of {args.fps:.0f} "
        f"for {args.seconds:.0f} s, worst push {worst_ms:.2f} ms"
    )
    print(f"calls pushed / lost            {len(pushed)} / {lost} (over all clients)")
    total = int(args.seconds * args.fps) + 2 * args.burst + 300
    median = sorted(frames)[len(frames) // 2]
    print(
        f"frames per client              min {min(frames)}, median {median}, "
        f"pushed {total} (newest-only coalescing)"
    )
    print(f"client resyncs                 {reconnects}")
    print(
        f"unpaced push rate              {alone:.0f}/s alone, {with_clients:.0f}/s with clients, "
        f"ratio {with_clients / alone:.2f}"
    )
    print(f"live page load (HTTP)          {loaded.get('http_ms', float('nan')):.1f} ms")
    if loaded.get("browser_ms") is not None:
        ms = loaded["browser_ms"]
        print(f"live page load (Chromium)      {ms:.0f} ms to live stream + radar")
    return 1 if lost else 0


if __name__ == "__main__":
    raise SystemExit(main())
