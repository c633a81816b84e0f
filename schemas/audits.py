"""The ``audits`` and ``audit_claims`` tables, and the in-memory records of the answer audit.

An audit checks an answer (what an assistant or agent said) against the evidence it was written
from (the outputs of the tool calls it read), claim by claim, against that evidence only.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from enum import StrEnum

import pyarrow as pa

from affidavit.schemas._meta import UTC_TS, table_schema


class AuditLabel(StrEnum):
    """Label of one claim of an audited answer, against that answer's evidence only."""

    SUPPORTED = "SUPPORTED"
    OVERSTATED = "OVERSTATED"
    UNSUPPORTED = "UNSUPPORTED"
    CONTRADICTED = "CONTRADICTED"


@dataclass(frozen=True, slots=True)
class EvidenceItem:
    """One tool call the answer read.

    Attributes:
        tool: Tool name (``read_file``, ``shell``, ``fetch``, ``search``, ``file``...).
        input: What the tool was asked (a path, a command, a URL); never evidence itself.
        output: What the tool returned: the evidence text.
    """

    tool: str
    input: str
    output: str


@dataclass(frozen=True, slots=True)
class AuditRecord:
    """One answer to audit with its evidence.

    Attributes:
        record_id: The record's id in its input (or a hash of its content when it has none).
        answer: The answer text.
        evidence: The tool calls it read; empty when none (the scanner alone audits it).
        line: Line (JSONL) or record number (JSON, Parquet) in its input, 1-based.
    """

    record_id: str
    answer: str
    evidence: tuple[EvidenceItem, ...] = ()
    line: int | None = None

    @property
    def content_sha256(self) -> str:
        """SHA-256 (hex) of the answer and the evidence outputs and inputs, in order."""
        payload = json.dumps(
            [self.answer, [[e.tool, e.input, e.output] for e in self.evidence]],
            ensure_ascii=False,
        )
        return hashlib.sha256(payload.encode("utf-8", "replace")).hexdigest()


def make_audit_id(record: AuditRecord, auditor: str) -> str:
    """Return the ``audit_id``: 16 hex chars of SHA-256 of (record id, content, auditor).

    The same record audited by the same auditor has the same id, so loads are idempotent; a
    record whose answer or evidence changed, or another auditor, gets a new row.
    """
    key = f"{record.record_id}\x1f{record.content_sha256}\x1f{auditor}"
    return hashlib.sha256(key.encode("utf-8", "replace")).hexdigest()[:16]


@dataclass(slots=True)
class ClaimAudit:
    """The audit of one claim of an answer.

    Attributes:
        text: The claim as it stands in the answer (whitespace collapsed).
        span_start: Start offset of the claim in the answer (characters).
        span_end: End offset, exclusive.
        label: The label, or ``None`` when the auditor left it unlabelled (a failed model call).
        reason: Why, in one short sentence.
        quote: The evidence passage that decides it ("" when nothing does).
        evidence_index: Index of the evidence output the quote is in, or ``None``.
        quote_start: Start offset of the quote in that output, or ``None``.
        quote_end: End offset, exclusive, or ``None``.
        anchor: EXACT | NORMALIZED | FAILED for a quote, ``None`` without one.
        flags: The scanner flags that fall inside this claim.
        is_demoted: A model's CONTRADICTED whose quote failed the anchor gate (kept as a flag).
    """

    text: str
    span_start: int | None
    span_end: int | None
    label: AuditLabel | None = None
    reason: str = ""
    quote: str = ""
    evidence_index: int | None = None
    quote_start: int | None = None
    quote_end: int | None = None
    anchor: str | None = None
    flags: list[str] = field(default_factory=list)
    is_demoted: bool = False


AUDITS_SCHEMA = table_schema(
    [
        pa.field("audit_id", pa.string(), nullable=False),
        pa.field("record_id", pa.string(), nullable=False),
        pa.field("run_id", pa.string(), nullable=False),  # the run that first wrote the row
        pa.field("source", pa.string()),  # input file, or "answer:<path>"
        pa.field("answer", pa.string(), nullable=False),
        pa.field("content_sha256", pa.string(), nullable=False),
        pa.field("auditor", pa.string(), nullable=False),  # "lexical", "llm:<model>", "scanner"
        pa.field("n_evidence", pa.int32(), nullable=False),
        pa.field("n_claims", pa.int32(), nullable=False),
        pa.field("n_supported", pa.int32(), nullable=False),
        pa.field("n_overstated", pa.int32(), nullable=False),
        pa.field("n_unsupported", pa.int32(), nullable=False),
        pa.field("n_contradicted", pa.int32(), nullable=False),
        pa.field("n_unlabelled", pa.int32(), nullable=False),
        pa.field("n_demoted", pa.int32(), nullable=False),  # model contradictions not anchored
        pa.field("scanner_flags", pa.list_(pa.string())),
        pa.field("n_scanner_flags", pa.int32(), nullable=False),
        pa.field("degraded", pa.string()),  # why the auditor could not label; NULL when it did
        pa.field("latency_ms", pa.int32()),
        pa.field("audited_at", UTC_TS, nullable=False),
    ],
    name="audits",
    grain="one row per audited answer (record, content, auditor)",
    key=("audit_id",),
    version=1,
)

AUDIT_CLAIMS_SCHEMA = table_schema(
    [
        pa.field("audit_id", pa.string(), nullable=False),
        pa.field("claim_index", pa.int32(), nullable=False),
        pa.field("record_id", pa.string(), nullable=False),
        pa.field("text", pa.string(), nullable=False),
        pa.field("span_start", pa.int32()),  # offsets in the answer, end exclusive
        pa.field("span_end", pa.int32()),
        pa.field("label", pa.string()),  # AuditLabel; NULL when left unlabelled
        pa.field("reason", pa.string()),
        pa.field("quote", pa.string()),
        pa.field("evidence_index", pa.int32()),  # which evidence output holds the quote
        pa.field("quote_start", pa.int32()),  # offsets of the quote in that output
        pa.field("quote_end", pa.int32()),
        pa.field("anchor", pa.string()),  # schemas.enums.AnchorKind; NULL without a quote
        pa.field("flags", pa.list_(pa.string())),
        pa.field("is_demoted", pa.bool_(), nullable=False),
        pa.field("auditor", pa.string(), nullable=False),
    ],
    name="audit_claims",
    grain="one row per (audit, claim)",
    key=("audit_id", "claim_index"),
    version=1,
)
