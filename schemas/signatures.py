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

    Attributes:
        num_perm: Number of permutations (signature length). 128, datasketch's default.
        seed: Permutation seed. 1, datasketch's default.
        shingles: The shingle configuration.
    """

    num_perm: int = 128
    seed: int = 1
    shingles: ShingleConfig = ShingleConfig()

    def __str__(self) -> str:
        """Return the string form used in stored paths, e.g. ``mh128s1-w3n1``."""
        return f"mh{self.num_perm}s{self.seed}-{self.shingles}"


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
