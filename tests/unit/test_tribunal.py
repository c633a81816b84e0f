from __future__ import annotations

import polars as pl
import pytest

from affidavit.schemas.enums import VerdictStatus
from affidavit.tasks.tribunal import REFUTATION_CAP, TribunalConfig, decide


def ev(rows: list[tuple[str, str, str | None, bool]], hosts: dict[str, str] | None = None):
    """rows: (doc_id, stance, origin_doc_id, is_admitted)."""
    hosts = hosts or {}
    return pl.DataFrame(
        {
            "doc_id": [r[0] for r in rows],
            "stance": [r[1] for r in rows],
            "origin_doc_id": [r[2] for r in rows],
            "is_admitted": [r[3] for r in rows],
            "relevance": [0.9] * len(rows),
            "quote": [f"quote from {r[0]} long enough to anchor" for r in rows],
            "origin_host": [hosts.get(r[2] or r[0], f"{r[2] or r[0]}.example") for r in rows],
        },
        schema_overrides={"origin_doc_id": pl.String},
    )


def test_two_independent_origins_support():
    d = decide(ev([("a", "SUPPORTS", "a", True), ("b", "SUPPORTS", "b", True)]))
    assert d.status is VerdictStatus.SUPPORTED
    assert d.supporting_origins == 2
    assert d.supporting_publishers == 2
    assert 0.5 < d.confidence <= 0.95


def test_copies_of_one_origin_count_once_even_without_the_origin():
    rows = [(f"copy{i}", "SUPPORTS", "release", True) for i in range(12)]
    d = decide(ev(rows))
    assert d.supporting_origins == 1
    assert d.status is VerdictStatus.PARTIAL


def test_unadmitted_evidence_counts_for_nothing():
    d = decide(ev([("a", "SUPPORTS", "a", False), ("b", "SUPPORTS", "b", False)]))
    assert d.status is VerdictStatus.UNVERIFIED
    assert d.confidence == 0.0


def test_refutation_caps_confidence_and_contests():
    rows = [(f"s{i}", "SUPPORTS", f"s{i}", True) for i in range(6)]
    rows.append(("r", "REFUTES", "r", True))
    d = decide(ev(rows))
    assert d.status is VerdictStatus.CONTESTED
    assert d.confidence <= REFUTATION_CAP


def test_refutation_without_support_contradicts():
    d = decide(ev([("r1", "REFUTES", "r1", True), ("n", "NEUTRAL", "n", True)]))
    assert d.status is VerdictStatus.CONTRADICTED
    assert d.confidence <= REFUTATION_CAP


def test_refutation_outweighing_support_contradicts():
    rows = [("s", "SUPPORTS", "s", True)] + [(f"r{i}", "REFUTES", f"r{i}", True)
                                              for i in range(3)]
    assert decide(ev(rows)).status is VerdictStatus.CONTRADICTED


@pytest.mark.parametrize(("need", "expected"), [(1, VerdictStatus.SUPPORTED),
                                                 (2, VerdictStatus.PARTIAL)])
def test_origins_needed_follows_the_mode(need, expected):
    d = decide(ev([("a", "SUPPORTS", None, True)]), config=TribunalConfig(need))
    assert d.status is expected


def test_qualified_support_alone_is_partial_however_many_origins():
    """Hedged or approximate support (PARTIAL stances) from two origins stays PARTIAL; the
    origins are counted as (qualified) supporting origins, none as full support."""
    d = decide(ev([("a", "PARTIAL", "a", True), ("b", "PARTIAL", "b", True)]))
    assert d.status is VerdictStatus.PARTIAL
    assert d.supporting_origins == 2
    assert d.full_supporting_origins == 0
    assert "qualified" in d.decided_by


def test_contested_always_has_a_supporting_origin():
    d = decide(ev([("s", "SUPPORTS", "s", True), ("r", "REFUTES", "r", True)]))
    assert d.status is VerdictStatus.CONTESTED
    assert d.supporting_origins == 1
    assert d.refuting_origins == 1
    assert d.confidence <= REFUTATION_CAP


def test_refutation_against_qualified_support_is_contested():
    d = decide(ev([("q", "PARTIAL", "q", True), ("r", "REFUTES", "r", True)]))
    assert d.status is VerdictStatus.CONTESTED
    assert d.supporting_origins == 1


@pytest.mark.parametrize(("n_sup", "n_ref", "expected"), [
    (0, 1, VerdictStatus.CONTRADICTED),   # refutation with no support
    (1, 1, VerdictStatus.CONTESTED),
    (1, 2, VerdictStatus.CONTRADICTED),   # 2 >= 2 x 1
    (2, 3, VerdictStatus.CONTESTED),      # 3 < 2 x 2
    (2, 4, VerdictStatus.CONTRADICTED),
])
def test_outweigh_rule_counts_origins(n_sup, n_ref, expected):
    rows = [(f"s{i}c{j}", "SUPPORTS", f"s{i}", True) for i in range(n_sup) for j in range(3)]
    rows += [(f"r{i}", "REFUTES", f"r{i}", True) for i in range(n_ref)]
    d = decide(ev(rows))
    assert d.status is expected
    assert (d.supporting_origins, d.refuting_origins) == (n_sup, n_ref)


def test_copies_refuting_count_once_against_support():
    """Four copies of one refuting origin are one origin: 1 vs 1 is CONTESTED, not outweighed."""
    rows = [("s", "SUPPORTS", "s", True)] + [(f"c{i}", "REFUTES", "r", True) for i in range(4)]
    assert decide(ev(rows)).status is VerdictStatus.CONTESTED


def test_neutral_evidence_never_decides():
    d = decide(ev([("n1", "NEUTRAL", "n1", True), ("n2", "NEUTRAL", "n2", True)]))
    assert d.status is VerdictStatus.UNVERIFIED
    assert d.decided_by.startswith("UNVERIFIED")


def test_decided_by_names_each_deciding_origin_once_on_one_line():
    rows = [("a1", "SUPPORTS", "a", True), ("a2", "SUPPORTS", "a", True),
            ("b", "SUPPORTS", "b", True)]
    d = decide(ev(rows))
    assert d.status is VerdictStatus.SUPPORTED
    assert "\n" not in d.decided_by
    assert d.decided_by.startswith("SUPPORTED: 2 independent origin(s) support it")
    assert d.decided_by.count("a.example") == 1
    assert "b.example" in d.decided_by


def test_publishers_are_hosts_of_origins():
    rows = [("a", "SUPPORTS", "a", True), ("b", "SUPPORTS", "b", True)]
    d = decide(ev(rows, hosts={"a": "same.example", "b": "same.example"}))
    assert d.supporting_origins == 2
    assert d.supporting_publishers == 1
