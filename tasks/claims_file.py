"""Claims files: JSONL, JSON, CSV and TSV records read into claim texts, bad rows counted.

Kept apart from claim extraction (``affidavit.tasks.claims``) so that the CLI can check a
claims file before any heavy import (no pyarrow, polars, DuckDB or Prefect here).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import re
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from affidavit.tasks.input_checks import (
    claims_format,
    gzip_name_fault,
    regular_file_fault,
    repeated_column_fault,
    shown_path,
)
from affidavit.tasks.sanitize import (
    UntrustedJSONError,
    find_lone_surrogate,
    json_type_name,
    loads_untrusted_json,
    strip_bidi_controls,
    strip_control_chars,
)

__all__ = [
    "ID_COLUMNS",
    "LABEL_COLUMNS",
    "MAX_CLAIMS_FILE_BYTES",
    "MAX_CLAIM_CHARS",
    "TEXT_COLUMNS",
    "check_claims_columns",
    "pick_column",
    "read_claims_file",
]

_WS = re.compile(r"\s+")


TEXT_COLUMNS = ("claim", "text", "statement", "claim_text", "sentence", "question")
ID_COLUMNS = ("claim_id", "id", "example_id", "uid")
LABEL_COLUMNS = ("claim_label", "label", "verdict", "gold_label", "rating")
_MAX_MESSAGES = 20
_MAX_KEYS_NAMED = 12
"""Keys of a record without the text column named in its skip note (the rest are counted)."""


MAX_CLAIMS_FILE_BYTES = 512 * 1024 * 1024
"""Largest claims file read (bytes, after decompression): 10^6 claims of 500 bytes."""


MAX_CLAIM_CHARS = 10_000
"""Longest claim text kept (characters, after whitespace is collapsed); a longer row is a
counted skip (``claim_too_long``) naming its line, not stored. Claims of more than
``affidavit.tasks.claims.MAX_CLAIM_WORDS`` (150) words are kept but not researched; at about
6.5 characters a word (English prose, spaces included) this is ten times that: a whole
document, not a claim."""


def _open_text(path: str | Path, skips: Counter[str] | None = None,
               messages: list[str] | None = None) -> io.TextIOBase:
    """The file as text: gunzipped, decoded by the readers' one policy, repairs counted.

    (:func:`affidavit.tasks.charset.decode_user_text`: a byte-order mark names the encoding,
    else UTF-8 with the bytes that are not UTF-8 read as Windows-1252.)
    """
    from affidavit.tasks.charset import decode_user_text

    name = shown_path(path)
    if fault := gzip_name_fault(path):  # a plain file named .gz: said as backfill says it
        raise ValueError(f"{name}: {fault}")
    p = Path(path)
    with p.open("rb") as raw:
        fh = gzip.open(raw) if p.suffix == ".gz" else raw
        try:
            data = fh.read(MAX_CLAIMS_FILE_BYTES + 1)
        except (EOFError, OSError, zlib.error) as exc:
            raise ValueError(f"{name}: broken or truncated gzip data ({exc})") from exc
    if len(data) > MAX_CLAIMS_FILE_BYTES:
        raise ValueError(f"{name}: larger than {MAX_CLAIMS_FILE_BYTES} bytes: refused")
    dec = decode_user_text(data)
    if skips is not None and dec.n_repaired:
        skips["non_utf8_text"] += dec.n_repaired
        if messages is not None and len(messages) < _MAX_MESSAGES:
            messages.append(f"{name}: {dec.n_repaired} byte(s) that are not UTF-8 read as "
                            f"Windows-1252 (first on line {dec.first_repair_line}): kept")
    if skips is not None and dec.n_replaced:  # a UTF-16/32 file with a broken sequence
        skips["replacement_chars"] += dec.n_replaced
    return io.StringIO(dec.text, newline="")


def _iter_records(path: str | Path, fmt: str, skips: Counter[str], messages: list[str],
                  faults: list[str] | None = None,
                  header: list[str] | None = None) -> Iterator[tuple[str, Any]]:
    """Yield ``(where, record)`` for each record of a claims file.

    ``where`` is ``line N`` of the file (JSONL, CSV: the line a record starts on, blank lines
    counted) or ``item N`` (the N-th record of a JSON document, as the dump readers say it).
    ``faults`` receives, in a few words and without the file's name, what stopped the file
    from giving more records (a JSON document that is not valid or not a list, a quote never
    closed), for :func:`check_claims_columns` to say when the file gives no record at all.
    ``header`` receives a CSV/TSV file's column names, repeats included (a record keeps one
    of them).
    """
    name = shown_path(path)

    def note(msg: str) -> None:
        if len(messages) < _MAX_MESSAGES:
            messages.append(msg)

    def fault(msg: str) -> None:
        if faults is not None:
            faults.append(msg)

    with _open_text(path, skips, messages) as fh:
        if fmt == "jsonl":
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    rec = loads_untrusted_json(line)
                except UntrustedJSONError as exc:
                    skips["bad_json"] += 1
                    note(f"{name}: line {lineno}: {exc}: skipped")
                    if skips["bad_json"] == 1:
                        fault(f"no line is a JSON record (line {lineno}: {exc})")
                    continue
                yield f"line {lineno}", rec
        elif fmt == "json":
            try:
                data = loads_untrusted_json(fh.read())
            except UntrustedJSONError as exc:
                skips["bad_json"] += 1
                note(f"{name}: {exc}: file skipped")
                fault(str(exc))
                return
            if isinstance(data, dict):
                lists = [v for v in data.values() if isinstance(v, list)]
                if len(lists) == 1:
                    data = lists[0]
                elif all(isinstance(v, dict) for v in data.values()):
                    data = [{"id": k, **v} for k, v in data.items()]
                else:
                    data = [data]
            if not isinstance(data, list):
                skips["not_an_object"] += 1
                note(f"{name}: the JSON document is {json_type_name(data)}, not a list "
                     "of claims: file skipped")
                fault(f"is {json_type_name(data).replace('a ', 'a JSON ', 1)}, not a list of "
                      "claims")
                return
            for n, rec in enumerate(data, 1):
                yield f"item {n}", rec
        else:
            delim = "\t" if fmt == "tsv" else ","
            csv.field_size_limit(10_000_000)
            # strict: a quote never closed is an error, not a field that swallows every line
            # after it (those rows would be lost into one bogus claim)
            reader = csv.DictReader(fh, delimiter=delim, strict=True)
            start = 2
            try:
                if header is not None:
                    header[:] = reader.fieldnames or []
                for rec in reader:
                    if None in rec:  # more fields than the header
                        skips["bad_csv_row"] += 1
                        note(f"{name}: line {reader.line_num}: more fields than the "
                             "header: skipped")
                    else:
                        yield f"line {start}", rec
                    start = reader.line_num + 1
            except csv.Error as exc:
                # every line from the bad row on is lost: each counts (one row a line, as a
                # file whose quote was never closed has them)
                last = max(reader.reader.line_num, start)  # the DictReader lags
                skips["bad_csv_row"] += last - start + 1
                unclosed = "unexpected end of data" in str(exc)
                note(f"{name}: line {start}: " + (
                    "a quote is never closed" if unclosed else f"{exc} (a quote not closed?)")
                    + ("; line " + str(start) if last == start
                       else f"; lines {start}-{last} ({last - start + 1})") + " skipped")
                fault(f"unclosed quote at line {start}" if unclosed
                      else f"unreadable CSV at line {start} ({exc})")


def pick_column(
    record: Mapping[str, Any], explicit: str | None, candidates: Iterable[str]
) -> str | None:
    """Return the key of ``record`` to read (``explicit``, else the first candidate present).

    Candidates are compared in lower case; None when none is present.

    >>> pick_column({"Claim": "x"}, None, ("claim", "text"))
    'Claim'
    """
    if explicit is not None:
        return explicit
    lower = {k.lower(): k for k in record if isinstance(k, str)}
    for c in candidates:
        if c in lower:
            return lower[c]
    return None


def _as_str(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, float) and value != value:  # NaN
        return None
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    s = str(value).strip()
    return s or None


def check_claims_columns(path: str | Path, *, text_column: str | None = None) -> None:
    """Refuse a claims file whose records can hold no claim text, from its first record.

    :func:`read_claims_file` fixes its columns on the first record that is an object, so a
    first record with no text column (none of ``TEXT_COLUMNS`` when ``text_column`` is not
    given, else the named column) means no claim, or almost none, will be read: the CLI says
    so, naming the keys the record has, before any work starts. Other faults are left to the
    reader, which counts them.

    Raises:
        ValueError: When the first object record names no text column (the message lists its
            keys), when records were read and none of the first 1,000 is an object, or when
            the file gives no record at all (an empty JSON list, a CSV header alone, a JSON
            document that is not a list, a quote never closed before the first row): the
            message says which (:func:`no_claim_reason`).
    """
    p, name = Path(path), shown_path(path)
    fmt = claims_format(path)
    n_seen = 0
    faults: list[str] = []
    header: list[str] = []
    for _, rec in _iter_records(path, fmt, Counter(), [], faults, header):
        n_seen += 1
        if not isinstance(rec, dict):
            if n_seen >= 1000:
                break
            continue
        keys = sorted(map(str, rec))
        more = len(keys) - _MAX_KEYS_NAMED
        shown = (", ".join(keys[:_MAX_KEYS_NAMED]) or "none") + (
            f" and {more} more" if more > 0 else "")
        if text_column is None and pick_column(rec, None, TEXT_COLUMNS) is None:
            raise ValueError(f"{name}: no claim text column among its keys ({shown}); "
                             f"looked for {', '.join(TEXT_COLUMNS)}: name it with "
                             "--text-column")
        if text_column is not None and text_column not in rec:
            where = "header" if fmt in ("csv", "tsv") else "first record"
            raise ValueError(f"{name}: no column {text_column!r} (--text-column) in its "
                             f"{where} ({shown})")
        _check_repeated_columns(path, header, (pick_column(rec, text_column, TEXT_COLUMNS),
                                               pick_column(rec, None, ID_COLUMNS),
                                               pick_column(rec, None, LABEL_COLUMNS)))
        return
    if n_seen:
        raise ValueError(f"{name}: no record is an object with a claim text (JSONL: one "
                         "object a line; JSON: a list of objects)")
    raise ValueError(f"{name}: {no_claim_reason(p, fmt, faults)}")


def _check_repeated_columns(path: str | Path, header: list[str],
                            cols: tuple[str | None, str | None, str | None]) -> str | None:
    """Refuse a CSV/TSV claims file repeating a column it reads; return the note of others.

    ``cols`` are the text, id and label columns read
    (:func:`affidavit.tasks.input_checks.repeated_column_fault`).

    Raises:
        ValueError: When the text, id or label column appears more than once in the header.
    """
    refusal, note = repeated_column_fault(
        shown_path(path), header, dict(zip(("claim text", "id", "label"), cols, strict=True)))
    if refusal:
        raise ValueError(refusal)
    return note


def _columns_note(cols: tuple[str | None, str | None, str | None], fmt: str) -> str:
    """Say in words which columns a claims file is read from.

    >>> _columns_note(("claim", "id", None), "jsonl")
    "claims read from column 'claim', ids from 'id', no label column (JSONL)"
    """
    text, ident, label = cols
    parts = [f"claims read from column {text!r}" if text else "no claim text column",
             f"ids from {ident!r}" if ident else "no id column",
             f"labels from {label!r}" if label else "no label column"]
    return ", ".join(parts) + f" ({fmt.upper()})"


def no_claim_reason(path: Path, fmt: str, faults: list[str]) -> str:
    """Say why a claims file gave no record at all, in a few words (without its name).

    ``faults`` are those :func:`_iter_records` gave; without one the file parsed to nothing:
    a CSV/TSV header alone, an empty JSON list or object.
    """
    if faults:
        return faults[0] + ": no claim can be read"
    if fmt in ("csv", "tsv"):
        return "holds no claim rows (a header line only)"
    if fmt == "json":
        return "holds no claim rows (an empty JSON list or object)"
    return "holds no claim rows"


def read_claims_file(
    path: str | Path,
    *,
    text_column: str | None = None,
    id_column: str | None = None,
    label_column: str | None = None,
    limit: int | None = None,
) -> tuple[list[dict[str, str | None]], Counter[str], list[str]]:
    """Read claims from a JSONL, JSON, CSV or TSV file (optionally ``.gz``).

    Columns not given are detected from the first record: text from :data:`TEXT_COLUMNS`
    (claim, text, statement, ...), id from :data:`ID_COLUMNS` (claim_id, id, ...), label from
    :data:`LABEL_COLUMNS` (claim_label, label, verdict, ...), matched case-insensitively. A
    JSON file may hold a list of records, an object with one list of records, or an object of
    records keyed by id. Bad records are skipped and counted, never fatal.

    Args:
        path: The file.
        text_column: Column holding the claim text; auto-detected when ``None``.
        id_column: Column holding an external id; auto-detected when ``None``.
        label_column: Column holding an external label; auto-detected when ``None``.
        limit: Stop after this many good rows.

    Returns:
        ``(rows, skips, messages)``: rows are dicts with keys ``text``, ``external_id`` and
        ``external_label`` (strings or ``None``), in file order; ``skips`` counts skipped
        records by reason (``bad_json``, ``bad_csv_row``, ``not_an_object``,
        ``missing_text``, ``empty_text`` (a NaN text too), ``wrong_type`` (a claim text that
        is not text, an id that is neither text nor a number), ``lone_surrogate``,
        ``claim_too_long`` (over :data:`MAX_CLAIM_CHARS` characters)); ``messages`` says
        which columns were used and gives the first few skip details.

    Raises:
        FileNotFoundError: When the file does not exist.
        ValueError: On a directory, a device or a pipe, an unsupported extension, or
            ``limit`` < 0.
    """
    p, name = Path(path), shown_path(path)
    p.stat()  # a missing file (FileNotFoundError), a symlink loop: raised with its errno
    if fault := regular_file_fault(p):  # a pipe is not opened (one no one writes to waits)
        raise ValueError(f"{name}: is a directory, not a claims file"
                         if fault.startswith("is a directory") else f"{name}: {fault}")
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    fmt = claims_format(path)
    rows: list[dict[str, str | None]] = []
    skips: Counter[str] = Counter()
    messages: list[str] = []
    cols: tuple[str | None, str | None, str | None] | None = None
    if limit == 0:
        return rows, skips, messages
    header: list[str] = []
    for where, rec in _iter_records(path, fmt, skips, messages, None, header):
        if not isinstance(rec, dict):
            skips["not_an_object"] += 1
            if len(messages) < _MAX_MESSAGES:
                messages.append(f"{name}: {where}: not an object: skipped")
            continue
        if cols is None:
            cols = (
                pick_column(rec, text_column, TEXT_COLUMNS),
                pick_column(rec, id_column, ID_COLUMNS),
                pick_column(rec, label_column, LABEL_COLUMNS),
            )
            messages.insert(0, _columns_note(cols, fmt))
            if note := _check_repeated_columns(path, header, cols):
                messages.append(note)
            if cols[0] is None:
                messages.append(
                    f"no text column found among {sorted(map(str, rec))} (name it with "
                    "--text-column)"
                )
        tcol, icol, lcol = cols
        if tcol is None or tcol not in rec:
            skips["missing_text"] += 1
            if tcol is not None and len(messages) < _MAX_MESSAGES:
                keys = ", ".join(sorted(map(str, rec))[:_MAX_KEYS_NAMED]) or "none"
                more = len(rec) - _MAX_KEYS_NAMED
                messages.append(f"{name}: {where}: no {tcol!r} (the claim text column); "
                                f"its keys: {keys}{f' and {more} more' if more > 0 else ''}: "
                                "skipped")
            continue
        value = rec.get(tcol)
        if isinstance(value, float) and value != value:  # NaN: pandas' missing value
            skips["empty_text"] += 1
            if len(messages) < _MAX_MESSAGES:
                messages.append(f"{name}: {where}: no claim text (NaN, a missing value): "
                                "skipped")
            continue
        if value is not None and not isinstance(value, str):
            skips["wrong_type"] += 1
            if len(messages) < _MAX_MESSAGES:
                messages.append(f"{name}: {where}: {tcol} is {json_type_name(value)}, "
                                "not text: skipped")
            continue
        if icol is not None and isinstance(rec.get(icol), bool | dict | list):
            # no id a claim could be told by (it was stored as '{"a": 1}' or 'True')
            skips["wrong_type"] += 1
            if len(messages) < _MAX_MESSAGES:
                messages.append(f"{name}: {where}: {icol} is {json_type_name(rec[icol])}, "
                                "not text or a number: skipped")
            continue
        if find_lone_surrogate(rec):
            skips["lone_surrogate"] += 1
            if len(messages) < _MAX_MESSAGES:
                messages.append(f"{name}: {where}: a lone UTF-16 surrogate: skipped")
            continue
        text = _as_str(value)
        if text is not None:
            text, n_ctl = strip_control_chars(text, multiline=False)
            text, n_bidi = strip_bidi_controls(text)
            if n_ctl or n_bidi:
                skips["control_chars_removed"] += 1
            text = _WS.sub(" ", text).strip()
        if not text:
            skips["empty_text"] += 1
            if len(messages) < _MAX_MESSAGES:
                messages.append(f"{name}: {where}: the claim is empty: skipped")
            continue
        if len(text) > MAX_CLAIM_CHARS:
            skips["claim_too_long"] += 1
            if len(messages) < _MAX_MESSAGES:
                messages.append(f"{name}: {where}: a claim of {len(text):,} characters (at "
                                f"most {MAX_CLAIM_CHARS:,}): skipped")
            continue
        rows.append(
            {
                "text": text,
                "external_id": _as_str(rec.get(icol)) if icol else None,
                "external_label": _as_str(rec.get(lcol)) if lcol else None,
            }
        )
        if limit is not None and len(rows) >= limit:
            break
    if cols is not None and cols[0] is not None and not rows and skips.total():
        messages.append(f"no claims read from {name}")
    return rows, skips, messages
