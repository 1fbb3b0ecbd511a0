"""The production server (waitress, as ``tablevar serve``/``live`` run it) under abuse on
loopback: idle and half-sent connections, more event streams than threads, huge bodies."""

from __future__ import annotations

import http.client
import socket
import time
from collections.abc import Iterator

import pytest

from web.app import create_app
from web.serving import make_server, run_in_thread, stop, stream_limit

PIN = "24681357"
THREADS = 8


@pytest.fixture
def server(config) -> Iterator[tuple[str, int]]:
    app = create_app({**config, "PIN": PIN, "SSE_HEARTBEAT_S": 1.0})
    srv = make_server(app, "127.0.0.1", 0, threads=THREADS)
    run_in_thread(srv)
    yield "127.0.0.1", srv.effective_port
    stop(srv, app)


def _request(addr, method: str, path: str, body: bytes | None = None, headers=None, timeout=5.0):
    conn = http.client.HTTPConnection(*addr, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def _open_stream(addr) -> socket.socket:
    sock = socket.create_connection(addr, timeout=5.0)
    sock.sendall(b"GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
    return sock


def test_stream_limit_leaves_threads_for_the_api():
    assert stream_limit(48) == 36 and stream_limit(8) == 4 and stream_limit(4) == 1


def test_half_sent_requests_do_not_block_other_clients(server):
    idle = []
    try:
        for _ in range(150):  # more than the old connection limit of 100
            sock = socket.create_connection(server, timeout=5.0)
            sock.sendall(b"GET /api/state HTTP/1.1\r\nHost: x\r\n")  # never finished
            idle.append(sock)
        started = time.monotonic()
        status, _ = _request(server, "GET", "/api/state", timeout=5.0)
        assert status == 200 and time.monotonic() - started < 2.0
    finally:
        for sock in idle:
            sock.close()


def test_more_streams_than_threads_leave_the_api_and_controls_answering(server):
    streams = []
    try:
        for _ in range(3 * THREADS):
            streams.append(_open_stream(server))
        time.sleep(0.5)
        for _ in range(5):
            started = time.monotonic()
            assert _request(server, "GET", "/api/state")[0] == 200
            status, body = _request(
                server,
                "POST",
                "/api/match/added-time",
                b'{"seconds": 1}',
                {"Content-Type": "application/json", "X-Tablevar-PIN": PIN},
            )
            assert status == 200, body
            assert time.monotonic() - started < 2.0
        # Streams past the limit were told to come back later and ended.
        told = 0
        for sock in streams:
            sock.settimeout(0.2)
            try:
                data = sock.recv(65536)
            except TimeoutError:
                continue
            told += b"retry: 5000" in data
        assert told >= 3 * THREADS - stream_limit(THREADS)
    finally:
        for sock in streams:
            sock.close()


def test_a_huge_body_is_refused_before_it_is_read(server):
    sock = socket.create_connection(server, timeout=5.0)
    try:
        sock.sendall(
            b"POST /api/recordings/match1/ask HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/json\r\nContent-Length: 900000000\r\n\r\n{"
        )
        answer = sock.recv(4096)
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 413")


def test_a_chunked_body_over_the_limit_is_refused(server):
    sock = socket.create_connection(server, timeout=5.0)
    chunk = b"x" * 65536
    try:
        sock.sendall(
            b"POST /api/recordings/match1/ask HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        answer = b""
        for _ in range(32):  # 2 MB at most, then it must have answered
            try:
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except OSError:
                break
        sock.settimeout(5.0)
        answer = sock.recv(4096)
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 413")


def test_streams_come_back_once_others_leave(server):
    streams = [_open_stream(server) for _ in range(stream_limit(THREADS))]
    time.sleep(0.3)
    for sock in streams:
        sock.close()
    deadline = time.monotonic() + 5.0  # heartbeats (1 s here) notice the closed sockets
    while time.monotonic() < deadline:
        sock = _open_stream(server)
        sock.settimeout(2.0)
        data = sock.recv(65536)
        sock.close()
        if b"event: state" in data:
            return
        time.sleep(0.3)
    pytest.fail("no stream was served again after the others left")
