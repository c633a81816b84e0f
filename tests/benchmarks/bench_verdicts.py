"""Verdicts end to end: backfill a verdict set, check its claims, score the verdicts.

Usage (from the repository root)::

    python -m tests.benchmarks.bench_verdicts SET_DIR [--corpus FILE ...] [--limit N]
        [--mode standard] [--home DIR] [--judge lexical]

``SET_DIR`` is a verdict benchmark folder of the shape of ``../shared/bench/verdicts-dev``:
``claims.jsonl`` (one claim a row, its text in ``claim``) and optionally ``documents.jsonl`` (a
dump: id, url, host, title, text, published_at, wayback_first_seen). The script builds a fresh
home (a temporary folder unless ``--home`` is given), backfills ``documents.jsonl`` and every
``--corpus`` file through the real backfill flow (all into one home, so every world is a
distractor for the others), runs the claims through the main job (``factcheck``, as
``affidavit run --claims`` does), exports ``verdicts_latest`` as ``claim, status, confidence,
supporting_origins, refuting_origins`` (one row per claim of the set, matched by claim id)
to ``bench/predictions.jsonl`` in the home, runs
``score_verdicts.py SET_DIR predictions.jsonl`` (the one beside the set folder, else
``../shared/bench/score_verdicts.py``, or ``--scorer``), prints the confusion matrix
(expected status or side → predicted status) and, as its LAST line, the scorer's JSON. Where the
claims list their gold documents (``supporting_docs`` / ``refuting_docs``, as verdicts-dev does),
a ``retrieval`` line first gives the share of them judged for their claim (found by the research
loop) and the share admitted on the right side.

With ``--limit N`` only the first N claims are checked and scored (the scorer then sees a
claims file of those N rows, ``bench/claims.jsonl``, written next to the predictions).

Examples::

    python -m tests.benchmarks.bench_verdicts ../shared/bench/verdicts-dev
    python -m tests.benchmarks.bench_verdicts ../shared/bench/verdicts-climate-fever-dev \\
        --corpus ../shared/data/corpora/climate-fever-wikipedia.jsonl --limit 200
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCORER = REPO.parent / "shared" / "bench" / "score_verdicts.py"
"""The shared scorer where the repository sits beside ``shared/``."""


def find_scorer(set_dir: Path, given: str | None = None) -> Path:
    """The scorer to run: ``given``, else the one beside the set, else :data:`SCORER`.

    A set under ``shared/bench`` has ``score_verdicts.py`` in its parent folder, wherever the
    repository is cloned; a set elsewhere is scored by the shared one beside the repository.
    """
    if given:
        return Path(given)
    beside = set_dir.resolve().parent / "score_verdicts.py"
    return beside if beside.is_file() else SCORER
STATUSES = ["SUPPORTED", "PARTIAL", "CONTESTED", "CONTRADICTED", "UNVERIFIED"]
SIDES = ["support", "refute", "disputed", "none"]
EXPORT_COLUMNS = ["claim", "status", "confidence", "supporting_origins", "refuting_origins"]


def _read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _fold(text: str | None) -> str:
    return " ".join((text or "").lower().split())


def _print_confusion(gold: list[dict], preds: list[dict]) -> None:
    """Print expected (status, else side) → predicted status counts, one row per expected."""
    by_text = {_fold(p["claim"]): p["status"] for p in preds}
    key = "expected_status" if any(g.get("expected_status") for g in gold) else "expected_side"
    rows_order = STATUSES if key == "expected_status" else SIDES
    matrix: dict[str, Counter[str]] = defaultdict(Counter)
    for g in gold:
        matrix[g.get(key) or "?"][by_text.get(_fold(g["claim"]), "UNVERIFIED")] += 1
    corner = f"{key.removeprefix('expected_')} / predicted"
    print(f"{corner:<22}" + "".join(f"{s:>14}" for s in STATUSES) + f"{'total':>8}")
    for lab in [r for r in rows_order if r in matrix] + [r for r in matrix if r not in rows_order]:
        row = matrix[lab]
        print(f"{lab:<22}" + "".join(f"{row[s]:>14}" for s in STATUSES)
              + f"{sum(row.values()):>8}")


def _retrieval_recall(wh: object, gold: list[dict], docs_file: Path) -> dict | None:
    """Share of each claim's gold documents (``supporting_docs`` + ``refuting_docs``) judged.

    Only for sets whose claims list their documents by the dump's ``id`` (verdicts-dev): a gold
    document that was never judged for its claim was not found by the research loop, and no
    judge can use it. Also reports how many were admitted with a stance on the right side.

    Returns:
        ``{"gold_docs", "judged", "recall", "right_side", "right_side_share"}`` or None.
    """
    if not docs_file.is_file() or not any("supporting_docs" in g for g in gold):
        return None
    df = wh.query(  # type: ignore[attr-defined]
        "select v.claim_text, d.source_id, j.stance, j.is_admitted from judgments j "
        "join verdicts_latest v on v.run_id = j.run_id and v.claim_id = j.claim_id "
        "join documents d on d.doc_id = j.doc_id"
    )
    judged: dict[str, dict[str, str]] = defaultdict(dict)
    for claim, sid, stance, admitted in df.iter_rows():
        judged[_fold(claim)][str(sid)] = stance if admitted else "REJECTED"
    n = hit = right = 0
    for g in gold:
        seen = judged.get(_fold(g["claim"]), {})
        for sid, want in ([(d, ("SUPPORTS", "PARTIAL")) for d in g.get("supporting_docs", [])]
                          + [(d, ("REFUTES",)) for d in g.get("refuting_docs", [])]):
            n += 1
            hit += sid in seen
            right += seen.get(sid) in want
    if not n:
        return None
    return {"gold_docs": n, "judged": hit, "recall": round(hit / n, 4), "right_side": right,
            "right_side_share": round(right / n, 4)}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print the confusion matrix, then the scorer's JSON as the last line."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("set_dir", help="verdict set folder (claims.jsonl [, documents.jsonl])")
    ap.add_argument("--corpus", action="append", default=[], help="extra documents to backfill")
    ap.add_argument("--limit", type=int, default=None, help="check only the first N claims")
    ap.add_argument("--mode", default="standard")
    ap.add_argument("--judge", default="lexical")
    ap.add_argument("--home", default=None, help="home to build (default: a new temp folder)")
    ap.add_argument("--scorer", default=None, help="score_verdicts.py to run (default: the one "
                    "beside the set folder, else ../shared/bench/score_verdicts.py)")
    args = ap.parse_args(argv)

    set_dir = Path(args.set_dir)
    claims_file = set_dir / "claims.jsonl"
    if not claims_file.is_file():
        print(f"error: {claims_file} not found", file=sys.stderr)
        return 2
    missing = [c for c in args.corpus if not Path(c).is_file()]
    if missing:
        print(f"error: corpus file not found: {missing[0]}", file=sys.stderr)
        return 2
    if args.limit is not None and args.limit < 1:
        print("error: --limit must be at least 1", file=sys.stderr)
        return 2
    scorer = find_scorer(set_dir, args.scorer)
    if not scorer.is_file():
        print(f"error: scorer not found at {scorer} (give it with --scorer)", file=sys.stderr)
        return 2
    home = Path(args.home or tempfile.mkdtemp(prefix="affidavit-verdicts-"))
    home.mkdir(parents=True, exist_ok=True)
    if any(home.iterdir()):
        print(f"error: home {home} is not empty (the benchmark builds a fresh home)",
              file=sys.stderr)
        return 2

    from affidavit.warehouse.home import apply_prefect_environment, resolve_home

    apply_prefect_environment(resolve_home(str(home)))  # offline and quiet, before Prefect loads
    from affidavit.flows.backfill import backfill_archive
    from affidavit.flows.factcheck import factcheck
    from affidavit.schemas.claims import make_claim_id
    from affidavit.tasks.claims_file import read_claims_file
    from affidavit.warehouse.store import Warehouse

    gold = _read_jsonl(claims_file)
    if args.limit is not None:
        gold = gold[: args.limit]
    out_dir = home / "bench"
    out_dir.mkdir()
    run_claims = out_dir / "claims.jsonl"
    with run_claims.open("w", encoding="utf-8") as f:
        for g in gold:
            f.write(json.dumps(g) + "\n")

    paths = [str(set_dir / "documents.jsonl")] if (set_dir / "documents.jsonl").is_file() else []
    paths += list(args.corpus)
    t0 = time.perf_counter()
    added = 0
    if paths:
        b = backfill_archive(paths, home=str(home))
        added = b.counts.get("documents_added", 0)
    t1 = time.perf_counter()
    r = factcheck(claims_path=str(run_claims), home=str(home), mode=args.mode, judge=args.judge)
    t2 = time.perf_counter()

    wh = Warehouse(resolve_home(str(home)))
    df = wh.query(
        "select claim_id, status, confidence, supporting_origins, refuting_origins "
        "from verdicts_latest"
    )
    by_id = {r["claim_id"]: r for r in df.to_dicts()}
    # the claim texts as the run read them (control characters removed or repaired, as
    # "we\x92ve" -> "we’ve"), by the set's own claim id where it has one
    read, _, _ = read_claims_file(run_claims)
    as_read = {r["external_id"]: r["text"] for r in read if r.get("external_id")}
    # one row per claim of the set, under its own text: claims whose texts differ only in what
    # the claim id normalises away (case, spacing, a final full stop) share one verdict
    preds = [{"claim": g["claim"], **{k: by_id[cid][k] for k in EXPORT_COLUMNS[1:]}}
             for g in gold
             if (cid := make_claim_id(as_read.get(str(g.get("claim_id")), g["claim"])))
             in by_id]
    pred_path = out_dir / "predictions.jsonl"
    with pred_path.open("w", encoding="utf-8") as f:
        for p in preds:
            f.write(json.dumps(p) + "\n")

    print(json.dumps({
        "home": str(home),
        "documents_added": added,
        "backfill_seconds": round(t1 - t0, 1),
        "claims": len(gold),
        "verdicts": len(r.verdicts),
        "run_seconds": round(t2 - t1, 1),
        "predictions": str(pred_path),
    }))
    recall = _retrieval_recall(wh, gold, set_dir / "documents.jsonl")
    if recall is not None:
        print(json.dumps({"retrieval": recall}))
    _print_confusion(gold, preds)
    sys.stdout.flush()
    scored = subprocess.run(
        [sys.executable, str(scorer), str(out_dir if args.limit is not None else set_dir),
         str(pred_path)],
        capture_output=True, text=True, check=False,
    )
    if scored.returncode != 0:
        print(scored.stderr.strip(), file=sys.stderr)
        return scored.returncode
    print(scored.stdout.strip().splitlines()[-1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
