"""Every demo verdict and its supporting / refuting origins, through the real ``affidavit demo``.

The expected verdicts follow from ``flows/demo/documents.jsonl`` under DESIGN.md's tribunal
rules in the standard mode (2 independent origins for SUPPORTED):

- revenue of 42 million: the Northwind release (its six copies and the rewrite that quotes the
  sentence belong to its lineage) and the regulator's 10-Q filing, an independent first-hand
  source, both state it; the correction concerns growth only → SUPPORTED, 2/0.
- growth of 18 percent: the release lineage states it (1 origin); the Daily Ledger correction
  gives 11 percent for the same quantity → 1 supporting and 1 refuting origin, refutation does not
  outweigh support (it would need 2 origins) → CONTESTED, 1/1, confidence capped at 0.4.
- desalination plant: one origin (the Herald) and its three syndicated copies → PARTIAL, 1/0.
- Lumen Bridge: two independent reports → SUPPORTED, 2/0.
- Elmstead: the blog asserts the ban itself (not an attribution), the county fact check states
  the council rejected it → CONTESTED, 1/1 (one origin each side), capped.
- snow leopards: nothing in the archive addresses them → UNVERIFIED, 0/0.
"""

from __future__ import annotations

import json

import pytest

DEMO_URL = {
    "release": "https://northwind-robotics.example/press/q3-2025-results",
    "filing": "https://filings.regulator.example/company/northwind-robotics/10-q-2025-q3",
    "correction": "https://dailyledger.example/corrections/northwind-robotics-growth",
    "herald": "https://harborcityherald.example/local/desalination-plant",
    "courier": "https://corvallocourier.example/city/lumen-bridge-opens",
    "broadcast": "https://riverlandsbroadcast.example/news/2024/05/14/corvallo-bridge",
    "blog": "https://quietstreets.example/blog/elmstead-leaf-blowers",
    "factcheck": "https://countyfactcheck.example/checks/elmstead-leaf-blower-ban",
}

# needle in the claim text → (status, supporting origins, refuting origins) by URL of the origin
EXPECTED = {
    "revenue of 42 million": ("SUPPORTED", {"release", "filing"}, set()),
    "grew 18 percent": ("CONTESTED", {"release"}, {"correction"}),
    "desalination": ("PARTIAL", {"herald"}, set()),
    "Lumen Bridge": ("SUPPORTED", {"courier", "broadcast"}, set()),
    "Elmstead": ("CONTESTED", {"blog"}, {"factcheck"}),
    "snow leopard": ("UNVERIFIED", set(), set()),
}


@pytest.fixture(scope="module")
def demo_home(prefect_harness, tmp_path_factory):  # noqa: ANN201
    """Run ``affidavit demo --json`` into a fresh home; return (home, printed verdicts)."""
    from typer.testing import CliRunner

    from affidavit.flows.cli import app

    home = str(tmp_path_factory.mktemp("demo-cli-home"))
    res = CliRunner().invoke(app, ["demo", "--home", home, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout[res.stdout.index("{"):])
    return home, out["verdicts"]


def _origins_by_side(home: str, claim_id: str) -> tuple[set[str], set[str]]:
    """URLs of the origins of the admitted supporting (SUPPORTS/PARTIAL) and REFUTES evidence."""
    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import Warehouse

    wh = Warehouse(resolve_home(home))
    df = wh.query(
        "select e.stance, od.url from evidence e "
        "join verdicts_latest v using (run_id, claim_id) "
        "join documents od on od.doc_id = coalesce(e.origin_doc_id, e.doc_id) "
        "where e.claim_id = $cid",
        {"cid": claim_id},
    )
    sup = {u for s, u in df.iter_rows() if s in ("SUPPORTS", "PARTIAL")}
    ref = {u for s, u in df.iter_rows() if s == "REFUTES"}
    return sup, ref


@pytest.mark.parametrize("needle", list(EXPECTED))
def test_demo_verdict_and_its_origins_are_right(demo_home, needle):
    home, verdicts = demo_home
    rows = [v for v in verdicts if needle in v["claim_text"]]
    assert len(rows) == 1, needle
    v = rows[0]
    status, sup, ref = EXPECTED[needle]
    assert v["status"] == status, v["decided_by"]
    assert (v["supporting_origins"], v["refuting_origins"]) == (len(sup), len(ref)), v
    got_sup, got_ref = _origins_by_side(home, v["claim_id"])
    assert got_sup == {DEMO_URL[k] for k in sup}, v["decided_by"]
    assert got_ref == {DEMO_URL[k] for k in ref}, v["decided_by"]
    if ref:
        assert v["confidence"] <= 0.4
    assert v["decided_by"].startswith(f"{status}: ")
    assert "\n" not in v["decided_by"]


def test_demo_prints_six_verdicts(demo_home):
    _, verdicts = demo_home
    assert len(verdicts) == 6


def test_a_claim_that_is_not_researchable_says_so_in_decided_by(demo_home):
    from affidavit.flows.factcheck import factcheck

    home, _ = demo_home
    res = factcheck(claim_texts=["In my opinion Corvallo should build more bridges."], home=home)
    [v] = res.verdicts
    assert v["status"] == "UNVERIFIED"
    assert v["decided_by"].startswith("UNVERIFIED: not researched, the claim is not researchable")
