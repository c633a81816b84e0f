"""Research rounds: all rounds run while follow-ups find new documents; saturation stops early."""

from __future__ import annotations

import polars as pl
import pytest

from affidavit.flows.context import RunRecord, open_warehouse, utcnow
from affidavit.flows.research_loop import research
from affidavit.schemas.documents import content_sha256, make_doc_id
from affidavit.schemas.enums import Mode
from affidavit.tasks.judges import make_judge
from affidavit.tasks.queries import MODES
from affidavit.tasks.search import SearchHit

CLAIM = "The Aster River ferry carried 1.2 million passengers in 2023."


def _store(wh, n: int) -> list[str]:
    texts = [f"Report {i}: the Aster River ferry service published its figures for year {i}. "
             f"Ridership on route {i} changed after timetable number {i} began." for i in range(n)]
    ids = [make_doc_id(f"doc-{i}", content_sha256(t)) for i, t in enumerate(texts)]
    wh.append_unique("documents", pl.DataFrame({
        "doc_id": ids, "url": [f"https://site{i}.example/a" for i in range(n)],
        "host": [f"site{i}.example" for i in range(n)], "text": texts,
        "content_sha256": [content_sha256(t) for t in texts],
        "source_kind": ["user"] * n, "is_snippet_only": [False] * n,
    }))
    return ids


class FreshProvider:
    """Every query returns documents never returned before (follow-ups keep finding news)."""

    name = "archive"

    def __init__(self, ids: list[str]) -> None:
        self.pool = list(ids)

    def search_many(self, queries, *, k):  # noqa: ANN001, ANN201
        out = []
        for q in queries:
            take, self.pool = self.pool[:3], self.pool[3:]
            out.append([SearchHit("archive", q, r + 1, 1.0, d, None, None, None)
                        for r, d in enumerate(take)])
        return out


class SameProvider:
    """Every query returns the same documents (nothing new after the first round)."""

    name = "archive"

    def __init__(self, ids: list[str]) -> None:
        self.ids = ids[:3]

    def search_many(self, queries, *, k):  # noqa: ANN001, ANN201
        return [[SearchHit("archive", q, r + 1, 1.0, d, None, None, None)
                 for r, d in enumerate(self.ids)] for q in queries]


class EmptyProvider:
    name = "archive"

    def search_many(self, queries, *, k):  # noqa: ANN001, ANN201
        return [[] for _ in queries]


@pytest.fixture
def wh_ids(tmp_path):  # noqa: ANN201
    wh = open_warehouse(str(tmp_path / "home"))
    return wh, _store(wh, 400)


def _run(wh, provider, mode: Mode):  # noqa: ANN001, ANN202
    run = RunRecord(wh, "test", {})
    claims = [{"claim_id": "c", "text": CLAIM}]
    return research(wh, claims, run=run, mode=mode, judge=make_judge("lexical"),
                    providers=[provider], now=utcnow())


@pytest.mark.parametrize("mode", [Mode.STANDARD, Mode.DEEP])
def test_all_rounds_run_while_new_documents_arrive(wh_ids, mode):
    wh, ids = wh_ids
    res = _run(wh, FreshProvider(ids), mode)
    assert res.rounds_run["c"] == MODES[mode].rounds
    rounds = {q["round"] for q in res.queries}
    assert rounds == set(range(1, MODES[mode].rounds + 1))
    texts = [q["text"] for q in res.queries]
    assert len(texts) == len(set(texts)), "a later round repeated an earlier query"


def test_deep_stops_early_on_saturation(wh_ids):
    wh, ids = wh_ids
    res = _run(wh, SameProvider(ids), Mode.DEEP)
    assert res.rounds_run["c"] == 3  # round 1 new, rounds 2 and 3 under 15% new
    assert "satur" in res.stop_reasons["c"] or "15" in res.stop_reasons["c"]


def test_standard_stops_early_when_nothing_is_found(wh_ids):
    wh, _ = wh_ids
    res = _run(wh, EmptyProvider(), Mode.STANDARD)
    assert res.rounds_run["c"] == 2
    assert res.judgments.is_empty()


def test_a_claims_own_document_is_counted_once_however_many_queries_find_it(wh_ids):
    # SameProvider returns the claim's own source among its hits for every query of every
    # round: it is skipped each time and counted once (one document, not one per query).
    wh, ids = wh_ids
    run = RunRecord(wh, "test", {})
    claims = [{"claim_id": "c", "text": CLAIM, "source_doc_id": ids[0]}]
    res = research(wh, claims, run=run, mode=Mode.DEEP, judge=make_judge("lexical"),
                   providers=[SameProvider(ids)], now=utcnow())
    assert len(res.queries) > 1
    assert run.counts["skip:self_lineage"] == 1
    assert ids[0] not in set(res.judgments["doc_id"].to_list())
