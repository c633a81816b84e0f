"""Benchmark a judge on judge-dev (or a held-out set built the same way).

Usage (from the repository root)::

    python -m tests.benchmarks.bench_judge [BENCH_DIR] [JUDGE] [--idf batch|corpus]
    python -m tests.benchmarks.bench_judge --verdict-set ../shared/bench/verdicts-dev [--limit N]

``BENCH_DIR`` defaults to ``../shared/bench/judge-dev`` and ``JUDGE`` to ``lexical`` (``llm``
reads its endpoint from ``AFFIDAVIT_LLM_*``). ``--idf corpus`` gives the lexical judge a corpus
IDF computed from the document corpora under ``../shared/data/corpora`` (the stand-in for the
warehouse's IDF); ``batch`` (default) lets it use the IDF of the batch's own documents.
Writes ``tests/benchmarks/out/judge_<set>_<judge>.jsonl`` and prints the scorer's JSON line and
the throughput (wall clock, and per CPU second, which does not depend on other load).

``--verdict-set DIR`` reads a verdict set instead (``claims.jsonl`` with ``supporting_docs`` /
``refuting_docs``, ``documents.jsonl``, ``origins.jsonl``) and judges every claim against every
document of the set (the other worlds are distractors), with the IDF of the set's documents as
the warehouse would give it. It prints the side confusion of the pairs (support = SUPPORTS or
PARTIAL on a listed supporting document, refute = REFUTES on a listed refuting document, none
= any other document) and the statuses a tribunal following the set's README rules would give
from those judgments alone (no retrieval, no lineage errors): a quick upper bound of what the
judge allows end to end, not a substitute for ``bench_verdicts``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from affidavit.tasks.judge_lexical import compute_idf
from affidavit.tasks.judge_llm import llm_config_from_env
from affidavit.tasks.judges import make_judge

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
OUT = REPO / "tests" / "benchmarks" / "out"


def corpus_idf() -> dict[str, float]:
    """IDF over the documents of the shared corpora (no benchmark labels involved)."""
    texts: list[str] = []
    for name in ("climate-fever-wikipedia.jsonl", "reuters21578.jsonl", "bbc-news.jsonl"):
        path = SHARED / "data" / "corpora" / name
        if path.exists():
            with open(path) as f:
                texts.extend(json.loads(line).get("text", "") for line in f if line.strip())
    return compute_idf(texts)


def _status(sup: int, par: int, ref: int) -> str:
    """Status under the verdict sets' standard-mode rules (their README) from origin counts."""
    if ref and not (sup or par):
        return "CONTRADICTED"
    if ref:
        return "CONTRADICTED" if ref >= 2 and ref >= 2 * max(sup, par and 1) else "CONTESTED"
    if sup >= 2:
        return "SUPPORTED"
    return "PARTIAL" if sup or par else "UNVERIFIED"


def bench_verdict_pairs(bench: Path, judge_name: str, limit: int | None, show: int) -> None:
    """Judge every claim of a verdict set against every document; print pair and status scores."""
    claims = [json.loads(x) for x in open(bench / "claims.jsonl") if x.strip()][:limit]
    docs = [json.loads(x) for x in open(bench / "documents.jsonl") if x.strip()]
    origin = {}
    for x in open(bench / "origins.jsonl"):
        if x.strip():
            row = json.loads(x)
            origin[row["id"]] = row["origin_id"]
    idf = compute_idf(d["text"] for d in docs)
    judge = make_judge(judge_name, llm_config=llm_config_from_env(), idf=idf)
    pairs = [(c["claim"], d["text"]) for c in claims for d in docs]
    t0, c0 = time.perf_counter(), time.process_time()
    results = judge.judge_batch(pairs)
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    conf: dict[str, dict[str, int]] = {}
    status_conf: dict[str, dict[str, int]] = {}
    n_ok = 0
    k = 0
    for c in claims:
        sup_docs, ref_docs = set(c["supporting_docs"]), set(c["refuting_docs"])
        s_orig: set[str] = set()
        p_orig: set[str] = set()
        r_orig: set[str] = set()
        for d in docs:
            r = results[k]
            k += 1
            gold = ("support" if d["id"] in sup_docs else "refute" if d["id"] in ref_docs
                    else "none")
            st = r.stance.value
            pred = {"SUPPORTS": "support", "PARTIAL": "support",
                    "REFUTES": "refute"}.get(st, "none")
            conf.setdefault(gold, {}).setdefault(pred, 0)
            conf[gold][pred] += 1
            o = origin.get(d["id"], d["id"])
            {"SUPPORTS": s_orig, "PARTIAL": p_orig, "REFUTES": r_orig}.get(st, set()).add(o)
            if gold != pred and show:
                print(f"{c['claim_id']} {d['id']} gold={gold} pred={st} | {c['claim']}\n"
                      f"    {r.rationale} | {r.quote[:200]}")
        status = _status(len(s_orig), len(p_orig - s_orig), len(r_orig))
        exp = c.get("expected_status")
        status_conf.setdefault(exp, {}).setdefault(status, 0)
        status_conf[exp][status] += 1
        n_ok += status == exp
        if status != exp and show:
            print(f"STATUS {c['claim_id']} expected={exp} got={status} "
                  f"sup={len(s_orig)} par={len(p_orig - s_orig)} ref={len(r_orig)}")
    pair_acc = {g: round(v.get(g, 0) / sum(v.values()), 4) for g, v in conf.items()}
    print(json.dumps({"pairs": len(pairs), "pair_confusion": conf, "pair_recall": pair_acc,
                      "status_accuracy": round(n_ok / len(claims), 4),
                      "status_confusion": status_conf}))
    print(json.dumps({"judge": judge.name, "pairs": len(pairs), "seconds": round(dt, 2),
                      "pairs_per_s": round(len(pairs) / dt, 1), "cpu_seconds": round(cpu, 2)}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench", nargs="?", default=str(SHARED / "bench" / "judge-dev"))
    ap.add_argument("judge", nargs="?", default="lexical", choices=["lexical", "llm"])
    ap.add_argument("--idf", choices=["batch", "corpus"], default="batch")
    ap.add_argument("--verdict-set", type=Path, default=None,
                    help="a verdict set's folder: judge its claims against all its documents")
    ap.add_argument("--limit", type=int, default=None, help="first N claims of a verdict set")
    ap.add_argument("--show", type=int, default=0, help="print each wrong pair and status")
    args = ap.parse_args()
    if args.verdict_set is not None:
        bench_verdict_pairs(args.verdict_set, args.judge, args.limit, args.show)
        return
    bench = Path(args.bench)
    cases = [json.loads(line) for line in open(bench / "cases.jsonl") if line.strip()]
    idf = None
    if args.idf == "corpus":
        t0 = time.perf_counter()
        idf = corpus_idf()
        print(f"corpus IDF: {len(idf)} terms in {time.perf_counter() - t0:.1f} s")
    try:
        judge = make_judge(args.judge, llm_config=llm_config_from_env(), idf=idf)
    except ValueError as exc:
        sys.exit(f"bench_judge: {exc}")
    pairs = [(c["claim"], c["document"]) for c in cases]
    t0, c0 = time.perf_counter(), time.process_time()
    results = judge.judge_batch(pairs)
    dt, cpu = time.perf_counter() - t0, time.process_time() - c0
    OUT.mkdir(parents=True, exist_ok=True)
    pred = OUT / f"judge_{bench.name}_{args.judge}.jsonl"
    with open(pred, "w") as f:
        for c, r in zip(cases, results, strict=True):
            f.write(json.dumps({"case_id": c["case_id"], "stance": r.stance.value,
                                "quote": r.quote, "rationale": r.rationale}) + "\n")
    score = subprocess.run(
        [sys.executable, str(SHARED / "bench" / "score_judge.py"), str(bench), str(pred)],
        capture_output=True, text=True, check=True,
    )
    print(score.stdout.strip())
    chars = sum(len(d) for _, d in pairs)
    print(json.dumps({"judge": judge.name, "idf": args.idf, "pairs": len(pairs),
                      "seconds": round(dt, 2), "pairs_per_s": round(len(pairs) / dt, 1),
                      "cpu_seconds": round(cpu, 2),
                      "pairs_per_cpu_s": round(len(pairs) / cpu, 1) if cpu else None,
                      "doc_mb_per_s": round(chars / dt / 1e6, 2),
                      "fallbacks": getattr(judge, "n_fallbacks", 0),
                      "degradations": getattr(judge, "degradations", [])[:5]}))


if __name__ == "__main__":
    main()
