"""The audit flows end to end: CLI, tables, idempotent loads, report, failures counted in runs."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from affidavit.flows.cli import app

BENCH = Path(__file__).resolve().parents[2].parent / "shared" / "bench" / "audit-dev"
PYPROJECT = '[project]\nname = "wren"\nversion = "1.6.3"\nrequires-python = ">=3.11"\n'
SESSIONS = [
    {"id": "s1", "answer": "wren is at 1.6.3 and needs Python 3.9 or newer.",
     "evidence": [{"tool": "read_file", "input": "pyproject.toml", "output": PYPROJECT}]},
    {"id": "s2", "answer": "It always answers in 30 ms.", "evidence": []},
]


def _write_sessions(path: Path) -> Path:
    lines = [json.dumps(SESSIONS[0]), "{broken", json.dumps(SESSIONS[1])]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _sql(home: Path, q: str) -> list[tuple]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        return con.execute(q).fetchall()


def test_sessions_cli_writes_tables_once_and_counts_the_bad_line(prefect_harness, tmp_path):
    home = tmp_path / "home"
    src = _write_sessions(tmp_path / "s.jsonl")
    runner = CliRunner()
    res = runner.invoke(app, ["audit", "--sessions", str(src), "--home", str(home), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout[res.stdout.index("{"):])
    assert out["counts"]["audits_written"] == 2
    assert out["counts"]["skip:bad_json"] == 1
    by_id = {a["record_id"]: a for a in out["audits"]}
    assert by_id["s1"]["auditor"] == "lexical"
    assert by_id["s1"]["n_contradicted"] == 1
    assert by_id["s2"]["auditor"] == "scanner"
    assert by_id["s2"]["n_unsupported"] == 1
    assert by_id["s2"]["scanner_flags"] == ["always", "30 ms"]
    assert Path(out["report"]).read_text(encoding="utf-8").count('class="card"') == 2
    again = runner.invoke(app, ["audit", "--sessions", str(src), "--home", str(home)])
    assert again.exit_code == 0, again.output
    assert "summary:" in again.output
    assert "2 already audited by lexical (skipped)" in " ".join(again.output.split())
    assert _sql(home, "select count(*) from audits") == [(2,)]
    assert _sql(home, "select count(*) from audit_claims") == [(3,)]
    assert _sql(home, "select label, quote from audit_claims where label = 'CONTRADICTED'") == [
        ("CONTRADICTED", 'requires-python = ">=3.11"')]
    runs = _sql(home, "select flow, status, counts from runs order by started_at")
    assert [r[:2] for r in runs] == [("audit_sessions", "completed")] * 2
    assert json.loads(runs[1][2]).get("audits_written", 0) == 0
    assert json.loads(runs[1][2])["already_audited"] == 2
    # a re-run with --json reports the stored audits of what it skipped
    third = runner.invoke(app, ["audit", "--sessions", str(src), "--home", str(home), "--json"])
    assert third.exit_code == 0, third.output
    out3 = json.loads(third.stdout[third.stdout.index("{"):])
    assert {a["record_id"]: a["n_contradicted"] for a in out3["audits"]} == {"s1": 1, "s2": 0}


def test_a_sessions_file_with_nothing_readable_is_refused(prefect_harness, tmp_path):
    src = tmp_path / "garbage.jsonl"
    src.write_text("not json\n{also not\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["audit", "--sessions", str(src), "--home",
                                   str(tmp_path / "h")])
    assert res.exit_code == 1, res.output
    flat = " ".join(res.output.split())
    assert "garbage.jsonl: line 1: invalid JSON" in flat
    assert "input(s) refused" in flat


def _audit_one_answer(tmp_path):  # noqa: ANN202
    """``audit answer.txt --evidence pyproject.toml`` on a claim the pyproject contradicts."""
    (tmp_path / "answer.txt").write_text("wren needs Python 3.9 or newer.", encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    return CliRunner().invoke(app, ["audit", str(tmp_path / "answer.txt"), "--evidence",
                                    str(tmp_path / "pyproject.toml"), "--home",
                                    str(tmp_path / "h")])


def test_one_answer_with_evidence_files(prefect_harness, tmp_path):
    res = _audit_one_answer(tmp_path)
    assert res.exit_code == 0, res.output
    assert "CONTRADICTED" in res.output
    assert "requires-python" in res.output


def test_a_claim_left_unlabelled_is_printed(prefect_harness, tmp_path, monkeypatch):
    # a claim the auditor could not label (its call failed) is shown as UNLABELLED: the
    # printout's style for it was empty markup, and the command died before its summary
    from affidavit.tasks.audit_lexical import LexicalAuditor

    def fail(self, record, claims, flags):
        raise AssertionError("no such word")

    monkeypatch.setattr(LexicalAuditor, "audit", fail)
    res = _audit_one_answer(tmp_path)
    assert res.exit_code == 0, res.output
    assert "UNLABELLED" in res.output
    assert "unlabelled 1" in res.output  # the summary line is reached


@pytest.mark.parametrize(
    ("args", "message", "code"),
    [([], "either ANSWER_FILE", 2), (["missing.txt"], "no such file", 1),
     (["a.txt", "--evidence", "sub"], "is a directory, not a file", 1),
     (["--sessions", "x.jsonl", "--evidence", "y"], "--evidence goes with ANSWER_FILE", 2),
     (["a.txt", "--auditor", "oracle"], "unknown auditor", 2)],
)
def test_bad_arguments_exit_with_one_line(tmp_path, args, message, code):
    # usage errors exit 2; a missing or unreadable input is refused with 1 (README, exit codes)
    (tmp_path / "a.txt").write_text("x", encoding="utf-8")
    (tmp_path / "x.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    res = CliRunner().invoke(app, ["audit", *(a if a.startswith("-") or a == "oracle" else
                                     str(tmp_path / a) for a in args),
                                   "--home", str(tmp_path / "h")])
    assert res.exit_code == code
    assert message in res.output


def test_llm_failures_leave_the_run_usable_and_are_counted(prefect_harness, tmp_path,
                                                           monkeypatch):
    from affidavit.flows.audit import audit_sessions
    from tests.unit.test_audit_llm import ScriptedServer

    srv = ScriptedServer()
    srv.thread.start()
    try:
        srv.script["wren"] = [{"status": 500, "body": "{}"}]
        monkeypatch.setenv("AFFIDAVIT_LLM_BASE_URL", srv.url)
        monkeypatch.setenv("AFFIDAVIT_LLM_MODEL", "scripted")
        home = tmp_path / "home"
        res = audit_sessions(str(_write_sessions(tmp_path / "s.jsonl")), auditor="llm",
                             home=str(home))
    finally:
        srv.httpd.shutdown()
        srv.httpd.server_close()
    assert res.status.value == "completed"
    assert res.counts["llm_failures"] == 1
    assert res.counts["audits_written"] == 2
    assert all("wren" in c["messages"][-1]["content"] for c in srv.calls)  # s2 never sent
    assert any("llm auditor failed on 1" in d for d in res.degraded)
    rows = _sql(home, "select record_id, auditor, n_unlabelled, degraded from audits "
                      "order by record_id")
    assert rows[0][:3] == ("s1", "llm:scripted", 2)
    assert "HTTP 500" in rows[0][3]
    assert rows[1][:3] == ("s2", "scanner", 0)
    [(counts, degraded)] = _sql(home, "select counts, degraded from runs")
    assert json.loads(counts)["llm_failures"] == 1
    assert "llm auditor failed" in degraded
    # the failed record is audited again by the next run; the one audited by the scanner is not
    srv = ScriptedServer()
    srv.thread.start()
    try:
        srv.script["wren"] = [{"content": json.dumps({"claims": [
            {"index": 1, "label": "SUPPORTED", "reason": "r", "quote": 'version = "1.6.3"'},
            {"index": 2, "label": "CONTRADICTED", "reason": "r",
             "quote": 'requires-python = ">=3.11"'}]})}]
        monkeypatch.setenv("AFFIDAVIT_LLM_BASE_URL", srv.url)
        again = audit_sessions(str(tmp_path / "s.jsonl"), auditor="llm", home=str(home))
    finally:
        srv.httpd.shutdown()
        srv.httpd.server_close()
    assert again.counts["audits_written"] == 1
    assert again.counts["already_audited"] == 1
    assert len(srv.calls) == 1
    rows = _sql(home, "select record_id, n_contradicted, degraded is null from audits "
                      "order by record_id, degraded nulls first")
    assert rows == [("s1", 1, True), ("s1", 0, False), ("s2", 0, True)]


def test_audit_dev_writes_48_audits_and_twice_adds_none(prefect_harness, tmp_path):
    if not (BENCH / "cases.jsonl").is_file():
        pytest.skip(f"benchmark folder {BENCH} is absent (it sits beside the repository)")
    from affidavit.flows.audit import audit_sessions

    home = str(tmp_path / "home")
    first = audit_sessions(str(BENCH / "cases.jsonl"), home=home)
    second = audit_sessions(str(BENCH / "cases.jsonl"), home=home)
    assert first.counts["audits_written"] == 48
    assert second.counts.get("audits_written", 0) == 0
    assert second.counts.get("audit_claims_written", 0) == 0
    assert _sql(Path(home), "select count(*) from audits") == [(48,)]


def _many_sessions(path: Path, n: int = 12) -> Path:
    """``n`` records: contradicted, overstated and clean answers over one pyproject."""
    answers = ["wren is at 1.6.3 and needs Python 3.9 or newer.",
               "wren always installs in 30 ms.", "wren is at version 1.6.3."]
    rows = [{"id": f"r{i:02d}", "answer": answers[i % 3] + f" Run {i}.",
             "evidence": [{"tool": "read_file", "input": "pyproject.toml",
                           "output": PYPROJECT}] if i % 4 else []} for i in range(n)]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def _audit_tables(home: Path, run_id: str) -> dict[str, list[tuple]]:
    return {
        "audits": _sql(home, "select * exclude (run_id, latency_ms, audited_at) from audits "
                             f"where run_id = '{run_id}' order by record_id"),
        "audit_claims": _sql(home, "select c.* from audit_claims c join audits a using "
                                   f"(audit_id) where a.run_id = '{run_id}' order by all"),
    }


def test_batches_on_two_processes_equal_the_sequential_run(prefect_harness, tmp_path):
    from affidavit.flows.audit import audit_sessions

    src = _many_sessions(tmp_path / "s.jsonl")
    seq = audit_sessions(str(src), home=str(tmp_path / "a"), workers=1, batch_size=5)
    par = audit_sessions(str(src), home=str(tmp_path / "b"), workers=2, batch_size=5)
    assert seq.counts["batches_inline"] == 3
    assert par.counts["batches_processes"] == 3  # 12 records in batches of 5, on 2 processes
    a = _audit_tables(tmp_path / "a", seq.run_id)
    b = _audit_tables(tmp_path / "b", par.run_id)
    assert len(a["audits"]) == 12
    assert len(a["audit_claims"]) > 12
    assert a == b
    assert [x["record_id"] for x in seq.audits] == [x["record_id"] for x in par.audits]
    assert seq.message == par.message


def test_a_failed_audit_batch_is_recorded_and_the_others_land(prefect_harness, tmp_path,
                                                              monkeypatch):
    import affidavit.flows.audit as fa
    from affidavit.flows.context import RunFailed

    real = fa.audit_in_batch
    calls: list[int] = []

    def flaky(batch_no, records, auditor):  # noqa: ANN001, ANN202
        calls.append(batch_no)
        if batch_no == 1:
            raise OSError("disk vanished")
        return real(batch_no, records, auditor)

    monkeypatch.setattr(fa, "audit_in_batch", flaky)
    home = tmp_path / "home"
    with pytest.raises(RunFailed, match=r"batch 2 \(5 records\) failed after 2 retries") as info:
        fa.audit_sessions(str(_many_sessions(tmp_path / "s.jsonl")), home=str(home),
                          workers=1, batch_size=5)
    assert calls.count(1) == 3  # tried, then retried twice
    res = info.value.result
    assert res.status.value == "failed"
    assert res.counts["audits_written"] == 7  # batches 1 and 3 landed
    assert res.counts["batches_failed"] == 1
    assert _sql(home, "select count(*) from audits") == [(7,)]
    [(status, message)] = _sql(home, "select status, message from runs")
    assert status == "failed"
    assert "disk vanished" in message
    # the next run audits only what is missing
    monkeypatch.undo()
    again = fa.audit_sessions(str(tmp_path / "s.jsonl"), home=str(home), workers=1,
                              batch_size=5)
    assert again.counts["audits_written"] == 5
    assert again.counts["already_audited"] == 7


def test_steps_of_an_answer_are_counted_skips_not_claims(prefect_harness, tmp_path):
    answer = tmp_path / "answer.txt"
    answer.write_text("wren is at 1.6.3.\n1. Open pyproject.toml.\n2. Run `pip install wren`, "
                      "then restart the service.\nIs that all?\n", encoding="utf-8")
    evidence = tmp_path / "pyproject.toml"
    evidence.write_text(PYPROJECT, encoding="utf-8")
    home = tmp_path / "home"
    runner = CliRunner()
    res = runner.invoke(app, ["audit", str(answer), "--evidence", str(evidence),
                              "--home", str(home)])
    assert res.exit_code == 0, res.output
    shown = " ".join(res.output.split())
    assert "instruction_not_a_claim 2" in shown
    assert "question_not_a_claim 1" in shown
    assert _sql(home, "select text, label from audit_claims") == [("wren is at 1.6.3",
                                                                    "SUPPORTED")]
    [(counts,)] = _sql(home, "select counts from runs")
    assert json.loads(counts)["skip:instruction_not_a_claim"] == 2
