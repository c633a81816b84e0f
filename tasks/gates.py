"""Gates: pure functions that return ``(passed, reason)`` (DESIGN.md, Gates).

Rejected rows are kept with their reason and counted; nothing is dropped silently. Reasons are
short stable codes (``"over_budget"``), optionally followed by ``": <detail>"``; a
:class:`GateCounter` counts by the code so that counts stay groupable.

Direction of the boolean, per gate:

* :func:`gate_saturation` → ``True`` means **stop** the rounds (the search is saturated);
* :func:`gate_round_budget` → ``True`` means the round **may run**;
* :func:`gate_budget` returns the admitted keys and the skipped ``(key, reason)`` pairs.

The researchable gate lives with the claims (:func:`affidavit.tasks.claims.gate_researchable`); the
anchor gate with the quotes. No gate looks at the side (advocate / prosecutor) of the query that
found a document: its stance is read from its own text, and both sides' evidence is admitted.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from affidavit.schemas.enums import Mode

__all__ = [
    "DEFAULT_PATIENCE",
    "DEFAULT_SATURATION_THRESHOLD",
    "BudgetItem",
    "GateCounter",
    "gate_budget",
    "gate_round_budget",
    "gate_saturation",
    "reason_code",
]

DEFAULT_SATURATION_THRESHOLD = 0.15
"""Share of new documents in a batch under which the batch counts as saturated (DESIGN.md)."""
DEFAULT_PATIENCE = 2
"""Consecutive saturated batches that stop the rounds (DESIGN.md: "two consecutive batches")."""


def reason_code(reason: str) -> str:
    """Return the code part of a reason (before ``":"``).

    >>> reason_code("over_budget: needs 900 chars, 120 left")
    'over_budget'
    """
    return reason.split(":", 1)[0].strip()


def gate_saturation(
    new_doc_fractions: Sequence[float],
    *,
    threshold: float = DEFAULT_SATURATION_THRESHOLD,
    patience: int = DEFAULT_PATIENCE,
) -> tuple[bool, str]:
    """Decide whether research rounds should stop because searches bring nothing new.

    The search is saturated when each of the last ``patience`` batches had a share of new
    documents (documents not seen in earlier batches for this claim / all returned) strictly
    under ``threshold``.

    Args:
        new_doc_fractions: Share of new documents per batch, oldest first, each in [0, 1].
            A batch with no results should be passed as 0.0 (it brought nothing new).
        threshold: Saturation threshold, default 0.15 (DESIGN.md).
        patience: Consecutive saturated batches needed, default 2 (DESIGN.md).

    Returns:
        ``(True, "saturated: ...")`` to stop; ``(False, "too_few_batches: ...")`` or
        ``(False, "not_saturated: ...")`` to go on.

    Raises:
        ValueError: When a fraction is outside [0, 1] or NaN, ``threshold`` is outside (0, 1],
            or ``patience`` < 1.

    >>> gate_saturation([0.9, 0.1, 0.05])
    (True, 'saturated: last 2 batches 0.10, 0.05 < 0.15 new')
    >>> gate_saturation([0.9, 0.1, 0.5])[0]
    False
    """
    if patience < 1:
        raise ValueError(f"patience must be >= 1, got {patience}")
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold}")
    fractions = [float(f) for f in new_doc_fractions]
    for f in fractions:
        if math.isnan(f) or not 0.0 <= f <= 1.0:
            raise ValueError(f"new-document fractions must be in [0, 1], got {f}")
    if len(fractions) < patience:
        return False, f"too_few_batches: {len(fractions)} < {patience}"
    last = fractions[-patience:]
    shown = ", ".join(f"{f:.2f}" for f in last)
    if all(f < threshold for f in last):
        return True, f"saturated: last {patience} batches {shown} < {threshold:g} new"
    return False, f"not_saturated: last {patience} batches {shown}"


def gate_round_budget(round_no: int, mode_config: object) -> tuple[bool, str]:
    """Decide whether round ``round_no`` may run within the mode's round budget.

    Args:
        round_no: 1-based number of the round about to run.
        mode_config: A :class:`affidavit.tasks.queries.ModeConfig` (anything with an int
        ``rounds``), or a
            :class:`affidavit.schemas.enums.Mode` / its string value.

    Returns:
        ``(True, "within_round_budget: round r of n")`` when ``round_no`` <= the mode's rounds,
        else ``(False, "round_budget_spent: ...")``.

    Raises:
        ValueError: When ``round_no`` < 1 or the mode is unknown.

    >>> from affidavit.tasks.queries import MODES
    >>> gate_round_budget(2, MODES[Mode.QUICK])
    (False, 'round_budget_spent: round 2 > 1 rounds')
    """
    if round_no < 1:
        raise ValueError(f"round_no starts at 1, got {round_no}")
    rounds = getattr(mode_config, "rounds", None)
    if rounds is None:
        from affidavit.tasks.queries import MODES  # same package; resolves a Mode name

        try:
            rounds = MODES[Mode(str(mode_config))].rounds
        except ValueError as exc:
            raise ValueError(f"unknown mode {mode_config!r}") from exc
    if round_no <= rounds:
        return True, f"within_round_budget: round {round_no} of {rounds}"
    return False, f"round_budget_spent: round {round_no} > {rounds} rounds"


@dataclass(slots=True)
class BudgetItem:
    """A piece of evidence competing for the evidence budget.

    Attributes:
        key: Identifier (e.g. ``doc_id`` or ``"<claim_id>/<doc_id>"``), unique in a call.
        cost_chars: Its cost in characters (the text a judge would read).
        quality: Its rank score; higher is better (e.g. relevance × credibility weight).
    """

    key: str
    cost_chars: int
    quality: float


def gate_budget(
    items: Sequence[BudgetItem], *, budget_chars: int
) -> tuple[list[str], list[tuple[str, str]]]:
    """Admit evidence by quality within a budget of characters (DESIGN.md, Gates).

    Items are ranked by quality (highest first; ties: cheaper first, then input order) and
    admitted greedily while their cost fits in what is left. An item that does not fit is
    skipped and the next ones are still tried (a cheaper one may fit), so the budget is not
    wasted on the first large item.

    Args:
        items: The candidates.
        budget_chars: Total characters that may be admitted, >= 0.

    Returns:
        ``(admitted, skipped)``: admitted keys in rank order; ``(key, reason)`` for every other
        item, in rank order, with reason ``"over_budget: ..."``, ``"duplicate_key"``,
        ``"invalid_cost: ..."`` (negative) or ``"invalid_quality: ..."`` (NaN).

    Raises:
        ValueError: When ``budget_chars`` < 0.

    >>> items = [BudgetItem("a", 600, 0.9), BudgetItem("b", 500, 0.8), BudgetItem("c", 300, 0.5)]
    >>> gate_budget(items, budget_chars=1000)
    (['a', 'c'], [('b', 'over_budget: needs 500 chars, 400 left')])
    """
    if budget_chars < 0:
        raise ValueError(f"budget_chars must be >= 0, got {budget_chars}")
    skipped: list[tuple[str, str]] = []
    valid: list[tuple[int, BudgetItem]] = []
    seen: set[str] = set()
    for i, it in enumerate(items):
        if it.key in seen:
            skipped.append((it.key, "duplicate_key"))
            continue
        seen.add(it.key)
        if it.cost_chars < 0:
            skipped.append((it.key, f"invalid_cost: {it.cost_chars}"))
            continue
        if isinstance(it.quality, float) and math.isnan(it.quality):
            skipped.append((it.key, "invalid_quality: nan"))
            continue
        valid.append((i, it))
    valid.sort(key=lambda p: (-p[1].quality, p[1].cost_chars, p[0]))
    admitted: list[str] = []
    left = budget_chars
    for _, it in valid:
        if it.cost_chars <= left:
            admitted.append(it.key)
            left -= it.cost_chars
        else:
            skipped.append((it.key, f"over_budget: needs {it.cost_chars} chars, {left} left"))
    return admitted, skipped


@dataclass(slots=True)
class GateCounter:
    """Count gate outcomes: passes per gate, rejects per (gate, reason code).

    Use it around any gate so that nothing is dropped silently::

        counter = GateCounter()
        if counter.check("researchable", gate_researchable(text)):
            ...

    Attributes:
        passed: Passes per gate name.
        rejected: Rejects per ``(gate, reason_code)``.
    """

    passed: Counter[str] = field(default_factory=Counter)
    rejected: Counter[tuple[str, str]] = field(default_factory=Counter)

    def check(self, gate: str, result: tuple[bool, str]) -> bool:
        """Record one gate result and return whether it passed."""
        ok, reason = result
        self.record(gate, ok, reason)
        return ok

    def record(self, gate: str, passed: bool, reason: str = "", n: int = 1) -> None:
        """Record ``n`` outcomes of ``gate`` (a reject is counted under its reason code)."""
        if n < 0:
            raise ValueError(f"n must be >= 0, got {n}")
        if passed:
            self.passed[gate] += n
        else:
            self.rejected[(gate, reason_code(reason) or "unspecified")] += n

    def record_skipped(self, gate: str, skipped: Iterable[tuple[str, str]]) -> None:
        """Record the ``(key, reason)`` rejects returned by :func:`gate_budget`."""
        for _, reason in skipped:
            self.record(gate, False, reason)

    def n_rejected(self, gate: str | None = None) -> int:
        """Rejects of one gate, or of all gates."""
        return sum(n for (g, _), n in self.rejected.items() if gate is None or g == gate)

    def by_reason(self, gate: str) -> Counter[str]:
        """Rejects of one gate by reason code."""
        return Counter({r: n for (g, r), n in self.rejected.items() if g == gate})

    def merge(self, other: GateCounter) -> GateCounter:
        """Add another counter's counts into this one (e.g. from parallel batches); return self."""
        self.passed.update(other.passed)
        self.rejected.update(other.rejected)
        return self

    def as_rows(self) -> list[dict[str, object]]:
        """Counts as rows ``{gate, outcome, reason, n}`` sorted by gate, outcome, reason."""
        rows: list[dict[str, object]] = [
            {"gate": g, "outcome": "passed", "reason": None, "n": n} for g, n in self.passed.items()
        ]
        rows += [
            {"gate": g, "outcome": "rejected", "reason": r, "n": n}
            for (g, r), n in self.rejected.items()
        ]
        return sorted(rows, key=lambda r: (str(r["gate"]), str(r["outcome"]), str(r["reason"])))
