"""Shared pieces of the ingest stage: the batch type, row → ``documents`` conversion, dates.

Every reader (feeds, archives, dumps) produces plain row dicts and hands them to
:func:`rows_to_documents`, which fills the ids, hashes, canonical URL and host, cleans the text
and returns an :class:`IngestBatch` whose table has exactly
``affidavit.schemas.documents.DOCUMENTS_SCHEMA``.
Nothing is dropped silently: every skipped row or record is counted in ``IngestBatch.skips``
under a reason, with a human-readable line in ``IngestBatch.messages`` where it helps.
"""

from __future__ import annotations

import re
from collections import Counter, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from affidavit.schemas.documents import DOCUMENTS_SCHEMA, content_sha256, make_doc_id
from affidavit.schemas.enums import SourceKind
from affidavit.tasks.sanitize import json_type_name, strip_control_chars
from affidavit.tasks.urls import canonicalize_url, host_of

if TYPE_CHECKING:
    pass

__all__ = [
    "ColumnMapping",
    "IdRepeats",
    "IngestBatch",
    "IngestTally",
    "MAX_MESSAGES",
    "REPAIRS",
    "decode_bytes",
    "empty_batch",
    "merge_batches",
    "non_utf8_line",
    "non_utf8_note",
    "parse_datetime",
    "rows_to_documents",
]

MAX_MESSAGES = 200
"""Messages kept per batch; further skips are still counted (a file with 10^5 bad lines must not
carry 10^5 strings)."""

REPAIRS = frozenset({"non_utf8_text", "nul_removed", "malformed_feed_recovered",
                     "bad_chunked_body_kept_raw", "content_encoding_already_decoded",
                     "text_truncated", "control_chars_removed", "date_untrusted",
                     "replacement_chars", "escaped_cdata_unwrapped", "title_only_entry",
                     "page_truncated", "charset_declared_wrong", "warc_digest_unchecked",
                     "warc_version_unknown", "content_html_preferred", "wrong_type_field",
                     "id_repeated_other_text"})
"""Ingest counters that record a repair or a warning about a row that was kept, not a skip."""

_TS_COLUMNS = ("published_at", "modified_at", "wayback_first_seen", "fetched_at")
_STR_COLUMNS = ("url", "source_id", "title", "author", "published_at_raw", "lang", "host")
_NUL_RE = re.compile("\x00")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


@dataclass
class IngestBatch:
    """Documents read from one source (or one slice of it), with what was skipped and why.

    Attributes:
        documents: Table with exactly ``DOCUMENTS_SCHEMA``; one row per distinct document
            version in the batch (``doc_id`` unique within the batch); ``ingest_run_id`` null.
        skips: Reason → number of rows or records skipped (e.g. ``"empty_text"``,
            ``"bad_json_line"``, ``"revisit_record"``). Counts of repaired input (e.g.
            ``"non_utf8_text"``, rows kept after replacement decoding) are kept here too.
        messages: Human-readable lines, e.g. ``"feed.xml: not well-formed XML at line 12:
            skipped"``; at most :data:`MAX_MESSAGES`.
    """

    documents: pa.Table
    skips: Counter[str] = field(default_factory=Counter)
    messages: list[str] = field(default_factory=list)

    def add_skip(self, reason: str, message: str | None = None, *, n: int = 1) -> None:
        """Count ``n`` skips under ``reason`` and keep ``message`` (while under the cap)."""
        self.skips[reason] += n
        if message is not None and len(self.messages) < MAX_MESSAGES:
            self.messages.append(message)

    @property
    def n_documents(self) -> int:
        """Number of document rows."""
        return self.documents.num_rows


def empty_batch() -> IngestBatch:
    """Return a batch with no documents (an empty table of ``DOCUMENTS_SCHEMA``)."""
    return IngestBatch(documents=DOCUMENTS_SCHEMA.empty_table())


def merge_batches(batches: Iterable[IngestBatch]) -> IngestBatch:
    """Concatenate batches: tables, skip counters and messages (capped)."""
    out = empty_batch()
    tables = [out.documents]
    for b in batches:
        tables.append(b.documents)
        out.skips.update(b.skips)
        room = MAX_MESSAGES - len(out.messages)
        if room > 0:
            out.messages.extend(b.messages[:room])
    out.documents = pa.concat_tables(tables)
    return out


@dataclass
class IngestTally:
    """What reading a list of inputs skipped, repaired and refused, one input after another.

    ``backfill`` (``affidavit.flows.stages.ingest_sources``) and ``origins``
    (``affidavit.flows.reads.load_documents``) count alike through it, so both report the same
    counts and notes for the same inputs.

    Attributes:
        counts: ``skip:<reason>`` (rows skipped), ``repaired:<reason>`` (rows kept, repaired or
            warned about: :data:`REPAIRS`), ``documents_read``, ``sources_refused`` (inputs
            nothing came out of), ``skip:repeats_earlier_input`` (documents read again from a
            later input of the same list: the same file given twice, or a gzip copy of it;
            read, not stored again).
        messages: The notes, input by input.

    Memory: one entry per distinct document read (its ``doc_id`` and the input it came from),
    about 150 bytes in CPython: 150 MB for a backfill of a million documents.
    """

    counts: Counter[str] = field(default_factory=Counter)
    messages: list[str] = field(default_factory=list)
    _skips: Counter[str] = field(default_factory=Counter, init=False, repr=False)
    _n_read: int = field(default=0, init=False, repr=False)
    _said_refused: bool = field(default=False, init=False, repr=False)
    _sources: list[str] = field(default_factory=list, init=False, repr=False)
    _first_input: dict[str, int] = field(default_factory=dict, init=False, repr=False)
    _repeats: Counter[int] = field(default_factory=Counter, init=False, repr=False)

    def begin(self, source: str = "") -> None:
        """Start counting the next input (``source``, as the user gave it, names it in notes)."""
        self._skips, self._n_read, self._said_refused = Counter(), 0, False
        self._sources.append(source)
        self._repeats = Counter()  # earlier input → documents of this one it gave first

    def add(self, batch: IngestBatch) -> None:
        """Count a batch of the current input: its documents, skips, repairs and notes."""
        self.counts.update({(f"repaired:{k}" if k in REPAIRS else f"skip:{k}"): v
                            for k, v in batch.skips.items()})
        self._skips.update({k: v for k, v in batch.skips.items() if k not in REPAIRS})
        self.messages.extend(batch.messages)
        # the reader refused the whole input with its reason ("empty file (no rows): refused")
        self._said_refused |= any(m.endswith(": refused") for m in batch.messages)
        self.counts["documents_read"] += batch.n_documents
        self._n_read += batch.n_documents
        current = len(self._sources) - 1
        for doc_id in batch.documents.column("doc_id").to_pylist():
            first = self._first_input.setdefault(doc_id, current)
            if first != current:
                self._repeats[first] += 1

    def end(self, source: str, failure: str | None) -> None:
        """Close the current input; ``failure`` says why it could not be read, if it could not.

        A failure is counted ``skip:source_unreadable`` with a note naming the input (the
        reader's text, without the file name it may start with). An input nothing came out
        of is counted in ``sources_refused``; when every record of it was skipped, a note says
        so with the skips (unless the reader's own note refused the input as a whole).
        """
        if failure is not None:
            self.counts["skip:source_unreadable"] += 1
            name = source.rsplit("/", 1)[-1]
            if failure.startswith((source, name)):  # the reader's message names the file
                failure = failure.split(": ", 1)[1] if ": " in failure else failure
            if not failure.endswith(("skipped", "refused")):
                failure += ": refused"
            self.messages.append(f"{source}: {failure}")
        if n_repeated := sum(self._repeats.values()):
            self.counts["skip:repeats_earlier_input"] += n_repeated
            earlier = ", ".join(self._sources[i] for i, _ in self._repeats.most_common(3))
            more = " and others" if len(self._repeats) > 3 else ""
            self.messages.append(
                f"{source}: {n_repeated} of its {self._n_read} document(s) repeat documents of "
                f"{earlier}{more}, read before in this run (the same file given twice?): "
                "counted once")
        if self._n_read == 0 and (failure is not None or self._skips):
            # nothing at all came out of this input: it is refused, and the command says so
            self.counts["sources_refused"] += 1
            if failure is None and not self._said_refused:  # every record skipped: say why
                why = ", ".join(f"{k} {v}" for k, v in self._skips.most_common())
                self.messages.append(f"{source}: refused: no record of it held a document "
                                     f"(skipped: {why})")


class IdRepeats:
    """The source ids of one input seen so far, to count an id given again with other text.

    Such rows are different documents (``doc_id`` hashes the text too), so both are kept as
    versions; the reader says so, where it first happens, and counts them
    (``id_repeated_other_text``), instead of saying nothing.

    Memory: one entry per distinct id of the input (a 16-character prefix of its text's
    SHA-256 and where it was first seen), about 200 bytes in CPython: 200 MB for a dump of a
    million ids.

    Attributes:
        n: Rows whose id was given before with other text.
    """

    def __init__(self) -> None:
        self._first: dict[str, tuple[str, str]] = {}
        self.n = 0

    def see(self, source_id: str, sha: str, at: str) -> str | None:
        """Record an id with its text's hash; say where it was first, when that had other text.

        >>> r = IdRepeats()
        >>> r.see("7", "aa" * 32, "line 1"), r.see("7", "aa" * 32, "line 2")
        (None, None)
        >>> r.see("7", "bb" * 32, "line 3"), r.n
        ('line 1', 1)
        """
        first = self._first.setdefault(source_id, (sha[:16], at))
        if first[0] == sha[:16]:
            return None
        self.n += 1
        return first[1]


@dataclass(frozen=True, slots=True)
class ColumnMapping:
    """Which source column holds each document field, for dumps (JSONL / JSON / Parquet / CSV).

    A field whose column is missing from the source is left null. ``id`` fills ``source_id``.
    ``wayback_first_seen`` is the first archive capture of the page (an upper bound on its
    publication time); lineage orders edges by ``min(published_at, wayback_first_seen)``, so a
    re-dated page is still seen as the origin.
    """

    id: str = "id"
    url: str = "url"
    title: str = "title"
    text: str = "text"
    published_at: str = "published_at"
    author: str = "author"
    host: str = "host"
    wayback_first_seen: str = "wayback_first_seen"

    def as_dict(self) -> dict[str, str]:
        """Return ``{document field: source column}`` (``id`` is reported as ``source_id``)."""
        return {
            "source_id": self.id,
            "url": self.url,
            "title": self.title,
            "text": self.text,
            "published_at": self.published_at,
            "author": self.author,
            "host": self.host,
            "wayback_first_seen": self.wayback_first_seen,
        }


# --------------------------------------------------------------------------------------- dates

_MIN_YEAR, _MAX_YEAR = 1800, 2200
"""Years accepted by :func:`parse_datetime`; outside them a date is taken to be junk."""

_MONTH_NAMES = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
_YMD_RE = re.compile(
    r"^(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$"
)
_DMY_NAME_RE = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})$")
_MDY_NAME_RE = re.compile(r"^([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})$")
_ISO_SPACE_RE = re.compile(r"^\d{4}-\d{2}-\d{2} \d")


def arrow_rows(batch: pa.RecordBatch) -> list[dict[str, Any]]:
    """The rows of a record batch as dicts of Python values, as ``to_pylist`` gives them.

    A temporal column holding a value Python's ``datetime`` cannot (nanoseconds, as pandas
    writes them; a year past 9999) is read as its ISO strings instead, so that each of its dates
    meets the one date policy (:func:`parse_datetime`): kept to the microsecond, or an untrusted
    date of its row, stored as NULL and counted. pyarrow would refuse the whole batch.
    """
    try:
        return batch.to_pylist()
    except (ValueError, OverflowError):  # pa.ArrowInvalid is a ValueError
        pass
    columns: list[list[Any]] = []
    for column in batch.columns:
        try:
            columns.append(column.to_pylist())
        except (ValueError, OverflowError):
            if not pa.types.is_temporal(column.type):
                raise
            columns.append(column.cast(pa.string()).to_pylist())
    names = batch.schema.names
    return [dict(zip(names, values, strict=True)) for values in zip(*columns, strict=True)]


def _to_utc(dt: datetime) -> datetime | None:
    if dt.tzinfo is None or dt.tzinfo.utcoffset(dt) is None:
        dt = dt.replace(tzinfo=UTC)
    try:
        dt = dt.astimezone(UTC)
    except (OverflowError, ValueError):
        return None
    if not _MIN_YEAR <= dt.year <= _MAX_YEAR:
        return None
    return dt


def _month(name: str) -> int | None:
    low = name.lower().rstrip(".")
    if len(low) < 3:
        return None
    for i, full in enumerate(_MONTH_NAMES):
        if full.startswith(low) or (low == "sept" and i == 8):
            return i + 1
    return None


def _parse_str_datetime(s: str) -> datetime | None:
    s = s.strip()
    if not s or len(s) > 64:
        return None
    # ISO 8601 (Python 3.11 accepts "Z", offsets, "T" or " " separators, fractional seconds).
    if s[:4].isdigit() and (len(s) == 10 or (len(s) > 10 and s[10] in "T t")):
        iso = s.replace("z", "Z")
        try:
            return datetime.fromisoformat(iso[:10] + "T" + iso[11:] if len(iso) > 10 else iso)
        except ValueError:
            pass
    m = _YMD_RE.match(s)
    if m:
        try:
            hms = (int(m[5] or 0), int(m[6] or 0), int(m[7] or 0))
            return datetime(int(m[1]), int(m[3]), int(m[4]), *hms)
        except ValueError:
            return None
    if len(s) == 8 and s.isdigit():  # basic ISO 8601 date, 20240131
        try:
            return datetime(int(s[:4]), int(s[4:6]), int(s[6:]))
        except ValueError:
            return None
    for rx, order in ((_DMY_NAME_RE, "dmy"), (_MDY_NAME_RE, "mdy")):
        m = rx.match(s)
        if m:
            day, mon, year = (m[1], m[2], m[3]) if order == "dmy" else (m[2], m[1], m[3])
            month = _month(mon)
            if month is None:
                return None
            try:
                return datetime(int(year), month, int(day))
            except ValueError:
                return None
    # RFC 2822 / RFC 822 (RSS): "Tue, 10 Jun 2003 04:00:00 GMT", "10 Jun 2003 04:00 +0200".
    if re.search(r"[A-Za-z]{3}", s) and re.search(r"\d{1,2}:\d{2}", s):
        if not _zone_is_known(s):
            return None
        try:
            dt = parsedate_to_datetime(s)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if dt is None:
            return None
        # The year must be the string's own: email.utils turns "0001" into 2001 and maps
        # two-digit years; a four-digit year token must equal the parsed year.
        m = _RFC_YEAR_RE.search(s)
        if m is None:
            return None
        token = m.group(1)
        if len(token) == 4 and int(token) != dt.year:
            return None
        if len(token) not in (2, 4) or (len(token) == 2 and dt.year % 100 != int(token)):
            return None
        return dt
    return None


_RFC_YEAR_RE = re.compile(r"\b\d{1,2}\s+[A-Za-z]{3,9}\.?,?\s+(\d+)\b")
_ZONE_TOKEN_RE = re.compile(r"(?<![A-Za-z])([A-Z]{1,5})(?![A-Za-z])")
_KNOWN_ZONES = frozenset({"UT", "UTC", "GMT", "Z", "EST", "EDT", "CST", "CDT", "MST", "MDT",
                          "PST", "PDT"})
"""Zone names RFC 822 defines (section 5.1), besides numeric offsets. Any other abbreviation
("CEST", "IST", "BST") is ambiguous or unknown to ``email.utils``, which reads it as UTC; such a
date is refused rather than shifted by hours."""
_DAY_MONTH_NAMES = frozenset(
    "MON TUE WED THU FRI SAT SUN JAN FEB MAR APR MAY JUN JUL AUG SEP OCT NOV DEC AM PM T".split()
)


def _zone_is_known(s: str) -> bool:
    """Whether every capitalised zone-like token of ``s`` is a zone RFC 822 defines."""
    for tok in _ZONE_TOKEN_RE.findall(s):
        if tok in _DAY_MONTH_NAMES or tok in _KNOWN_ZONES:
            continue
        return False
    return True


def parse_datetime(value: Any) -> datetime | None:
    """Parse a date or timestamp strictly into a tz-aware UTC ``datetime``; None when unsure.

    Accepted: ``datetime`` (naive taken as UTC) and ``date`` (midnight UTC); ISO 8601 strings
    (``2016-06-29``, ``2016-06-29T10:00:00Z``, ``2016-06-29 10:00:00+02:00``); ``YYYY/M/D``
    with an optional ``H:MM[:SS]`` (no zone: UTC);
    ``YYYYMMDD``; ``29 June 2016``; ``June 29, 2016``; RFC 2822 with a time (RSS
    ``pubDate``; an unknown zone name is taken as UTC, as ``email.utils`` does); Unix epoch
    seconds as int/float (milliseconds when above 10^11), after the epoch: 0 and a negative
    number are far more often a placeholder for "no date" than a date. Anything else (an
    integer too large for a float too), and any year outside 1800–2200, gives None: a
    missing date is better than an invented one.

    Args:
        value: The value to parse.

    Returns:
        A timezone-aware ``datetime`` in UTC, or None.

    >>> parse_datetime("2016-06-29T10:00:00+02:00").isoformat()
    '2016-06-29T08:00:00+00:00'
    >>> parse_datetime("Tue, 10 Jun 2003 04:00:00 GMT").isoformat()
    '2003-06-10T04:00:00+00:00'
    >>> parse_datetime("2016/6/29").isoformat(), parse_datetime("yesterday")
    ('2016-06-29T00:00:00+00:00', None)
    >>> parse_datetime(1467194400).isoformat(), parse_datetime(-1), parse_datetime(10**400)
    ('2016-06-29T10:00:00+00:00', None, None)
    """
    if value is None:
        return None
    if isinstance(value, datetime):
        return _to_utc(value)
    if isinstance(value, date):
        return _to_utc(datetime(value.year, value.month, value.day))
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        if value != value or value <= 0:  # NaN; the epoch or before it: a placeholder
            return None
        try:
            secs = value / 1000.0 if value > 1e11 else float(value)
            dt = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=secs)
        except OverflowError:  # an integer no float holds, a year past 9999, infinity
            return None
        return _to_utc(dt)
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        return None
    dt = _parse_str_datetime(value)
    return _to_utc(dt) if dt is not None else None


# ---------------------------------------------------------------------------------------- text


def decode_bytes(data: bytes) -> tuple[str, bool]:
    r"""Decode the bytes of a user file (a line, a document) by the readers' one policy.

    :func:`affidavit.tasks.charset.decode_user_text`: a byte-order mark names the encoding,
    else UTF-8 with the bytes that are not UTF-8 read as Windows-1252.

    Returns:
        ``(text, had_repair)``; the caller counts ``had_repair`` as ``"non_utf8_text"``.

    >>> decode_bytes(b"caf\xe9")
    ('café', True)
    """
    from affidavit.tasks.charset import decode_user_text

    dec = decode_user_text(data)
    return dec.text, bool(dec.n_repaired or dec.n_replaced)


def non_utf8_line(data: bytes) -> int:
    r"""Return the 1-based line of the first byte sequence of ``data`` that is not UTF-8.

    1 when every byte decodes (a BOM is not counted as a fault).

    >>> non_utf8_line(b"ok\nstill ok\ncaf\xe9\n")
    3
    """
    try:
        data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return data.count(b"\n", 0, exc.start) + 1
    return 1


def non_utf8_note(where: str) -> str:
    """The note of the first row of an input whose bytes were not UTF-8 (``"non_utf8_text"``).

    ``where`` names the input and the row (``"docs.jsonl: line 3"``); later such rows of the
    input are counted, not noted (a file in another encoding would give one note a row).

    >>> non_utf8_note("docs.jsonl: line 3")[:62]
    'docs.jsonl: line 3: bytes that are not UTF-8 read as Windows-1'
    """
    return (f"{where}: bytes that are not UTF-8 read as Windows-1252: kept (later such rows are "
            "counted, not noted)")


def _clean_field(value: Any) -> tuple[str | None, int]:
    """A one-line string field: decoded, control characters removed (and counted), stripped."""
    if value is None:
        return None, 0
    if isinstance(value, bytes):
        value = decode_bytes(value)[0]
    if not isinstance(value, str):
        value = str(value)
    value, n = strip_control_chars(value, multiline=False)
    value = _SURROGATE_RE.sub("\ufffd", value).strip()
    return (value or None), n


_TEXT_TYPES = (str, bytes, bytearray)
_DATE_TYPES = (str, bytes, int, float, datetime, date)


def _wrong_typed(row: dict[str, Any]) -> str | None:
    """Say which field of ``row`` has a type no document field can hold; None when all fit.

    Text, title, author, URL, language and host must be strings (numbers, lists and objects
    stored as text would be quoted as if a source had written them); ids may be numbers; dates
    strings, numbers (epoch) or datetimes.
    """
    for col in ("text", "title", "author", "url", "lang", "host", "published_at_raw"):
        v = row.get(col)
        if v is not None and not isinstance(v, _TEXT_TYPES):
            return f"{col} is {_type_name(v)}, not a string"
    v = row.get("source_id")
    if v is not None and (isinstance(v, bool) or not isinstance(v, str | int | bytes)):
        return f"id is {_type_name(v)}, not a string or integer"
    for col in _TS_COLUMNS:
        v = row.get(col)
        if v is not None and (isinstance(v, bool) or not isinstance(v, _DATE_TYPES)):
            return f"{col} is {_type_name(v)}, not a date"
    return None


def _type_name(v: Any) -> str:
    """Name a value's type for a note: as JSON names it, and the kinds Parquet adds.

    >>> from decimal import Decimal
    >>> [_type_name(v) for v in (Decimal("1.5"), timedelta(1), date(2024, 1, 2), [1], True)]
    ['a decimal number', 'a duration', 'a date', 'a list', 'a boolean']
    """
    from decimal import Decimal

    if isinstance(v, Decimal):
        return "a decimal number"
    if isinstance(v, timedelta):
        return "a duration"
    if isinstance(v, time):
        return "a time of day"
    if isinstance(v, date):  # a datetime too
        return "a date"
    if isinstance(v, bytes | bytearray):
        return "bytes"
    return json_type_name(v)


def _short(value: Any, limit: int = 40) -> str:
    s = repr(value if not isinstance(value, bytes) else value.decode("utf-8", "replace"))
    return s if len(s) <= limit else s[: limit - 1] + "…" + (s[0] if s[0] in "'\"" else "")


def _http_status(value: Any) -> int | None:
    try:
        status = int(value)
    except (TypeError, ValueError):
        return None
    return status if 100 <= status <= 999 else None


MAX_TEXT_CHARS = 2_000_000
"""Longest document text kept, in characters (about 2 MB: a long report; a longer "document"
is a dump mistake or an attack). Longer texts keep their beginning and are counted
``text_truncated``."""


def rows_to_documents(
    rows: list[dict[str, Any]],
    *,
    source_kind: str,
    source_path: str | None,
    id_repeats: IdRepeats | None = None,
    notes: Sequence[tuple[int, str]] = (),
) -> IngestBatch:
    """Turn row dicts into a ``documents`` batch: ids, hashes, canonical URL, host, UTC times.

    Each row may hold any ``DOCUMENTS_SCHEMA`` column except ``doc_id``, ``content_sha256``,
    ``canonical_url`` and ``ingest_run_id`` (computed or left null here), plus ``_index`` (its
    position in the source, used in the locator when the row has neither URL nor source id;
    defaults to its position in ``rows``). ``text`` may be bytes (decoded as UTF-8 with
    replacement, counted ``"non_utf8_text"``); NUL characters are removed (counted
    ``"nul_removed"``), other control characters and terminal escapes too (counted
    ``"control_chars_removed"``); a row whose text is then empty, or is NaN, is skipped
    (``"empty_text"``). Any other field that is NaN (a missing value, as pandas writes one) is
    read as missing (None), not as a number of the wrong type.
    A row whose text, title, author, URL or language is not a string, whose id is not a string
    or integer, or whose date is a list, object or boolean is refused (``"wrong_type"``); a date
    string that does not parse strictly is stored as NULL with a counted warning
    (``"date_untrusted"``); any other failure of one row skips that row (``"bad_row"``).
    Messages name the row as ``<source_path>: <unit> <number>`` (``_unit``: line, item, row,
    record; ``_number``: its 1-based number in the source, ``_index`` when not given). Timestamp
    values may be strings: they are parsed with :func:`parse_datetime`, and the string is kept in
    ``published_at_raw`` when that is not given. A second row with the same ``doc_id`` in the
    batch is skipped (``"duplicate_in_batch"``). With ``id_repeats`` (the ids of the input
    read so far, across its batches), a row whose source id was given before with other text
    is kept and counted (``"id_repeated_other_text"``), the input's first one noted.

    ``doc_id = make_doc_id(canonical_url or source_id or f"{source_path}#{index}",
    content_sha256(text))``.

    Args:
        rows: The rows.
        source_kind: A ``affidavit.schemas.enums.SourceKind`` value for every row.
        source_path: The file or feed the rows were read from (stored in ``source_path``).
        id_repeats: The source ids of the input seen so far (updated), or None not to look.
        notes: The reader's own notes about its input (lines it skipped, bytes it repaired;
            counted by the reader), each as ``(k, note)``: said before ``rows[k]``'s notes
            (``k == len(rows)``: after the last), so that every note comes in input order.

    Returns:
        An :class:`IngestBatch`; one row per distinct document version.

    Raises:
        ValueError: When ``source_kind`` is not a ``SourceKind``.
    """
    kind = SourceKind(source_kind).value
    batch = empty_batch()
    records: list[dict[str, Any]] = []
    seen: dict[str, str] = {}  # doc_id -> where its first row is
    pending_notes = deque(notes)

    def say_notes_before(k: int) -> None:  # the reader's notes of the input before rows[k]
        while pending_notes and pending_notes[0][0] <= k:
            note = pending_notes.popleft()[1]
            if len(batch.messages) < MAX_MESSAGES:
                batch.messages.append(note)

    for pos, row in enumerate(rows):
        say_notes_before(pos)
        index = row.get("_index", pos)
        unit = row.get("_unit", "record")
        number = row.get("_number", index)
        where = f"{source_path}: {unit} {number}" if source_path else f"{unit} {number}"
        try:
            rec = _row_to_record(row, batch, where=where, index=index, kind=kind,
                                 source_path=source_path)
        except Exception as exc:  # noqa: BLE001 - one odd row must not lose the batch
            batch.add_skip("bad_row", f"{where}: cannot be stored ({type(exc).__name__}: "
                           f"{str(exc)[:120]}): skipped")
            continue
        if rec is None:
            continue
        sid = rec["source_id"]
        if id_repeats is not None and sid:
            first = id_repeats.see(sid, rec["content_sha256"], f"{unit} {number}")
            if first is not None:
                batch.add_skip("id_repeated_other_text", None if id_repeats.n > 1 else (
                    f"{where}: id {_short(sid)} was given before ({first}) with other text: "
                    "both kept as versions (later such rows are counted, not noted)"))
        if rec["doc_id"] in seen:
            batch.add_skip("duplicate_in_batch", None if batch.skips["duplicate_in_batch"] else (
                f"{where}: the same document as {seen[rec['doc_id']]} (same id or URL and "
                "text): skipped (later such rows are counted, not noted)"))
            continue
        seen[rec["doc_id"]] = f"{unit} {number}"
        records.append(rec)
    say_notes_before(len(rows))
    if records:
        batch.documents = pa.Table.from_pylist(records, schema=DOCUMENTS_SCHEMA)
    return batch


def _is_nan(value: Any) -> bool:
    """Whether a value is a float NaN (``float("nan")``; JSON's ``NaN``; pandas' missing value)."""
    return isinstance(value, float) and value != value


def _nan_as_missing(row: dict[str, Any]) -> dict[str, Any]:
    """Return ``row`` with each NaN field as None: a missing value, not a number.

    pandas writes a missing value as NaN (``to_json`` and ``json.dumps`` of a frame's records as
    the literal ``NaN``, a float column of Parquet as a NaN double), so a NaN title, URL or
    author is a row without one, as a NaN date and a NaN id already were. Not counted: a
    missing optional field is not counted either (the row is kept whole otherwise).

    >>> _nan_as_missing({"title": float("nan"), "text": "x", "_index": 3})
    {'title': None, 'text': 'x', '_index': 3}
    """
    if not any(_is_nan(v) for v in row.values()):
        return row
    return {k: None if _is_nan(v) else v for k, v in row.items()}


def _row_to_record(row: dict[str, Any], batch: IngestBatch, *, where: str, index: Any,
                   kind: str, source_path: str | None) -> dict[str, Any] | None:
    """One row → one ``documents`` record (None when the row is skipped, counted in ``batch``)."""
    if _is_nan(row.get("text")):  # the one field a document needs: skipped, as an empty text
        batch.add_skip("empty_text", f"{where}: no text (NaN, a missing value): skipped")
        return None
    row = _nan_as_missing(row)
    wrong = _wrong_typed(row)
    if wrong:
        batch.add_skip("wrong_type", f"{where}: {wrong}: skipped")
        return None
    raw_text = row.get("text")
    if isinstance(raw_text, bytes | bytearray):
        raw_text, replaced = decode_bytes(bytes(raw_text))
        if replaced:  # the batch's first such row is noted, where it is
            batch.add_skip("non_utf8_text", None if batch.skips["non_utf8_text"]
                           else non_utf8_note(where))
    text = raw_text or ""
    if "\x00" in text:
        text = _NUL_RE.sub("", text)
        batch.add_skip("nul_removed", None if batch.skips["nul_removed"] else (
            f"{where}: NUL characters removed from its text: kept (later such rows are "
            "counted, not noted)"))
    text, n_ctl = strip_control_chars(text)
    text = _SURROGATE_RE.sub("\ufffd", text).strip()
    if len(text) > MAX_TEXT_CHARS:
        text = text[:MAX_TEXT_CHARS]
        batch.add_skip("text_truncated", f"{where}: text longer than {MAX_TEXT_CHARS} "
                       "characters: kept its beginning")
    if not text:
        batch.add_skip("empty_text", f"{where}: empty text: skipped")
        return None
    rec: dict[str, Any] = {}
    for c in _STR_COLUMNS:
        value, k = _clean_field(row.get(c))
        rec[c] = value
        n_ctl += k
    if n_ctl:
        batch.add_skip("control_chars_removed",
                       f"{where}: {n_ctl} control character(s) removed")
    url = rec["url"]
    rec["canonical_url"] = canonicalize_url(url) if url else None
    rec["host"] = (rec["host"] or "").lower().removeprefix("www.") or host_of(url)
    for col in _TS_COLUMNS:
        v = row.get(col)
        raw = v
        if isinstance(v, str | bytes):
            if col == "published_at" and not rec["published_at_raw"]:
                rec["published_at_raw"] = _clean_field(v)[0]
        v = parse_datetime(v) if v is not None else None
        blank = (isinstance(raw, str) and not raw.strip()) or (
            isinstance(raw, float) and raw != raw)  # "" and NaN are no date, not a bad one
        if v is None and raw is not None and not blank:
            batch.add_skip("date_untrusted", f"{where}: {col} {_short(raw)} is not a date "
                           "that can be trusted: stored as NULL")
        rec[col] = v
    rec["http_status"] = _http_status(row.get("http_status"))
    rec["text"] = text
    sha = content_sha256(text)
    rec["content_sha256"] = sha
    locator = rec["canonical_url"] or rec["source_id"] or f"{source_path or ''}#{index}"
    rec["doc_id"] = make_doc_id(locator, sha)
    rec["source_kind"] = kind
    rec["is_snippet_only"] = bool(row.get("is_snippet_only", False))
    rec["ingest_run_id"] = None
    rec["source_path"] = source_path
    return rec
