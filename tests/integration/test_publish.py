"""Writing a run's report folder from the warehouse (no Prefect needed)."""

from __future__ import annotations

import json

from affidavit.flows.publish import write_run_report
from tests.report_data import NOW, synthetic_run


def test_report_folder_written_and_a_bad_setting_does_not_lose_the_report(warehouse,
                                                                          monkeypatch):
    monkeypatch.setenv("AFFIDAVIT_PUBLISH_BASE_URL", "ftp://not-http.example/")
    data = synthetic_run(7)
    run = {**data["run"], "run_id": "run-publish"}
    published = write_run_report(warehouse, run, data["verdicts"], None, now=NOW)
    assert published.index.is_file()
    assert published.n_pages == 7
    assert len(list((published.index.parent / "claims").glob("*.html"))) == 7
    nodes = json.loads(published.claimreview.read_text(encoding="utf-8"))
    assert len(nodes) == published.n_reviews == 6  # 1 of 7 synthetic verdicts is UNVERIFIED
    assert published.left_out == {"status:UNVERIFIED": 1}
    assert all(n["url"].startswith("https://affidavit.invalid/claims/") for n in nodes)
    assert "publishing settings ignored" in published.notes[0]
    assert not list(published.index.parent.rglob(".*.tmp"))  # atomic writes leave no temp file
