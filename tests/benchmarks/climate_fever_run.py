"""Climate-FEVER end to end: backfill its Wikipedia corpus, check N claims, print the confusion.

Usage (from the repository root)::

    python -m tests.benchmarks.climate_fever_run [--limit 200] [--home DIR] [--mode standard]

Backfills ``../shared/data/corpora/climate-fever-wikipedia.jsonl`` into a fresh home (unless
``--home`` already holds it), runs ``factcheck`` on the first ``--limit`` claims of
``../shared/data/claims/climate-fever/dataset/climate-fever.jsonl``, and prints documents/s,
claims/s and the confusion matrix of our statuses against Climate-FEVER's claim labels.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data"
STATUSES = ["SUPPORTED", "PARTIAL", "CONTESTED", "CONTRADICTED", "UNVERIFIED"]
LABELS = ["SUPPORTS", "REFUTES", "DISPUTED", "NOT_ENOUGH_INFO"]


def main() -> None:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=200)
    ap.add_argument("--home", default=None)
    ap.add_argument("--mode", default="standard")
    ap.add_argument("--claims", default=str(DATA / "claims/climate-fever/dataset/"
                                            "climate-fever.jsonl"))
    ap.add_argument("--corpus", default=str(DATA / "corpora/climate-fever-wikipedia.jsonl"))
    args = ap.parse_args()
    home = args.home or tempfile.mkdtemp(prefix="affidavit-cf-")

    from affidavit.warehouse.home import apply_prefect_environment, resolve_home

    apply_prefect_environment(resolve_home(home))  # offline, quiet, before Prefect is imported
    from affidavit.flows.backfill import backfill_archive
    from affidavit.flows.factcheck import factcheck
    from affidavit.warehouse.store import Warehouse

    t0 = time.perf_counter()
    b = backfill_archive([args.corpus], home=home)
    t1 = time.perf_counter()
    r = factcheck(claims_path=args.claims, limit=args.limit, home=home, mode=args.mode)
    t2 = time.perf_counter()
    wh = Warehouse(resolve_home(home))
    df = wh.query(
        "select c.external_label as label, v.status, count(*) as n from verdicts v "
        "join claims c using (claim_id) where v.run_id = $run group by 1, 2",
        {"run": r.run_id},
    )
    matrix = {lab: dict.fromkeys(STATUSES, 0) for lab in LABELS}
    for lab, status, n in df.iter_rows():
        matrix.setdefault(lab or "?", dict.fromkeys(STATUSES, 0))[status] = n
    added = b.counts.get("documents_added", 0)
    print(json.dumps({
        "home": home,
        "backfill_documents_added": added,
        "backfill_seconds": round(t1 - t0, 1),
        "backfill_documents_per_s": round(added / (t1 - t0), 1) if added else None,
        "claims": len(r.verdicts),
        "run_seconds": round(t2 - t1, 1),
        "claims_per_s": round(len(r.verdicts) / (t2 - t1), 2) if r.verdicts else None,
    }))
    corner = "label / status"
    print(f"{corner:<18}" + "".join(f"{s:>14}" for s in STATUSES))
    for lab, row in matrix.items():
        print(f"{lab:<18}" + "".join(f"{row[s]:>14}" for s in STATUSES))


if __name__ == "__main__":
    main()
