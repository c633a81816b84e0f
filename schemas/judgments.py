"""The ``judgments`` table and the in-memory records a judge and the anchor gate return."""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

from affidavit.schemas._meta import UTC_TS, table_schema
from affidavit.schemas.enums import AnchorKind, Stance


@dataclass(frozen=True, slots=True)
class Anchor:
    """Where a quote sits in its source text, or why it could not be located.

    Attributes:
        kind: EXACT, NORMALIZED or FAILED.
        span_start: Start offset in the original text (characters), ``None`` when FAILED.
        span_end: End offset, exclusive, ``None`` when FAILED.
        reason: Why the quote was rejected (``None`` when located), e.g. ``"not_found"``,
            ``"too_short"``, ``"empty_quote"``, ``"empty_document"``, ``"content_changed"``.
        best_overlap: Diagnostic only, for FAILED: best token overlap of a near miss (0..1).
    """

    kind: AnchorKind
    span_start: int | None = None
    span_end: int | None = None
    reason: str | None = None
    best_overlap: float | None = None

    @property
    def is_admitted(self) -> bool:
        """Whether the quote was located (EXACT or NORMALIZED)."""
        return self.kind is not AnchorKind.FAILED


@dataclass(frozen=True, slots=True)
class JudgeResult:
    """One judge's decision on one (claim, document) pair.

    Attributes:
        stance: SUPPORTS, PARTIAL, REFUTES or NEUTRAL.
        relevance: How much the document is about the claim, 0..1.
        quote: The passage of the document that shows the stance ("" for NEUTRAL with nothing).
        rationale: A short human-readable reason.
        judge: Name of the judge that decided (``"lexical"``, ``"llm:<model>"``, or
            ``"lexical(fallback)"`` when the LLM judge failed on this pair).
        is_failure: True when the judge could not decide (the pair counts as a judge failure).
    """

    stance: Stance
    relevance: float
    quote: str
    rationale: str = ""
    judge: str = "lexical"
    is_failure: bool = False


JUDGMENTS_SCHEMA = table_schema(
    [
        pa.field("run_id", pa.string(), nullable=False),
        pa.field("claim_id", pa.string(), nullable=False),
        pa.field("doc_id", pa.string(), nullable=False),
        pa.field("judge", pa.string(), nullable=False),
        pa.field("side", pa.string(), nullable=False),  # schemas.enums.Side
        pa.field("stance", pa.string(), nullable=False),  # schemas.enums.Stance
        pa.field("relevance", pa.float64()),
        pa.field("quote", pa.string()),
        pa.field("rationale", pa.string()),
        pa.field("anchor", pa.string(), nullable=False),  # schemas.enums.AnchorKind
        pa.field("span_start", pa.int32()),
        pa.field("span_end", pa.int32()),
        pa.field("content_sha256", pa.string()),  # hash of the text the quote was anchored in
        pa.field("is_admitted", pa.bool_(), nullable=False),
        pa.field("reject_reason", pa.string()),
        pa.field("judged_at", UTC_TS, nullable=False),
    ],
    name="judgments",
    grain="one row per (run, claim, document, judge)",
    key=("run_id", "claim_id", "doc_id", "judge"),
    version=1,
)
