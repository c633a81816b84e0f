"""Read RSS 0.9x/1.0/2.0 and Atom feeds (feedparser) and JSON Feed 1.0/1.1 (json) as documents.

Each entry becomes one ``documents`` row with ``source_kind="feed"`` and
``is_snippet_only=True`` (the linked page is not fetched here): its text is the entry's content,
else its summary, with HTML stripped to text. Facts that shape this module (feedparser 6.0.14,
measured on this project's machine):

* ``feedparser.parse`` opens a string that looks like a path or URL itself, and even tries
  ``open()`` on bytes (feedparser 6.0.14, ``api._open_resource``), so it is only ever handed a
  file object (``io.BytesIO``).
* Its fallback parser expands entity declarations (a 1 GB entity took 44 s and 2.9 GB), so a
  document with a DTD internal subset or an ``<!ENTITY`` declaration is refused before parsing
  (skip ``"xml_entity_declaration"``).
* It reads no JSON Feed at all: JSON Feed is parsed with :mod:`json`.
* It turns some unusual dates into wrong ones silently (``2016/6/29`` → the 1st of the current
  month). The raw string is kept in ``published_at_raw``; the date is parsed strictly by
  :func:`~affidavit.tasks.ingest_common.parse_datetime`, and feedparser's own parse is used only
  when the
  raw string contains its year, month and day.
"""

from __future__ import annotations

import bisect
import calendar
import io
import re
import time
import zlib
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from affidavit.schemas.enums import SourceKind
from affidavit.tasks.charset import decode_document, set_xml_declared_encoding
from affidavit.tasks.extract import html_to_text
from affidavit.tasks.ingest_common import (
    IngestBatch,
    _short,
    _zone_is_known,
    decode_bytes,
    empty_batch,
    non_utf8_line,
    non_utf8_note,
    parse_datetime,
    rows_to_documents,
)
from affidavit.tasks.input_checks import (
    html_page_feed_fault,
    json_feed_fault,
    looks_like_html_page,
    plain_text_feed_fault,
)
from affidavit.tasks.sanitize import (
    SNIFF_CHARS,
    UntrustedJSONError,
    find_lone_surrogate,
    json_type_name,
    loads_untrusted_json,
)

if TYPE_CHECKING:
    from affidavit.tasks.fetch import Fetcher, FetchResult

__all__ = [
    "MAX_FEED_BYTES",
    "FeedRefusedError",
    "load_feed",
    "load_url",
    "looks_like_html_page",
    "parse_feed",
    "read_fetched",
]

MAX_FEED_BYTES = 50 * 1024 * 1024
"""Largest feed read (bytes, after decompression). The largest real feed in the project's test
data is 630 KB (lanacion.xml, 100 entries); 50 MiB leaves two orders of magnitude of room."""

_ENTITY_RE = re.compile(rb"<!ENTITY", re.I)
_DOCTYPE_SUBSET_RE = re.compile(rb"<!DOCTYPE[^>\[]*\[", re.I)
_HTML_HINT_RE = re.compile(r"<[a-zA-Z/!][^>]*>|&[#a-zA-Z0-9]+;")
_NUM_RE = re.compile(r"\d+")
_JSON_FEED_VERSION_RE = re.compile(r"jsonfeed\.org/version/", re.I)


class FeedRefusedError(ValueError):
    """A feed was refused before parsing (entity declarations, too large)."""


def _utf16_to_utf8(data: bytes) -> bytes:
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return data.decode("utf-16").encode("utf-8")
        except UnicodeDecodeError:
            return data
    return data


def check_xml_safe(data: bytes) -> None:
    """Refuse XML that declares entities or has a DTD internal subset.

    A DOCTYPE that only names an external DTD (as RSS 0.91 feeds do) is accepted: no parser
    used here fetches it.

    Args:
        data: The document bytes.

    Raises:
        FeedRefusedError: On ``<!ENTITY`` or ``<!DOCTYPE ... [``.
    """
    probe = _utf16_to_utf8(data)
    if _ENTITY_RE.search(probe):
        raise FeedRefusedError("XML entity declaration (<!ENTITY) refused")
    if _DOCTYPE_SUBSET_RE.search(probe):
        raise FeedRefusedError("DTD internal subset (<!DOCTYPE ... [) refused")


def _struct_to_dt(st: time.struct_time | None) -> datetime | None:
    if not st:
        return None
    try:
        return datetime.fromtimestamp(calendar.timegm(st), tz=UTC)
    except (OverflowError, ValueError, OSError):
        return None


def _date_matches_raw(dt: datetime, raw: str) -> bool:
    """Whether ``raw`` holds ``dt``'s year, month (number or name) and day (±1 for zones)."""
    nums = {int(n) for n in _NUM_RE.findall(raw) if len(n) <= 4}
    if dt.year not in nums:
        return False
    low = raw.lower()
    month_ok = dt.month in nums or calendar.month_abbr[dt.month].lower() in low
    day_ok = bool({dt.day - 1, dt.day, dt.day + 1} & nums)
    return month_ok and day_ok


def feed_date(raw: str | None, parsed: time.struct_time | None) -> datetime | None:
    """Return the UTC time of a feed date: strict parse first, feedparser's only when it agrees.

    >>> import time
    >>> feed_date("2016/6/29", time.strptime("2026-11-01", "%Y-%m-%d")).date().isoformat()
    '2016-06-29'
    >>> feed_date("week 26 of 2016", time.strptime("2016-11-01", "%Y-%m-%d")) is None
    True
    """
    if not raw:
        return None
    dt = parse_datetime(raw)
    if dt is not None:
        return dt
    if not _zone_is_known(raw):
        return None  # "12:00 CEST": feedparser may read an unknown zone as UTC
    fp = _struct_to_dt(parsed)
    if fp is not None and _date_matches_raw(fp, raw):
        return fp
    return None


def _looks_like_html(value: str, mime: str | None) -> bool:
    if mime and ("html" in mime or "xml" in mime):
        return True
    return bool(_HTML_HINT_RE.search(value))


def _to_text(value: str | None, mime: str | None = None) -> str:
    if not value:
        return ""
    return html_to_text(value) if _looks_like_html(value, mime) else value.strip()


def _entry_text(entry: Any) -> str:
    contents = entry.get("content") or []
    best = ""
    for c in contents:
        t = _to_text(c.get("value"), c.get("type"))
        if len(t) > len(best):
            best = t
    if best:
        return best
    detail = entry.get("summary_detail") or {}
    return _to_text(entry.get("summary"), detail.get("type"))


def _plain(value: str | None) -> str | None:
    if not value:
        return None
    t = html_to_text(value) if _HTML_HINT_RE.search(value) else value.strip()
    return t or None


_ESCAPED_CDATA_RE = re.compile(r"&lt;!\[CDATA\[(.*?)\]\]&gt;", re.S)


def _normalize_xml(data: bytes, source: str, batch: IngestBatch,
                   content_type: str | None) -> bytes:
    """Decode a feed by header, BOM, then XML declaration; unwrap XML-escaped CDATA markers.

    The feed is handed to feedparser as UTF-8 with a matching declaration, so that one invalid
    byte stays one U+FFFD instead of feedparser re-reading the whole feed in another code page.
    ``&lt;![CDATA[ … ]]&gt;`` (CDATA markers escaped by the publisher) is unwrapped to its
    content, which feedparser's sanitiser would otherwise drop whole (feedparser issue 440).
    """
    dec = decode_document(data, content_type=content_type, kind="xml")
    text = dec.text
    if dec.n_replaced:
        batch.add_skip("replacement_chars", f"{source}: {dec.n_replaced} byte sequence(s) not "
                       f"valid {dec.encoding} replaced by U+FFFD", n=dec.n_replaced)
    if dec.declared_wrong:
        said = "declared UTF-8" if dec.source != "default" else "no encoding declared"
        batch.add_skip("charset_declared_wrong", f"{source}: {said}, but not UTF-8 (a "
                       "single-byte code page): read as windows-1252")
    text, n_cdata = _ESCAPED_CDATA_RE.subn(lambda m: m.group(1), text)
    if n_cdata:
        batch.add_skip("escaped_cdata_unwrapped", f"{source}: {n_cdata} XML-escaped CDATA "
                       "section(s) unwrapped", n=n_cdata)
    return set_xml_declared_encoding(text, "utf-8").encode("utf-8", "surrogatepass")


def _parse_xml_feed(data: bytes, source: str, batch: IngestBatch) -> list[dict[str, Any]]:
    import feedparser

    parsed = feedparser.parse(io.BytesIO(data))  # a file object: never opened as a path/URL
    entries = parsed.get("entries") or []
    bozo_exc = parsed.get("bozo_exception") if parsed.get("bozo") else None
    if bozo_exc is not None and not isinstance(bozo_exc, feedparser.CharacterEncodingOverride):
        where = ""
        if hasattr(bozo_exc, "getLineNumber"):
            where = f" at line {bozo_exc.getLineNumber()}"
        if not any(_entry_text(e) for e in entries):
            if fault := plain_text_feed_fault(data[:SNIFF_CHARS].decode("utf-8", "replace"),
                                              source):  # no markup at all: said as what it is
                batch.add_skip("not_a_feed", f"{fault}: refused")
                return []
            batch.add_skip(
                "malformed_feed", f"{source}: not well-formed XML{where} ({bozo_exc}): skipped"
            )
            return []
        batch.skips["malformed_feed_recovered"] += 1
        batch.messages.append(
            f"{source}: not well-formed XML{where}: {len(entries)} entries recovered leniently"
        )
    if not entries:
        if not parsed.get("version"):
            batch.add_skip("not_a_feed", f"{source}: no RSS, Atom or RDF feed found: refused")
        return []
    feed = parsed.get("feed") or {}
    feed_lang = feed.get("language") or None
    feed_author = feed.get("author") or None
    rows = []
    for i, e in enumerate(entries):
        said = len(batch.messages)
        raw_pub = e.get("published") or e.get("updated") or e.get("created") or None
        pub_struct = (
            e.get("published_parsed") if e.get("published") else
            e.get("updated_parsed") if e.get("updated") else e.get("created_parsed")
        )  # fmt: skip
        raw_mod = e.get("updated") if e.get("published") else None
        if raw_mod == raw_pub:  # feedparser mirrors an RSS pubDate into "updated"
            raw_mod = None
        detail = (e.get("content") or [{}])[0] if e.get("content") else e.get("summary_detail")
        title = _plain(e.get("title"))
        text = _entry_text(e)
        if not text and title:
            text = title
            batch.add_skip("title_only_entry", f"{source}: item {i + 1}: no description: its title "
                           "is kept as its text")
        published = feed_date(raw_pub, pub_struct)
        modified = feed_date(raw_mod, e.get("updated_parsed")) if raw_mod else None
        for raw, got in ((raw_pub, published), (raw_mod, modified)):
            if raw and got is None:  # stored as NULL, counted as dumps count it
                batch.add_skip("date_untrusted", f"{source}: item {i + 1}: date {_short(raw)} "
                               "cannot be trusted (an unknown zone, or not a date): stored as "
                               "NULL")
        rows.append(
            {
                "_index": i,
                "_number": i + 1,
                "_unit": "item",
                "_said": (said, len(batch.messages)),
                "url": e.get("link") or None,
                "source_id": e.get("id") or None,
                "title": title,
                "author": e.get("author") or feed_author,
                "published_at": published,
                "published_at_raw": raw_pub,
                "modified_at": modified,
                "lang": (detail or {}).get("language") or feed_lang,
                "text": text,
                "is_snippet_only": True,
            }
        )
    return rows


def _json_author(obj: dict[str, Any]) -> str | None:
    authors = obj.get("authors")
    if isinstance(authors, list):
        names = [a.get("name") for a in authors if isinstance(a, dict) and a.get("name")]
        if names:
            return ", ".join(str(n) for n in names)
    author = obj.get("author")
    if isinstance(author, dict) and author.get("name"):
        return str(author["name"])
    return None


_JSON_TEXT_FIELDS = ("title", "content_text", "content_html", "summary", "url", "external_url",
                     "date_published", "date_modified", "date_updated", "language")
"""Item fields JSON Feed 1.1 defines as strings (jsonfeed.org/version/1.1): another type is
ignored and counted (``wrong_type_field``)."""


def _str_or_none(v: Any) -> str | None:
    return v if isinstance(v, str) and v.strip() else None


def _parse_json_feed(data: bytes, source: str, batch: IngestBatch) -> list[dict[str, Any]]:
    text, replaced = decode_bytes(data)
    if replaced:
        batch.add_skip("non_utf8_text", non_utf8_note(f"{source}: line {non_utf8_line(data)}"))
    if fault := json_feed_fault(text, source):  # JSON Lines, a list of records: said as such
        batch.add_skip("not_a_feed", f"{fault}: refused")  # the whole input
        return []
    try:
        # control characters inside strings are common: allowed here, stripped per field later
        obj = loads_untrusted_json(text)
    except UntrustedJSONError as exc:
        batch.add_skip("malformed_feed", f"{source}: {exc}: refused")
        return []
    if not _JSON_FEED_VERSION_RE.search(str(obj.get("version", ""))):
        batch.messages.append(f"{source}: JSON Feed without a jsonfeed.org version: read anyway")
    feed_author = _json_author(obj)
    feed_lang = _str_or_none(obj.get("language"))
    rows = []
    for i, item in enumerate(obj["items"]):
        said = len(batch.messages)
        if not isinstance(item, dict):
            batch.add_skip("not_an_object", f"{source}: item {i + 1} is not an object: skipped")
            continue
        if find_lone_surrogate(item):
            batch.add_skip("lone_surrogate", f"{source}: item {i + 1}: a string holds a lone "
                           "UTF-16 surrogate: skipped")
            continue
        wrong = [k for k in _JSON_TEXT_FIELDS
                 if item.get(k) is not None and not isinstance(item[k], str)]
        if wrong:
            batch.add_skip("wrong_type_field", f"{source}: item {i + 1}: "
                           + ", ".join(f"{k} is {json_type_name(item[k])}" for k in wrong)
                           + ", not text: ignored")
        # the fuller body wins: a short content_text often sits beside the whole content_html
        # (feedparser issue 558)
        plain = _str_or_none(item.get("content_text")) or ""
        html = _str_or_none(item.get("content_html"))
        html_text = html_to_text(html) if html else ""
        body = html_text if len(html_text) > len(plain.strip()) else plain
        if not body:
            body = _to_text(_str_or_none(item.get("summary")))
        title = _plain(_str_or_none(item.get("title")))
        if not body and title:
            body = title
            batch.add_skip("title_only_entry", f"{source}: item {i + 1}: no content: its title is "
                           "kept as its text")
        raw_pub = _str_or_none(item.get("date_published"))
        # JSON Feed 1.1 names it date_modified; some feeds write date_updated
        raw_mod = _str_or_none(item.get("date_modified")) or _str_or_none(
            item.get("date_updated"))
        item_id = item.get("id")
        published = parse_datetime(raw_pub) if raw_pub else None
        modified = parse_datetime(raw_mod) if raw_mod else None
        for raw, got in ((raw_pub, published), (raw_mod, modified)):
            if raw and got is None:
                batch.add_skip("date_untrusted", f"{source}: item {i + 1}: date {_short(raw)} "
                               "cannot be trusted (not an RFC 3339 time): stored as NULL")
        rows.append(
            {
                "_index": i,
                "_number": i + 1,
                "_unit": "item",
                "_said": (said, len(batch.messages)),
                "url": _str_or_none(item.get("url")) or _str_or_none(item.get("external_url")),
                "source_id": str(item_id) if item_id not in (None, "") else None,
                "title": title,
                "author": _json_author(item) or feed_author,
                "published_at": published,
                "published_at_raw": raw_pub,
                "modified_at": modified,
                "lang": _str_or_none(item.get("language")) or feed_lang,
                "text": body,
                "is_snippet_only": True,
            }
        )
    return rows


def parse_feed(data: bytes, *, source: str, fetched_at: datetime | None = None,
               content_type: str | None = None) -> IngestBatch:
    """Parse one feed document (RSS, Atom, RDF or JSON Feed) into a ``documents`` batch.

    Never raises on bad input: a malformed, refused or empty feed gives an empty batch with the
    skip counted and a message (``"malformed_feed"``, ``"not_a_feed"`` (an HTML page among
    them, :func:`affidavit.tasks.input_checks.html_page_feed_fault`),
    ``"xml_entity_declaration"``, ``"too_large"``, ``"empty_feed"``). XML that is not
    well-formed but from which feedparser's lenient parser recovers entries is kept, counted
    ``"malformed_feed_recovered"``.

    Args:
        data: The feed bytes (gzip-compressed bytes are decompressed, capped at
            :data:`MAX_FEED_BYTES`).
        source: Path or URL of the feed, stored in ``source_path`` and used in messages.
        fetched_at: When the feed was fetched (UTC), if known; stored in ``fetched_at``.
        content_type: The HTTP ``Content-Type`` of a fetched feed; its charset comes first
            (:func:`affidavit.tasks.charset.decode_document`).

    Returns:
        An :class:`~affidavit.tasks.ingest_common.IngestBatch`; one row per entry with text
        (``source_kind="feed"``, ``is_snippet_only=True``).
    """
    batch = empty_batch()
    if data[:2] == b"\x1f\x8b":
        try:
            d = zlib.decompressobj(wbits=31)
            data = d.decompress(data, MAX_FEED_BYTES + 1)
        except zlib.error as exc:
            batch.add_skip("malformed_feed", f"{source}: bad gzip data ({exc}): skipped")
            return batch
        if not d.eof and len(data) <= MAX_FEED_BYTES:
            batch.add_skip("malformed_feed", f"{source}: truncated gzip data: skipped")
            return batch
    if len(data) > MAX_FEED_BYTES:
        batch.add_skip("too_large", f"{source}: feed larger than {MAX_FEED_BYTES} bytes: skipped")
        return batch
    stripped = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if not stripped:
        batch.add_skip("empty_feed", f"{source}: empty document: skipped")
        return batch
    if fault := html_page_feed_fault(stripped, source, content_type):  # a file or a URL's page
        batch.add_skip("not_a_feed", f"{fault}: refused")
        return batch
    try:
        if stripped[:1] in (b"{", b"["):
            rows = _parse_json_feed(stripped, source, batch)
        else:
            check_xml_safe(data)
            rows = _parse_xml_feed(_normalize_xml(data, source, batch, content_type), source,
                                   batch)
    except FeedRefusedError as exc:
        batch.add_skip("xml_entity_declaration", f"{source}: {exc}: skipped")
        return batch
    except Exception as exc:  # noqa: BLE001 - a bad feed is a counted skip, never a crash
        batch.add_skip("feed_error", f"{source}: cannot be read ({exc!r}): skipped")
        return batch
    if not rows and not batch.skips:  # a well-formed feed of no entry: said, not "0 read"
        batch.messages.append(f"{source}: the feed holds no items (no entry to read)")
    for r in rows:
        r["fetched_at"] = fetched_at
    notes = _notes_in_item_order(batch.messages, [r.pop("_said", None) for r in rows])
    out = rows_to_documents(rows, source_kind=SourceKind.FEED.value, source_path=source,
                            notes=notes)
    out.skips.update(batch.skips)
    return out


def _notes_in_item_order(
    messages: list[str], said: list[tuple[int, int] | None]
) -> list[tuple[int, str]]:
    """Place a feed parser's notes among its items' own (``rows_to_documents``' ``notes``).

    Args:
        messages: The parser's notes, in the order it said them (items in feed order).
        said: For each kept item, the range of ``messages`` said while it was parsed.

    Returns:
        ``(k, note)`` pairs: a note said while kept item ``k`` was parsed comes before that
        item's own notes, and one about an item skipped after it comes after them.

    >>> _notes_in_item_order(["a", "b", "c"], [(0, 1), (2, 2)])
    [(0, 'a'), (1, 'b'), (2, 'c')]
    """
    ends = [e for _, e in (x for x in said if x is not None)]
    starts = [s for s, _ in (x for x in said if x is not None)]
    out = []
    for m, msg in enumerate(messages):
        k = bisect.bisect_right(starts, m) - 1  # the last kept item started at or before m
        out.append((k if k >= 0 and m < ends[k] else bisect.bisect_right(ends, m), msg))
    return out


def load_feed(
    source: str,
    *,
    fetcher: Fetcher | None = None,
    now: datetime | None = None,
) -> IngestBatch:
    """Read a feed from a local path or an http(s) URL and parse it with :func:`parse_feed`.

    URLs go through the guarded :class:`affidavit.tasks.fetch.Fetcher` (address guard, robots.txt,
    byte
    cap, retries). A fetch failure gives an empty batch with ``"fetch_failed"`` counted.

    Args:
        source: A path or an ``http://`` / ``https://`` URL.
        fetcher: The fetcher for URLs; a default ``Fetcher()`` when None.
        now: Fetch time to record in ``fetched_at`` for URLs (UTC); None leaves it null.

    Returns:
        An :class:`~affidavit.tasks.ingest_common.IngestBatch`.

    Raises:
        FileNotFoundError: When a local path does not exist.
    """
    if re.match(r"^https?://", source, re.I):
        from affidavit.tasks.fetch import Fetcher, strip_credentials

        source = strip_credentials(source)
        fetcher = fetcher or Fetcher()
        result = fetcher.fetch(source)
        if result.error is not None or result.status is None or not 200 <= result.status < 300:
            batch = empty_batch()
            reason = result.error or f"HTTP {result.status}"
            batch.add_skip("fetch_failed", f"{source}: fetch failed ({reason}): skipped")
            return batch
        return parse_feed(result.content, source=source, fetched_at=now,
                          content_type=result.headers.get("content-type"))
    path = Path(source)
    size = path.stat().st_size
    if size > MAX_FEED_BYTES:
        batch = empty_batch()
        batch.add_skip("too_large", f"{source}: {size} bytes > {MAX_FEED_BYTES}: skipped")
        return batch
    with path.open("rb") as fh:
        data = fh.read()
    return parse_feed(data, source=source)


def load_url(
    url: str,
    *,
    fetcher: Fetcher | None = None,
    now: datetime | None = None,
) -> IngestBatch:
    """Fetch one http(s) URL and read it as a feed, or as a web page when it is HTML.

    A feed gives one snippet-only document per entry (:func:`parse_feed`); an HTML page gives
    one ``source_kind="web"`` document from :func:`affidavit.tasks.extract.extract_html` (an empty
    extraction is counted ``"empty_extraction"``). A fetch failure is counted
    ``"fetch_failed"``.

    Args:
        url: An ``http://`` or ``https://`` URL.
        fetcher: The guarded fetcher; a default ``Fetcher()`` when None.
        now: Fetch time to record in ``fetched_at`` (UTC); None leaves it null.

    Returns:
        An :class:`~affidavit.tasks.ingest_common.IngestBatch`.
    """
    from affidavit.tasks.fetch import Fetcher

    fetcher = fetcher or Fetcher()
    return read_fetched(fetcher.fetch(url), now=now)


def read_fetched(result: FetchResult, *, now: datetime | None = None,
                 pages: bool = True) -> IngestBatch:
    """Read a fetched body as a feed, or as a web page when it is HTML (see :func:`load_url`).

    Args:
        result: The fetch; one that failed (or is not 2xx) gives an empty batch with
            ``"fetch_failed"`` counted.
        now: Fetch time to record in ``fetched_at`` (UTC); None leaves it null.
        pages: Whether an HTML page is read as one web document (``backfill URL``); when
            False (a feed URL of ``run --feed``) it is refused as not a feed (``"not_a_feed"``),
            as a local HTML file given as a feed is.

    Returns:
        An :class:`~affidavit.tasks.ingest_common.IngestBatch` (``source_path`` is the URL
        asked for, credentials stripped).
    """
    from affidavit.tasks.extract import extract_html, note_page_repairs

    url = result.url
    if not result.ok:
        batch = empty_batch()
        reason = result.error or f"HTTP {result.status}"
        batch.add_skip("fetch_failed", f"{url}: fetch failed ({reason}): skipped")
        return batch
    ctype = result.headers.get("content-type")
    if not pages or not looks_like_html_page(result.content, ctype):
        return parse_feed(result.content, source=url, fetched_at=now, content_type=ctype)
    page = extract_html(result.content, url=result.final_url, content_type=ctype)
    if page is None:
        batch = empty_batch()
        batch.add_skip("empty_extraction", f"{url}: no main text found in the page: skipped")
        return batch
    row = {
        "url": result.final_url,
        "title": page.title,
        "author": page.author,
        "published_at": page.published_at,
        "published_at_raw": page.published_at_raw,
        "lang": page.lang,
        "text": page.text,
        "fetched_at": now,
        "http_status": result.status,
    }
    out = rows_to_documents([row], source_kind=SourceKind.WEB.value, source_path=url)
    note_page_repairs(page, url, out.add_skip)
    return out
