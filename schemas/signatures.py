"""The ``signatures`` table and the shingle / MinHash configuration."""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from affidavit.schemas._meta import table_schema


@dataclass(frozen=True, slots=True)
class ShingleConfig:
    """How a text becomes a set of shingles.

    Attributes:
        k: Words per shingle (word k-grams). 3 by default (DESIGN.md, Lineage).
        normalize: Apply Unicode NFKC, casefold and punctuation stripping before splitting.
    """

    k: int = 3
    normalize: bool = True

    def __str__(self) -> str:
        """Return the string form used in stored paths, e.g. ``w3n1``."""
        return f"w{self.k}n{int(self.normalize)}"


@dataclass(frozen=True, slots=True)
class MinHashConfig:
    """MinHash parameters; signatures equal ``datasketch.MinHash(num_perm, seed)`` for them.

    The shingle hash is named by ``hash_scheme``; a stored signature carries the string form,
    so signatures of another scheme are never mixed in (they are recomputed).

    Attributes:
        num_perm: Number of permutations (signature length). 128, datasketch's default.
        seed: Permutation seed. 1, datasketch's default.
        shingles: The shingle configuration.
        hash_scheme: ``"wordmix"`` (default): each distinct word is hashed once (first 8
            bytes of its SHA-1, little-endian) and a shingle's 64-bit hash mixes its words'
            hashes (``affidavit.tasks.minhash.wordmix_hash64``), vectorised; signatures equal
            ``datasketch.MinHash(num_perm, seed, hashfunc=wordmix_hash32)``. ``"sha1"``:
            datasketch's default hash function (SHA-1 of every shingle), equal to
            ``datasketch.MinHash(num_perm, seed)``, about 5x slower.
    """

    num_perm: int = 128
    seed: int = 1
    shingles: ShingleConfig = ShingleConfig()
    hash_scheme: str = "wordmix"

    def __post_init__(self) -> None:
        """Reject an unknown hash scheme."""
        if self.hash_scheme not in HASH_SCHEMES:
            raise ValueError(
                f"hash_scheme must be one of {HASH_SCHEMES}, got {self.hash_scheme!r}"
            )

    def __str__(self) -> str:
        """Return the string form used in stored paths, e.g. ``mh128s1-w3n1-wordmix``.

        The ``sha1`` scheme keeps the form it had before schemes were named (``mh128s1-w3n1``).
        """
        base = f"mh{self.num_perm}s{self.seed}-{self.shingles}"
        return base if self.hash_scheme == "sha1" else f"{base}-{self.hash_scheme}"


HASH_SCHEMES = ("wordmix", "sha1")
"""Shingle hash schemes (``MinHashConfig.hash_scheme``)."""


SIGNATURES_SCHEMA = table_schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("config", pa.string(), nullable=False),  # str(MinHashConfig)
        pa.field("n_shingles", pa.int32(), nullable=False),
        pa.field("minhash", pa.list_(pa.uint32()), nullable=False),  # num_perm values
    ],
    name="signatures",
    grain="one row per (document, MinHash configuration)",
    key=("doc_id", "config"),
    version=1,
)
