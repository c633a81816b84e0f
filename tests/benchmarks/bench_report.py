"""How fast the HTML report renders, writes and opens in headless Chromium.

Builds a synthetic run of N claims (tests/report_data.py: several quotes, a neutral and a
rejected one, lineage edges per claim), renders and writes the report folder, then opens the
index page and one claim page in headless Chromium and prints one JSON line:
render/write time, index size, the wall time from navigation to the index's load event (and
the browser's own navigation timing of it), sorting the table, and opening a claim page.
Run from the repository root:

    python -m tests.benchmarks.bench_report --claims 2000
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from affidavit.tasks.reports import render_report
from tests.browser import chromium_page, find_chromium
from tests.report_data import synthetic_run


def main() -> None:
    """Run the benchmark and print one JSON line of figures."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--claims", type=int, default=2000, help="claims in the report")
    ap.add_argument("--repeat", type=int, default=3, help="page opens measured (median)")
    ap.add_argument("--out", type=Path, default=None, help="keep the report in this folder")
    args = ap.parse_args()
    data = synthetic_run(args.claims)
    t0 = time.perf_counter()
    pages = render_report(data["run"], data["verdicts"], data["evidence"], data["lineage"],
                          documents=data["documents"])
    render_s = time.perf_counter() - t0
    folder = args.out or Path(tempfile.mkdtemp(prefix="affidavit-report-bench-"))
    t0 = time.perf_counter()
    for rel, html in pages.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(html, encoding="utf-8")
    write_s = time.perf_counter() - t0
    index = folder / "report.html"
    figures = {
        "claims": args.claims,
        "pages": len(pages),
        "render_s": round(render_s, 2),
        "write_s": round(write_s, 2),
        "index_bytes": index.stat().st_size,
        "largest_claim_page_bytes": max(len(h.encode()) for r, h in pages.items()
                                        if r != "report.html"),
    }
    if find_chromium() is None:
        figures["chromium"] = "not installed"
    else:
        loads, paints = [], []
        with chromium_page() as page:
            for _ in range(args.repeat):
                page.navigate("about:blank")
                loads.append(page.navigate(index.as_uri()))
                paints.append(page.eval(
                    "performance.getEntriesByType('navigation')[0].loadEventEnd"))
            rows = page.eval("document.querySelectorAll('#claims-table tbody tr').length")
            t0 = time.perf_counter()
            page.eval("document.querySelectorAll('#claims-table th')[1].click(); 1")
            sort_s = time.perf_counter() - t0
            claim_page = sorted(r for r in pages if r != "report.html")[0]
            page.navigate("about:blank")
            claim_load = page.navigate((folder / claim_page).as_uri())
            errors = page.errors + [c["text"] for c in page.console if c["type"] == "error"]
        loads.sort()
        figures.update({
            "index_load_s_median": round(loads[len(loads) // 2], 3),
            "index_load_s_max": round(loads[-1], 3),
            "index_load_event_ms_median": round(sorted(p or 0 for p in paints)[len(paints) // 2]),
            "index_rows": rows,
            "sort_by_confidence_s": round(sort_s, 3),
            "claim_page_load_s": round(claim_load, 3),
            "console_errors": len(errors),
        })
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
