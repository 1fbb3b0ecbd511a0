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
    ],
)
def test_serve_refuses_bad_options_in_one_line(tmp_path: Path, capsys, extra, message):
    argv = ["serve", *(a.replace("{tmp}", str(tmp_path)) for a in extra)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablevar: error: ") and message in err and "Traceback" not in err
