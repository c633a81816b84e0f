"""Read document dumps (JSONL, JSON array, Parquet, CSV/TSV; optionally gzipped) in batches.

A :class:`~affidavit.tasks.ingest_common.ColumnMapping` names the source column of each document
field.
Files are streamed: JSONL and CSV line by line, Parquet by record batch, so a 19,042-row
corpus never sits in memory as Python objects more than ``batch_rows`` rows at a time (a JSON
array is the exception: the format has to be parsed whole). Bad lines are skipped and counted,
with their line or row number (from 1) in the message; they never stop the file.
"""

from __future__ import annotations

import csv
import gzip
import io
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from affidavit.schemas.enums import SourceKind
from affidavit.tasks.ingest_common import (
    MAX_MESSAGES,
    ColumnMapping,
    IdRepeats,
    IngestBatch,
    arrow_rows,
    decode_bytes,
    non_utf8_line,
    non_utf8_note,
    rows_to_documents,
)
from affidavit.tasks.input_checks import (
    binary_dump_fault,
    dump_extensions,
    dump_format,
    missing_column_fault,
    name_keys,
    repeated_column_fault,
    utf16_fault,
)
from affidavit.tasks.sanitize import (
    UntrustedJSONError,
    find_lone_surrogate,
    json_type_name,
    loads_untrusted_json,
    looks_binary,
)

__all__ = ["DEFAULT_BATCH_ROWS", "MAX_LINE_BYTES", "read_dump"]

DEFAULT_BATCH_ROWS = 5000
"""Rows per batch: ~5,000 news articles are ~15 MB of text, small next to a worker's memory and
large enough that per-batch orchestration stays a small share of a run."""

CSV_FIELD_LIMIT_CHARS = 64 * 1024 * 1024
"""Largest CSV field accepted (characters). Python's default (131,072) is shorter than some
article texts. ``csv.field_size_limit`` is process-wide; it is only ever raised here."""

MAX_LINE_BYTES = 64 * 1024 * 1024
MAX_JSON_FILE_BYTES = 256 * 1024 * 1024
"""Largest JSON (array/object) dump read whole, in decompressed bytes; a JSON document cannot be
streamed, so a larger one (or a gzip bomb) is a counted skip (``json_file_too_large``)."""
"""Longest JSONL line read (bytes). The longest line of the project's corpora is under 1 MB;
a longer line is skipped (``"line_too_long"``), which also stops a gzip bomb without newlines."""

_UTF16_PEEK_BYTES = 4096
"""Head bytes of a JSON/JSONL dump looked at for UTF-16 without a byte-order mark (a few
lines: its NULs show at once)."""

_JSON_LIST_KEYS = ("items", "documents", "data", "rows", "records")


def _open_binary(path: Path) -> IO[bytes]:
    """Open a text dump as UTF-8 bytes: gunzipped, transcoded from UTF-16/32 by its mark.

    (:func:`affidavit.tasks.charset.open_user_bytes`; bytes that are not UTF-8 are read as
    Windows-1252 where each line or field is decoded.)
    """
    from affidavit.tasks.charset import open_user_bytes

    fh = path.open("rb")
    magic = fh.read(2)
    fh.seek(0)
    if magic == b"\x1f\x8b":
        return open_user_bytes(gzip.GzipFile(fileobj=fh, mode="rb"))  # type: ignore[return-value]
    return open_user_bytes(fh)  # type: ignore[return-value]


def _format_of(path: Path) -> str:
    """The format of a dump by its name (:data:`affidavit.tasks.input_checks.DUMP_FORMATS`).

    Raises:
        ValueError: For a name of another extension.
    """
    fmt = dump_format(path)
    if fmt is None:
        raise ValueError(f"{path}: unknown dump extension; expected {dump_extensions()}")
    return fmt


KEYS_SAMPLED_ROWS = 1000
"""Rows without the text field whose keys are gathered for that message (the first ones): a
bounded cost on a file of any length."""


class _Pending:
    """Rows, skips and messages gathered for the next batch."""

    def __init__(self, id_repeats: IdRepeats | None = None) -> None:
        self.id_repeats = id_repeats if id_repeats is not None else IdRepeats()  # whole file
        self.rows: list[dict[str, Any]] = []
        self.skips: Counter[str] = Counter()
        self.messages: list[tuple[int, str]] = []  # (rows before it, note): input order
        self.n_rows = 0  # rows of the file mapped so far (all batches)
        self.n_with_text = 0  # of which had the mapped text field
        self.n_no_text = 0  # rows without the mapped text field (counted, not kept)
        self.keys_no_text: Counter[str] = Counter()  # keys of the first such rows
        self.n_non_utf8 = 0  # rows of the file kept with bytes that were not UTF-8

    def skip(self, reason: str, message: str | None = None) -> None:
        self.skips[reason] += 1
        if message is not None and len(self.messages) < MAX_MESSAGES:
            self.messages.append((len(self.rows), message))

    def repaired_non_utf8(self, where: str) -> None:
        """Count a row kept with bytes that were not UTF-8; the file's first is noted."""
        first = not self.n_non_utf8
        self.n_non_utf8 += 1
        self.skip("non_utf8_text", non_utf8_note(where) if first else None)

    def add(self, raw: dict[str, Any], mapping: ColumnMapping, index: int,
            unit: str = "line", number: int | None = None) -> None:
        """Keep a source row, or count it (``no_text_field``) when it lacks the text field.

        A row without the field is one count, not one message: the file is described once, at
        its end (:func:`_no_text_message`), naming the keys such rows have.
        """
        if mapping.text in raw:
            self.rows.append(_map_row(raw, mapping, index, unit, number))
            return
        self.n_no_text += 1
        self.skips["no_text_field"] += 1
        if self.n_no_text <= KEYS_SAMPLED_ROWS:
            self.keys_no_text.update(str(k) for k in raw)

    def flush(self, *, source_path: str, source_kind: str) -> IngestBatch:
        batch = rows_to_documents(self.rows, source_kind=source_kind, source_path=source_path,
                                  id_repeats=self.id_repeats, notes=self.messages)
        batch.skips.update(self.skips)
        self.n_rows += len(self.rows)
        self.n_with_text += sum(1 for r in self.rows if "text" in r)
        self.rows, self.skips, self.messages = [], Counter(), []
        return batch


def _map_row(raw: dict[str, Any], mapping: ColumnMapping, index: int,
             unit: str = "line", number: int | None = None) -> dict[str, Any]:
    """Map a source row's columns to document fields.

    ``index`` is the row's locator in its file (part of the ``doc_id`` of a row without URL or
    id, so it never changes between versions); ``number`` is the 1-based number its notes give
    (``row 1`` is a file's first row), ``index`` when None (JSONL line numbers are both).
    """
    row: dict[str, Any] = {"_index": index, "_unit": unit}
    if number is not None:
        row["_number"] = number
    for field_name, column in mapping.as_dict().items():
        if column and column in raw:
            row[field_name] = raw[column]
    sid = row.get("source_id")
    if isinstance(sid, float):  # ids of pandas-written files: 7.0 is id 7, NaN is no id
        row["source_id"] = None if sid != sid else (str(int(sid)) if sid.is_integer()
                                                    else str(sid))
    elif isinstance(sid, int) and not isinstance(sid, bool):
        row["source_id"] = str(sid)  # lists, objects, booleans: refused with the row
    return row


def _fix_surrogates(value: str) -> tuple[str, bool]:
    """Read the bytes a CSV field could not decode as UTF-8 (surrogate escapes) as Windows-1252.

    (:func:`affidavit.tasks.charset.repair_escaped_bytes`, the readers' one policy.)
    """
    from affidavit.tasks.charset import repair_escaped_bytes

    value, n = repair_escaped_bytes(value)
    return value, bool(n)


def _lines(fh: IO[bytes], max_line_bytes: int) -> Iterator[tuple[int, bytes | None]]:
    """Yield (line number, line), or (line number, None) for a line longer than the cap.

    The rest of an over-long line is read and discarded in pieces, so a decompression bomb
    without newlines never sits in memory whole.
    """
    lineno = 0
    while True:
        line = fh.readline(max_line_bytes + 1)
        if not line:
            return
        lineno += 1
        if len(line) > max_line_bytes and not line.endswith(b"\n"):
            while True:
                rest = fh.readline(1024 * 1024)
                if not rest or rest.endswith(b"\n"):
                    break
            yield lineno, None
            continue
        yield lineno, line


def _iter_jsonl(
    fh: IO[bytes], name: str, mapping: ColumnMapping, pending: _Pending
) -> Iterator[None]:
    for lineno, line in _lines(fh, MAX_LINE_BYTES):
        if line is None:
            pending.skip(
                "line_too_long",
                f"{name}: line {lineno}: longer than {MAX_LINE_BYTES} bytes: skipped",
            )
            yield None
            continue
        if not line.strip():
            continue
        text, replaced = decode_bytes(line)
        try:
            obj = loads_untrusted_json(text)
        except UntrustedJSONError as exc:
            pending.skip("bad_json_line", f"{name}: line {lineno}: {exc}: skipped")
            yield None
            continue
        if find_lone_surrogate(obj):
            pending.skip("lone_surrogate", f"{name}: line {lineno}: a string holds a lone "
                         "UTF-16 surrogate (\\ud800-\\udfff), which no text can store: skipped")
            yield None
            continue
        if not isinstance(obj, dict):
            pending.skip(
                "not_an_object",
                f"{name}: line {lineno}: {json_type_name(obj)}, not an object: skipped",
            )
            yield None
            continue
        if replaced:
            pending.repaired_non_utf8(f"{name}: line {lineno}")
        pending.add(obj, mapping, lineno)
        yield None


def _iter_json(
    fh: IO[bytes], name: str, mapping: ColumnMapping, pending: _Pending
) -> Iterator[None]:
    raw = fh.read(MAX_JSON_FILE_BYTES + 1)
    if len(raw) > MAX_JSON_FILE_BYTES:
        pending.skip(
            "json_file_too_large",
            f"{name}: a JSON document over {MAX_JSON_FILE_BYTES} bytes (decompressed) cannot be "
            "read whole: file skipped (write it as JSONL, one row per line)",
        )
        return
    text, replaced = decode_bytes(raw)
    try:
        obj = loads_untrusted_json(text)
    except UntrustedJSONError as exc:
        pending.skip("bad_json_file", f"{name}: {exc}: file skipped")
        return
    if isinstance(obj, dict):
        found = [obj[k] for k in _JSON_LIST_KEYS if isinstance(obj.get(k), list)]
        obj = found[0] if found else [obj]
    if not isinstance(obj, list):
        pending.skip("bad_json_file", f"{name}: the JSON document is {json_type_name(obj)}, "
                     "not a list of records: skipped")
        return
    if replaced:  # one document: its first line with such bytes is said
        pending.repaired_non_utf8(f"{name}: line {non_utf8_line(raw)}")
    for i, item in enumerate(obj):
        if not isinstance(item, dict):
            pending.skip("not_an_object", f"{name}: item {i + 1}: not an object: skipped")
        elif find_lone_surrogate(item):
            pending.skip("lone_surrogate", f"{name}: item {i + 1}: a string holds a lone "
                         "UTF-16 surrogate: skipped")
        else:
            pending.add(item, mapping, i, "item", i + 1)
        yield None


def _iter_csv(
    fh: IO[bytes], name: str, mapping: ColumnMapping, pending: _Pending, *, delimiter: str
) -> Iterator[None]:
    csv.field_size_limit(max(csv.field_size_limit(), CSV_FIELD_LIMIT_CHARS))
    text_fh = io.TextIOWrapper(fh, encoding="utf-8-sig", errors="surrogateescape", newline="")
    # strict: a quote never closed is an error, not a field that swallows every line after it
    # (those rows would be lost into one bogus document)
    reader = csv.reader(text_fh, delimiter=delimiter, strict=True)
    try:
        header = next(reader)
    except StopIteration:
        return
    except csv.Error as exc:
        pending.skip("bad_csv_file", f"{name}: unreadable CSV header ({exc}): file skipped")
        return
    header = [_fix_surrogates(h)[0].strip() for h in header]  # bytes that are not UTF-8
    if mapping.text not in header:
        shown = header
        fmt = "csv" if delimiter == "," else "tsv"
        if looks_binary(",".join(shown)):  # no header at all: not a column to name
            raise ValueError(binary_dump_fault(
                name, fmt, ",".join(shown).encode("utf-8", "surrogateescape")))
        raise ValueError(missing_column_fault(name, mapping.text, shown))
    used = {"text": mapping.text, "id": mapping.id, "URL": mapping.url, "title": mapping.title,
            "date": mapping.published_at, "author": mapping.author, "host": mapping.host,
            "capture time": mapping.wayback_first_seen}
    refusal, note = repeated_column_fault(name, header,
                                          {w: c for w, c in used.items() if c in header})
    if refusal:
        raise ValueError(refusal)
    if note:
        pending.messages.append((0, note))
    n_row = 0  # data rows after the header, 1-based as their notes say ("row 1")
    while True:
        first_line = reader.line_num + 1
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            n_row += 1
            last = max(reader.line_num, first_line)
            if "unexpected end of data" in str(exc):
                # a quote opened and never closed: every line from it to the end is lost, and
                # each counts (a row a line, as such a file has them)
                for _ in range(last - first_line):
                    pending.skip("bad_csv_row")
                pending.skip(
                    "bad_csv_row",
                    f"{name}: row {n_row} (line {first_line}): a quote is never closed; "
                    + (f"line {last}" if last == first_line
                       else f"lines {first_line}-{last} ({last - first_line + 1})")
                    + " skipped",
                )
                return
            pending.skip("bad_csv_row", f"{name}: row {n_row}: {exc}: skipped")
            yield None
            continue
        if not values or (len(values) == 1 and not values[0].strip()):
            continue
        n_row += 1
        if len(values) != len(header):
            pending.skip(
                "bad_csv_row",
                f"{name}: row {n_row}: {len(values)} fields, header has "
                f"{len(header)}: skipped",
            )
            yield None
            continue
        fixed = [_fix_surrogates(v) for v in values]
        if any(bad for _, bad in fixed):  # counted once a row, however many fields
            pending.repaired_non_utf8(f"{name}: row {n_row}")
        raw = {h: v for h, (v, _) in zip(header, fixed, strict=True)}
        pending.add(raw, mapping, reader.line_num, "row", n_row)
        yield None


def _read_parquet(
    path: Path, name: str, mapping: ColumnMapping, batch_rows: int, source_kind: str
) -> Iterator[IngestBatch]:
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(path)
    columns = set(pf.schema_arrow.names)
    if mapping.text not in columns:
        raise ValueError(missing_column_fault(name, mapping.text, list(pf.schema_arrow.names),
                                              where="Parquet schema"))
    wanted = [c for c in dict.fromkeys(mapping.as_dict().values()) if c in columns]
    if pf.metadata.num_rows == 0:
        pending = _Pending()
        pending.skip("empty_file", f"{name}: no rows: refused")
        yield pending.flush(source_path=str(path), source_kind=source_kind)
        return
    offset = 0
    id_repeats = IdRepeats()  # the ids of the whole file, across its record batches
    for record_batch in pf.iter_batches(batch_size=batch_rows, columns=wanted):
        pending = _Pending(id_repeats)
        for i, raw in enumerate(arrow_rows(record_batch)):
            pending.rows.append(_map_row(raw, mapping, offset + i, "row", offset + i + 1))
        offset += record_batch.num_rows
        yield pending.flush(source_path=str(path), source_kind=source_kind)


def read_dump(
    path: str | Path,
    *,
    mapping: ColumnMapping = ColumnMapping(),  # noqa: B008 - frozen, immutable default
    batch_rows: int = DEFAULT_BATCH_ROWS,
    source_kind: str = SourceKind.ARCHIVE.value,
) -> Iterator[IngestBatch]:
    """Stream a dump file as document batches.

    Formats by extension (:data:`affidavit.tasks.input_checks.DUMP_FORMATS`):
    ``.jsonl``/``.ndjson``/``.jsonlines`` (one JSON object a line), ``.json`` (an array
    of objects, or an object holding one under ``items``/``documents``/``data``/``rows``/
    ``records``), ``.parquet``, ``.csv``, ``.tsv``/``.tab``; all but Parquet may be gzipped
    (``.gz``, or detected by the gzip magic bytes). Skips (counted, with line numbers in the
    messages): ``bad_json_line``, ``not_an_object``, ``line_too_long``, ``bad_csv_row``,
    ``bad_json_file``, ``truncated_file``, plus those of
    :func:`~affidavit.tasks.ingest_common.rows_to_documents` (``empty_text``,
    ``duplicate_in_batch``).
    ``_index`` (the locator of rows without URL or id) is the line number for JSONL/CSV and the
    row position for JSON and Parquet. Notes number rows from 1 in every format: ``line N``
    of JSONL, ``row N`` of CSV/TSV and Parquet (the N-th data row), ``item N`` of JSON. A row
    without the mapped text field is counted (``no_text_field``) and the file described in one
    note naming the keys such rows have; when no row has it the file is refused (``ValueError``,
    as for a CSV header or a Parquet schema without the column), and its rows are not counted
    (the refusal counts the file, once).

    Args:
        path: The dump file.
        mapping: Source column of each field (defaults ``id``, ``url``, ``title``, ``text``,
            ``published_at``, ``author``, ``host``).
        batch_rows: Rows per yielded batch (before skips); must be > 0.
        source_kind: ``documents.source_kind`` of the rows (``"archive"`` for backfills).

    Yields:
        :class:`~affidavit.tasks.ingest_common.IngestBatch` objects, each of at most ``batch_rows``
        documents; a file with no readable row yields one empty batch carrying its skips.

    Raises:
        ValueError: For an unknown extension, a non-positive ``batch_rows``, a CSV/Parquet
            file without the mapped text column, or a JSONL/JSON file none of whose rows has
            the mapped text field (raised after its last batch).
        FileNotFoundError: When the file does not exist.
    """
    p = Path(path)
    fmt = _format_of(p)
    if batch_rows <= 0:
        raise ValueError(f"batch_rows must be positive, got {batch_rows}")
    SourceKind(source_kind)
    p.stat()  # a missing file (FileNotFoundError), a symlink loop: raised with its errno
    name = str(path)  # notes name the file as the user gave it, as its rows' notes do
    if fmt == "parquet":
        yield from _read_parquet(p, name, mapping, batch_rows, source_kind)
        return
    pending = _Pending()
    yielded = seen_skips = False
    with _open_binary(p) as fh:
        # UTF-16 without a byte-order mark: not a line of it reads, so it is refused whole and
        # said as what it is (a CSV/TSV header says it in _iter_csv)
        if fmt != "csv" and fmt != "tsv" and hasattr(fh, "peek") and (
                wide := utf16_fault(fh.peek(_UTF16_PEEK_BYTES)[:_UTF16_PEEK_BYTES])):
            raise ValueError(f"{name}: {wide}")
        if fmt == "jsonl":
            steps = _iter_jsonl(fh, name, mapping, pending)
        elif fmt == "json":
            steps = _iter_json(fh, name, mapping, pending)
        else:
            steps = _iter_csv(fh, name, mapping, pending, delimiter="," if fmt == "csv" else "\t")
        try:
            for _ in steps:
                if len(pending.rows) >= batch_rows:
                    seen_skips = seen_skips or bool(pending.skips)
                    yield pending.flush(source_path=str(p), source_kind=source_kind)
                    yielded = True
        except (EOFError, gzip.BadGzipFile, OSError) as exc:
            pending.skip("truncated_file", f"{name}: unreadable after some rows ({exc}): stopped")
    any_skip = bool(pending.skips) or seen_skips
    n_text = pending.n_with_text + len(pending.rows)
    if n_text == 0 and pending.n_no_text == 0 and not any_skip:
        pending.skip("empty_file", f"{name}: empty file (no rows): refused")
    elif pending.n_no_text and n_text:
        # the file's summary, after the notes of its lines
        pending.messages.append((len(pending.rows), _no_text_message(name, mapping.text,
                                                                     pending, n_text)))
    refused = bool(pending.n_no_text and not n_text)
    if refused:  # the refusal below counts the file, once: its rows are not counted again
        del pending.skips["no_text_field"]
    if pending.rows or pending.skips or not yielded:
        yield pending.flush(source_path=str(p), source_kind=source_kind)
    if refused:
        # nothing of the file can be read: refused in one line (as a CSV header or a Parquet
        # schema without the column is), not one note per row
        raise ValueError(_no_text_message(name, mapping.text, pending, 0))


def _no_text_message(name: str, column: str, pending: _Pending, n_text: int) -> str:
    """Describe the rows of a file without the mapped text field, naming the keys they have.

    >>> pending = _Pending()
    >>> pending.add({"body": "x"}, ColumnMapping(), 1)
    >>> print(_no_text_message("a.jsonl", "text", pending, 0))
    a.jsonl: no row has a 'text' field (the rows have body; name the text field with --text-column)
    """
    keys = [k for k, _ in sorted(pending.keys_no_text.items(), key=lambda kv: (-kv[1], kv[0]))]
    shown = name_keys(keys)  # the most frequent first
    if not n_text:
        return (f"{name}: no row has a {column!r} field (the rows have {shown}; name the "
                "text field with --text-column)")
    n = pending.n_no_text
    return (f"{name}: {n} of {n + n_text} rows have no {column!r} field (they have {shown}): "
            "skipped")
