"""Lineage at scale on the path ``affidavit backfill`` runs, side by side with datatrove.

Usage (from the repository root)::

    python -m tests.benchmarks.bench_lineage_scale [--sizes 10000 100000 1000000]
        [--workers 2] [--datatrove-python PATH] [--datatrove-max 100000] [--increment 0.01]

What is measured, per size, each in a fresh process (so peak RSS is per size):

* ``affidavit``: ``update_lineage`` with nothing stored, exactly what the backfill flow's lineage
  stage (``affidavit.flows.stages.refresh_lineage``) calls on a fresh home: signatures, LSH band
  join, vectorised verification, the long-passage join with its furniture and quote rules, and
  origins. Then the same call adding ``--increment`` (1%) more documents to the stored result
  as the warehouse holds it (signatures, edges, furniture, and the passage material and its
  packed hashes as Parquet files read lazily, the hashes written as the warehouse writes
  them; no stored text): ``increment_share`` is its wall time over the
  build's, and ``increment_cpu_share`` the same for CPU time (user and system, all threads
  of the process and of the build's pool of workers, ``affidavit.tasks.lineage_batches``),
  steadier than wall time on a machine other work shares; ``peak_rss_anon_build_gib`` is the
  build's peak of anonymous memory (its peak RSS also counts resident pages of the word files
  a large build maps, which the kernel can drop); ``peak_rss_workers_gib`` is the
  largest worker's peak (the build's processes together hold at most the main process's
  peak plus two of these). The documents are
  given as a lazy Parquet scan, so their texts are read a batch at a time inside the timed
  calls (the archive's texts are never held at once, as 1M documents need). Wall times
  exclude synthesising the corpus.
* ``datatrove``: its MinHash deduplication (the four local stages: signatures, buckets,
  clusters, filter; ``LocalPipelineExecutor`` with ``--workers`` tasks) on the same documents,
  for sizes up to ``--datatrove-max``. ``datatrove[processing]`` pins trafilatura < 1.12, which
  clashes with ours, so it runs from a separate virtual environment given by
  ``--datatrove-python``; make one outside the repository with::

      python3 -m venv ../datatrove-venv
      ../datatrove-venv/bin/pip install "datatrove[processing]" orjson spacy

  and pass ``--datatrove-python ../datatrove-venv/bin/python`` (skipped when not given).

The corpus: N documents of ~3 KB, each a deterministic function of its index, made of
paragraphs of real stories (Reuters-21578 and BBC News under ``../shared/data/corpora``) with
``--perturb`` (30%) of words replaced from the corpus vocabulary, so that two base documents
share no long verbatim passage by accident (at 10%, as this benchmark once used, random
documents share whole real sentences: by every rule of the lineage stage that is a quotation,
and the figures of that corpus are printed too with ``--perturb 0.1``). Replacing words at
random leaves some runs whole, though: at 100k documents each of the ~91,500 real paragraphs
is drawn by ~17 documents, and a short paragraph (or most of one) comes through unedited in
two of them a few hundred times (326 pairs of base documents at 100k, 300 of them one
paragraph drawn by both, runs of 12-22 words). Such a pair carries the same sentence of a
real story word for word among text of its own: a quotation of a common source by every
rule of the lineage stage, and lineage-dev calls two lineages sharing a 12-word run
ambiguous and leaves them out of its scores; the planted truth called them independent,
which was wrong. So a base document keeps at most ``MAX_VERBATIM_WORDS`` - 1 consecutive
words of a paragraph unedited (the last word of a longer untouched run is replaced too,
~0.7% more words); edited copies of one paragraph still share shorter runs, and their
echoes still test the passage rules. Planted relations:
one document in ten is a near-duplicate copy of an earlier one (3% of words replaced,
sometimes truncated to 60%), and one in twenty is a rewrite: its own text with one whole
sentence of an earlier document quoted verbatim. ``planted_agreement`` is the Jaccard index of
the pairs put in one lineage against the pairs of the planted groups (the measure the issue
quoted as 0.0012 for the old passage join); ``planted_recall`` the share of planted pairs
found; the same against datatrove's duplicate clusters (copies only).

Prints one JSON line per size (wall time, documents/s, peak RSS of the main process and of the
largest child, edges by kind, agreement), then the growth exponents of wall time and RSS
between consecutive sizes.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import polars as pl

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
OUT = Path(__file__).resolve().parent / "out"
TARGET_CHARS = 3000
PLANT_EVERY = 10
REWRITE_EVERY = 20
SEED = 1987
MAX_VERBATIM_WORDS = 12
"""Longest run of a real paragraph's words a base document keeps unedited, minus one (see the
module docstring): lineage-dev calls two lineages sharing a 12-word run ambiguous."""

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


def _perturb(
    words: list[str], rate: float, rng: np.random.Generator, max_verbatim: int | None = None
) -> list[str]:
    """Replace ``rate`` of the words (drawn with replacement) by words of the vocabulary.

    With ``max_verbatim``, a run of that many words left as they were gets its last word
    replaced too (after the ``rate`` draws, so the rest of the text is unchanged).
    """
    vocab = _SOURCE["vocab"]
    n_sub = int(len(words) * rate)
    touched = np.zeros(len(words), dtype=bool)
    if n_sub:
        pos = rng.integers(0, len(words), n_sub)
        picks = rng.integers(0, len(vocab), n_sub)
        for p, v in zip(pos.tolist(), picks.tolist(), strict=True):
            words[p] = vocab[v]
        touched[pos] = True
    if max_verbatim:
        # length of the untouched run ending at each word
        run = np.zeros(len(words), dtype=np.int64)
        count = 0
        for k, t in enumerate(touched.tolist()):
            count = 0 if t else count + 1
            if count == max_verbatim:
                run[k] = 1
                count = 0
        forced = np.flatnonzero(run)
        picks = rng.integers(0, len(vocab), len(forced))
        for p, v in zip(forced.tolist(), picks.tolist(), strict=True):
            words[p] = vocab[v]
    return words


def synth_text(i: int, perturb: float) -> str:
    """The base text of document ``i``: ~3 KB of perturbed real paragraphs."""
    rng = np.random.default_rng([SEED, i])
    paras = _SOURCE["paras"]
    out: list[str] = []
    size = 0
    while size < TARGET_CHARS:
        p = paras[int(rng.integers(len(paras)))]
        out.append(p)
        size += len(p) + 2
    words = _perturb(" \n\n ".join(out).split(" "), perturb, rng, MAX_VERBATIM_WORDS)
    return " ".join(words)[: TARGET_CHARS + 200]


def planted_parent(i: int) -> tuple[int, str] | None:
    """``(parent, "copy" | "rewrite")`` for a planted document, else None."""
    if i == 0:
        return None
    if i % PLANT_EVERY == PLANT_EVERY - 1:
        kind, salt = "copy", 7
    elif i % REWRITE_EVERY == 3:
        kind, salt = "rewrite", 13
    else:
        return None
    rng = np.random.default_rng([SEED, i, salt])
    parent = int(rng.integers(0, i))
    while planted_parent_kind(parent) is not None:  # plant from base documents only
        parent -= 1
    return parent, kind


def planted_parent_kind(i: int) -> str | None:
    """The kind of planted document ``i`` is, without drawing its parent."""
    if i == 0:
        return None
    if i % PLANT_EVERY == PLANT_EVERY - 1:
        return "copy"
    if i % REWRITE_EVERY == 3:
        return "rewrite"
    return None


_SENTENCE = re.compile(r"(?<=[.!?] )[A-Z][^.!?\n]{60,220}[.!?](?= )")


def doc_text(i: int, perturb: float) -> str:
    """Full text of document ``i``."""
    planted = planted_parent(i)
    if planted is None:
        return synth_text(i, perturb)
    parent, kind = planted
    rng = np.random.default_rng([SEED, i, 11])
    if kind == "copy":
        words = _perturb(synth_text(parent, perturb).split(" "), 0.03, rng)
        if rng.random() < 0.3:
            words = words[: int(len(words) * 0.6)]
        return " ".join(words)
    own = synth_text(i, perturb)
    sentences = _SENTENCE.findall(synth_text(parent, perturb)) or [synth_text(parent, perturb)]
    quote = sentences[int(rng.integers(len(sentences)))]
    cut = own.find(". ", len(own) // 2)
    cut = len(own) // 2 if cut < 0 else cut + 2
    return f"{own[:cut]}{quote} {own[cut:]}"


def _synth_chunk(args: tuple[int, int, float]) -> list[str]:
    start, stop, perturb = args
    _load_source()
    return [doc_text(i, perturb) for i in range(start, stop)]


def write_corpus(n_docs: int, perturb: float, workers: int, folder: Path) -> Path:
    """Synthesise the corpus into ``folder/docs.parquet`` and ``folder/jsonl/docs-*.jsonl``.

    Written a chunk of documents at a time (one Parquet row group each), so that no process
    holds every text; the JSON lines go to ``workers`` files of consecutive chunks.
    """
    import pyarrow.parquet as pq

    chunk = 2000
    jobs = [(s, min(s + chunk, n_docs), perturb) for s in range(0, n_docs, chunk)]
    t0 = datetime(2020, 1, 1, tzinfo=UTC)
    path = folder / "docs.parquet"
    (folder / "jsonl").mkdir()
    shards = [(folder / "jsonl" / f"docs-{w}.jsonl").open("wb") for w in range(workers)]
    writer = None
    try:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for k, ((start, stop, _), texts) in enumerate(
                zip(jobs, pool.map(_synth_chunk, jobs), strict=True)
            ):
                part = pl.DataFrame(
                    {
                        "doc_id": [f"d{i:07d}" for i in range(start, stop)],
                        "text": texts,
                        "host": [f"h{i % 97}.example" for i in range(start, stop)],
                        "published_at": [t0 + timedelta(minutes=i) for i in range(start, stop)],
                    }
                )
                table = part.to_arrow()
                if writer is None:
                    writer = pq.ParquetWriter(path, table.schema)
                writer.write_table(table)
                # one file per worker: datatrove's readers shard by file
                part.select(id="doc_id", text="text").write_ndjson(
                    shards[k * workers // len(jobs)]
                )
    finally:
        if writer is not None:
            writer.close()
        for f in shards:
            f.close()
    return path


def planted_groups(n_docs: int) -> dict[str, str]:
    """doc_id → planted root."""
    root = {}
    for i in range(n_docs):
        p = planted_parent(i)
        root[i] = root[p[0]] if p is not None else i
    return {f"d{i:07d}": f"d{r:07d}" for i, r in root.items()}


def pair_agreement(pred: dict[str, str], truth: dict[str, str]) -> tuple[float, float]:
    """(Jaccard of same-group pair sets, recall of true pairs), counted through group sizes."""

    def c2(n: int) -> int:
        return n * (n - 1) // 2

    both = sum(c2(v) for v in collections.Counter((truth[d], pred[d]) for d in truth).values())
    n_true = sum(c2(v) for v in collections.Counter(truth.values()).values())
    n_pred = sum(c2(v) for v in collections.Counter(pred[d] for d in truth).values())
    union = n_true + n_pred - both
    return (both / union if union else 1.0), (both / n_true if n_true else 1.0)


def _rss_gib(who: int) -> float:
    return round(resource.getrusage(who).ru_maxrss / 2**20, 3)


class _PeakSampler:
    """A peak in KiB, sampled in a thread every ``every_s`` seconds until ``stop_gib``."""

    def __init__(self, every_s: float) -> None:
        self.peak_kib = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(every_s,), daemon=True)
        self._thread.start()

    def _run(self, every_s: float) -> None:
        while True:
            self.peak_kib = max(self.peak_kib, self._sample())
            if self._stop.wait(every_s):
                return

    def _sample(self) -> int:
        raise NotImplementedError

    def stop_gib(self) -> float:
        """Stop sampling; the peak in GiB."""
        self._stop.set()
        self._thread.join()
        return round(self.peak_kib / 2**20, 3)


class _WorkerPeak(_PeakSampler):
    """The largest peak RSS (``VmHWM``) among this process's pool workers, sampled in a thread.

    A worker is a child whose command line is ``multiprocessing``'s ``spawn_main``; a short
    fork (e.g. one that runs ``ldconfig``) shares its parent's pages until it execs, so
    ``RUSAGE_CHILDREN`` would report the parent's size, not a worker's.
    """

    def __init__(self, every_s: float = 0.2) -> None:
        super().__init__(every_s)

    def _sample(self) -> int:
        me, peak = str(os.getpid()), 0
        for proc in Path("/proc").glob("[0-9]*"):
            try:
                if (proc / "stat").read_text().rsplit(")", 1)[1].split()[1] != me:
                    continue
                if b"spawn_main" not in (proc / "cmdline").read_bytes():
                    continue
                for line in (proc / "status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
            except (OSError, IndexError, ValueError):
                continue
        return peak


class _AnonPeak(_PeakSampler):
    """The peak of this process's anonymous resident memory (``RssAnon``), sampled in a thread.

    Peak RSS also counts the pages of files the process maps while they stay resident: a
    build that keeps its words on disk maps them (``affidavit.tasks.lineage_batches``), and
    the kernel may drop those pages at any time, unlike the anonymous ones.
    """

    def __init__(self, every_s: float = 0.1) -> None:
        super().__init__(every_s)

    def _sample(self) -> int:
        try:
            for line in Path("/proc/self/status").read_text().splitlines():
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
        except (OSError, ValueError, IndexError):
            pass
        return 0


def _cpu_s() -> float:
    """CPU seconds (user and system) of this process and of its children that have ended:
    the build's pool of workers (``affidavit.tasks.lineage_batches``) ends with its stage."""
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + kids.ru_utime + kids.ru_stime


def run_affidavit(n_docs: int, folder: Path, increment: float) -> dict[str, object]:
    """Build on all but ``increment`` of the documents, then add those (the backfill path)."""
    import pyarrow.parquet as pq

    from affidavit.schemas.passages import PASSAGE_PACKED_SCHEMA
    from affidavit.tasks.lineage import passage_packed_rows, update_lineage
    from affidavit.warehouse.store import conform, parquet_options

    # read lazily: the texts are read a batch at a time, never all at once
    docs = pl.scan_parquet(folder / "docs.parquet")
    n_new = max(1, int(round(n_docs * increment)))
    base, extra = docs.slice(0, n_docs - n_new), docs.slice(n_docs - n_new)
    empty = docs.head(0).collect()
    workers = _WorkerPeak()
    anon = _AnonPeak()
    t0, c0 = time.perf_counter(), _cpu_s()
    built = update_lineage(
        base,
        stored_docs=empty,
        stored_signatures=pl.DataFrame(),
        stored_edges=pl.DataFrame(),
    )
    t_build, c_build = time.perf_counter() - t0, _cpu_s() - c0
    rss_workers = workers.stop_gib()
    rss_build = _rss_gib(resource.RUSAGE_SELF)
    rss_anon_build = anon.stop_gib()
    # what the warehouse keeps: passage material as Parquet, read lazily by the update
    # (written a part at a time, as the warehouse appends it)
    grams_dir, packed_dir = folder / "passage_grams", folder / "passage_packed"
    grams_dir.mkdir()
    packed_dir.mkdir()
    for index, part in enumerate(built.passage_batches()):
        part.write_parquet(grams_dir / f"part-{index:05d}.parquet")
        packed = conform(passage_packed_rows(part), PASSAGE_PACKED_SCHEMA)
        pq.write_table(packed, packed_dir / f"part-{index:05d}.parquet",
                       **parquet_options(packed))
        del packed, part
    signatures, edges_stored, furniture = built.signatures, built.edges, built.furniture
    del built
    t0, c0 = time.perf_counter(), _cpu_s()
    added = update_lineage(
        extra,
        stored_docs=base.drop("text").collect(),
        stored_signatures=signatures,
        stored_edges=edges_stored,
        stored_passages=pl.scan_parquet(grams_dir / "*.parquet"),
        stored_furniture=furniture,
        stored_packed=pl.scan_parquet(packed_dir / "*.parquet"),
    )
    t_inc, c_inc = time.perf_counter() - t0, _cpu_s() - c0
    origins = added.origins
    pred = dict(zip(origins["doc_id"].to_list(), origins["origin_doc_id"].to_list(), strict=True))
    agreement, recall = pair_agreement(pred, planted_groups(n_docs))
    edges = pl.concat([edges_stored, added.edges])
    return {
        "build_s": round(t_build, 1),
        "build_docs": n_docs - n_new,
        "docs_per_s": round((n_docs - n_new) / t_build),
        "increment_docs": n_new,
        "increment_s": round(t_inc, 1),
        "increment_share": round(t_inc / t_build, 3),
        "build_cpu_s": round(c_build, 1),
        "increment_cpu_s": round(c_inc, 1),
        "increment_cpu_share": round(c_inc / c_build, 3),
        "peak_rss_build_gib": rss_build,
        "peak_rss_anon_build_gib": rss_anon_build,
        "peak_rss_main_gib": _rss_gib(resource.RUSAGE_SELF),
        "peak_rss_workers_gib": rss_workers,
        "edges": dict(edges.group_by("kind").len().sort("kind").iter_rows()),
        "origins_found": origins["origin_doc_id"].n_unique(),
        "origins_true": len(set(planted_groups(n_docs).values())),
        "planted_agreement": round(agreement, 4),
        "planted_recall": round(recall, 4),
    }


_DATATROVE = r'''
import json, resource, sys, time
from datatrove.executor.local import LocalPipelineExecutor
from datatrove.pipeline.dedup.minhash import (
    MinhashConfig, MinhashDedupBuckets, MinhashDedupCluster, MinhashDedupFilter,
    MinhashDedupSignature,
)
from datatrove.pipeline.readers import JsonlReader
from datatrove.pipeline.writers import JsonlWriter

def main():
    folder, workers = sys.argv[1], int(sys.argv[2])
    cfg = MinhashConfig()
    out = folder + "/dt"
    t0 = time.perf_counter()
    LocalPipelineExecutor(pipeline=[JsonlReader(folder + "/jsonl"),
        MinhashDedupSignature(output_folder=out + "/sigs", config=cfg)],
        tasks=workers, workers=workers, logging_dir=out + "/logs1").run()
    LocalPipelineExecutor(pipeline=[MinhashDedupBuckets(input_folder=out + "/sigs",
        output_folder=out + "/buckets", config=cfg)], tasks=cfg.num_buckets,
        workers=workers, logging_dir=out + "/logs2").run()
    LocalPipelineExecutor(pipeline=[MinhashDedupCluster(input_folder=out + "/buckets",
        output_folder=out + "/remove", save_cluster_id=True, config=cfg)], tasks=1,
        logging_dir=out + "/logs3").run()
    LocalPipelineExecutor(pipeline=[JsonlReader(folder + "/jsonl"),
        MinhashDedupFilter(input_folder=out + "/remove", load_cluster_ids=True),
        JsonlWriter(out + "/kept", expand_metadata=True)], tasks=workers, workers=workers,
        logging_dir=out + "/logs4").run()
    wall = time.perf_counter() - t0
    gib = lambda who: round(resource.getrusage(who).ru_maxrss / 2**20, 3)
    print(json.dumps({"wall_s": round(wall, 1),
        "peak_rss_main_gib": gib(resource.RUSAGE_SELF),
        "peak_rss_child_gib": gib(resource.RUSAGE_CHILDREN),
        "config": str(cfg)}))


if __name__ == "__main__":
    main()
'''


def run_datatrove(python: str, folder: Path, workers: int) -> dict[str, object]:
    """Run datatrove's four MinHash stages from its own virtual environment."""
    script = folder / "datatrove_run.py"
    script.write_text(_DATATROVE)
    proc = subprocess.run(
        [python, str(script), str(folder), str(workers)],
        capture_output=True,
        text=True,
        check=False,
        cwd=folder,
    )
    if proc.returncode:
        raise RuntimeError(f"datatrove failed: {proc.stderr[-2000:]}")
    figures = json.loads(proc.stdout.strip().splitlines()[-1])
    # datatrove keeps one document per duplicate cluster and tags it with its cluster id
    return figures


def one_size(args: argparse.Namespace, n_docs: int) -> dict[str, object]:
    """Everything for one size: each measured program runs in a process of its own, started
    from this small one (a child's peak RSS counts its parent's memory at fork time)."""
    with tempfile.TemporaryDirectory(prefix="lineage-scale-") as tmp:
        folder = Path(tmp)
        t0 = time.perf_counter()
        _child(args, n_docs, "synth", folder)
        t_synth = time.perf_counter() - t0
        figures: dict[str, object] = {
            "documents": n_docs,
            "perturb": args.perturb,
            "workers": args.workers,
            "synthesis_s_excluded": round(t_synth, 1),
        }
        figures["affidavit"] = json.loads(_child(args, n_docs, "affidavit", folder))
        if args.datatrove_python and n_docs <= args.datatrove_max:
            figures["datatrove"] = run_datatrove(args.datatrove_python, folder, args.workers)
        else:
            figures["datatrove"] = None
    return figures


def _child(args: argparse.Namespace, n_docs: int, stage: str, folder: Path) -> str:
    cmd = [sys.executable, "-m", "tests.benchmarks.bench_lineage_scale", "--stage", stage,
           "--folder", str(folder), "--sizes", str(n_docs), "--workers", str(args.workers),
           "--perturb", str(args.perturb), "--increment", str(args.increment)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode:
        raise RuntimeError(f"{stage} failed: {proc.stderr[-3000:]}")
    return proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""


def _exponent(a: float, b: float, na: int, nb: int) -> float | None:
    if a <= 0 or b <= 0 or na == nb:
        return None
    return round(math.log(b / a) / math.log(nb / na), 2)


def main(argv: list[str] | None = None) -> None:
    """Run each size in a fresh process and print its figures, then growth exponents."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--perturb", type=float, default=0.3)
    ap.add_argument("--increment", type=float, default=0.01)
    ap.add_argument("--datatrove-python", default=None)
    ap.add_argument("--datatrove-max", type=int, default=100_000)
    ap.add_argument("--stage", choices=["synth", "affidavit"], help=argparse.SUPPRESS)
    ap.add_argument("--folder", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    if args.stage == "synth":
        write_corpus(args.sizes[0], args.perturb, args.workers, Path(args.folder))
        return
    if args.stage == "affidavit":
        figures = run_affidavit(args.sizes[0], Path(args.folder), args.increment)
        print(json.dumps(figures), flush=True)
        return
    rows = []
    for n in args.sizes:
        line = json.dumps(one_size(args, n))
        print(line, flush=True)
        rows.append(json.loads(line))
        with (OUT / "lineage-scale.jsonl").open("a") as f:
            f.write(line + "\n")
    growth = []
    for a, b in zip(rows, rows[1:], strict=False):
        fa, fb = a["affidavit"], b["affidavit"]
        growth.append({
            "from": a["documents"],
            "to": b["documents"],
            "wall_exponent": _exponent(fa["build_s"], fb["build_s"], fa["build_docs"],
                                       fb["build_docs"]),
            "rss_exponent": _exponent(fa["peak_rss_main_gib"], fb["peak_rss_main_gib"],
                                      a["documents"], b["documents"]),
        })
    if growth:
        print(json.dumps({"growth": growth}), flush=True)


if __name__ == "__main__":
    main()
