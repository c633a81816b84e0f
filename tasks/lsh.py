"""Locality-sensitive hashing of MinHash signatures: band parameters and candidate pairs.

A signature of ``num_perm`` values is cut into ``bands`` bands of ``rows`` values; two documents
are a candidate pair when all rows of at least one band are equal. The bands are joined in
Polars (a self-join per band on the band key), never by comparing all pairs. On the same
signatures the candidates equal those of ``datasketch.MinHashLSH`` with the same ``(b, r)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import polars as pl
from scipy.integrate import quad

from affidavit.tasks.minhash import unique_sorted

__all__ = [
    "band_keys",
    "join_band",
    "candidate_index_pairs",
    "find_candidates",
    "optimal_bands",
]

DEFAULT_MAX_BUCKET = 500
"""Largest band bucket joined pair by pair; a larger bucket (hundreds of copies of one text)
is linked as a star to its first member, so ten thousand copies give 10^4 candidates, not 5*10^7.
The star keeps every member in one connected lineage, which is all the origins need."""


_MAX_JOIN_ROWS = 8_000_000
"""Rows (documents × bands) joined at once; more bands are joined in groups (memory bound)."""


def _false_positive_probability(threshold: float, b: int, r: int) -> float:
    """Area under the S-curve ``1 - (1 - s**r)**b`` for s in [0, threshold]."""
    return quad(lambda s: 1 - (1 - s ** float(r)) ** float(b), 0.0, threshold)[0]


def _false_negative_probability(threshold: float, b: int, r: int) -> float:
    """Area above the S-curve for s in [threshold, 1]."""
    return quad(lambda s: 1 - (1 - (1 - s ** float(r)) ** float(b)), threshold, 1.0)[0]


@lru_cache(maxsize=64)
def optimal_bands(
    threshold: float, num_perm: int, *, fp_weight: float = 0.5, fn_weight: float = 0.5
) -> tuple[int, int]:
    """Choose LSH ``(bands, rows)`` minimising the weighted false-positive and false-negative areas.

    The same search as ``datasketch.lsh._optimal_param`` (Leskovec, Rajaraman and Ullman,
    *Mining of Massive Datasets*, ch. 3): every ``b`` in 1..num_perm and ``r`` in
    1..num_perm // b, scored by ``fp_weight * FP(b, r) + fn_weight * FN(b, r)``.

    Args:
        threshold: Wanted Jaccard threshold, in (0, 1).
        num_perm: Signature length.
        fp_weight: Weight of the false-positive area.
        fn_weight: Weight of the false-negative area.

    Returns:
        ``(bands, rows)`` with ``bands * rows <= num_perm``.

    Raises:
        ValueError: When the threshold is outside (0, 1), num_perm < 1, or the weights do not
            sum to 1.

    >>> optimal_bands(0.5, 128)
    (25, 5)
    """
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"threshold must be in (0, 1), got {threshold}")
    if num_perm < 1:
        raise ValueError(f"num_perm must be >= 1, got {num_perm}")
    if abs(fp_weight + fn_weight - 1.0) > 1e-9:
        raise ValueError("fp_weight and fn_weight must sum to 1")
    min_error = float("inf")
    opt = (0, 0)
    for b in range(1, num_perm + 1):
        for r in range(1, num_perm // b + 1):
            fp = _false_positive_probability(threshold, b, r)
            fn = _false_negative_probability(threshold, b, r)
            error = fp * fp_weight + fn * fn_weight
            if error < min_error:
                min_error = error
                opt = (b, r)
    return opt


def band_keys(signatures: np.ndarray, *, bands: int, rows: int) -> np.ndarray:
    """Hash each band of each signature to a 64-bit key.

    The key is a fixed polynomial mix of the band's rows followed by the MurmurHash3 64-bit
    finalizer; two equal bands always get equal keys, and unequal bands collide with
    probability about 2**-64 (a collision only adds a candidate, which verification drops).
    Keys are stable across processes and library versions (plain numpy arithmetic).

    Args:
        signatures: uint32, shape ``(n_docs, num_perm)``.
        bands: Number of bands.
        rows: Rows per band; ``bands * rows <= num_perm``.

    Returns:
        uint64, shape ``(bands, n_docs)``.

    Raises:
        ValueError: When ``bands * rows`` exceeds the signature length.
    """
    n, num_perm = signatures.shape
    if bands < 1 or rows < 1 or bands * rows > num_perm:
        raise ValueError(f"bands*rows must be in 1..{num_perm}, got {bands}x{rows}")
    keys = np.empty((bands, n), dtype=np.uint64)
    mult = np.uint64(0x9E3779B97F4A7C15)
    # a block of documents at a time, their signature rows transposed: every band reads
    # contiguous rows, and the temporaries stay a block's size
    for a in range(0, n, _KEY_BLOCK):
        sig = np.ascontiguousarray(signatures[a : a + _KEY_BLOCK, : bands * rows].T).astype(
            np.uint64
        )
        m = sig.shape[1]
        with np.errstate(over="ignore"):
            for i in range(bands):
                h = np.full(m, np.uint64(i + 1) * np.uint64(0xD6E8FEB86659FD93), dtype=np.uint64)
                for j in range(rows):
                    h ^= sig[i * rows + j]
                    h *= mult
                h ^= h >> np.uint64(33)
                h *= np.uint64(0xFF51AFD7ED558CCD)
                h ^= h >> np.uint64(33)
                h *= np.uint64(0xC4CEB9FE1A85EC53)
                h ^= h >> np.uint64(33)
                keys[i, a : a + m] = h
    return keys


_KEY_BLOCK = 4096
"""Signatures whose band keys are computed at once (``band_keys``): 4096 x 128 uint64 is 4 MiB."""


def candidate_index_pairs(
    signatures: np.ndarray,
    *,
    bands: int,
    rows: int,
    new_mask: np.ndarray | None = None,
    max_bucket: int = DEFAULT_MAX_BUCKET,
    empty_mask: np.ndarray | None = None,
    _precomputed_keys: bool = False,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Find candidate pairs as row indices by joining band keys.

    Args:
        signatures: uint32, shape ``(n_docs, num_perm)``.
        bands: Number of bands.
        rows: Rows per band.
        new_mask: bool, shape ``(n_docs,)``; when given, only pairs with at least one new
            document are returned (incremental runs).
        max_bucket: Buckets larger than this are linked as a star to their smallest index.
        empty_mask: bool, shape ``(n_docs,)``; documents with no shingle, never candidates.

    Returns:
        ``(i, j, n_star_buckets)``: int64 arrays with ``i < j``, distinct pairs, sorted; and the
        number of buckets handled as stars (with ``new_mask``, of those holding a new
        document).
    """
    n = signatures.shape[0]
    if new_mask is not None and len(new_mask) != n:
        raise ValueError("new_mask must have one entry per signature")
    if n < 2:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), 0
    n_bands = signatures.shape[1] if _precomputed_keys else bands
    group = max(1, _MAX_JOIN_ROWS // n)
    if not _precomputed_keys and n_bands > group:
        # bound memory: join a few bands at a time and take the union (same pairs)
        keys_all = band_keys(signatures, bands=bands, rows=rows).T
        parts = [
            candidate_index_pairs(
                keys_all[:, g : g + group],
                bands=0,
                rows=0,
                new_mask=new_mask,
                max_bucket=max_bucket,
                empty_mask=empty_mask,
                _precomputed_keys=True,
            )
            for g in range(0, n_bands, group)
        ]
        del keys_all
        i = np.concatenate([p[0] for p in parts])
        j = np.concatenate([p[1] for p in parts])
        pairs = unique_sorted((i << np.int64(32)) | j) if len(i) else np.zeros(0, np.int64)
        return pairs >> np.int64(32), pairs & np.int64(0xFFFFFFFF), sum(p[2] for p in parts)
    if _precomputed_keys:  # ``signatures`` already holds band keys, shape (n_docs, bands)
        keys = np.ascontiguousarray(signatures.T.astype(np.uint64))
        bands = keys.shape[0]
    else:
        keys = band_keys(signatures, bands=bands, rows=rows)
    idx = np.tile(np.arange(n, dtype=np.int64), bands)
    band = np.repeat(np.arange(bands, dtype=np.int32), n)
    frame = pl.DataFrame({"band": band, "key": keys.reshape(-1), "idx": idx})
    if empty_mask is not None and empty_mask.any():
        frame = frame.filter(~pl.Series(np.tile(empty_mask, bands)))
    if new_mask is not None:
        frame = frame.with_columns(is_new=pl.Series(np.tile(new_mask, bands)))
        # only buckets holding a new document can give a pair touching one: the others are
        # dropped before any bucket is counted (an update's work follows the new documents)
        frame = frame.join(
            frame.filter("is_new").select("band", "key").unique(),
            on=["band", "key"],
            how="semi",
        )
    else:
        frame = frame.with_columns(is_new=pl.lit(True))
    frame = frame.with_columns(size=pl.len().over("band", "key")).filter(pl.col("size") > 1)
    small = frame.filter(pl.col("size") <= max_bucket).drop("size")
    big = frame.filter(pl.col("size") > max_bucket)
    left = small.filter(pl.col("is_new")) if new_mask is not None else small
    joined = (
        left.join(small, on=["band", "key"], suffix="_b")
        .filter(pl.col("idx") != pl.col("idx_b"))
        .select(
            i=pl.min_horizontal("idx", "idx_b"),
            j=pl.max_horizontal("idx", "idx_b"),
        )
    )
    n_star = 0
    parts = [joined]
    if big.height:
        star = big.with_columns(center=pl.col("idx").min().over("band", "key"))
        star = star.with_columns(
            center_new=pl.col("is_new")
            .filter(pl.col("idx") == pl.col("center"))
            .first()
            .over("band", "key")
        ).filter((pl.col("idx") != pl.col("center")) & (pl.col("is_new") | pl.col("center_new")))
        n_star = big.select(pl.struct("band", "key").n_unique()).item()
        parts.append(star.select(i=pl.col("center"), j=pl.col("idx")))
    pairs = pl.concat(parts).unique().sort("i", "j")
    return pairs["i"].to_numpy().astype(np.int64), pairs["j"].to_numpy().astype(np.int64), n_star


def join_band(
    keys: np.ndarray,
    *,
    new_mask: np.ndarray | None = None,
    empty_mask: np.ndarray | None = None,
    max_bucket: int = DEFAULT_MAX_BUCKET,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Candidate pairs of one band (the unit of work of a distributed band join).

    The union over all bands equals ``candidate_index_pairs`` (tested).

    Args:
        keys: uint64, shape ``(n_docs,)``: one row of ``band_keys``.
        new_mask: bool, shape ``(n_docs,)``; only pairs touching a new document.
        empty_mask: bool, shape ``(n_docs,)``; documents never paired.
        max_bucket: Buckets larger than this are linked as a star.

    Returns:
        ``(i, j, n_star_buckets)`` as in ``candidate_index_pairs``.
    """
    i, j, n_star = candidate_index_pairs(
        keys[:, None],
        bands=1,
        rows=1,
        new_mask=new_mask,
        max_bucket=max_bucket,
        empty_mask=empty_mask,
        _precomputed_keys=True,
    )
    return i, j, n_star


def find_candidates(
    doc_ids: Sequence[str],
    signatures: np.ndarray,
    *,
    bands: int,
    rows: int,
    new_mask: np.ndarray | None = None,
    max_bucket: int = DEFAULT_MAX_BUCKET,
) -> pl.DataFrame:
    """Find candidate pairs of documents whose signatures share at least one band.

    Args:
        doc_ids: One id per signature row.
        signatures: uint32, shape ``(n_docs, num_perm)``.
        bands: Number of bands (see ``optimal_bands``).
        rows: Rows per band.
        new_mask: bool, shape ``(n_docs,)``; when given only pairs touching a new document.
        max_bucket: Buckets larger than this are linked as a star (see ``DEFAULT_MAX_BUCKET``).

    Returns:
        One row per candidate pair: ``doc_id_a``, ``doc_id_b`` (str, ``doc_id_a < doc_id_b``),
        sorted.

    Raises:
        ValueError: When lengths disagree or the band shape does not fit the signatures.
    """
    ids = np.asarray(list(doc_ids), dtype=object)
    if len(ids) != signatures.shape[0]:
        raise ValueError("doc_ids and signatures must have the same length")
    i, j, _ = candidate_index_pairs(
        signatures, bands=bands, rows=rows, new_mask=new_mask, max_bucket=max_bucket
    )
    a, b = ids[i], ids[j]
    swap = a > b
    lo = np.where(swap, b, a)
    hi = np.where(swap, a, b)
    return pl.DataFrame(
        {"doc_id_a": lo.tolist(), "doc_id_b": hi.tolist()},
        schema={"doc_id_a": pl.String, "doc_id_b": pl.String},
    ).sort("doc_id_a", "doc_id_b")
