"""The press-release scenario: 13 documents, 3 independent origins, via ``affidavit origins``."""

from __future__ import annotations

import json
from importlib import resources

from typer.testing import CliRunner

DEMO = resources.files("affidavit.flows").joinpath("demo")


def _northwind(tmp_path):  # noqa: ANN001, ANN202
    rows = [json.loads(line) for line in DEMO.joinpath("documents.jsonl").read_text().splitlines()
            if line.strip()]
    keep = [r for r in rows if r["id"].startswith("nw-")]
    path = tmp_path / "northwind.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in keep) + "\n", encoding="utf-8")
    return path, keep


def test_compare_sources_counts_thirteen_documents_as_three_origins(tmp_path):
    from affidavit.flows.analyst import load_documents
    from affidavit.flows.origins import compare_sources

    path, keep = _northwind(tmp_path)
    assert len(keep) == 13
    docs, _ = load_documents([str(path)])
    report = compare_sources(docs)
    assert report.n_documents == 13
    assert report.n_origins == 3


def test_origins_command_reports_13_to_3(prefect_harness, tmp_path):
    from affidavit.flows.cli import app

    path, _ = _northwind(tmp_path)
    res = CliRunner().invoke(app, ["origins", str(path), "--home", str(tmp_path / "home"),
                                   "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout[res.stdout.index("{"):])
    assert data["n_documents"] == 13
    assert data["n_origins"] == 3
