"""Read WARC and WET files (plain or gzipped) as documents, recovering from broken records.

Record framing is done here rather than by fastwarc or warcio, because both fail on broken
files in ways that lose the rest of the file (measured on this project's machine): fastwarc
2.0.1 stops at a record whose Content-Length is short and hands back HTTP bodies still chunked or
gzip-encoded; warcio refuses a whole gzip file that is one gzip stream rather than one member per
record, and stops at gzip members that do not align with records. Here:

* the file is decompressed as one stream (member after member, so per-record gzip members,
  members that do not align with records and single-stream files all read alike; a truncated
  gzip file keeps every record before the cut, counted ``"truncated_file"``), and records are
  framed by their ``Content-Length``;
* after each block the two CRLFs and the next ``WARC/`` line must follow; when they do not, the
  record's Content-Length is wrong: the record is skipped (``"bad_content_length"``), and
  reading resumes at the next ``WARC/1.x`` line (inside the block too, when it was too long);
* HTTP bodies are de-chunked and decoded (gzip, deflate, br) under a decoded-size cap, so a gzip
  bomb is skipped (``"decompressed_too_large"``);
* ``warcinfo``, ``request``, ``metadata`` and ``revisit`` records are skipped and counted by
  type (``"request_record"`` ...); non-2xx responses and non-text payloads are counted too.

HTML responses and resources go through trafilatura (:func:`affidavit.tasks.extract.extract_html`);
WET
``conversion`` records are plain text. ``WARC-Date`` becomes ``fetched_at``; the page's own date
(trafilatura metadata) ``published_at``. ``source_kind="archive"``.
"""

from __future__ import annotations

import base64
import hashlib
import re
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from affidavit.schemas.enums import SourceKind
from affidavit.tasks.extract import (
    DEFAULT_MAX_PAGE_BYTES,
    clean_text,
    extract_html,
    note_page_repairs,
)
from affidavit.tasks.fetch import ContentDecodingError, ContentTooLargeError, decode_body
from affidavit.tasks.ingest_common import (
    MAX_MESSAGES,
    IngestBatch,
    decode_bytes,
    non_utf8_note,
    parse_datetime,
    rows_to_documents,
)

__all__ = [
    "DEFAULT_BATCH_ROWS",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_RECORD_BYTES",
    "WarcRecord",
    "iter_warc_records",
    "read_warc",
]

DEFAULT_BATCH_ROWS = 2000
"""Documents per batch; archive pages are longer than dump rows, so batches are smaller."""

DEFAULT_MAX_RECORD_BYTES = 64 * 1024 * 1024
"""Largest WARC record block read into memory (bytes); larger records (video, archives) are
skipped unread (``"record_too_large"``). Common Crawl truncates payloads at 1 MiB (5 MiB since
2025); 64 MiB leaves room for other crawlers."""

DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024
"""Largest decoded HTTP body (bytes). A body that decodes past it is a decompression bomb or
not a page; it is skipped (``"decompressed_too_large"``). Only the first ``max_page_bytes`` of a
body under the cap go to extraction."""

_MAX_HEADER_LINES = 512
_MAX_LINE_BYTES = 64 * 1024
_WARC_LINE_RE = re.compile(rb"WARC/\d")
_SKIPPED_TYPES = {"warcinfo", "request", "metadata", "revisit", "continuation"}
_KNOWN_VERSIONS = frozenset({"WARC/1.0", "WARC/1.1", "WARC/0.17", "WARC/0.18"})
"""WARC versions read without a warning: ISO 28500:2009 and :2017, and the pre-standard drafts
Heritrix wrote (same record layout)."""
_HTML_TYPES = ("text/html", "application/xhtml+xml", "application/xhtml")
_TEXT_TYPES = ("text/plain",)


class _PushbackReader:
    """Binary reader with unread() and a byte position, over a (possibly gzip) stream."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._buf = bytearray()
        self.pos = 0

    def _fill(self, n: int) -> None:
        while len(self._buf) < n:
            chunk = self._raw.read(max(n - len(self._buf), 64 * 1024))
            if not chunk:
                return
            self._buf += chunk

    def read(self, n: int) -> bytes:
        self._fill(n)
        out = bytes(self._buf[:n])
        del self._buf[:n]
        self.pos += len(out)
        return out

    def skip(self, n: int) -> int:
        done = 0
        while done < n:
            got = len(self.read(min(n - done, 1024 * 1024)))
            if not got:
                break
            done += got
        return done

    def readline(self, limit: int = _MAX_LINE_BYTES) -> bytes:
        start = 0
        while True:
            idx = self._buf.find(b"\n", start)
            if idx >= 0 or len(self._buf) >= limit:
                end = min(idx + 1 if idx >= 0 else len(self._buf), limit)
                break
            start = len(self._buf)
            before = len(self._buf)
            self._fill(len(self._buf) + 64 * 1024)
            if len(self._buf) == before:
                end = len(self._buf)
                break
        out = bytes(self._buf[:end])
        del self._buf[:end]
        self.pos += len(out)
        return out

    def unread(self, data: bytes) -> None:
        self._buf[:0] = data
        self.pos -= len(data)


@dataclass(frozen=True, slots=True)
class WarcRecord:
    """One WARC record: headers (names lowercased) and its block (None when skipped unread)."""

    headers: dict[str, str]
    block: bytes | None
    offset: int

    @property
    def rec_type(self) -> str:
        """The ``WARC-Type``, lowercased."""
        return self.headers.get("warc-type", "").strip().lower()

    @property
    def target_uri(self) -> str | None:
        """The ``WARC-Target-URI`` without angle brackets, or None."""
        uri = self.headers.get("warc-target-uri", "").strip().strip("<>").strip()
        return uri or None


class _Skips:
    """Skip counts and notes of the records read since the last batch.

    Each note keeps how many rows came before it (``rows``, the reader's pending list), so
    that it is said in input order among the rows' own notes.
    """

    def __init__(self, rows: list[dict[str, Any]] | None = None) -> None:
        self.counts: Counter[str] = Counter()
        self.messages: list[tuple[int, str]] = []
        self._rows = rows if rows is not None else []

    def add(self, reason: str, message: str | None = None) -> None:
        self.counts[reason] += 1
        if message is not None and len(self.messages) < MAX_MESSAGES:
            self.messages.append((len(self._rows), message))


class _GunzipStream:
    """Read-only stream over gzip data, one member after another, that survives truncation.

    ``gzip.GzipFile`` raises on a truncated file before handing over data it has already
    decompressed in the same read; this stream returns everything decodable and then reports
    end of file, setting :attr:`error` to what went wrong (None on a clean end).
    """

    def __init__(self, raw: IO[bytes], *, chunk_bytes: int = 64 * 1024) -> None:
        self._raw = raw
        self._chunk = chunk_bytes
        self._d = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        self._fed = 0  # compressed bytes given to the current member's decompressor
        self._tail = b""
        self._eof = False
        self.error: str | None = None

    def read(self, n: int = -1) -> bytes:
        want = n if n > 0 else 1 << 62
        out = bytearray()
        while len(out) < want and not self._eof:
            if self._tail:
                data, self._tail = self._tail, b""
            else:
                data = self._raw.read(self._chunk)
            if not data:
                self._eof = True
                if self._fed and not self._d.eof:
                    self.error = "compressed stream ends before its end-of-stream marker"
                break
            self._fed += len(data)
            try:
                out += self._d.decompress(data, want - len(out))
            except zlib.error as exc:
                self._eof = True
                self.error = f"corrupt gzip data: {exc}"
                break
            self._tail = self._d.unconsumed_tail
            if self._d.eof:  # next gzip member, if any
                rest = self._d.unused_data
                self._d = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
                self._fed = 0
                self._tail = rest if rest.strip(b"\x00") else b""
        return bytes(out)

    def close(self) -> None:
        self._raw.close()

    def __enter__(self) -> _GunzipStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _open(path: Path) -> IO[bytes] | _GunzipStream:
    fh = path.open("rb")
    magic = fh.read(2)
    fh.seek(0)
    if magic == b"\x1f\x8b":
        return _GunzipStream(fh)
    return fh


def _resync(r: _PushbackReader) -> bool:
    """Advance to the next line that starts a WARC record; False at end of file."""
    while True:
        line = r.readline()
        if not line:
            return False
        if _WARC_LINE_RE.match(line):
            r.unread(line)
            return True


def iter_warc_records(
    stream: IO[bytes],
    *,
    name: str,
    skips: _Skips,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
) -> Iterator[WarcRecord]:
    """Yield the records of a decompressed WARC stream, skipping broken ones (counted).

    Args:
        stream: The WARC bytes (already decompressed).
        name: File name for messages.
        skips: Counter of skip reasons and messages (filled in place).
        max_record_bytes: Blocks larger than this are yielded with ``block=None``.

    Yields:
        :class:`WarcRecord` objects whose framing checked out.
    """
    r = _PushbackReader(stream)
    first = r.readline()
    if not first:
        return
    if first.startswith(b"filedesc://"):
        skips.add("unsupported_format", f"{name}: ARC format (not WARC): skipped")
        return
    r.unread(first)
    while True:
        # Find the version line, skipping blank lines; anything else is garbage to resync over.
        line = r.readline()
        while line and not line.strip():
            line = r.readline()
        if not line:
            return
        if not _WARC_LINE_RE.match(line):
            skips.add("garbage_between_records", f"{name}: offset {r.pos - len(line)}: "
                      "bytes that are not a WARC record: skipped to the next record")
            if not _resync(r):
                return
            continue
        offset = r.pos - len(line)
        version = line.strip().decode("ascii", "replace")
        if version not in _KNOWN_VERSIONS:
            skips.add("warc_version_unknown", f"{name}: offset {offset}: unknown version "
                      f"{version[:20]!r} (known: WARC/1.0, WARC/1.1): read as WARC/1.1")
        headers: dict[str, str] = {}
        last = None
        broken = False
        for _ in range(_MAX_HEADER_LINES):
            hl = r.readline()
            if not hl:
                broken = True
                break
            if not hl.strip():
                break
            text = hl.decode("utf-8", "replace").rstrip("\r\n")
            if text[:1] in (" ", "\t") and last is not None:
                headers[last] += " " + text.strip()
                continue
            key, sep, value = text.partition(":")
            if not sep:
                broken = True
                break
            last = key.strip().lower()
            headers[last] = value.strip()
        else:
            broken = True
        if broken:
            skips.add("bad_record_header", f"{name}: offset {offset}: bad WARC header: skipped")
            if not _resync(r):
                return
            continue
        length_s = headers.get("content-length", "")
        if not length_s.isdigit():
            skips.add("bad_content_length",
                      f"{name}: offset {offset}: Content-Length {length_s!r} invalid: skipped")
            if not _resync(r):
                return
            continue
        length = int(length_s)
        if length > max_record_bytes:
            got = r.skip(length)
            if got < length:
                skips.add("truncated_record", f"{name}: offset {offset}: file ends inside "
                          f"a {length}-byte record: stopped")
                return
            yield WarcRecord(headers, None, offset)
            continue
        block = r.read(length)
        if len(block) < length:
            uri = headers.get("warc-target-uri", "")
            short = length - len(block)
            of = f" ({uri})" if uri else ""  # (a warcinfo record names no target)
            skips.add("truncated_record", f"{name}: offset {offset}: file ends {short} bytes "
                      f"short of the record's Content-Length{of}: skipped")
            return
        # The block must be followed by CRLF CRLF and then the next record (or the end).
        consumed: list[bytes] = []
        nxt = r.readline()
        while nxt and not nxt.strip() and len(consumed) < 4:
            consumed.append(nxt)
            nxt = r.readline()
        if nxt and not _WARC_LINE_RE.match(nxt):
            uri = headers.get("warc-target-uri", "")
            skips.add("bad_content_length", f"{name}: offset {offset}: record ({uri}) not followed "
                      f"by the next record: Content-Length {length} is wrong: skipped")
            r.unread(b"".join(consumed) + nxt)
            # Too long a Content-Length swallows the start of the next record: look inside.
            m = re.search(rb"\r?\nWARC/\d", block)
            if m:
                r.unread(block[m.start() :].lstrip(b"\r\n"))
            elif not _resync(r):
                return
            continue
        if nxt:
            r.unread(nxt)
        yield WarcRecord(headers, block, offset)


# --------------------------------------------------------------------------------- HTTP parts


def _split_http(block: bytes) -> tuple[int, dict[str, str], bytes] | None:
    """Split an HTTP response block into (status, headers lowercased, body); None if not HTTP."""
    if not block.startswith(b"HTTP/"):
        return None
    cut = block.find(b"\r\n\r\n")
    sep = 4
    lf = block.find(b"\n\n")
    if cut < 0 or (0 <= lf < cut):
        cut, sep = lf, 2
    if cut < 0:
        head, body = block, b""
    else:
        head, body = block[:cut], block[cut + sep :]
    lines = head.decode("iso-8859-1").splitlines()
    parts = lines[0].split(None, 2)
    if len(parts) < 2 or not parts[1].isdigit():
        return None
    headers: dict[str, str] = {}
    for ln in lines[1:]:
        k, s, v = ln.partition(":")
        if s:
            key = k.strip().lower()
            headers[key] = f"{headers[key]}, {v.strip()}" if key in headers else v.strip()
    return int(parts[1]), headers, body


def dechunk(body: bytes) -> bytes:
    r"""Decode an HTTP/1.1 chunked body.

    Raises:
        ValueError: When the body is not valid chunked encoding.

    >>> dechunk(b"5\r\nhello\r\n0\r\n\r\n")
    b'hello'
    """
    out = bytearray()
    pos = 0
    n = len(body)
    while True:
        eol = body.find(b"\n", pos)
        if eol < 0:
            if out:
                return bytes(out)  # trailing chunk header lost: keep what was decoded
            raise ValueError("no chunk size line")
        size_s = body[pos:eol].split(b";", 1)[0].strip()
        try:
            size = int(size_s, 16)
        except ValueError as exc:
            raise ValueError(f"bad chunk size {size_s[:20]!r}") from exc
        if size == 0:
            return bytes(out)
        start = eol + 1
        if start + size > n:
            raise ValueError("chunk runs past the end of the body")
        out += body[start : start + size]
        pos = start + size
        if body[pos : pos + 2] == b"\r\n":
            pos += 2
        elif body[pos : pos + 1] == b"\n":
            pos += 1
        if pos >= n:
            return bytes(out)


def _media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def _payload_kind(media: str, body: bytes) -> str | None:
    if media.startswith(_HTML_TYPES):
        return "html"
    if media.startswith(_TEXT_TYPES):
        return "text"
    if not media or media in ("application/octet-stream", "unk", "unknown"):
        head = body[:512].lstrip().lower()
        if head.startswith((b"<!doctype html", b"<html", b"<head", b"<body")):
            return "html"
    return None


# ------------------------------------------------------------------------------------ reading


def check_block_digest(header: str | None, block: bytes) -> bool | None:
    """Check a ``WARC-Block-Digest`` (``sha1:BASE32``; hex and base64 accepted) against a block.

    Returns:
        True when it matches, False when it does not, None when there is no digest or its
        algorithm or encoding is unknown.

    >>> import base64, hashlib
    >>> block = b"hello"
    >>> check_block_digest("sha1:" + base64.b32encode(hashlib.sha1(block).digest()).decode(), block)
    True
    >>> check_block_digest("sha1:" + "A" * 32, block), check_block_digest("crc9:xyz", block)
    (False, None)
    """
    if not header or ":" not in header:
        return None
    algo, _, value = header.strip().partition(":")
    algo = algo.strip().lower().replace("-", "")
    value = value.strip()
    if algo not in ("sha1", "sha256", "sha512", "md5"):
        return None
    digest = hashlib.new(algo, block).digest()
    forms = {
        base64.b32encode(digest).decode().rstrip("="),
        digest.hex(),
        base64.b64encode(digest).decode().rstrip("="),
    }
    if value.rstrip("=") in forms or value.lower() in forms or value.upper().rstrip("=") in forms:
        return True
    lengths = {len(f) for f in forms}
    return False if len(value.rstrip("=")) in lengths else None


def _record_to_row(
    rec: WarcRecord,
    index: int,
    *,
    name: str,
    skips: _Skips,
    max_page_bytes: int,
    max_body_bytes: int,
) -> dict[str, Any] | None:
    rtype = rec.rec_type
    if rtype in _SKIPPED_TYPES or rtype not in ("response", "resource", "conversion"):
        skips.add(f"{rtype or 'untyped'}_record")
        return None
    if rec.block is None:
        skips.add("record_too_large", f"{name}: offset {rec.offset}: record larger than the cap")
        return None
    uri = rec.target_uri
    # the record's notes name its target, or the record itself when it names none
    shown = uri or rec.headers.get("warc-record-id") or "(no WARC-Target-URI)"
    digest_ok = check_block_digest(rec.headers.get("warc-block-digest"), rec.block)
    if digest_ok is False:
        skips.add("warc_digest_mismatch", f"{name}: offset {rec.offset}: {shown}: the block does "
                  "not match its WARC-Block-Digest (damaged record): skipped")
        return None
    if digest_ok is None and rec.headers.get("warc-block-digest"):
        skips.add("warc_digest_unchecked", f"{name}: offset {rec.offset}: digest algorithm of "
                  f"{rec.headers['warc-block-digest'][:30]!r} unknown: not checked")
    if rtype == "resource" and not re.match(r"^https?://", uri or "", re.I):
        # Crawler logs and manifests (metadata://, urn:, file://) are not documents.
        skips.add("non_web_resource")
        return None
    warc_media = _media_type(rec.headers.get("content-type"))
    status: int | None = None
    http_ctype: str | None = None
    body = rec.block
    media = warc_media
    if rtype == "response":
        if not warc_media.startswith("application/http"):
            skips.add("non_http_response")
            return None
        parsed = _split_http(rec.block)
        if parsed is None:
            skips.add("bad_http_headers", f"{name}: offset {rec.offset}: {shown}: no HTTP status")
            return None
        status, http_headers, body = parsed
        if not 200 <= status < 300:
            skips.add("http_status_not_2xx")
            return None
        media = _media_type(http_headers.get("content-type"))
        http_ctype = http_headers.get("content-type")
        if "chunked" in http_headers.get("transfer-encoding", "").lower():
            try:
                body = dechunk(body)
            except ValueError:
                skips.counts["bad_chunked_body_kept_raw"] += 1
        encoding = http_headers.get("content-encoding")
        if encoding and encoding.strip().lower() != "identity":
            try:
                body = decode_body(body, encoding, max_bytes=max_body_bytes)
            except ContentTooLargeError:
                skips.add("decompressed_too_large", f"{name}: offset {rec.offset}: {shown}: body "
                          f"decodes past {max_body_bytes} bytes (decompression bomb?): skipped")
                return None
            except ContentDecodingError as exc:
                if not body[:256].lstrip().startswith(b"<"):
                    skips.add("bad_content_encoding",
                              f"{name}: offset {rec.offset}: {shown}: {exc}: skipped")
                    return None
                skips.counts["content_encoding_already_decoded"] += 1
    kind = "text" if rtype == "conversion" else _payload_kind(media, body)
    if kind is None:
        skips.add("non_text_payload")
        return None
    row: dict[str, Any] = {
        "_index": index,
        "_unit": "offset",  # its notes say where the record starts, as the reader's do
        "_number": rec.offset,
        "url": uri,
        "source_id": rec.headers.get("warc-record-id") if not uri else None,
        "fetched_at": parse_datetime(rec.headers.get("warc-date")),
        "http_status": status,
        "is_snippet_only": False,
    }
    if kind == "html":
        page = extract_html(body, url=uri, max_bytes=max_page_bytes,
                            content_type=http_ctype if rtype == "response" else
                            rec.headers.get("content-type"))
        if page is None:
            skips.add("empty_extraction", f"{name}: offset {rec.offset}: {shown}: trafilatura "
                      "found no main text: skipped")
            return None
        note_page_repairs(page, f"{name}: offset {rec.offset}: {shown}", skips.add,
                          max_page_bytes=max_page_bytes)
        row.update(
            text=page.text,
            title=page.title,
            author=page.author,
            published_at=page.published_at,
            published_at_raw=page.published_at_raw,
            lang=page.lang,
        )
    else:
        text, replaced = decode_bytes(body[:max_page_bytes])
        if replaced:  # the batch's first such record is noted, where it is
            skips.add("non_utf8_text", None if skips.counts["non_utf8_text"]
                      else non_utf8_note(f"{name}: offset {rec.offset}: {shown}"))
        lang = rec.headers.get("warc-identified-content-language", "").split(",")[0].strip()
        row.update(text=clean_text(text), lang=lang or None)
    return row


def read_warc(
    path: str | Path,
    *,
    batch_rows: int = DEFAULT_BATCH_ROWS,
    max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
) -> Iterator[IngestBatch]:
    """Stream a WARC or WET file (plain or gzipped) as document batches.

    Args:
        path: The ``.warc``, ``.warc.gz``, ``.wet`` or ``.wet.gz`` file.
        batch_rows: Documents per yielded batch; must be > 0.
        max_page_bytes: Bytes of a payload passed to extraction (HTML) or kept (text);
            default 2 MiB (see :data:`affidavit.tasks.extract.DEFAULT_MAX_PAGE_BYTES`).
        max_body_bytes: Cap on a decoded HTTP body; past it the record is skipped.
        max_record_bytes: Cap on a record block read into memory.

    Yields:
        :class:`~affidavit.tasks.ingest_common.IngestBatch` objects (``source_kind="archive"``); a
        file
        with no document yields one empty batch carrying its skip counts.

    Raises:
        ValueError: When ``batch_rows`` or a cap is not positive.
        FileNotFoundError: When the file does not exist.
    """
    if batch_rows <= 0 or max_page_bytes <= 0 or max_body_bytes <= 0 or max_record_bytes <= 0:
        raise ValueError("batch_rows and the byte caps must be positive")
    p = Path(path)
    name = str(path)  # notes name the file as the user gave it, as its rows' notes do
    rows: list[dict[str, Any]] = []
    skips = _Skips(rows)
    yielded = False

    def flush() -> IngestBatch:
        batch = rows_to_documents(rows, source_kind=SourceKind.ARCHIVE.value, source_path=str(p),
                                  notes=skips.messages)
        batch.skips.update(skips.counts)
        rows.clear()
        skips.counts.clear()
        skips.messages.clear()
        return batch

    with _open(p) as stream:
        records = iter_warc_records(stream, name=name, skips=skips,
                                    max_record_bytes=max_record_bytes)
        index = 0
        while True:
            try:
                rec = next(records)
            except StopIteration:
                error = getattr(stream, "error", None)
                if error is not None:
                    skips.add("truncated_file", f"{name}: {error} after record {index}: stopped")
                break
            except (EOFError, OSError, zlib.error) as exc:
                # gzip.BadGzipFile is an OSError; a truncated gzip stream raises EOFError.
                skips.add("truncated_file", f"{name}: compressed stream broken after record "
                          f"{index} ({exc}): stopped")
                break
            try:
                row = _record_to_row(rec, index, name=name, skips=skips,
                                     max_page_bytes=max_page_bytes, max_body_bytes=max_body_bytes)
            except Exception as exc:  # noqa: BLE001 - one bad record must not lose the batch
                skips.add("record_error", f"{name}: offset {rec.offset}: {exc!r}: skipped")
                row = None
            index += 1
            if row is not None:
                rows.append(row)
            if len(rows) >= batch_rows:
                yield flush()
                yielded = True
    if index == 0 and not skips.counts:
        skips.add("empty_file", f"{name}: no WARC record at all (empty file): refused")
    if rows or skips.counts or not yielded:
        yield flush()
