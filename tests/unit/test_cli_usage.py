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
        # counts past DuckDB's LIMIT and islice's range were a ConversionException or an
        # islice error (exit 1), the latter after Prefect's start
        (["verdicts", "--limit", "9223372036854775808"],
         "error: Invalid value for '--limit': Input should be less than or equal to 2147483647"),
        (["recall", "Lumen", "--limit", "99999999999999999999999"],
         "error: Invalid value for '--limit': "),
        (["audit", "--sessions", "s.jsonl", "--batch-size", "99999999999999999999999999"],
         "error: Invalid value for '--batch-size': "),
        (["run", "--claims", "c.jsonl", "--show", "99999999999999999999"],
         "error: Invalid value for '--show': "),
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


def _printed_run(monkeypatch, counts: dict[str, int]) -> str:
    """What ``_print_run`` prints for a run of no verdict with these counts."""
    import io
    from types import SimpleNamespace

    from rich.console import Console

    out = io.StringIO()
    monkeypatch.setattr(cli, "console", Console(file=out, width=200))
    monkeypatch.setattr(cli, "err", Console(file=io.StringIO(), width=200))
    result = SimpleNamespace(
        run_id="r", status=None, message="1 claim(s) decided", capabilities={}, degraded=[],
        verdicts=[], report_path=None, messages=[], counts=counts)
    cli._print_run(result, as_json=False, title="verdicts")
    return out.getvalue()


def test_a_run_prints_its_repairs_as_backfill_does(monkeypatch):
    text = _printed_run(monkeypatch, {"repaired:control_chars_removed": 2, "skip:empty_text": 1})
    assert "repaired or warned: control_chars_removed 2" in text
    assert "skipped/rejected: skip:empty_text 1" in text


def test_source_never_shows_the_password_of_a_url(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    monkeypatch.delenv("AFFIDAVIT_ALLOW_PRIVATE", raising=False)
    res = CliRunner().invoke(cli.app, ["source", "http://bob:hunter2@127.0.0.1:9/x.html"])
    assert res.exit_code == 1
    assert "hunter2" not in res.output
    assert "bob" not in res.output
    assert "cannot fetch http://127.0.0.1:9/x.html" in res.output


@pytest.mark.parametrize(("url", "said"), [
    ("not a url", "--url 'not a url' is not an http:// or https:// address"),
    ("ftp://news.example/a", "--url 'ftp://news.example/a' is not an http:// or https://"),
    ("http://", "--url 'http://' is not an http:// or https:// address with a host"),
    ("http://[::1", "--url 'http://[::1' is not an http:// or https:// address"),
])
def test_source_url_of_a_saved_page_must_be_a_web_address(url, said, tmp_path):
    from typer.testing import CliRunner

    page = tmp_path / "page.html"
    page.write_text("<html><body><p>Hello</p></body></html>", encoding="utf-8")
    res = CliRunner().invoke(cli.app, ["source", str(page), "--url", url])
    assert res.exit_code == 2, res.output
    [line] = res.output.strip().splitlines()
    assert line.startswith(f"error: {said}"), line


def test_source_never_shows_the_password_of_the_address_a_page_was_saved_from(tmp_path):
    from typer.testing import CliRunner

    page = tmp_path / "page.html"
    page.write_text('<html><head><link rel="canonical" href="https://eve:pw2@b.example/x">'
                    "</head><body><p>Hello</p></body></html>", encoding="utf-8")
    given = CliRunner().invoke(cli.app, ["source", str(page), "--json",
                                         "--url", "https://bob:hunter2@news.example/a"])
    assert given.exit_code == 0, given.output
    assert "hunter2" not in given.output
    assert "bob" not in given.output
    assert '"url": "https://news.example/a"' in given.output
    declared = CliRunner().invoke(cli.app, ["source", str(page), "--json"])
    assert declared.exit_code == 0, declared.output
    assert "pw2" not in declared.output
    assert "eve" not in declared.output
    assert '"url": "https://b.example/x"' in declared.output


@pytest.mark.parametrize(("args", "said"), [
    (["run", "--feed", ""], "--feed is empty"),
    (["run", "--claims", " "], "--claims is empty"),
    (["backfill", ""], "an input path is empty"),
    (["verdicts", "--home", ""], "--home is empty"),
    (["origins", ""], "an input path is empty"),
    (["source", " "], "TARGET is empty"),
    (["source", "page.html", "--url", ""], "--url is empty"),
    (["audit", ""], "ANSWER_FILE is empty"),
    (["audit", "--sessions", ""], "--sessions is empty"),
    (["audit", "answer.txt", "--evidence", ""], "--evidence is empty"),
    (["verify", "--file", ""], "--file is empty"),
    (["verify", ""], "nothing to verify: the text is empty"),
    (["verify", " \n "], "nothing to verify: the text is empty"),
    (["research", ""], "nothing to research: the question is empty"),
    (["recall", " "], "nothing to recall: the query is empty"),
])
def test_an_empty_path_or_text_is_a_bad_argument(args, said, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli.app, args)
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    assert lines[0].startswith(f"error: {said}")
    assert list(tmp_path.iterdir()) == []  # nothing written in the current folder


def test_a_bad_allow_private_value_names_the_flag(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    monkeypatch.delenv("AFFIDAVIT_ALLOW_PRIVATE", raising=False)
    res = CliRunner().invoke(cli.app, ["verify", "The bridge opened in 2024.", "--allow-private",
                                       "not a cidr!!", "--home", str(tmp_path / "h")])
    assert res.exit_code == 2, res.output
    assert "error: --allow-private: 'cidr!!' is not a CIDR range" in res.output
    assert not (tmp_path / "h").exists()


def test_version_is_printed(monkeypatch, capsys):
    from affidavit import __version__

    monkeypatch.setattr(sys, "argv", ["affidavit", "--version"])
    with pytest.raises(SystemExit) as done:
        cli._main()
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"affidavit {__version__}"


@pytest.mark.parametrize("value", ["abc", "0", "-1", "2.5", "100000"])
@pytest.mark.parametrize("args", [["verify", "The bridge opened in 2024."],
                                  ["research", "Did the bridge open in 2024?"],
                                  ["run", "--claims", "{d}/claims.jsonl"],
                                  ["audit", "--sessions", "{d}/sessions.jsonl"],
                                  ["demo"]])
def test_a_bad_workers_variable_is_one_line_before_prefect(args, value, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")  # a started Prefect fails
    monkeypatch.setenv("AFFIDAVIT_WORKERS", value)
    (tmp_path / "claims.jsonl").write_text('{"claim": "Exports rose 12 percent."}\n')
    (tmp_path / "sessions.jsonl").write_text('{"id": "1", "answer": "ok", "evidence": []}\n')
    home = tmp_path / "h"
    res = CliRunner().invoke(cli.app, [*(a.format(d=tmp_path) for a in args), "--home",
                                       str(home)])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    assert lines[0].startswith("error: AFFIDAVIT_WORKERS must be ")
    assert repr(value) in lines[0] or value in lines[0]
    assert not home.exists()


@pytest.mark.parametrize("args", [["verify", "The bridge opened in 2024."],
                                  ["research", "Did the bridge open in 2024?"],
                                  ["run", "--claims", "{d}/claims.jsonl"]])
def test_an_absurd_workers_flag_is_one_line_naming_the_bound(args, tmp_path, monkeypatch):
    # ``--workers 100000`` was taken: a pool of as many processes as batches, and with
    # ``--dask local`` a local cluster of 100,000 worker processes
    from typer.testing import CliRunner

    from affidavit.flows.local_workers import max_workers

    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")  # a started Prefect fails
    monkeypatch.delenv("AFFIDAVIT_WORKERS", raising=False)
    (tmp_path / "claims.jsonl").write_text('{"claim": "Exports rose 12 percent."}\n')
    home = tmp_path / "h"
    res = CliRunner().invoke(cli.app, [*(a.format(d=tmp_path) for a in args),
                                       "--workers", "100000", "--home", str(home)])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    assert lines[0].startswith(f"error: --workers must be at most {max_workers()} (4 per core")
    assert "got 100000" in lines[0]
    assert not home.exists()


def test_the_workers_bound_is_four_per_core():
    from affidavit.flows.local_workers import check_workers, parse_workers

    assert check_workers(8, cores=2) == 8
    assert parse_workers("8", cores=2) == 8
    with pytest.raises(ValueError, match=r"^--workers must be at most 8 \(4 per core, 2 cores"):
        check_workers(9, given="--workers", cores=2)
    with pytest.raises(ValueError, match=r"^AFFIDAVIT_WORKERS must be at most 4 \(4 per core, "
                                         r"1 core here\), got 5 \(unset it"):
        parse_workers("5", cores=1)


def test_the_batch_pool_refuses_workers_over_the_bound():
    # a flow called from Python or a deployment (not through the CLI) is refused too
    from affidavit.flows.fanout import batch_pool
    from affidavit.flows.local_workers import max_workers

    with pytest.raises(ValueError, match="workers must be at most"), batch_pool(
            3, run_inline=lambda *a: None, make_spec=lambda: None,
            workers=max_workers() + 1):
        pass


def test_the_workers_flag_wins_over_a_bad_variable(monkeypatch):
    monkeypatch.setenv("AFFIDAVIT_WORKERS", "abc")
    cli._check_workers(2)  # --workers 2 given: the variable is not read
    from affidavit.flows.fanout import default_workers

    with pytest.raises(ValueError, match="AFFIDAVIT_WORKERS must be a whole number"):
        default_workers()
    monkeypatch.setenv("AFFIDAVIT_WORKERS", "3")
    assert default_workers() == 3


def test_a_run_says_what_its_self_lineage_skips_are(monkeypatch):
    text = _printed_run(monkeypatch, {"skip:self_lineage": 3})
    assert "skipped/rejected: skip:self_lineage 3" in text
    assert "a story cannot corroborate itself" in text


@pytest.mark.parametrize("command", [["run", "--claims", "CLAIMS"],
                                     ["verify", "The Lumen Bridge opened in 2024."],
                                     ["research", "Did the Lumen Bridge open in 2024?"]])
@pytest.mark.parametrize(("judge", "env", "said"), [
    ("llm", {}, "AFFIDAVIT_LLM_BASE_URL and AFFIDAVIT_LLM_MODEL unset"),
    ("llm", {"AFFIDAVIT_LLM_BASE_URL": "http://127.0.0.1:9/v1"}, "(AFFIDAVIT_LLM_MODEL unset)"),
    ("llm", {"AFFIDAVIT_LLM_BASE_URL": "http://127.0.0.1:9/v1", "AFFIDAVIT_LLM_MODEL": "m"}, None),
    ("lexical", {}, None),
])
def test_judge_llm_without_an_endpoint_warns_at_the_start(command, judge, env, said, tmp_path,
                                                          monkeypatch):
    # it fell back to the lexical judge quietly until the run's summary
    from typer.testing import CliRunner

    import affidavit.flows.analyst as analyst
    import affidavit.flows.factcheck as factcheck

    for var in ("AFFIDAVIT_LLM_BASE_URL", "AFFIDAVIT_LLM_MODEL"):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    monkeypatch.setenv("AFFIDAVIT_SEARXNG_URL", "http://127.0.0.1:9")  # no refusal up front
    asked: list[str] = []
    for module, flow in ((analyst, "verify"), (analyst, "research_question"),
                         (factcheck, "factcheck")):
        monkeypatch.setattr(module, flow, lambda *_, judge, **__: asked.append(judge))
    monkeypatch.setattr(cli, "_run_research", lambda fn, **_: fn(None, None))
    claims = tmp_path / "claims.jsonl"
    claims.write_text('{"claim": "The Lumen Bridge opened in 2024."}\n', encoding="utf-8")
    args = [str(claims) if a == "CLAIMS" else a for a in command]
    res = CliRunner().invoke(cli.app, [*args, "--judge", judge, "--home", str(tmp_path / "h")])
    assert res.exit_code == 0, res.output
    assert asked == [judge]  # the run goes on (with the lexical judge, said in its record)
    lines = res.stderr.splitlines()
    warnings = [ln for ln in lines if ln.startswith("warning:")]
    if said is None:
        assert warnings == []
    else:
        assert warnings == [lines[0]]  # one line, the first
        assert lines[0].startswith("warning: --judge llm: no LLM endpoint configured (")
        assert said in lines[0]
        assert lines[0].endswith("): the lexical judge is used")
