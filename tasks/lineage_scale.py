"""Lineage work cut into independent pieces, for running on a cluster.

LSH bands are joined in groups of bands (each band is independent; a group is one task, so a
small addition does not pay one task per band). Candidate verification is cut into batches of
pairs: each batch carries the words of only the
documents its pairs name, and its shingle overlaps are counted where it runs
(``affidavit.tasks.lineage.pair_overlaps``). The passage join is cut into partitions of the
n-gram hash space: rows of different hashes never meet in the self-join
(``affidavit.tasks.passages.join_shared_ngrams``), so the union of the partitions' joins is
the join. Pure functions first, thin Prefect ``@task`` wrappers after; the Dask runner that
submits them is ``affidavit.flows.lineage_dask``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from affidavit.schemas.signatures import MinHashConfig
from affidavit.tasks.lineage import _local_band_join, pair_overlaps
from affidavit.tasks.minhash import WordArrays
from affidavit.tasks.passages import join_shared_ngrams

__all__ = [
    "PairBatch",
    "band_group_join_task",
    "cut_pair_batches",
    "join_partition_task",
    "pair_overlaps_task",
    "partition_grams",
]


@dataclass(frozen=True, slots=True)
class PairBatch:
    """One batch of candidate pairs with the material of the documents it names.

    Attributes:
        sel: int64 ``(start, stop)`` of the batch in the caller's pair arrays.
        words: The words of the batch's documents (``rows`` order).
        texts: Their texts, for the ``sha1`` shingle scheme (else None).
        a: int64, shape ``(n_pairs,)``: each pair's first member, as a row of ``words``.
        b: int64, shape ``(n_pairs,)``: its second member.
    """

    sel: tuple[int, int]
    words: WordArrays
    texts: list[str] | None
    a: np.ndarray
    b: np.ndarray


def cut_pair_batches(
    words: WordArrays,
    texts: Sequence[str] | pl.Series | None,
    i: np.ndarray,
    j: np.ndarray,
    *,
    n_batches: int,
) -> list[PairBatch]:
    """Cut row pairs into ``n_batches`` consecutive batches, each with its documents' words.

    Args:
        words: The words of every document the pairs index.
        texts: Their texts, or None when the shingle scheme does not read them.
        i: int64 row of each pair's first member.
        j: int64 row of each pair's second member.
        n_batches: Batches wanted (fewer when there are fewer pairs).

    Returns:
        The batches, in pair order; none for no pairs.

    Raises:
        ValueError: When ``n_batches`` < 1 or ``i`` and ``j`` differ in length.

    >>> w = WordArrays(np.arange(6, dtype=np.uint64), np.ones(6, np.int32),
    ...                np.zeros(6, bool), np.array([0, 2, 4, 6]))
    >>> bs = cut_pair_batches(w, None, np.array([0, 1]), np.array([2, 2]), n_batches=2)
    >>> [(b.sel, b.a.tolist(), b.b.tolist(), b.words.offsets.tolist()) for b in bs]
    [((0, 1), [0], [1], [0, 2, 4]), ((1, 2), [0], [1], [0, 2, 4])]
    """
    if n_batches < 1:
        raise ValueError("n_batches must be >= 1")
    if len(i) != len(j):
        raise ValueError("i and j must have one entry per pair")
    n = len(i)
    if n == 0:
        return []
    size = -(-n // min(n_batches, n))
    out = []
    for start in range(0, n, size):
        stop = min(start + size, n)
        rows, inverse = np.unique(np.concatenate([i[start:stop], j[start:stop]]),
                                  return_inverse=True)
        m = stop - start
        sub_texts = None
        if texts is not None:
            seq = texts if isinstance(texts, pl.Series) else pl.Series(list(texts))
            sub_texts = seq.gather(rows).to_list()
        out.append(PairBatch((start, stop), words.take(rows), sub_texts,
                             inverse[:m].astype(np.int64), inverse[m:].astype(np.int64)))
    return out


def partition_grams(grams: pl.DataFrame, n_parts: int) -> list[pl.DataFrame]:
    """Split kept n-gram rows by hash into ``n_parts`` partitions (empty ones left out).

    Args:
        grams: Rows as ``affidavit.tasks.passages.join_shared_ngrams`` takes them (``h``
            uint64 among them).
        n_parts: Partitions wanted.

    Returns:
        The partitions; every row of one hash lies in one partition.

    Raises:
        ValueError: When ``n_parts`` < 1.

    >>> g = pl.DataFrame({"h": [1, 2, 3, 1]}, schema={"h": pl.UInt64})
    >>> [p["h"].to_list() for p in partition_grams(g, 2)]
    [[2], [1, 3, 1]]
    """
    if n_parts < 1:
        raise ValueError("n_parts must be >= 1")
    if n_parts == 1 or grams.height == 0:
        return [grams] if grams.height else []
    part = (grams["h"].cast(pl.UInt64) % n_parts).to_numpy()
    return [p for k in range(n_parts) if (p := grams.filter(pl.Series(part == k))).height]


# ----------------------------------------------------------------------------- Prefect wrappers
from prefect import task  # noqa: E402  (thin wrappers after the pure functions)
from prefect.cache_policies import NO_CACHE  # noqa: E402


@task(name="lineage-band-group-join", retries=1, cache_policy=NO_CACHE)
def band_group_join_task(
    keys: np.ndarray, new_mask: np.ndarray | None, empty_mask: np.ndarray | None, max_bucket: int
) -> tuple[np.ndarray, np.ndarray, int]:
    """Join a group of LSH bands: ``keys`` uint64 ``(bands_in_group, n_docs)``; their union."""
    return _local_band_join(keys, new_mask, empty_mask, max_bucket)


@task(name="lineage-verify-pairs", retries=1, cache_policy=NO_CACHE)
def pair_overlaps_task(
    batch: PairBatch, config: MinHashConfig
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Count one batch's shingle overlaps (``affidavit.tasks.lineage.pair_overlaps``)."""
    return pair_overlaps(batch.words, batch.texts, batch.a, batch.b, config)


@task(name="lineage-passage-join", retries=1, cache_policy=NO_CACHE)
def join_partition_task(grams: pl.DataFrame) -> pl.DataFrame:
    """Join one hash partition of the passage n-grams (``passages.join_shared_ngrams``)."""
    return join_shared_ngrams(grams)
