"""Tests of tasks.reports: HTML report, ClaimReview JSON-LD and status counts."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path

import pytest

from affidavit.schemas.enums import VerdictStatus
from affidavit.schemas.verdicts import VERDICTS_SCHEMA
from affidavit.tasks.reports import (
    CLAIMREVIEW_RATINGS,
    claimreview_jsonld,
    quote_in_context,
    render_html_report,
    render_summary_counts,
)

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
NOW = datetime(2026, 11, 29, 17, 0, tzinfo=UTC)

DOC_TEXT = (
    "Officials met on Monday. The agency said <script>alert('x')</script> rates rose 8% "
    "in March, the fastest pace in a decade. Markets were calm."
)
SPAN = "rates rose 8% in March"


def _verdict(claim_id: str, status: str, **extra: object) -> dict:
    row = {
        "run_id": "run-1",
        "claim_id": claim_id,
        "claim_text": f"Claim {claim_id} <b>bold?</b>",
        "status": status,
        "confidence": 0.734,
        "supporting_origins": 2,
        "refuting_origins": 0,
        "supporting_publishers": 2,
        "refuting_publishers": 0,
        "sources_total": 5,
        "n_admitted": 1,
        "n_rejected": 1,
        "best_quote": SPAN,
        "best_doc_id": "doc-a",
        "best_url": "https://news.example/a",
        "queries_tried": ["rates rose march", "rates rose march debunked"],
        "judge": "lexical",
        "mode": "standard",
        "decided_at": NOW,
        "expires_at": datetime(2027, 5, 28, tzinfo=UTC),
        "degraded": "no LLM: lexical judge",
        "explanation": "Two independent origins support it.",
        "decided_by": 'SUPPORTED: 2 independent origin(s) support it | supports: a.example "q"',
    }
    row.update(extra)
    return row


def _evidence() -> dict[str, list[dict]]:
    start = DOC_TEXT.index(SPAN)
    script_start = DOC_TEXT.index("<script>")
    return {
        "c1": [
            {
                "claim_id": "c1",
                "doc_id": "doc-a",
                "judge": "lexical",
                "side": "advocate",
                "stance": "SUPPORTS",
                "relevance": 0.9,
                "quote": SPAN,
                "anchor": "EXACT",
                "span_start": start,
                "span_end": start + len(SPAN),
                "is_admitted": True,
                "reject_reason": None,
                "url": "https://news.example/a",
                "title": "Rates <rise>",
                "host": "news.example",
                "text": DOC_TEXT,
                "origin_doc_id": "doc-a",
            },
            {
                "claim_id": "c1",
                "doc_id": "doc-b",
                "stance": "REFUTES",
                "quote": "<script>alert('x')</script>",
                "anchor": "EXACT",
                "span_start": script_start,
                "span_end": script_start + len("<script>alert('x')</script>"),
                "is_admitted": True,
                "url": "javascript:alert(1)",
                "title": None,
                "text": DOC_TEXT,
            },
            {
                "claim_id": "c1",
                "doc_id": "doc-c",
                "stance": "SUPPORTS",
                "quote": "an invented quote",
                "anchor": "FAILED",
                "is_admitted": False,
                "reject_reason": "not_found",
                "url": "https://blog.example/c",
            },
        ]
    }


def _lin_doc(doc_id: str, url: str | None, title: str, origin: str) -> dict:
    return {"doc_id": doc_id, "url": url, "title": title, "origin_doc_id": origin}


def _lineage() -> dict[str, dict]:
    return {
        "c1": {
            "documents": [
                _lin_doc("doc-a", "https://news.example/a", "Original", "doc-a"),
                _lin_doc("doc-a2", "https://copy.example/a", "Copy", "doc-a"),
                _lin_doc("doc-b", None, "Other", "doc-b"),
            ],
            "edges": [
                {
                    "parent_doc_id": "doc-a",
                    "child_doc_id": "doc-a2",
                    "kind": "syndication",
                    "jaccard": 0.93,
                },
            ],
        }
    }


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.marks: list[str] = []
        self._in_mark = False
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:  # noqa: D102
        self.tags.append(tag)
        if tag == "mark":
            self._in_mark = True
            self.marks.append("")
        if tag == "a":
            self.hrefs.extend(v for k, v in attrs if k == "href")
        if tag in {"link", "img"}:
            self.tags.append(f"{tag}:external")

    def handle_endtag(self, tag: str) -> None:  # noqa: D102
        if tag == "mark":
            self._in_mark = False

    def handle_data(self, data: str) -> None:  # noqa: D102
        if self._in_mark:
            self.marks[-1] += data


def _render(verdicts: list[dict] | None = None) -> str:
    verdicts = verdicts or [_verdict("c1", "SUPPORTED"), _verdict("c2", "UNVERIFIED")]
    run = {"run_id": "run-1", "flow": "run", "started_at": NOW, "status": "completed",
           "capabilities": json.dumps({"search": ["archive"], "judge": "lexical"})}
    return render_html_report(run, verdicts, _evidence(), _lineage())


def test_html_escapes_script_and_highlights_span() -> None:
    html = _render()
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    assert "<b>bold?</b>" not in html
    parser = _Collector()
    parser.feed(html)
    assert "script" not in parser.tags
    # the supporting quote's span is highlighted exactly, with text before and after it
    assert SPAN in parser.marks
    assert "<script>alert('x')</script>" in parser.marks  # shown as text, escaped
    m = re.search(r"(.{0,80})<mark>rates rose 8% in March</mark>(.{0,40})", html)
    assert m is not None
    assert "The agency said" in m.group(1) and "the fastest pace" in m.group(2)
    # unsafe URL schemes never become links; http(s) ones do
    assert "javascript:alert(1)" not in parser.hrefs
    assert "https://news.example/a" in parser.hrefs


def test_html_is_self_contained() -> None:
    html = _render()
    parser = _Collector()
    parser.feed(html)
    assert "style" in parser.tags
    assert not any(t.endswith(":external") for t in parser.tags)
    assert not re.search(r"<(script|link|img|iframe)\b", html)
    assert "@import" not in html and "url(" not in html


def test_html_summary_counts_every_status() -> None:
    verdicts = [
        _verdict("c1", "SUPPORTED"),
        _verdict("c2", "SUPPORTED"),
        _verdict("c3", "CONTRADICTED"),
    ]
    html = _render(verdicts)
    for status in VerdictStatus:
        want = sum(v["status"] == status.value for v in verdicts)
        m = re.search(rf'data-status="{status.value}">\s*<b>(\d+)</b>', html)
        assert m is not None, status
        assert int(m.group(1)) == want


def test_html_shows_rejections_lineage_and_metrics() -> None:
    html = _render()
    assert "not_found" in html and "an invented quote" in html
    assert "Original — https://news.example/a" in html
    assert "syndication of Original" in html and "Jaccard 0.93" in html
    assert "0.73" in html  # confidence, two decimals
    assert "rates rose march debunked" in html
    assert "archive" in html  # capabilities table from a JSON string


def test_html_tolerates_minimal_rows() -> None:
    html = render_html_report({}, [{"claim_id": "x", "status": "PARTIAL"}], {}, {})
    assert "PARTIAL" in html and "No admitted quotes." in html
    html = render_html_report(
        {}, [{"claim_id": "x"}],
        {"x": [{"is_admitted": True, "quote": "q <i>", "span_start": 5, "span_end": 99,
                "text": "abc"}]},
        {"x": {"documents": [{"doc_id": "d"}], "edges": [{"child_doc_id": "d"}]}},
    )
    assert "<mark>q &lt;i&gt;</mark>" in html  # invalid span: the quote alone, escaped


def test_quote_in_context_cuts_on_words() -> None:
    text = "alpha beta gamma delta epsilon zeta eta theta"
    start = text.index("delta")
    before, span, after = quote_in_context(text, start, start + 5, context_chars=8)
    # 8 characters each side, the partial word at the far end dropped, ellipses where cut
    assert (before, span, after) == ("…gamma ", "delta", " epsilon…")
    before, span, after = quote_in_context(text, 0, 5, context_chars=100)
    assert (before, span, after) == ("", "alpha", text[5:])
    assert quote_in_context(None, 0, 3, quote="q") == ("", "q", "")
    assert quote_in_context(text, 5, 2, quote="q") == ("", "q", "")


def test_summary_counts_include_zeros_and_unknown() -> None:
    counts = render_summary_counts(
        [{"status": "SUPPORTED"}, {"status": "SUPPORTED"}, {"status": "WEIRD"}, {}]
    )
    assert list(counts)[:5] == [s.value for s in VerdictStatus]
    assert counts["SUPPORTED"] == 2 and counts["PARTIAL"] == 0 and counts["UNVERIFIED"] == 0
    assert counts["WEIRD"] == 1 and counts["UNKNOWN"] == 1
    assert sum(counts.values()) == 4


@pytest.mark.parametrize("status", [s.value for s in VerdictStatus])
def test_claimreview_jsonld_shape(status: str) -> None:
    verdict = _verdict("c1", status, source_url="https://origin.example/story")
    assert set(VERDICTS_SCHEMA.names) <= set(verdict)  # the test row has every column
    doc = json.loads(json.dumps(claimreview_jsonld(verdict, now=NOW)))
    assert doc["@type"] == "ClaimReview" and "schema.org" in doc["@context"]
    assert doc["claimReviewed"] == verdict["claim_text"]
    rating = doc["reviewRating"]
    assert {"ratingValue", "bestRating", "worstRating", "alternateName"} <= set(rating)
    value, best, worst, label = CLAIMREVIEW_RATINGS[status]
    got = (rating["ratingValue"], rating["bestRating"], rating["worstRating"])
    assert got == (value, best, worst)
    assert rating["alternateName"] == label
    assert doc["reviewBody"].startswith("SUPPORTED: 2 independent origin(s) support it")
    assert doc["reviewBody"].endswith("Two independent origins support it.")
    assert worst <= rating["ratingValue"] <= best
    assert doc["itemReviewed"]["@type"] == "Claim"
    assert doc["itemReviewed"]["appearance"][0]["url"] == "https://origin.example/story"
    assert doc["author"] == {"@type": "Organization", "name": "affidavit"}
    assert datetime.fromisoformat(doc["datePublished"]) == NOW
    assert doc["citation"] == "https://news.example/a"


def test_claimreview_ratings_are_ordered() -> None:
    r = CLAIMREVIEW_RATINGS
    assert r["SUPPORTED"][0] > r["PARTIAL"][0] > r["CONTESTED"][0] > r["CONTRADICTED"][0]


def test_claimreview_minimal_verdict() -> None:
    doc = claimreview_jsonld({"claim_text": "x", "status": "BOGUS"}, org_name="Desk", now=NOW)
    json.dumps(doc)
    assert "appearance" not in doc["itemReviewed"]
    assert doc["reviewRating"]["alternateName"] == CLAIMREVIEW_RATINGS["UNVERIFIED"][3]
    assert doc["author"]["name"] == "Desk"
    assert "url" not in doc


def test_claimreview_keys_match_real_samples() -> None:
    name = "claimreview_jsonld_from_article_extraction_benchmark.jsonl"
    path = DATA / "claims" / "claimreview-samples" / name
    if not path.is_file():
        pytest.skip(f"shared data absent: {path}")
    samples = [json.loads(line)["claimreview"] for line in path.read_text().splitlines() if line]
    ours = claimreview_jsonld(_verdict("c1", "SUPPORTED"), now=NOW)
    for sample in samples:
        # every core key a real publisher emits, we emit too
        core = {"claimReviewed", "reviewRating", "itemReviewed", "author"} & set(sample)
        assert core <= set(ours)
        assert set(sample["reviewRating"]) - {"image", "@type"} <= set(ours["reviewRating"])
