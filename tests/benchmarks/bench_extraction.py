"""Precision of claim extraction from feeds and articles, against hand labels.

The labels (tests/fixtures/claims/checkworthiness_labels.jsonl) mark each sentence extracted
from five real feeds and one WiCE article (split ``dev``, used while changing the extractor)
and from two other feeds and another WiCE article (split ``heldout``, labelled blind to which
extractor version produced each sentence) as checkable or not: it states a fact that can be
checked on its own (a figure, a dated event, an attribution, a named entity with a predicate),
not an opinion, question, teaser, promotion, anecdote, code or page furniture.

This script extracts claims again with the current code, the way the product does (feed
entries through the feed reader, the two best claims per entry; a whole article with no cap),
and prints one JSON line per split: precision of the original extractor (the fixture's
``extracted_before`` flags) and of the current one, how many checkable sentences each keeps,
and how many extracted sentences have no label (label them before trusting the figure).
Run from the repository root:

    python -m tests.benchmarks.bench_extraction [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import polars as pl

from affidavit.flows.factcheck import CLAIMS_PER_FEED_DOCUMENT
from affidavit.tasks.claims import extract_claims
from affidavit.tasks.ingest import ingest_path

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "claims" / \
    "checkworthiness_labels.jsonl"


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def extract_source(data: Path, source: str) -> list[str]:
    """Extract claims from one labelled source as the product does; return their texts."""
    if "#" in source:  # corpora/<file>.jsonl#<id>: one article, every claim
        rel, doc_id = source.split("#", 1)
        with (data / rel).open(encoding="utf-8") as fh:
            for line in fh:
                doc = json.loads(line)
                if doc.get("id") == doc_id:
                    return [c.text for c in extract_claims(doc.get("text") or "")]
        raise FileNotFoundError(source)
    out: list[str] = []
    for batch in ingest_path(str(data / source), kind="feed"):
        docs = pl.from_arrow(batch.documents)
        assert isinstance(docs, pl.DataFrame)
        for text in docs["text"].to_list():
            out += [c.text for c in extract_claims(text or "",
                                                   max_claims=CLAIMS_PER_FEED_DOCUMENT)]
    return out


def main() -> None:
    """Print one JSON line of figures per split."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", type=Path,
                    default=Path(__file__).resolve().parents[3] / "shared" / "data")
    args = ap.parse_args()
    rows = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]
    labels = {(r["source"], r["text_sha256"]): r for r in rows}
    by_split: dict[str, dict[str, Any]] = defaultdict(lambda: defaultdict(int))
    for r in rows:
        s = by_split[r["split"]]
        if r["extracted_before"]:
            s["before_extracted"] += 1
            s["before_checkable"] += r["checkable"]
    for source in sorted({r["source"] for r in rows}):
        split = next(r["split"] for r in rows if r["source"] == source)
        s = by_split[split]
        for text in dict.fromkeys(extract_source(args.data, source)):
            label = labels.get((source, _sha(text)))
            if label is None:
                s["after_unlabelled"] += 1
                continue
            s["after_extracted"] += 1
            s["after_checkable"] += label["checkable"]
    for split, s in sorted(by_split.items()):
        print(json.dumps({
            "split": split,
            "sources": sorted({r["source"].split("/")[-1] for r in rows if r["split"] == split}),
            "precision_before": round(s["before_checkable"] / max(1, s["before_extracted"]), 3),
            "precision_after": round(s["after_checkable"] / max(1, s["after_extracted"]), 3),
            "extracted_before": s["before_extracted"],
            "extracted_after": s["after_extracted"],
            "checkable_kept_before": s["before_checkable"],
            "checkable_kept_after": s["after_checkable"],
            "unlabelled_after": s["after_unlabelled"],
        }))


if __name__ == "__main__":
    main()
