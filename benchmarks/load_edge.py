"""The API and the referee's controls while the server is crowded: many event-stream clients
and many idle (half-sent) connections, on the production server (waitress, as ``tablevar
serve``/``live`` run it) on 127.0.0.1 only.

A child process opens ``--streams`` event streams (reading them, and coming back after the
``retry`` the server names, as a browser's EventSource does) and ``--idle`` connections that
send half a request and then nothing. Meanwhile ``--requests`` calls of ``GET /api/state`` and
as many referee controls (``POST /api/match/added-time`` of +1 s, with the PIN) are timed one
after the other. Prints the median and worst time of each, the calls that failed or timed out
(must be 0) and whether the added time is exactly the sum of the controls (no control lost).
Exit status 1 when a call was lost.

Run: ``.venv/bin/python benchmarks/load_edge.py [--streams 200] [--idle 200] [--requests 200]``.
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing as mp
import selectors
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path

from web.app import create_app
from web.serving import DEFAULT_THREADS, make_server, run_in_thread, stop

PIN = "24681357"
HOST = "127.0.0.1"
TIMEOUT_S = 10.0


def _crowd(port: int, streams: int, idle: int, ready, stop_at: float) -> None:
    """The child process: open the crowd, keep the streams read, until ``stop_at``."""
    sel = selectors.DefaultSelector()
    retry_at: list[float] = []

    def open_stream() -> None:
        sock = socket.create_connection((HOST, port), timeout=TIMEOUT_S)
        sock.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        sock.setblocking(False)
        sel.register(sock, selectors.EVENT_READ)

    held = []
    for _ in range(idle):
        sock = socket.create_connection((HOST, port), timeout=TIMEOUT_S)
        sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: x\r\n")  # never finished
        held.append(sock)
    for _ in range(streams):
        open_stream()
    ready.put("ready")
    while time.monotonic() < stop_at:
        for key, _ in sel.select(timeout=0.2):
            sock = key.fileobj
            try:
                data = sock.recv(65536)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if not data:  # the server ended the stream: come back after its retry
                sel.unregister(sock)
                sock.close()
                retry_at.append(time.monotonic() + 5.0)
        now = time.monotonic()
        while retry_at and retry_at[0] <= now:
            retry_at.pop(0)
            try:
                open_stream()
            except OSError:
                retry_at.append(now + 5.0)
    for sock in held:
        sock.close()


def _timed(port: int, method: str, path: str, body: bytes | None = None) -> float | None:
    """Seconds the call took, or None when it failed or timed out."""
    headers = {"Content-Type": "application/json", "X-Tablevar-PIN": PIN} if body else {}
    start = time.perf_counter()
    conn = http.client.HTTPConnection(HOST, port, timeout=TIMEOUT_S)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        ok = response.status == 200
    except OSError:
        ok = False
    finally:
        conn.close()
    return time.perf_counter() - start if ok else None


def _report(name: str, times: list[float | None]) -> int:
    done = [t for t in times if t is not None]
    lost = len(times) - len(done)
    if done:
        print(
            f"{name}: {len(times)} calls, median {statistics.median(done) * 1e3:.1f} ms, "
            f"worst {max(done) * 1e3:.1f} ms, lost {lost}"
        )
    else:
        print(f"{name}: {len(times)} calls, all lost")
    return lost


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--idle", type=int, default=200)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="tablevar-load-") as tmp:
        app = create_app(
            {
                "PIN": PIN,
                "RECORDINGS_DIR": Path(tmp),
                "OUTPUT_DIR": Path(tmp),
                "PIN_FREE_TRIES": 10**9,
            }
        )
        server = make_server(app, HOST, 0, threads=args.threads)
        run_in_thread(server)
        port = server.effective_port
        print(
            f"waitress, {args.threads} threads, stream limit {app.config['SSE_MAX_STREAMS']}: "
            f"{args.streams} event streams, {args.idle} idle connections"
        )
        ready = mp.get_context("spawn").Queue()
        budget_s = 60.0 + args.requests * 2 * 0.5
        crowd = mp.get_context("spawn").Process(
            target=_crowd,
            args=(port, args.streams, args.idle, ready, time.monotonic() + budget_s),
        )
        crowd.start()
        try:
            ready.get(timeout=60)
            time.sleep(2.0)  # every stream past the limit has been told to come back later
            state, control = [], []
            started = _timed(port, "POST", "/api/match/start", b"{}") is not None
            for _ in range(args.requests):
                state.append(_timed(port, "GET", "/api/state"))
                control.append(_timed(port, "POST", "/api/match/added-time", b'{"seconds": 1}'))
            lost = _report("GET /api/state", state) + _report("POST /api/match/added-time", control)
            added = app.extensions["tablevar.hub"].snapshot()["added_time_s"]
            applied = sum(t is not None for t in control)
            print(f"added time {added:.0f} s for {applied} controls answered 200")
            lost += (added != applied) + (not started)
            crowd.terminate()
        finally:
            crowd.join(timeout=10)
            stop(server, app)
    print("no call lost" if lost == 0 else f"{lost} calls lost")
    return 0 if lost == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
