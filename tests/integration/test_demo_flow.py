"""The main job end to end on the shipped demo corpus, through the real Prefect flows."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import duckdb
import polars as pl
import pytest

from affidavit.schemas.enums import RunStatus

DEMO = resources.files("affidavit.flows").joinpath("demo")


@pytest.fixture(scope="module")
def demo_run(prefect_harness, tmp_path_factory):  # noqa: ANN201
    from affidavit.flows.backfill import backfill_archive
    from affidavit.flows.factcheck import factcheck

    home = str(tmp_path_factory.mktemp("demo-home"))
    first = backfill_archive([str(DEMO.joinpath("documents.jsonl"))], home=home)
    again = backfill_archive([str(DEMO.joinpath("documents.jsonl"))], home=home)
    result = factcheck(claims_path=str(DEMO.joinpath("claims.jsonl")), home=home)
    return home, first, again, result


def _by_text(result, needle: str) -> dict:
    rows = [v for v in result.verdicts if needle in v["claim_text"]]
    assert len(rows) == 1, needle
    return rows[0]


def test_backfill_is_idempotent(demo_run):
    _, first, again, _ = demo_run
    assert first.counts["documents_added"] == 25
    assert again.counts.get("documents_added", 0) == 0


def test_every_claim_gets_a_verdict(demo_run):
    _, _, _, result = demo_run
    assert result.status is RunStatus.COMPLETED
    assert len(result.verdicts) == 6


def test_two_independent_origins_support(demo_run):
    v = _by_text(demo_run[3], "Lumen Bridge")
    assert v["status"] == "SUPPORTED"
    assert v["supporting_origins"] >= 2


def test_revenue_claim_supported_by_release_and_filing(demo_run):
    v = _by_text(demo_run[3], "revenue of 42 million")
    assert v["status"] == "SUPPORTED", v
    assert v["supporting_origins"] == 2
    assert v["refuting_origins"] == 0


def test_copies_of_one_origin_do_not_support(demo_run):
    v = _by_text(demo_run[3], "desalination")
    assert v["status"] != "SUPPORTED"
    assert v["supporting_origins"] <= 1


def test_retracted_growth_claim_is_contested_and_capped(demo_run):
    v = _by_text(demo_run[3], "grew 18 percent")
    assert v["status"] in ("CONTESTED", "CONTRADICTED"), v
    assert v["confidence"] <= 0.4


def test_refuted_claim_is_capped(demo_run):
    v = _by_text(demo_run[3], "Elmstead")
    assert v["status"] in ("CONTESTED", "CONTRADICTED"), v
    assert v["confidence"] <= 0.4


def test_claim_with_no_evidence_is_unverified_with_queries(demo_run):
    v = _by_text(demo_run[3], "snow leopard")
    assert v["status"] == "UNVERIFIED"
    assert len(v["queries_tried"]) >= 2


def test_duckdb_file_answers_the_readme_query(demo_run):
    home = demo_run[0]
    with duckdb.connect(str(Path(home) / "warehouse.duckdb"), read_only=True) as con:
        rows = con.execute(
            "select status, count(*) from verdicts_latest group by 1").fetchall()
        runs = con.execute("select flow, status, capabilities from runs").fetchall()
    assert sum(n for _, n in rows) == 6
    assert {r[0] for r in runs} == {"backfill_archive", "factcheck"}
    assert all(r[1] == "completed" for r in runs)
    assert any('"archive"' in (r[2] or "") for r in runs)


def test_report_and_claimreview_written(demo_run):
    from tests.claimreview_check import claimreview_problems

    result = demo_run[3]
    report = Path(result.report_path)
    assert report.name == "report.html"
    index = report.read_text(encoding="utf-8")
    pages = sorted((report.parent / "claims").glob("*.html"))
    assert len(pages) == len(result.verdicts)
    for page in pages:
        assert f'href="claims/{page.name}"' in index
    assert any("<mark>" in p.read_text(encoding="utf-8") for p in pages)
    assert any("<svg" in p.read_text(encoding="utf-8") for p in pages)
    nodes = json.loads((report.parent / "claimreview.jsonld").read_text(encoding="utf-8"))
    published = [v for v in result.verdicts if v["status"] != "UNVERIFIED"]
    assert len(nodes) == len(published) >= 4
    for node in nodes:
        assert claimreview_problems(node) == [], node["claimReviewed"]
        page = report.parent / node["url"].split("/", 3)[3]  # url → its page
        embedded = page.read_text(encoding="utf-8").split('application/ld+json">')[1]
        assert json.loads(embedded.split("</script>")[0]) == node


def test_report_rebuilt_from_the_warehouse(demo_run):
    from affidavit.flows.context import open_warehouse, utcnow
    from affidavit.flows.publish import rebuild_run_report

    home, result = demo_run[0], demo_run[3]
    first = {p.name: p.read_text(encoding="utf-8")
             for p in (Path(result.report_path).parent / "claims").glob("*.html")}
    again = rebuild_run_report(open_warehouse(home), result.run_id, now=utcnow())
    assert again.n_pages == len(result.verdicts)
    for name, html in first.items():
        rebuilt = (again.index.parent / "claims" / name).read_text(encoding="utf-8")
        # the stored rows name the same documents and mark the same spans
        assert rebuilt.count("<mark>") == html.count("<mark>"), name
        assert rebuilt.count('class="node') == html.count('class="node'), name


def test_export_claimreview_command(demo_run, tmp_path):
    from typer.testing import CliRunner

    from affidavit.flows.cli import app
    from tests.claimreview_check import claimreview_problems

    home = demo_run[0]
    out = tmp_path / "cr.json"
    res = CliRunner().invoke(app, ["export", "claimreview", "--home", home, "--status",
                                   "supported", "--base-url", "https://desk.example/checks",
                                   "--out", str(out)])
    assert res.exit_code == 0, res.output
    nodes = json.loads(out.read_text(encoding="utf-8"))
    assert nodes
    assert all(n["reviewRating"]["alternateName"] == "True" for n in nodes)
    assert all(n["url"].startswith("https://desk.example/checks/claims/") for n in nodes)
    assert all(claimreview_problems(n) == [] for n in nodes)
    bad = CliRunner().invoke(app, ["export", "claimreview", "--home", home, "--status",
                                   "UNVERIFIED"])
    assert bad.exit_code == 2
    assert CliRunner().invoke(app, ["export", "claimreview", "--home", home, "--run",
                                    "no-such-run"]).exit_code == 2


def test_every_admitted_quote_is_in_its_document(demo_run):
    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import Warehouse

    wh = Warehouse(resolve_home(demo_run[0]))
    j = wh.read("judgments").filter(pl.col("is_admitted"))
    docs = wh.texts(j["doc_id"].unique().to_list())
    text = dict(zip(docs["doc_id"], docs["text"], strict=True))
    assert j.height > 0
    for row in j.iter_rows(named=True):
        span = text[row["doc_id"]][row["span_start"]:row["span_end"]]
        assert span, row


def test_recall_finds_unexpired_findings(demo_run):
    from affidavit.flows.analyst import recall

    df = recall("lumen bridge", home=demo_run[0])
    assert df.height == 1
    assert df["status"][0] == "SUPPORTED"
    assert recall("no such words anywhere", home=demo_run[0]).is_empty()


def test_unresolved_claims_feed_the_next_run(demo_run):
    from affidavit.flows.factcheck import unresolved_claims
    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import Warehouse

    wh = Warehouse(resolve_home(demo_run[0]))
    texts = {c["text"] for c in unresolved_claims(wh)}
    expected = {v["claim_text"] for v in demo_run[3].verdicts
                if v["status"] in ("UNVERIFIED", "PARTIAL")}
    assert texts == expected
    assert any("snow leopard" in t for t in texts)


def test_verify_command_checks_a_text(demo_run):
    from typer.testing import CliRunner

    from affidavit.flows.cli import app

    res = CliRunner().invoke(app, ["verify", "The Lumen Bridge in Corvallo opened to traffic "
                                   "on 14 May 2024.", "--home", demo_run[0], "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout[res.stdout.index("{"):])
    assert [v["status"] for v in data["verdicts"]] == ["SUPPORTED"]


def test_no_search_capability_is_said_and_exits_non_zero(prefect_harness, tmp_path):
    from typer.testing import CliRunner

    from affidavit.flows.cli import EXIT_NO_CAPABILITY, app

    res = CliRunner().invoke(app, ["verify", "The Lumen Bridge opened on 14 May 2024.",
                                   "--home", str(tmp_path / "empty")])
    assert res.exit_code == EXIT_NO_CAPABILITY
    assert "research could not run: no search capability" in res.output


def test_source_profiles_a_local_page(prefect_harness, tmp_path):
    from affidavit.flows.analyst import check_source

    page = tmp_path / "page.html"
    page.write_text(
        '<html><head><meta property="article:published_time" content="2024-05-14T10:00:00Z">'
        '<script type="application/ld+json">{"@type": "NewsArticle", '
        '"datePublished": "2024-05-14T10:00:00Z"}</script></head>'
        "<body><p>The Lumen Bridge opened to traffic on 14 May 2024.</p></body></html>",
        encoding="utf-8")
    prof = check_source(str(page), home=str(tmp_path / "home"))
    assert prof.published_at is not None
    assert prof.published_at.year == 2024
    assert prof.date_reliability in ("reliable", "unknown")


def test_source_uses_the_users_credibility_list(prefect_harness, tmp_path, monkeypatch):
    from affidavit.flows.analyst import check_source

    low = tmp_path / "low.txt"
    low.write_text("# hosts of low credibility\nquietstreets.example\n", encoding="utf-8")
    monkeypatch.setenv("AFFIDAVIT_CREDIBILITY_LOW", str(low))
    page = tmp_path / "page.html"
    page.write_text("<html><body><p>Elmstead banned all gas-powered leaf blowers in 2023."
                    "</p></body></html>", encoding="utf-8")
    listed = check_source(str(page), home=str(tmp_path / "home"),
                          url="https://quietstreets.example/blog/elmstead")
    other = check_source(str(page), home=str(tmp_path / "home"),
                         url="https://countyfactcheck.example/checks/elmstead")
    assert listed.credibility < other.credibility
    assert any("low" in s for s in listed.signals)


def test_cli_refuses_bad_choices_before_any_work(tmp_path):
    from typer.testing import CliRunner

    from affidavit.flows.cli import app

    home = str(tmp_path / "h")
    r = CliRunner().invoke(app, ["run", "--claims", "x.jsonl", "--mode", "bogus", "--home", home])
    assert r.exit_code == 2
    assert "quick, standard, deep, forensic" in r.output
    r = CliRunner().invoke(app, ["verdicts", "--status", "maybe", "--home", home])
    assert r.exit_code == 2
    homefile = tmp_path / "file"
    homefile.write_text("x")
    r = CliRunner().invoke(app, ["verdicts", "--home", str(homefile)])
    assert r.exit_code == 1
    assert "cannot use" in r.output


def test_views_lock_held_by_a_reader_does_not_fail_the_run(demo_run):
    """The README invites holding the DuckDB file open; a run then notes it and goes on."""
    import subprocess
    import sys

    from affidavit.flows.context import RunRecord, open_warehouse, sync_views

    home = demo_run[0]
    wh = open_warehouse(home)
    run = RunRecord(wh, "test", {})
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; "
         f"c = duckdb.connect({str(Path(home) / 'warehouse.duckdb')!r}); "
         "print('locked', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        sync_views(wh, run)
    finally:
        holder.kill()
        holder.wait()
    assert run.counts["views_not_refreshed"] == 1


def test_verdicts_command_shows_a_screenful_and_json_gives_every_row(demo_run):
    from typer.testing import CliRunner

    from affidavit.flows.cli import app

    home = demo_run[0]
    every = json.loads(CliRunner().invoke(app, ["verdicts", "--json", "--home", home]).output)
    two = json.loads(CliRunner().invoke(
        app, ["verdicts", "--json", "--limit", "2", "--home", home]).output)
    assert len(every) == 6
    assert len(two) == 2
    table = CliRunner().invoke(app, ["verdicts", "--limit", "2", "--home", home])
    assert table.exit_code == 0
    assert "the newest 2 of 6" in " ".join(table.output.split())
