"""``tablevar serve``: the user's mistakes are one-line errors with exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablevar.cli import main


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--recordings", "{tmp}/missing"], "does not exist"),
        (["--recordings", "{tmp}", "--pin", "12ab"], "--pin must be 4 to 12 digits"),
        (["--recordings", "{tmp}", "--port", "70000"], "--port must be within"),
        (["--recordings", "{tmp}", "--threads", "1"], "--threads must be at least 4"),
        (
            ["--recordings", "{tmp}", "--host", "0.0.0.0", "--pin", "246813"],
            "--pin must have at least 8 digits when serving beyond this machine",
        ),
    ],
)
def test_serve_refuses_bad_options_in_one_line(tmp_path: Path, capsys, extra, message):
    argv = ["serve", *(a.replace("{tmp}", str(tmp_path)) for a in extra)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablevar: error: ") and message in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("host", "digits"), [("127.0.0.1", 6), ("localhost", 6), ("::1", 6), ("0.0.0.0", 8)]
)
def test_a_server_reachable_from_the_network_gets_a_longer_pin(monkeypatch, host, digits):
    """Phones on the venue's network can guess: beyond loopback the PIN has 8 digits."""
    import argparse

    from tablevar.commands import serve as serve_command
    from web.app import create_app

    seen = {}
    monkeypatch.setattr(
        serve_command, "serve", lambda app, *a, **k: seen.update(pin=app.config["PIN"])
    )
    app = create_app({"TESTING": True, "MATCH_LOG": ":memory:"})
    args = argparse.Namespace(host=host, port=0, pin=None, threads=8)
    assert serve_command.start_server(app, args) == 0
    assert seen["pin"].isdigit() and len(seen["pin"]) == digits
