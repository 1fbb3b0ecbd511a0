"""The command line: subcommands, exit codes and one-line errors."""

from __future__ import annotations

import json
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


def test_export_writes_a_match_log_as_json_and_csv(tmp_path, capsys):
    from web.matchlog import MatchLog

    path = tmp_path / "match.sqlite"
    log = MatchLog(path)
    old = log.new_match()
    log.record(old, {"s": 0}, 3, 0.1, [("start", None, {})])
    new = log.new_match()
    call = {"frame": 9, "t_s": 0.3, "kind": "goal", "law": "FISTF 7.1", "team": "home"}
    log.record(new, {"s": 1}, 9, 0.3, [("call", 1, call), ("overrule", 1, {"reason": "hand"})])
    log.close()
    assert cli.main(["export", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["match"]["id"] == new
    assert [(e["kind"], e["call_id"]) for e in data["events"]] == [("call", 1), ("overrule", 1)]
    out = tmp_path / "old.csv"
    assert (
        cli.main(["export", str(path), "--match", str(old), "--format", "csv", "--out", str(out)])
        == 0
    )
    rows = out.read_text().splitlines()
    assert rows[0].startswith("event,kind,call_id,frame") and rows[1].split(",")[1] == "start"
    assert len(rows) == 2


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["export", "{tmp}/none.sqlite"], "no match log at"),
        (["export", "{tmp}/m.sqlite", "--match", "7"], "no match 7"),
    ],
)
def test_export_refuses_what_is_not_there_in_one_line(tmp_path, capsys, argv, message):
    from web.matchlog import MatchLog

    MatchLog(tmp_path / "m.sqlite").close()
    assert cli.main([a.replace("{tmp}", str(tmp_path)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tablevar: error: ") and message in err and err.count("\n") == 1
