"""Serving the app with waitress, a production WSGI server (never Flask's debug server).

Every open live page holds one server thread for its event stream, so ``threads`` bounds how
many pages can watch at once (plus a few for frames and API calls).
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from flask import Flask
from waitress import wasyncore
from waitress.server import BaseWSGIServer, create_server

from web.app import hub_of, shutdown

DEFAULT_THREADS = 48


def make_server(
    app: Flask, host: str = "127.0.0.1", port: int = 8000, threads: int = DEFAULT_THREADS
) -> BaseWSGIServer:
    """A waitress server bound to ``host:port`` (port 0 picks a free one), not yet running."""
    return create_server(
        app,
        host=host,
        port=port,
        threads=threads,
        ident="tablevar",
        # Heartbeats keep event streams busy, so the idle-channel timeout can stay short.
        channel_timeout=60,
        connection_limit=max(100, 2 * threads),
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
