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


def test_partial_stances_make_partial():
    d = decide(ev([("a", "PARTIAL", "a", True), ("b", "PARTIAL", "b", True)]))
    assert d.status is VerdictStatus.PARTIAL
    assert d.supporting_origins == 0


def test_publishers_are_hosts_of_origins():
    rows = [("a", "SUPPORTS", "a", True), ("b", "SUPPORTS", "b", True)]
    d = decide(ev(rows, hosts={"a": "same.example", "b": "same.example"}))
    assert d.supporting_origins == 2
    assert d.supporting_publishers == 1
