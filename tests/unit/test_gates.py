"""Tests of tasks.gates: saturation, round budget, evidence budget, counter."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from affidavit.schemas.enums import Mode
from affidavit.tasks.gates import (
    BudgetItem,
    GateCounter,
    gate_budget,
    gate_round_budget,
    gate_saturation,
    reason_code,
)
from affidavit.tasks.queries import MODES


@pytest.mark.parametrize(
    ("fractions", "stop", "code"),
    [
        ([], False, "too_few_batches"),
        ([0.05], False, "too_few_batches"),
        ([0.05, 0.1], True, "saturated"),
        ([0.9, 0.6, 0.1, 0.05], True, "saturated"),
        ([0.1, 0.05, 0.5], False, "not_saturated"),  # a fresh batch resets
        ([0.1, 0.5, 0.1], False, "not_saturated"),  # two, but not consecutive
        ([0.5, 0.15, 0.0], False, "not_saturated"),  # 0.15 is not under 0.15
        ([0.5, 0.0, 0.0], True, "saturated"),  # empty batches bring nothing new
    ],
)
def test_gate_saturation(fractions: list[float], stop: bool, code: str) -> None:
    result = gate_saturation(fractions)
    assert result[0] is stop
    assert reason_code(result[1]) == code


def test_gate_saturation_options_and_errors() -> None:
    assert gate_saturation([0.2, 0.2, 0.2], threshold=0.25, patience=3)[0]
    assert not gate_saturation([0.2, 0.2], threshold=0.25, patience=3)[0]
    with pytest.raises(ValueError, match="fractions"):
        gate_saturation([1.5])
    with pytest.raises(ValueError, match="fractions"):
        gate_saturation([float("nan")])
    with pytest.raises(ValueError, match="patience"):
        gate_saturation([0.1], patience=0)
    with pytest.raises(ValueError, match="threshold"):
        gate_saturation([0.1], threshold=0)


@pytest.mark.parametrize(
    ("mode", "round_no", "ok"),
    [
        (Mode.QUICK, 1, True),
        (Mode.QUICK, 2, False),
        (Mode.STANDARD, 3, True),
        (Mode.STANDARD, 4, False),
        (Mode.DEEP, 6, True),
        (Mode.FORENSIC, 12, True),
        (Mode.FORENSIC, 13, False),
    ],
)
def test_gate_round_budget(mode: Mode, round_no: int, ok: bool) -> None:
    passed, reason = gate_round_budget(round_no, MODES[mode])
    assert passed is ok
    assert reason_code(reason) == ("within_round_budget" if ok else "round_budget_spent")
    assert gate_round_budget(round_no, mode.value) == (passed, reason)


def test_gate_round_budget_errors() -> None:
    with pytest.raises(ValueError, match="round_no"):
        gate_round_budget(0, MODES[Mode.QUICK])
    with pytest.raises(ValueError, match="unknown mode"):
        gate_round_budget(1, "turbo")


def test_gate_budget_skips_and_keeps_going() -> None:
    items = [
        BudgetItem("low", 100, 0.1),
        BudgetItem("big", 900, 0.95),
        BudgetItem("mid", 500, 0.7),
        BudgetItem("small", 300, 0.6),
    ]
    admitted, skipped = gate_budget(items, budget_chars=1300)
    # big (900) fits; mid (500) does not fit in 400 → skipped; small (300) fits; low (100) fits.
    assert admitted == ["big", "small", "low"]
    assert [k for k, _ in skipped] == ["mid"]
    assert skipped[0][1] == "over_budget: needs 500 chars, 400 left"


def test_gate_budget_ties_and_invalid() -> None:
    items = [
        BudgetItem("a", 300, 0.5),
        BudgetItem("b", 200, 0.5),  # same quality, cheaper → first
        BudgetItem("a", 10, 0.9),  # duplicate key
        BudgetItem("neg", -5, 0.9),
        BudgetItem("nan", 5, float("nan")),
    ]
    admitted, skipped = gate_budget(items, budget_chars=250)
    assert admitted == ["b"]
    reasons = {k: reason_code(r) for k, r in skipped}
    assert reasons == {"a": "over_budget", "neg": "invalid_cost", "nan": "invalid_quality"}
    assert ("a", "duplicate_key") in skipped
    with pytest.raises(ValueError, match="budget_chars"):
        gate_budget(items, budget_chars=-1)


def test_gate_budget_zero() -> None:
    admitted, skipped = gate_budget(
        [BudgetItem("z", 0, 0.3), BudgetItem("x", 1, 0.9)], budget_chars=0
    )
    assert admitted == ["z"]
    assert [k for k, _ in skipped] == ["x"]


@settings(max_examples=80, deadline=None)
@given(
    items=st.lists(st.tuples(st.integers(0, 2000), st.floats(0, 1, allow_nan=False)), max_size=30),
    budget=st.integers(0, 10_000),
)
def test_gate_budget_invariants(items: list[tuple[int, float]], budget: int) -> None:
    bi = [BudgetItem(f"k{i}", c, q) for i, (c, q) in enumerate(items)]
    admitted, skipped = gate_budget(bi, budget_chars=budget)
    cost = {b.key: b.cost_chars for b in bi}
    assert sum(cost[k] for k in admitted) <= budget
    assert sorted(admitted + [k for k, _ in skipped]) == sorted(b.key for b in bi)
    left = budget - sum(cost[k] for k in admitted)
    # Nothing skipped would still have fitted (greedy goes on after a skip).
    assert all(cost[k] > left for k, _ in skipped)


def test_gate_counter() -> None:
    c = GateCounter()
    assert c.check("anchor", (True, "exact"))
    assert not c.check("anchor", (False, "quote_not_found: SUPPORTS"))
    assert not c.check("anchor", (False, "quote_not_found: NEUTRAL"))
    _, skipped = gate_budget([BudgetItem("a", 10, 1.0), BudgetItem("b", 10, 0.5)], budget_chars=10)
    c.record_skipped("budget", skipped)
    assert c.passed["anchor"] == 1
    assert c.by_reason("anchor") == {"quote_not_found": 2}
    assert c.n_rejected("budget") == 1
    assert c.n_rejected() == 3
    other = GateCounter()
    other.record("researchable", False, "vague: best", n=4)
    c.merge(other)
    assert c.by_reason("researchable")["vague"] == 4
    rows = c.as_rows()
    assert {"gate": "researchable", "outcome": "rejected", "reason": "vague", "n": 4} in rows
    with pytest.raises(ValueError, match="n must be"):
        c.record("x", True, n=-1)
