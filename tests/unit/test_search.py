"""Tests of tasks.search: providers, preflight probe and Wayback CDX parsing."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from affidavit.tasks.search import (
    ArchiveProvider,
    SearchConfig,
    SearchHit,
    SearchProvider,
    SearxngProvider,
    WaybackCDX,
    best_passage_score,
    build_providers,
    parse_cdx_timestamp,
    parse_cdx_timestamps,
    probe_providers,
    search_config_from_env,
    split_passages,
)
from affidavit.warehouse.search_index import SearchIndex

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
CASSETTES = DATA / "archives" / "wayback-cdx-cassettes"

SEARX_PAYLOAD = {
    "query": "cocoa drought",
    "results": [
        {
            "url": "https://a.example/cocoa",
            "title": "Cocoa",
            "content": "Drought in Bahia",
            "score": 2.5,
        },
        {"url": "https://a.example/cocoa", "title": "dup", "content": "dup"},
        {"url": "javascript:alert(1)", "title": "bad scheme"},
        {"title": "no url"},
        "not a dict",
        {"url": "http://b.example/x", "title": "B", "content": "Second"},
    ],
}


def _client(handler) -> httpx.Client:  # noqa: ANN001
    return httpx.Client(transport=httpx.MockTransport(handler))


@pytest.fixture
def index(tmp_path: Path) -> SearchIndex:
    ix = SearchIndex.open(tmp_path / "index")
    ix.add(
        [
            ("d1", "Cocoa", "Showers eased the drought in the Bahia cocoa zone."),
            ("d2", "Oil", "OPEC agreed to cut oil output."),
        ]
    )
    return ix


def test_archive_provider_hits(index: SearchIndex) -> None:
    provider = ArchiveProvider(index)
    assert isinstance(provider, SearchProvider)
    out = provider.search_many(["cocoa drought", "nothing matches zzz", "oil"], k=5)
    assert [len(h) for h in out] == [1, 0, 1]
    hit = out[0][0]
    assert hit == SearchHit("archive", "cocoa drought", 1, hit.score, "d1", None, None, None)
    assert hit.score is not None
    assert hit.score > 0


def test_split_passages_keeps_lines_and_cuts_long_paragraphs_at_sentences() -> None:
    assert split_passages("One.\n\nTwo two.\nThree.") == ["One.", "Two two.", "Three."]
    long = " ".join(f"Sentence number {i} says something." for i in range(40))
    parts = split_passages(long, max_chars=200)
    assert len(parts) > 1
    assert all(len(p) <= 200 for p in parts)
    assert " ".join(parts) == long  # nothing lost, cut only between sentences
    assert split_passages("") == []


def test_best_passage_score_is_the_best_passage_not_the_sum() -> None:
    idf = {"bridge": 2.0, "open": 1.0}
    one = best_passage_score(["bridge", "open"], [["bridge", "open"]], [], idf, avg_len=2.0)
    spread = best_passage_score(["bridge", "open"], [["bridge", "x"], ["open", "y"]], [], idf,
                                avg_len=2.0)
    assert one > spread > 0
    titled = best_passage_score(["bridge", "open"], [["open", "y"]], ["bridge"], idf,
                                avg_len=2.0)
    assert titled > best_passage_score(["bridge", "open"], [["open", "y"]], [], idf,
                                       avg_len=2.0)
    assert best_passage_score(["zzz"], [["bridge"]], [], idf, avg_len=1.0) == 0.0


def test_archive_provider_ranks_by_best_passage(tmp_path: Path) -> None:
    """A long document whose one line states the claim outranks one that scatters its words."""
    filler = "\n".join(f"Unrelated line {i} about weather and sport results." for i in range(30))
    docs = {
        "long": ("Harbor City", filler + "\nThe desalination plant will supply 30 percent of "
                 "the drinking water.\n" + filler),
        "scatter": ("Water news", "The plant was discussed.\nDrinking habits change.\n"
                    "Desalination is costly.\nSupply chains are long.\nPercent figures vary."),
    }
    ix = SearchIndex.open(tmp_path / "index")
    ix.add([(d, t, x) for d, (t, x) in docs.items()])
    q = "desalination plant supply percent drinking water"
    plain = ArchiveProvider(ix).search_many([q], k=2)[0]
    ranked = ArchiveProvider(ix, texts=lambda ids: {d: docs[d] for d in ids}).search_many(
        [q], k=2)[0]
    assert [h.doc_id for h in plain][0] == "scatter"  # whole-document BM25 favours the short one
    assert [h.doc_id for h in ranked] == ["long", "scatter"]
    assert all(h.score and h.score > 0 for h in ranked)


def test_archive_ranking_does_not_depend_on_what_the_provider_read_before(
    tmp_path: Path,
) -> None:
    """Scores of one query equal whether other queries (other claims, batches) came first."""
    docs = {
        "short": ("Plant", "The desalination plant will supply water.\nIt opens in May."),
        "mid": ("Water", "Desalination plant costs rose.\nWater supply in the city is low "
                "and the plant will help the supply of drinking water next year."),
        "other": ("Sport", "\n".join("The football league results of the long season, round "
                                      f"{i}, with every score and scorer listed in full."
                                      for i in range(20))),
    }
    ix = SearchIndex.open(tmp_path / "index")
    ix.add([(d, t, x) for d, (t, x) in docs.items()])
    q, other = "desalination plant supply water", "football league season scorer"

    def provider() -> ArchiveProvider:
        return ArchiveProvider(ix, texts=lambda ids: {d: docs[d] for d in ids})

    def scores(hits: list) -> list[tuple[str, float]]:
        return [(h.doc_id, h.score) for h in hits]

    alone = scores(provider().search_many([q], k=2)[0])
    assert len(alone) == 2
    warm = provider()
    warm.search_many([other], k=2)
    assert scores(warm.search_many([q], k=2)[0]) == alone
    assert scores(provider().search_many([other, q], k=2)[1]) == alone


def test_searxng_parses_results_and_sends_json_format() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=SEARX_PAYLOAD)

    provider = SearxngProvider("http://searx.local/", client=_client(handler))
    assert isinstance(provider, SearchProvider)
    [hits] = provider.search_many(["cocoa drought"], k=10)
    assert [h.url for h in hits] == ["https://a.example/cocoa", "http://b.example/x"]
    assert [h.rank for h in hits] == [1, 2]
    assert hits[0].score == 2.5
    assert hits[1].score is None
    assert hits[0].snippet == "Drought in Bahia"
    assert hits[0].doc_id is None
    assert provider.errors == []
    req = seen[0]
    assert req.url.path == "/search"
    assert parse_qs(urlsplit(str(req.url)).query) == {"q": ["cocoa drought"], "format": ["json"]}
    [top1] = provider.search_many(["cocoa drought"], k=1)
    assert len(top1) == 1


@pytest.mark.parametrize(
    "response",
    [
        httpx.Response(500, text="boom"),
        httpx.Response(403, text="Forbidden"),
        httpx.Response(200, text="<html>not json</html>"),
        httpx.Response(200, json={"no": "results"}),
    ],
)
def test_searxng_errors_are_recorded_not_raised(response: httpx.Response) -> None:
    provider = SearxngProvider("http://searx.local", client=_client(lambda _r: response))
    assert provider.search_many(["q1", "q2"], k=5) == [[], []]
    assert len(provider.errors) == 2
    assert provider.errors[0].startswith("q1: ")


def test_searxng_network_error_is_recorded() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    provider = SearxngProvider("http://searx.local", client=_client(handler))
    assert provider.search_many(["q"], k=3) == [[]]
    assert "ConnectError" in provider.errors[0]


def test_config_from_env() -> None:
    assert search_config_from_env({}) == SearchConfig(searxng_url=None)
    assert search_config_from_env({"AFFIDAVIT_SEARXNG_URL": "  "}).searxng_url is None
    cfg = search_config_from_env({"AFFIDAVIT_SEARXNG_URL": "http://s:8888"})
    assert cfg.searxng_url == "http://s:8888"
    with pytest.raises(ValueError, match=r"^AFFIDAVIT_SEARXNG_URL 's:8888' is not an http\(s\)"):
        search_config_from_env({"AFFIDAVIT_SEARXNG_URL": "s:8888"})
    with pytest.raises(ValueError, match="k must be"):
        SearchConfig(k=0)


def test_probe_providers(index: SearchIndex, tmp_path: Path) -> None:
    ok = _client(lambda _r: httpx.Response(200, json=SEARX_PAYLOAD))
    got = probe_providers(SearchConfig("http://searx.local"), index=index, client=ok)
    assert got["archive"][0] is True
    assert "2 documents" in got["archive"][1]
    assert got["searxng"][0] is True

    forbidden = _client(lambda _r: httpx.Response(403))
    empty = SearchIndex.open(tmp_path / "empty")
    got = probe_providers(SearchConfig("http://searx.local"), index=empty, client=forbidden)
    assert got["archive"][0] is False
    assert got["searxng"][0] is False
    assert "403" in got["searxng"][1]

    got = probe_providers(SearchConfig(), index=None)
    assert got == {
        "archive": (False, "no search index"),
        "searxng": (False, "not configured (AFFIDAVIT_SEARXNG_URL unset)"),
    }


def test_build_providers_respects_probe(index: SearchIndex) -> None:
    cfg = SearchConfig("http://searx.local")
    names = [p.name for p in build_providers(cfg, index=index)]
    assert names == ["archive", "searxng"]
    probe = {"archive": (True, ""), "searxng": (False, "down")}
    assert [p.name for p in build_providers(cfg, index=index, available=probe)] == ["archive"]


# ------------------------------------------------------------------------------ Wayback CDX
def test_parse_cdx_json_and_text_forms() -> None:
    want = datetime(1996, 12, 31, 23, 58, 47, tzinfo=UTC)
    assert parse_cdx_timestamps('[["timestamp"], ["19961231235847"]]') == [want]
    assert parse_cdx_timestamps("[]") == []
    full_json = json.dumps(
        [["urlkey", "timestamp", "original"], ["gov,nasa)/", "19961231235847", "http://nasa.gov"]]
    )
    assert parse_cdx_timestamps(full_json) == [want]
    assert parse_cdx_timestamps("19961231235847\n") == [want]
    line = "gov,nasa)/ 19961231235847 http://www.nasa.gov:80/ text/html 200 ABC 1811"
    assert parse_cdx_timestamps(line + "\n\ncom%2Ccnn%29%2F+2001041400593%3A\n") == [want]
    assert parse_cdx_timestamps("") == []
    assert parse_cdx_timestamp("2000001217044") is None  # 13 digits
    assert parse_cdx_timestamp("20000230000000") is None  # 30 February


def test_first_seen_sends_cdx_params() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, text='[["timestamp"],["20010410213930"]]')

    cdx = WaybackCDX(client=_client(handler))
    got = cdx.first_seen("https://cnn.com/", since=datetime(2001, 1, 1, tzinfo=UTC))
    assert got == datetime(2001, 4, 10, 21, 39, 30, tzinfo=UTC)
    params = parse_qs(urlsplit(str(seen[0].url)).query)
    assert params == {
        "url": ["https://cnn.com/"],
        "output": ["json"],
        "limit": ["1"],
        "fl": ["timestamp"],
        "from": ["20010101000000"],
    }


def test_first_seen_failures_return_none() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if "blocked" in str(request.url):
            return httpx.Response(403, text="Blocked Site Error")
        if "down" in str(request.url):
            raise httpx.ReadTimeout("slow", request=request)
        return httpx.Response(200, text="")

    cdx = WaybackCDX(client=_client(handler))
    assert cdx.first_seen("http://blocked.example") is None
    assert cdx.first_seen("http://down.example") is None
    assert cdx.first_seen("http://never-captured.example") is None
    assert len(cdx.errors) == 2


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"shared data absent: {path}")
    return path


def _cdx_range(uri: str) -> tuple[datetime | None, datetime | None]:
    q = parse_qs(urlsplit(uri).query)
    lo = parse_cdx_timestamp(q["from"][0]) if "from" in q else None
    hi = parse_cdx_timestamp(q["to"][0]) if "to" in q else None
    return lo, hi


def test_recorded_cdx_responses_parse_within_requested_range() -> None:
    decoded = _need(CASSETTES / "decoded_cdx")
    entries = json.loads((decoded / "index.json").read_text(encoding="utf-8"))
    assert entries
    total = 0
    for entry in entries:
        body = (decoded / entry["file"]).read_text(encoding="utf-8", errors="replace")
        stamps = parse_cdx_timestamps(body)
        # every capture line (7+ space-separated fields) yields one time; nothing else does
        capture_lines = [ln for ln in body.splitlines() if len(ln.split()) >= 7]
        if entry["status"] != 200:
            assert stamps == [], entry["file"]
            continue
        assert len(stamps) == len(capture_lines), entry["file"]
        lo, hi = _cdx_range(entry["uri"])
        for ts in stamps:
            assert lo is None or ts >= lo, entry["file"]
            assert hi is None or ts <= hi, entry["file"]
        total += len(stamps)
    assert total > 10_000


def test_recorded_cdx_through_mock_transport() -> None:
    decoded = _need(CASSETTES / "decoded_cdx")
    entries = {e["file"]: e for e in json.loads((decoded / "index.json").read_text())}
    body = (decoded / "test_search__00.cdx.txt").read_text(encoding="utf-8")
    status = entries["test_search__00.cdx.txt"]["status"]
    cdx = WaybackCDX(client=_client(lambda _r: httpx.Response(status, text=body)))
    lo, hi = _cdx_range(entries["test_search__00.cdx.txt"]["uri"])
    got = cdx.first_seen("nasa.gov", since=lo)
    assert got is not None
    assert lo is not None
    assert hi is not None
    assert lo <= got <= hi
    assert got == min(parse_cdx_timestamps(body))

    blocked = decoded / "test_search_raises_for_blocked_urls__00.cdx.txt"
    status = entries[blocked.name]["status"]
    text = blocked.read_text(encoding="utf-8")
    cdx = WaybackCDX(client=_client(lambda _r: httpx.Response(status, text=text)))
    assert cdx.first_seen("https://nationalpost.com/health") is None
    assert cdx.errors == ["https://nationalpost.com/health: HTTP 403"]


def test_malformed_recorded_cdx_lines_are_skipped() -> None:
    files = _need(CASSETTES / "src" / "wayback" / "tests" / "test_files")
    for name in ["malformed_cdx.txt", "bad_timestamp_cdx.txt", "zero_length_cdx.txt"]:
        body = (files / name).read_text(encoding="utf-8", errors="replace")
        stamps = parse_cdx_timestamps(body)
        # expected: lines whose second field is a valid calendar timestamp, checked by strptime
        expected = []
        for line in body.splitlines():
            fields = line.split()
            if len(fields) >= 3:
                try:
                    expected.append(
                        datetime.strptime(fields[1], "%Y%m%d%H%M%S").replace(tzinfo=UTC)
                    )
                except ValueError:
                    pass
        assert stamps == expected, name
        if name == "bad_timestamp_cdx.txt":  # month 00 and day 00 are in this file
            assert len(stamps) < len([ln for ln in body.splitlines() if ln.strip()])
    # an HTML error page is not CDX: nothing parses
    html = (files / "fws-gov-birds.txt").read_text(encoding="utf-8", errors="replace")
    assert parse_cdx_timestamps(html) == []
