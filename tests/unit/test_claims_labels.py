"""Check-worthiness against hand-labelled sentences from real feeds.

The fixture (tests/fixtures/claims/checkworthiness_labels.jsonl, described in
tests/fixtures/claims/README.md) holds sentences extracted from real feeds and WiCE articles,
labelled checkable or not. Scored alone, the sentences the extractor keeps must be mostly
checkable, and it must keep nearly every checkable one. The floors sit below the figures
measured when the labels were made (dev: precision 0.60, recall 0.94; held-out: 0.48, 0.93;
base rate of checkable sentences 0.40), so that a change which throws away the gain fails.
In-context figures (two claims per feed entry) come from tests/benchmarks/bench_extraction.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from affidavit.tasks.claims import DEFAULT_MIN_WORTHINESS, score_check_worthiness

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "claims" / \
    "checkworthiness_labels.jsonl"


def _rows(split: str) -> list[dict]:
    rows = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    return [r for r in rows if r["split"] == split and not r["is_text_cut"]]


@pytest.mark.parametrize(("split", "min_precision", "min_recall"),
                         [("dev", 0.55, 0.85), ("heldout", 0.45, 0.85)])
def test_kept_sentences_are_mostly_checkable(split: str, min_precision: float,
                                             min_recall: float) -> None:
    rows = _rows(split)
    assert len(rows) >= 50
    kept = [r for r in rows if score_check_worthiness(r["text"]) >= DEFAULT_MIN_WORTHINESS]
    base_rate = sum(r["checkable"] for r in rows) / len(rows)
    precision = sum(r["checkable"] for r in kept) / len(kept)
    recall = sum(r["checkable"] for r in kept) / sum(r["checkable"] for r in rows)
    assert precision >= min_precision > base_rate
    assert recall >= min_recall


@pytest.mark.parametrize(("reason", "max_kept_share"),
                         [("code", 0.0), ("update note", 0.0), ("personal anecdote", 0.0),
                          ("promotion", 0.35), ("teaser", 0.4)])
def test_classes_of_non_claims_are_dropped(reason: str, max_kept_share: float) -> None:
    rows = [r for r in _rows("dev") if r["reason"] == reason]
    assert rows
    kept = [r["text"] for r in rows if score_check_worthiness(r["text"]) >= DEFAULT_MIN_WORTHINESS]
    assert len(kept) <= max_kept_share * len(rows), kept
