"""Lineage quality on a lineage benchmark set, per pool and over the whole corpus at once.

Usage (from the repository root)::

    python -m tests.benchmarks.bench_lineage [BENCH_DIR] [--variant NAME ...]

BENCH_DIR defaults to ``../shared/bench/lineage-dev``. For each mode (``pool``: one run per pool,
the documents gathered for one claim; ``corpus``: one run over every document) the script
writes ``tests/benchmarks/out/lineage-<set>-<mode>[-<variant>].parquet`` (doc_id, origin_id),
then runs ``score_lineage.py`` on it and prints its JSON line and the wall time.

A verdict set (``../shared/bench/verdicts-dev``: ``documents.jsonl`` keyed by ``id`` and
``origins.jsonl`` with world, role and origin of every document) is read too: its worlds are the
pools, and its labels are converted to ``score_lineage.py``'s shape under
``tests/benchmarks/out/<set>-labels/`` (no ambiguous pairs).

Variants (each a change to the default ``LineageConfig``, for the threshold study; see
``VARIANTS``): ``--variant all`` runs every one.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import time
from pathlib import Path

import polars as pl

from affidavit.tasks.lineage import LineageConfig, build_lineage

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
OUT = Path(__file__).resolve().parent / "out"

VARIANTS = {
    "default": {},
    "no-passages": {"find_passages": False},
    "containment-tie-break": {"containment_tie_break": True},
    "capture-upper-bound": {"capture_is_upper_bound": True},
    "quote-bar-flat": {"quote_chars_per_decade": 0.0},
    "passage-70": {"min_passage_chars": 70, "quote_chars_per_decade": 0.0},
    "syn-containment-off": {"syndication_containment": 1.01},
    "cand-0.5": {"candidate_threshold": 0.5},
    "quote-all-parents": {"quote_single_parent": False},
    "quote-runs-off": {"quote_max_runs": 0},
    "quote-runs-3": {"quote_max_runs": 3},
    "quote-any-passage": {"quote_full_sentence": False},
    "quote-sentence-always": {"quote_sentence_exempt_chars": 0},
    "quote-bar-70": {"quote_chars_per_decade": 22.0},
}


def load_docs(bench: Path) -> pl.DataFrame:
    """Read ``documents.jsonl`` with times parsed as UTC datetimes (``id`` read as ``doc_id``)."""
    docs = pl.read_ndjson(bench / "documents.jsonl", infer_schema_length=None)
    if "doc_id" not in docs.columns and "id" in docs.columns:
        docs = docs.rename({"id": "doc_id"})
    for col in ("published_at", "wayback_first_seen"):
        if col in docs.columns:
            docs = docs.with_columns(
                pl.col(col).cast(pl.String).str.to_datetime(time_zone="UTC", strict=False)
            )
    return docs


def verdict_set_labels(bench: Path) -> Path:
    """Write a verdict set's ``origins.jsonl`` as lineage labels (one pool per world)."""
    rows = pl.read_ndjson(bench / "origins.jsonl")
    labels = rows.select(
        doc_id=pl.col("id"),
        pool=pl.col("world"),
        origin_id=pl.col("origin_id"),
        parent_id=pl.when(pl.col("origin_id") != pl.col("id")).then(pl.col("origin_id")),
        relation=pl.col("role"),
    )
    out = OUT / f"{bench.name}-labels"
    out.mkdir(parents=True, exist_ok=True)
    labels.write_ndjson(out / "labels.jsonl")
    (out / "ambiguous_pairs.jsonl").write_text("")
    return out


def predict(
    docs: pl.DataFrame, labels: pl.DataFrame, *, mode: str, config: LineageConfig
) -> tuple[pl.DataFrame, list[str]]:
    """Return (doc_id, origin_id) predictions and the run notes."""
    if mode == "corpus":
        res = build_lineage(docs, config=config)
        return res.origins.select("doc_id", origin_id="origin_doc_id"), res.notes
    pools = docs.join(labels.select("doc_id", "pool"), on="doc_id", how="left")
    parts, notes = [], []
    for (_pool,), group in pools.group_by("pool", maintain_order=True):
        res = build_lineage(group.drop("pool"), config=config)
        parts.append(res.origins.select("doc_id", origin_id="origin_doc_id"))
        notes.extend(res.notes)
    return pl.concat(parts), notes


def main(argv: list[str] | None = None) -> None:
    """Run the benchmark and print the scorer's figures."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("bench", nargs="?", default=str(SHARED / "bench" / "lineage-dev"))
    ap.add_argument("--variant", action="append", choices=[*sorted(VARIANTS), "all"], default=None)
    ap.add_argument("--mode", action="append", choices=["pool", "corpus"], default=None)
    args = ap.parse_args(argv)
    bench = Path(args.bench)
    docs = load_docs(bench)
    OUT.mkdir(parents=True, exist_ok=True)
    scorer = bench.parent / "score_lineage.py"
    label_dir = bench
    if not (bench / "labels.jsonl").exists() and (bench / "origins.jsonl").exists():
        label_dir = verdict_set_labels(bench)
    labels = pl.read_ndjson(label_dir / "labels.jsonl")
    variants = args.variant or ["default"]
    if "all" in variants:
        variants = list(VARIANTS)
    for variant in variants:
        config = dataclasses.replace(LineageConfig(), **VARIANTS[variant])
        for mode in args.mode or ["pool", "corpus"]:
            t0 = time.perf_counter()
            pred, notes = predict(docs, labels, mode=mode, config=config)
            wall = time.perf_counter() - t0
            suffix = "" if variant == "default" else f"-{variant}"
            path = OUT / f"lineage-{bench.name}-{mode}{suffix}.parquet"
            pred.write_parquet(path)
            score = subprocess.run(
                [sys.executable, str(scorer), str(label_dir), str(path)],
                check=True,
                capture_output=True,
                text=True,
            ).stdout.strip()
            print(f"[{variant}] {mode}: {score}")
            print(
                f"[{variant}] {mode}: {docs.height} documents in {wall:.2f} s "
                f"({docs.height / wall:.0f} docs/s); notes: {len(notes)}"
                + (f", e.g. {json.dumps(sorted(set(notes))[:3])}" if notes else "")
            )


if __name__ == "__main__":
    main()
