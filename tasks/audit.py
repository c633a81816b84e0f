"""Answer audit: label each claim of an answer against the evidence it was written from.

Pure functions first (reading records, splitting claims, the lexical auditor, building rows);
the flow in ``affidavit.flows.audit`` wraps them. The evidence of a record is the *outputs* of
the tool calls its answer read; inputs (paths, commands, URLs) only say what an output is about.

Labels (DESIGN.md, *Answer audit*):

* ``CONTRADICTED``: a figure, version, date or negation of the claim differs from what the
  evidence says about the same thing. Always carries a quote that the anchor gate finds in that
  record's evidence. The rules, each for a class of error, not a case: a version, date,
  percentage or measure no output holds where the passage about the same thing gives another
  (a date one field off anywhere); a version given another's date; an HTTP status; a major
  version after a name ("Node 16"); a rate over another window (``600;w=3600``); a count of
  something else ("212 files" where 212 counts insertions); a negation the evidence does not
  share; an event ("was reverted") the evidence records for something else; a whole set placed
  in one path ("both failures in a.py") where the evidence names another; an item put "only
  under" one section of a JSON file that another section also holds; a failure cause ("ran out
  of memory") where the output names another (a timeout); a count of records that is ``wc -l``'s
  count of lines of a file shown with a header row; a test outcome the test run counts
  otherwise ("all 12 tests pass" against ``11 passed, 1 failed``; skipped tests are not
  failures).
* ``OVERSTATED``: an absolute word ("all", "every", "completely"...) whose range the evidence
  does not cover, on a claim the evidence otherwise speaks to. The range is covered when an
  output holds the word itself, or, for "all/every/each/both", when every passage about a member
  bears the claim out ("4 mismatches, all from paynest-eu"), or, for "only under S", when a JSON
  output has the item in section S alone.
* ``UNSUPPORTED``: nothing in the evidence is behind the claim (a numeric claim no output holds,
  a claim about the world beyond it such as "the most widely used", or too few of its terms and
  none of its figures in the evidence); every claim of a record without evidence.
* ``SUPPORTED``: otherwise.

The lexical auditor (``affidavit.tasks.audit_lexical``) needs no model; the LLM auditor is in
``affidavit.tasks.audit_llm`` and the scanner in ``affidavit.tasks.audit_scanner``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from affidavit.schemas.audits import (
    AuditLabel,
    AuditRecord,
    ClaimAudit,
    EvidenceItem,
    make_audit_id,
)
from affidavit.tasks.audit_scanner import (
    ScanHit,
    scan_answer,
)
from affidavit.tasks.charset import decode_user_text
from affidavit.tasks.claims import split_answer_claims
from affidavit.tasks.claims_file import pick_column
from affidavit.tasks.input_checks import check_sessions_file, check_text_file, shown_path
from affidavit.tasks.sanitize import (
    UntrustedJSONError,
    json_type_name,
    loads_untrusted_json,
    strip_control_chars,
)

__all__ = [
    "AUDIT_MIN_QUOTE_CHARS",
    "AuditOutcome",
    "anchor_evidence_quote",
    "attach_flags",
    "audit_key",
    "audit_rows",
    "has_evidence",
    "iter_sessions",
    "read_sessions",
    "record_from_files",
    "scanner_only",
    "split_claims",
]

AUDIT_MIN_QUOTE_CHARS = 8
"""Shortest quote the audit admits, in normalised characters. Tool outputs are terse (``errors
0``, ``14``), so the anchor gate's default of 24 (chosen for articles) would reject genuine
lines; 8 characters still refuse a bare number or word, which matches by coincidence."""

MAX_ANSWER_CHARS = 100_000
"""Longest answer read; a longer one is a counted skip (``answer_too_long``)."""
MAX_EVIDENCE_CHARS = 2_000_000
"""Most characters of evidence outputs read per record; beyond it the record is skipped
(``evidence_too_long``) rather than audited on part of what it read."""

ANSWER_COLUMNS = ("answer", "response", "output_text", "completion", "text")
ID_COLUMNS = ("id", "case_id", "record_id", "session_id", "uid")
EVIDENCE_COLUMNS = ("evidence", "tool_calls", "tools", "context")
_MAX_MESSAGES = 20


# ---------------------------------------------------------------------------------------------
# Reading records.


def _bytes_as_text(value: Any) -> Any:
    """Bytes (a Parquet BYTE_ARRAY column without a string type) read as the text they hold.

    The readers' one decoding (:func:`affidavit.tasks.charset.decode_user_text`); any other
    value is returned as it is.
    """
    if isinstance(value, bytes | bytearray):
        from affidavit.tasks.charset import decode_user_text

        return decode_user_text(bytes(value)).text
    return value


def _evidence_items(value: Any) -> tuple[EvidenceItem, ...]:
    """Parse an evidence value: a list of ``{tool, input, output}`` (or a JSON string of one).

    Raises:
        ValueError: When the value is not such a list.
    """
    value = _bytes_as_text(value)
    if value is None:
        return ()
    if isinstance(value, str):
        if not value.strip():
            return ()
        try:
            value = json.loads(value)
        except ValueError:
            raise ValueError("evidence is a string that is not JSON") from None
    if hasattr(value, "tolist"):  # numpy arrays from Parquet
        value = value.tolist()
    if not isinstance(value, list | tuple):
        raise ValueError(f"evidence is {json_type_name(value)}, not a list")
    items = []
    for i, e in enumerate(value):
        e = _bytes_as_text(e)
        if isinstance(e, str):
            items.append(EvidenceItem("text", "", e))
            continue
        if not isinstance(e, Mapping):
            raise ValueError(f"evidence item {i + 1} is {json_type_name(e)}, not an object")
        out = e.get("output", e.get("content", e.get("result")))
        if out is None:
            raise ValueError(f"evidence item {i + 1} has no output")
        out = _bytes_as_text(out)
        if not isinstance(out, str):
            try:
                out = json.dumps(out, ensure_ascii=False)
            except (TypeError, ValueError):  # bytes inside a list, a NaN…: no JSON of it
                raise ValueError(f"evidence item {i + 1}: its output cannot be read as "
                                 "text") from None
        items.append(EvidenceItem(str(_bytes_as_text(e.get("tool")) or "tool"),
                                  str(_bytes_as_text(e.get("input")) or ""), out))
    return tuple(items)


def _iter_raw(path: str | Path, skips: Counter[str],
              notes: list[str]) -> Iterator[tuple[int, Any]]:
    """Yield ``(line or item number, raw record)``; bad JSON lines are counted skips."""
    name, path = shown_path(path), Path(path)

    def note(msg: str) -> None:
        if len(notes) < _MAX_MESSAGES:
            notes.append(msg)

    suffixes = [s.lower() for s in path.suffixes if s.lower() != ".gz"]
    ext = suffixes[-1] if suffixes else ""
    if ext == ".parquet":
        import pyarrow.parquet as pq

        from affidavit.tasks.ingest_common import arrow_rows

        try:
            pf = pq.ParquetFile(path)
        except Exception as exc:  # noqa: BLE001 - any reader error is a bad file
            raise ValueError(f"{name}: not a readable Parquet file: {exc}") from None
        n = 0
        for batch in pf.iter_batches(batch_size=1024):
            for row in arrow_rows(batch):
                n += 1
                yield n, row
        return
    import gzip

    from affidavit.tasks.charset import open_user_text

    raw = path.open("rb")
    # the readers' one decoding (a byte-order mark, else UTF-8 with Windows-1252 repairs)
    fh = open_user_text(gzip.open(raw) if path.suffix == ".gz" else raw)
    with fh:
        if ext in (".jsonl", ".ndjson", ".jsonlines"):
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    rec = loads_untrusted_json(line)
                except UntrustedJSONError as exc:  # deep nesting, huge integers too
                    skips["bad_json"] += 1
                    note(f"line {lineno}: invalid JSON: {exc}")
                    continue
                yield lineno, rec
        elif ext == ".json":
            try:
                data = loads_untrusted_json(fh.read())
            except UntrustedJSONError as exc:
                raise ValueError(f"{name}: not valid JSON: {exc}") from None
            if isinstance(data, dict):
                lists = [v for v in data.values() if isinstance(v, list)]
                data = lists[0] if len(lists) == 1 else [data]
            if not isinstance(data, list):
                raise ValueError(f"{name}: holds neither a list nor an object of records")
            yield from enumerate(data, 1)
        else:
            raise ValueError(f"unsupported sessions file {name!r} (jsonl, json, parquet)")


def iter_sessions(
    path: str | Path,
    *,
    skips: Counter[str],
    notes: list[str],
    id_column: str | None = None,
    answer_column: str | None = None,
    evidence_column: str | None = None,
    limit: int | None = None,
) -> Iterator[AuditRecord]:
    """Stream the records of a sessions file (see :func:`read_sessions`), one at a time.

    Skips are counted in ``skips`` and noted in ``notes`` as the stream goes, so a file of a
    million records is never held in memory (a ``.json`` file is parsed whole, by nature).

    Raises:
        FileNotFoundError: When the file does not exist (at the call, not at the first record).
        ValueError: On a file that :func:`affidavit.tasks.input_checks.check_sessions_file`
            refuses (binary data, an unsupported extension) or a negative ``limit`` (at the
            call), or an unreadable JSON or Parquet file (at the first record).
    """
    if limit is not None and limit < 0:
        raise ValueError(f"limit must be >= 0, got {limit}")
    check_sessions_file(path)
    return _records(path, skips, notes, (id_column, answer_column, evidence_column), limit)


SESSIONS_CHECK_MAX_BYTES = 64 * 1024 * 1024
"""Largest ``.json`` sessions file whose first record :func:`check_sessions_columns` reads (a
JSON document is parsed whole; a larger one is left to the reader, which says the same)."""

_FIRST_OBJECT_WITHIN = 1000
"""Records :func:`check_sessions_columns` reads looking for the first object (a bounded cost)."""


def check_sessions_columns(
    path: str | Path,
    *,
    id_column: str | None = None,
    answer_column: str | None = None,
    evidence_column: str | None = None,
) -> None:
    """Refuse a sessions file whose first record has no answer column, or lacks a named one.

    :func:`read_sessions` fixes its columns on the first record that is an object, so such a
    file would give no answer at all (or lose the named id or evidence). The CLI asks this
    before any work starts; the message names the columns looked for and those the record
    has. A Parquet file is judged by its schema.

    Raises:
        ValueError: When the first object record (the schema) has no answer column among
            :data:`ANSWER_COLUMNS`, or lacks a column named by ``id_column``,
            ``answer_column`` or ``evidence_column``; when a JSON or JSONL file holds no
            record at all (``[]``); and when a JSON file is not valid JSON or holds neither a
            list nor an object of records (the reader's own reasons).
    """
    from affidavit.tasks.input_checks import name_keys

    p, name = Path(path), shown_path(path)
    rec: Mapping[str, Any] | None = None
    if p.suffix.lower() == ".parquet":
        import pyarrow.parquet as pq

        try:
            rec = dict.fromkeys(pq.read_schema(p).names)
        except Exception:  # noqa: BLE001 - an unreadable file is the reader's to report
            return
    elif p.suffix.lower() == ".json" and p.stat().st_size > SESSIONS_CHECK_MAX_BYTES:
        return
    else:
        n_read, bad = 0, Counter[str]()
        # a file that is not JSON, or a JSON document that is not records, raises here: it is
        # refused up front with the reader's own reason
        for n, raw in _iter_raw(path, bad, []):
            n_read += 1
            if isinstance(raw, Mapping):
                rec = raw
                break
            if n >= _FIRST_OBJECT_WITHIN:
                break
        if n_read == 0 and not bad:  # (lines that are not JSON: the reader says which)
            raise ValueError(f"{name}: holds no record: a sessions file holds records "
                             "{id, answer, evidence}, one per line (JSONL), a JSON list of them, "
                             "or Parquet")
    if rec is None:
        return
    keys = sorted(map(str, rec))
    where = "schema" if p.suffix.lower() == ".parquet" else "first record"
    has = f"its {where} has {name_keys(keys)}"
    for flag, column in (("--id-column", id_column), ("--answer-column", answer_column),
                         ("--evidence-column", evidence_column)):
        if column is not None and column not in rec:
            raise ValueError(f"{name}: no column {column!r} ({flag}): {has}")
    if answer_column is None and pick_column(rec, None, ANSWER_COLUMNS) is None:
        raise ValueError(f"{name}: no answer column: looked for {', '.join(ANSWER_COLUMNS)}; "
                         f"{has} (name it with --answer-column)")


def _records(path: str | Path, skips: Counter[str], notes: list[str],
             explicit: tuple[str | None, str | None, str | None],
             limit: int | None) -> Iterator[AuditRecord]:
    seen: set[str] = set()
    cols: tuple[str | None, str | None, str | None] | None = None
    n_good = 0
    ext = ([s.lower() for s in Path(path).suffixes if s.lower() != ".gz"] or [""])[-1]
    # notes count from 1 in every format: a JSONL line, a Parquet row, a JSON list's item (the
    # words of the claims and dump readers)
    unit = {".parquet": "row", ".json": "item"}.get(ext, "line")

    def skip(reason: str, n: int, detail: str) -> None:
        skips[reason] += 1
        if len(notes) < _MAX_MESSAGES:
            notes.append(f"{unit} {n}: {detail}")

    if limit == 0:
        return
    for n, rec in _iter_raw(path, skips, notes):
        if not isinstance(rec, Mapping):
            skip("not_an_object", n, "not an object")
            continue
        if cols is None:
            cols = (pick_column(rec, explicit[0], ID_COLUMNS),
                    pick_column(rec, explicit[1], ANSWER_COLUMNS),
                    pick_column(rec, explicit[2], EVIDENCE_COLUMNS))
            notes.insert(0, f"columns: id={cols[0]!r}, answer={cols[1]!r}, evidence={cols[2]!r}")
            if cols[1] is None:
                keys = ", ".join(sorted(map(str, rec))[:12]) or "none"
                notes.insert(1, f"no answer column found among its keys ({keys}); looked for "
                             f"{', '.join(ANSWER_COLUMNS)}: name it with --answer-column")
        icol, acol, ecol = cols
        answer = _bytes_as_text(rec.get(acol)) if acol else None
        if not isinstance(answer, str) or not answer.strip():
            if acol is None:  # said once, in the notes above: counted, not noted per line
                skips["missing_answer"] += 1
            elif answer is not None and not isinstance(answer, str):  # there, of a wrong type
                skip("bad_answer", n, f"the answer in column {acol!r} is "
                     f"{json_type_name(answer)}, not text")
            else:
                skip("missing_answer", n, f"no answer text in column {acol!r}")
            continue
        if len(answer) > MAX_ANSWER_CHARS:
            skip("answer_too_long", n, f"answer of {len(answer)} characters")
            continue
        try:
            evidence = _evidence_items(rec.get(ecol)) if ecol else ()
        except ValueError as exc:
            skip("bad_evidence", n, str(exc))
            continue
        if sum(len(e.output) for e in evidence) > MAX_EVIDENCE_CHARS:
            skip("evidence_too_long", n, "evidence outputs over the size cap")
            continue
        answer, evidence, n_ctl = strip_record_controls(answer, evidence)
        if n_ctl:  # kept, repaired: counted as the claims and dump readers count a row
            skip("control_chars_removed", n, f"{n_ctl} control character(s) removed or "
                 "repaired: kept")
        if not answer.strip():
            skip("missing_answer", n, f"the answer in column {acol!r} holds only control "
                 "characters")
            continue
        rid = _bytes_as_text(rec.get(icol)) if icol else None
        if isinstance(rid, bool | Mapping | list | tuple):  # no id a record could be told by
            skip("bad_id", n, f"the id in column {icol!r} is {json_type_name(rid)}, not text "
                 "or a number")
            continue
        rid = str(rid).strip() if rid is not None and str(rid).strip() else f"line-{n}"
        if rid in seen:
            skip("duplicate_id", n, f"id {rid!r} already read")
            continue
        seen.add(rid)
        yield AuditRecord(rid, answer, evidence, n)
        n_good += 1
        if limit is not None and n_good >= limit:
            return


def read_sessions(
    path: str | Path,
    *,
    id_column: str | None = None,
    answer_column: str | None = None,
    evidence_column: str | None = None,
    limit: int | None = None,
) -> tuple[list[AuditRecord], Counter[str], list[str]]:
    """Read answers to audit from a JSONL, JSON or Parquet file (``.gz`` for the text ones).

    One record per answer, ``{id, answer, evidence: [{tool, input, output}]}`` (the audit-dev
    shape). Columns not given are found case-insensitively among :data:`ID_COLUMNS`,
    :data:`ANSWER_COLUMNS` and :data:`EVIDENCE_COLUMNS`. A record without evidence is kept (the
    scanner alone audits it); a malformed one is skipped, counted by reason and noted with its
    line (JSONL), row (Parquet) or item number (JSON); the rest are kept. Ids repeated in one
    file: the first wins.

    Args:
        path: The file.
        id_column: Column of the record id; a record without one gets ``line-<n>``.
        answer_column: Column of the answer text.
        evidence_column: Column of the evidence list.
        limit: Stop after this many good records.

    Returns:
        ``(records, skips, notes)``: skips by reason (``bad_json``, ``not_an_object``,
        ``missing_answer``, ``bad_answer`` (an answer that is not text: a number, a list),
        ``bad_id``, ``bad_evidence``, ``answer_too_long``, ``evidence_too_long``,
        ``duplicate_id``); notes name the columns used and the first skipped lines.

    Raises:
        FileNotFoundError: When the file does not exist.
        ValueError: On an unsupported extension, an unreadable JSON or Parquet file, or a
            negative ``limit``.
    """
    skips: Counter[str] = Counter()
    notes: list[str] = []
    records = list(iter_sessions(path, skips=skips, notes=notes, id_column=id_column,
                                 answer_column=answer_column, evidence_column=evidence_column,
                                 limit=limit))
    return records, skips, notes


def strip_record_controls(
    answer: str, evidence: Sequence[EvidenceItem]
) -> tuple[str, tuple[EvidenceItem, ...], int]:
    r"""Remove terminal escapes and control characters from an answer and its evidence.

    As ``verify`` and the claims and dump readers do
    (:func:`affidavit.tasks.sanitize.strip_control_chars`: tabs and line breaks kept, a
    Windows-1252 character decoded as a C1 control repaired): a NUL or an escape sequence in
    a log would otherwise reach the stored quotes and the terminal. Quotes are then located in
    the cleaned evidence, which is what is stored.

    Returns:
        ``(answer, evidence, n)``: the cleaned texts and how many characters were removed or
        repaired in all.

    >>> ev = [EvidenceItem("shell", "pytest", "3 passed\x00")]
    >>> a, ev, n = strip_record_controls("ok\x07", ev)
    >>> a, ev[0].output, n
    ('ok', '3 passed', 2)
    """
    answer, n = strip_control_chars(answer)
    items = []
    for e in evidence:
        out, k = strip_control_chars(e.output)
        inp, j = strip_control_chars(e.input)
        n += k + j
        items.append(EvidenceItem(e.tool, inp, out) if k or j else e)
    return answer, tuple(items), n


def record_from_files(answer_path: str | Path, evidence_paths: Sequence[str | Path], *,
                      notes: list[str] | None = None) -> AuditRecord:
    """Build one record from an answer file and evidence files (each file one tool output).

    Control characters are removed from each file's text (:func:`strip_record_controls`);
    each file that had some is noted in ``notes``.

    Raises:
        FileNotFoundError: When a file does not exist.
        ValueError: When the answer is empty (or only control characters), or a file is not
            text (see :func:`affidavit.tasks.input_checks.check_text_file`).
    """
    ap = Path(answer_path)
    check_text_file(answer_path, "answer file")
    answer, n_ctl = strip_control_chars(decode_user_text(ap.read_bytes()).text)
    if not answer.strip():
        raise ValueError(f"{shown_path(answer_path)}: holds no answer text")
    said = [(answer_path, n_ctl)]
    items = []
    for e in evidence_paths:
        check_text_file(e, "evidence file")
        output, n_ctl = strip_control_chars(decode_user_text(Path(e).read_bytes()).text)
        said.append((e, n_ctl))
        items.append(EvidenceItem("read_file", str(e), output))
    if notes is not None:
        notes += [f"{shown_path(path)}: {n} control character(s) removed or repaired"
                  for path, n in said if n]
    return AuditRecord(ap.name, answer, tuple(items), None)


# ---------------------------------------------------------------------------------------------
# Claims and quotes.


def split_claims(answer: str, *, skips: Counter[str] | None = None) -> list[ClaimAudit]:
    """Split an answer into its claims (the claims stage's ``split_answer_claims``), unlabelled.

    Questions and instructions are not claims: they are left out and counted in ``skips`` by
    reason (``question_not_a_claim``, ``instruction_not_a_claim``). An answer with no sentence
    the stage keeps and none it left out is one claim, whole; one made only of questions and
    instructions has none.
    """
    left_out: Counter[str] = Counter()
    cands = split_answer_claims(answer, skips=left_out)
    if skips is not None:
        skips.update(left_out)
    if not cands:
        text = " ".join(answer.split())
        return [ClaimAudit(text, 0, len(answer))] if text and not left_out else []
    return [ClaimAudit(c.text, c.span_start, c.span_end) for c in cands]


def attach_flags(claims: Sequence[ClaimAudit], flags: Sequence[ScanHit]) -> None:
    """Append each scanner flag to the claim whose span holds it (in place)."""
    for h in flags:
        for c in claims:
            if c.span_start is not None and c.span_start <= h.start < (c.span_end or 0):
                c.flags.append(h.flag)
                break


def anchor_evidence_quote(
    quote: str, outputs: Sequence[str], *, prefer: int | None = None
) -> tuple[int | None, Any]:
    """Locate a quote in a record's evidence outputs with the anchor gate.

    Args:
        quote: The quote.
        outputs: The record's evidence outputs.
        prefer: Index of the output to try first (the one the quote was taken from).

    Returns:
        ``(evidence_index, Anchor)``: the first output that admits the quote, or ``(None,
        FAILED anchor)``.
    """
    from affidavit.tasks.anchor import anchor_quote

    order = list(range(len(outputs)))
    if prefer is not None and 0 <= prefer < len(outputs):
        order.remove(prefer)
        order.insert(0, prefer)
    last = None
    for i in order:
        a = anchor_quote(quote, outputs[i], min_chars=AUDIT_MIN_QUOTE_CHARS, diagnose=False)
        if a.is_admitted:
            return i, a
        last = a
    if last is None:
        last = anchor_quote(quote, "", min_chars=AUDIT_MIN_QUOTE_CHARS)
    return None, last


# ---------------------------------------------------------------------------------------------
# One record, end to end.


@dataclass(slots=True)
class AuditOutcome:
    """The audit of one record.

    Attributes:
        record: The record.
        auditor: ``"scanner"`` (no evidence), ``"lexical"`` or ``"llm:<model>"``.
        claims: Its claims, labelled (``label`` None where a failed model left them).
        flags: Scanner hits.
        degraded: Why the auditor could not label the record, or ``None``.
        n_demoted: Model contradictions whose quote failed the anchor gate.
        latency_ms: Time spent by the auditor on the record (model calls), or ``None``.
        skipped: Sentences and clauses of the answer left out as not claims, by reason
            (see :func:`split_claims`).
    """

    record: AuditRecord
    auditor: str
    claims: list[ClaimAudit]
    flags: list[ScanHit]
    degraded: str | None = None
    n_demoted: int = 0
    latency_ms: int | None = None
    skipped: Counter[str] = field(default_factory=Counter)


def has_evidence(record: AuditRecord) -> bool:
    """Whether a record has evidence to audit against (blank outputs are no evidence)."""
    return any(e.output.strip() for e in record.evidence)


def audit_key(record: AuditRecord, auditor: str) -> str:
    """Return the ``audit_id`` a successful audit of ``record`` by ``auditor`` gets.

    ``"scanner"`` stands in for any auditor when the record has no evidence. Flows use it to
    skip records already audited before auditing them again.
    """
    return make_audit_id(record, auditor if has_evidence(record) else "scanner")


def scanner_only(record: AuditRecord) -> AuditOutcome | None:
    """Audit a record by the scanner alone when it has no evidence (every claim UNSUPPORTED).

    A record whose every evidence output is blank has no evidence either.

    Returns:
        The outcome, or ``None`` when the record has evidence (an auditor must label it).
    """
    if has_evidence(record):
        return None
    skipped: Counter[str] = Counter()
    claims = split_claims(record.answer, skips=skipped)
    flags = scan_answer(record.answer, [])
    attach_flags(claims, flags)
    for c in claims:
        c.label = AuditLabel.UNSUPPORTED
        c.reason = "no evidence was read"
    return AuditOutcome(record, "scanner", claims, flags, skipped=skipped)


def audit_rows(
    outcome: AuditOutcome, *, run_id: str, now: datetime, source: str | None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Build the ``audits`` row and the ``audit_claims`` rows of one outcome.

    Returns:
        ``(audit_row, claim_rows)`` with the columns of ``AUDITS_SCHEMA`` and
        ``AUDIT_CLAIMS_SCHEMA``.
    """
    rec = outcome.record
    audit_id = make_audit_id(rec, outcome.auditor)
    if outcome.degraded is not None and outcome.degraded.startswith("llm failed"):
        # a failed audit is kept as the run's record of it, under an id of its own, so that
        # the next run audits the record again instead of finding it done
        audit_id = make_audit_id(rec, f"{outcome.auditor}#failed:{run_id}")
    labels = Counter(c.label for c in outcome.claims)
    row = {
        "audit_id": audit_id,
        "record_id": rec.record_id,
        "run_id": run_id,
        "source": source,
        "answer": rec.answer,
        "content_sha256": rec.content_sha256,
        "auditor": outcome.auditor,
        "n_evidence": len(rec.evidence),
        "n_claims": len(outcome.claims),
        "n_supported": labels[AuditLabel.SUPPORTED],
        "n_overstated": labels[AuditLabel.OVERSTATED],
        "n_unsupported": labels[AuditLabel.UNSUPPORTED],
        "n_contradicted": labels[AuditLabel.CONTRADICTED],
        "n_unlabelled": labels[None],
        "n_demoted": outcome.n_demoted,
        "scanner_flags": [h.flag for h in outcome.flags],
        "n_scanner_flags": len(outcome.flags),
        "degraded": outcome.degraded,
        "latency_ms": outcome.latency_ms,
        "audited_at": now,
    }
    claim_rows = [
        {
            "audit_id": audit_id,
            "claim_index": i,
            "record_id": rec.record_id,
            "text": c.text,
            "span_start": c.span_start,
            "span_end": c.span_end,
            "label": c.label.value if c.label is not None else None,
            "reason": c.reason,
            "quote": c.quote or None,
            "evidence_index": c.evidence_index,
            "quote_start": c.quote_start,
            "quote_end": c.quote_end,
            "anchor": c.anchor,
            "flags": list(c.flags),
            "is_demoted": c.is_demoted,
            "auditor": outcome.auditor,
        }
        for i, c in enumerate(outcome.claims)
    ]
    return row, claim_rows
