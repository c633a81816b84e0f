"""Tests of flows.preflight.corpus_idf: document frequencies kept, only new documents read."""

from __future__ import annotations

import polars as pl
import pytest

from affidavit.flows.preflight import corpus_idf
from affidavit.tasks.judge_lexical import compute_idf

TEXTS = [
    "The glacier melted faster than in any year on record.",
    "The river froze early and ferries stopped on 3 December.",
    "Ferries on the lake resumed after the ice broke.",
    "A record 8 percent of the glacier's ice was lost in the summer.",
    "The council said the river ferry would run every 20 minutes.",
]


def _docs(texts: list[str], start: int) -> pl.DataFrame:
    ids = [f"d{start + k}" for k in range(len(texts))]
    return pl.DataFrame({
        "doc_id": ids,
        "content_sha256": [f"h{i}" for i in ids],
        "source_kind": ["user"] * len(ids),
        "is_snippet_only": [False] * len(ids),
        "text": texts,
    })


def test_idf_is_brought_up_to_date_from_new_documents_only(warehouse, monkeypatch):
    warehouse.append_unique("documents", _docs(TEXTS[:3], 0))
    assert corpus_idf(warehouse) == pytest.approx(compute_idf(TEXTS[:3]))
    read: list[str] = []
    texts = warehouse.texts

    def spy(ids):
        ids = list(ids)
        read.extend(ids)
        return texts(ids)

    monkeypatch.setattr(warehouse, "texts", spy)
    warehouse.append_unique("documents", _docs(TEXTS[3:], 3))
    assert corpus_idf(warehouse) == pytest.approx(compute_idf(TEXTS))
    assert sorted(read) == ["d3", "d4"]
    read.clear()
    assert corpus_idf(warehouse) == pytest.approx(compute_idf(TEXTS))  # cached: reads nothing
    assert read == []


def test_weights_of_another_tokenizer_are_not_reused(warehouse, monkeypatch):
    import affidavit.tasks.judge_lexical as lexical

    warehouse.append_unique("documents", _docs(TEXTS, 0))
    assert corpus_idf(warehouse) == pytest.approx(compute_idf(TEXTS))
    # the same documents counted by a tokenizer that reads every word as one term
    monkeypatch.setattr(lexical, "tokenize", lambda text: ["term"])
    monkeypatch.setattr(lexical, "tokenizer_version", lambda: "other")
    assert set(corpus_idf(warehouse)) == {"term", ""}
