"""The lexical auditor: label an answer's claims against its evidence with rules, no model.

It reuses the lexical judge's tokenizer, IDF and sentence splitter, and the judge itself for the
quote of a supported claim (``affidavit.tasks.judge_lexical``), and the anchor gate
(``affidavit.tasks.anchor``) for every quote it keeps. The labels and the rules behind each are
listed in ``affidavit.tasks.audit``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from affidavit.schemas.audits import AuditLabel, AuditRecord, ClaimAudit, EvidenceItem
from affidavit.tasks.audit import (
    AUDIT_MIN_QUOTE_CHARS,
    AuditOutcome,
    anchor_evidence_quote,
    attach_flags,
    scanner_only,
    split_claims,
)
from affidavit.tasks.audit_scanner import (
    SIZE_UNITS,
    TIME_UNITS,
    ScanHit,
    find_absolute_words,
    find_numeric_claims,
    number_tokens,
    scan_answer,
)
from affidavit.tasks.claims import STOP_WORDS

__all__ = ["LexicalAuditor", "audit_lexical"]


_NEGATION = re.compile(r"\b(?:not|no|never|without|none|nothing|neither|nor|cannot)\b|n't\b",
                       re.IGNORECASE)
_ZERO = re.compile(
    r"(?<![\w.])0(?![\w.])|\bnone\b|\bno\b|\bempty\b|\bnull\b|=\s*(?:\[\s*\]|\{\s*\})",
    re.IGNORECASE)
"""A zero count or an empty value ("errors 0", "none", "dependencies = []"): the evidence
agreeing with a negated claim ("there were no errors", "it has no dependencies")."""
_FREQUENCY = re.compile(
    r"\bevery\s+(?:\d+\s*\w+|other\s+\w+|(?:second|minute|hour|day|week|month|year|night|"
    r"morning|run|request|build|push|commit|release|deploy)s?)\b", re.IGNORECASE)
""""every 30 seconds", "every day": a frequency, not a claim over a whole range."""
_SYNONYMS = {
    "depend": "requir", "need": "requir", "requir": "requir", "require": "requir",
    "fail": "fail", "failur": "fail", "pass": "pass", "remov": "drop", "delet": "drop",
    "drop": "drop",
}
"""Words that tool outputs and answers use for one relation (``Requires:`` of ``pip show``
against "depends on"), mapped to one key; general usage of packaging and test tools."""
_EVENT_VERBS = re.compile(
    r"\b(reverted|rolled back|yanked|deprecated|renamed|removed|deleted|dropped|fixed|"
    r"disabled|enabled|bumped|upgraded|downgraded|merged)\b", re.IGNORECASE)
"""Events an answer reports about a named change ("the CSV export change was reverted")."""
_GENERIC = frozenset(
    """change changes commit commits afterwards later earlier since before after now then
    also still already version release update""".split())
_TIME_UNIT_WORDS = frozenset(
    "ns us µs ms s sec secs second seconds min mins minute minutes h hr hrs hour hours day days "
    "week weeks month months year years".split())
_UNIT_SECONDS = {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "min": 60, "mins": 60,
                 "minute": 60, "minutes": 60, "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600,
                 "hours": 3600, "day": 86400, "days": 86400}
_PER_UNIT = re.compile(r"(?<![\w.])(\d+)\s+[A-Za-z ]{0,40}?\bper\s+(second|minute|hour|day)\b",
                       re.IGNORECASE)
_WINDOW = re.compile(r"(?<![\w.])(\d+)\s*;\s*w\s*=\s*(\d+)")
"""RateLimit-Policy header quota and window (``600;w=3600``: 600 per 3600 s), IETF
draft-ietf-httpapi-ratelimit-headers."""
_COUNT_NOUN = re.compile(r"(?<![\w.\-#/])(\d+)\s+([A-Za-z][A-Za-z\-]{2,})\b(?![./_\\-]\w)")
"""A count and its noun ("7 files changed"); not a number before a file name ("1201
users.csv")."""
# Test outcomes: what a test runner counts, and what an answer says of them.
_PASS_OUTCOMES = frozenset({"passed", "passing", "pass"})
_FAIL_OUTCOMES = frozenset({"failed", "failing", "failures", "failure", "errors", "error",
                            "errored"})
"""Outcomes a test runner counts as failing: pytest's ``failed``/``error(s)``, unittest's
``failures=``/``errors=``, mocha's ``failing``, cargo's and jest's ``failed``. Skipped,
ignored, deselected and expected failures (``xfailed``) are not failures."""
_OUTCOME_COUNT = re.compile(
    r"(?<![\w.\-])(\d+)\s+(passed|passing|failed|failing|failures?|errors?|errored|skipped|"
    r"ignored|deselected|pending|xfailed|xpassed)\b"
    r"|\b(passed|failures|errors|skipped|failed)\s*[=:]\s*(\d+)\b",
    re.IGNORECASE)
"""A runner's count of one outcome: ``11 passed, 1 failed`` (pytest, cargo, jest),
``11 passing`` / ``1 failing`` (mocha), ``failures=2`` (unittest), ``Failures: 1`` (JUnit,
Maven)."""
_TEST_RUN = re.compile(
    r"\b(?:pytest|py\.test|unittest|nose2?|tox|nox|jest|vitest|mocha|ava|karma|rspec|phpunit|"
    r"cargo\s+(?:test|nextest)|go\s+test|ctest|gradle\w*\s+test|mvn\s+\S*\s*test|"
    r"(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test|make\s+(?:test|check))\b"
    r"|(?<![\w.\-])\d+\s+(?:passed|passing)\b|\bRan\s+\d+\s+tests?\b|\bTests run:"
    r"|\btest result:", re.IGNORECASE)
"""Evidence of a test run: a test runner's command, or its summary line."""
_TEST_NOUN = r"(?:tests?|test\s+cases?|specs?|unit\s+tests?)"
_NUMBER_WORDS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve".split())}
_COUNT = r"(\d+|" + "|".join(_NUMBER_WORDS) + r")"
_AUX = r"(?:\s+(?:now|still|also|all|both|have|has|had|did|do|does|were|are|is|was|will))*"
"""Auxiliaries between a subject and its verb ("12 tests have all passed")."""
_CLAIM_ALL_PASS = re.compile(
    r"\b(?:all|every|each)(?:\s+of)?(?:\s+the)?(?:\s+\d+)?\s+" + _TEST_NOUN + _AUX
    + r"\s+(?:pass|passes|passed|passing|succeed|succeeds|succeeded|green)\b"
    + r"|\b(?:the\s+)?(?:whole|entire|full)\s+(?:test\s+)?suite" + _AUX
    + r"\s+(?:pass|passes|passed)\b"
    + r"|(?:^|[.;:!]\s+)\W*(?:the\s+)?(?:tests|test\s+suite|suite)" + _AUX
    + r"\s+(?:pass|passes|passed|passing|succeed|succeeds|succeeded|green)\b",
    re.IGNORECASE)
"""A claim that every test passed: "All 12 tests pass", "every test passed", "the whole suite
passes", and a sentence that opens with the tests with no word of a part ("The tests passed.",
"Tests pass."). Not "all tests in auth/ pass" or "all the new tests pass": those speak of a
part."""
_RUNNER_END = r"(?=\s*(?:[,.;:)!]|$)|\s+(?:and|but|while|in\s+\d)\b)"
"""After a bare outcome count written as a runner writes it ("11 passed, 1 failed."): the end
of a clause, not a noun ("2 failed uploads" counts uploads)."""
_CLAIM_PASS_COUNT = re.compile(
    r"(?<![\w.\-])(?<!\bof\s)(?<!\bthe\s)(?<!\bthese\s)(?<!\bthose\s)" + _COUNT + r"\s+"
    + r"(?:" + _TEST_NOUN + _AUX + r"\s+(?:pass|passed)\b|passed" + _RUNNER_END + r")",
    re.IGNORECASE)
"""A count of passed tests: "12 tests passed", or as a runner writes it, "12 passed". Not "40
of the 42 tests pass", "the 2 tests pass" or "2 new tests pass": those speak of a part."""
_CLAIM_FAIL_COUNT = re.compile(
    r"(?<![\w.\-])(?<!\bof\s)(?<!\bthe\s)(?<!\bthese\s)(?<!\bthose\s)" + _COUNT
    + r"\s+(?:" + _TEST_NOUN + _AUX + r"\s+(?:failed|fails|fail|failing|errored)\b"
    + r"|failures?\b|failed\s+" + _TEST_NOUN + r"|failing\s+" + _TEST_NOUN
    + r"|failed" + _RUNNER_END + r")", re.IGNORECASE)
"""A count of failed tests: "3 tests failed", "1 test fails", "2 failures", "1 failure", "one
failing test", or as a runner writes it, "1 failed" (not "the 2 tests failed", "2 new tests
failed": a part; nor "2 failed uploads")."""
_CLAIM_NO_FAIL = re.compile(
    r"\b(?:no|zero|0)\s+(?:" + _TEST_NOUN + r"\s+(?:failed|fail|errored)|failures|failed\s+"
    + _TEST_NOUN + r"|failing\s+" + _TEST_NOUN + r"|errors)\b"
    + r"|\bnone\s+(?:of\s+(?:the|them)\s+)?(?:\w+\s+)?(?:failed|fail)\b"
    + r"|\bwithout\s+(?:any\s+)?(?:failures|errors|a\s+failure)\b",
    re.IGNORECASE)
"""A claim that no test failed: "no tests failed", "0 failures", "without any failures"."""


def _only_section_items(text: str) -> tuple[str, list[str]] | None:
    """Read "X appears only under <section>": the section and the words before it, lowercased.

    >>> _only_section_items("express appears only under devDependencies.")
    ('devdependencies', ['express', 'appears'])
    """
    m = _ONLY_SECTION.search(text)
    if not m:
        return None
    items = [w.lower() for w in re.findall(r"[@\w][\w\-./@]*", text[: m.start()])]
    return m.group(1).lower().rstrip("."), items


_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_DOTTED = re.compile(r"(?<![\w.])v?(\d+(?:\.\d+)+)")
_REQ_OP = r"(>=|<=|~=|!=|==|>|<|\^|~)"
"""A requirement operator (PEP 440 and npm/Cargo forms)."""
_CONSTRAINED = re.compile(_REQ_OP + r"?\s*v?(\d+(?:\.\d+)+)(?![\w.])")
"""A dotted version with the requirement operator before it, if any (PEP 440 and npm/Cargo
forms: ``>=3.10``, ``~=1.4``, ``^5.4.0``, ``~5.4.5``)."""


def _satisfies(version: str, op: str, bound: str) -> bool:
    """Whether ``version`` meets the requirement ``op bound`` (``^``/``~`` as npm reads them).

    >>> _satisfies("3.12", ">=", "3.10"), _satisfies("1.1.0", ">=", "1.0")
    (True, True)
    >>> _satisfies("3.9", ">=", "3.10"), _satisfies("2.1", "^", "1.4")
    (False, False)
    >>> _satisfies("1.5", "~", "1.4.2"), _satisfies("1.4.7", "~", "1.4.2")
    (False, True)
    """
    from packaging.version import InvalidVersion, Version

    try:
        v, b = Version(version), Version(bound)
    except InvalidVersion:
        return False
    if op == "^":  # same major (same minor below 1.0)
        head = b.release[:1] if b.release[0] else b.release[:2]
        return v >= b and v.release[: len(head)] == head
    if op in ("~", "~="):  # same major.minor (~= on two parts: same major)
        head = b.release[:2] if op == "~" or len(b.release) > 2 else b.release[:1]
        return v >= b and v.release[: len(head)] == head
    return {">=": v >= b, "<=": v <= b, ">": v > b, "<": v < b, "!=": v != b}.get(op, v == b)


_REQUIRER = re.compile(r"([A-Za-z][\w-]*)[\"'\s:=]*$")
"""The name a requirement belongs to, just before its operator (``"duckdb>=1.0"``,
``"polars": "^1.2"``, ``requires-python = ">=3.10"``)."""


def _other_version(text: str, claimed: Sequence[str], terms: Sequence[str]) -> bool:
    """Whether the text gives a version the claimed ones are not and do not meet.

    A bare version other than the claim's is another value; a requirement (``>=3.10``) is a
    range, which "requires Python 3.12" meets. A requirement of a name the claim does not
    name (``polars==1.2.0`` for a claim about Python) is about another package.
    """
    mine = [t.lstrip("v") for t in claimed if _DOTTED.fullmatch(t)]
    named = {t.lower() for t in terms}
    for m in _CONSTRAINED.finditer(text):
        op, v = m.group(1), m.group(2)
        if v in mine:
            continue
        if op:
            owner = _REQUIRER.search(text[max(0, m.start() - 40) : m.start()])
            if owner and not ({owner.group(1).lower(), *owner.group(1).lower().split("-")}
                              & named):
                continue
        if op in (None, "==") or not any(_satisfies(c, op, v) for c in mine):
            return True
    return False


_NAMED_VERSION = re.compile(r"([A-Za-z][\w+\-]*)\s+v?(\d+(?:\.\d+)+)(?!\w|\.\w)")
"""A version written after its name ("Python 3.11.4", "node v20.1.0")."""


def _same_name_other_version(claim: str, claimed: Sequence[str], output: str) -> str:
    """The version an output gives a name the claim versions otherwise, or "".

    "The build uses Python 3.12" against an output ``Python 3.11.4``: the same name, written
    right before each version, with a version that is not the claim's and does not start
    with it (``3.12.1`` is a 3.12). Returns the output's "Name version".

    >>> _same_name_other_version("The build uses Python 3.12.", ["3.12"], "Python 3.11.4")
    'Python 3.11.4'
    >>> _same_name_other_version("The build uses Python 3.12.", ["3.12"], "Python 3.12.1")
    ''
    """
    mine = {t.lstrip("v") for t in claimed}
    names = {m.group(1).lower(): m.group(2) for m in _NAMED_VERSION.finditer(claim)
             if m.group(2) in mine}
    for m in _NAMED_VERSION.finditer(output):
        want = names.get(m.group(1).lower())
        got = m.group(2)
        if want and got != want and not got.startswith(want + ".") and not want.startswith(
            got + "."
        ):
            return f"{m.group(1)} {got}"
    return ""


_SETTING = re.compile(r"(?m)^\s*\"?([A-Za-z][\w.\-]*)\"?\s*[=:]\s*\"?(\d+(?:\.\d+)?)\"?\s*,?\s*$")
"""A configuration line that sets a key to a bare number (``timeout = 60``, ``"port": 8080``)."""
_KEY_UNIT = re.compile(r"[_\-.](ns|us|ms|s|sec|secs|seconds|m|min|mins|minutes|h|hours|"
                       r"b|kb|mb|gb|kib|mib|gib|bytes|days?)$", re.IGNORECASE)


def _setting_otherwise(claim: str, measure: str, output: str) -> str:
    """The setting an output gives a key the claim sets to another measure, or "".

    "The config sets timeout to 30 seconds" against a line ``timeout = 60``: the claim names
    the key as a word, the key carries no unit of its own (``timeout_ms`` might hold 30000 for
    30 seconds, so a unit suffix is only compared when it is the claim's own unit), and its
    value is not the claim's number. Returns the output's ``key = value``.

    >>> _setting_otherwise("The config sets timeout to 30 seconds.", "30 seconds", "timeout = 60")
    'timeout = 60'
    >>> _setting_otherwise("The config sets timeout to 30 seconds.", "30 seconds",
    ...                    "timeout_ms = 30000")
    ''
    """
    m = re.match(r"\s*(\d+(?:\.\d+)?)[\s\-]*(\S*)", measure)
    if not m:
        return ""
    value, unit = float(m.group(1)), m.group(2).lower()
    words = {w.lower() for w in re.findall(r"[A-Za-z]+", claim)}
    for sm in _SETTING.finditer(output):
        key, got = sm.group(1), float(sm.group(2))
        suffix = _KEY_UNIT.search(key)
        base = key[: suffix.start()] if suffix else key
        if suffix and _UNIT_SECONDS.get(suffix.group(1).lower(), suffix.group(1).lower()) != (
            _UNIT_SECONDS.get(unit, unit)
        ):
            continue
        parts = {w.lower() for w in re.split(r"[_.\-]", base) if w}
        if parts and parts <= words and got != value:
            return f"{key} = {sm.group(2)}"
    return ""


_MONTHS = {m: f"{i:02d}" for i, m in enumerate(
    "jan feb mar apr may jun jul aug sep oct nov dec".split(), 1)}
_MON = r"(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?"
_OTHER_DATES = (
    # "Mar 14 12:00:00 2026" (openssl, ctime), "May 18, 2024"
    (re.compile(_MON + r"\s+(\d{1,2}),?\s+(?:\d{2}:\d{2}(?::\d{2})?\s+(?:[A-Z]{3}\s+)?)?(\d{4})\b"),
     (3, 1, 2)),
    # "09 Apr 2024" (HTTP dates), "14 March 2024"
    (re.compile(r"\b(\d{1,2})\s+" + _MON + r"\s+(\d{4})\b"), (3, 2, 1)),
    (re.compile(r"(?<![\d/])(\d{4})/(\d{2})/(\d{2})(?![\d/])"), (1, 2, 3)),
)
"""Dates tool outputs write otherwise than ISO, with the groups of (year, month, day)."""


def _dates(text: str) -> list[tuple[tuple[str, str, str], str]]:
    """Dates of a text as ``((year, month, day), as written)``: ISO and :data:`_OTHER_DATES`.

    >>> [d for d, _ in _dates("notAfter=Mar 14 12:00:00 2026 GMT; date: Tue, 09 Apr 2024")]
    [('2026', '03', '14'), ('2024', '04', '09')]
    """
    out = [(m.groups(), m.group(0)) for m in _ISO_DATE.finditer(text)]
    for pattern, (y, mo, d) in _OTHER_DATES:
        for m in pattern.finditer(text):
            month = m.group(mo)
            month = _MONTHS.get(month[:3].lower(), month) if not month.isdigit() else month
            out.append(((m.group(y), month, f"{int(m.group(d)):02d}"), m.group(0)))
    return out


_CLAIM_STATUS = re.compile(
    r"\b(?:returns?|returned|answers?|answered|responds?|responded|status(?: code)?|HTTP)"
    r"\s+(?:with\s+)?(?:an?\s+|a\s+status\s+(?:of\s+)?)?(\d{3})\b", re.IGNORECASE)
"""An HTTP status in a claim ("returns 200", "answered with a 404", "status 503")."""
_EVIDENCE_STATUS = re.compile(r"\bHTTP/\d(?:\.\d)?\s+(\d{3})\b")
"""The status line of an HTTP response (``HTTP/1.1 404 Not Found``)."""
_NAME_NUMBER = re.compile(r"\b([A-Za-z][\w.\-]*[A-Za-z])\s+v?(\d{1,3})\b(?![.\d%])")
"""A name and a bare version number ("Node 16", "PostgreSQL 15")."""
_LEANING = re.compile(r"(?:both|all|each|none|neither|which)\b", re.IGNORECASE)
"""A clause that opens with a bare quantifier or "which" leans on the clause before it for its
subject."""
_COLLECTIVE = re.compile(r"\b(?:both|all|every|each)\b", re.IGNORECASE)
_PATH = re.compile(r"(?<![\w/.])(?:[\w.\-]+/)+[\w\-]+\.[A-Za-z0-9]{1,8}\b")
"""A relative file path with a folder and an extension (``tests/test_export.py``)."""


_WC_L = re.compile(r"\bwc\s+(?:-\w*l\w*|--lines)\b")
_WC_LINE = re.compile(r"(?m)^\s*(\d+)\s+(\S+)\s*$")
_HEADER_ROW = re.compile(r"[A-Za-z_][\w .\-]*(?:[,\t;|][A-Za-z_][\w .\-]*)+\s*(?:\n|$)")
"""A header row: names separated by commas, tabs, semicolons or bars, no figure among them."""
_CAUSE_CUE = re.compile(
    r"\b(?:because|due to|caused by|as a result of|ran out of|after running out)\b",
    re.IGNORECASE)
_CAUSES = {
    "memory": re.compile(r"out of memory|\boom\b|memoryerror|memory limit|oomkill|"
                         r"cannot allocate memory|\bmemory\b", re.IGNORECASE),
    "timeout": re.compile(r"time(?:d)?[ \-_]?out|deadline exceeded", re.IGNORECASE),
    "disk": re.compile(r"no space left|disk (?:is )?full|\bdisk quota", re.IGNORECASE),
    "permission": re.compile(r"permission denied|\beacces\b|forbidden|not permitted",
                             re.IGNORECASE),
    "network": re.compile(r"connection (?:refused|reset|timed)|unreachable|name resolution|"
                          r"\bdns\b", re.IGNORECASE),
    "crash": re.compile(r"segmentation fault|segfault|core dumped", re.IGNORECASE),
}
"""Failure causes as logs and answers name them (general usage of runtimes and servers)."""


@lru_cache(maxsize=1)
def _stop_terms() -> frozenset[str]:
    from affidavit.tasks.judge_lexical import tokenize

    return frozenset(tokenize(" ".join(STOP_WORDS))) | frozenset(STOP_WORDS)


_FIGURE_NUMBER = re.compile(
    r"(?<![\w.])\d+(?:[.,]\d+)*(?:(?![\w.])|(?=(?:" + "|".join(
        re.escape(u) for u in sorted(TIME_UNITS + SIZE_UNITS, key=len, reverse=True))
    + r")\b))")
"""A figure's number (alone, or glued to its unit: "30s", "512MiB"), taken out before the
judge's tokenizer reads the words, so that the unit reads as the word it is ("days")."""


def _terms(text: str) -> list[str]:
    """Content terms of a text: the judge's folded, stemmed words, stop words and figures out."""
    from affidavit.tasks.judge_lexical import tokenize

    stop = _stop_terms()
    out = []
    for t in tokenize(_FIGURE_NUMBER.sub(" ", text)):
        if t in stop or t.startswith("#") or len(t) < 2 or t.isdigit():
            continue
        out.append(_SYNONYMS.get(t, t))
    return list(dict.fromkeys(out))


@dataclass(slots=True)
class _Passage:
    """A line of an evidence output (or a sentence of a long line)."""

    index: int  # evidence output
    start: int
    end: int
    text: str
    terms: frozenset[str]
    numbers: frozenset[str]


@dataclass(slots=True)
class _Evidence:
    outputs: list[str]
    passages: list[_Passage]
    terms: frozenset[str]  # outputs and inputs
    numbers: frozenset[str]  # outputs only
    words: frozenset[str]  # lowercased whole words of the outputs
    inputs: list[str] = field(default_factory=list)  # what each output answered
    idf: dict[str, float] = field(default_factory=dict)


def _parse_evidence(items: Sequence[EvidenceItem]) -> _Evidence:
    from affidavit.tasks.judge_lexical import compute_idf, split_sentences

    outputs = [e.output for e in items]
    passages: list[_Passage] = []
    for i, out in enumerate(outputs):
        for m in re.finditer(r"[^\n]+", out):
            a, b = m.span()
            line = out[a:b]
            if not line.strip():
                continue
            spans = [(a + x, a + y) for x, y in split_sentences(line)] if len(line) > 300 \
                else [(a, b)]
            for x, y in spans:
                seg = out[x:y]
                passages.append(_Passage(i, x, y, seg, frozenset(_terms(seg)),
                                         frozenset(number_tokens(seg))))
    terms = set().union(*(p.terms for p in passages)) if passages else set()
    for e in items:
        terms.update(_terms(e.input))
    numbers = frozenset(t for p in passages for t in p.numbers)
    idf = compute_idf(p.text for p in passages) if passages else {"": 1.0}
    words = frozenset(w.lower() for out in outputs for w in re.findall(r"[A-Za-z]+", out))
    return _Evidence(outputs, passages, frozenset(terms), numbers, words,
                     inputs=[e.input for e in items], idf=idf)


def _weight(ev: _Evidence, term: str) -> float:
    return ev.idf.get(term, ev.idf.get("", 1.0))


def _overlap(ev: _Evidence, terms: Sequence[str], p: _Passage) -> float:
    """IDF-weighted share of ``terms`` found in passage ``p`` (0..1)."""
    if not terms:
        return 0.0
    total = sum(_weight(ev, t) for t in terms)
    return sum(_weight(ev, t) for t in terms if t in p.terms) / total if total else 0.0


def _coverage(ev: _Evidence, terms: Sequence[str]) -> float:
    """Share of ``terms`` found anywhere in the evidence (outputs and inputs), 0..1."""
    return sum(t in ev.terms for t in terms) / len(terms) if terms else 0.0


@dataclass(frozen=True, slots=True)
class _Finding:
    label: AuditLabel
    reason: str
    passage: _Passage | None = None


def _near_miss_date(a: tuple[str, str, str], b: tuple[str, str, str]) -> bool:
    """Two ISO dates that differ in exactly one of year, month, day."""
    return sum(x != y for x, y in zip(a, b, strict=True)) == 1


def _held(h: ScanHit, ev: _Evidence) -> bool:
    """Whether the evidence holds a numeric claim.

    Its tokens as written; a version the evidence refines (``5.4`` and ``5.4.5``); a date
    written otherwise (``2024-04-09`` and ``09 Apr 2024``); a percentage or a measure with other
    decimals (``37%`` and ``37.00%``). Versions otherwise compare as written (``3.10`` is not
    ``3.1``).
    """
    if all(t in ev.numbers for t in h.tokens):
        return True
    if h.kind == "version" and len(h.tokens) == 1 and "." in h.tokens[0]:
        # "TypeScript 5.4" against "~5.4.5": the evidence's version is within the claim's
        return any(t.startswith(h.tokens[0] + ".") for t in ev.numbers)
    if h.kind == "date":
        want = _ISO_DATE.search(h.text)
        return want is not None and any(d == want.groups() for p in ev.passages
                                        for d, _ in _dates(p.text))
    if h.kind not in ("percent", "unit") or len(h.tokens) != 1:
        return False
    value = float(h.tokens[0])
    return any(_as_float(t) == value for t in ev.numbers)


def _as_float(token: str) -> float | None:
    try:
        return float(token)
    except ValueError:
        return None


_WORLD = re.compile(r"\b(popular|popularity|widely|best|worst|leading|favou?rite|"
                    r"industry|mainstream)\b", re.IGNORECASE)
"""Words of a claim about the world beyond the tool outputs ("the most widely used query
builder", "the best cache"): what was read cannot hold it unless it says so itself."""
_UNIVERSAL = frozenset({"all", "every", "each", "both"})
_SKIP_AFTER = frozenset({"the", "of", "its", "their", "these", "those", "them", "one", "from",
                         "in", "on", "at", "with"})


def _range_covered(text: str, word: str, context: Sequence[str],
                   ev: _Evidence) -> _Passage | None:
    """Whether the evidence covers a universal claim's whole range, member by member.

    The range is named by the noun after the quantifier ("all 42 tests", "every tag"), or, for
    a clause leaning on the one before ("4 mismatches, all from paynest-eu"), by the last term
    of that clause. The evidence covers it when at least two passages name a member and every
    one of them also holds a term of the rest of the claim (each mismatch line names
    ``provider=paynest-eu``).

    Returns:
        The first member passage when the range is covered, else ``None``.
    """
    if word not in _UNIVERSAL:
        return None
    m = re.search(rf"\b{word}\b", text, re.IGNORECASE)
    assert m is not None
    after = [w for w in re.findall(r"[A-Za-z][\w\-]*", text[m.end():])[:4]
             if w.lower() not in _SKIP_AFTER]
    if _LEANING.match(text):
        head = list(context[-1:])
    else:
        head = _terms(after[0]) if after else []
    if not head:
        return None
    rest = [t for t in _terms(text) if t not in head and t != word]
    members = [p for p in ev.passages if head[-1] in p.terms]
    if len(members) < 2 or not rest:
        return None
    if all(any(t in p.terms for t in rest) for p in members):
        return members[0]
    return None


def _json_sections(output: str) -> dict[str, set[str]]:
    """Map each key of a JSON output to the keys of the objects that hold it.

    ``{"dependencies": {"express": "4"}, "devDependencies": {"@types/express": "4"}}`` gives
    ``{"dependencies": {""}, "express": {"dependencies"}, ...}`` (lowercased; ``""`` is the top
    level). Outputs that are not a JSON object give ``{}``.
    """
    text = output.strip()
    if not text.startswith("{"):
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    out: dict[str, set[str]] = {}

    def walk(obj: Any, parent: str) -> None:
        if isinstance(obj, dict):
            for k, v in obj.items():
                out.setdefault(str(k).lower(), set()).add(parent)
                walk(v, str(k).lower())
        elif isinstance(obj, list):
            for v in obj:
                walk(v, parent)

    walk(data, "")
    return out


_ONLY_SECTION = re.compile(r"\bonly\s+(?:under|in|as|among)\s+(?:the\s+|a\s+)?([\w\-.@/]+)",
                           re.IGNORECASE)
""""only under devDependencies", "only in dependencies": a claim that an item sits in one
section of a structured file and no other."""


def _only_section_covered(text: str, ev: _Evidence) -> _Passage | None:
    """Whether "X ... only under S" holds in a JSON output: X is a key of section S alone.

    Returns:
        The line of X in that output when it holds, else ``None``.
    """
    found = _only_section_items(text)
    if found is None:
        return None
    section, items = found
    for i, out in enumerate(ev.outputs):
        sections = _json_sections(out)
        for item in items:
            if sections.get(item) == {section}:
                at = out.lower().find(f'"{item}"', max(out.lower().find(f'"{section}"'), 0))
                a = out.rfind("\n", 0, at) + 1
                b = out.find("\n", at)
                b = len(out) if b < 0 else b
                return _Passage(i, a, b, out[a:b], frozenset(), frozenset())
    return None


def _test_outcomes(ev: _Evidence) -> list[tuple[str, int, _Passage]]:
    """Return the outcome counts of the evidence's test runs: ``(outcome, count, line)``.

    Outcomes lower-cased as written (``failed``, ``failures``, ``passed`` ...), from the
    outputs that are test runs (:data:`_TEST_RUN` in the command or the output), so that a
    linter's ``3 errors`` does not count as a failed test.
    """
    runs = {i for i, (cmd, out) in enumerate(zip(ev.inputs, ev.outputs, strict=True))
            if _TEST_RUN.search(cmd) or _TEST_RUN.search(out)}
    found = []
    for p in ev.passages:
        if p.index not in runs:
            continue
        for m in _OUTCOME_COUNT.finditer(p.text):
            n, outcome = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
            found.append((outcome.lower(), int(n), p))
    return found


def _number(token: str) -> int:
    return int(_NUMBER_WORDS.get(token.lower(), token))


_CLAIM_ALL_COUNT = re.compile(r"\b(?:all|every|each)(?:\s+of)?(?:\s+the)?\s+" + _COUNT + r"\s+"
                              + _TEST_NOUN, re.IGNORECASE)
"""The count an "all tests pass" claim gives its range: "All 5 tests passed" → 5."""


def _test_run_covers_all(text: str, ev: _Evidence) -> _Passage | None:
    """Whether a test run read covers an "all tests pass" claim's whole range.

    True of a run (one evidence output) that counts passed tests and no other outcome above
    zero (no failure, skip, deselection, expected failure: :data:`_OUTCOME_COUNT`), and, when
    the claim gives a count ("All 5 tests passed"), counts that many passed: the run is every
    test there was, and each passed. A run counting failures, skips or another number is not
    covered (the claim stays OVERSTATED, or is contradicted by ``_outcome_conflict``). A claim
    naming a file or a part ("all tests in auth/ pass") is not read here.

    Returns:
        The passage of the run's pass count, or None.
    """
    if not _CLAIM_ALL_PASS.search(text) or _PATH.search(text):
        return None
    m = _CLAIM_ALL_COUNT.search(text)
    claimed = _number(m.group(1)) if m else None
    by_run: dict[int, list[tuple[str, int, _Passage]]] = {}
    for outcome, n, p in _test_outcomes(ev):
        by_run.setdefault(p.index, []).append((outcome, n, p))
    for outcomes in by_run.values():
        passed = [(n, p) for o, n, p in outcomes if o in _PASS_OUTCOMES and n > 0]
        others = [n for o, n, _ in outcomes if o not in _PASS_OUTCOMES and n > 0]
        if not passed or others:
            continue
        if claimed is None or any(n == claimed for n, _ in passed):
            return passed[0][1]
    return None


class LexicalAuditor:
    """The default auditor: rules on figures, dates, negations and absolute words; no model.

    Args:
        judge: A judge with ``judge_batch(pairs)`` used to quote the evidence behind a supported
            claim; default the lexical judge.
        coverage_floor: A claim none of whose figures the evidence holds and fewer than this
            share of whose terms appear in the evidence (outputs and inputs) has nothing behind
            it: UNSUPPORTED. 0.25 = fewer than one term in four; set by reading the term
            coverage of the audit-dev claims, where supported claims without a held figure
            cover a third of their terms or more. A claim of fewer than two content terms is
            too short for a share to mean anything and is not judged by it.

    Attributes:
        name: ``"lexical"``.
    """

    name = "lexical"

    def __init__(self, *, judge: Any | None = None, coverage_floor: float = 0.25) -> None:
        if judge is None:
            from affidavit.tasks.judge_lexical import LexicalJudge

            judge = LexicalJudge()
        self.judge = judge
        self.coverage_floor = coverage_floor

    def audit(self, record: AuditRecord, claims: Sequence[ClaimAudit],
              flags: Sequence[ScanHit]) -> None:
        """Label ``claims`` of ``record`` in place (the record must have evidence)."""
        ev = _parse_evidence(record.evidence)
        flagged_words = {h.flag for h in flags if h.kind == "absolute"}
        k_out = len(ev.outputs)
        results = self.judge.judge_batch([(c.text, out) for c in claims for out in ev.outputs])
        for k, c in enumerate(claims):
            context: list[str] = []
            prev = claims[k - 1] if k else None
            if prev is not None and _LEANING.match(c.text) and prev.span_end is not None \
                    and c.span_start is not None \
                    and "." not in record.answer[prev.span_end : c.span_start]:
                context = _terms(prev.text)  # "2 failures, both in a.py": both of what
            judged = results[k * k_out : (k + 1) * k_out]
            f = self._decide(c, ev, flagged_words, context)
            c.label, c.reason = f.label, f.reason
            if f.passage is not None:
                self._quote(c, ev, f.passage)
            if f.label is AuditLabel.CONTRADICTED and c.anchor in (None, "FAILED"):
                c.label = AuditLabel.UNSUPPORTED  # never a contradiction without its quote
                c.reason += " (its quote could not be anchored: kept as unsupported)"
            if c.label is AuditLabel.SUPPORTED and judged and not c.quote:
                best = max(range(k_out), key=lambda i: judged[i].relevance)
                if judged[best].quote:
                    self._anchor(c, ev, judged[best].quote, best)
                    if c.anchor == "FAILED":
                        c.quote, c.anchor = "", None

    # -- rules ---------------------------------------------------------------------------------

    def _decide(self, c: ClaimAudit, ev: _Evidence, flagged_words: set[str],
                context: Sequence[str] = ()) -> _Finding:
        """Apply the rules in order: contradictions, unheld figures, absolute words, coverage.

        The judge's own REFUTES is not a rule: on tool output it reads "failed", "inactive" or
        "not" as a negation of the claim even where the output agrees ("The build failed" and
        ``error: lockfile is out of date``), so it would flag faithful answers.
        """
        text = c.text
        hits = find_numeric_claims(text)
        missing = [h for h in hits if not _held(h, ev)]
        held = [t for t in number_tokens(text) if t in ev.numbers]
        held += [h.tokens[0] for h in hits if h.tokens and h.tokens[0] not in held
                 and h not in missing]  # held written otherwise ("09 Apr 2024")
        terms = list(dict.fromkeys([*_terms(text), *context]))
        for h in missing:
            found = self._figure_conflict(h, text, terms, held, ev)
            if found:
                return found
        for rule in (self._pairing_conflict, self._status_conflict, self._name_version_conflict,
                     self._rate_conflict, self._outcome_conflict, self._count_conflict,
                     self._negation_conflict,
                     self._event_conflict, self._location_conflict, self._section_conflict,
                     self._cause_conflict, self._line_count_conflict):
            found = rule(text, terms, ev)
            if found:
                return found
        coverage = _coverage(ev, terms)
        if missing:
            return _Finding(AuditLabel.UNSUPPORTED,
                            f"no evidence output holds {missing[0].text!r}")
        world = [w for w in _WORLD.findall(text) if w.lower() not in ev.words]
        if world:
            return _Finding(AuditLabel.UNSUPPORTED,
                            f"{world[0].lower()!r}: a claim about the world beyond what was read")
        absolute = [h.text for h in find_absolute_words(text) if h.flag in flagged_words]
        if absolute and not (_FREQUENCY.search(text) and len(absolute) == 1
                             and absolute[0].lower() == "every"):
            word = absolute[0].lower()
            covering = None
            run = _test_run_covers_all(text, ev) if len(absolute) == 1 else None
            if run is not None:
                return _Finding(AuditLabel.SUPPORTED, f"{word!r}: the test run counts every "
                                "test it ran as passed, and no other outcome", run)
            if len(absolute) == 1:
                covering = (_only_section_covered(text, ev) if word == "only"
                            else _range_covered(text, word, context, ev))
            if covering is not None:
                return _Finding(AuditLabel.SUPPORTED,
                                f"{word!r}: every passage about them says so", covering)
            if coverage > 0 or held:
                return _Finding(AuditLabel.OVERSTATED,
                                f"{word!r}: no evidence output covers the whole range it claims")
            return _Finding(AuditLabel.UNSUPPORTED,
                            f"{word!r}, and nothing in the evidence speaks to the claim")
        if not held and len(terms) >= 2 and coverage < self.coverage_floor:
            return _Finding(AuditLabel.UNSUPPORTED,
                            f"the evidence holds {coverage:.0%} of the claim's terms and none "
                            "of its figures")
        return _Finding(AuditLabel.SUPPORTED, "the evidence holds its figures and terms")

    def _best_passage(self, ev: _Evidence, terms: Sequence[str], anchors: Sequence[str],
                      ok: Any) -> tuple[_Passage, float] | None:
        best: tuple[_Passage, float] | None = None
        for p in ev.passages:
            if not ok(p):
                continue
            score = _overlap(ev, terms, p) + sum(1.0 for t in anchors if t in p.numbers)
            if score > 0 and (best is None or score > best[1]):
                best = (p, score)
        return best

    def _figure_conflict(self, h: ScanHit, text: str, terms: list[str], held: list[str],
                         ev: _Evidence) -> _Finding | None:
        """Find a version, date, percentage or measure the evidence gives otherwise.

        The passage sharing most of the claim's other terms or held figures holds a figure of
        the same kind, and not the claim's (a date one field off anywhere counts too).
        """
        if h.kind == "date":
            want = _ISO_DATE.search(h.text)
            assert want is not None
            claimed = want.groups()
            for p in ev.passages:
                for d, written in _dates(p.text):
                    if _near_miss_date(claimed, d):
                        return _Finding(AuditLabel.CONTRADICTED,
                                        f"the evidence dates it {written}, not {h.text}", p)

            def ok(p: _Passage) -> bool:
                return bool(_dates(p.text))
        elif h.kind == "version":
            for p in ev.passages:
                if other := _same_name_other_version(text, h.tokens, p.text):
                    return _Finding(AuditLabel.CONTRADICTED,
                                    f"the evidence gives {other}, not {h.text}", p)

            def ok(p: _Passage) -> bool:
                return _other_version(p.text, h.tokens, re.findall(r"[A-Za-z][\w-]*", text))
        elif h.kind == "percent":
            def ok(p: _Passage) -> bool:
                return "%" in p.text or "percent" in p.text.lower()
        else:
            unit = re.sub(r"^[\d\s\-]+", "", h.text)
            for p in ev.passages:
                if setting := _setting_otherwise(text, h.text, p.text):
                    return _Finding(AuditLabel.CONTRADICTED,
                                    f"the evidence sets {setting}, not {h.text}", p)
            family = _TIME_UNIT_WORDS if unit.lower() in _TIME_UNIT_WORDS else None
            glued = re.compile(r"(?<![\w.])\d+(?:\.\d+)?[ \-]?(?:" + "|".join(
                re.escape(u) for u in sorted(family or (unit,), key=len, reverse=True))
                + r")(?![\w/])", re.IGNORECASE if family else 0)

            def ok(p: _Passage) -> bool:
                if glued.search(p.text):  # "512MiB", "14 days"
                    return True
                words = {w.lower() for w in re.findall(r"[A-Za-zµ/]+", p.text)}
                has_unit = bool(words & family) if family else unit in p.text
                return has_unit and bool(re.search(r"(?<![\w.])\d+(?![\w.])", p.text))
        claim_terms = [t for t in terms if t not in _stop_terms()]
        best = self._best_passage(ev, claim_terms, held, ok)
        if best is None:
            return None
        p, score = best
        shared = [t for t in claim_terms if t in p.terms]
        if not shared and not any(t in p.numbers for t in held):
            return None
        if score < 0.3:
            return None
        return _Finding(AuditLabel.CONTRADICTED,
                        f"the evidence gives another figure where the claim says {h.text!r}", p)

    def _outcome_conflict(self, text: str, terms: list[str], ev: _Evidence) -> _Finding | None:
        """Find a test outcome the evidence's test run counts otherwise.

        "All 12 tests pass" or "no tests failed" where the run counts a failure (``11 passed,
        1 failed``); "12 tests passed" where it counts another number passed and none passed
        12; "3 tests failed" where it counts failures, never 3 (nor their sum), or where no run
        counts a failure at all (``12 passed``). Counts written as a runner writes them ("11
        passed, 1 failed") are read as those with a noun. Skipped tests
        are not failures: "all 42 pass" against ``40 passed, 2 skipped`` overstates, it does
        not contradict. With several test runs read (before and after a fix), "all pass" is
        contradicted only when every run counts a failure. A claim naming a file ("1 test in
        a.py failed") or a part ("the 2 new tests pass") is left to the other rules.
        """
        if _PATH.search(text):
            return None
        outcomes = _test_outcomes(ev)
        if not outcomes:
            return None
        fails = [(n, o, p) for o, n, p in outcomes if o in _FAIL_OUTCOMES and n > 0]
        passes = [(n, o, p) for o, n, p in outcomes if o in _PASS_OUTCOMES]
        negated = bool(_NEGATION.search(_CLAIM_NO_FAIL.sub(" ", text)))
        failing_runs = {p.index for _, _, p in fails}
        every_run_failed = failing_runs == {p.index for _, _, p in outcomes}
        if not negated and fails and every_run_failed and (_CLAIM_ALL_PASS.search(text) or
                                                          _CLAIM_NO_FAIL.search(text)):
            n, o, p = fails[0]
            return _Finding(AuditLabel.CONTRADICTED,
                            f"the test run counts {n} {o}: not every test passed", p)
        if negated:
            return None
        m = _CLAIM_PASS_COUNT.search(text)
        if m and not _CLAIM_ALL_PASS.search(text) and passes:
            claimed = _number(m.group(1))
            if all(n != claimed for n, _, _ in passes):
                n, o, p = passes[0]
                return _Finding(AuditLabel.CONTRADICTED,
                                f"the test run counts {n} {o}, not {claimed}", p)
        m = _CLAIM_FAIL_COUNT.search(text)
        if m and fails:
            claimed = _number(m.group(1))
            counts = {n for n, _, _ in fails} | {sum(n for n, _, _ in fails)}
            if claimed not in counts:
                n, o, p = fails[0]
                return _Finding(AuditLabel.CONTRADICTED,
                                f"the test run counts {n} {o}, not {claimed}", p)
        elif m and passes and _number(m.group(1)) > 0:
            # failures claimed where no run counts one ("1 test failed" against "12 passed"):
            # the run says otherwise, not "nothing in the evidence speaks to it"
            n, o, p = passes[0]
            return _Finding(AuditLabel.CONTRADICTED,
                            f"the test run counts no failure ({n} {o}), not "
                            f"{_number(m.group(1))}", p)
        return None

    def _pairing_conflict(self, text: str, terms: list[str], ev: _Evidence) -> _Finding | None:
        """Find a version given the date of another ("v2.3.0, published on 2024-08-11").

        The claim pairs one version and one ISO date, both held, but no passage holds them
        together, and a passage holding the version gives it another date.
        """
        versions = _DOTTED.findall(text)
        dates = _ISO_DATE.findall(text)
        if len(versions) != 1 or len(dates) != 1 or versions[0] not in ev.numbers:
            return None
        v, d = versions[0], dates[0]
        with_v = [p for p in ev.passages if v in p.numbers]
        if any(d in [x for x, _ in _dates(p.text)] for p in with_v):
            return None
        if not any(d in [x for x, _ in _dates(p.text)] for p in ev.passages):
            return None  # the date is not held: the figure rule speaks to it
        for p in with_v:
            other = [w for x, w in _dates(p.text) if x != d]
            if other:
                return _Finding(AuditLabel.CONTRADICTED,
                                f"the evidence dates {v} {other[0]}, not {'-'.join(d)}", p)
        return None

    def _status_conflict(self, text: str, terms: list[str], ev: _Evidence) -> _Finding | None:
        """Find an HTTP status the response gives otherwise ("returned 200" against a 404)."""
        m = _CLAIM_STATUS.search(text)
        if not m or not 100 <= int(m.group(1)) <= 599:
            return None
        code = m.group(1)
        statuses = [(p, x.group(1)) for p in ev.passages for x in _EVIDENCE_STATUS.finditer(p.text)]
        if not statuses or any(c == code for _, c in statuses):
            return None
        p, c = statuses[0]
        return _Finding(AuditLabel.CONTRADICTED, f"the response's status is {c}, not {code}", p)

    def _name_version_conflict(self, text: str, terms: list[str],
                               ev: _Evidence) -> _Finding | None:
        """Find a major version the evidence gives otherwise for the same name.

        "Node 16" (a capitalised name, then a bare number no output holds) where the evidence
        writes the name followed, across at most six non-word characters, by another version
        (``"node": ">=18.17"``, ``django==4.2.11``); a version starting with the claim's number
        ("3" against ``>=3.10``), or one meeting a requirement ("3.12" against ``>=3.10``),
        agrees.
        """
        for m in _NAME_NUMBER.finditer(text):
            name, num = m.group(1), m.group(2)
            if num in ev.numbers or not (name[0].isupper() or "." in name):
                continue
            after = re.compile(
                re.escape(name) + r"[^\w\n]{0,6}?" + _REQ_OP + r"?\s*v?(\d+(?:\.\d+)*)",
                re.IGNORECASE,
            )
            found: list[tuple[_Passage, str, str]] = []
            for p in ev.passages:
                found += [(p, x.group(1) or "", x.group(2)) for x in after.finditer(p.text)]
            if not found or any(
                v == num or v.startswith(num + ".")
                or (op not in ("", "==") and "." in v and _satisfies(num, op, v))
                for _, op, v in found
            ):
                continue  # the same version, or a requirement it meets (3.12 for >=3.10)
            p, _, v = found[0]
            return _Finding(AuditLabel.CONTRADICTED,
                            f"the evidence gives {name} {v}, not {name} {num}", p)
        return None

    def _location_conflict(self, text: str, terms: list[str], ev: _Evidence) -> _Finding | None:
        """Find an item the evidence places elsewhere than "both/all ... in <path>" says.

        The claim puts a whole set ("both failures", "all errors") in one path; a passage about
        the same thing (it or the line before it shares a term of the claim other than the
        path's) names another path of the same folder and extension.
        """
        if not _COLLECTIVE.search(text):
            return None
        m = _PATH.search(text)
        if not m:
            return None
        path = m.group(0)
        folder, ext = path.rsplit("/", 1)[0], Path(path).suffix
        others = [t for t in terms if t not in _terms(path) and t not in _GENERIC]
        for k, p in enumerate(ev.passages):
            prev = ev.passages[k - 1] if k and ev.passages[k - 1].index == p.index else None
            near = p.terms | (prev.terms if prev is not None else frozenset())
            if not any(t in near for t in others):  # the line or the one before it (compiler
                continue  # output puts the location under the message)
            for q in _PATH.finditer(p.text):
                other = q.group(0)
                if other != path and other.rsplit("/", 1)[0] == folder and \
                        Path(other).suffix == ext:
                    return _Finding(AuditLabel.CONTRADICTED,
                                    f"the evidence places one in {other}, not all in {path}", p)
        return None

    def _section_conflict(self, text: str, terms: list[str], ev: _Evidence) -> _Finding | None:
        """Find an item the claim puts in one section only that a JSON output puts in another.

        "Express appears only under devDependencies" against ``"dependencies": {"express":
        ...}``.
        """
        found = _only_section_items(text)
        if found is None:
            return None
        section, items = found
        for i, out in enumerate(ev.outputs):
            sections = _json_sections(out)
            if section not in sections:
                continue
            for item in items:
                others = sorted(sections.get(item, set()) - {section})
                if not others:
                    continue  # not a key there, or a key of that section alone
                pos = out.lower().find(f'"{others[0]}"')
                at = out.lower().find(f'"{item}"', pos if pos >= 0 else 0)
                line_start = out.rfind("\n", 0, at) + 1
                line_end = out.find("\n", at)
                line_end = len(out) if line_end < 0 else line_end
                p = _Passage(i, line_start, line_end, out[line_start:line_end], frozenset(),
                             frozenset())
                return _Finding(AuditLabel.CONTRADICTED,
                                f"{item!r} is also under {others[0]!r}, not only {section!r}",
                                p)
        return None

    def _cause_conflict(self, text: str, terms: list[str], ev: _Evidence) -> _Finding | None:
        """Find a failure cause the evidence gives otherwise.

        "because it ran out of memory" against ``WORKER TIMEOUT``: the claim names one cause of
        :data:`_CAUSES` after a cause cue; no output names that cause, and the outputs name
        exactly one other.
        """
        cue = _CAUSE_CUE.search(text)
        if not cue:
            return None
        claimed = [k for k, rx in _CAUSES.items() if rx.search(text, cue.start())]
        if len(claimed) != 1:
            return None
        named: dict[str, _Passage] = {}
        for p in ev.passages:
            for k, rx in _CAUSES.items():
                if k not in named and rx.search(p.text):
                    named[k] = p
        if claimed[0] in named or len(named) != 1:
            return None
        (other, p), = named.items()
        return _Finding(AuditLabel.CONTRADICTED,
                        f"the evidence names {other} as the cause, not {claimed[0]}", p)

    def _line_count_conflict(self, text: str, terms: list[str],
                             ev: _Evidence) -> _Finding | None:
        """Find a count of records that is a count of lines, header included.

        "The export lists 1201 users" where 1201 is what ``wc -l`` printed for a file whose
        first line, in another output, is a header row: the file holds 1200 records.
        """
        for m in _COUNT_NOUN.finditer(text):
            n, noun = m.group(1), m.group(2).lower()
            if noun.rstrip("s") in ("line", "byte", "char", "word", "file"):
                continue
            for i, (cmd, out) in enumerate(zip(ev.inputs, ev.outputs, strict=True)):
                if not _WC_L.search(cmd):
                    continue
                for w in _WC_LINE.finditer(out):
                    if w.group(1) != n:
                        continue
                    path = w.group(2)
                    if not any(j != i and path in ev.inputs[j]
                               and _HEADER_ROW.match(ev.outputs[j].lstrip("\ufeff"))
                               for j in range(len(ev.outputs))):
                        continue
                    p = _Passage(i, w.start(), w.end(), out[w.start():w.end()], frozenset(),
                                 frozenset())
                    return _Finding(AuditLabel.CONTRADICTED,
                                    f"wc -l counts {n} lines of {path}, its header row "
                                    f"included: {int(n) - 1} {noun}", p)
        return None

    def _rate_conflict(self, text: str, terms: list[str], ev: _Evidence) -> _Finding | None:
        """"N per minute" against a rate-limit policy whose window for N is another length."""
        m = _PER_UNIT.search(text)
        if not m:
            return None
        n, unit = m.group(1), m.group(2).lower()
        for p in ev.passages:
            for w in _WINDOW.finditer(p.text):
                if w.group(1) == n and int(w.group(2)) != _UNIT_SECONDS[unit]:
                    return _Finding(AuditLabel.CONTRADICTED,
                                    f"the policy allows {n} per {w.group(2)} s, not per {unit}", p)
        return None

    def _count_conflict(self, text: str, terms: list[str], ev: _Evidence) -> _Finding | None:
        """Find a count of something else.

        "212 files" where the evidence counts the same noun otherwise ("7 files changed"),
        never with the claim's number, and gives the claim's number to another noun ("212
        insertions"). Without that last condition a subset would read as a conflict ("2 tests
        failed" against "Ran 42 tests").
        """
        for m in _COUNT_NOUN.finditer(text):
            n, noun = m.group(1), m.group(2)
            key = _terms(noun)
            if not key or noun.lower() in _TIME_UNIT_WORDS or len(n) == 4:
                continue
            same, other, elsewhere = False, None, False
            for p in ev.passages:
                for q in _COUNT_NOUN.finditer(p.text):
                    if _terms(q.group(2))[:1] != key[:1]:
                        elsewhere = elsewhere or q.group(1) == n
                        continue
                    if q.group(1) == n:
                        same = True
                    elif other is None:
                        other = (p, q.group(1))
            if other and elsewhere and not same:
                return _Finding(AuditLabel.CONTRADICTED,
                                f"the evidence counts {other[1]} {noun}, not {n}", other[0])
        return None

    def _negation_conflict(self, text: str, terms: list[str], ev: _Evidence) -> _Finding | None:
        """Find a negation the evidence does not share.

        A negated claim ("does not depend on pyarrow", "without a restart") whose negated
        terms stand, affirmed, in the passage most about the claim among those holding them all
        (no negation, no zero count there).
        """
        m = _NEGATION.search(text)
        if not m:
            return None
        tail = re.split(r"[,;]", text[m.end():], maxsplit=1)[0]
        obj = [t for t in _terms(tail) if t not in _GENERIC]
        if not obj:
            return None
        holding = [p for p in ev.passages if all(t in p.terms for t in obj)]
        if not holding:
            return None
        best = max(holding, key=lambda p: _overlap(ev, terms, p))  # first of the best
        if _NEGATION.search(best.text) or _ZERO.search(best.text):
            return None  # the passage most about the claim negates it too, or counts zero
        return _Finding(AuditLabel.CONTRADICTED,
                        f"the evidence states it without the negation ({m.group(0)!r})", best)

    def _event_conflict(self, text: str, terms: list[str], ev: _Evidence) -> _Finding | None:
        """Find an event the evidence records for something else.

        The claim says X was reverted (removed, yanked...; passive voice, so that X is what the
        event befell), the evidence's revert names other things, and X stands in the evidence
        elsewhere.
        """
        m = _EVENT_VERBS.search(text)
        if not m or not re.search(r"\b(?:was|were|is|are|been|got|get|gets)\s+(?:\w+\s+)?$",
                                  text[: m.start()]):
            return None  # passive only: "X was reverted" names X; "Lena dropped X" names Lena
        verb = _terms(m.group(1))
        subject = [t for t in _terms(text[: m.start()]) if t not in _GENERIC]
        if not verb or len(subject) < 2:
            return None
        events = [p for p in ev.passages if verb[0] in p.terms]
        if not events:
            return None
        if any(sum(t in p.terms for t in subject) * 2 >= len(subject) for p in events):
            return None
        elsewhere = [p for p in ev.passages if p not in events
                     and sum(t in p.terms for t in subject) * 2 >= len(subject)]
        if not elsewhere:
            return None
        return _Finding(AuditLabel.CONTRADICTED,
                        f"the evidence's {m.group(1)} concerns something else", events[0])

    # -- quotes --------------------------------------------------------------------------------

    def _anchor(self, c: ClaimAudit, ev: _Evidence, quote: str, prefer: int | None) -> None:
        """Anchor ``quote`` in the record's outputs and set it on ``c`` with its span."""
        idx, anchor = anchor_evidence_quote(quote, ev.outputs, prefer=prefer)
        c.quote, c.anchor = quote, anchor.kind.value
        if anchor.is_admitted:
            c.evidence_index, c.quote_start, c.quote_end = idx, anchor.span_start, anchor.span_end

    def _quote(self, c: ClaimAudit, ev: _Evidence, p: _Passage) -> None:
        """Quote passage ``p`` (widened to neighbour lines when short) and anchor it."""
        out = ev.outputs[p.index]
        a, b = p.start, p.end
        short = AUDIT_MIN_QUOTE_CHARS + 4
        while len(" ".join(out[a:b].split())) < short and (a > 0 or b < len(out)):
            a = out.rfind("\n", 0, max(a - 1, 0)) + 1 if a > 0 else 0
            nb = out.find("\n", b + 1)
            b = len(out) if nb < 0 else nb
        quote = out[a:b].strip()
        idx, anchor = anchor_evidence_quote(quote, ev.outputs, prefer=p.index)
        c.quote = quote
        c.anchor = anchor.kind.value
        if anchor.is_admitted:
            c.evidence_index, c.quote_start, c.quote_end = idx, anchor.span_start, anchor.span_end


def audit_lexical(records: Sequence[AuditRecord], auditor: LexicalAuditor | None = None
                  ) -> list[AuditOutcome]:
    """Audit records with the lexical auditor (records without evidence by the scanner alone).

    A record the auditor fails on is left unlabelled, its outcome ``degraded`` with the error
    (``lexical failed: …``), as the LLM auditor leaves a record a failed call left: the other
    records of the batch are audited.
    """
    auditor = auditor or LexicalAuditor()
    out = []
    for r in records:
        only = scanner_only(r)
        if only is not None:
            out.append(only)
            continue
        skipped: Counter[str] = Counter()
        claims = split_claims(r.answer, skips=skipped)
        flags = scan_answer(r.answer, [e.output for e in r.evidence])
        attach_flags(claims, flags)
        try:
            auditor.audit(r, claims, flags)
        except Exception as exc:  # noqa: BLE001 - one record must not fail its whole batch
            why = f"{type(exc).__name__}: {str(exc)[:120]}".rstrip(": ")
            for c in claims:  # nothing it decided before failing is kept
                c.label, c.quote, c.anchor, c.is_demoted = None, "", None, False
                c.evidence_index = c.quote_start = c.quote_end = None
                c.reason = f"left unlabelled: the lexical auditor failed ({why})"
            out.append(AuditOutcome(r, auditor.name, claims, flags,
                                    degraded=f"lexical failed: {why}", skipped=skipped))
            continue
        out.append(AuditOutcome(r, auditor.name, claims, flags, skipped=skipped))
    return out
