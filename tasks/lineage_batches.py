"""The per-batch work of a lineage build, in process or on a pool of processes.

A build splits every text into words and spans, hashes its shingles into a MinHash signature
and hashes its passage n-grams (``affidavit.tasks.lineage.build_lineage``). Each document's
results depend on its own text alone, so batches of documents are independent: on a corpus of
many batches they run on a small pool of processes (one per core), each returning fixed-width
arrays, and the results are the same as in process (tested). The passage n-gram hashes are
written to a folder the caller owns (``SpilledNgrams``) instead of being returned: the build
needs them twice, for the passage join and for the stored passage material, and holds them
only then.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from affidavit.schemas.signatures import MinHashConfig
from affidavit.tasks.minhash import (
    shingle_hash_sets,
    shingle_hashes_from_words,
    signatures_from_hashes,
)
from affidavit.tasks.passages import _count_dtype, passage_ngrams
from affidavit.tasks.segment import Segments, segment_texts

__all__ = ["BatchSpec", "BatchResult", "SpilledNgrams", "pool_workers", "prepare_batches"]

POOL_MIN_BATCHES = 4
"""Batches from which a build runs them on a pool of processes: below it (16K documents at
4,096 a batch) starting the workers (a fresh interpreter importing the stage, ~1 s) would cost
more than the second core gives back; the per-batch work of 4,096 documents of ~3 KB takes
~1 s on one core of the machine the scale benchmark runs on."""

MAX_WORKERS = 2
"""Processes of the pool at most (and no more than the cores this process may run on). Each
holds one batch's texts and words (~50 MB); the build's main process holds the archive's
arrays. Two is what the archive-scale target is measured on (2 cores)."""


@dataclass(frozen=True, slots=True)
class BatchSpec:
    """What the per-batch work needs of the lineage configuration (picklable).

    Attributes:
        minhash: Shingle size, hash scheme, ``num_perm`` and seed.
        normalize: As ``ShingleConfig.normalize``.
        stop_needed: As ``LineageConfig.quote_sentence_needs_stop``.
        ngram_words: Words per passage n-gram (``PassageConfig.ngram_words``).
        respect_lines: Passage n-grams do not cross lines (``PassageConfig.respect_lines``).
        signatures: Compute MinHash signatures (off when a ``StageRunner`` computes them).
        spill: Folder the passage n-gram hashes of each batch are written to.
    """

    minhash: MinHashConfig
    normalize: bool
    stop_needed: bool
    ngram_words: int
    respect_lines: bool
    signatures: bool
    spill: str


@dataclass(slots=True)
class BatchResult:
    """What one batch of documents gives.

    Attributes:
        segments: Words, lines, sentences and quoted ranges (``segment_texts``).
        sigs: uint32, shape ``(n_docs, num_perm)`` (``(n_docs, 0)`` without signatures).
        n_shingles: int64, shape ``(n_docs,)``: distinct shingles per document.
        n_ngrams: Passage n-grams of the batch (written to the spill folder).
    """

    segments: Segments
    sigs: np.ndarray
    n_shingles: np.ndarray
    n_ngrams: int


def _paths(spill: str, index: int) -> tuple[Path, Path, Path]:
    base = Path(spill)
    return (base / f"ngram-hashes-{index:07d}.npy", base / f"ngram-starts-{index:07d}.npy",
            base / f"ngram-offsets-{index:07d}.npy")


def prepare_batch(texts: list[str], spec: BatchSpec, index: int) -> BatchResult:
    """Split, shingle, sign and hash the passage n-grams of one batch of texts.

    The passage n-grams go to ``spec.spill`` (three ``.npy`` files named by ``index``): uint64
    hashes, int32 start words within the batch, int64 per-document offsets
    (``affidavit.tasks.passages.passage_ngrams`` of the batch's words).

    Args:
        texts: The batch's texts (strings).
        spec: What to compute.
        index: The batch's position, naming its spilled files.

    Returns:
        A ``BatchResult``.
    """
    seg = segment_texts(texts, normalize=spec.normalize, stop_needed=spec.stop_needed)
    n = len(texts)
    if spec.signatures:
        if spec.minhash.hash_scheme == "wordmix":
            h, off = shingle_hashes_from_words(seg.words, spec.minhash.shingles.k)
        else:
            h, off = shingle_hash_sets(texts, spec.minhash.shingles, scheme="sha1")
        sigs = signatures_from_hashes(h, off, spec.minhash)
        n_sh = np.diff(off).astype(np.int64)
        del h, off
    else:
        sigs = np.zeros((n, 0), dtype=np.uint32)
        n_sh = np.zeros(n, dtype=np.int64)
    lines = seg.line_lengths if spec.respect_lines else None
    ng, starts, ng_off = passage_ngrams(seg.words, spec.ngram_words, lines)
    p_h, p_s, p_o = _paths(spec.spill, index)
    np.save(p_h, ng)
    np.save(p_s, starts.astype(np.int64))  # within the batch: re-based by the reader
    np.save(p_o, ng_off)
    return BatchResult(seg, sigs, n_sh, len(ng))


def pool_workers(n_batches: int) -> int:
    """Processes to run ``n_batches`` batches on: 0 (in process) below ``POOL_MIN_BATCHES``.

    Also 0 inside a daemonic process (a worker of a process pool or of Dask), which may not
    start processes of its own.

    >>> pool_workers(1)
    0
    """
    if n_batches < POOL_MIN_BATCHES or multiprocessing.current_process().daemon:
        return 0  # a daemonic process (a pool's or a Dask worker's) may start no children
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    workers = min(MAX_WORKERS, cores)
    return workers if workers > 1 else 0


def prepare_batches(
    batches: Iterable[list[str]], spec: BatchSpec, *, workers: int = 0
) -> Iterator[BatchResult]:
    """``prepare_batch`` of each batch, in order; on ``workers`` processes when above 0.

    At most two batches a worker are in flight, so the texts read ahead stay a few batches.
    The workers are fresh interpreters (``spawn``): the calling process may run threads
    (Polars, Prefect), which a forked child would inherit in an unknown state. As with any
    ``spawn`` pool, a script that builds lineage must start from an
    ``if __name__ == "__main__":`` block (the workers import the main module again).

    Yields:
        One ``BatchResult`` per batch, in the order of ``batches``.
    """
    if workers <= 0:
        for index, texts in enumerate(batches):
            yield prepare_batch(texts, spec, index)
        return
    ctx = multiprocessing.get_context("spawn")
    pending: list[Future[BatchResult]] = []
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        for index, texts in enumerate(batches):
            pending.append(pool.submit(prepare_batch, texts, spec, index))
            del texts
            while len(pending) >= 2 * workers:
                yield pending.pop(0).result()
        while pending:
            yield pending.pop(0).result()


@dataclass(slots=True)
class SpilledNgrams:
    """The passage n-grams of a build's batches, as written by ``prepare_batch``.

    Attributes:
        spill: The folder.
        n_ngrams: N-grams of each batch, in batch order.
        n_words: Words of each batch, in batch order.
    """

    spill: str
    n_ngrams: list[int]
    n_words: list[int]

    def for_join(self) -> list[np.ndarray]:
        """``[hashes, starts]`` over every batch: uint64 and global start words.

        Equal to ``passage_ngrams`` of all documents' words at once: the starts are int32 when
        every word position fits (``_count_dtype``), else int64.
        """
        total = int(sum(self.n_ngrams))
        s_dtype = _count_dtype(int(sum(self.n_words)))
        hashes = np.empty(total, dtype=np.uint64)
        starts = np.empty(total, dtype=s_dtype)
        at, base = 0, 0
        for index, (k, w) in enumerate(zip(self.n_ngrams, self.n_words, strict=True)):
            p_h, p_s, _ = _paths(self.spill, index)
            hashes[at : at + k] = np.load(p_h)
            starts[at : at + k] = np.load(p_s) + base
            at += k
            base += w
        return [hashes, starts]

    def by_doc(self) -> tuple[np.ndarray, np.ndarray]:
        """``(hashes, offsets)`` as ``ngram_hashes_by_doc`` of all documents' words at once."""
        total = int(sum(self.n_ngrams))
        hashes = np.empty(total, dtype=np.uint64)
        offs = [np.zeros(1, dtype=np.int64)]
        at = 0
        for index, k in enumerate(self.n_ngrams):
            p_h, _, p_o = _paths(self.spill, index)
            hashes[at : at + k] = np.load(p_h)
            offs.append(np.load(p_o)[1:] + at)
            at += k
        return hashes, np.concatenate(offs)
