"""MinHash signature speed against datasketch, on the same texts in one run, values compared.

Usage (from the repository root)::

    python -m tests.benchmarks.bench_signatures [CORPUS_JSONL] [--limit N]

CORPUS_JSONL defaults to ``../shared/data/corpora/reuters21578.jsonl`` (field ``text``). Three
timings are printed, each over all texts:

* ``end_to_end``: texts → signatures. Ours: ``compute_signatures`` with the default
  ``wordmix`` scheme. datasketch: our shingler (``shingle_text``) then ``MinHash.bulk`` with
  its default SHA-1 hash function (its fastest path, the speed reference), and again with
  ``hashfunc=wordmix_hash32`` (the values must be identical). ``end_to_end_sha1_scheme``: our
  SHA-1 scheme against datasketch's default values. ``end_to_end_all_cores``: ours in a
  process pool over batches.
* ``from_shingles``: shingles given (already split), SHA-1 hashing + permutations only.
* ``permutations_only``: 32-bit shingle hashes given (the vectorised part alone); datasketch
  is fed the same integers through an identity ``hashfunc``.

Writes ``tests/benchmarks/out/signatures-<corpus>.json`` with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from datasketch import MinHash

from affidavit.schemas.signatures import MinHashConfig
from affidavit.tasks.minhash import (
    compute_signatures,
    hash_shingles,
    signatures_from_hashes,
    wordmix_hash32,
)
from affidavit.tasks.shingles import shingle_text

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
OUT = Path(__file__).resolve().parent / "out"


def _signatures(texts: list[str]) -> np.ndarray:
    return compute_signatures(texts, MinHashConfig())[0]


def main(argv: list[str] | None = None) -> None:
    """Time both implementations and check that every signature is identical."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "corpus", nargs="?", default=str(SHARED / "data" / "corpora" / "reuters21578.jsonl")
    )
    ap.add_argument("--limit", type=int, default=None)
    args = ap.parse_args(argv)
    path = Path(args.corpus)
    texts = [
        json.loads(line).get("text") or "" for line in path.open(encoding="utf-8") if line.strip()
    ]
    texts = texts[: args.limit] if args.limit else texts
    config = MinHashConfig()
    n_chars = sum(len(t) for t in texts)
    figures: dict[str, object] = {
        "corpus": path.name,
        "documents": len(texts),
        "mb": round(n_chars / 1e6, 2),
    }

    # end to end: ours (default scheme) against datasketch's fastest path, ``MinHash.bulk``
    # with its default hash function (SHA-1); values compared with datasketch given the same
    # hash function as ours (``wordmix_hash32``), which is slower in datasketch (a Python call
    # per shingle) and so is timed apart
    t0 = time.perf_counter()
    ours, _ = compute_signatures(texts, config)
    t_ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    bulk = MinHash.bulk(
        [shingle_text(t, config.shingles) for t in texts],
        num_perm=config.num_perm,
        seed=config.seed,
    )
    t_ref = time.perf_counter() - t0
    del bulk
    t0 = time.perf_counter()
    same = MinHash.bulk(
        [shingle_text(t, config.shingles) for t in texts],
        num_perm=config.num_perm,
        seed=config.seed,
        hashfunc=wordmix_hash32,
    )
    t_same = time.perf_counter() - t0
    ref = np.array([m.hashvalues for m in same], dtype=np.uint32)
    figures["end_to_end"] = {
        "scheme": config.hash_scheme,
        "ours_s": round(t_ours, 3),
        "datasketch_bulk_sha1_s": round(t_ref, 3),
        "speedup": round(t_ref / t_ours, 2),
        "datasketch_bulk_same_hashfunc_s": round(t_same, 3),
        "identical": bool(np.array_equal(ours, ref)),
        "ours_docs_per_s": round(len(texts) / t_ours),
    }
    sha1_config = MinHashConfig(hash_scheme="sha1")
    t0 = time.perf_counter()
    ours_sha1, _ = compute_signatures(texts, sha1_config)
    t_sha1 = time.perf_counter() - t0
    ref_sha1 = np.empty_like(ours_sha1)
    for k, text in enumerate(texts):
        m = MinHash(num_perm=config.num_perm, seed=config.seed)
        m.update_batch(shingle_text(text, config.shingles))
        ref_sha1[k] = m.hashvalues
    figures["end_to_end_sha1_scheme"] = {
        "ours_s": round(t_sha1, 3),
        "speedup": round(t_ref / t_sha1, 2),
        "identical": bool(np.array_equal(ours_sha1, ref_sha1)),
    }

    # end to end on all cores (process pool over batches of documents)
    workers = os.cpu_count() or 1
    batch = max(1, len(texts) // (4 * workers))
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        parts = list(
            pool.map(_signatures, [texts[s : s + batch] for s in range(0, len(texts), batch)])
        )
    ours_mp = np.concatenate(parts)
    t_mp = time.perf_counter() - t0
    figures["end_to_end_all_cores"] = {
        "workers": workers,
        "ours_s": round(t_mp, 3),
        "speedup": round(t_ref / t_mp, 2),
        "identical": bool(np.array_equal(ours_mp, ref)),
    }

    # from shingles (SHA-1 scheme)
    config = sha1_config
    shingles = [shingle_text(t, config.shingles) for t in texts]
    t0 = time.perf_counter()
    counts = np.zeros(len(texts) + 1, dtype=np.int64)
    counts[1:] = [len(s) for s in shingles]
    hashes = hash_shingles([s for doc in shingles for s in doc])
    offsets = np.cumsum(counts)
    ours2 = signatures_from_hashes(hashes, offsets, config)
    t_ours2 = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref2 = np.empty_like(ours2)
    for k, doc in enumerate(shingles):
        m = MinHash(num_perm=config.num_perm, seed=config.seed)
        m.update_batch(doc)
        ref2[k] = m.hashvalues
    t_ref2 = time.perf_counter() - t0
    figures["from_shingles"] = {
        "ours_s": round(t_ours2, 3),
        "datasketch_s": round(t_ref2, 3),
        "speedup": round(t_ref2 / t_ours2, 2),
        "identical": bool(np.array_equal(ours2, ref2)),
    }

    # permutations only: the same 32-bit hashes fed to both
    hv32 = [int(h) for h in (hashes & np.uint64(0xFFFFFFFF))]
    t0 = time.perf_counter()
    ours3 = signatures_from_hashes(hashes, offsets, config)
    t_ours3 = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref3 = np.empty_like(ours3)
    for k in range(len(texts)):
        m = MinHash(num_perm=config.num_perm, seed=config.seed, hashfunc=lambda x: x)
        m.update_batch(hv32[offsets[k] : offsets[k + 1]])
        ref3[k] = m.hashvalues
    t_ref3 = time.perf_counter() - t0
    figures["permutations_only"] = {
        "ours_s": round(t_ours3, 3),
        "datasketch_s": round(t_ref3, 3),
        "speedup": round(t_ref3 / t_ours3, 2),
        "identical": bool(np.array_equal(ours3, ref3)),
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"signatures-{path.stem}.json").write_text(json.dumps(figures, indent=2))
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
