"""Research fan-out: wall time of one run on one core, on every core and on Dask; same verdicts?

Usage (from the repository root)::

    python -m tests.benchmarks.bench_fanout [--limit 400] [--home DIR] [--configs 1,2,dask]

Backfills ``../shared/data/corpora/climate-fever-wikipedia.jsonl`` into ``--home`` (a fresh
temporary one by default; skipped when the home already holds documents), then runs
``factcheck`` on the first ``--limit`` Climate-FEVER claims once per configuration:

* ``1``, ``2`` …: that many local worker processes (``1`` runs the batches one after the
  other in the flow's process: the sequential reference);
* ``dask``: a temporary local Dask cluster of 2 worker processes.

Prints a CPU control first (two pure-Python loops one after the other, then on two processes:
whether the machine had a free second core), then one JSON line per configuration: wall time,
claims, verdicts by status, and whether the verdicts, judgments and queries equal those of the
first configuration (run and time columns aside). The first configuration also pays the start
of Prefect's local server.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"

VOLATILE = {"run_id", "decided_at", "expires_at", "judged_at", "issued_at", "query_id"}
"""Columns that name the run or its clock: they differ between two runs by construction."""


def _stable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k not in VOLATILE} for r in rows]


def run_tables(wh: Any, run_id: str) -> dict[str, list[dict[str, Any]]]:
    """Return the run's verdicts, judgments and queries, sorted, without run/time columns."""
    out = {}
    for table, order in (("verdicts", "claim_id"),
                         ("judgments", "claim_id, doc_id, judge"),
                         ("queries", "claim_id, round, side, text")):
        df = wh.query(f"select * from {table} where run_id = $r order by {order}", {"r": run_id})
        out[table] = _stable(df.to_dicts())
    return out


def _burn(n: int) -> float:
    t0 = time.perf_counter()
    x = 0
    for i in range(n):
        x += i * i
    return time.perf_counter() - t0


def cpu_control(n: int = 20_000_000) -> dict[str, float]:
    """Time two pure-Python loops one after the other, then on two processes at once.

    On a machine with a free second core the second figure is about half the first; on a
    shared machine whose cores are busy it is not, and neither can a parallel run be faster.
    """
    import multiprocessing

    t0 = time.perf_counter()
    _burn(n)
    _burn(n)
    seq = time.perf_counter() - t0
    t0 = time.perf_counter()
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        pool.map(_burn, [n, n])
    return {"cpu_control_sequential_s": round(seq, 2),
            "cpu_control_two_processes_s": round(time.perf_counter() - t0, 2)}


def main() -> None:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=400)
    ap.add_argument("--home", default=None)
    ap.add_argument("--mode", default="standard")
    ap.add_argument("--configs", default="1,2", help="comma-separated: worker counts, 'dask'")
    ap.add_argument("--claims", default=str(DATA / "claims/climate-fever/dataset/"
                                            "climate-fever.jsonl"))
    ap.add_argument("--corpus", default=str(DATA / "corpora/climate-fever-wikipedia.jsonl"))
    args = ap.parse_args()
    home = args.home or tempfile.mkdtemp(prefix="affidavit-fanout-")

    from affidavit.warehouse.home import apply_prefect_environment, resolve_home

    apply_prefect_environment(resolve_home(home))  # offline, quiet, before Prefect is imported
    from affidavit.flows.backfill import backfill_archive
    from affidavit.flows.factcheck import factcheck
    from affidavit.warehouse.store import Warehouse

    wh = Warehouse(resolve_home(home))
    if wh.count("documents") == 0:
        t0 = time.perf_counter()
        b = backfill_archive([args.corpus], home=home)
        print(json.dumps({"backfill_documents_added": b.counts.get("documents_added", 0),
                          "backfill_s": round(time.perf_counter() - t0, 1), "home": home}),
              flush=True)
    print(json.dumps(cpu_control()), flush=True)
    reference = None
    for config in args.configs.split(","):
        kw: dict[str, Any] = ({"dask": "local", "workers": 2} if config == "dask"
                              else {"workers": int(config)})
        t0 = time.perf_counter()
        r = factcheck(claims_path=args.claims, limit=args.limit, home=home, mode=args.mode, **kw)
        wall = time.perf_counter() - t0
        tables = run_tables(wh, r.run_id)
        if reference is None:
            reference = tables
        by_status: dict[str, int] = {}
        for v in r.verdicts:
            by_status[v["status"]] = by_status.get(v["status"], 0) + 1
        print(json.dumps({
            "config": "dask local 2 workers" if config == "dask" else f"workers={config}",
            "claims": len(r.verdicts), "wall_s": round(wall, 1),
            "batches": {k: v for k, v in r.counts.items() if k.startswith("batches_")},
            "by_status": by_status,
            "identical_to_first": {t: tables[t] == reference[t] for t in tables},
            "rows": {t: len(tables[t]) for t in tables},
        }), flush=True)


if __name__ == "__main__":
    main()
