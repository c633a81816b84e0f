"""Tests of tasks.extract: trafilatura page extraction and feed-entry HTML to text."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from affidavit.tasks.extract import (
    DEFAULT_MAX_PAGE_BYTES,
    ExtractedPage,
    extract_html,
    html_to_text,
)

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"

PARAS = [
    "The harbour authority said on Tuesday that cargo volumes rose by 12 percent in April "
    "compared with a year earlier, the largest monthly increase since 2015.",
    "Officials credited new cranes installed in the winter and a shorter customs process for "
    "the growth, which came despite weaker demand from inland factories.",
    "Shipping companies expect the trend to continue through the summer season, according to "
    "the authority's quarterly outlook published the same day.",
]


def _page(paras: list[str], *, filler: str = "") -> bytes:
    body = "".join(f"<p>{p}</p>" for p in paras)
    return (
        '<!doctype html><html lang="en-GB"><head><title>Harbour volumes rise</title>'
        '<meta name="author" content="Sam Writer">'
        '<meta property="article:published_time" content="2019-05-06T07:08:09Z"></head>'
        f"<body><nav><a href='/'>Home</a> <a href='/about'>About</a></nav>{filler}"
        f"<article><h1>Harbour volumes rise</h1>{body}</article>"
        "<footer>Copyright 2019 Example Media</footer></body></html>"
    ).encode()


def test_extract_html_text_and_metadata() -> None:
    page = extract_html(_page(PARAS), url="https://example.com/harbour")
    assert isinstance(page, ExtractedPage)
    assert "cargo volumes rose by 12 percent" in page.text
    assert "quarterly outlook" in page.text
    assert "Copyright 2019" not in page.text
    assert page.title == "Harbour volumes rise"
    assert page.author == "Sam Writer"
    assert page.published_at_raw == "2019-05-06"
    assert page.published_at is not None
    assert page.published_at.isoformat().startswith("2019-05-06")
    assert page.published_at.utcoffset().total_seconds() == 0
    assert page.lang == "en-gb"


def test_extract_html_accepts_str() -> None:
    page = extract_html(_page(PARAS).decode())
    assert page is not None
    assert "customs process" in page.text


def test_extract_html_caps_bytes_before_extraction() -> None:
    filler = "<div>" + ("<span>x</span>" * 3000) + "</div>"
    html = _page(PARAS, filler=filler)
    cut = html.index(b"<article>") + 20  # inside the article: its paragraphs fall past the cap
    assert extract_html(html, max_bytes=cut) is None or "quarterly outlook" not in (
        extract_html(html, max_bytes=cut).text  # type: ignore[union-attr]
    )
    full = extract_html(html, max_bytes=len(html))
    assert full is not None
    assert "quarterly outlook" in full.text
    assert DEFAULT_MAX_PAGE_BYTES == 2 * 1024 * 1024


@pytest.mark.parametrize(
    "html", [b"", b"   ", b"<html><body></body></html>", b"<html><body><div></div></body></html>"]
)
def test_extract_html_empty_is_none(html: bytes) -> None:
    assert extract_html(html) is None


def test_extract_html_rejects_bad_cap() -> None:
    with pytest.raises(ValueError, match="max_bytes"):
        extract_html(b"<p>x</p>", max_bytes=0)


def test_extract_html_never_raises_on_garbage() -> None:
    got = extract_html(bytes(range(256)) * 50)
    assert got is None or isinstance(got, ExtractedPage)
    assert extract_html(b"<" * 10000) is None


def test_html_to_text_blocks_entities_and_scripts() -> None:
    got = html_to_text(
        "<p>One &amp; two</p><p>three<br/>four</p><script>evil()</script>"
        "<style>p{}</style><!-- c --><ul><li>a</li><li>b</li></ul>"
    )
    assert got == "One & two\nthree\nfour\na\nb"


def test_html_to_text_plain_and_empty() -> None:
    assert html_to_text("just text\x00 here") == "just text here"
    assert html_to_text("") == ""
    assert html_to_text("   ") == ""
    assert html_to_text("<p></p>") == ""


def test_html_to_text_does_not_expand_entity_declarations() -> None:
    frag = '<!DOCTYPE x [<!ENTITY a "AAAA">]><p>&a;&a;</p>'
    assert "AAAA" not in html_to_text(frag)


def _tokens(s: str) -> set[str]:
    return {t for t in s.lower().split() if len(t) > 3}


@pytest.mark.shared_data
def test_extract_real_article_pages_recall() -> None:
    root = SHARED / "html" / "article-extraction-benchmark"
    if not root.exists():
        pytest.skip(f"shared data not found: {root}")
    truth = json.loads((root / "ground-truth.json").read_text())
    keys = sorted(truth)[:8]
    recalls = []
    for key in keys:
        html = gzip.decompress((root / "html" / f"{key}.html.gz").read_bytes())
        page = extract_html(html, url=truth[key]["url"])
        gold = _tokens(truth[key]["articleBody"])
        got = _tokens(page.text) if page else set()
        recalls.append(len(gold & got) / max(1, len(gold)))
    # Token recall of the gold body; trafilatura's published F1 on this set is ~0.9.
    assert sum(recalls) / len(recalls) > 0.7


def test_deeply_nested_markup_gives_none_not_an_error() -> None:
    # trafilatura returns empty text for deeply nested markup; the caller must see None.
    nested = (b"<html><body>" + b"<div>" * 3000 + b"<p>" + b"Deep text sentence here. " * 50
              + b"</p>" + b"</div>" * 3000 + b"</body></html>")
    assert extract_html(nested) is None
