"""The main job on real third-party data from ../shared/data (skipped when it is absent)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from affidavit.flows.context import RunRecord, open_warehouse
from affidavit.flows.stages import ingest_task, lineage_task


def test_reuters_backfill_is_idempotent_and_groups_identical_bodies(shared_data, tmp_path):
    corpus = shared_data / "corpora" / "reuters21578.jsonl"
    if not corpus.exists():
        pytest.skip(f"{corpus} is absent")
    wh = open_warehouse(str(tmp_path / "home"))
    run = RunRecord(wh, "test", {})
    ids = ingest_task.fn(wh, [str(corpus)], run=run)
    lineage_task.fn(wh, ids, run=run)
    assert len(ids) == 19_042
    again = RunRecord(wh, "test", {})
    assert ingest_task.fn(wh, [str(corpus)], run=again) == []
    groups = wh.query(
        "with b as (select doc_id, regexp_replace(trim(text), '\\s+', ' ', 'g') as body "
        "from documents), g as (select body, list(doc_id) as ids from b group by body "
        "having count(*) > 1) "
        "select g.body, count(distinct o.origin_doc_id) as n_origins from g "
        "join origins o on list_contains(g.ids, o.doc_id) group by g.body"
    )
    assert groups.height >= 250  # about 279 groups of identical bodies
    assert groups.filter(pl.col("n_origins") > 1).is_empty()


def test_news_feeds_run_end_to_end_offline(shared_data, prefect_harness, tmp_path):
    feeds = shared_data / "feeds" / "rsparser-real-feeds"
    paths = [feeds / "livemint.xml", feeds / "lanacion.xml"]
    if not all(p.exists() for p in paths):
        pytest.skip("livemint.xml / lanacion.xml are absent")
    from affidavit.flows.factcheck import factcheck

    res = factcheck(feeds=[str(p) for p in paths], limit=30, mode="quick",
                    home=str(tmp_path / "home"))
    assert res.counts["documents_added"] >= 100
    assert len(res.verdicts) == 30
    assert res.status.value == "completed"
    # the ClaimReview of a real run validates; claims from feed entries name where they appeared
    from tests.claimreview_check import claimreview_problems

    report = Path(res.report_path)
    nodes = json.loads((report.parent / "claimreview.jsonld").read_text(encoding="utf-8"))
    published = [v for v in res.verdicts if v["status"] != "UNVERIFIED"]
    assert len(nodes) == len(published)
    for node in nodes:
        assert claimreview_problems(node, expect_appearance=True) == [], node
    assert len(list((report.parent / "claims").glob("*.html"))) == 30
