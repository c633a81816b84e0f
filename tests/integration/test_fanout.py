"""Research in batches: same verdicts as one batch; failed batches and judges recorded."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from importlib import resources

import pytest

from affidavit.schemas.enums import RunStatus

DEMO = resources.files("affidavit.flows").joinpath("demo")
CLAIMS = str(DEMO.joinpath("claims.jsonl"))
VOLATILE = {"run_id", "decided_at", "expires_at", "judged_at", "issued_at", "query_id"}


@pytest.fixture(scope="module")
def demo_home(prefect_harness, tmp_path_factory):  # noqa: ANN201
    from affidavit.flows.backfill import backfill_archive

    home = str(tmp_path_factory.mktemp("fanout-home"))
    backfill_archive([str(DEMO.joinpath("documents.jsonl"))], home=home)
    return home


def _tables(home: str, run_id: str) -> dict[str, list[dict]]:
    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import Warehouse

    wh = Warehouse(resolve_home(home))
    out = {}
    for table, order in (("verdicts", "claim_id"), ("judgments", "claim_id, doc_id, judge"),
                         ("queries", "claim_id, round, side, text")):
        df = wh.query(f"select * from {table} where run_id = $r order by {order}", {"r": run_id})
        out[table] = [{k: v for k, v in r.items() if k not in VOLATILE} for r in df.to_dicts()]
    return out


def test_parallel_batches_equal_the_sequential_run(demo_home):
    from affidavit.flows.factcheck import factcheck

    seq = factcheck(claims_path=CLAIMS, home=demo_home, workers=1)
    par = factcheck(claims_path=CLAIMS, home=demo_home, workers=2, batch_size=2)
    assert seq.counts["batches_inline"] == 1
    assert par.counts["batches_processes"] == 3  # 6 claims in batches of 2, on 2 processes
    a, b = _tables(demo_home, seq.run_id), _tables(demo_home, par.run_id)
    assert len(a["verdicts"]) == 6
    assert len(a["judgments"]) > 0
    assert len(a["queries"]) > 0
    assert a == b
    assert [v["claim_id"] for v in seq.verdicts] == [v["claim_id"] for v in par.verdicts]


def test_a_failed_batch_is_recorded_and_the_others_land(demo_home, monkeypatch):
    import affidavit.flows.factcheck as fc
    from affidavit.flows.context import RunFailed

    real = fc.research_batch
    calls: list[int] = []

    def flaky(wh, claims, *, batch_no, **kw):  # noqa: ANN001, ANN003, ANN202
        calls.append(batch_no)
        if batch_no == 1:
            raise OSError("disk vanished")
        return real(wh, claims, batch_no=batch_no, **kw)

    monkeypatch.setattr(fc, "research_batch", flaky)
    state = fc.factcheck(claims_path=CLAIMS, home=demo_home, workers=1, batch_size=2,
                         return_state=True)
    assert state.is_failed()
    assert "batch 2 of 3 (2 claims) failed after 2 retries" in state.message
    exc = state.result(raise_on_failure=False)
    assert isinstance(exc, RunFailed)
    assert calls.count(1) == 3  # tried, then retried twice
    assert len(exc.result.verdicts) == 4  # the other two batches landed
    assert exc.result.status is RunStatus.FAILED
    run = _run_row(demo_home, exc.result.run_id)
    assert run["status"] == "failed"
    assert "disk vanished" in run["message"]


def test_a_judge_failing_on_most_pairs_fails_the_run(demo_home, monkeypatch):
    import affidavit.flows.factcheck as fc
    from affidavit.flows.context import RunFailed

    real = fc.research_batch

    def failing_judge(*a, **kw):  # noqa: ANN002, ANN003, ANN202
        out = real(*a, **kw)
        out.n_judge_failures = int(out.n_pairs * 0.83)
        return out

    monkeypatch.setattr(fc, "research_batch", failing_judge)
    with pytest.raises(RunFailed, match=r"the judge failed on \d+ of \d+ pairs \(8\d% > 50%\)"):
        fc.factcheck(claims_path=CLAIMS, home=demo_home, workers=1)
    monkeypatch.setenv("AFFIDAVIT_MAX_JUDGE_FAILURE_SHARE", "0.9")
    assert fc.factcheck(claims_path=CLAIMS, home=demo_home, workers=1).verdicts


def test_no_search_capability_ends_the_flow_run_failed(prefect_harness, tmp_path):
    from affidavit.flows.analyst import verify

    state = verify("The Lumen Bridge opened on 14 May 2024.", home=str(tmp_path / "empty"),
                   return_state=True)
    assert state.is_failed()
    assert "research could not run: no search capability" in state.message
    res = state.result(raise_on_failure=False).result
    assert res.status is RunStatus.NO_CAPABILITY
    assert _run_row(str(tmp_path / "empty"), res.run_id)["status"] == "no_capability"


def test_flows_wait_for_the_home_writer_lock(prefect_harness, tmp_path):
    """A writer started from a deployment (not the CLI) waits for the one holding the home."""
    from affidavit.flows.backfill import backfill_archive

    home = tmp_path / "locked"
    home.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, sys, time; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX); "
        "print('held', flush=True); time.sleep(60)"), str(home / ".lock")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        done: list[object] = []
        t = threading.Thread(target=lambda: done.append(
            backfill_archive([str(DEMO.joinpath("documents.jsonl"))], home=str(home))))
        t.start()
        time.sleep(3)
        assert t.is_alive()
        assert not done
        assert not (home / "tables").exists()
    finally:
        holder.kill()
        holder.wait()
    t.join(120)
    assert done
    assert done[0].counts["documents_added"] == 25


def _run_row(home: str, run_id: str) -> dict:
    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import Warehouse

    wh = Warehouse(resolve_home(home))
    return wh.read("runs", where="run_id = $r", params={"r": run_id}).to_dicts()[0]


def test_an_addition_on_dask_is_incremental_and_equals_in_process(demo_home, tmp_path):
    """Adding a document on a local 2-worker cluster: only it is processed, as in process."""
    import shutil

    import polars as pl

    from affidavit.flows.context import RunRecord
    from affidavit.flows.stages import refresh_lineage
    from affidavit.tasks.ingest_common import rows_to_documents
    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import Warehouse

    twin = tmp_path / "twin"
    shutil.copytree(demo_home, twin, symlinks=True,  # ``current`` pointers are relative links
                    ignore=shutil.ignore_patterns("*.lock", "prefect*"))
    batch = rows_to_documents([{"url": "https://late.example/a", "title": "Late",
                                "text": "A late story about something else entirely."}],
                              source_kind="archive", source_path=None)
    tables = []
    for home, dask in ((demo_home, "local"), (str(twin), None)):
        wh = Warehouse(resolve_home(home))
        new = wh.append_new("documents", pl.from_arrow(batch.documents))
        run = RunRecord(wh, "test", {})
        refresh_lineage(wh, new["doc_id"].to_list(), run=run, dask=dask)
        assert run.counts["signatures_added"] == 1  # only the new document
        assert run.counts.get("lineage_on_dask", 0) == (1 if dask else 0)
        assert wh.count("signatures") == wh.count("documents")
        tables.append({t: wh.read(t).sort(pl.all()) for t in
                       ("signatures", "lineage_edges", "origins", "passage_furniture")})
    for name, frame in tables[0].items():
        assert frame.equals(tables[1][name]), name



def test_claims_in_unread_scripts_are_said_and_counted(prefect_harness, tmp_path):
    import json

    from typer.testing import CliRunner

    from affidavit.flows.backfill import backfill_archive
    from affidavit.flows.cli import app

    docs = tmp_path / "docs.jsonl"
    docs.write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in [
        {"id": "d1", "url": "https://a.example/t", "title": "Tower",
         "text": "The Eiffel Tower was completed in 1889 in Paris, the city archive shows.",
         "published_at": "2020-01-01"},
        {"id": "d2", "url": "https://b.example/ru", "title": "Москва",
         "text": "Москва является столицей России с 1918 года.", "published_at": "2021-01-01"},
        {"id": "d3", "url": "https://c.example/port", "title": "Port tonnage",
         "text": "In 2021 the port handled 146 million tonnes of cargo, its annual report says.",
         "published_at": "2022-01-01"},
    ]) + "\n", encoding="utf-8")
    claims = tmp_path / "claims.jsonl"
    claims.write_text("\n".join(json.dumps({"text": t}, ensure_ascii=False) for t in [
        "中国是世界上人口最多的国家。", "Москва — столица России с 1918 года.",
        "Население России в 2021 году составило 146 миллионов человек.",
        "The Eiffel Tower was completed in 1889 in Paris."]) + "\n", encoding="utf-8")
    home = str(tmp_path / "home")
    backfill_archive([str(docs)], home=home)
    res = CliRunner().invoke(app, ["run", "--claims", str(claims), "--home", home, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout[res.stdout.index("{"):])
    by_text = {v["claim_text"]: v for v in out["verdicts"]}
    for text, script in (("中国是世界上人口最多的国家。", "Han"),
                         ("Москва — столица России с 1918 года.", "Cyrillic")):
        v = by_text[text]
        assert v["status"] == "UNVERIFIED"
        assert f"the default lexical judge reads no words in {script} script" in v["explanation"]
        assert "no readable words" in v["decided_by"]
    assert "no readable words" not in by_text[
        "The Eiffel Tower was completed in 1889 in Paris."]["explanation"]
    # researched (two figures pass the gate) but read as figures only: evidence of nothing,
    # though a document states both figures
    v = by_text["Население России в 2021 году составило 146 миллионов человек."]
    assert v["status"] == "UNVERIFIED"
    assert "reads no words in Cyrillic script" in v["explanation"]
    assert out["counts"]["no_readable_words:Han"] == 1
    assert out["counts"]["no_readable_words:Cyrillic"] == 2
    assert "(3 with no readable words)" in out["message"]
    assert any(d.startswith("3 claim(s) with no readable words (Cyrillic 2, Han 1)")
               for d in out["degraded"])
