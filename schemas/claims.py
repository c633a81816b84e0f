"""The ``claims`` table: one row per claim, keyed by ``claim_id`` (hash of normalised text)."""

from __future__ import annotations

import hashlib
import re
import unicodedata

import pyarrow as pa

from affidavit.schemas._meta import table_schema

CLAIMS_SCHEMA = table_schema(
    [
        pa.field("claim_id", pa.string(), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        pa.field("source_doc_id", pa.string()),  # document it was extracted from, if any
        pa.field("span_start", pa.int32()),  # character offsets in that document, end exclusive
        pa.field("span_end", pa.int32()),
        pa.field("parent_claim_id", pa.string()),  # set for sub-questions of a decomposed claim
        pa.field("check_worthiness", pa.float64()),  # 0..1
        pa.field("is_researchable", pa.bool_(), nullable=False),
        pa.field("researchable_reason", pa.string()),
        pa.field("volatility", pa.string(), nullable=False),  # schemas.enums.Volatility
        pa.field("external_id", pa.string()),  # id in the claims file, if any
        pa.field("external_label", pa.string()),  # label in the claims file, if any
        pa.field("origin", pa.string()),  # "file:<path>", "feed:<url>", "text", "question"
    ],
    name="claims",
    grain="one row per claim",
    key=("claim_id",),
    version=1,
)

_WS = re.compile(r"\s+")


def normalize_claim_text(text: str) -> str:
    """Normalise a claim for its key: NFKC, casefold, collapse whitespace, strip end punctuation.

    >>> normalize_claim_text("  The  Sky is BLUE. ")
    'the sky is blue'
    """
    t = unicodedata.normalize("NFKC", text).casefold()
    t = _WS.sub(" ", t).strip()
    return t.rstrip(" .!?;:")


def make_claim_id(text: str) -> str:
    """Return the ``claim_id`` of a claim text: 16 hex chars of SHA-256 of its normalised form."""
    return hashlib.sha256(normalize_claim_text(text).encode("utf-8", "replace")).hexdigest()[:16]
