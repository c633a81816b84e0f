"""Tests of tasks.queries: modes, keywords, round-1 fan-out, follow-ups by gap, gap detection."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from affidavit.schemas.enums import Angle, Mode, Side
from affidavit.tasks.queries import (
    GAPS,
    MODES,
    ModeConfig,
    PlannedQuery,
    detect_gaps,
    keywords,
    normalize_query,
    plan_queries,
)

CLAIM = "Global warming is driving polar bears toward extinction"
REFUTE_WORDS = {"false", "incorrect", "retracted", "correction", "disputed", "debunked"}
REFUTE_VOCAB = REFUTE_WORDS | {
    "myth",
    "misleading",
    "denied",
    "hoax",
    "unproven",
    "unsupported",
    "fact",
    "check",
    "wrong",
}
PROVENANCE_WORDS = {"original", "study", "filing", "report", "announced"}


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        (Mode.QUICK, ModeConfig(1, 3, 1, 1)),
        (Mode.STANDARD, ModeConfig(3, 6, 2, 2)),
        (Mode.DEEP, ModeConfig(6, 12, 3, 2)),
        (Mode.FORENSIC, ModeConfig(12, 20, 4, 3)),
    ],
)
def test_modes_table_matches_design(mode: Mode, expected: ModeConfig) -> None:
    assert MODES[mode] == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Which is faster for web servers, Rust or Go?",
            ["faster", "web", "servers", "rust", "go"],
        ),
        ("The U.S. economy grew 2.5% in 2023", ["u.s", "economy", "grew", "2.5%", "2023"]),
        ("Obama's birth certificate is fake", ["obama", "birth", "certificate", "fake"]),
        ("It is what it is", []),
        ("Rust, rust and RUST", ["rust"]),
    ],
)
def test_keywords(text: str, expected: list[str]) -> None:
    assert keywords(text) == expected


def _by(plan: list[PlannedQuery], side: Side) -> list[PlannedQuery]:
    return [q for q in plan if q.side is side]


@pytest.mark.parametrize("mode", list(Mode))
def test_round_one_fan_out(mode: Mode) -> None:
    plan = plan_queries(CLAIM, mode=mode, round_no=1)
    per_side = MODES[mode].queries_per_side
    adv, pro = _by(plan, Side.ADVOCATE), _by(plan, Side.PROSECUTOR)
    assert len(adv) == per_side
    assert len(pro) == per_side
    assert adv[0].angle is Angle.CONFIRM
    assert all(q.angle is Angle.REFUTE for q in pro)
    # Every query carries the claim's content words; refute queries add refutation terms.
    for q in plan:
        assert {"polar", "bears", "extinction"} <= set(q.text.split())
    for q in pro:
        assert set(q.text.split()) & REFUTE_VOCAB
    assert set(pro[0].text.split()) & REFUTE_WORDS
    if per_side >= 2:
        prov = [q for q in adv if q.angle is Angle.PROVENANCE]
        assert prov
        assert set(prov[0].text.split()) & PROVENANCE_WORDS
    if per_side >= 3:
        assert any(q.angle is Angle.SUPPORT for q in adv)
    assert len({q.text for q in plan}) == len(plan)


def test_quick_mode_is_confirm_plus_refute() -> None:
    plan = plan_queries("Which is faster for web servers, Rust or Go?", mode="quick", round_no=1)
    assert plan == [
        PlannedQuery(Angle.CONFIRM, Side.ADVOCATE, "faster web servers rust go"),
        PlannedQuery(Angle.REFUTE, Side.PROSECUTOR, "faster web servers rust go false incorrect"),
    ]


def test_deterministic() -> None:
    a = plan_queries(CLAIM, mode=Mode.DEEP, round_no=2, gaps=frozenset(GAPS))
    b = plan_queries(CLAIM, mode=Mode.DEEP, round_no=2, gaps=frozenset(GAPS))
    assert a == b


@pytest.mark.parametrize(
    ("gap", "expect_words", "sides"),
    [
        (
            "independent_support",
            {"independent", "separately", "researchers", "verified", "second"},
            {Side.ADVOCATE},
        ),
        ("primary_source", {"official", "original", "filing", "press", "dataset"}, {Side.ADVOCATE}),
        (
            "conflict",
            {"fact", "evidence", "investigation", "disputed", "correction", "challenged"},
            {Side.ADVOCATE, Side.PROSECUTOR},
        ),
    ],
)
def test_follow_up_varies_with_gap(gap: str, expect_words: set[str], sides: set[Side]) -> None:
    plan = plan_queries(CLAIM, mode=Mode.STANDARD, round_no=2, gaps=frozenset({gap}))
    assert plan
    assert all(q.angle is Angle.FOLLOW_UP for q in plan)
    assert {q.side for q in plan} == sides
    assert all(set(q.text.split()) & expect_words for q in plan[:1])


def test_broaden_uses_fewer_words() -> None:
    full = plan_queries(CLAIM, mode=Mode.STANDARD, round_no=1)
    broad = plan_queries(CLAIM, mode=Mode.STANDARD, round_no=2, gaps=frozenset({"no_results"}))
    assert broad
    confirm_len = len(full[0].text.split())
    plain = [q for q in broad if q.side is Side.ADVOCATE][0]
    assert len(plain.text.split()) < confirm_len
    assert "extinction" in plain.text  # the most specific words survive
    pro = _by(broad, Side.PROSECUTOR)
    assert pro
    assert all(set(q.text.split()) & REFUTE_VOCAB for q in pro)


def test_different_gaps_give_different_queries() -> None:
    a = {
        q.text
        for q in plan_queries(
            CLAIM, mode="deep", round_no=2, gaps=frozenset({"independent_support"})
        )
    }
    b = {
        q.text
        for q in plan_queries(CLAIM, mode="deep", round_no=2, gaps=frozenset({"primary_source"}))
    }
    assert a
    assert b
    assert not a & b


def test_later_rounds_never_repeat() -> None:
    issued: set[str] = set()
    gaps = frozenset({"independent_support", "primary_source"})
    for r in range(1, MODES[Mode.FORENSIC].rounds + 1):
        plan = plan_queries(
            CLAIM, mode=Mode.FORENSIC, round_no=r, gaps=gaps, issued=frozenset(issued)
        )
        texts = [q.text for q in plan]
        assert not set(texts) & issued
        assert len(texts) == len(set(texts))
        issued |= set(texts)
    assert len(issued) > 12


def test_issued_is_compared_normalised() -> None:
    first = plan_queries(CLAIM, mode="quick", round_no=1)
    again = plan_queries(
        CLAIM, mode="quick", round_no=1, issued=frozenset(q.text.upper() + "  " for q in first)
    )
    assert {q.text for q in again}.isdisjoint({q.text for q in first})


def test_no_gaps_or_past_budget_gives_nothing() -> None:
    assert plan_queries(CLAIM, mode="standard", round_no=2) == []
    assert plan_queries(CLAIM, mode="quick", round_no=2, gaps=frozenset({"broaden"})) == []
    assert plan_queries("is it?", mode="standard", round_no=1) == []


def test_plan_errors() -> None:
    with pytest.raises(ValueError, match="unknown mode"):
        plan_queries(CLAIM, mode="turbo", round_no=1)
    with pytest.raises(ValueError, match="round_no"):
        plan_queries(CLAIM, mode="quick", round_no=0)
    with pytest.raises(ValueError, match="unknown gaps"):
        plan_queries(CLAIM, mode="deep", round_no=2, gaps=frozenset({"vibes"}))


def test_long_claim_keyword_cap() -> None:
    long_claim = " ".join(f"word{i}x" for i in range(40))
    q = plan_queries(long_claim, mode="quick", round_no=1)[0]
    assert len(q.text.split()) == 12


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        (
            dict(supporting_origins=0, refuting_origins=0, n_results=0, has_primary=False),
            {"no_results", "broaden"},
        ),
        (
            dict(supporting_origins=0, refuting_origins=0, n_results=9, has_primary=False),
            {"broaden"},
        ),
        (
            dict(supporting_origins=1, refuting_origins=0, n_results=9, has_primary=False),
            {"independent_support", "primary_source"},
        ),
        (
            dict(supporting_origins=1, refuting_origins=0, n_results=9, has_primary=True),
            {"independent_support"},
        ),
        (
            dict(supporting_origins=2, refuting_origins=1, n_results=9, has_primary=True),
            {"conflict"},
        ),
        (dict(supporting_origins=3, refuting_origins=0, n_results=9, has_primary=True), set()),
        (
            dict(supporting_origins=3, refuting_origins=0, n_results=9, has_primary=False),
            {"primary_source"},
        ),
        (dict(supporting_origins=0, refuting_origins=2, n_results=9, has_primary=True), set()),
    ],
)
def test_detect_gaps(kw: dict, expected: set[str]) -> None:
    gaps = detect_gaps(origins_needed=2, **kw)
    assert gaps == expected
    assert gaps <= GAPS


def test_detect_gaps_errors() -> None:
    with pytest.raises(ValueError, match="must be >="):
        detect_gaps(
            supporting_origins=-1,
            refuting_origins=0,
            n_results=0,
            has_primary=False,
            origins_needed=2,
        )
    with pytest.raises(ValueError, match="must be >="):
        detect_gaps(
            supporting_origins=0,
            refuting_origins=0,
            n_results=0,
            has_primary=False,
            origins_needed=0,
        )


def test_normalize_query() -> None:
    assert normalize_query("  Rust \t GO ") == "rust go"


@settings(max_examples=60, deadline=None)
@given(
    claim=st.text(min_size=0, max_size=120),
    mode=st.sampled_from(list(Mode)),
    round_no=st.integers(min_value=1, max_value=12),
    gaps=st.frozensets(st.sampled_from(sorted(GAPS))),
)
def test_plan_invariants(claim: str, mode: Mode, round_no: int, gaps: frozenset[str]) -> None:
    plan = plan_queries(claim, mode=mode, round_no=round_no, gaps=gaps)
    per_side = MODES[mode].queries_per_side
    assert len(_by(plan, Side.ADVOCATE)) <= per_side
    assert len(_by(plan, Side.PROSECUTOR)) <= per_side
    assert len({q.text for q in plan}) == len(plan)
    assert all(q.text == normalize_query(q.text) and q.text for q in plan)
    again = plan_queries(
        claim, mode=mode, round_no=round_no, gaps=gaps, issued=frozenset(q.text for q in plan)
    )
    assert not {q.text for q in again} & {q.text for q in plan}
