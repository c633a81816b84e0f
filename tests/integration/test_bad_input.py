"""Bad input through the backfill stage: a clear message and a counted skip; other rows kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from affidavit.flows.context import RunRecord, open_warehouse
from affidavit.flows.stages import index_task, ingest_task, lineage_task

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "ingest"


@pytest.fixture
def wh(tmp_path):  # noqa: ANN201
    return open_warehouse(str(tmp_path / "home"))


def _ingest(wh, *names: str):  # noqa: ANN001, ANN202
    run = RunRecord(wh, "test", {})
    ids = ingest_task.fn(wh, [str(FIX / n) for n in names], run=run)
    lineage_task.fn(wh, ids, run=run)
    index_task.fn(wh, ids, run=run)
    return run, ids


def test_bad_inputs_are_counted_and_the_rest_is_kept(wh):
    run, ids = _ingest(wh, "malformed.xml", "truncated.warc", "bad_line.jsonl", "rss_small.xml")
    skips = {k: v for k, v in run.counts.items() if k.startswith("skip:")}
    assert skips, run.counts
    assert any("bad_content_length" in k for k in skips)  # the short WARC record
    assert any("json" in k for k in skips)  # the JSONL line that is not JSON
    assert any("malformed.xml" in m for m in run.messages)
    assert any("line 3" in m for m in run.messages)
    # documents from every file that had good rows were kept
    paths = set(wh.read("documents", columns=["source_path"])["source_path"].to_list())
    for name in ("truncated.warc", "bad_line.jsonl", "rss_small.xml"):
        assert any(p and p.endswith(name) for p in paths), name
    assert len(ids) == wh.count("documents") > 0


def test_entity_bomb_is_refused_without_expansion(wh):
    run, ids = _ingest(wh, "entity_bomb.xml")
    assert ids == []
    assert sum(v for k, v in run.counts.items() if k.startswith("skip:")) >= 1
    assert run.messages


def test_missing_file_is_a_counted_skip_not_a_crash(wh, tmp_path):
    run = RunRecord(wh, "test", {})
    ids = ingest_task.fn(wh, [str(tmp_path / "nope.jsonl"), str(FIX / "bad_line.jsonl")],
                         run=run)
    assert run.counts["skip:source_unreadable"] == 1
    assert ids


def test_a_run_killed_after_ingest_is_finished_by_the_next_run(wh):
    """Documents stored by a run that died before lineage and indexing are not lost."""
    from affidavit.warehouse.search_index import SearchIndex

    killed = RunRecord(wh, "killed", {})
    ids = ingest_task.fn(wh, [str(FIX / "bad_line.jsonl")], run=killed)
    assert ids
    assert wh.count("signatures") == 0
    rerun = RunRecord(wh, "rerun", {})
    again = ingest_task.fn(wh, [str(FIX / "bad_line.jsonl")], run=rerun)
    assert again == []
    lineage_task.fn(wh, again, run=rerun)
    index_task.fn(wh, again, run=rerun)
    assert wh.count("signatures") == len(ids)
    assert wh.count("origins") == len(ids)
    assert SearchIndex.open(wh.paths.index).doc_ids() == set(ids)
