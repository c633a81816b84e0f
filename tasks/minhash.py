"""Vectorised MinHash signatures, bit-identical to ``datasketch.MinHash``.

datasketch 2.x (default scheme ``affine32``) hashes each shingle with the first 4 bytes of its
SHA-1 digest (little-endian), mixes it with the MurmurHash3 32-bit finalizer, and applies
``num_perm`` affine permutations ``a_k * h + b_k mod 2**32`` whose parameters come from
``numpy.random.RandomState(seed)``; the signature is the per-permutation minimum. Here the same
arithmetic runs for many documents at once, with the permutations on the leading axis
(``(num_perm, n_shingles)`` blocks) and ``np.minimum.reduceat`` cutting the block per document.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from hashlib import sha1

import numpy as np

from affidavit.schemas.signatures import MinHashConfig, ShingleConfig
from affidavit.tasks.shingles import shingle_text

__all__ = [
    "EMPTY_HASH",
    "compute_signatures",
    "hash_shingles",
    "minhash_permutations",
    "shingle_hash_sets",
]

EMPTY_HASH = np.uint32(0xFFFFFFFF)
"""Signature value of a document with no shingle (datasketch's empty MinHash)."""

_BLOCK_SHINGLES = 1 << 12
"""Shingles per vectorised block: (128, 4096) uint32 is 2 MiB, which stays in cache (measured on
Reuters-21578: 4096 is 2x faster than 32768 and 9x faster than 131072)."""


@lru_cache(maxsize=16)
def minhash_permutations(num_perm: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Return datasketch's affine32 permutation parameters for ``(num_perm, seed)``.

    Args:
        num_perm: Number of permutations, >= 1.
        seed: Seed of ``numpy.random.RandomState``, as given to ``datasketch.MinHash``.

    Returns:
        ``(a, b)``: uint32 arrays of shape ``(num_perm,)``; ``a`` is odd.

    Raises:
        ValueError: When ``num_perm`` is less than 1.
    """
    if num_perm < 1:
        raise ValueError(f"num_perm must be >= 1, got {num_perm}")
    gen = np.random.RandomState(seed)
    a = gen.randint(0, 1 << 31, num_perm, dtype=np.uint32) * np.uint32(2) + np.uint32(1)
    b = gen.randint(0, 1 << 32, num_perm, dtype=np.uint32)
    a.setflags(write=False)
    b.setflags(write=False)
    return a, b


def _fmix32(hv: np.ndarray) -> np.ndarray:
    """MurmurHash3's 32-bit finalizer on a uint32 array (wrapping arithmetic)."""
    hv = hv ^ (hv >> np.uint32(16))
    hv = hv * np.uint32(0x85EBCA6B)
    hv = hv ^ (hv >> np.uint32(13))
    hv = hv * np.uint32(0xC2B2AE35)
    return hv ^ (hv >> np.uint32(16))


def hash_shingles(shingles: Sequence[bytes]) -> np.ndarray:
    """Hash shingles with the first 8 bytes of SHA-1, read little-endian.

    The low 32 bits are datasketch's ``sha1_hash32``; the full 64 bits serve as the shingle's
    identity for exact Jaccard (collisions are negligible at 2**-64 per pair).

    Args:
        shingles: Shingles as bytes.

    Returns:
        uint64 array of shape ``(len(shingles),)``.
    """
    if not shingles:
        return np.zeros(0, dtype=np.uint64)
    raw = b"".join([sha1(s).digest() for s in shingles])
    arr = np.frombuffer(raw, dtype=np.uint8).reshape(-1, 20)[:, :8]
    return np.ascontiguousarray(arr).view("<u8").reshape(-1).astype(np.uint64, copy=False)


def shingle_hash_sets(
    texts: Sequence[str], config: ShingleConfig = ShingleConfig()
) -> tuple[np.ndarray, np.ndarray]:
    """Hash the distinct shingles of many texts.

    Args:
        texts: The texts, one per document.
        config: Shingle configuration.

    Returns:
        ``(hashes, offsets)``: ``hashes`` uint64, shape ``(total_shingles,)``, each document's
        distinct shingle hashes in order of first appearance; ``offsets`` int64, shape
        ``(n_docs + 1,)``, document ``i`` owning ``hashes[offsets[i]:offsets[i + 1]]``.
    """
    counts = np.zeros(len(texts) + 1, dtype=np.int64)
    flat: list[bytes] = []
    for i, text in enumerate(texts):
        sh = shingle_text(text or "", config)
        counts[i + 1] = len(sh)
        flat.extend(sh)
    return hash_shingles(flat), np.cumsum(counts)


def signatures_from_hashes(
    hashes: np.ndarray, offsets: np.ndarray, config: MinHashConfig = MinHashConfig()
) -> np.ndarray:
    """Compute MinHash signatures from shingle hashes (see ``shingle_hash_sets``).

    Args:
        hashes: uint64, shape ``(total_shingles,)``; only the low 32 bits are used.
        offsets: int64, shape ``(n_docs + 1,)``.
        config: ``num_perm`` and ``seed``.

    Returns:
        uint32 array of shape ``(n_docs, num_perm)``; a document with no shingle gets
        ``EMPTY_HASH`` everywhere, as an empty ``datasketch.MinHash`` does.
    """
    a, b = minhash_permutations(config.num_perm, config.seed)
    n_docs = len(offsets) - 1
    out = np.full((n_docs, config.num_perm), EMPTY_HASH, dtype=np.uint32)
    hv = _fmix32((hashes & np.uint64(0xFFFFFFFF)).astype(np.uint32))
    nonempty = np.flatnonzero(offsets[1:] > offsets[:-1])
    if len(nonempty) == 0:
        return out
    a_col = a[:, None]
    b_col = b[:, None]
    start_i = 0
    while start_i < len(nonempty):
        # take documents until the block holds about _BLOCK_SHINGLES shingles
        lo = offsets[nonempty[start_i]]
        limit = lo + _BLOCK_SHINGLES
        end_i = int(np.searchsorted(offsets[nonempty + 1], limit, side="right"))
        end_i = max(end_i, start_i + 1)
        docs = nonempty[start_i:end_i]
        hi = offsets[docs[-1] + 1]
        block = hv[lo:hi]
        phv = block[None, :] * a_col
        phv += b_col
        starts = offsets[docs] - lo
        out[docs] = np.minimum.reduceat(phv, starts, axis=1).T
        start_i = end_i
    return out


def compute_signatures(
    texts: Sequence[str], config: MinHashConfig = MinHashConfig()
) -> tuple[np.ndarray, np.ndarray]:
    """Compute MinHash signatures for many texts at once.

    Equal to ``datasketch.MinHash(num_perm=config.num_perm, seed=config.seed)`` updated with
    ``affidavit.tasks.shingles.shingle_text(text, config.shingles)`` (tested by a property test).

    Args:
        texts: The texts, one per document (``None`` or empty allowed).
        config: MinHash and shingle configuration.

    Returns:
        ``(signatures, n_shingles)``: uint32 of shape ``(n_docs, num_perm)`` and int32 of shape
        ``(n_docs,)`` (distinct shingles per document; 0 for an empty text).
    """
    hashes, offsets = shingle_hash_sets(texts, config.shingles)
    sigs = signatures_from_hashes(hashes, offsets, config)
    return sigs, np.diff(offsets).astype(np.int32)
