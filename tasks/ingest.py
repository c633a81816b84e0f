"""Dispatch any supported input (feed, WARC/WET archive, dump or URL) to its reader.

This module sits above the readers (:mod:`affidavit.tasks.ingest_feeds`,
:mod:`affidavit.tasks.ingest_archive`, :mod:`affidavit.tasks.ingest_dumps`), which share
:mod:`affidavit.tasks.ingest_common`; nothing below imports it, so there is no import circle.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from affidavit.tasks.ingest_archive import read_warc
from affidavit.tasks.ingest_common import ColumnMapping, IngestBatch
from affidavit.tasks.ingest_dumps import read_dump
from affidavit.tasks.ingest_feeds import load_feed, load_url
from affidavit.tasks.input_checks import (
    DUMP_FORMATS,
    NOT_A_REGULAR_FILE,
    dump_extensions,
    gzip_name_fault,
    regular_file_fault,
)

if TYPE_CHECKING:
    from affidavit.tasks.fetch import Fetcher

_WARC_SUFFIXES = (".warc", ".warc.gz", ".wet", ".wet.gz", ".warc.wet", ".warc.wet.gz")
_FEED_SUFFIXES = (".xml", ".rss", ".atom", ".rdf", ".feed", ".xml.gz", ".rss.gz", ".atom.gz")
_DUMP_SUFFIXES = (
    *(e for e in DUMP_FORMATS if e != ".json"),
    *(e + ".gz" for e, f in DUMP_FORMATS.items() if f != "parquet"),
)
"""Names read as dumps without a look inside (:data:`affidavit.tasks.input_checks.DUMP_FORMATS`):
a plain ``.json`` is looked into, as it may be a JSON Feed."""
_SNIFF_BYTES = 4096


def _head(path: Path, n: int = _SNIFF_BYTES) -> bytes:
    with path.open("rb") as fh:
        head = fh.read(n)
    if head[:2] == b"\x1f\x8b":
        try:
            with gzip.open(path, "rb") as gz:
                head = gz.read(n)
        except (OSError, EOFError):
            return b""
    return head


MAX_JSON_FEED_SNIFF_BYTES = 64 * 1024 * 1024
"""A ``.json`` file up to this size is parsed whole to look for a JSON Feed version that does
not stand in its first 4 KiB (a top-level ``version`` after a long ``items`` list)."""


def _looks_like_json_feed(head: bytes) -> bool:
    return b"jsonfeed.org/version" in head.replace(b"\\/", b"/")


def _is_json_feed_file(p: Path) -> bool:
    """Parse a (bounded) JSON file and tell whether it is a JSON Feed (its ``version``)."""
    try:
        if p.stat().st_size > MAX_JSON_FEED_SNIFF_BYTES:
            return False
        from affidavit.tasks.charset import decode_user_text

        obj = json.loads(decode_user_text(p.read_bytes()).text)  # the readers' one decoding
    except (OSError, ValueError):
        return False
    version = obj.get("version") if isinstance(obj, dict) else None
    return isinstance(version, str) and "jsonfeed.org/version" in version


def detect_kind(path: str | Path) -> Literal["feed", "warc", "dump"]:
    """Tell whether a file is a feed, a WARC/WET archive or a dump, by extension then content.

    ``.json`` files are feeds when they declare a JSON Feed version (``jsonfeed.org/version``)
    in their first 4 KiB, dumps otherwise. Files with another extension are sniffed: ``WARC/``
    (after gzip) → warc; ``PAR1`` → dump; XML with ``<rss``, ``<feed`` or ``<rdf`` → feed;
    a JSON object or array → feed or dump as for ``.json``.

    Args:
        path: A local file.

    Returns:
        ``"feed"``, ``"warc"`` or ``"dump"``.

    Raises:
        ValueError: When the kind cannot be told.
        FileNotFoundError: When the file does not exist.
    """
    p = Path(path)
    name = p.name.lower()
    if name.endswith(_WARC_SUFFIXES):
        return "warc"
    if name.endswith(_FEED_SUFFIXES):
        return "feed"
    if name.endswith(_DUMP_SUFFIXES):
        return "dump"
    p.stat()  # a missing file, a symlink loop: raised with its errno
    head = _head(p)
    if name.endswith(".json"):
        return "feed" if _looks_like_json_feed(head) or _is_json_feed_file(p) else "dump"
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    if stripped.startswith(b"WARC/"):
        return "warc"
    if stripped.startswith(b"PAR1"):
        return "dump"
    if stripped.startswith(b"<"):
        low = stripped[:_SNIFF_BYTES].lower()
        if any(tag in low for tag in (b"<rss", b"<feed", b"<rdf:rdf", b"<rdf")):
            return "feed"
    if stripped[:1] in (b"{", b"["):
        if _looks_like_json_feed(head):
            return "feed"
        return "dump"
    raise ValueError(
        f"{path}: cannot tell whether this is a feed, a WARC/WET archive or a dump (known "
        f"extensions: feeds {' '.join(_FEED_SUFFIXES)} .json; archives {' '.join(_WARC_SUFFIXES)}; "
        f"dumps {dump_extensions()})"
    )


def ingest_path(
    path: str,
    *,
    mapping: ColumnMapping = ColumnMapping(),  # noqa: B008 - frozen, immutable default
    fetcher: Fetcher | None = None,
    kind: Literal["feed", "warc", "dump"] | None = None,
) -> Iterator[IngestBatch]:
    """Read any supported input and yield document batches.

    ``http(s)://`` URLs are fetched through the guarded fetcher and read as feeds (or, when the
    response is an HTML page, as one ``source_kind="web"`` document:
    :func:`affidavit.tasks.ingest_feeds.load_url`); local files are
    dispatched by :func:`detect_kind` to :func:`affidavit.tasks.ingest_feeds.load_feed`,
    :func:`affidavit.tasks.ingest_archive.read_warc` or
    :func:`affidavit.tasks.ingest_dumps.read_dump`.

    Args:
        path: A local path or an http(s) URL of a feed.
        mapping: Column mapping for dumps.
        fetcher: Fetcher for URLs (a default guarded :class:`affidavit.tasks.fetch.Fetcher` when
        None).
        kind: Read a local file as this kind instead of detecting it (``--feed`` forces feed).

    Yields:
        :class:`IngestBatch` objects.

    Raises:
        ValueError: When a local file's kind cannot be told, it is not a regular file (a
            device or a pipe), or its name ends in ``.gz`` and its bytes are not gzip data.
        FileNotFoundError: When a local file does not exist.
    """
    if re.match(r"^https?://", path, re.I):
        yield load_url(path, fetcher=fetcher)
        return
    p = Path(path)
    p.stat()  # a missing file, a symlink loop: raised with its errno
    fault = regular_file_fault(p)
    if fault == NOT_A_REGULAR_FILE:  # a directory: said by its errno when opened
        # a device or a pipe: a pipe's head is gone after a first look, a device may not end
        raise ValueError(f"{path}: {fault}")
    if fault := gzip_name_fault(path):  # refused, not read as the plain text it is
        raise ValueError(f"{path}: {fault}")
    kind = kind or detect_kind(path)
    if kind == "feed":
        yield load_feed(path, fetcher=fetcher)
    elif kind == "warc":
        yield from read_warc(path)
    else:
        yield from read_dump(path, mapping=mapping)

