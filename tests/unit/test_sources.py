"""Tests of tasks.sources: source type, identifiers, dates, reliability, credibility lists."""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from affidavit.schemas.enums import SourceType
from affidavit.tasks.sources import (
    CredibilityLists,
    classify_source,
    credibility_weight,
    date_reliability,
    extract_dates,
    extract_identifiers,
    load_credibility_list,
    parse_date,
)

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
MISINFO = SHARED / "claims" / "averitec" / "data" / "misinfo_list.txt"

T = SourceType
TYPE_CASES = [
    ("https://doi.org/10.1038/171737a0", T.PEER_REVIEWED, ("doi:10.1038/171737a0",)),
    ("https://www.nature.com/articles/s41586-020-2649-2", T.PEER_REVIEWED, ()),
    ("https://pubmed.ncbi.nlm.nih.gov/31978945/", T.PEER_REVIEWED, ("pmid:31978945",)),
    ("https://arxiv.org/abs/2101.00001v2", T.PRIMARY, ("arxiv:2101.00001",)),
    (
        "https://www.biorxiv.org/content/10.1101/2020.03.22.002386v3",
        T.PRIMARY,
        ("doi:10.1101/2020.03.22.002386",),
    ),
    ("https://www.rfc-editor.org/rfc/rfc9110.html", T.PRIMARY, ("rfc:9110",)),
    (
        "https://www.sec.gov/Archives/edgar/data/320193/000032019321000010/0000320193-21-000010-index.htm",
        T.PRIMARY,
        ("sec:0000320193-21-000010",),
    ),
    ("https://www.prnewswire.com/news-releases/acme-announces-301.html", T.PRIMARY, ()),
    ("https://investor.acme-widgets.com/news/q3-results", T.PRIMARY, ()),
    ("https://www.cdc.gov/flu/about/index.html", T.OFFICIAL, ()),
    ("https://www.gov.uk/government/news/x", T.OFFICIAL, ()),
    ("https://www.interieur.gouv.fr/actualites", T.OFFICIAL, ()),
    ("https://www.who.int/news-room/fact-sheets", T.OFFICIAL, ()),
    ("https://www.stanford.edu/news/story", T.OFFICIAL, ()),
    ("https://www.reuters.com/world/europe/story-2021-03-04/", T.NEWS, ()),
    ("https://localnews.example.com/2021/03/04/fire-downtown", T.NEWS, ()),
    ("https://news.google.com/articles/CBMi", T.AGGREGATOR, ()),
    ("https://en.wikipedia.org/wiki/Polar_bear", T.AGGREGATOR, ()),
    ("https://someone.medium.com/my-take-abc", T.BLOG, ()),
    ("https://blog.example.org/post/1", T.BLOG, ()),
    ("https://www.reddit.com/r/science/comments/abc", T.FORUM, ()),
    ("https://forum.example.net/threads/123", T.FORUM, ()),
    ("https://example.com/about", T.UNKNOWN, ()),
    (None, T.UNKNOWN, ()),
]


@pytest.mark.parametrize(("url", "stype", "ids"), TYPE_CASES)
def test_classify_source_type(url: str | None, stype: SourceType, ids: tuple[str, ...]) -> None:
    p = classify_source(url)
    assert p.source_type is stype
    assert p.identifiers == ids
    assert 0.0 <= p.credibility <= 1.0


def test_type_credibility_ordering() -> None:
    cred = {
        t: classify_source(u).credibility for u, t, _ in TYPE_CASES if u and u.startswith("https")
    }
    assert cred[T.PEER_REVIEWED] > cred[T.NEWS] > cred[T.BLOG] > cred[T.FORUM]
    assert cred[T.OFFICIAL] > cred[T.AGGREGATOR]


def test_identifiers_from_meta_make_peer_reviewed() -> None:
    html = (
        '<html><head><meta name="citation_journal_title" content="J. Things">'
        '<meta name="citation_doi" content="10.5555/ABC.123"></head><body></body></html>'
    )
    p = classify_source("https://journal.example.org/article/123", html=html)
    assert p.source_type is T.PEER_REVIEWED
    assert p.identifiers == ("doi:10.5555/abc.123",)


def test_identifiers_in_text_are_only_a_signal() -> None:
    p = classify_source(
        "https://example.com/post", text="As shown in doi:10.1000/xyz123 and PMID: 1234567."
    )
    assert p.source_type is T.UNKNOWN
    assert p.identifiers == ()
    assert "cites_sources" in p.signals
    assert extract_identifiers(None, "see arXiv:2101.00001 and RFC 7231") == (
        "arxiv:2101.00001",
        "rfc:7231",
    )


def test_satire_is_flagged() -> None:
    p = classify_source("https://www.theonion.com/man-does-thing-1234")
    assert "satire" in p.signals
    assert p.credibility <= 0.05
    assert credibility_weight(p) == 0.1


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2021-03-04", datetime(2021, 3, 4, tzinfo=UTC)),
        ("2021-03-04T10:00:00Z", datetime(2021, 3, 4, 10, tzinfo=UTC)),
        ("2021-03-04T10:00:00.123+02:00", datetime(2021, 3, 4, 8, tzinfo=UTC)),
        ("2021-03-04T10:00:00-0500", datetime(2021, 3, 4, 15, tzinfo=UTC)),
        ("2021-03-04 10:00:00", datetime(2021, 3, 4, 10, tzinfo=UTC)),
        ("2021/03/04", datetime(2021, 3, 4, tzinfo=UTC)),
        ("20210304", datetime(2021, 3, 4, tzinfo=UTC)),
        ("Thu, 04 Mar 2021 10:00:00 GMT", datetime(2021, 3, 4, 10, tzinfo=UTC)),
        ("March 4, 2021", datetime(2021, 3, 4, tzinfo=UTC)),
        ("4th Mar 2021", datetime(2021, 3, 4, tzinfo=UTC)),
        ("2021-02-30", None),
        ("yesterday", None),
        ("", None),
        (None, None),
        (1614816000, None),
    ],
)
def test_parse_date(value: object, expected: datetime | None) -> None:
    assert parse_date(value) == expected


HTML = """<html><head>
<script type="application/ld+json">
{"@context": "https://schema.org", "@graph": [
  {"@type": "WebPage", "name": "x"},
  {"@type": "NewsArticle", "datePublished": "2021-03-04T09:30:00+00:00",
   "dateModified": "2021-03-06T12:00:00Z", "author": {"@type": "Person", "name": "A. B."}}
]}
</script>
<meta property="article:published_time" content="2021-03-04T09:31:00Z">
<meta property="article:modified_time" content="2021-03-06T12:00:00Z">
</head><body><time datetime="2021-03-06">Updated</time>
<time itemprop="datePublished" datetime="2021-03-04">4 March</time></body></html>"""


def test_extract_dates_all_sources() -> None:
    d = extract_dates(HTML, "https://paper.example.com/2021/03/04/story")
    assert d == {
        "jsonld_published": datetime(2021, 3, 4, 9, 30, tzinfo=UTC),
        "jsonld_modified": datetime(2021, 3, 6, 12, tzinfo=UTC),
        "meta_published": datetime(2021, 3, 4, 9, 31, tzinfo=UTC),
        "meta_modified": datetime(2021, 3, 6, 12, tzinfo=UTC),
        "time_element": datetime(2021, 3, 6, tzinfo=UTC),
        "time_published": datetime(2021, 3, 4, tzinfo=UTC),
        "url": datetime(2021, 3, 4, tzinfo=UTC),
    }


@pytest.mark.parametrize(
    ("html", "url", "keys"),
    [
        ("", "https://x.com/2020-01-02-title", {"url"}),
        (None, "https://x.com/news/20200102/x", {"url"}),
        (
            "<html><head><meta name='dc.date' content='2019-05-06'></head></html>",
            None,
            {"meta_published"},
        ),
        (
            '<script type="application/ld+json">{"datePublished": "2019-05-06",}</script>',
            None,
            set(),
        ),
        (
            '<script type="application/ld+json">'
            '[{"@type":"Article","uploadDate":"2019-05-06"}]</script>',
            None,
            {"jsonld_published"},
        ),
        ("<<<not html", "https://x.com/a", set()),
        ("\x00\x01binary", None, set()),
    ],
)
def test_extract_dates_variants(html: str | None, url: str | None, keys: set[str]) -> None:
    assert set(extract_dates(html, url)) == keys


@pytest.mark.parametrize(
    ("published", "first_seen", "candidates", "expected"),
    [
        (None, None, None, "unknown"),
        (datetime(2021, 3, 4, tzinfo=UTC), None, None, "reliable"),
        # first captured a year before the date it shows → re-dated
        (datetime(2021, 3, 4, tzinfo=UTC), datetime(2020, 3, 1, tzinfo=UTC), None, "redated"),
        # captured a few hours after midnight of a date-only publication → fine
        (datetime(2021, 3, 4, tzinfo=UTC), datetime(2021, 3, 3, 20, tzinfo=UTC), None, "reliable"),
        (
            datetime(2021, 3, 4, tzinfo=UTC),
            None,
            {
                "jsonld_published": datetime(2021, 3, 4, tzinfo=UTC),
                "url": datetime(2020, 1, 1, tzinfo=UTC),
            },
            "conflicting",
        ),
        (
            datetime(2021, 3, 4, tzinfo=UTC),
            None,
            {
                "jsonld_published": datetime(2021, 3, 4, tzinfo=UTC),
                "meta_modified": datetime(2022, 1, 1, tzinfo=UTC),
            },
            "reliable",
        ),
    ],
)
def test_date_reliability(
    published: datetime | None, first_seen: datetime | None, candidates: dict | None, expected: str
) -> None:
    assert date_reliability(published, first_seen=first_seen, candidates=candidates) == expected


def test_classify_with_html_and_redating() -> None:
    url = "https://paper.example.com/2021/03/04/story"
    p = classify_source(url, html=HTML)
    assert p.source_type is T.NEWS  # JSON-LD NewsArticle on an unlisted host
    assert p.published_at == datetime(2021, 3, 4, 9, 30, tzinfo=UTC)
    assert p.date_source == "jsonld_published"
    assert p.date_reliability == "reliable"
    assert {"has_author", "has_date"} <= set(p.signals)
    redated = classify_source(url, html=HTML, first_seen=datetime(2019, 6, 1, tzinfo=UTC))
    assert redated.date_reliability == "redated"
    assert "redated" in redated.signals
    assert redated.credibility < p.credibility
    assert credibility_weight(redated) < credibility_weight(p)


def test_credibility_weight_values() -> None:
    assert credibility_weight(classify_source("https://doi.org/10.1/x")) == 1.0
    assert credibility_weight(classify_source("https://www.reuters.com/x")) == 0.85
    assert credibility_weight(classify_source("https://example.com/x")) == 0.8
    assert credibility_weight(classify_source("https://www.reddit.com/r/x")) == 0.5


def test_load_credibility_list(tmp_path: Path) -> None:
    f = tmp_path / "list.txt"
    f.write_text(
        "# low credibility\n\nWWW.Fake-News.example\nhttps://bad.example.org/\n"
        "Spaced-Host. com\ncato.example/blog  # only the blog\nnot a host\n",
        encoding="utf-8",
    )
    entries = load_credibility_list(f)
    assert entries == frozenset(
        {"fake-news.example", "bad.example.org", "spaced-host.com", "cato.example/blog"}
    )
    lists = CredibilityLists(low=entries)
    low = classify_source("https://news.fake-news.example/story", credibility_lists=lists)
    assert "listed_low" in low.signals
    assert low.credibility <= 0.1
    assert credibility_weight(low) == 0.2
    assert (
        "listed_low"
        in classify_source("https://cato.example/blog/x", credibility_lists=lists).signals
    )
    assert (
        "listed_low"
        not in classify_source("https://cato.example/research/x", credibility_lists=lists).signals
    )
    assert (
        "listed_low"
        not in classify_source("https://notfake-news.example/x", credibility_lists=lists).signals
    )
    high = classify_source(
        "https://example.com/x", credibility_lists=CredibilityLists(high=frozenset({"example.com"}))
    )
    assert "listed_high" in high.signals
    assert credibility_weight(high) == 1.0
    with pytest.raises(FileNotFoundError):
        load_credibility_list(tmp_path / "missing.txt")


@pytest.mark.shared_data
def test_averitec_misinfo_list() -> None:
    if not MISINFO.exists():
        pytest.skip(f"{MISINFO} not present (../shared/data beside the repository)")
    entries = load_credibility_list(MISINFO)
    raw = [ln for ln in MISINFO.read_text(encoding="utf-8").splitlines() if ln.strip()]
    distinct = {ln.strip().lower() for ln in raw}
    assert 0.95 * len(distinct) <= len(entries) <= len(distinct)  # case duplicates collapse
    assert {"infowars.com", "yournewswire.com", "silver-coin-investor.com"} <= entries
    assert "cato.org/blog" in entries
    assert "cato.org" not in entries
    lists = CredibilityLists.from_files(low=MISINFO)
    assert (
        "listed_low"
        in classify_source("https://www.infowars.com/posts/x", credibility_lists=lists).signals
    )
    assert (
        "listed_low"
        not in classify_source("https://www.reuters.com/x", credibility_lists=lists).signals
    )


@pytest.mark.shared_data
def test_real_pages_dates() -> None:
    root = SHARED / "html" / "article-extraction-benchmark"
    if not (root / "ground-truth.json").exists():
        pytest.skip(f"{root} not present (../shared/data beside the repository)")
    truth = json.loads((root / "ground-truth.json").read_text(encoding="utf-8"))
    n = dated = agree = url_dated = 0
    for key, rec in sorted(truth.items())[:80]:
        path = root / "html" / f"{key}.html.gz"
        if not path.exists():
            continue
        html = gzip.open(path).read().decode("utf-8", "replace")
        p = classify_source(rec["url"], html=html)
        n += 1
        if p.published_at is not None:
            dated += 1
            assert p.published_at.tzinfo is not None
            dates = extract_dates(html, rec["url"])
            if "url" in dates and p.date_source != "url":
                url_dated += 1
                agree += abs(dates["url"] - p.published_at) <= timedelta(days=2)
    assert n >= 50
    assert dated / n > 0.8  # real article pages state their date
    assert url_dated == 0 or agree / url_dated > 0.8  # and it agrees with the URL's date


@pytest.mark.shared_data
def test_redated_origins_on_lineage_dev() -> None:
    root = Path(__file__).resolve().parents[2].parent / "shared" / "bench" / "lineage-dev"
    if not (root / "documents.jsonl").exists():
        pytest.skip(f"{root} not present (../shared/bench beside the repository)")
    relation = {}
    with (root / "labels.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            relation[rec["doc_id"]] = rec["relation"]
    flagged: list[str] = []
    n_origins = 0
    with (root / "documents.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            n_origins += relation[doc["doc_id"]] == "origin"
            rel = date_reliability(
                parse_date(doc.get("published_at")),
                first_seen=parse_date(doc.get("wayback_first_seen")),
            )
            if rel == "redated":
                flagged.append(relation[doc["doc_id"]])
    # The set re-dates about a fifth of its origins and nothing else (its README).
    assert set(flagged) == {"origin"}
    assert 0.1 < len(flagged) / n_origins < 0.3


@settings(max_examples=150, deadline=None)
@given(
    url=st.one_of(
        st.none(), st.text(max_size=80), st.from_regex(r"https?://[a-z.]{1,20}/[a-z0-9/.-]{0,30}")
    ),
    html=st.one_of(st.none(), st.text(max_size=300)),
)
def test_classify_source_never_fails(url: str | None, html: str | None) -> None:
    p = classify_source(url, html=html, text=html)
    assert 0.0 <= p.credibility <= 1.0
    assert 0.0 <= credibility_weight(p) <= 1.0
    assert p.date_reliability in {"reliable", "redated", "conflicting", "unknown"}
    assert p.published_at is None or p.published_at.tzinfo is not None
