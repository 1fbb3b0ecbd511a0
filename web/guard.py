"""The web edge's defences (DESIGN.md section 8): the page is opened from phones on the venue's
network, so anything on that network may talk to it.

- ``PinThrottle``: wrong PINs per client, each further try after a few free ones waiting twice
  as long as the last (1 s, 2 s, 4 s ... up to ``PIN_MAX_DELAY_S``), every wrong PIN logged.
- ``same_origin``: a request that changes something is refused when a browser says it comes
  from another page's origin (a page elsewhere on the network cannot post blind).
- ``parse_json``: a request body as one JSON object, with its size bounded by Flask's
  ``MAX_CONTENT_LENGTH`` and its nesting by ``MAX_JSON_DEPTH`` (no ``NaN``/``Infinity``).
- ``security_headers``: CSP, no framing, no sniffing, no referrer.
- ``send_evidence`` / ``send_inside``: pictures and replay clips only, only from inside their
  folder once links are resolved.
- ``public_message``: error messages without the server's absolute folders.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from flask import Flask, Response, abort, request, send_file

# Evidence pictures and replay clips: types a browser shows, never runs.
MEDIA_TYPES = {
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".png": "image/png",
    ".mp4": "video/mp4",
}
EVIDENCE_DIR = "evidence"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

# Scripts only from the app itself; inline styles stay (the pages set a few style attributes).
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Resource-Policy": "same-origin",
}


class PinThrottle:
    """Wrong PINs per client address: ``free_tries`` at once, then a growing wait.

    After the ``n``-th wrong PIN in a row (``n > free_tries``) the client waits
    ``delay_s * 2 ** (n - free_tries - 1)`` seconds, at most ``max_delay_s``, before its next
    PIN is even looked at; a right PIN clears its count. At the defaults (5 free, then 1 s
    doubling to 5 minutes) ten thousand guesses take weeks, a million centuries.

    Args:
        free_tries: wrong PINs a client may send without waiting (typos).
        delay_s: the first wait.
        max_delay_s: the longest wait.
        clock: seconds, monotonic (a test passes its own).
        max_clients: addresses remembered; the oldest are forgotten past it.
    """

    def __init__(
        self,
        free_tries: int = 5,
        delay_s: float = 1.0,
        max_delay_s: float = 300.0,
        *,
        clock: Callable[[], float] = time.monotonic,
        max_clients: int = 4096,
    ) -> None:
        self.free_tries, self.delay_s, self.max_delay_s = free_tries, delay_s, max_delay_s
        self._clock = clock
        self._max_clients = max_clients
        self._failures: dict[str, tuple[int, float]] = {}  # client -> (wrong in a row, wait until)
        self._lock = threading.Lock()

    def wait_s(self, client: str) -> float:
        """Seconds ``client`` must still wait before its next PIN is checked (0: none)."""
        with self._lock:
            _, until = self._failures.get(client, (0, 0.0))
        return max(0.0, until - self._clock())

    def failed(self, client: str) -> tuple[int, float]:
        """Count a wrong PIN from ``client``; returns (wrong PINs in a row, wait in seconds)."""
        with self._lock:
            count = self._failures.pop(client, (0, 0.0))[0] + 1
            over = count - self.free_tries
            wait = 0.0 if over <= 0 else min(self.max_delay_s, self.delay_s * 2 ** (over - 1))
            self._failures[client] = (count, self._clock() + wait)
            while len(self._failures) > self._max_clients:
                self._failures.pop(next(iter(self._failures)))
        return count, wait

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._failures.pop(client, None)


def same_origin() -> None:
    """Refuse (403) a state-changing request that a browser marks as sent by another origin.

    Browsers send ``Origin`` with every POST (``Referer`` as a fallback); a client that sends
    neither is no browser page (curl, a script) and still needs the PIN.
    """
    if request.method in SAFE_METHODS:
        return
    origin = request.headers.get("Origin")
    if origin is None:
        referer = request.headers.get("Referer")
        if referer is None:
            return
        origin = "/".join(referer.split("/")[:3])
    own = f"{request.scheme}://{request.host}"
    if origin.lower() != own.lower():
        abort(403, description=f"requests that change something must come from this page ({own})")


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def json_depth_over(value: Any, limit: int) -> bool:
    """Whether ``value`` nests arrays and objects deeper than ``limit``."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            items: Iterable[Any] = item.values()
        elif isinstance(item, list):
            items = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in items)
    return False


def parse_json(data: bytes, max_depth: int) -> Any:
    """A request body's JSON value; ``ValueError`` naming what is wrong."""
    try:
        value = json.loads(data, parse_constant=_refuse_constant)
    except RecursionError:
        raise ValueError(f"the JSON nests deeper than {max_depth} levels") from None
    except UnicodeDecodeError:
        raise ValueError("the body is not UTF-8 text") from None
    except ValueError as exc:
        raise ValueError(f"the body is not JSON ({exc})") from None
    if json_depth_over(value, max_depth):
        raise ValueError(f"the JSON nests deeper than {max_depth} levels")
    return value


def security_headers(response: Response) -> Response:
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def send_inside(folder: Path, relpath: str, mimetype: str, *, max_age: int = 3600) -> Response:
    """Send ``folder/relpath`` when, links resolved, it is a file inside ``folder``; else 404."""
    parts = PurePosixPath(relpath).parts
    if not parts or ".." in parts or relpath.startswith("/") or "\\" in relpath:
        abort(404, description=f"no file {relpath!r} here")
    root = folder.resolve()
    path = (folder / relpath).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        abort(404, description=f"no file {relpath!r} here")
    return send_file(path, mimetype=mimetype, max_age=max_age)


def send_evidence(folder: Path, relpath: str) -> Response:
    """An evidence picture or replay clip, ``evidence/<name>`` relative to ``folder``: only
    pictures and MP4 clips, only from the evidence folder (links resolved)."""
    parts = PurePosixPath(relpath).parts
    mimetype = MEDIA_TYPES.get(PurePosixPath(relpath).suffix.lower())
    if len(parts) < 2 or parts[0] != EVIDENCE_DIR or mimetype is None:
        abort(404, description=f"no evidence {relpath!r}: evidence is a picture in evidence/")
    return send_inside(folder / EVIDENCE_DIR, "/".join(parts[1:]), mimetype)


def public_message(app: Flask, message: str) -> str:
    """``message`` with the configured folders shown by their names, not absolute paths."""
    for key in ("RECORDINGS_DIR", "OUTPUT_DIR"):
        folder = app.config.get(key)
        if not folder:
            continue
        folder = Path(folder)
        name = folder.resolve().name
        for form in sorted({str(folder.resolve()), str(folder.absolute())}, key=len)[::-1]:
            message = message.replace(form, name)
    return message
