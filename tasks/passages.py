"""Long shared passages between documents, found by joining hashed word n-grams.

Every document's normalised words are cut into overlapping word n-grams (``ngram_words`` words);
each n-gram is hashed to 64 bits. N-grams that occur in only one document are dropped, and so is
page furniture: an n-gram found in many unrelated stories of one host (menus, "related" links,
copyright lines), an n-gram repeated on unrelated stories of one host and found on no other
host (that host's footer or menu, however few of its pages are at hand), a short template
line repeated over a host's pages, or an n-gram in very many unrelated stories overall. Words
covered by furniture are furniture too, so n-grams straddling a furniture line and running text
are dropped as well. The remaining n-grams are self-joined on their hash, which yields only the
pairs that share text (no all-pairs comparison); consecutive shared n-grams on one diagonal (the
same offset between the two documents) form a shared passage, whose length in characters of
normalised text is reported; passages of one offset that only ignored n-grams keep apart, with
equal words between them, are one (``PassageConfig.bridge_ignored``).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np
import polars as pl

from affidavit.tasks.minhash import (
    PageBudget,
    Ragged,
    WordArrays,
    release_pages,
    unique_sorted,
    word_arrays,
)

__all__ = [
    "PassageConfig",
    "PassageResult",
    "find_shared_passages",
    "join_shared_ngrams",
    "ngram_hashes_at",
    "ngram_hashes_by_doc",
    "passage_ngrams",
    "repeated_mask",
    "word_ids",
]


@dataclass(frozen=True, slots=True)
class PassageConfig:
    """How shared passages are found.

    N-gram frequencies are counted in *clusters* (groups of documents already linked as
    copies or rewrites by MinHash), not in documents: a story syndicated ten times is one
    cluster, while a "related stories" headline or a menu repeated by a host shows up in many
    unrelated clusters. Without clusters every document is its own cluster.

    Attributes:
        ngram_words: Words per hashed n-gram. 8 words of news text are ~40-50 characters,
            about the shortest passage we report (``LineageConfig.min_passage_chars``); a
            passage shorter than one n-gram is never seen.
        furniture_host_clusters: An n-gram found in at least this many clusters on one host is
            page furniture of that host. Measured on lineage-dev: one lineage has at most 6
            documents on one host (copies plus derivations, 3 clusters at most), while
            "related" headlines recur in 11-15 unrelated documents of each host; over the
            whole corpus 4 gives pair F1 0.941, 3 gives 0.937, 5 gives 0.93 (pool runs do not
            change: a pool holds too few documents of a host).
        furniture_own_host_clusters: An n-gram found in at least this many clusters of one
            host and on no other host is that host's furniture (0 turns the rule off). A
            footer or menu line is the host's own text and shows on unrelated stories of it
            even in a sample far too small for ``furniture_host_clusters`` (the demo corpus:
            a 101-character MetroWire footer on 3 unrelated stories); a sentence a story
            quotes also stands on another host, its origin's. A publisher that quotes its own
            earlier story (and no other host has the words) gets no quote edge for it.
            Measured on lineage-dev: per pool pair F1 0.9992 either way and pool origin
            count exact 0.990 → 0.993; corpus pair F1 0.9812 → 0.9813. Lowering
            ``furniture_host_clusters`` itself to 2 instead drops derivation recall to 0.47:
            a host that runs a wire copy and later its own rewrite quoting it holds the
            quoted words in two clusters.
        furniture_max_clusters: An n-gram in more clusters than this overall is boilerplate
            (stock wire phrases such as "in a filing with the Securities and Exchange
            Commission", headlines of "related" links spread over hosts) and ignored. A
            quoted sentence sits in its origin's cluster and in one cluster per derivation
            (lineage-dev: 1.4 derivations per origin on average). Chosen with
            ``furniture_host_clusters`` on lineage-dev (4 and 6 best of 3-5 × 2-12 per pool).
        max_docs: An n-gram in more documents than this is ignored outright; it bounds the
            work before clustering (ten thousand copies of one story are linked by MinHash).
        sample_mod: Keep only n-grams whose hash is 0 modulo this (1 keeps all). Sampling
            keeps the join small on very large corpora; a passage of ``ngram_words +
            sample_mod - 1`` words or more is still found with certainty.
        respect_lines: N-grams do not cross line breaks (see ``find_shared_passages``). Off:
            measured on lineage-dev it lowered corpus pair F1 (0.80 vs 0.81 at the time).
        one_per_cluster: Join only the earliest member of each cluster holding an n-gram: it
            bounds the join on huge clusters and points quote edges at the earliest copy.
            Measured on lineage-dev per pool: pair F1 0.9921 with it, 0.9908 without.
        template_words: Length of the short n-grams that find furniture lines shorter than
            ``ngram_words`` ("Filed under: Business, World", "More from Newsroom Hub"); 0
            turns this off.
        template_host_share: A short n-gram in at least this share of a host's documents (and
            in at least ``template_min_docs`` of them) is furniture of that host. Running text
            seldom repeats in a quarter of a host's pages; a template line does in most.
        template_min_docs: See ``template_host_share``; keeps small samples of a host (the
            few documents of one pool) from calling their shared text a template.
        echo_words: Words compared on each side of a shared stretch (``_echoed``); 0 turns
            the rule off. A quotation is a verbatim passage set among the quoting text's own
            words; two texts that each carry an edited version of one passage (two rewrites
            of one source paragraph) also share the words around their longest verbatim run,
            at the same alignment. Such runs count as shared text (``n_runs``) but are no
            quoted passage (``passage_chars``, ``full_sentence``, ``quoted_chars`` leave them
            out), so they make no quote edge; unless the stretch is exactly a quotation in
            one text (inside quotation marks that open and close with it) and stated in the
            other: a story may quote a sentence and closely paraphrase the next one.
            Measured, lineage-dev pair F1 per pool / corpus: 0.9992 / 0.9813 without the
            rule, 0.9992 / 0.9814 with it; verdicts-dev corpus 0.9946 either way (0.9821
            without the quotation exception); planted agreement of the synthetic scale corpus
            (``tests/benchmarks/bench_lineage_scale.py``: documents drawing the same real
            paragraphs, each edited at 30% of its words) at 30k documents 0.903 -> 0.971, at
            100k 0.836 -> 0.936 (0.890 when every run inside quotation marks is excepted:
            two copies of one paragraph carry its quoted speech both). 10 words on a side
            make the share a step of 10%.
        echo_share: Share of the compared words, equal at the same alignment, from which a
            stretch is an echo. Unrelated English texts agree by chance on ~1-2% of aligned
            words (the sum of squared word frequencies); two copies of one paragraph each
            edited at 30% of its words agree on ~50%, lightly edited copies on most.
        bridge_ignored: Runs of one pair on one alignment that only ignored n-grams (furniture,
            boilerplate) keep apart are one passage when the words between them are equal in
            both texts, and the words equal on both sides next to it belong to it too
            (``_bridge_runs``): among many documents a stock phrase inside a quoted sentence
            ("the company said in a statement") occurs in more than ``furniture_max_clusters``
            stories and would cut the quotation into fragments, none a whole sentence nor
            long enough alone. Measured: synthetic scale corpus at 100k documents, rewrites
            whose verbatim quote of 85-221 characters came out as no quote edge 102 -> 2,
            planted agreement 0.9357 -> 0.9416 (bridging only between runs, not at the ends:
            0.9368); lineage-dev pair F1 per pool 0.9992 -> 0.9998 (derivation recall 0.9977
            -> 1.0), corpus 0.9814 -> 0.9820 (either way); verdicts-dev status accuracy
            0.9667, origins exact 0.9, unchanged.
    """

    ngram_words: int = 8
    furniture_host_clusters: int = 4
    furniture_max_clusters: int = 6
    max_docs: int = 5000
    sample_mod: int = 1
    respect_lines: bool = False
    one_per_cluster: bool = True
    template_words: int = 4
    template_host_share: float = 0.25
    template_min_docs: int = 10
    furniture_own_host_clusters: int = 2
    echo_words: int = 10
    echo_share: float = 0.25
    bridge_ignored: bool = True

    def __post_init__(self) -> None:
        """Reject impossible settings early."""
        if self.ngram_words < 1:
            raise ValueError("ngram_words must be >= 1")
        if self.furniture_host_clusters < 2 or self.furniture_max_clusters < 2:
            raise ValueError("furniture cluster counts must be >= 2")
        if self.sample_mod < 1:
            raise ValueError("sample_mod must be >= 1")


@dataclass(slots=True)
class PassageResult:
    """Pairs of documents sharing a long passage.

    Attributes:
        pairs: One row per pair of row indices ``i < j``: ``i``, ``j`` (int64),
            ``passage_chars`` (int64, longest shared run of normalised text, characters),
            ``n_shared`` (int64, shared n-grams), ``n_runs`` (int64, separate shared
            passages: runs of consecutive shared n-grams, on any offset), ``total_chars``
            (int64, summed characters of those runs; overlapping runs count twice),
            ``full_sentence`` (bool, some run holds a whole sentence of both documents;
            needs ``sentence_lengths``), ``quoted_chars`` (int64, longest run that holds a
            figure and that one document sets in quotation marks and the other states, 0
            when none; needs ``quoted_ranges``), ``i_lo``, ``i_hi``, ``j_lo``, ``j_hi``
            (int64, the word range ``[lo, hi)`` of each document that its shared runs span).
        n_furniture_ngrams: Distinct n-grams dropped as page furniture of a host.
        n_common_ngrams: Distinct n-grams dropped for occurring in too many documents.
        bad_ngrams: One row per distinct passage n-gram judged furniture or boilerplate in
            this call (to be kept with the passage material, so that a later incremental call
            knows them without the documents that made them so): ``h`` (uint64) and ``kind``
            (str): ``common`` (in too many clusters or documents), ``host`` (in many clusters
            of one host), ``own_host`` (in a few clusters of one host and on no other host;
            the only judgement a document of another host can undo).
        templates: One row per short template n-gram judged in this call: ``h`` (uint64),
            ``host`` (str).
    """

    pairs: pl.DataFrame
    n_furniture_ngrams: int
    n_common_ngrams: int
    bad_ngrams: pl.DataFrame = field(
        default_factory=lambda: pl.DataFrame(schema={"h": pl.UInt64, "kind": pl.String})
    )
    templates: pl.DataFrame = field(
        default_factory=lambda: pl.DataFrame(schema={"h": pl.UInt64, "host": pl.String})
    )


_EMPTY_PAIRS = pl.DataFrame(
    schema={
        "i": pl.Int64,
        "j": pl.Int64,
        "passage_chars": pl.Int64,
        "n_shared": pl.Int64,
        "n_runs": pl.Int64,
        "total_chars": pl.Int64,
        "full_sentence": pl.Boolean,
        "quoted_chars": pl.Int64,
        "i_lo": pl.Int64,
        "i_hi": pl.Int64,
        "j_lo": pl.Int64,
        "j_hi": pl.Int64,
    }
)

_HASH_BLOCK = 1 << 22
"""N-gram start positions hashed at once, and entries per hash range counted at once
(``repeated_mask``): 4M, so that temporaries stay ~100 MB whatever the corpus size."""

_HASH_CHUNK = 1 << 16
"""N-gram start positions hashed at once by ``_ngram_hashes``: 64K uint64 values (512 KiB an
array) stay in the CPU caches; measured on the synthetic scale corpus (30k documents) hashing in
4M-value blocks took ~3x the time."""

_SENTENCES_LOOKED_AT = 4
"""Sentences from a run's start checked for ``full_sentence``."""

_QUOTED_SHARE = 0.8
"""Share of a run's words inside quotation marks from which the run counts as set in quotes."""


def word_ids(words_per_doc: Sequence[list[str]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Map every word to a dense integer id (within this call) and record word lengths.

    Args:
        words_per_doc: Normalised words of each document.

    Returns:
        ``(ids, lengths, offsets)``: int64 ``(total_words,)`` word ids, int64 ``(total_words,)``
        word lengths in characters, int64 ``(n_docs + 1,)`` offsets of each document's words.
    """
    counts = np.zeros(len(words_per_doc) + 1, dtype=np.int64)
    counts[1:] = [len(w) for w in words_per_doc]
    offsets = np.cumsum(counts)
    flat = pl.Series("w", [w for ws in words_per_doc for w in ws], dtype=pl.String)
    if flat.len() == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, offsets
    ids = flat.cast(pl.Categorical).to_physical().to_numpy().astype(np.int64)
    lengths = flat.str.len_chars().to_numpy().astype(np.int64)
    return ids, lengths, offsets


NgramJoinFn = Callable[[pl.DataFrame], pl.DataFrame]


def join_shared_ngrams(grams: pl.DataFrame, *, left: pl.DataFrame | None = None) -> pl.DataFrame:
    """Self-join n-gram occurrences on their hash: the shared n-grams of document pairs.

    Rows of different hashes never meet, so the join of any partition of ``grams`` by hash,
    concatenated over the partitions, holds the same rows (in another order).

    Args:
        grams: One row per kept (n-gram, document): ``h`` (uint64 hash), ``g`` (int64 global
            start word), ``doc`` (int64 row), ``cluster`` (int64), and ``is_new`` (bool) when
            only pairs touching a new document are wanted.
        left: Rows of ``grams`` that may be the first document ``i`` of a pair (default:
            all); ``grams`` must hold every row of their hashes.

    Returns:
        One row per shared n-gram of a pair of documents ``i < j`` of different clusters:
        ``i``, ``j``, ``gi``, ``gj`` (int64 start words in each), in no set order.
    """
    joined = (grams if left is None else left).join(grams, on="h", suffix="_b").filter(
        (pl.col("doc") < pl.col("doc_b")) & (pl.col("cluster") != pl.col("cluster_b"))
    )
    if "is_new" in grams.columns:
        joined = joined.filter(pl.col("is_new") | pl.col("is_new_b"))
    return joined.select(i=pl.col("doc"), j=pl.col("doc_b"), gi=pl.col("g"), gj=pl.col("g_b"))


def _runs_of(joined: pl.DataFrame) -> pl.DataFrame:
    """Runs of consecutive shared n-grams: one row per (``i``, ``j``, ``diag``, run).

    Args:
        joined: ``join_shared_ngrams`` rows (every row of each pair ``(i, j)`` it holds).

    Returns:
        ``i``, ``j``, ``diag`` (``gj - gi``), ``run``, ``start`` and ``end`` (global starts of
        the run's first and last n-gram in ``i``), ``n`` (n-grams).
    """
    return (
        joined.with_columns(diag=pl.col("gj") - pl.col("gi"))
        .sort("i", "j", "diag", "gi")
        .with_columns(run=pl.col("gi") - pl.int_range(pl.len()).over("i", "j", "diag"))
        .group_by("i", "j", "diag", "run")
        .agg(start=pl.col("gi").min(), end=pl.col("gi").max(), n=pl.len())
    )


_JOIN_ROWS = 1 << 23
"""Rows the self-join of the kept n-grams makes at once at most (``_shared_runs``), before its
filter: an n-gram held by ``k`` documents makes ``k * k``. Joined whole, this frame was the
largest of a build (~2.5 GB more than the rest at 1M documents of the scale corpus); 8M rows of
its 7 columns are ~450 MB."""


def _shared_runs(
    grams: pl.DataFrame, reduce: Callable[[pl.DataFrame], pl.DataFrame]
) -> pl.DataFrame:
    """``reduce(_runs_of(join_shared_ngrams(grams)))``, a range of first documents at a time.

    Every row of a pair ``(i, j)`` has ``i`` as its first document, so the pairs whose first
    document falls in a range of documents are complete in that range's join: each range
    joins its rows (``doc`` in the range) with the rows of the hashes they hold only, and is
    reduced to runs and then by ``reduce`` (a function of each pair's runs alone) before the
    next.

    Args:
        grams: As ``join_shared_ngrams``.
        reduce: Runs (``_runs_of``, every run of each pair they hold) to a frame.

    Returns:
        The ``reduce`` frames of the ranges, concatenated.
    """
    grams = grams.sort("h")
    h = grams["h"].to_numpy()
    doc = grams["doc"].to_numpy()
    first = np.ones(len(h), dtype=bool)
    first[1:] = h[1:] != h[:-1]
    group = np.cumsum(first) - 1  # hash group of each row
    g_start = np.flatnonzero(first)
    g_end = np.append(g_start[1:], len(h))
    # each row joins every row of its hash: the rows it makes, summed over the rows of a range
    made = (g_end - g_start)[group]
    if int(made.sum()) <= _JOIN_ROWS:
        return reduce(_runs_of(join_shared_ngrams(grams)))
    by_doc = np.argsort(doc, kind="stable")
    cum = np.cumsum(made[by_doc])
    at = np.searchsorted(cum, np.arange(0, int(cum[-1]), _JOIN_ROWS), side="right")
    cuts = doc[by_doc][np.minimum(at, len(by_doc) - 1)]
    del by_doc, cum, made
    bounds = [*unique_sorted(np.concatenate([[doc.min()], cuts])).tolist(), int(doc.max()) + 1]
    parts = []
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=False):
        left = np.flatnonzero((doc >= lo) & (doc < hi))
        groups = unique_sorted(group[left])
        sizes = g_end[groups] - g_start[groups]
        right = np.repeat(g_start[groups] - np.concatenate([[0], np.cumsum(sizes)[:-1]]), sizes)
        right += np.arange(int(sizes.sum()), dtype=np.int64)
        joined = join_shared_ngrams(grams[right], left=grams[left])
        del left, right
        parts.append(reduce(_runs_of(joined)))
        del joined
    return pl.concat(parts)


def ngram_hashes_by_doc(
    words: WordArrays, n: int, line_lengths: Sequence[Sequence[int]] | Ragged | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The passage n-gram hashes of each document, as ``find_shared_passages`` forms them.

    Args:
        words: The documents' words.
        n: Words per n-gram (``PassageConfig.ngram_words``).
        line_lengths: Words per line of each document, when n-grams must not cross lines.

    Returns:
        ``(hashes, offsets)``: uint64 hashes in document order (by start word), int64
        offsets of shape ``(n_docs + 1,)``.
    """
    h, _, out = passage_ngrams(words, n, line_lengths)
    return h, out


def passage_ngrams(
    words: WordArrays, n: int, line_lengths: Sequence[Sequence[int]] | Ragged | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``ngram_hashes_by_doc`` with the start of each n-gram (for ``find_shared_passages``).

    Returns:
        ``(hashes, starts, offsets)``: uint64 hashes, their global start positions (int32
        when every position fits, else int64), and int64 per-document offsets into both, of
        shape ``(n_docs + 1,)``.
    """
    offsets = words.offsets
    seg = offsets
    if line_lengths is not None:
        flat = _flat_counts(line_lengths)
        seg = unique_sorted(np.concatenate([[0], np.cumsum(flat), offsets]).astype(np.int64))
    h, starts = _ngram_hashes(words.hashes, seg, n, narrow=True)
    out = np.searchsorted(starts, offsets).astype(np.int64)
    return h, starts, out


def _count_dtype(n: int) -> type:
    """The narrowest of int32 and int64 that holds every count up to ``n``.

    For per-word running counts over the concatenated documents: 4 bytes a word instead of 8
    below 2**31 words.
    """
    return np.int32 if n < np.iinfo(np.int32).max else np.int64


def _flat_counts(lists: Sequence[Sequence[int]] | Ragged) -> np.ndarray:
    """The per-document counts of ``lists`` (Python lists or a ``Ragged``), flat, int64."""
    if isinstance(lists, Ragged):
        return lists.values.astype(np.int64)
    return np.fromiter((c for d in lists for c in d), dtype=np.int64)


def _ngram_multipliers(n: int) -> np.ndarray:
    """The odd uint64 multipliers of the ``n`` word positions of an n-gram hash (fixed seed)."""
    gen = np.random.RandomState(20240601)
    return gen.randint(1, 1 << 62, n, dtype=np.int64).astype(np.uint64) * np.uint64(2) + np.uint64(
        1
    )


def _finalize(h: np.ndarray) -> None:
    """MurmurHash3's 64-bit finalizer, in place."""
    with np.errstate(over="ignore"):
        h ^= h >> np.uint64(33)
        h *= np.uint64(0xFF51AFD7ED558CCD)
        h ^= h >> np.uint64(33)
        h *= np.uint64(0xC4CEB9FE1A85EC53)
        h ^= h >> np.uint64(33)


def ngram_hashes_at(ids: np.ndarray, starts: np.ndarray, n: int) -> np.ndarray:
    """The passage n-gram hash of the ``n`` words from each start (as ``ngram_hashes_by_doc``).

    Args:
        ids: uint64 word hashes (``WordArrays.hashes``), documents concatenated.
        starts: int64 positions in ``ids``; each needs ``n`` words from it.
        n: Words per n-gram.

    Returns:
        uint64, shape of ``starts``.
    """
    mult = _ngram_multipliers(n)
    h = np.zeros(len(starts), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(n):
            h += (ids[starts + j].astype(np.uint64) + np.uint64(1)) * mult[j]
    _finalize(h)
    return h


def _ngram_hashes(
    ids: np.ndarray, offsets: np.ndarray, n: int, *, narrow: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Hash every word n-gram that lies inside one segment (document, or line when given).

    Args:
        ids: uint64 word hashes, documents concatenated.
        offsets: int64 segment offsets.
        n: Words per n-gram.
        narrow: Return the starts as int32 when every position fits (``_count_dtype``): half
            the memory of the largest arrays of a passage join, for callers that keep only a
            few of them.

    Returns:
        ``(hashes, starts)``: uint64 hashes and int64 (int32 with ``narrow``) global start
        positions of valid n-grams.
    """
    total = len(ids)
    s_dtype = _count_dtype(total) if narrow else np.int64
    if total < n:
        return np.zeros(0, np.uint64), np.zeros(0, s_dtype)
    m = total - n + 1
    mult = _ngram_multipliers(n)
    # segment starts inside the words (a start p is valid when none lies in p+1 .. p+n-1)
    inner = np.asarray(offsets, dtype=np.int64)
    inner = inner[(inner > 0) & (inner < total)]
    # the outputs are allocated at their largest size and filled in order: the pages past the
    # last n-gram are never written, so they cost no memory (concatenating chunks at the end
    # held every n-gram twice)
    out_h = np.empty(m, dtype=np.uint64)
    out_s = np.empty(m, dtype=s_dtype)
    filled = 0
    h = np.empty(_HASH_CHUNK, dtype=np.uint64)
    tmp = np.empty(_HASH_CHUNK, dtype=np.uint64)
    # in chunks of start positions, with every temporary preallocated at the chunk's size
    # (in cache; fresh arrays of many MB are paid for in page faults)
    with np.errstate(over="ignore"):
        for a in range(0, m, _HASH_CHUNK):
            b = min(a + _HASH_CHUNK, m)
            k = b - a
            u = ids[a : b + n - 1].astype(np.uint64)
            u += np.uint64(1)
            hk, tk = h[:k], tmp[:k]
            np.multiply(u[:k], mult[0], out=hk)
            for j in range(1, n):
                np.multiply(u[j : j + k], mult[j], out=tk)
                hk += tk
            _finalize(hk)
            # segment starts of this chunk's n-grams, as a running count
            lo = np.searchsorted(inner, a + 1)
            hi = np.searchsorted(inner, b + n - 1)
            if lo == hi:
                out_h[filled : filled + k] = hk
                out_s[filled : filled + k] = np.arange(a, b, dtype=s_dtype)
                filled += k
                continue
            mark = np.zeros(k + n, dtype=np.int32)
            mark[inner[lo:hi] - a] = 1
            np.cumsum(mark, out=mark)
            valid = mark[n - 1 : n - 1 + k] == mark[:k]
            kept = int(valid.sum())
            out_h[filled : filled + kept] = hk[valid]
            out_s[filled : filled + kept] = np.flatnonzero(valid).astype(s_dtype) + s_dtype(a)
            filled += kept
    return out_h[:filled], out_s[:filled]


_ECHO_SHIFT = 0
"""Words by which the compared positions of ``_echoed`` may be off the run's alignment.

Measured before the quotation exception of ``_echoed`` (lineage-dev per pool / corpus pair
F1, synthetic scale corpus planted agreement at 30k documents): 0 with ``echo_share`` 0.25:
0.9992 / 0.9814, 0.961; 1 with 0.4: 0.9988 / 0.9809, 0.969; 2 with 0.4: 0.9981 / 0.9802,
0.971. Off the alignment, function words agree
by chance often enough to take real derivations' quotes for echoes."""


_GATHER_WORDS = 1 << 17
"""Positions extended at once by ``_extend_equal``: its temporaries are a few arrays of
``_EXTEND_WORDS`` values a position (~8 MiB each)."""

_EXTEND_WORDS = 8
"""Words compared at once for each position by ``_extend_equal``: most runs extend by a few
words, and a copy's whole text by hundreds, one round of NumPy calls per ``_EXTEND_WORDS``."""


def _extend_equal(
    edge: np.ndarray,
    step: int,
    i: np.ndarray,
    j: np.ndarray,
    diag: np.ndarray,
    ids: np.ndarray,
    offsets: np.ndarray,
) -> np.ndarray:
    """Move word positions of document ``i`` past the words equal in ``j`` at the same alignment.

    Args:
        edge: int64 global word positions in ``i`` (a word shared at offset ``diag``).
        step: +1 to move forward, -1 backward.
        i: int64 row of the first document, per position.
        j: int64 row of the second document, per position.
        diag: int64 global word offset from ``i`` to ``j``, per position.
        ids: uint64 word hashes, all documents concatenated (a file map's pages are given back
            as a ``PageBudget`` allows).
        offsets: int64, shape ``(n_docs + 1,)``.

    Returns:
        int64, shape of ``edge``: the last position reached before the first word that differs
        (or a document's bound).

    >>> ids = np.array([1, 2, 3, 9, 1, 2, 3, 4], dtype=np.uint64)
    >>> off = np.array([0, 4, 8])
    >>> at = np.array([0])
    >>> _extend_equal(at, 1, np.array([0]), np.array([1]), np.array([4]), ids, off).tolist()
    [2]
    """
    last = len(ids) - 1
    edge = edge.astype(np.int64, copy=True)
    lo_i, hi_i = offsets[i], offsets[i + 1]
    lo_j, hi_j = offsets[j], offsets[j + 1]
    ahead = np.arange(1, _EXTEND_WORDS + 1, dtype=np.int64) * step
    pages = PageBudget(ids)
    act = np.arange(len(edge))
    while len(act):
        moved = np.zeros(len(act), dtype=np.int64)
        for a in range(0, len(act), _GATHER_WORDS):
            at = act[a : a + _GATHER_WORDS]
            cand = edge[at, None] + ahead
            other = cand + diag[at, None]
            ok = (
                (cand >= lo_i[at, None]) & (cand < hi_i[at, None])
                & (other >= lo_j[at, None]) & (other < hi_j[at, None])
            )
            np.clip(cand, 0, last, out=cand)
            np.clip(other, 0, last, out=other)
            pages.touch(cand[:, 0], cand[:, -1], other[:, 0], other[:, -1])
            ok &= ids[cand] == ids[other]
            # the equal words before the first that differs (or is out of bounds)
            moved[a : a + len(at)] = np.where(ok.all(axis=1), _EXTEND_WORDS, ok.argmin(axis=1))
        edge[act] += moved * step
        act = act[moved == _EXTEND_WORDS]
    pages.release()
    return edge


def _bridge_runs(
    runs: pl.DataFrame, ids: np.ndarray, offsets: np.ndarray, n: int
) -> pl.DataFrame:
    """Join runs of one pair and alignment that only ignored n-grams keep apart.

    A shared run stops where the n-gram join kept no n-gram: at a word that differs, or at
    words covered by n-grams judged furniture or boilerplate (a stock phrase in more than
    ``furniture_max_clusters`` stories), which the join leaves out. A quotation may hold such
    a phrase: among many documents a stock phrase of a quoted sentence ("the company said
    in a statement") is in enough stories to be ignored, and would cut the quotation into
    fragments, none a whole sentence nor long enough alone. Runs of one pair on one alignment
    whose words in between are equal in both documents are one verbatim passage; the words
    equal on both sides just before its first and after its last run are part of it too.
    Ignored n-grams never start a passage (a passage needs a kept n-gram), so page furniture
    shared alone links nothing. Every word looked at is inside a stretch of equal words whose
    n-grams both documents hold, so an update's ``_PassageView`` holds it.

    Args:
        runs: One row per run: ``i``, ``j``, ``diag`` (int64, global word offset from ``i`` to
            ``j``), ``start``, ``end`` (int64, global starts of its first and last n-gram),
            ``n`` (shared n-grams).
        ids: uint64 word hashes, all documents concatenated.
        offsets: int64, shape ``(n_docs + 1,)``.
        n: Words per n-gram.

    Returns:
        ``runs`` with bridged runs merged (``start``, ``end`` widened to the equal words, ``n``
        summed), in no set order.
    """
    if runs.height == 0:
        return runs
    r = runs.sort("i", "j", "diag", "start")
    i = r["i"].to_numpy().astype(np.int64)
    j = r["j"].to_numpy().astype(np.int64)
    diag = r["diag"].to_numpy().astype(np.int64)
    lo = _extend_equal(r["start"].to_numpy().astype(np.int64), -1, i, j, diag, ids, offsets)
    hi = _extend_equal(
        r["end"].to_numpy().astype(np.int64) + n - 1, 1, i, j, diag, ids, offsets
    ) + 1
    same = np.zeros(len(i), dtype=bool)
    same[1:] = (i[1:] == i[:-1]) & (j[1:] == j[:-1]) & (diag[1:] == diag[:-1])
    reach = np.zeros(len(i), dtype=bool)
    reach[1:] = hi[:-1] >= lo[1:]
    group = np.cumsum(~(same & reach))
    return (
        r.with_columns(lo=pl.Series(lo), hi=pl.Series(hi), group=pl.Series(group))
        .group_by("group")
        .agg(
            pl.col("i").first(), pl.col("j").first(), pl.col("diag").first(),
            pl.col("run").first(),
            start=pl.col("lo").min(), end=(pl.col("hi") - n).max(), n=pl.col("n").sum(),
        )
        .drop("group")
    )


@dataclass(frozen=True, slots=True)
class _Marked:
    """A set of global word positions held as sorted, disjoint ranges (no per-word array).

    Counting marked words in a range is two binary searches, so shared runs (a few per pair)
    are measured without a running count over every word of the archive.

    Attributes:
        lo: int64, sorted range starts.
        hi: int64, range ends (exclusive), ``hi > lo``; ranges neither overlap nor touch.
        before: int64, shape ``(len(lo) + 1,)``: marked words in the ranges before each.
    """

    lo: np.ndarray
    hi: np.ndarray
    before: np.ndarray

    @staticmethod
    def from_ranges(lo: np.ndarray, hi: np.ndarray) -> _Marked:
        """The union of ranges ``[lo, hi)`` (any order, overlaps allowed; empty ones ignored).

        >>> m = _Marked.from_ranges(np.array([5, 0, 2]), np.array([7, 3, 4]))
        >>> m.lo.tolist(), m.hi.tolist(), m.count(np.array([0]), np.array([6])).tolist()
        ([0, 5], [4, 7], [5])
        """
        lo = np.asarray(lo, dtype=np.int64)
        hi = np.asarray(hi, dtype=np.int64)
        keep = hi > lo
        lo, hi = lo[keep], hi[keep]
        order = np.argsort(lo, kind="stable")
        lo, hi = lo[order], hi[order]
        if len(lo):
            reach = np.maximum.accumulate(hi)
            opens = np.ones(len(lo), dtype=bool)
            opens[1:] = lo[1:] > reach[:-1]
            first = np.flatnonzero(opens)
            lo, hi = lo[first], np.maximum.reduceat(hi, first)
        before = np.zeros(len(lo) + 1, dtype=np.int64)
        np.cumsum(hi - lo, out=before[1:])
        return _Marked(lo, hi, before)

    def count_before(self, x: np.ndarray) -> np.ndarray:
        """Marked positions below each ``x`` (int64)."""
        x = np.asarray(x, dtype=np.int64)
        if len(self.lo) == 0:
            return np.zeros(len(x), dtype=np.int64)
        k = np.searchsorted(self.lo, x, side="right") - 1
        kk = np.maximum(k, 0)
        inside = np.clip(x - self.lo[kk], 0, self.hi[kk] - self.lo[kk])
        return np.where(k >= 0, self.before[kk] + inside, 0)

    def count(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Marked positions in each ``[a, b)`` (int64)."""
        return self.count_before(b) - self.count_before(a)

    def marked(self, x: np.ndarray) -> np.ndarray:
        """Whether each position ``x`` is marked (bool)."""
        x = np.asarray(x, dtype=np.int64)
        if len(self.lo) == 0:
            return np.zeros(len(x), dtype=bool)
        k = np.searchsorted(self.lo, x, side="right") - 1
        return (k >= 0) & (x < self.hi[np.maximum(k, 0)])


def _range_sums(values: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Sum of ``values[a:b]`` for each range (int64), reading only the ranges' entries.

    With ``values`` a file map, the ranges are read a ``PageBudget`` at a time and its pages
    are given back after.

    >>> _range_sums(np.array([1, 2, 3, 4]), np.array([0, 2, 3]), np.array([2, 4, 3])).tolist()
    [3, 7, 0]
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    pages = PageBudget(values)
    if not pages.is_map:
        return _sums_of_ranges(values, a, b)
    out = np.zeros(len(a), dtype=np.int64)
    per_round = pages.items_per_round(2, len(a))  # a run's words: one or two blocks
    for s in range(0, len(a), per_round):
        e = s + per_round
        pages.touch(a[s:e], np.maximum(b[s:e] - 1, a[s:e]))
        out[s:e] = _sums_of_ranges(values, a[s:e], b[s:e])
    pages.release()
    return out


def _sums_of_ranges(values: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    lens = np.maximum(b - a, 0)
    ends = np.cumsum(lens)
    starts = ends - lens
    total = int(ends[-1]) if len(ends) else 0
    if total == 0:
        return np.zeros(len(a), dtype=np.int64)
    idx = np.repeat(a - starts, lens) + np.arange(total, dtype=np.int64)
    csum = np.zeros(total + 1, dtype=np.int64)
    np.cumsum(values[idx], out=csum[1:])
    return csum[ends] - csum[starts]


_ECHO_CHUNK = 1 << 17
"""Stretches whose windows ``_echoed`` compares at once: its temporaries are ~10 arrays of
``2 * echo_words`` values a stretch (~25 MiB each at 128K stretches and 10 words) however many
stretches the archive has (all at once took ~3 GiB at 300k documents of the scale corpus)."""


def _echo_windows(
    i: np.ndarray,
    j: np.ndarray,
    diag: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    ids: np.ndarray,
    offsets: np.ndarray,
    config: PassageConfig,
    quoted_word: _Marked | None,
) -> np.ndarray:
    """Tell which stretches are echoes, for stretches already extended (``_echoed``).

    A stretch is the words ``[lo, hi)`` of document ``i``, shared at offset ``diag`` with
    document ``j`` (int64 arrays of one shape).

    Returns:
        bool, shape of ``lo``.
    """
    w = config.echo_words
    last = len(ids) - 1
    k = np.arange(1, w + 1)
    # the window starts one word beyond the first word that differs
    pos = np.concatenate([lo[:, None] - 1 - k[None, :], hi[:, None] + k[None, :]], axis=1)
    other = pos + diag[:, None]
    ok = (
        (pos >= offsets[i][:, None]) & (pos < offsets[i + 1][:, None])
        & (other >= offsets[j][:, None]) & (other < offsets[j + 1][:, None])
    )
    # equal at the same alignment (or ``_ECHO_SHIFT`` words off it: an edit that inserts or
    # drops a word shifts the rest of the paragraph)
    same = np.zeros(pos.shape, dtype=bool)
    for d in range(-_ECHO_SHIFT, _ECHO_SHIFT + 1):
        o = other + d
        inside = (o >= offsets[j][:, None]) & (o < offsets[j + 1][:, None])
        same |= ok & inside & (ids[np.clip(pos, 0, last)] == ids[np.clip(o, 0, last)])
    echo = np.zeros(len(lo), dtype=bool)
    for side in (slice(0, w), slice(w, 2 * w)):  # before, after: either side may show it
        compared = ok[:, side].sum(axis=1)
        n_same = same[:, side].sum(axis=1)
        echo |= (2 * compared >= w) & (n_same >= config.echo_share * np.maximum(compared, 1))
    if quoted_word is not None:
        qw = quoted_word

        def exact_quote(a: np.ndarray, b: np.ndarray, lo_doc: np.ndarray, hi_doc: np.ndarray
                        ) -> np.ndarray:
            inside = qw.count(a, b) >= _QUOTED_SHARE * np.maximum(b - a, 1)
            before = np.where(a - 2 >= lo_doc, qw.marked(np.clip(a - 2, 0, last)), False)
            after = np.where(b + 1 < hi_doc, qw.marked(np.clip(b + 1, 0, last)), False)
            return inside & ~before & ~after

        def stated(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            return qw.count(a, b) < _QUOTED_SHARE * np.maximum(b - a, 1)

        qi = exact_quote(lo, hi, offsets[i], offsets[i + 1])
        qj = exact_quote(lo + diag, hi + diag, offsets[j], offsets[j + 1])
        echo &= ~((qi & stated(lo + diag, hi + diag)) | (qj & stated(lo, hi)))
    return echo


def _echoed(
    runs: pl.DataFrame,
    ids: np.ndarray,
    offsets: np.ndarray,
    n: int,
    config: PassageConfig,
    quoted_word: _Marked | None = None,
) -> np.ndarray:
    """Tell which shared runs sit inside a longer stretch the two texts share loosely.

    Runs of one pair on one alignment (diagonal) less than ``echo_words`` words apart form a
    stretch, extended over the words equal on both sides next to it. Past the first word that
    differs, the ``echo_words`` words before and after the stretch are compared position by
    position on the same alignment; when on either side at least ``echo_share`` of them are
    equal (and at least half of that side's window could be compared; a shared paragraph
    often ends right after the run), the stretch is an echo: the two texts carry
    two edited versions of one passage, not one quoting the other.

    Args:
        runs: One row per run: ``i``, ``j``, ``diag`` (int64, global word offset from ``i``
            to ``j``), ``start``, ``end`` (int64, global starts of its first and last n-gram).
        ids: uint64 word hashes, all documents concatenated.
        offsets: int64, shape ``(n_docs + 1,)``.
        n: Words per n-gram.
        config: ``echo_words`` and ``echo_share``.
        quoted_word: The words that stand inside double quotation marks (``_Marked``). A
            stretch that is exactly a quotation in one document (its words inside marks, the
            words just outside it not) and stated in the other is no echo: a story quotes a
            sentence and may paraphrase the next one closely.

    Returns:
        bool, shape ``(n_runs,)``, in ``runs`` order.
    """
    w = config.echo_words
    r = runs.select(
        "i", "j", "diag", "start", stop=pl.col("end") + n, row=pl.int_range(pl.len())
    ).sort("i", "j", "diag", "start")
    prev = pl.col("stop").cum_max().shift(1).over("i", "j", "diag")
    r = r.with_columns(
        stretch=((pl.col("start") - prev).fill_null(w + 1) > w).cum_sum()
    )
    st = r.group_by("stretch").agg(
        i=pl.col("i").first(), j=pl.col("j").first(), diag=pl.col("diag").first(),
        lo=pl.col("start").min(), hi=pl.col("stop").max(),
    )
    i = st["i"].to_numpy()
    j = st["j"].to_numpy()
    diag = st["diag"].to_numpy()
    lo = st["lo"].to_numpy()
    hi = st["hi"].to_numpy()
    # move past words equal on both sides (a verbatim continuation the n-gram join did not
    # keep, e.g. words next to furniture) up to the first word that differs
    lo = _extend_equal(lo, -1, i, j, diag, ids, offsets)  # first shared word
    hi = _extend_equal(hi - 1, 1, i, j, diag, ids, offsets) + 1  # one past the last shared word
    echo = np.zeros(len(lo), dtype=bool)
    # in chunks of stretches: the windows are ``2 * w`` positions a stretch in several arrays,
    # and with the words on disk a stretch reads the pages around its 4 windows
    pages = PageBudget(ids)
    per_chunk = pages.items_per_round(4, _ECHO_CHUNK)
    for a in range(0, len(lo), per_chunk):
        b = min(a + per_chunk, len(lo))
        pages.touch(lo[a:b], hi[a:b], lo[a:b] + diag[a:b], hi[a:b] + diag[a:b])
        echo[a:b] = _echo_windows(
            i[a:b], j[a:b], diag[a:b], lo[a:b], hi[a:b], ids, offsets, config, quoted_word
        )
    pages.release()
    per_stretch = pl.DataFrame({"stretch": st["stretch"], "echo": echo})
    flags = r.join(per_stretch, on="stretch").sort("row")["echo"]
    return flags.to_numpy().astype(bool)


def isin_hashes(values: np.ndarray, among: np.ndarray) -> np.ndarray:
    """``np.isin`` by hashing (Polars), for a large ``values`` array; bool, shape of ``values``.

    >>> isin_hashes(np.array([3, 1, 4], dtype=np.uint64), np.array([4, 3], dtype=np.uint64))
    array([ True, False,  True])
    """
    if len(among) == 0:
        return np.zeros(len(values), dtype=bool)
    return pl.Series(values).is_in(pl.Series(among).implode()).to_numpy()


def repeated_mask(hashes: np.ndarray, min_count: int = 2) -> np.ndarray:
    """Tell which entries hold a hash that occurs at least ``min_count`` times.

    Counted one hash range at a time (by the top bits), so the hash table's memory is a
    fraction of the array's. Polars counts by hashing: measured at ~2x ``np.unique``'s speed
    on 15M hashes.

    Args:
        hashes: uint64, shape ``(n,)``.
        min_count: Occurrences needed.

    Returns:
        bool, shape ``(n,)``.

    >>> repeated_mask(np.array([5, 7, 5, 9], dtype=np.uint64)).tolist()
    [True, False, True, False]
    """
    out = np.zeros(len(hashes), dtype=bool)
    parts = max(1, min(64, len(hashes) // _HASH_BLOCK))
    bits = max(1, int(np.ceil(np.log2(parts))))
    top = (hashes >> np.uint64(64 - bits)).astype(np.uint8)  # bits <= 6
    rows, bounds = _partition_rows(top, 1 << bits)
    del top
    for p in range(1 << bits):
        idx = rows[bounds[p] : bounds[p + 1]]
        if len(idx) == 0:
            continue
        part = pl.Series("h", hashes[idx])
        if min_count <= 2:
            out[idx] = part.is_duplicated().to_numpy() if min_count == 2 else True
        else:
            counts = pl.DataFrame([part]).select(pl.len().over("h") >= min_count)
            out[idx] = counts.to_series().to_numpy()
    return out


def _partition_rows(keys: np.ndarray, n_parts: int) -> tuple[np.ndarray, np.ndarray]:
    """Group the rows of ``keys`` by key, a block at a time (a counting sort).

    One pass over ``keys``: each block of ``_HASH_BLOCK`` rows is sorted by key (a radix
    sort, stable) and its rows are copied to their key's range. Picking each key's rows with
    a scan of the whole array instead reads it once per key (64 times for 64 hash ranges).

    Args:
        keys: uint8, shape ``(n,)``, each below ``n_parts``.
        n_parts: Number of keys.

    Returns:
        ``(rows, bounds)``: the rows of key ``p`` are ``rows[bounds[p]:bounds[p + 1]]``,
        ascending (int32 when every row fits, else int64); ``bounds`` int64 of shape
        ``(n_parts + 1,)``.

    >>> rows, bounds = _partition_rows(np.array([1, 0, 1, 0], dtype=np.uint8), 2)
    >>> rows.tolist(), bounds.tolist()
    ([1, 3, 0, 2], [0, 2, 4])
    """
    n = len(keys)
    bounds = np.zeros(n_parts + 1, dtype=np.int64)
    np.cumsum(np.bincount(keys, minlength=n_parts), out=bounds[1:])
    rows = np.empty(n, dtype=_count_dtype(n))
    fill = bounds[:-1].copy()
    for a in range(0, n, _HASH_BLOCK):
        block = keys[a : a + _HASH_BLOCK]
        order = np.argsort(block, kind="stable")
        counts = np.bincount(block, minlength=n_parts)
        starts = np.zeros(n_parts + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        for p in np.flatnonzero(counts).tolist():
            c = int(counts[p])
            rows[fill[p] : fill[p] + c] = order[starts[p] : starts[p + 1]] + a
            fill[p] += c
    return rows, bounds


def _doc_of(starts: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The document (int64) of each global word position, by ``offsets``.

    Equal to ``np.searchsorted(offsets, starts, side="right") - 1``; for sorted ``starts``
    (as n-grams come) it searches the few document bounds among the starts instead of every
    start among the bounds.
    """
    if len(starts) < 2 or not bool(np.all(starts[1:] >= starts[:-1])):
        return np.searchsorted(offsets, starts, side="right") - 1
    # documents with no start still count: repeat each document by its number of starts
    first = np.searchsorted(starts, offsets, side="left")
    counts = np.diff(first)
    if counts.sum() != len(starts):  # a start beyond the last bound: the general way
        return np.searchsorted(offsets, starts, side="right") - 1
    return np.repeat(np.arange(len(counts), dtype=np.int64), counts)


def _counts_at_least(keys: np.ndarray, need: np.ndarray) -> np.ndarray:
    """Tell which entries hold a key that occurs at least ``need`` (per entry) times.

    As ``repeated_mask``, one hash range at a time.

    Args:
        keys: uint64, shape ``(n,)``.
        need: int64, shape ``(n,)``: occurrences each entry's key needs.

    Returns:
        bool, shape ``(n,)``.
    """
    out = np.zeros(len(keys), dtype=bool)
    if len(keys) == 0:
        return out
    # a key occurring ``need`` times fills its bucket (top bits) at least as much: a bucket
    # count is a necessary condition, exact counts are taken of the entries passing it only
    bucket = (keys >> np.uint64(64 - _BUCKET_BITS)).astype(np.int64)
    fill = np.bincount(bucket, minlength=1 << _BUCKET_BITS)
    cand = np.flatnonzero(fill[bucket] >= need)
    del bucket, fill
    sub_keys, sub_need = keys[cand], need[cand]
    parts = max(1, min(64, len(cand) // _HASH_BLOCK))
    bits = max(1, int(np.ceil(np.log2(parts))))
    top = (sub_keys >> np.uint64(64 - bits)).astype(np.uint8)
    for p in range(1 << bits):
        idx = np.flatnonzero(top == p)
        if len(idx) == 0:
            continue
        counts = pl.DataFrame({"k": sub_keys[idx]}).select(pl.len().over("k")).to_series()
        out[cand[idx]] = counts.to_numpy() >= sub_need[idx]
    return out


_BUCKET_BITS = 22
"""Buckets (by the top bits of a key) of ``_counts_at_least``'s first count: 4M int64 counts
(32 MiB). With ~15M keys (the 4-grams of 30k documents) a bucket holds ~3.5 on average, so a
bucket reaches 10 or more (the fewest occurrences a template needs) by chance rarely."""


_CHUNK_WORDS = 1 << 20
"""Words of the documents a chunked pass reads at once (``_doc_chunks``): its temporaries are a
few arrays of 8 MiB, reused from the allocator's heap rather than taken fresh from the system
(on the machine the scale benchmark runs on, fresh pages cost more than the arithmetic)."""


def _doc_chunks(offsets: np.ndarray, words: int) -> list[tuple[int, int]]:
    """Split the documents into runs of about ``words`` words: ``(first, end)`` document ranges.

    >>> _doc_chunks(np.array([0, 3, 6, 9, 12]), 6)
    [(0, 2), (2, 4)]
    """
    n_docs = len(offsets) - 1
    if n_docs <= 0:
        return []
    cuts = np.searchsorted(offsets, np.arange(0, int(offsets[-1]), max(words, 1)), side="left")
    cuts = unique_sorted(np.concatenate([[0], np.minimum(cuts, n_docs), [n_docs]]))
    return [(int(a), int(b)) for a, b in zip(cuts[:-1], cuts[1:], strict=True) if b > a]


_HOST_MIX = np.uint64(0x9E3779B97F4A7C15)
"""Odd multiplier that spreads a host code over 64 bits before it is xored into an n-gram hash
(2**64 / golden ratio, as splitmix64)."""


def _template_starts(
    ids: np.ndarray,
    offsets: np.ndarray,
    m: int,
    host_of_doc: np.ndarray,
    has_host: np.ndarray,
    config: PassageConfig,
) -> np.ndarray:
    """Find short n-grams that are templates of their host.

    Returns:
        ``(starts, templates)``: int64 global start positions, and a frame of ``h`` (uint64)
        and ``host`` (int64 code).
    """
    none = pl.DataFrame(schema={"h": pl.UInt64, "host": pl.Int64})
    if len(ids) < m or not has_host.any():
        return np.zeros(0, dtype=np.int64), none
    # a template of a host is in at least max(template_min_docs, template_host_share of the
    # host's documents) of them, so it occurs on that host at least as often. Two passes over
    # the documents, a chunk at a time (every temporary a chunk's size): the first counts the
    # occurrences of each (n-gram, host) bucket, the second keeps the n-grams whose bucket is
    # full enough, a small remainder for the exact count
    host_docs = np.bincount(host_of_doc[has_host], minlength=int(host_of_doc.max()) + 1)
    need = np.maximum(
        config.template_min_docs,
        np.ceil(config.template_host_share * host_docs - 1e-9).astype(np.int64),
    )
    shift = np.uint64(64 - _BUCKET_BITS)

    def chunk(d0: int, d1: int) -> tuple[np.ndarray, ...]:
        lo = int(offsets[d0])
        local = offsets[d0 : d1 + 1] - lo
        h, st = _ngram_hashes(ids[lo : int(offsets[d1])], local, m, narrow=True)
        doc = d0 + _doc_of(st, local)
        keep = has_host[doc]
        h, st, doc = h[keep], st[keep].astype(np.int64) + lo, doc[keep]
        host = host_of_doc[doc]
        with np.errstate(over="ignore"):
            keyed = h ^ (host.astype(np.uint64) * _HOST_MIX)
        return h, st, doc, host, keyed

    bounds = _doc_chunks(offsets, _CHUNK_WORDS)
    fill = np.zeros(1 << _BUCKET_BITS, dtype=np.int64)
    for d0, d1 in bounds:
        keyed = chunk(d0, d1)[4]
        fill += np.bincount((keyed >> shift).astype(np.int64), minlength=len(fill))
        release_pages(ids)  # words kept on disk: the chunk's pages go back
    kept: list[tuple[np.ndarray, ...]] = []
    for d0, d1 in bounds:
        parts = chunk(d0, d1)
        sel = fill[(parts[4] >> shift).astype(np.int64)] >= need[parts[3]]
        kept.append(tuple(x[sel] for x in parts))
        release_pages(ids)
    del fill
    h, st, doc, host, keyed = (np.concatenate([k[c] for k in kept]) for c in range(5))
    del kept
    n_occ = pl.DataFrame({"k": keyed}).select(pl.len().over("k")).to_series().to_numpy()
    sel = n_occ >= need[host]
    frame = pl.DataFrame({"h": h[sel], "g": st[sel], "doc": doc[sel], "host": host[sel]})
    del h, st, doc, host, keyed
    counts = frame.unique(subset=["doc", "h"]).group_by("h", "host").agg(n=pl.len())
    counts = counts.with_columns(host_docs=pl.Series(host_docs[counts["host"].to_numpy()]))
    bad = counts.filter(
        (pl.col("n") >= config.template_min_docs)
        & (pl.col("n") >= config.template_host_share * pl.col("host_docs"))
    ).select("h", "host").sort("host", "h")  # a group-by's order is its hash table's
    if bad.height == 0:
        return np.zeros(0, dtype=np.int64), none
    starts_bad = frame.join(bad, on=["h", "host"], how="semi")["g"].to_numpy().astype(np.int64)
    return starts_bad, bad.cast({"h": pl.UInt64, "host": pl.Int64})


def _known_template_starts(
    ids: np.ndarray,
    offsets: np.ndarray,
    m: int,
    hosts: Sequence[str | None],
    known: pl.DataFrame,
) -> np.ndarray:
    """Find the global start positions of short n-grams listed in ``known``.

    ``known`` has ``h`` (uint64) and ``host`` (str); a listed n-gram counts only on a
    document of its host.
    """
    if known.height == 0:
        return np.zeros(0, dtype=np.int64)
    hashes, starts = _ngram_hashes(ids, offsets, m)
    if len(hashes) == 0:
        return np.zeros(0, dtype=np.int64)
    doc = _doc_of(starts, offsets)
    keep = isin_hashes(hashes, known["h"].to_numpy().astype(np.uint64))
    frame = pl.DataFrame(
        {
            "h": hashes[keep],
            "g": starts[keep],
            "host": pl.Series([hosts[d] or "" for d in doc[keep].tolist()], dtype=pl.String),
        }
    )
    return frame.join(known, on=["h", "host"], how="semi")["g"].to_numpy().astype(np.int64)


@dataclass(slots=True)
class _Judged:
    """What ``_judge_ngrams`` finds among the rows of some n-grams (all rows of each).

    Attributes:
        grams: The rows that may still join a pair: ``h`` (uint64), ``g``, ``doc``,
            ``cluster``, ``rank`` (int64): in more than one document and cluster, not
            furniture nor common.
        too_many: ``h``, ``g`` of the n-grams in more than ``max_docs`` documents.
        furniture_h: ``h``, ``by_count`` (bool): n-grams judged furniture of a host.
        common_h: ``h`` of the n-grams judged common (in too many clusters or documents).
        n_common: Distinct common n-grams.
        bad_starts: int64 start words of the rows of furniture and common n-grams.
    """

    grams: pl.DataFrame
    too_many: pl.DataFrame
    furniture_h: pl.DataFrame
    common_h: pl.DataFrame
    n_common: int
    bad_starts: np.ndarray


def _judge_ngrams(
    grams: pl.DataFrame,
    clusters: np.ndarray,
    rank: np.ndarray,
    host_of_doc: np.ndarray,
    has_host: np.ndarray,
    config: PassageConfig,
    judged_h: pl.Series | None,
) -> _Judged:
    """Judge n-grams furniture or boilerplate on every row holding them (``find_shared_passages``).

    Args:
        grams: Every row of some n-grams (all of an n-gram's rows, or none), in the order of
            their start words: ``h`` (uint64), ``g`` (int64 start word), ``doc`` (int64 row).
        clusters: int64 cluster of each document.
        rank: int64 rank of each document (lowest first).
        host_of_doc: int64 host code of each document.
        has_host: bool, each document has a host.
        config: The furniture rules.
        judged_h: The n-grams judged here (``find_shared_passages``'s ``judge``); None: all.

    Returns:
        A ``_Judged``.
    """
    grams = grams.unique(subset=["doc", "h"], keep="first")
    grams = grams.with_columns(n_docs=pl.len().over("h")).filter(pl.col("n_docs") > 1)
    too_many = grams.filter(pl.col("n_docs") > config.max_docs).select("h", "g")
    if judged_h is not None:
        too_many = too_many.filter(pl.col("h").is_in(judged_h.implode()))
    grams = grams.filter(pl.col("n_docs") <= config.max_docs)
    d = grams["doc"].to_numpy()
    grams = grams.with_columns(
        cluster=pl.Series(clusters[d]),
        rank=pl.Series(rank[d]),
        host=pl.Series(host_of_doc[d]),
        has_host=pl.Series(has_host[d]),
    )
    grams = grams.with_columns(n_clusters=pl.col("cluster").n_unique().over("h")).filter(
        pl.col("n_clusters") > 1
    )
    is_common = pl.col("n_clusters") > config.furniture_max_clusters
    if judged_h is not None:
        is_common = is_common & pl.col("h").is_in(judged_h.implode())
    n_common = grams.filter(is_common)["h"].n_unique() + too_many["h"].n_unique()
    # a document without a host is a host of its own here
    host_key = pl.when(pl.col("has_host")).then(pl.col("host")).otherwise(-1 - pl.col("doc"))
    grams = grams.with_columns(n_hosts=host_key.n_unique().over("h"))
    host_counts = (
        grams.filter(pl.col("has_host") & ~is_common)
        .group_by("h", "host")
        .agg(n_host=pl.col("cluster").n_unique(), n_hosts=pl.col("n_hosts").first())
        .with_columns(by_count=pl.col("n_host") >= config.furniture_host_clusters)
        .filter(
            (pl.col("n_host") >= config.furniture_host_clusters)
            | (
                (pl.col("n_host") >= config.furniture_own_host_clusters)
                & (pl.col("n_hosts") == 1)
                & (config.furniture_own_host_clusters > 0)
            )
        )
    )
    furniture_h = host_counts.group_by("h").agg(by_count=pl.col("by_count").any())
    if judged_h is not None:
        furniture_h = furniture_h.filter(pl.col("h").is_in(judged_h.implode()))
    grams = grams.with_columns(is_bad=is_common | pl.col("h").is_in(furniture_h["h"].implode()))
    # every word covered by a furniture or common n-gram is furniture: n-grams overlapping it
    # are dropped too, so a furniture line cannot leak through n-grams that straddle its edge
    common_h = pl.concat(
        [grams.filter(is_common).select("h"), too_many.select("h")]
    ).unique()
    return _Judged(
        grams=grams.filter(~pl.col("is_bad")).select("h", "g", "doc", "cluster", "rank"),
        too_many=too_many,
        furniture_h=furniture_h,
        common_h=common_h,
        n_common=n_common,
        bad_starts=grams.filter(pl.col("is_bad"))["g"].to_numpy().astype(np.int64),
    )


@runtime_checkable
class NgramParts(Protocol):
    """Passage n-grams held outside memory, read one hash range at a time.

    ``parts()`` yields ``(hashes, starts)`` for each range: uint64 hashes whose top
    ``part_bits`` bits name the range, and int64 global start words (into the concatenated
    words), in ascending start order; every row of an n-gram is in one range
    (``affidavit.tasks.lineage_batches.SpilledNgrams``).
    """

    part_bits: int

    def parts(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Yield each hash range's rows."""
        ...


def _judge_block(
    hashes: np.ndarray,
    starts: np.ndarray,
    offsets: np.ndarray,
    config: PassageConfig,
    clusters: np.ndarray,
    rank: np.ndarray,
    host_of_doc: np.ndarray,
    has_host: np.ndarray,
    *,
    settled: np.ndarray,
    known_unsettled: np.ndarray | None,
    judge: np.ndarray | None,
    skip: np.ndarray | None,
    part_bits: int,
) -> tuple[list[_Judged], np.ndarray, int]:
    """Judge the n-grams of one block holding every row of each (``find_shared_passages``).

    Args:
        hashes: uint64, the block's n-gram hashes (all share their top ``part_bits`` bits).
        starts: Their global start words (int32 or int64), same shape.
        offsets: int64 word offsets of the documents.
        config: The furniture rules (``_judge_ngrams``).
        clusters: As ``_judge_ngrams``.
        rank: As ``_judge_ngrams``.
        host_of_doc: As ``_judge_ngrams``.
        has_host: As ``_judge_ngrams``.
        settled: uint64, ``find_shared_passages``'s ``known_bad`` (empty for none).
        known_unsettled: As ``find_shared_passages``.
        judge: As ``find_shared_passages``.
        skip: As ``find_shared_passages``.
        part_bits: Top bits the block's hashes share (0: a block of every n-gram).

    Returns:
        ``(judged, known_starts, n_kept)``: the ``_Judged`` of each hash range of the block,
        int64 starts of the rows of n-grams known to be furniture, and the rows kept after
        sampling and ``skip``.
    """
    if config.sample_mod > 1:
        keep = hashes % np.uint64(config.sample_mod) == 0
        hashes, starts = hashes[keep], starts[keep]
    if skip is not None and skip.any():
        keep = ~skip[_doc_of(starts, offsets)]
        hashes, starts = hashes[keep], starts[keep]
    n_kept = len(hashes)
    if n_kept == 0:
        return [], np.zeros(0, np.int64), 0
    judged_h = None
    if judge is not None:
        doc_all = _doc_of(starts, offsets)
        judged_now = unique_sorted(hashes[judge[doc_all]])
        # ``np.setdiff1d(judged_now, settled)`` (sorted, distinct), by hashing, not sorting
        judged_h = pl.Series("h", judged_now[~isin_hashes(judged_now, settled)],
                             dtype=pl.UInt64)
    # n-grams known to be furniture, and not judged again here, cover their words wherever
    # they stand (before any count)
    known = settled
    if known_unsettled is not None and len(known_unsettled):
        undone = known_unsettled.astype(np.uint64)
        if judged_h is not None:
            undone = unique_sorted(undone)
            undone = undone[~isin_hashes(undone, judged_h.to_numpy())]
        known = np.concatenate([known, undone])
    known_starts = (
        starts[isin_hashes(hashes, known)].astype(np.int64) if len(known) else np.zeros(0, np.int64)
    )
    if judged_h is not None:
        # only the judged n-grams can join a pair with a judged document
        keep = isin_hashes(hashes, judged_h.to_numpy())
        hashes, starts = hashes[keep], starts[keep]
    # an n-gram found once in the whole set is shared by no pair: drop it before any frame is
    # built (most n-grams of running text; same result, a fraction of the memory)
    repeated = repeated_mask(hashes)
    hashes, starts = hashes[repeated], starts[repeated]
    del repeated
    # each n-gram is judged on the rows holding it alone: one hash range at a time (by the
    # top bits below the block's own), so the frames and hash tables of the judgement are a
    # range's size, and only the rows that can still join a pair are kept
    parts = max(1, min(64, len(hashes) // _HASH_BLOCK))
    bits = max(1, int(np.ceil(np.log2(parts))))
    keys = (hashes >> np.uint64(64 - part_bits - bits)) & np.uint64((1 << bits) - 1)
    rows, bounds = _partition_rows(keys.astype(np.uint8), 1 << bits)
    del keys
    judged: list[_Judged] = []
    for p in range(1 << bits):
        idx = rows[bounds[p] : bounds[p + 1]]
        if len(idx) == 0:
            continue
        st = starts[idx].astype(np.int64)
        judged.append(
            _judge_ngrams(
                pl.DataFrame({"h": hashes[idx], "g": st, "doc": _doc_of(st, offsets)}),
                clusters, rank, host_of_doc, has_host, config, judged_h,
            )
        )
    return judged, known_starts, n_kept


def find_shared_passages(
    words_per_doc: Sequence[list[str]] | WordArrays,
    hosts: Sequence[str | None],
    *,
    config: PassageConfig = PassageConfig(),
    clusters: np.ndarray | None = None,
    rank: np.ndarray | None = None,
    line_lengths: Sequence[Sequence[int]] | Ragged | None = None,
    new_mask: np.ndarray | None = None,
    min_chars: int = 0,
    sentence_lengths: Sequence[Sequence[int]] | Ragged | None = None,
    quoted_ranges: Sequence[Sequence[tuple[int, int]]] | Ragged | None = None,
    min_sentence_words: int = 1,
    known_bad: np.ndarray | None = None,
    known_unsettled: np.ndarray | None = None,
    known_templates: pl.DataFrame | None = None,
    judge: np.ndarray | None = None,
    skip: np.ndarray | None = None,
    ngrams: tuple[np.ndarray, np.ndarray] | list[np.ndarray] | NgramParts | None = None,
    join: NgramJoinFn | None = None,
) -> PassageResult:
    """Find pairs of documents that share a passage of running text, ignoring page furniture.

    Only pairs in different clusters are joined; within a cluster one representative per
    n-gram (the member of lowest ``rank``, i.e. the earliest) stands for all, which bounds the
    join by the number of clusters sharing an n-gram rather than documents.

    Args:
        words_per_doc: Normalised words of each document (``affidavit.tasks.shingles.split_words``),
            or their ``WordArrays`` (word hashes stand for the words). A shared run's
            characters and figures are measured on the later document of its pair (``j``;
            the run's words are the same on both sides), so the lengths and digit flags of a
            document that can only be the earlier member (a stored document in an incremental
            run, with ``new_mask``) are never read and may be left at zero.
        hosts: Host of each document (``None`` for unknown: no host-level furniture rule).
        config: N-gram size and furniture rules.
        clusters: int64, shape ``(n_docs,)``: cluster of each document (default: its own).
        rank: int64, shape ``(n_docs,)``: preference for cluster representatives, lowest
            first (default: row order).
        line_lengths: Words in each line of each document (summing to its word count); when
            given, n-grams never cross a line break, so a short furniture line ("Filed under:
            Business") cannot glue itself to the running text around it.
        new_mask: bool, shape ``(n_docs,)``; when given only pairs touching a new document are
            returned (furniture is still judged over all documents).
        min_chars: Drop pairs whose longest shared passage is shorter than this.
        sentence_lengths: Words in each sentence of each document (summing to its word
            count); when given, ``full_sentence`` tells whether some shared run holds a
            whole sentence of each of the two documents (else it is false throughout).
        min_sentence_words: A sentence shorter than this many words does not count for
            ``full_sentence``.
        quoted_ranges: Word ranges ``[start, end)`` of each document that stand inside
            double quotation marks; when given, ``quoted_chars`` is the longest shared run
            that one document sets in quotation marks and the other does not, and that holds a
            figure (else 0).
        known_bad: uint64 passage n-gram hashes already judged furniture or boilerplate
            for good (``PassageResult.bad_ngrams`` of kind ``common`` or ``host`` of earlier
            calls: their counts only grow): ignored wherever they stand, never judged again.
        known_unsettled: uint64 hashes judged furniture earlier by a rule more documents can
            undo (kind ``own_host``): ignored unless judged again here (``judge``).
        known_templates: Short template n-grams already judged (``PassageResult.templates``
            with host names); when given, templates are taken from it and not judged again.
        judge: bool, shape ``(n_docs,)``: the documents whose n-grams are judged here (every
            document holding one of them must be among ``words_per_doc``); the other n-grams
            are furniture only when ``known_bad`` or ``known_unsettled`` says so. Default:
            judge every n-gram.
        skip: bool, shape ``(n_docs,)``: documents left out of the join (their n-grams are
            not read); default none.
        ngrams: The passage n-grams already hashed (``ngram_hashes_by_doc``): uint64 hashes
            and int64 global start positions (into the concatenated words); default: hashed
            here. A list is emptied, so that the arrays are let go once filtered. An
            ``NgramParts`` is read one hash range at a time (the same result).
        join: Where the self-join of the kept n-grams runs: a function like
            ``join_shared_ngrams`` (the default, in process), e.g. one that partitions the
            n-grams by hash over a cluster (``affidavit.tasks.lineage_scale``).

    Returns:
        A ``PassageResult``.

    Raises:
        ValueError: When ``hosts`` and ``words_per_doc`` differ in length.
    """
    n_docs = (
        len(words_per_doc.offsets) - 1
        if isinstance(words_per_doc, WordArrays)
        else len(words_per_doc)
    )
    if len(hosts) != n_docs:
        raise ValueError("hosts must have one entry per document")
    if clusters is None:
        clusters = np.arange(n_docs, dtype=np.int64)
    if rank is None:
        rank = np.arange(n_docs, dtype=np.int64)
    words = words_per_doc if isinstance(words_per_doc, WordArrays) else word_arrays(words_per_doc)
    ids, offsets = words.hashes, words.offsets
    lengths = words.lengths  # int32; summed into int64 (``cum``)
    n = config.ngram_words
    seg_offsets = offsets
    if line_lengths is not None:
        flat_lines = _flat_counts(line_lengths)
        seg_offsets = np.concatenate([[0], np.cumsum(flat_lines)]).astype(np.int64)
        if seg_offsets[-1] != offsets[-1]:
            raise ValueError("line_lengths must sum to each document's word count")
        seg_offsets = unique_sorted(seg_offsets)
    if isinstance(ngrams, NgramParts):
        blocks: Iterable[tuple[np.ndarray, np.ndarray]] = ngrams.parts()
        part_bits = ngrams.part_bits
    else:
        if ngrams is not None:
            hashes, starts = ngrams
            if isinstance(ngrams, list):  # the caller's arrays go once filtered here
                ngrams.clear()
        else:
            hashes, starts = _ngram_hashes(ids, seg_offsets, n, narrow=True)
        blocks, part_bits = [(hashes, starts)], 0
        del hashes, starts
    settled = np.zeros(0, np.uint64) if known_bad is None else known_bad.astype(np.uint64)
    host_frame = pl.DataFrame({"host": pl.Series(list(hosts), dtype=pl.String)})
    host_of_doc = (
        host_frame.select(pl.col("host").fill_null("").rank("dense")).to_series().to_numpy()
    )
    has_host = host_frame.select(pl.col("host").fill_null("") != "").to_series().to_numpy()
    judged: list[_Judged] = []
    known_parts: list[np.ndarray] = []
    n_kept = 0
    # with n-grams read a hash range at a time, each range's kept rows wait on disk for the
    # words every range judged furniture (``bad_words`` below), so that only the rows left
    # after that are held at once
    kept_dir = (
        tempfile.TemporaryDirectory(prefix="affidavit-passages-") if part_bits else None
    )
    kept_files: list[Path] = []
    for hashes, starts in blocks:
        # each block holds every row of its n-grams (a hash range, or all of them)
        got, known_at, kept = _judge_block(
            hashes, starts, offsets, config, clusters, rank, host_of_doc, has_host,
            settled=settled, known_unsettled=known_unsettled, judge=judge, skip=skip,
            part_bits=part_bits,
        )
        del hashes, starts
        if kept_dir is not None and got:
            path = Path(kept_dir.name) / f"kept-{len(kept_files):04d}.arrow"
            pl.concat([x.grams for x in got]).write_ipc(path, compression="uncompressed")
            kept_files.append(path)
            for x in got:
                x.grams = x.grams.clear()
        judged.extend(got)
        known_parts.append(known_at)
        n_kept += kept
    if n_kept == 0:
        return PassageResult(_EMPTY_PAIRS.clone(), 0, 0)
    known_starts = np.concatenate(known_parts) if known_parts else np.zeros(0, np.int64)
    del known_parts
    if not judged:  # no n-gram found twice
        none = pl.DataFrame(schema={"h": pl.UInt64, "g": pl.Int64, "doc": pl.Int64})
        judged.append(_judge_ngrams(none, clusters, rank, host_of_doc, has_host, config, None))
    grams = pl.concat([x.grams for x in judged])
    too_many = pl.concat([x.too_many for x in judged])
    furniture_h = pl.concat([x.furniture_h for x in judged])
    common_h = pl.concat([x.common_h for x in judged])
    n_common = sum(x.n_common for x in judged)
    n_furniture = furniture_h.height
    bad_ngrams = pl.concat(
        [
            common_h.select(pl.col("h").cast(pl.UInt64), kind=pl.lit("common")),
            furniture_h.join(common_h, on="h", how="anti").select(
                pl.col("h").cast(pl.UInt64),
                kind=pl.when(pl.col("by_count")).then(pl.lit("host")).otherwise(pl.lit("own_host")),
            ),
        ]
    ).sort("h")
    bad_starts = np.concatenate(
        [*(x.bad_starts for x in judged), too_many["g"].to_numpy(), known_starts]
    ).astype(np.int64)
    del judged
    total_words = len(ids)
    # the words covered by a furniture or common n-gram (or a template, below)
    cover_lo = [bad_starts]
    cover_hi = [np.minimum(bad_starts + n, total_words)]
    m = config.template_words
    templates = pl.DataFrame(schema={"h": pl.UInt64, "host": pl.String})
    if m > 0:
        if known_templates is not None:
            t_starts = _known_template_starts(ids, offsets, m, hosts, known_templates)
        else:
            t_starts, t_bad = _template_starts(ids, offsets, m, host_of_doc, has_host, config)
            if t_bad.height:
                # host codes back to names (a code is the dense rank of the host name)
                names = np.empty(int(host_of_doc.max()) + 1, dtype=object)
                names[host_of_doc] = [h or "" for h in hosts]
                templates = pl.DataFrame(
                    {
                        "h": t_bad["h"],
                        "host": pl.Series(names[t_bad["host"].to_numpy()].tolist(),
                                          dtype=pl.String),
                    }
                )
        cover_lo.append(t_starts)
        cover_hi.append(np.minimum(t_starts + m, total_words))
    bad_words = _Marked.from_ranges(np.concatenate(cover_lo), np.concatenate(cover_hi))
    del cover_lo, cover_hi

    def joinable(grams: pl.DataFrame) -> pl.DataFrame:
        # the rows of some n-grams (all rows of each) that can join a pair: clear of
        # furniture words, one per (n-gram, cluster), in two clusters or more
        g_arr = grams["g"].to_numpy()
        clean = bad_words.count(g_arr, np.minimum(g_arr + n, total_words)) == 0
        grams = grams.filter(pl.Series(clean))
        if config.one_per_cluster:
            # one representative per (n-gram, cluster): the earliest member holding it
            grams = grams.sort("h", "cluster", "rank").unique(
                subset=["h", "cluster"], keep="first"
            )
        grams = grams.select("h", "g", "doc", "cluster")
        if new_mask is not None:
            grams = grams.with_columns(is_new=pl.Series(new_mask[grams["doc"].to_numpy()]))
        return grams.with_columns(n=pl.len().over("h")).filter(pl.col("n") > 1).drop("n")

    grams = joinable(grams)
    if kept_files:
        grams = pl.concat([grams, *(joinable(pl.read_ipc(p))
                                    for p in kept_files)])
    if kept_dir is not None:
        kept_dir.cleanup()
    if grams.height == 0:
        return PassageResult(_EMPTY_PAIRS.clone(), n_furniture, n_common, bad_ngrams, templates)
    # an echoed run (``_echoed``) counts as shared text of the pair (``n_runs``) but is no
    # passage one text quotes from the other
    quoted_word = None
    if quoted_ranges is not None:
        if isinstance(quoted_ranges, Ragged):
            q_doc = quoted_ranges.doc_of_values()
            qv = quoted_ranges.values.astype(np.int64).reshape(-1, 2)
            q_lo, q_hi = offsets[q_doc] + qv[:, 0], offsets[q_doc] + qv[:, 1]
        else:
            flat_q = [
                (offsets[d] + a, offsets[d] + b)
                for d, ranges in enumerate(quoted_ranges)
                for a, b in ranges
            ]
            q_lo = np.array([x for x, _ in flat_q], dtype=np.int64)
            q_hi = np.array([y for _, y in flat_q], dtype=np.int64)
        quoted_word = _Marked.from_ranges(q_lo, q_hi)
    bounds = None
    if sentence_lengths is not None:
        flat_sent = _flat_counts(sentence_lengths)
        bounds = unique_sorted(np.concatenate([[0], np.cumsum(flat_sent), offsets]))
        if bounds[-1] != offsets[-1]:
            raise ValueError("sentence_lengths must sum to each document's word count")

    def pairs_of(runs: pl.DataFrame) -> pl.DataFrame:
        # the pairs of some runs (every run of each pair they hold): bridged, echoes told,
        # measured and summed per pair
        if runs.height == 0:
            return _EMPTY_PAIRS.clone()
        if config.bridge_ignored:
            runs = _bridge_runs(runs, ids, offsets, n)
        echo = (
            _echoed(runs, ids, offsets, n, config, quoted_word)
            if config.echo_words > 0
            else np.zeros(runs.height, dtype=bool)
        )
        # a run of consecutive n-grams from `start` to `end` covers words start .. end + n - 1
        start = runs["start"].to_numpy()
        stop = np.minimum(runs["end"].to_numpy() + n, len(lengths))
        # characters and figures are measured on the later document (j): the run's words are the
        # same on both sides, and j is the new document of a pair in an incremental run
        run_diag = runs["diag"].to_numpy()
        chars = _range_sums(lengths, start + run_diag, stop + run_diag) + (stop - start - 1)
        full = np.zeros(len(start), dtype=bool)
        if bounds is not None:
            diag = runs["diag"].to_numpy()

            sent_len = np.diff(bounds)
            last = len(bounds) - 1

            def holds_sentence(a: np.ndarray, b: np.ndarray) -> np.ndarray:
                # one of the first sentences starting at or after word a, of at least
                # min_sentence_words words, ends at or before word b (a run holding more such
                # sentences than are looked at is long enough to need none)
                k = np.searchsorted(bounds, a, side="left")
                out = np.zeros(len(a), dtype=bool)
                for t in range(_SENTENCES_LOOKED_AT):
                    kk = np.minimum(k + t, last)
                    k1 = np.minimum(kk + 1, last)
                    inside = (kk + 1 <= last) & (bounds[k1] <= b)
                    out |= inside & (sent_len[np.minimum(kk, last - 1)] >= min_sentence_words)
                return out

            full = holds_sentence(start, stop) | holds_sentence(start + diag, stop + diag)
        quoted_run = np.zeros(len(start), dtype=bool)
        if quoted_word is not None:
            diag = runs["diag"].to_numpy()
            span = np.maximum(stop - start, 1)
            share_i = quoted_word.count(start, stop) / span
            share_j = quoted_word.count(start + diag, stop + diag) / span
            # set in quotation marks by one document and stated by the other
            quoted_run = (share_i >= _QUOTED_SHARE) != (share_j >= _QUOTED_SHARE)
            # ... and distinctive: it holds a figure (a word with a digit), which ties it to one
            # report rather than to an official's stock wording that many stories quote
            quoted_run &= _range_sums(words.has_digit, start + run_diag, stop + run_diag) > 0
        doc_i = runs["i"].to_numpy().astype(np.int64)
        doc_j = runs["j"].to_numpy().astype(np.int64)
        diag_all = runs["diag"].to_numpy()
        runs = runs.with_columns(
            i_lo=pl.Series(start - offsets[doc_i], dtype=pl.Int64),
            i_hi=pl.Series(stop - offsets[doc_i], dtype=pl.Int64),
            j_lo=pl.Series(start + diag_all - offsets[doc_j], dtype=pl.Int64),
            j_hi=pl.Series(stop + diag_all - offsets[doc_j], dtype=pl.Int64),
            chars=pl.Series(chars, dtype=pl.Int64),
            full=pl.Series(full, dtype=pl.Boolean),
            quoted=pl.Series(quoted_run, dtype=pl.Boolean),
            verbatim=pl.Series(~echo, dtype=pl.Boolean),
        )
        vb = pl.col("verbatim")
        pairs = (
            runs.group_by("i", "j")
            .agg(
                passage_chars=pl.col("chars").filter(vb).max().fill_null(0),
                n_shared=pl.col("n").sum(),
                n_runs=pl.len(),
                total_chars=pl.col("chars").sum(),
                full_sentence=(pl.col("full") & vb).any(),
                quoted_chars=pl.when(pl.col("quoted") & vb).then(pl.col("chars"))
                .otherwise(0).max(),
                i_lo=pl.col("i_lo").filter(vb).min(),
                i_hi=pl.col("i_hi").filter(vb).max(),
                j_lo=pl.col("j_lo").filter(vb).min(),
                j_hi=pl.col("j_hi").filter(vb).max(),
            )
            .with_columns(
                pl.col("n_shared").cast(pl.Int64),
                pl.col("n_runs").cast(pl.Int64),
                pl.col("total_chars").cast(pl.Int64),
                pl.col("i").cast(pl.Int64),
                pl.col("j").cast(pl.Int64),
                pl.col("quoted_chars").cast(pl.Int64),
            )
            .filter(pl.col("passage_chars") >= min_chars)
        )
        return pairs.select(_EMPTY_PAIRS.columns)

    # the pairs of a range of first documents at a time (``_shared_runs``): the runs of
    # every pair at once were the largest frames of a large build
    pairs = (
        _shared_runs(grams, pairs_of) if join is None else pairs_of(_runs_of(join(grams)))
    )
    del grams
    return PassageResult(
        pairs.sort("i", "j"), n_furniture, n_common, bad_ngrams, templates
    )
