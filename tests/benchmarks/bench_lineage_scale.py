"""Lineage at scale: signatures + candidates + verification + origins on synthetic corpora.

Usage (from the repository root)::

    python -m tests.benchmarks.bench_lineage_scale [--sizes 10000 100000 1000000] [--workers 2]

A corpus of N documents of ~3 KB is synthesised from real text (Reuters-21578 and BBC News
under ``../shared/data/corpora``): each document is a deterministic function of its index —
paragraphs of several real stories, 10% of words replaced from the corpus vocabulary — so no
two are alike by accident. One document in ten is a planted near-duplicate: a copy of an
earlier document with 3% of words replaced, sometimes truncated to 60% (a containment case).

Stages, all measured together: signatures (worker processes; each worker synthesises its
chunk and writes the chunk's shingle hash sets to a temporary file, so no text crosses
processes or stays in memory), LSH band join (Polars), exact verification of every candidate
pair (Jaccard and containment over the stored shingle sets), ``compute_origins``. The long-
passage join is not part of this run (it needs the texts; see bench_lineage.py).

Prints one JSON line per size: wall time per stage, documents/s, peak RSS of the main process
and of the workers, candidates, edges, planted pairs recovered, independent origins.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import polars as pl

from affidavit.schemas.enums import DirectionBasis, EdgeKind
from affidavit.schemas.signatures import MinHashConfig
from affidavit.tasks.lineage import LineageConfig, compute_origins
from affidavit.tasks.lsh import candidate_index_pairs, optimal_bands
from affidavit.tasks.minhash import shingle_hash_sets, signatures_from_hashes

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
OUT = Path(__file__).resolve().parent / "out"
TARGET_CHARS = 3000
PLANT_EVERY = 10

_SOURCE: dict[str, object] = {}


def _load_source() -> None:
    """Load real paragraphs and a vocabulary once per process."""
    if _SOURCE:
        return
    paras: list[str] = []
    for name in ("reuters21578.jsonl", "bbc-news.jsonl"):
        path = SHARED / "data" / "corpora" / name
        with path.open(encoding="utf-8") as f:
            for line in f:
                text = json.loads(line).get("text") or ""
                paras.extend(p.strip() for p in text.split("\n\n") if len(p.strip()) > 80)
    vocab = sorted({w for p in paras[:20000] for w in re.findall(r"[A-Za-z]{3,}", p)})
    _SOURCE["paras"] = paras
    _SOURCE["vocab"] = vocab


def _perturb(words: list[str], rate: float, rng: np.random.Generator) -> list[str]:
    vocab = _SOURCE["vocab"]
    n_sub = int(len(words) * rate)
    if n_sub:
        pos = rng.integers(0, len(words), n_sub)
        picks = rng.integers(0, len(vocab), n_sub)
        for p, v in zip(pos.tolist(), picks.tolist(), strict=True):
            words[p] = vocab[v]
    return words


def synth_text(i: int, seed: int) -> str:
    """The base (non-planted) text of document ``i``: ~3 KB of perturbed real paragraphs."""
    rng = np.random.default_rng([seed, i])
    paras = _SOURCE["paras"]
    out: list[str] = []
    size = 0
    while size < TARGET_CHARS:
        p = paras[int(rng.integers(len(paras)))]
        out.append(p)
        size += len(p) + 2
    words = _perturb(" \n\n ".join(out).split(" "), 0.10, rng)
    return " ".join(words)[: TARGET_CHARS + 200]


def planted_parent(i: int, seed: int) -> int | None:
    """The document that ``i`` copies, or None."""
    if i == 0 or i % PLANT_EVERY != PLANT_EVERY - 1:
        return None
    rng = np.random.default_rng([seed, i, 7])
    parent = int(rng.integers(0, i))
    return parent - 1 if parent % PLANT_EVERY == PLANT_EVERY - 1 else parent  # never a copy


def doc_text(i: int, seed: int) -> str:
    """Full text of document ``i`` (a planted near-duplicate copies its parent's base text)."""
    parent = planted_parent(i, seed)
    if parent is None:
        return synth_text(i, seed)
    rng = np.random.default_rng([seed, i, 11])
    words = _perturb(synth_text(parent, seed).split(" "), 0.03, rng)
    if rng.random() < 0.3:
        words = words[: int(len(words) * 0.6)]
    return " ".join(words)


def _chunk(
    args: tuple[int, int, int, str, MinHashConfig],
) -> tuple[int, np.ndarray, np.ndarray, int, float]:
    """Synthesise one chunk, compute signatures, store the sorted uint32 shingle hash sets."""
    start, stop, seed, tmp, config = args
    _load_source()
    t0 = time.perf_counter()
    texts = [doc_text(i, seed) for i in range(start, stop)]
    n_bytes = sum(len(t.encode("utf-8")) for t in texts)
    t_synth = time.perf_counter() - t0
    hashes, offsets = shingle_hash_sets(texts, config.shingles)
    del texts
    sigs = signatures_from_hashes(hashes, offsets, config)
    doc = np.repeat(np.arange(len(offsets) - 1, dtype=np.uint64), np.diff(offsets))
    key = (doc << np.uint64(32)) | (hashes & np.uint64(0xFFFFFFFF))
    key.sort()  # sorts each document's 32-bit hashes within its own range
    h32 = (key & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    np.save(os.path.join(tmp, f"h{start}.npy"), h32)
    np.save(os.path.join(tmp, f"o{start}.npy"), offsets)
    return start, sigs, np.diff(offsets).astype(np.int32), n_bytes, t_synth


def run(
    n_docs: int, *, workers: int, seed: int, chunk: int, config: LineageConfig
) -> dict[str, object]:
    """Run all stages on a corpus of ``n_docs`` documents and return the figures."""
    mh = config.minhash
    t_start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="lineage-scale-") as tmp:
        sigs = np.empty((n_docs, mh.num_perm), dtype=np.uint32)
        n_sh = np.empty(n_docs, dtype=np.int32)
        starts = list(range(0, n_docs, chunk))
        jobs = [(s, min(s + chunk, n_docs), seed, tmp, mh) for s in starts]
        n_bytes = 0
        synth_cpu = 0.0
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for s, sg, ns, nb, ts in pool.map(_chunk, jobs):
                sigs[s : s + len(sg)] = sg
                n_sh[s : s + len(ns)] = ns
                n_bytes += nb
                synth_cpu += ts
        t_sig = time.perf_counter()
        bands, rows = optimal_bands(config.candidate_threshold, mh.num_perm)
        ci, cj, n_star = candidate_index_pairs(
            sigs, bands=bands, rows=rows, max_bucket=config.max_bucket, empty_mask=n_sh == 0
        )
        t_cand = time.perf_counter()
        # verification: exact Jaccard / containment from the stored sets (memory-mapped)
        hs = {s: np.load(os.path.join(tmp, f"h{s}.npy"), mmap_mode="r") for s in starts}
        offs = {s: np.load(os.path.join(tmp, f"o{s}.npy")) for s in starts}

        def shingle_set(d: int) -> np.ndarray:
            s = (d // chunk) * chunk
            o = offs[s]
            k = d - s
            return hs[s][o[k] : o[k + 1]]

        inter = np.zeros(len(ci), dtype=np.int64)
        for p, (a, b) in enumerate(zip(ci.tolist(), cj.tolist(), strict=True)):
            inter[p] = len(np.intersect1d(shingle_set(a), shingle_set(b), assume_unique=True))
        na, nb = n_sh[ci].astype(np.int64), n_sh[cj].astype(np.int64)
        jac = inter / np.maximum(na + nb - inter, 1)
        cont = inter / np.maximum(np.minimum(na, nb), 1)
        syn = (jac >= config.syndication_jaccard) | (
            (cont >= config.syndication_containment) & (inter >= config.min_containment_shingles)
        )
        der = ~syn & (jac >= config.derivation_jaccard)
        keep = syn | der
        t_ver = time.perf_counter()
        ids = np.char.add("d", np.char.zfill(np.arange(n_docs).astype(str), 7))
        # planted copies are later documents; time = index (the generator's publication order)
        ei, ej = ci[keep], cj[keep]
        edges = pl.DataFrame(
            {
                "parent_doc_id": ids[ei].tolist(),
                "child_doc_id": ids[ej].tolist(),
                "kind": np.where(
                    syn[keep], EdgeKind.SYNDICATION.value, EdgeKind.DERIVATION.value
                ).tolist(),
                "jaccard": jac[keep],
                "containment": cont[keep],
                "shared_passage_chars": pl.Series([None] * len(ei), dtype=pl.Int32),
                "direction_basis": [DirectionBasis.ORIGIN_TIME.value] * len(ei),
                "is_directed": np.ones(len(ei), dtype=bool),
            }
        )
        origins = compute_origins(
            ids.tolist(), edges, origin_times=dict(zip(ids.tolist(), range(n_docs), strict=True))
        )
        t_end = time.perf_counter()
    planted = [(planted_parent(i, seed), i) for i in range(n_docs)]
    planted = [(p, c) for p, c in planted if p is not None]
    omap = dict(zip(origins["doc_id"].to_list(), origins["origin_doc_id"].to_list(), strict=True))
    recovered = sum(omap[ids[p]] == omap[ids[c]] for p, c in planted)
    # true number of origins: documents that are not planted copies
    true_origins = n_docs - len(planted)
    # synthesis runs inside the signature workers; its CPU time over the workers is not ours
    synth_wall = synth_cpu / workers
    wall = t_end - t_start - synth_wall
    rss_main = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    rss_workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    return {
        "documents": n_docs,
        "mean_kb": round(n_bytes / n_docs / 1024, 2),
        "workers": workers,
        "wall_s": round(wall, 1),
        "docs_per_s": round(n_docs / wall),
        "synthesis_s_excluded": round(synth_wall, 1),
        "signatures_s": round(t_sig - t_start - synth_wall, 1),
        "candidates_s": round(t_cand - t_sig, 1),
        "verification_s": round(t_ver - t_cand, 1),
        "origins_s": round(t_end - t_ver, 1),
        "peak_rss_main_gib": round(rss_main, 2),
        "peak_rss_worker_gib": round(rss_workers, 2),
        "bands_rows": [bands, rows],
        "candidates": len(ci),
        "star_buckets": n_star,
        "edges": int(keep.sum()),
        "planted_pairs": len(planted),
        "planted_recovered": round(recovered / max(len(planted), 1), 4),
        "origins_found": origins["origin_doc_id"].n_unique(),
        "origins_true": true_origins,
    }


def main(argv: list[str] | None = None) -> None:
    """Run each size in a fresh process (so peak RSS is per size) and print its figures."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--seed", type=int, default=1987)
    ap.add_argument("--chunk", type=int, default=5000)
    ap.add_argument(
        "--candidate-threshold", type=float, default=LineageConfig().candidate_threshold
    )
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    config = LineageConfig(candidate_threshold=args.candidate_threshold)
    if args.one:
        figures = run(
            args.sizes[0], workers=args.workers, seed=args.seed, chunk=args.chunk, config=config
        )
        print(json.dumps(figures), flush=True)
        return
    import subprocess
    import sys

    for n in args.sizes:
        cmd = [
            sys.executable,
            "-m",
            "tests.benchmarks.bench_lineage_scale",
            "--one",
            "--sizes",
            str(n),
            "--workers",
            str(args.workers),
            "--seed",
            str(args.seed),
            "--chunk",
            str(args.chunk),
            "--candidate-threshold",
            str(args.candidate_threshold),
        ]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()
        print(out, flush=True)
        with (OUT / "lineage-scale.jsonl").open("a") as f:
            f.write(out + "\n")


if __name__ == "__main__":
    main()
