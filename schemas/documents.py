"""The ``documents`` table: one row per distinct document version, keyed by ``doc_id``."""

from __future__ import annotations

import hashlib

import pyarrow as pa

from affidavit.schemas._meta import UTC_TS, table_schema

DOCUMENTS_SCHEMA = table_schema(
    [
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("url", pa.string()),
        pa.field("canonical_url", pa.string()),
        pa.field("host", pa.string()),
        pa.field("source_id", pa.string()),  # id in the dump / feed entry id, when given
        pa.field("title", pa.string()),
        pa.field("author", pa.string()),
        pa.field("published_at", UTC_TS),
        pa.field("published_at_raw", pa.string()),  # the date string as the source wrote it
        pa.field("modified_at", UTC_TS),
        pa.field("wayback_first_seen", UTC_TS),
        pa.field("fetched_at", UTC_TS),
        pa.field("http_status", pa.int16()),
        pa.field("text", pa.large_string()),
        pa.field("content_sha256", pa.string(), nullable=False),
        pa.field("lang", pa.string()),
        pa.field("source_kind", pa.string(), nullable=False),  # schemas.enums.SourceKind
        pa.field("is_snippet_only", pa.bool_(), nullable=False),
        pa.field("ingest_run_id", pa.string()),
        pa.field("source_path", pa.string()),  # file or feed the row was read from
    ],
    name="documents",
    grain="one row per distinct document version",
    key=("doc_id",),
    version=1,
)


def content_sha256(text: str) -> str:
    """Return the hex SHA-256 of ``text`` encoded as UTF-8 (surrogates replaced).

    >>> content_sha256("abc")[:12]
    'ba7816bf8f01'
    """
    return hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()


def make_doc_id(locator: str | None, sha256_hex: str) -> str:
    """Return the ``doc_id`` of a document version: 16 hex chars of SHA-256(locator, content hash).

    Args:
        locator: Canonical URL, or the source id when there is no URL; ``None`` when neither.
        sha256_hex: ``content_sha256`` of the document text.

    Returns:
        A 16-character lowercase hex string (64 bits; collisions are negligible below ~10^8 docs).

    >>> len(make_doc_id("example.com/a", content_sha256("abc")))
    16
    """
    h = hashlib.sha256()
    h.update((locator or "").encode("utf-8", "replace"))
    h.update(b"\x00")
    h.update(sha256_hex.encode("ascii"))
    return h.hexdigest()[:16]
