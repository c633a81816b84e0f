"""Backfill in process against a local 2-worker Dask cluster: wall time and equal tables.

Usage (from the repository root)::

    python -m tests.benchmarks.bench_backfill_dask [--corpora A.jsonl B.jsonl …] [--add 25]

Backfills the corpora (default: the BBC, Climate-FEVER Wikipedia and FakeNewsNet corpora of
``../shared/data/corpora``) into two fresh homes, once in process and once with
``dask="local"`` (ingest parsing one task per source, lineage signatures and band joins on the
cluster), and prints one JSON line per run with its wall time, then whether ``documents``,
``signatures``, ``lineage_edges`` and ``origins`` are equal (run ids and times aside). Then
``--add`` documents (the first lines of ``--add-from``, WiCE articles by default) are backfilled
into both homes, in process and on Dask as before: one more JSON line per home (an addition must
stay incremental: ``signatures_added`` equals the documents added) and one for equality.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CORPORA = REPO.parent / "shared" / "data" / "corpora"
DEFAULT = ["bbc-news.jsonl", "climate-fever-wikipedia.jsonl", "fakenewsnet-v1.jsonl"]
ADD_FROM = CORPORA / "wice-dev-articles.jsonl"
TABLES = {"documents": "doc_id", "signatures": "doc_id",
          "lineage_edges": "parent_doc_id, child_doc_id", "origins": "doc_id"}
VOLATILE = {"ingest_run_id", "fetched_at", "computed_at", "created_at"}


def main() -> None:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpora", nargs="*", default=[str(CORPORA / c) for c in DEFAULT])
    ap.add_argument("--add", type=int, default=25, help="documents added after (0: none)")
    ap.add_argument("--add-from", default=str(ADD_FROM))
    args = ap.parse_args()
    root = Path(tempfile.mkdtemp(prefix="affidavit-dask-bench-"))

    from affidavit.warehouse.home import apply_prefect_environment, resolve_home

    apply_prefect_environment(resolve_home(root / "in-process"))
    from affidavit.flows.backfill import backfill_archive
    from affidavit.warehouse.store import Warehouse

    steps = [("", args.corpora)]
    if args.add > 0:
        added = root / "added.jsonl"
        with open(args.add_from, encoding="utf-8") as src:
            added.write_text("".join(line for _, line in zip(range(args.add), src, strict=False)),
                             encoding="utf-8")
        steps.append(("add ", [str(added)]))
    for step, paths in steps:
        tables = {}
        for name, dask in (("in-process", None), ("dask local 2 workers", "local")):
            home = root / name.split()[0]
            t0 = time.perf_counter()
            res = backfill_archive(paths, home=str(home), dask=dask)
            wall = time.perf_counter() - t0
            wh = Warehouse(resolve_home(home))
            tables[name] = {
                t: [{k: v for k, v in r.items() if k not in VOLATILE}
                    for r in wh.query(f"select * from {t} order by {key}").to_dicts()]
                for t, key in TABLES.items()}
            print(json.dumps({"run": step + name, "wall_s": round(wall, 1),
                              "documents_added": res.counts.get("documents_added", 0),
                              "signatures_added": res.counts.get("signatures_added", 0),
                              "lineage_edges_added": res.counts.get("lineage_edges_added", 0),
                              "on_dask": {k: v for k, v in res.counts.items()
                                          if "dask" in k}}), flush=True)
        a, b = tables.values()
        print(json.dumps({"step": step.strip() or "backfill",
                          "tables_equal": {t: a[t] == b[t] for t in TABLES},
                          "rows": {t: len(a[t]) for t in TABLES}}), flush=True)


if __name__ == "__main__":
    main()
