"""Real duplicates in real corpora: exact groups and near-duplicates, for a look by eye.

Usage (from the repository root)::

    python -m tests.benchmarks.real_duplicates [CORPUS_JSONL ...] [--show N]

Defaults: ``../shared/data/corpora/reuters21578.jsonl`` and ``bbc-news.jsonl``. For each
corpus it prints the number of groups of identical bodies (after whitespace is normalised;
Reuters has about 279; BBC has 100 groups of identical title and body, 136 of identical body),
how many of those groups the lineage stage puts in one
lineage, and near-duplicate pairs (lineage edges between different bodies) with their Jaccard
and containment. Writes ``tests/benchmarks/out/duplicates-<corpus>.parquet`` (the edges with
both titles) and prints the wall time of the lineage run.
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

import polars as pl

from affidavit.tasks.lineage import build_lineage

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
OUT = Path(__file__).resolve().parent / "out"
_WS = re.compile(r"\s+")


def load(path: Path) -> pl.DataFrame:
    """Read a corpus as a docs frame (doc_id, text, title, published_at)."""
    rows = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
    frame = pl.DataFrame(
        {
            "doc_id": [str(r.get("id")) for r in rows],
            "text": [r.get("text") or "" for r in rows],
            "title": [r.get("title") or "" for r in rows],
            "published_at": [r.get("published_at") for r in rows],
        },
        schema={
            "doc_id": pl.String,
            "text": pl.String,
            "title": pl.String,
            "published_at": pl.String,
        },
    )
    return frame.with_columns(pl.col("published_at").str.to_datetime(time_zone="UTC", strict=False))


def main(argv: list[str] | None = None) -> None:
    """Find and print the duplicates of each corpus."""
    ap = argparse.ArgumentParser(description=__doc__)
    default = [
        str(SHARED / "data" / "corpora" / n) for n in ("reuters21578.jsonl", "bbc-news.jsonl")
    ]
    ap.add_argument("corpora", nargs="*", default=default)
    ap.add_argument("--show", type=int, default=15, help="near-duplicate pairs to print")
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    for corpus in args.corpora:
        path = Path(corpus)
        docs = load(path)
        body = docs.with_columns(
            body=pl.Series([_WS.sub(" ", t).strip() for t in docs["text"].to_list()])
        ).filter(pl.col("body") != "")
        groups = body.group_by("body").agg(pl.col("doc_id"), n=pl.len()).filter(pl.col("n") > 1)
        titled = body.group_by("title", "body").agg(n=pl.len()).filter(pl.col("n") > 1)
        t0 = time.perf_counter()
        res = build_lineage(docs)
        wall = time.perf_counter() - t0
        origin = dict(zip(res.origins["doc_id"], res.origins["origin_doc_id"], strict=True))
        together = sum(len({origin[d] for d in ids}) == 1 for ids in groups["doc_id"].to_list())
        texts = dict(zip(docs["doc_id"], docs["text"], strict=True))
        titles = dict(zip(docs["doc_id"], docs["title"], strict=True))
        edges = res.edges.with_columns(
            same_body=pl.Series(
                [
                    _WS.sub(" ", texts[a]).strip() == _WS.sub(" ", texts[b]).strip()
                    for a, b in res.edges.select("parent_doc_id", "child_doc_id").iter_rows()
                ],
                dtype=pl.Boolean,
            ),
            parent_title=pl.col("parent_doc_id").replace_strict(titles, default=""),
            child_title=pl.col("child_doc_id").replace_strict(titles, default=""),
        )
        edges.write_parquet(OUT / f"duplicates-{path.stem}.parquet")
        near = edges.filter(~pl.col("same_body")).sort("jaccard", descending=True)
        print(
            json.dumps(
                {
                    "corpus": path.name,
                    "documents": docs.height,
                    "identical_body_groups": groups.height,
                    "identical_title_and_body_groups": titled.height,
                    "identical_docs_in_groups": int(groups["n"].sum()) if groups.height else 0,
                    "groups_in_one_lineage": together,
                    "edges": res.edges.height,
                    "near_duplicate_edges": near.height,
                    "by_kind": dict(near.group_by("kind").len().iter_rows()),
                    "independent_origins": res.origins["origin_doc_id"].n_unique(),
                    "lineage_s": round(wall, 2),
                    "docs_per_s": round(docs.height / wall),
                }
            )
        )
        for note in res.notes:
            print(f"  note: {note}")
        step = max(1, near.height // args.show) if near.height else 1
        for row in near[::step].head(args.show).iter_rows(named=True):
            print(
                f"  {row['kind']:<11} J={row['jaccard']:.3f} C={row['containment']:.3f} "
                f"passage={row['shared_passage_chars']}  "
                f"{row['parent_doc_id']} {row['parent_title'][:40]!r}"
                f" -> {row['child_doc_id']} {row['child_title'][:40]!r}"
            )


if __name__ == "__main__":
    main()
