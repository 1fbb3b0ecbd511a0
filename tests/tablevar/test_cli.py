"""The command line: subcommands, exit codes and one-line errors."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tablevar import cli


def test_help_lists_every_subcommand(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: tablevar")
    for name in cli.COMMANDS:
        assert name in out


def test_version(capsys):
    assert cli.main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("tablevar ")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ([], "tablevar: error: choose a command"),
        (["no-such-command"], "tablevar: error: argument COMMAND: invalid choice"),
        (["--no-such-option"], "tablevar: error: unrecognized arguments"),
    ],
)
def test_usage_errors_exit_2(capsys, argv, message):
    assert cli.main(argv) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("exc", "status", "line"),
    [
        (ValueError("bad table\nprofile 'x'"), 2, "tablevar: error: bad table profile 'x'"),
        (
            FileNotFoundError(2, "No such file or directory", "v.mp4"),
            2,
            "tablevar: error: v.mp4: No such file or directory",
        ),
        (KeyboardInterrupt(), 130, "tablevar: error: interrupted"),
    ],
)
def test_errors_become_one_line(monkeypatch, capsys, exc, status, line):
    def fail(args):
        raise exc

    parser = cli.build_parser()
    parser.set_defaults(run=fail)
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    assert cli.main([]) == status
    err = capsys.readouterr().err
    assert err.startswith(line)
    assert err.count("\n") == 1
    assert "Traceback" not in err


def test_traceback_flag_shows_the_traceback(monkeypatch, capsys):
    def fail(args):
        raise ValueError("deep down")

    parser = cli.build_parser()
    parser.set_defaults(run=fail)
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    assert cli.main(["--traceback"]) == 2
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err
    assert "ValueError: deep down" in err


def test_python_dash_m_runs_the_same_cli():
    result = subprocess.run(
        [sys.executable, "-m", "tablevar", "--help"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0
    assert result.stdout.startswith("usage: tablevar")
