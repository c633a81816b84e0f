"""Benchmark a judge on judge-dev (or a held-out set built the same way).

Usage (from the repository root)::

    python -m tests.benchmarks.bench_judge [BENCH_DIR] [JUDGE] [--idf batch|corpus]

``BENCH_DIR`` defaults to ``../shared/bench/judge-dev`` and ``JUDGE`` to ``lexical`` (``llm``
reads its endpoint from ``AFFIDAVIT_LLM_*``). ``--idf corpus`` gives the lexical judge a corpus
IDF computed from the document corpora under ``../shared/data/corpora`` (the stand-in for the
warehouse's IDF); ``batch`` (default) lets it use the IDF of the batch's own documents.
Writes ``tests/benchmarks/out/judge_<set>_<judge>.jsonl`` and prints the scorer's JSON line and
the throughput (wall clock, and per CPU second, which does not depend on other load).
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench", nargs="?", default=str(SHARED / "bench" / "judge-dev"))
    ap.add_argument("judge", nargs="?", default="lexical", choices=["lexical", "llm"])
    ap.add_argument("--idf", choices=["batch", "corpus"], default="batch")
    args = ap.parse_args()
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
