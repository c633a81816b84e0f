"""The HTML report opened in headless Chromium, as an editor would open it."""

from __future__ import annotations

from pathlib import Path

import pytest

from affidavit.tasks.reports import INDEX_PAGE_ROWS, claimreview_nodes, render_report
from tests.browser import chromium_page, find_chromium
from tests.report_data import NOW, SECRET, synthetic_run


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A report of INDEX_PAGE_ROWS + 20 synthetic claims written to a folder."""
    data = synthetic_run(INDEX_PAGE_ROWS + 20)
    nodes, _ = claimreview_nodes(data["verdicts"], now=NOW)
    by_page = {n["url"].rsplit("/", 1)[-1].removesuffix(".html"): n for n in nodes}
    pages = render_report(data["run"], data["verdicts"], data["evidence"], data["lineage"],
                          documents=data["documents"], claimreviews=by_page)
    folder = tmp_path_factory.mktemp("report")
    for rel, html in pages.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(html, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def page():  # noqa: ANN201
    """One headless Chromium tab (skips where Chromium is not installed)."""
    if find_chromium() is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium; .ci/run "
                    "installs it when apt is available)")
    try:
        with chromium_page() as p:
            yield p
    except (OSError, RuntimeError, TimeoutError) as exc:  # cannot start here (no /dev/shm ...)
        pytest.skip(f"chromium could not start: {exc}")


def _errors(page) -> list[str]:  # noqa: ANN001
    return page.errors + [c["text"] for c in page.console if c["type"] in ("error", "assert")]


def test_index_loads_cleanly_and_has_what_an_editor_needs(page, report_dir) -> None:  # noqa: ANN001
    page.navigate((report_dir / "report.html").as_uri())
    assert _errors(page) == []
    info = page.eval("""(() => ({
      title: document.title,
      summary: document.querySelectorAll('#summary [data-status]').length,
      sections: [...document.querySelectorAll('nav.sections a')].map(a => a.textContent),
      heads: [...document.querySelectorAll('#claims-table th')].map(t => t.textContent.trim()),
      rows: document.querySelectorAll('#claims-table tbody tr').length,
      visible: [...document.querySelectorAll('#claims-table tbody tr')]
                 .filter(r => r.offsetParent !== null).length,
      links: [...document.querySelectorAll('#claims-table tbody a')]
               .every(a => /^claims\\/[0-9a-f]+\\.html$/.test(a.getAttribute('href'))),
      pager: document.getElementById('page-info').textContent,
      text: document.body.innerText,
    }))()""")
    assert info["title"].startswith("affidavit report")
    assert info["summary"] == 5
    assert "Summary" in info["sections"]
    assert any(s.startswith("Claims") for s in info["sections"])
    assert info["heads"][:2] == ["status", "conf."]
    assert {"origins +", "origins −", "publishers"} <= set(info["heads"])
    assert info["rows"] == INDEX_PAGE_ROWS + 20
    assert info["visible"] == INDEX_PAGE_ROWS
    assert info["links"]
    assert info["pager"] == f"claims 1–{INDEX_PAGE_ROWS} of {INDEX_PAGE_ROWS + 20}"
    assert "Judge: lexical judge used" in info["text"]
    assert SECRET not in info["text"]


def test_index_sorts_filters_and_pages(page, report_dir) -> None:  # noqa: ANN001
    page.navigate((report_dir / "report.html").as_uri())
    visible_conf = """[...document.querySelectorAll('#claims-table tbody tr')]
        .filter(r => r.offsetParent !== null).map(r => parseFloat(r.cells[1].textContent))"""
    page.eval("document.querySelectorAll('#claims-table th')[1].click()")
    asc = page.eval(visible_conf)
    assert asc == sorted(asc)
    assert len(asc) == INDEX_PAGE_ROWS
    page.eval("document.querySelectorAll('#claims-table th')[1].click()")
    desc = page.eval(visible_conf)
    assert desc == sorted(desc, reverse=True)
    page.eval("document.getElementById('next').click()")
    assert page.eval(f"({visible_conf}).length") == 20
    page.eval("""(() => {const f = document.getElementById('filter');
        f.value = 'bridge number 7 on'; f.dispatchEvent(new Event('input'));})()""")
    assert page.eval(f"({visible_conf}).length") == 1
    assert "matching" in page.eval("document.getElementById('page-info').textContent")
    assert _errors(page) == []


def test_claim_page_shows_evidence_lineage_and_hides_secrets(page, report_dir) -> None:  # noqa: ANN001
    for name in ("0000000000000001", "0000000000000002", "0000000000000003"):
        page.navigate((report_dir / "claims" / f"{name}.html").as_uri())
        assert _errors(page) == []
        info = page.eval("""(() => ({
          h1: document.querySelector('h1').textContent,
          admitted: document.querySelectorAll('#admitted .quote').length,
          marks: document.querySelectorAll('#admitted mark').length,
          folded: [...document.querySelectorAll('#not-counted details')].map(d => d.open),
          origins: document.querySelectorAll('svg.lineage g.node.origin').length,
          nodes: document.querySelectorAll('svg.lineage g.node').length,
          svgWidth: document.querySelector('svg.lineage').getBoundingClientRect().width,
          back: document.querySelector('a[href="../report.html"]') !== null,
          text: document.body.innerText,
          html: document.documentElement.outerHTML.length,
          ld: [...document.querySelectorAll('script[type="application/ld+json"]')]
                .map(s => JSON.parse(s.textContent)['@type']),
        }))()""")
        assert info["admitted"] >= 2
        assert info["marks"] == info["admitted"]
        assert info["folded"] == [False, False]  # rejected and neutral quotes, folded away
        assert info["origins"] >= 1
        assert info["nodes"] >= info["admitted"]
        assert info["svgWidth"] > 100
        assert info["back"]
        assert "not found" not in info["text"]  # folded
        page.eval("document.querySelectorAll('#not-counted summary').forEach(s => s.click())")
        unfolded = page.eval("document.body.innerText")
        assert "not found" in unfolded  # the rejected quote's reason
        assert "judged neutral" in unfolded
        assert SECRET not in unfolded
        assert info["html"] < 100_000  # the 600,000-character title is cut
        assert info["ld"] == ["ClaimReview"]  # the page carries its own structured data
