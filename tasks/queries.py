"""Queries stage: fan a claim out into search queries by angle, side, round and gap.

Pure and deterministic (no clock, no randomness): the same claim, mode, round, gaps and issued
set always give the same queries. Query texts are keyword lists, because they run against a
BM25 index over the warehouse's own archive (and optionally a web search API): the claim's
content words plus a few angle terms (DESIGN.md, Queries).

* Round 1 fans out into angles: CONFIRM (the claim's keywords), SUPPORT (keywords + evidence
  terms), PROVENANCE ("original", "study", "filing", "report", "announced") on the advocate
  side; REFUTE ("false", "incorrect", "disputed", "debunked", "retracted", "correction") on the
  prosecutor side, which hunts for disconfirmation (what either side finds is judged on its own
  text and admitted whatever its stance).
* Later rounds issue FOLLOW_UP queries chosen by what is missing (:func:`detect_gaps`):
  independent support, both sides of a conflict, a primary source, or broader wording when
  nothing was found. Variants rotate with the round and anything already issued is skipped, so
  later rounds do not repeat earlier ones.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from affidavit.schemas.enums import Angle, Mode, Side
from affidavit.tasks.claims import STOP_WORDS

__all__ = [
    "GAPS",
    "MODES",
    "ModeConfig",
    "PlannedQuery",
    "detect_gaps",
    "keywords",
    "normalize_query",
    "plan_queries",
]


@dataclass(frozen=True, slots=True)
class ModeConfig:
    """Budget of one research mode (DESIGN.md, Research modes).

    Attributes:
        rounds: Maximum number of search rounds.
        sub_questions: Maximum number of sub-questions a claim is decomposed into.
        queries_per_side: Queries per side (advocate, prosecutor) per round.
        origins_for_supported: Independent supporting origins needed for SUPPORTED.
    """

    rounds: int
    sub_questions: int
    queries_per_side: int
    origins_for_supported: int


MODES: dict[Mode, ModeConfig] = {
    Mode.QUICK: ModeConfig(rounds=1, sub_questions=3, queries_per_side=1, origins_for_supported=1),
    Mode.STANDARD: ModeConfig(
        rounds=3, sub_questions=6, queries_per_side=2, origins_for_supported=2
    ),
    Mode.DEEP: ModeConfig(rounds=6, sub_questions=12, queries_per_side=3, origins_for_supported=2),
    Mode.FORENSIC: ModeConfig(
        rounds=12, sub_questions=20, queries_per_side=4, origins_for_supported=3
    ),
}
"""The modes table of DESIGN.md, verbatim."""


@dataclass(frozen=True, slots=True)
class PlannedQuery:
    """One query to issue.

    Attributes:
        angle: Why it is issued (confirm, support, refute, provenance, follow_up).
        side: ADVOCATE (looks for support) or PROSECUTOR (hunts for disconfirmation).
        text: The query text: lowercase keywords and angle terms separated by single spaces.
    """

    angle: Angle
    side: Side
    text: str


GAPS = frozenset({"independent_support", "conflict", "primary_source", "no_results", "broaden"})
"""Gap names understood by :func:`plan_queries` and returned by :func:`detect_gaps`."""

MAX_KEYWORDS = 12
"""Longest keyword list put in one query. BM25 scores grow with matched terms, and a long claim
would otherwise make every query a near copy of the claim; 12 covers a typical one-sentence
claim (median ~9 content words in Climate-FEVER claims, by reading, not measured)."""

_STOP = STOP_WORDS
"""Stop words dropped from query keywords (shared with claim scoring)."""
# "not", "no" are stop words for keywords(): negation words belong to the refute angle terms.

_TOKEN = re.compile(
    r"(?:[^\W\d_]\.){2,}|\d+(?:[.,]\d+)*%?|[^\W\d_](?:[\w'’\-]*[^\W_])?", re.UNICODE
)

# Angle terms. Each list is a rotation of variants; later variants are used when earlier ones
# were already issued, or in later rounds. Terms come from DESIGN.md, Queries. Negation words
# ("not", "no") are avoided: the archive's BM25 tokenizer drops them as stop words (bm25s's
# English list), so they would be wasted.
_SUPPORT_TERMS = (
    "evidence confirmed",
    "data shows",
    "study found",
    "analysis report",
    "statistics figures",
)
_REFUTE_TERMS = (
    "false incorrect",
    "disputed debunked",
    "retracted correction",
    "myth misleading",
    "denied hoax",
    "unproven unsupported",
    "fact check wrong",
)
_PROVENANCE_TERMS = (
    "original study",
    "report announced",
    "filing official",
    "press release statement",
    "primary source data",
)
_INDEPENDENT_TERMS = (
    "independent analysis",
    "separately reported",
    "researchers found",
    "verified confirmed",
    "second source",
)
_CONFLICT_ADVOCATE_TERMS = ("fact check verified", "evidence confirms", "investigation found")
_CONFLICT_PROSECUTOR_TERMS = (
    "disputed contradicts",
    "correction clarification",
    "challenged rebuttal",
)
_PRIMARY_TERMS = (
    "official statement",
    "original report",
    "filing document",
    "press release",
    "dataset publication",
)


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text or "")


def _content_tokens(text: str) -> list[str]:
    """Content tokens in original case, deduplicated case-insensitively, in order."""
    out: list[str] = []
    seen: set[str] = set()
    for tok in _tokens(text):
        t = tok.strip("'’-.")
        if t.lower().endswith(("'s", "’s")):
            t = t[:-2]
        low = t.lower()
        if not low or low in _STOP or (len(low) == 1 and not low.isdigit()):
            continue
        if low not in seen:
            seen.add(low)
            out.append(t)
    return out


def keywords(text: str) -> list[str]:
    """Return a text's content words: lowercased, stop words removed, first occurrence order.

    Figures are kept ("2.5%", "1969"); possessive "'s" is dropped; duplicates removed.

    Args:
        text: A claim or any text.

    Returns:
        Lowercase keywords, in the order they first occur.

    >>> keywords("Which is faster for web servers, Rust or Go?")
    ['faster', 'web', 'servers', 'rust', 'go']
    """
    return [t.lower() for t in _content_tokens(text)]


def _specificity(tok: str, index: int) -> tuple[int, int, int]:
    """Sort key: figures, then names, then other words, then verb/adverb forms; longer first.

    A proxy for informativeness without corpus statistics: figures and proper names narrow a
    search most; "-ing", "-ed" and "-ly" forms and short words least.
    """
    low = tok.lower()
    if tok[0].isdigit():
        rank = 0
    elif (tok[0].isupper() and index > 0) or (tok.isupper() and len(tok) > 1):
        rank = 1
    elif len(low) <= 3 or low.endswith(("ing", "ed", "ly")):
        rank = 3
    else:
        rank = 2
    return (rank, -len(tok), index)


def _top_keywords(text: str, k: int) -> list[str]:
    """The ``k`` most specific keywords, returned in text order."""
    toks = _content_tokens(text)
    if len(toks) <= k:
        return [t.lower() for t in toks]
    order = sorted(range(len(toks)), key=lambda i: _specificity(toks[i], i))[:k]
    return [toks[i].lower() for i in sorted(order)]


def normalize_query(text: str) -> str:
    """Normalise a query text for comparison: lowercase, single spaces.

    >>> normalize_query("  Rust   GO ")
    'rust go'
    """
    return " ".join((text or "").lower().split())


def _compose(words: Sequence[str], terms: str) -> str:
    seen: set[str] = set()
    parts: list[str] = []
    for w in [*words, *terms.split()]:
        if w not in seen:
            seen.add(w)
            parts.append(w)
    return " ".join(parts)


def _validate(mode: Mode | str, round_no: int, gaps: frozenset[str]) -> ModeConfig:
    try:
        cfg = MODES[Mode(mode)]
    except ValueError as exc:
        raise ValueError(
            f"unknown mode {mode!r}; expected one of {[m.value for m in Mode]}"
        ) from exc
    if round_no < 1:
        raise ValueError(f"round_no starts at 1, got {round_no}")
    unknown = set(gaps) - GAPS
    if unknown:
        raise ValueError(f"unknown gaps {sorted(unknown)}; expected some of {sorted(GAPS)}")
    return cfg


def plan_queries(
    claim: str,
    *,
    mode: Mode | str,
    round_no: int,
    gaps: frozenset[str] = frozenset(),
    issued: frozenset[str] = frozenset(),
) -> list[PlannedQuery]:
    """Plan the queries of one round for one claim.

    Round 1: the advocate issues CONFIRM, then PROVENANCE, then SUPPORT (and further SUPPORT
    variants), the prosecutor issues REFUTE variants, each side up to the mode's
    ``queries_per_side`` (quick: confirm + refute).

    Later rounds: FOLLOW_UP queries chosen by ``gaps`` (see :func:`detect_gaps`), each side up
    to ``queries_per_side``:

    * ``independent_support`` → advocate: keywords + "independent analysis", "separately
      reported", ...;
    * ``conflict`` → both sides adjudicate: advocate "fact check verified", prosecutor
      "disputed contradicts", ...;
    * ``primary_source`` → advocate: keywords + "official statement", "original report",
      "filing document", ...;
    * ``no_results`` / ``broaden`` → both sides with fewer, more specific keywords (figures and
      names first), with "not"/"false" on the prosecutor side.

    No gaps in a later round → no queries (nothing is missing). A round past the mode's
    ``rounds`` → no queries. Variants rotate with the round number, and a text whose normalised
    form (:func:`normalize_query`) is in ``issued`` or already planned is skipped for the next
    variant, so a text is never repeated.

    Args:
        claim: The claim or sub-question.
        mode: quick, standard, deep or forensic.
        round_no: 1-based round number.
        gaps: What the earlier rounds left missing (names in :data:`GAPS`).
        issued: Texts of queries already issued for this claim (any case or spacing).

    Returns:
        Queries, advocate side first; possibly empty (no keywords, no gaps, or all variants
        already issued).

    Raises:
        ValueError: On an unknown mode or gap, or ``round_no`` < 1.

    >>> q = "Which is faster for web servers, Rust or Go?"
    >>> plan = plan_queries(q, mode="quick", round_no=1)
    >>> for q in plan:
    ...     print(q.angle.value, q.side.value, q.text)
    confirm advocate faster web servers rust go
    refute prosecutor faster web servers rust go false incorrect
    """
    cfg = _validate(mode, round_no, gaps)
    if round_no > cfg.rounds:
        return []
    words = _top_keywords(claim, MAX_KEYWORDS)
    if not words:
        return []
    budget = cfg.queries_per_side
    taken = {normalize_query(t) for t in issued}
    plan: list[PlannedQuery] = []

    def offer(side: Side, angle: Angle, candidates: Sequence[str], used: list[int]) -> bool:
        """Add the first candidate not yet issued; return whether one was added."""
        if used[0] >= budget:
            return False
        for text in candidates:
            key = normalize_query(text)
            if key and key not in taken:
                taken.add(key)
                plan.append(PlannedQuery(angle, side, key))
                used[0] += 1
                return True
        return False

    def rotate(terms: Sequence[str], start: int) -> list[str]:
        n = len(terms)
        return [terms[(start + i) % n] for i in range(n)]

    adv, pro = [0], [0]
    shift = round_no - 1
    if round_no == 1:
        # Advocate: confirm, provenance, then support variants.
        adv_plan: list[tuple[Angle, list[str]]] = [
            (Angle.CONFIRM, [_compose(words, "")] + [_compose(words, t) for t in _SUPPORT_TERMS]),
            (Angle.PROVENANCE, [_compose(words, t) for t in _PROVENANCE_TERMS]),
        ]
        adv_plan += [
            (Angle.SUPPORT, [_compose(words, t) for t in rotate(_SUPPORT_TERMS, i)])
            for i in range(max(0, budget - 2))
        ]
        for angle, cands in adv_plan:
            offer(Side.ADVOCATE, angle, cands, adv)
        for i in range(budget):
            offer(
                Side.PROSECUTOR,
                Angle.REFUTE,
                [_compose(words, t) for t in rotate(_REFUTE_TERMS, i)],
                pro,
            )
        return plan

    if not gaps:
        return plan
    narrow = [_top_keywords(claim, k) for k in (4, 3, 2) if k < len(words)] or [words]
    # Ordered so that the most informative follow-up of each side comes first.
    adv_sources: list[list[str]] = []
    pro_sources: list[list[str]] = []
    if "conflict" in gaps:
        adv_sources.append([_compose(words, t) for t in rotate(_CONFLICT_ADVOCATE_TERMS, shift)])
        pro_sources.append([_compose(words, t) for t in rotate(_CONFLICT_PROSECUTOR_TERMS, shift)])
    if "primary_source" in gaps:
        adv_sources.append([_compose(words, t) for t in rotate(_PRIMARY_TERMS, shift)])
    if "independent_support" in gaps:
        adv_sources.append([_compose(words, t) for t in rotate(_INDEPENDENT_TERMS, shift)])
        adv_sources.append(
            [_compose(n, t) for n in narrow for t in rotate(_INDEPENDENT_TERMS, shift + 1)]
        )
    if gaps & {"no_results", "broaden"}:
        adv_sources.append([_compose(n, "") for n in narrow])
        adv_sources.append([_compose(n, t) for n in narrow for t in rotate(_SUPPORT_TERMS, shift)])
        pro_sources.append([_compose(n, t) for n in narrow for t in rotate(_REFUTE_TERMS, shift)])
    # Fill each side round-robin over its sources, then keep going down each list.
    for side, sources, used in (
        (Side.ADVOCATE, adv_sources, adv),
        (Side.PROSECUTOR, pro_sources, pro),
    ):
        progress = True
        while used[0] < budget and progress:
            progress = False
            for cands in sources:
                if used[0] >= budget:
                    break
                if offer(side, Angle.FOLLOW_UP, cands, used):
                    progress = True
    return plan


def detect_gaps(
    *,
    supporting_origins: int,
    refuting_origins: int,
    n_results: int,
    has_primary: bool,
    origins_needed: int,
) -> frozenset[str]:
    """Name what the research of a claim is missing so far.

    * no search results at all → ``no_results`` and ``broaden``;
    * results but no admitted evidence on either side → ``broaden``;
    * support and refutation both present → ``conflict``;
    * support short of ``origins_needed`` independent origins (and no refutation) →
      ``independent_support``;
    * some evidence but no primary source among it → ``primary_source``.

    An empty set means nothing is missing: the flow may stop early.

    Args:
        supporting_origins: Independent origins of admitted supporting evidence so far.
        refuting_origins: Independent origins of admitted refuting evidence so far.
        n_results: Search results returned for the claim so far (all rounds).
        has_primary: Whether a primary, official or peer-reviewed source is among the evidence.
        origins_needed: The mode's ``origins_for_supported``.

    Returns:
        A subset of :data:`GAPS`.

    Raises:
        ValueError: When a count is negative or ``origins_needed`` < 1.

    >>> sorted(detect_gaps(supporting_origins=1, refuting_origins=0, n_results=7,
    ...                    has_primary=False, origins_needed=2))
    ['independent_support', 'primary_source']
    """
    if min(supporting_origins, refuting_origins, n_results) < 0:
        raise ValueError("counts must be >= 0")
    if origins_needed < 1:
        raise ValueError(f"origins_needed must be >= 1, got {origins_needed}")
    gaps: set[str] = set()
    if n_results == 0:
        return frozenset({"no_results", "broaden"})
    if supporting_origins == 0 and refuting_origins == 0:
        return frozenset({"broaden"})
    if supporting_origins > 0 and refuting_origins > 0:
        gaps.add("conflict")
    elif supporting_origins < origins_needed and refuting_origins == 0:
        gaps.add("independent_support")
    if not has_primary:
        gaps.add("primary_source")
    return frozenset(gaps)
