"""The verdict worlds in tests/benchmarks/worlds are consistent with their own labels."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

WORLDS = Path(__file__).resolve().parents[1] / "benchmarks" / "worlds"
SETS = sorted(p for p in WORLDS.iterdir() if p.is_dir())
STATUSES = {"SUPPORTED", "PARTIAL", "CONTESTED", "CONTRADICTED", "UNVERIFIED"}


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_there_are_world_sets() -> None:
    assert len(SETS) >= 5


@pytest.mark.parametrize("set_dir", SETS, ids=[p.name for p in SETS])
def test_a_world_sets_labels_follow_from_its_documents(set_dir: Path) -> None:
    docs = {d["id"]: d for d in _rows(set_dir / "documents.jsonl")}
    origins = {o["id"]: o for o in _rows(set_dir / "origins.jsonl")}
    claims = _rows(set_dir / "claims.jsonl")
    assert len(docs) == len(_rows(set_dir / "documents.jsonl"))  # ids unique
    assert set(origins) == set(docs)
    assert len({d["url"] for d in docs.values()}) == len(docs)
    assert len({c["claim_id"] for c in claims}) == len(claims) == 30
    for c in claims:
        assert c["expected_status"] in STATUSES
        for side, key in (("supporting_docs", "expected_supporting_origins"),
                          ("refuting_docs", "expected_refuting_origins")):
            assert set(c[side]) <= set(docs), c["claim_id"]
            assert len({origins[d]["origin_id"] for d in c[side]}) == c[key], c["claim_id"]
        if c["expected_status"] == "UNVERIFIED":
            assert not c["supporting_docs"]
            assert not c["refuting_docs"]
        if c["expected_status"] == "CONTESTED":
            assert c["expected_supporting_origins"] >= 1
            assert c["expected_refuting_origins"] >= 1
