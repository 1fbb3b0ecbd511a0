"""Serving the app with waitress, a production WSGI server (never Flask's debug server).

Every open live page holds one server thread for its event stream. So that pages never hold
them all, at most ``stream_limit(threads)`` streams are open at once (a page past it is told
to come back in a few seconds) and the rest of the threads answer the API and the referee's
controls. Waitress reads requests on its own loop, not in those threads: a connection that
sends nothing, or half a request, holds no thread; up to ``connection_limit`` of them are kept
for at most ``IDLE_TIMEOUT_S``. Request bodies over the app's ``MAX_CONTENT_LENGTH`` are
refused before they are read.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from flask import Flask
from waitress import wasyncore
from waitress.server import BaseWSGIServer, create_server

from web.app import hub_of, shutdown

DEFAULT_THREADS = 48
IDLE_TIMEOUT_S = 20  # a connection idle (or half-sent) this long is closed
CONNECTION_LIMIT = 1000
MAX_HEADER_BYTES = 32 * 1024


def stream_limit(threads: int) -> int:
    """Event streams open at once with ``threads`` server threads: a quarter (at least 4) of
    the threads stay free for the API and the controls."""
    return max(1, threads - max(4, threads // 4))


def connection_limit() -> int:
    """Connections kept open at once: ``CONNECTION_LIMIT``, fewer when the process may not open
    that many files (its soft limit is raised to the hard one first)."""
    try:
        import resource
    except ImportError:  # not on POSIX
        return CONNECTION_LIMIT
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = CONNECTION_LIMIT + 128  # the videos, the match log, the pipeline's files
    if soft != resource.RLIM_INFINITY and soft < want:
        new = want if hard == resource.RLIM_INFINITY else min(want, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (new, hard))
            soft = new
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY:
        return CONNECTION_LIMIT
    return max(100, min(CONNECTION_LIMIT, soft - 128))


def make_server(
    app: Flask, host: str = "127.0.0.1", port: int = 8000, threads: int = DEFAULT_THREADS
) -> BaseWSGIServer:
    """A waitress server bound to ``host:port`` (port 0 picks a free one), not yet running.

    Sets the app's ``SSE_MAX_STREAMS`` to ``stream_limit(threads)`` unless it has one.
    """
    if app.config.get("SSE_MAX_STREAMS") is None:
        app.config["SSE_MAX_STREAMS"] = stream_limit(threads)
    return create_server(
        app,
        host=host,
        port=port,
        threads=threads,
        ident="tablevar",
        # An event stream is a request in progress, never idle: the timeout closes only
        # connections that send nothing (or half a request), so it can be short.
        channel_timeout=IDLE_TIMEOUT_S,
        cleanup_interval=max(1, IDLE_TIMEOUT_S // 4),
        connection_limit=connection_limit(),
        max_request_body_size=int(app.config["MAX_CONTENT_LENGTH"]),
        max_request_header_size=MAX_HEADER_BYTES,
    )


def url_of(server: BaseWSGIServer) -> str:
    host, port = server.effective_host, server.effective_port
    host = f"[{host}]" if ":" in str(host) else host
    return f"http://{host}:{port}/"


def run_in_thread(server: BaseWSGIServer) -> threading.Thread:
    """Run ``server`` in a daemon thread (tests, benchmarks); end it with ``stop``.

    ``stop`` closes the sockets under the running loop, which may then fail on them: that is
    how the loop ends, not an error.
    """

    def run() -> None:
        try:
            server.run()
        except OSError:
            pass

    thread = threading.Thread(target=run, name="tablevar-server", daemon=True)
    thread.start()
    return thread


def serve(
    app: Flask,
    host: str = "127.0.0.1",
    port: int = 8000,
    threads: int = DEFAULT_THREADS,
    *,
    announce: Callable[[str], None] | None = None,
    before_stop: Callable[[], None] | None = None,
) -> None:
    """Serve ``app`` until interrupted, then end the event streams and close the match log.

    ``announce(url)`` is called once the socket is bound (so a port of 0 shows the real one);
    ``before_stop()`` when serving ends, before anything closes (a live pipeline stops there,
    so it never pushes into a closed match log).
    """
    server = make_server(app, host, port, threads)
    if announce is not None:
        announce(url_of(server))
    try:
        server.run()
    finally:
        try:
            if before_stop is not None:
                before_stop()
        finally:
            stop(server, app)


def stop(server: BaseWSGIServer, app: Flask, timeout_s: float = 5.0) -> None:
    """Stop serving in order: end the event streams, let the server threads finish, close
    the sockets, then the videos and the match log (which a last request may still use)."""
    hub_of(app).close()
    server.task_dispatcher.shutdown(timeout=timeout_s)
    server.close()
    wasyncore.close_all(server._map)
    shutdown(app)
