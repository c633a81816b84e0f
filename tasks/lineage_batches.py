"""The per-batch work of a lineage build, in process or on a pool of processes.

A build splits every text into words and spans, hashes its shingles into a MinHash signature
and hashes its passage n-grams (``affidavit.tasks.lineage.build_lineage``). Each document's
results depend on its own text alone, so batches of documents are independent: on a corpus of
many batches they run on a small pool of processes (one per core), each returning fixed-width
arrays, and the results are the same as in process (tested). The passage n-gram hashes are
written to a folder the caller owns (``SpilledNgrams``) instead of being returned: the build
needs them twice, for the passage join and for the stored passage material, and holds them
only then.

A build of many batches (``affidavit.tasks.lineage.SPILL_MIN_BATCHES``) keeps the words on
disk too (``BatchSpec.spill_words``): they are joined into one file per field and read through
read-only maps (``assemble_words``) whose pages are given back after each use
(``affidavit.tasks.minhash.release_pages``), and the n-grams are written grouped by hash range
so that the passage join holds one range at a time (``SpilledNgrams.parts``). A batch reads its
own texts from a lazy source (``TextSlice``), so the main process neither reads nor sends them.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from affidavit.schemas.signatures import MinHashConfig
from affidavit.tasks.minhash import (
    WordArrays,
    shingle_hash_sets,
    shingle_hashes_from_words,
    signatures_from_hashes,
)
from affidavit.tasks.passages import _count_dtype, _partition_rows, passage_ngrams
from affidavit.tasks.segment import Segments, segment_texts

__all__ = [
    "BatchSpec",
    "BatchResult",
    "SpilledNgrams",
    "TextSlice",
    "decode_texts",
    "assemble_words",
    "pool_workers",
    "prepare_batches",
    "submit_without_sigint",
]

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
        spill_words: Write the batch's words (hashes, lengths, digit flags) to ``spill``
            too and return only their per-document offsets (``SpilledWords``), and write
            its passage n-grams grouped by hash range (``NGRAM_PART_BITS``): a build too
            large to hold every word of the archive reads them from there.
    """

    minhash: MinHashConfig
    normalize: bool
    stop_needed: bool
    ngram_words: int
    respect_lines: bool
    signatures: bool
    spill: str
    spill_words: bool = False


def decode_texts(col: pl.Series) -> tuple[pl.Series, int]:
    """Texts as strings: bytes decoded as UTF-8, undecodable bytes replaced by U+FFFD.

    Returns:
        The texts, and how many held undecodable bytes.
    """
    if col.dtype != pl.Binary:
        return col, 0
    decoded, n_bad = [], 0
    for b in col.to_list():
        if b is None:
            decoded.append(None)
            continue
        try:
            decoded.append(b.decode("utf-8"))
        except UnicodeDecodeError:
            decoded.append(b.decode("utf-8", "replace"))
            n_bad += 1
    return pl.Series(col.name, decoded, dtype=pl.String), n_bad


@dataclass(frozen=True, slots=True)
class TextSlice:
    """Rows of a lazy source whose texts a batch reads for itself (``prepare_batch``).

    Attributes:
        source: The documents (a lazy frame with a ``text`` column, e.g. a Parquet scan:
            picklable, so a worker process reads the rows itself).
        rows: int64 row numbers in ``source``, in the batch's order.
    """

    source: pl.LazyFrame
    rows: np.ndarray

    def read(self) -> tuple[list[str], int]:
        """The texts as strings (null as empty), and how many held undecodable bytes."""
        if len(self.rows) == 0:
            return [], 0
        first = int(self.rows.min())
        raw = (
            self.source.select("text").slice(first, int(self.rows.max()) - first + 1)
            .collect()["text"]
        )
        got, n_bad = decode_texts(raw.gather(self.rows - first))
        return got.cast(pl.String).fill_null("").to_list(), n_bad


@dataclass(slots=True)
class BatchResult:
    """What one batch of documents gives.

    Attributes:
        segments: Words, lines, sentences and quoted ranges (``segment_texts``).
        sigs: uint32, shape ``(n_docs, num_perm)`` (``(n_docs, 0)`` without signatures).
        n_shingles: int64, shape ``(n_docs,)``: distinct shingles per document.
        n_ngrams: Passage n-grams of the batch (written to the spill folder).
        n_bad: Texts of a ``TextSlice`` that held undecodable bytes (``decode_texts``).
    """

    segments: Segments
    sigs: np.ndarray
    n_shingles: np.ndarray
    n_ngrams: int
    n_bad: int = 0


def _paths(spill: str, index: int) -> tuple[Path, Path, Path]:
    base = Path(spill)
    return (base / f"ngram-hashes-{index:07d}.npy", base / f"ngram-starts-{index:07d}.npy",
            base / f"ngram-offsets-{index:07d}.npy")


def _word_paths(spill: str, index: int) -> tuple[Path, Path, Path]:
    base = Path(spill)
    return (base / f"word-hashes-{index:07d}.npy", base / f"word-lengths-{index:07d}.npy",
            base / f"word-digits-{index:07d}.npy")


def _part_paths(spill: str, index: int) -> tuple[Path, Path, Path]:
    base = Path(spill)
    return (base / f"part-hashes-{index:07d}.npy", base / f"part-starts-{index:07d}.npy",
            base / f"part-bounds-{index:07d}.npy")


NGRAM_PART_BITS = 4
"""Top bits of a passage n-gram hash that name its range in a spilled build: 16 ranges, so
that the passage join holds one range's n-grams at a time (~1/16 of the archive's: ~360 MB
at 1M documents of ~3 KB)."""


def prepare_batch(texts: list[str] | TextSlice, spec: BatchSpec, index: int) -> BatchResult:
    """Split, shingle, sign and hash the passage n-grams of one batch of texts.

    The passage n-grams go to ``spec.spill`` (three ``.npy`` files named by ``index``): uint64
    hashes, int32 start words within the batch, int64 per-document offsets
    (``affidavit.tasks.passages.passage_ngrams`` of the batch's words). With
    ``spec.spill_words`` the words go there too (uint64 hashes, int32 lengths, bool digit
    flags) and the returned ``segments.words`` hold empty arrays with the offsets; the
    n-grams are then written grouped by hash range (``NGRAM_PART_BITS``: uint64 hashes,
    int64 starts within the batch, int64 bounds of shape ``(2**NGRAM_PART_BITS + 1,)``),
    without per-document offsets (the stored material hashes them again from the words).

    Args:
        texts: The batch's texts (strings), or the rows to read them from.
        spec: What to compute.
        index: The batch's position, naming its spilled files.

    Returns:
        A ``BatchResult``.
    """
    n_bad = 0
    if isinstance(texts, TextSlice):
        texts, n_bad = texts.read()
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
    if spec.spill_words:
        w = seg.words
        for path, values in zip(_word_paths(spec.spill, index),
                                (w.hashes, w.lengths, w.has_digit), strict=True):
            np.save(path, values)
        empty = np.zeros(0, dtype=np.uint64)
        seg = Segments(
            WordArrays(empty, empty.astype(np.int32), empty.astype(bool), w.offsets),
            seg.line_lengths, seg.sentence_lengths, seg.quoted,
        )
        del w
        keys = (ng >> np.uint64(64 - NGRAM_PART_BITS)).astype(np.uint8)
        rows, bounds = _partition_rows(keys, 1 << NGRAM_PART_BITS)
        p_h, p_s, p_b = _part_paths(spec.spill, index)
        np.save(p_h, ng[rows])
        np.save(p_s, starts[rows].astype(np.int64))  # within the batch
        np.save(p_b, bounds)
        return BatchResult(seg, sigs, n_sh, len(ng), n_bad)
    p_h, p_s, p_o = _paths(spec.spill, index)
    np.save(p_h, ng)
    np.save(p_s, starts.astype(np.int64))  # within the batch: re-based by the reader
    np.save(p_o, ng_off)
    return BatchResult(seg, sigs, n_sh, len(ng), n_bad)


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


_PR_SET_PDEATHSIG = 1
"""``prctl`` option (``linux/prctl.h``): the signal a process gets when its parent thread ends."""


def _end_with_parent(parent: int) -> None:
    """Make this pool worker end when the process that started it does (Linux; else nothing).

    A pool's workers wait for their next batch on a pipe; a parent killed outright (SIGKILL,
    the OOM killer) never closes the pool, and its workers went on holding their memory. With
    ``PR_SET_PDEATHSIG`` the kernel sends them SIGTERM when the parent ends.

    Args:
        parent: The parent's pid when the pool was made: if it has already ended (the worker
            then belongs to init), the worker ends at once.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):  # not on Linux
        return
    if os.getppid() != parent:
        os.kill(os.getpid(), signal.SIGTERM)


def prepare_batches(
    batches: Iterable[list[str] | TextSlice], spec: BatchSpec, *, workers: int = 0
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
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_end_with_parent,
                               initargs=(os.getpid(),))
    try:
        for index, texts in enumerate(batches):
            pending.append(submit_without_sigint(pool, prepare_batch, texts, spec, index))
            del texts
            while len(pending) >= 2 * workers:
                yield pending.pop(0).result()
        while pending:
            yield pending.pop(0).result()
    except BaseException:
        # Ctrl-C (this process stops the build; the workers never see it), an error, or the
        # consumer leaving early: wait on no batch nobody will read
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def submit_without_sigint(pool: ProcessPoolExecutor, fn: Any, *args: Any) -> Future[Any]:
    """``pool.submit`` with SIGINT blocked in this thread while it runs (POSIX; else as is).

    A worker the submit starts inherits the blocked mask, from before its interpreter starts:
    Ctrl-C, which the terminal sends to the whole process group, reaches the command alone,
    which stops the build. Without it each worker got its own ``KeyboardInterrupt`` and printed
    its traceback (a worker still starting printed a "Fatal Python error" too). A Ctrl-C that
    comes during the submit is delivered when it returns.
    """
    if not hasattr(signal, "pthread_sigmask"):
        return pool.submit(fn, *args)
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        return pool.submit(fn, *args)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _read_rows(path: Path, lo: int, hi: int) -> np.ndarray:
    """Rows ``lo:hi`` of a one-dimensional ``.npy`` file, read without mapping the file.

    Mapped pages of a file count in the process's resident memory for as long as the mapping
    lives; a plain read holds only the rows asked for.
    """
    with path.open("rb") as f:
        version = np.lib.format.read_magic(f)
        if version == (1, 0):
            shape, _, dtype = np.lib.format.read_array_header_1_0(f)
        else:
            shape, _, dtype = np.lib.format.read_array_header_2_0(f)
        if len(shape) != 1 or not 0 <= lo <= hi <= shape[0]:
            raise ValueError(f"rows {lo}:{hi} out of range of {path.name} {shape}")
        f.seek(f.tell() + lo * dtype.itemsize)
        return np.fromfile(f, dtype=dtype, count=hi - lo)


def assemble_words(spill: str, n_words: Sequence[int], offsets: np.ndarray) -> WordArrays:
    """The words of every batch written with ``BatchSpec.spill_words``, as one read-only map.

    Each field's batches are copied, in order, into one ``.npy`` file of ``spill`` (with plain
    writes: dirty pages of a written mapping would count in resident memory) and mapped
    read-only; each batch's files are deleted once copied. Pages read through the map count
    in resident memory until released (``release_pages``).

    Args:
        spill: The folder.
        n_words: Words of each batch, in batch order.
        offsets: int64, shape ``(n_docs + 1,)``: the documents' word offsets, all batches.

    Returns:
        ``WordArrays`` whose ``hashes`` (uint64), ``lengths`` (int32) and ``has_digit``
        (bool) are ``np.memmap`` of shape ``(sum(n_words),)``.
    """
    total = int(sum(n_words))
    fields = []
    for k, (name, dtype) in enumerate(
        (("hashes", np.uint64), ("lengths", np.int32), ("digits", np.bool_))
    ):
        path = Path(spill) / f"words-{name}.npy"
        with path.open("wb") as f:
            np.lib.format.write_array_header_1_0(
                f, {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
                    "fortran_order": False, "shape": (total,)}
            )
            for index in range(len(n_words)):
                part = _word_paths(spill, index)[k]
                np.load(part).astype(dtype, copy=False).tofile(f)
                part.unlink()
        fields.append(np.load(path, mmap_mode="r") if total else np.zeros(0, dtype=dtype))
    return WordArrays(fields[0], fields[1], fields[2], np.asarray(offsets, dtype=np.int64))


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
    words_spilled: bool = False
    part_bits: int = NGRAM_PART_BITS

    def parts(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Each hash range's n-grams over every batch (``affidavit.tasks.passages.NgramParts``).

        Only for batches written with ``BatchSpec.spill_words``. Yields ``(hashes, starts)``:
        uint64 hashes whose top ``part_bits`` bits are the range's number and int64 global
        start words, ascending; one range is held at a time.
        """
        bases = np.zeros(len(self.n_words) + 1, dtype=np.int64)
        np.cumsum(self.n_words, out=bases[1:])
        bounds = [np.load(_part_paths(self.spill, b)[2]) for b in range(len(self.n_words))]
        for p in range(1 << self.part_bits):
            sizes = [int(b[p + 1] - b[p]) for b in bounds]
            total = sum(sizes)
            hashes = np.empty(total, dtype=np.uint64)
            starts = np.empty(total, dtype=np.int64)
            at = 0
            for index, (b, k) in enumerate(zip(bounds, sizes, strict=True)):
                if k == 0:
                    continue
                p_h, p_s, _ = _part_paths(self.spill, index)
                lo, hi = int(b[p]), int(b[p + 1])
                hashes[at : at + k] = _read_rows(p_h, lo, hi)
                starts[at : at + k] = _read_rows(p_s, lo, hi) + bases[index]
                at += k
            yield hashes, starts

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
