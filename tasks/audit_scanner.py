"""The audit scanner: absolute words and numeric claims of an answer that no evidence holds.

No model, no judgement: the scanner lists what an answer asserts that must be in the evidence if
the answer is grounded, and is not. Its rules are those of the audit benchmark
(``../shared/bench/README.md``, *audit-dev*):

* **absolute words** (whole word, any case): :data:`ABSOLUTE_WORDS`;
* **numeric claims**: dotted numbers (``3.12``, ``v2.4.1``, ``1.4.0-rc.2``, decimals), ISO dates
  (``2024-05-18``), percentages (``12%``, ``12 percent``) and integers followed, directly or
  after one space or hyphen, by a unit of :data:`TIME_UNITS` / :data:`SIZE_UNITS` /
  :data:`RATE_UNITS`. Bare counts, years, ports and status codes are not numeric claims.

A word is contained in the evidence when some evidence *output* holds it as a whole word (any
case); a numeric claim when every number token of it is a number token of some output. Number
tokens are digit runs joined by single dots or hyphens, wherever they stand, compared as
written: ``p50`` holds ``50``; ``00:05`` holds ``05``, which is not ``5``. Units are not
compared. Inputs (paths, commands) are not evidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = [
    "ABSOLUTE_WORDS",
    "ScanHit",
    "evidence_words",
    "find_absolute_words",
    "find_numeric_claims",
    "number_tokens",
    "scan_answer",
]

ABSOLUTE_WORDS = frozenset(
    """all always completely entirely every everyone everything fully guaranteed impossible
    never none nothing only totally""".split()
)
"""Absolute words of the audit benchmark's scanner rules (bench README, audit-dev)."""

TIME_UNITS = (
    "ns us µs ms s sec secs second seconds min mins minute minutes h hr hrs hour hours "
    "day days week weeks month months year years"
).split()
SIZE_UNITS = "B byte bytes KB KiB MB MiB GB GiB TB TiB".split()
RATE_UNITS = ["req/s", "rps", "MB/s"]
"""Units after which an integer is a numeric claim (bench README, audit-dev). Abbreviations
match as written (``MB`` is not ``mb``), words in any case; longest first, and never inside a
longer word."""

_NUMBER_TOKEN = re.compile(r"\d+(?:[.\-]\d+)*")
_WORD_UNITS = frozenset(
    "sec secs second seconds min mins minute minutes hr hrs hour hours day days week weeks "
    "month months year years byte bytes".split())
_UNIT_ALT = "|".join(
    f"(?i:{re.escape(u)})" if u in _WORD_UNITS else re.escape(u)
    for u in sorted(TIME_UNITS + SIZE_UNITS + RATE_UNITS, key=len, reverse=True))
"""Units as the rules list them: words in any case ("30 Seconds"), abbreviations as written
("MB" is not "mb")."""
_DATE = re.compile(r"(?<![\w.\-])\d{4}-\d{2}-\d{2}(?![\d])")
_DOTTED = re.compile(
    r"(?<![\d.])v?\d+(?:\.\d+)+"
    r"(?:-(?:rc|alpha|beta|dev|post|pre|a|b)?\.?\d*(?![A-Za-z]))?"  # pre-release: -rc.2, -beta
    rf"(?:[ \-]?(?:{_UNIT_ALT})(?![\w/]))?"  # a unit kept with the figure: "3.4 MB"
)
_PERCENT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:\s?%|\s(?:percent|per cent)\b)", re.I)
_INT_UNIT = re.compile(
    rf"(?<![\w.\-,])(?:\d{{1,3}}(?:,\d{{3}})+|\d+)(?:[ \-])?(?:{_UNIT_ALT})(?![\w/])")
_WORD = re.compile(r"[A-Za-z]+")
_WHOLE_WORD = re.compile(r"\b[A-Za-z]+\b")
"""A word of ASCII letters standing alone: not the "all" of ``run_all``, ``3all`` or "allée"."""


@dataclass(frozen=True, slots=True)
class ScanHit:
    """One absolute word or numeric claim found in an answer.

    Attributes:
        text: As written in the answer (``"150 MB"``, ``"v2.4.1"``, ``"every"``).
        kind: ``absolute`` | ``version`` (dotted number) | ``date`` | ``percent`` | ``unit``.
        start: Start offset in the answer (characters).
        end: End offset, exclusive.
        tokens: The number tokens compared with the evidence (empty for a word).
    """

    text: str
    kind: str
    start: int
    end: int
    tokens: tuple[str, ...] = ()

    @property
    def flag(self) -> str:
        """The flag as reported: the word lowercased, or the numeric claim as written."""
        return self.text.lower() if self.kind == "absolute" else self.text


def number_tokens(text: str) -> list[str]:
    """Return the number tokens of a text: digit runs joined by single dots or hyphens.

    >>> number_tokens("p50 41.2 ms at 00:05 on 2024-05-18, v1.4.0-rc.2")
    ['50', '41.2', '00', '05', '2024-05-18', '1.4.0', '2']
    """
    return _NUMBER_TOKEN.findall(text)


def evidence_words(outputs: Iterable[str]) -> tuple[frozenset[str], frozenset[str]]:
    """Index the evidence outputs: (lowercased whole words, number tokens)."""
    words: set[str] = set()
    nums: set[str] = set()
    for out in outputs:
        words.update(w.lower() for w in _WORD.findall(out or ""))
        nums.update(number_tokens(out or ""))
    return frozenset(words), frozenset(nums)


def find_absolute_words(answer: str) -> list[ScanHit]:
    """Find the absolute words of an answer (whole words, any case), in order.

    >>> [h.flag for h in find_absolute_words("Every test passed; none failed. Totally.")]
    ['every', 'none', 'totally']
    """
    return [
        ScanHit(m.group(0), "absolute", m.start(), m.end())
        for m in _WHOLE_WORD.finditer(answer)
        if m.group(0).lower() in ABSOLUTE_WORDS
    ]


def find_numeric_claims(answer: str) -> list[ScanHit]:
    """Find the numeric claims of an answer, in order of kind.

    ISO dates, dotted numbers, percentages, integers with a unit; a span claimed by an earlier
    kind is not read again by a later one.

    >>> [(h.text, h.kind) for h in find_numeric_claims(
    ...     "v2.4.1 on 2024-05-18 took 120 ms, 12% slower, 3 retries on port 8080, 5-day window")]
    [('2024-05-18', 'date'), ('v2.4.1', 'version'), ('12%', 'percent'), ('120 ms', 'unit'), \
('5-day', 'unit')]
    """
    hits: list[ScanHit] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    for kind, pattern in (("date", _DATE), ("version", _DOTTED), ("percent", _PERCENT),
                          ("unit", _INT_UNIT)):
        for m in pattern.finditer(answer):
            a, b = m.span()
            if not free(a, b):
                continue
            if kind == "version" and _PERCENT.match(answer, a):
                continue  # "99.9%" is a percentage, read below
            taken.append((a, b))
            hits.append(ScanHit(m.group(0), kind, a, b, tuple(number_tokens(m.group(0)))))
    return hits


def scan_answer(answer: str, outputs: Sequence[str]) -> list[ScanHit]:
    """Flag the absolute words and numeric claims of ``answer`` that no evidence output holds.

    Args:
        answer: The answer text.
        outputs: The evidence outputs (tool inputs are not evidence); empty for an answer with
            no evidence, whose every absolute word and numeric claim is then flagged.

    Returns:
        The flagged hits in answer order, one per distinct flag (first occurrence).

    >>> [h.flag for h in scan_answer("All 42 tests pass in 3.02s, always under 5 s.",
    ...                              ["40 passed, 2 skipped in 3.02s"])]
    ['all', 'always', '5 s']
    """
    words, nums = evidence_words(outputs)
    out: list[ScanHit] = []
    seen: set[str] = set()
    hits = sorted(find_absolute_words(answer) + find_numeric_claims(answer),
                  key=lambda h: h.start)
    for h in hits:
        if h.kind == "absolute":
            held = h.text.lower() in words
        else:
            held = bool(h.tokens) and all(t in nums for t in h.tokens)
        key = h.flag.lower()
        if held or key in seen:
            continue
        seen.add(key)
        out.append(h)
    return out
