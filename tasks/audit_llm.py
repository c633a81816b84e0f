"""LLM auditor: an OpenAI-compatible chat endpoint labels an answer's claims against its evidence.

Same endpoint configuration as the LLM judge (``affidavit.tasks.judge_llm.LLMJudgeConfig``, read
from ``AFFIDAVIT_LLM_*``); the auditor is an :class:`~affidavit.tasks.judge_llm.LLMJudge` and
reuses its HTTP client, retries with backoff and JSON salvage. What differs:

* one call per record (all its claims at once), with a fixed method prompt
  (:data:`METHOD_PROMPT`) plus a facts-and-limits card the user names (what the model may take as
  known and what it must not assume);
* temperature 0 and a hard output cap (``max_tokens``);
* evidence longer than a cap is shortened per output, keeping head and tail around a marked cut
  (:func:`shorten_output`);
* prose, code fences and truncated JSON are salvaged (:func:`parse_audit_reply`): the claims
  read before the cut keep their labels, the rest stay unlabelled;
* it fails open: on an error or timeout the record is left unlabelled by the model, with the
  reason in :attr:`AuditOutcome.degraded` (stored in ``audits`` and counted in ``runs``);
* a per-record latency cap and at most ``concurrency`` calls in flight;
* **every CONTRADICTED carries a quote the anchor gate finds in that record's evidence**; a
  model contradiction whose quote is not found is demoted (label UNSUPPORTED, flag
  ``contradiction-unanchored``, ``is_demoted``) and counted; it never stands;
* a record with no evidence is never sent: the scanner alone audits it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path
from typing import Any

import httpx

from affidavit.schemas.audits import AuditLabel, AuditRecord, ClaimAudit
from affidavit.tasks.audit import (
    AuditOutcome,
    anchor_evidence_quote,
    attach_flags,
    scanner_only,
    split_claims,
)
from affidavit.tasks.audit_scanner import scan_answer
from affidavit.tasks.judge_llm import (
    DOC_CHAR_CAP,
    LLMJudge,
    LLMJudgeConfig,
    LLMJudgeError,
    llm_config_from_env,
    salvage_json,
)

__all__ = [
    "DEMOTED_FLAG",
    "EVIDENCE_CHAR_CAP",
    "METHOD_PROMPT",
    "RECORD_TIMEOUT_S",
    "LLMAuditor",
    "audit_config_from_env",
    "audit_limits_from_env",
    "build_audit_messages",
    "parse_audit_reply",
    "read_card",
    "shorten_output",
]

EVIDENCE_CHAR_CAP = DOC_CHAR_CAP
"""Most characters of evidence sent per record (the LLM judge's document cap: ~6,000 tokens,
which fits the 8k context of small local models with the prompt and the answer)."""
RECORD_TIMEOUT_S = 120.0
"""Per-record latency cap, seconds: a record whose call (with its retries) is not back by then
is left unlabelled by the model (fail open)."""
AUDIT_MAX_TOKENS = 1024
"""Output cap of one call: about 40 tokens a claim for the 5-25 claims of an answer."""
DEMOTED_FLAG = "contradiction-unanchored"
"""Flag set on a claim whose model CONTRADICTED came with a quote the anchor gate rejected."""
CUT_MARK = "\n[... {n} characters cut ...]\n"

METHOD_PROMPT = (
    "You audit an ANSWER against the EVIDENCE it was written from (the outputs of the tools the "
    "answer's author read). Judge every numbered CLAIM against that evidence only; what you "
    "know of the world is not evidence. Labels: SUPPORTED (the evidence states it, or it "
    "follows directly); OVERSTATED (the evidence supports a narrower version: an 'all', "
    "'every', 'always', 'completely', 'only' or 'never' that goes beyond what was read); "
    "UNSUPPORTED (nothing read speaks to it); CONTRADICTED (the evidence says otherwise about "
    "the same thing: another figure, version, date, count, or the negation). For CONTRADICTED "
    "the quote is required and must be copied verbatim from one evidence output; for the other "
    "labels give the deciding passage verbatim, or an empty quote. Reply with one JSON object "
    'only: {"claims": [{"index": 1, "label": "...", "reason": "...", "quote": "..."}]}, one '
    "entry per claim, in order; reasons are one short sentence."
)
"""The fixed method prompt; the user's facts-and-limits card is appended to it."""


def audit_config_from_env(environ: Mapping[str, str] = os.environ) -> LLMJudgeConfig | None:
    """The LLM judge's endpoint configuration (``AFFIDAVIT_LLM_*``), with the audit's output cap.

    Returns:
        The configuration, or ``None`` when no endpoint is configured.

    Raises:
        ValueError: As :func:`~affidavit.tasks.judge_llm.llm_config_from_env`.
    """
    cfg = llm_config_from_env(environ)
    if cfg is None:
        return None
    return dataclasses.replace(cfg, max_tokens=max(cfg.max_tokens, AUDIT_MAX_TOKENS))


MAX_RECORD_TIMEOUT_S = 86_400.0
"""Largest per-record latency cap taken, in seconds (one day; convention): a record still
unanswered after a day has failed, and an infinite cap would overflow the deadline's clock."""


def audit_limits_from_env(environ: Mapping[str, str] = os.environ) -> dict[str, Any]:
    """Read the LLM auditor's limits from the environment.

    ``AFFIDAVIT_AUDIT_RECORD_TIMEOUT_S`` is the per-record latency cap in seconds (at most
    :data:`MAX_RECORD_TIMEOUT_S`) and ``AFFIDAVIT_AUDIT_EVIDENCE_CHARS`` the evidence
    characters sent per record.

    Returns:
        Keyword arguments of :class:`LLMAuditor` (only those set).

    Raises:
        ValueError: When a value is not a positive number, or a cap is not finite or is
            above :data:`MAX_RECORD_TIMEOUT_S` ("inf" and "nan" read as floats).
    """
    out: dict[str, Any] = {}
    for var, key, kind in (("AFFIDAVIT_AUDIT_RECORD_TIMEOUT_S", "record_timeout_s", float),
                           ("AFFIDAVIT_AUDIT_EVIDENCE_CHARS", "evidence_char_cap", int)):
        raw = environ.get(var, "").strip()
        if not raw:
            continue
        try:
            value = kind(raw)
        except ValueError:
            raise ValueError(f"{var} is not a number: {raw!r}") from None
        if not value > 0:  # NaN too
            raise ValueError(f"{var} must be positive: {raw!r}")
        if kind is float and not value <= MAX_RECORD_TIMEOUT_S:
            raise ValueError(f"{var} must be at most {MAX_RECORD_TIMEOUT_S:g} seconds: {raw!r}")
        out[key] = value
    return out


def read_card(path: str | Path | None) -> str:
    """Read a facts-and-limits card (UTF-8 text); "" when no path is given.

    Raises:
        FileNotFoundError: When the file does not exist.
    """
    if path is None:
        return ""
    p = Path(path)
    p.stat()  # a missing file (FileNotFoundError), a symlink loop: raised with its errno
    if not p.is_file():
        raise FileNotFoundError(p)
    from affidavit.tasks.charset import decode_user_text

    return decode_user_text(p.read_bytes()).text.strip()


def shorten_output(text: str, cap: int) -> str:
    r"""Shorten an evidence output to about ``cap`` characters: head and tail, cut marked.

    >>> shorten_output("a" * 10 + "b" * 10, 8)
    'aaaa\n[... 12 characters cut ...]\nbbbb'
    >>> shorten_output("short", 8)
    'short'
    """
    if len(text) <= cap:
        return text
    head = cap // 2
    tail = cap - head
    return text[:head] + CUT_MARK.format(n=len(text) - cap) + text[len(text) - tail:]


def _shares(lengths: Sequence[int], cap: int) -> list[int]:
    """Split a character budget among outputs: short ones whole, the rest share what is left."""
    shares = [0] * len(lengths)
    left, todo = cap, sorted(range(len(lengths)), key=lambda i: lengths[i])
    while todo:
        fair = left // len(todo)
        i = todo[0]
        if lengths[i] <= fair:
            shares[i] = lengths[i]
            left -= lengths[i]
            todo.pop(0)
        else:
            for j in todo:
                shares[j] = max(fair, 200)
            break
    return shares


def build_audit_messages(
    record: AuditRecord, claims: Sequence[ClaimAudit], *, card: str = "",
    char_cap: int = EVIDENCE_CHAR_CAP,
) -> list[dict[str, str]]:
    """Build the chat messages of one record.

    Args:
        record: The record (with evidence).
        claims: Its claims, numbered from 1 in the prompt.
        card: The facts-and-limits card, appended to the method prompt.
        char_cap: Most characters of evidence output text sent (see :func:`shorten_output`).

    Returns:
        A system and a user message in the OpenAI chat format.
    """
    system = METHOD_PROMPT
    if card:
        system += "\n\nFACTS AND LIMITS CARD (what you may take as known, and what not):\n" + card
    shares = _shares([len(e.output) for e in record.evidence], char_cap)
    parts = [f"ANSWER:\n{record.answer}", "CLAIMS:"]
    parts += [f"{i}. {c.text}" for i, c in enumerate(claims, 1)]
    parts.append("EVIDENCE:")
    for i, (e, share) in enumerate(zip(record.evidence, shares, strict=True), 1):
        parts.append(f"[{i}] {e.tool}: {e.input}\n{shorten_output(e.output, share)}")
    parts.append("Answer with the JSON object only.")
    return [{"role": "system", "content": system}, {"role": "user", "content": "\n\n".join(parts)}]


_LABELS = {
    "SUPPORTED": AuditLabel.SUPPORTED, "SUPPORTS": AuditLabel.SUPPORTED,
    "OVERSTATED": AuditLabel.OVERSTATED, "OVERSTATES": AuditLabel.OVERSTATED,
    "UNSUPPORTED": AuditLabel.UNSUPPORTED, "NOT SUPPORTED": AuditLabel.UNSUPPORTED,
    "NOT_ENOUGH_INFO": AuditLabel.UNSUPPORTED, "CONTRADICTED": AuditLabel.CONTRADICTED,
    "CONTRADICTS": AuditLabel.CONTRADICTED, "REFUTED": AuditLabel.CONTRADICTED,
}  # fmt: skip


def parse_audit_reply(content: str, n_claims: int) -> dict[int, dict[str, Any]]:
    """Read the per-claim entries of a model reply, salvaging what can be salvaged.

    The whole object (bare, in prose or in a code fence: ``judge_llm.salvage_json``) is read
    first; when the reply was cut off, each complete ``{...}`` entry before the cut is read.

    Args:
        content: The model's message content.
        n_claims: Number of claims sent (entries outside 1..n are ignored).

    Returns:
        ``{claim index (0-based): {"label": AuditLabel, "reason": str, "quote": str}}``; claims
        without a usable entry are missing.

    Raises:
        LLMJudgeError: When no entry at all can be read.
    """
    entries: list[Any] = []
    obj = salvage_json(content)
    if isinstance(obj, dict) and isinstance(obj.get("claims"), list):
        entries = obj["claims"]
    if not entries:
        dec = json.JSONDecoder()
        pos = content.find("[")
        i = content.find("{", pos + 1 if pos >= 0 else 0)
        while 0 <= i < len(content):
            try:
                item, end = dec.raw_decode(content, i)
            except ValueError:
                i = content.find("{", i + 1)
                continue
            if isinstance(item, dict) and "label" in item:
                entries.append(item)
            i = content.find("{", end)
    out: dict[int, dict[str, Any]] = {}
    for k, e in enumerate(entries):
        if not isinstance(e, dict):
            continue
        label = _LABELS.get(str(e.get("label", "")).strip().upper().replace("-", "_"))
        try:
            idx = int(e.get("index", k + 1)) - 1
        except (TypeError, ValueError):
            idx = k
        if label is None or not 0 <= idx < n_claims or idx in out:
            continue
        quote = e.get("quote") or ""
        out[idx] = {"label": label, "reason": str(e.get("reason") or ""),
                    "quote": quote if isinstance(quote, str) else str(quote)}
    if not out:
        raise LLMJudgeError("reply holds no usable claim entry")
    return out


class LLMAuditor(LLMJudge):
    """Audit records with an OpenAI-compatible chat endpoint (see the module docstring).

    Args:
        config: Endpoint and limits (``concurrency`` caps calls in flight; ``max_tokens`` is the
            output cap; ``timeout_s`` one call's timeout, bounded by ``record_timeout_s``).
        card: The facts-and-limits card text.
        client: An ``httpx.Client`` (tests); by default one is created and closed by
            :meth:`close`.
        evidence_char_cap: Most characters of evidence sent per record.
        record_timeout_s: Per-record latency cap, seconds.

    Attributes:
        name: ``"llm:<model>"``.
        n_failures: Records the model could not label (fail open).
        n_demoted: Model contradictions demoted for an unanchored quote.

    Raises:
        ValueError: On a non-positive cap or timeout.
    """

    def __init__(
        self,
        config: LLMJudgeConfig,
        *,
        card: str = "",
        client: httpx.Client | None = None,
        evidence_char_cap: int = EVIDENCE_CHAR_CAP,
        record_timeout_s: float = RECORD_TIMEOUT_S,
    ) -> None:
        if evidence_char_cap <= 0 or record_timeout_s <= 0:
            raise ValueError("evidence_char_cap and record_timeout_s must be positive")
        config = dataclasses.replace(config, timeout_s=min(config.timeout_s, record_timeout_s))
        super().__init__(config, client=client, fallback=object())  # no fallback judge
        self.card = card
        self.evidence_char_cap = evidence_char_cap
        self.record_timeout_s = record_timeout_s
        self.n_failures = 0
        self.n_demoted = 0

    def audit_records(self, records: Sequence[AuditRecord]) -> list[AuditOutcome]:
        """Audit records, at most ``concurrency`` calls in flight; one outcome each, in order.

        Records without evidence are audited by the scanner alone, never sent.
        """
        outcomes: list[AuditOutcome | None] = [None] * len(records)
        todo: list[int] = []
        for i, r in enumerate(records):
            only = scanner_only(r)
            if only is not None:
                outcomes[i] = only
            else:
                todo.append(i)
        if todo:
            pool = ThreadPoolExecutor(max_workers=min(self.config.concurrency, len(todo)))
            try:
                futures = {i: pool.submit(self._audit_one, records[i]) for i in todo}
                for i in todo:
                    started = time.monotonic()
                    try:
                        outcomes[i] = futures[i].result(timeout=self.record_timeout_s + 1.0)
                    except FutureTimeout:
                        outcomes[i] = self._failed(records[i], "record latency cap "
                                                   f"{self.record_timeout_s:g} s exceeded",
                                                   int((time.monotonic() - started) * 1000))
            finally:
                pool.shutdown(wait=False, cancel_futures=True)
        return [o for o in outcomes if o is not None]

    def _failed(self, record: AuditRecord, reason: str, latency_ms: int | None) -> AuditOutcome:
        skipped: Counter[str] = Counter()
        claims = split_claims(record.answer, skips=skipped)
        flags = scan_answer(record.answer, [e.output for e in record.evidence])
        attach_flags(claims, flags)
        for c in claims:
            c.reason = f"left unlabelled: the LLM auditor failed ({reason})"
        with self._lock:
            self.n_failures += 1
            self.degradations.append(f"{record.record_id}: {reason}")
        return AuditOutcome(record, self.name, claims, flags, degraded=f"llm failed: {reason}",
                            latency_ms=latency_ms, skipped=skipped)

    def _audit_one(self, record: AuditRecord) -> AuditOutcome:
        t0 = time.monotonic()
        skipped: Counter[str] = Counter()
        claims = split_claims(record.answer, skips=skipped)
        outputs = [e.output for e in record.evidence]
        flags = scan_answer(record.answer, outputs)
        attach_flags(claims, flags)
        body = {
            "model": self.config.model,
            "messages": build_audit_messages(record, claims, card=self.card,
                                             char_cap=self.evidence_char_cap),
            "temperature": 0,
            "max_tokens": self.config.max_tokens,
        }
        try:
            data = self._post_with_retries(self.config.endpoint("chat/completions"), body)
            try:
                content = data["choices"][0]["message"]["content"] or ""
            except (KeyError, IndexError, TypeError):
                raise LLMJudgeError("reply has no choices[0].message.content") from None
            entries = parse_audit_reply(content, len(claims))
        except (LLMJudgeError, httpx.HTTPError) as exc:
            return self._failed(record, f"{type(exc).__name__}: {exc}",
                                int((time.monotonic() - t0) * 1000))
        latency = int((time.monotonic() - t0) * 1000)
        if time.monotonic() - t0 > self.record_timeout_s:
            return self._failed(record, f"record latency cap {self.record_timeout_s:g} s "
                                "exceeded", latency)
        demoted = 0
        for i, c in enumerate(claims):
            e = entries.get(i)
            if e is None:
                c.reason = "left unlabelled: the model's reply had no entry for it"
                continue
            c.label, c.reason, quote = e["label"], e["reason"], e["quote"].strip()
            if quote:
                idx, anchor = anchor_evidence_quote(quote, outputs)
                c.quote, c.anchor = quote, anchor.kind.value
                if anchor.is_admitted:
                    c.evidence_index = idx
                    c.quote_start, c.quote_end = anchor.span_start, anchor.span_end
            if c.label is AuditLabel.CONTRADICTED and c.evidence_index is None:
                c.label = AuditLabel.UNSUPPORTED
                c.is_demoted = True
                c.flags.append(DEMOTED_FLAG)
                c.reason = ("the model said CONTRADICTED but its quote is not in the evidence "
                            f"(anchor {c.anchor or 'none'}); demoted. Model: {e['reason']}")
                demoted += 1
        missing = sum(1 for c in claims if c.label is None)
        with self._lock:
            self.n_demoted += demoted
        degraded = (f"llm reply covered {len(claims) - missing} of {len(claims)} claims"
                    if missing else None)
        return AuditOutcome(record, self.name, claims, flags, degraded=degraded,
                            n_demoted=demoted, latency_ms=latency, skipped=skipped)
