"""The console script's usage errors: one plain line on stderr and exit status 2."""

from __future__ import annotations

import sys

import pytest

from affidavit.flows import cli


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["run", "--bogus"], "error: No such option: --bogus (see 'affidavit run --help')"),
        (["nosuch"], "error: No such command 'nosuch'. (see 'affidavit --help')"),
        (["run", "--limit", "x"], "error: Invalid value for '--limit': "),
    ],
)
def test_usage_errors_are_one_plain_line(argv, line, monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["affidavit", *argv])
    with pytest.raises(SystemExit) as done:
        cli._main()
    assert done.value.code == 2
    out = capsys.readouterr()
    assert out.out == ""
    lines = out.err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(line)
    assert not any(ch in out.err for ch in "╭│╰")  # no boxed panel


def test_help_exits_zero_and_a_command_exit_code_is_kept(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(sys, "argv", ["affidavit", "--help"])
    with pytest.raises(SystemExit) as done:
        cli._main()
    assert done.value.code == 0
    assert "Usage" in capsys.readouterr().out
    # a command's own refusal (typer.Exit with its code) keeps that code
    monkeypatch.setenv("AFFIDAVIT_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(sys, "argv", ["affidavit", "verify", "x", "--mode", "nosuch"])
    with pytest.raises(SystemExit) as done:
        cli._main()
    assert done.value.code == 2
    assert "unknown mode 'nosuch'" in capsys.readouterr().err
