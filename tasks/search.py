"""Search providers behind one small protocol, their preflight probe, and Wayback CDX first-seen.

Providers:

* ``archive`` — :class:`ArchiveProvider`, BM25 over the warehouse's own documents
  (:class:`affidavit.warehouse.search_index.SearchIndex`); hits carry a ``doc_id``.
* ``searxng`` — :class:`SearxngProvider`, the SearXNG JSON API (``GET /search?q=…&format=json``;
  the instance must list ``json`` under ``search.formats`` in its settings, or it answers 403);
  hits carry a ``url``, ``title`` and ``snippet``.

A provider never raises for a failed query: the query gets an empty hit list and the failure is
appended to the provider's ``errors`` list, so one bad query cannot lose a batch.

Network IO (``httpx``) and parsing are separate functions (:func:`parse_searxng_results`,
:func:`parse_cdx_timestamps`) so each can be tested and retried alone.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol, runtime_checkable

import httpx

from affidavit.tasks.urls import config_url_error
from affidavit.warehouse.search_index import SearchIndex

USER_AGENT = "affidavit/0.1 (+batch fact-checking)"
PROBE_QUERY = "earth"
"""Cheap query the preflight sends to SearXNG: one common word, answered by every engine."""


@dataclass(frozen=True, slots=True)
class SearchHit:
    """One result of one query from one provider.

    Attributes:
        provider: Provider name (``"archive"``, ``"searxng"``).
        query: The query text as issued.
        rank: 1-based rank within the query's results.
        score: Provider score (BM25 for ``archive``; SearXNG's ``score`` when given), else None.
        doc_id: Warehouse document id (``archive`` hits), else None.
        url: Result URL (web providers), else None.
        title: Result title, when known.
        snippet: Result text snippet, when known (quotable as a snippet-only document).
        published_at_raw: The result's publication date as the provider gave it (SearXNG's
            ``publishedDate``), when known; kept on a snippet-only document.
    """

    provider: str
    query: str
    rank: int
    score: float | None
    doc_id: str | None
    url: str | None
    title: str | None
    snippet: str | None
    published_at_raw: str | None = None


@runtime_checkable
class SearchProvider(Protocol):
    """A search backend answering batches of queries."""

    name: str

    def search_many(self, queries: Sequence[str], *, k: int) -> list[list[SearchHit]]:
        """Return up to ``k`` hits for each query, one list per query in input order."""
        ...


PASSAGE_POOL_FACTOR = 5
"""Documents ranked by whole-document BM25 that the archive re-ranks by their best passage, as a
multiple of ``k``. Measured on Climate-FEVER (dev claims, gold evidence articles, claim keywords
as the query): whole-document BM25 finds 0.57 of the gold articles in its top 10 and 0.87 in its
top 50; best-passage BM25 over all passages finds 0.71 in its top 10."""

PASSAGE_MAX_CHARS = 600
"""A paragraph longer than this is cut into runs of whole sentences of about this length, so a
passage stays the size of the statement a judge reads (news paragraphs are 1–3 sentences)."""

_PARA_SPLIT = re.compile(r"\n\s*\n|\n")
_SENT_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[\"'“‘(\[]?[A-Z0-9])")


def split_passages(text: str, *, max_chars: int = PASSAGE_MAX_CHARS) -> list[str]:
    r"""Split a document's text into passages: its lines, long ones cut at sentence ends.

    Args:
        text: Document text.
        max_chars: Longest passage before it is cut into runs of whole sentences.

    Returns:
        Non-empty passages in text order (a text without line breaks and under ``max_chars``
        is one passage).

    >>> split_passages("First line.\nSecond line.")
    ['First line.', 'Second line.']
    """
    out: list[str] = []
    for para in _PARA_SPLIT.split(text or ""):
        para = para.strip()
        if not para:
            continue
        if len(para) <= max_chars:
            out.append(para)
            continue
        run = ""
        for sent in _SENT_SPLIT.split(para):
            if run and len(run) + len(sent) + 1 > max_chars:
                out.append(run)
                run = sent
            else:
                run = f"{run} {sent}" if run else sent
        if run:
            out.append(run)
    return out


def best_passage_score(
    query_terms: Sequence[str],
    passages: Sequence[Sequence[str]],
    title: Sequence[str],
    idf: Mapping[str, float],
    *,
    avg_len: float,
    k1: float = 1.2,
    b: float = 0.75,
) -> float:
    """Return the BM25 score of a document's best passage for a query.

    Each passage is scored with the document's title tokens added to it (the title names what
    every passage is about: a Wikipedia article, a headline), with the index's idf and BM25 length
    normalisation against ``avg_len``.

    Args:
        query_terms: The query's index tokens (duplicates count once).
        passages: Index tokens of each passage.
        title: Index tokens of the document's title.
        idf: Idf per query term (missing terms weigh 0).
        avg_len: Mean passage length in tokens (the normaliser, > 0).
        k1: BM25 term-frequency saturation (Robertson & Zaragoza 2009: 1.2–2.0).
        b: BM25 length normalisation (Robertson & Zaragoza 2009).

    Returns:
        The best passage's score (0.0 when no passage shares a term with the query).

    >>> best_passage_score(["bridge"], [["bridge", "open"], ["rain"]], [], {"bridge": 1.0},
    ...                    avg_len=2.0) > 0
    True
    """
    q = set(query_terms)
    best = 0.0
    for toks in passages or [[]]:
        bag: dict[str, int] = {}
        for t in toks:
            if t in q:
                bag[t] = bag.get(t, 0) + 1
        for t in title:
            if t in q:
                bag[t] = bag.get(t, 0) + 1
        if not bag:
            continue
        norm = k1 * (1.0 - b + b * (len(toks) + len(title)) / max(avg_len, 1e-9))
        score = sum(idf.get(t, 0.0) * tf * (k1 + 1.0) / (tf + norm) for t, tf in bag.items())
        best = max(best, score)
    return best


PASSAGE_CACHE_DOCS = 20_000
"""Documents whose passage tokens the archive provider keeps between batches; past this the cache
is emptied (bounds memory on large archives: ~20,000 news documents of a few KB each)."""

TextsLookup = Callable[[Sequence[str]], Mapping[str, tuple[str | None, str | None]]]
"""Returns ``{doc_id: (title, text)}`` for the ids asked (ids it does not know are left out)."""


class ArchiveProvider:
    """The ``archive`` provider: BM25 over the warehouse's own documents.

    Without ``texts`` it ranks whole documents by BM25. With ``texts`` it takes the best
    ``k × PASSAGE_POOL_FACTOR`` documents by whole-document BM25 and re-ranks them by their best
    passage (:func:`best_passage_score`): a long document that holds the one sentence bearing on
    a claim is no longer pushed down by its length, and a document that merely repeats the
    claim's words across many paragraphs no longer wins over one that states it.

    Args:
        index: An opened :class:`SearchIndex`.
        texts: Lookup of document titles and texts for the passage re-ranking, or None.
    """

    name = "archive"

    def __init__(self, index: SearchIndex, *, texts: TextsLookup | None = None) -> None:
        self.index = index
        self.texts = texts
        self.errors: list[str] = []
        self._passages: dict[str, tuple[list[list[str]], list[str]]] = {}

    def _passage_tokens(self, doc_ids: Sequence[str]) -> None:
        missing = [d for d in dict.fromkeys(doc_ids) if d not in self._passages]
        if not missing or self.texts is None:
            return
        if len(self._passages) + len(missing) > PASSAGE_CACHE_DOCS:
            keep = set(doc_ids)
            self._passages = {d: v for d, v in self._passages.items() if d in keep}
        found = self.texts(missing)
        for d in missing:
            title, text = found.get(d, (None, None))
            self._passages[d] = ([self.index.tokens(p) for p in split_passages(text or "")],
                                 self.index.tokens(title or ""))

    def search_many(self, queries: Sequence[str], *, k: int) -> list[list[SearchHit]]:
        """Return up to ``k`` document hits per query (``doc_id`` and score), best first.

        Args:
            queries: Query texts.
            k: Maximum hits per query (≥ 1).

        Returns:
            One list of :class:`SearchHit` per query, best first. The score is whole-document
            BM25, or best-passage BM25 when the provider re-ranks by passage.

        Raises:
            ValueError: When ``k`` < 1.
        """
        if self.texts is None:
            results = self.index.search_many(list(queries), k=k)
        else:
            results = self._rerank(list(queries), k=k)
        return [
            [
                SearchHit(self.name, q, rank, score, doc_id, None, None, None)
                for rank, (doc_id, score) in enumerate(hits, start=1)
            ]
            for q, hits in zip(queries, results, strict=True)
        ]

    def _rerank(self, queries: list[str], *, k: int) -> list[list[tuple[str, float]]]:
        pools = self.index.search_many(queries, k=k * PASSAGE_POOL_FACTOR)
        self._passage_tokens([d for pool in pools for d, _ in pool])
        q_terms = [self.index.tokens(q) for q in queries]
        idf = self.index.idf({t for ts in q_terms for t in ts})
        out = []
        for terms, pool in zip(q_terms, pools, strict=True):
            # the length normaliser of this query's pool alone: a ranking must not depend on the
            # documents this provider read before (other claims, other batches, other queries)
            lens = [len(p) for d, _ in pool for p in self._passages.get(d, ([], []))[0]]
            avg_len = (sum(lens) / len(lens)) if lens else 1.0
            scored = []
            for rank, (d, doc_score) in enumerate(pool):
                passages, title = self._passages.get(d, ([], []))
                s = best_passage_score(terms, passages, title, idf, avg_len=avg_len)
                scored.append((-s, -doc_score, rank, d))
            scored.sort()
            out.append([(d, -neg) for neg, _, _, d in scored[:k] if neg < 0])
        return out


def parse_searxng_results(payload: Any, *, query: str, k: int) -> list[SearchHit]:
    """Turn a SearXNG JSON response into hits.

    Args:
        payload: The decoded JSON body (a dict with a ``results`` list of dicts having ``url``,
            ``title``, ``content`` and optionally ``score``).
        query: The query the response answers.
        k: Maximum hits to keep.

    Returns:
        Hits with a non-empty http(s) ``url``, in the response's order, duplicate URLs dropped,
        ranked from 1.

    Raises:
        ValueError: When ``payload`` has no ``results`` list.
    """
    if not isinstance(payload, Mapping) or not isinstance(payload.get("results"), list):
        raise ValueError("SearXNG response has no 'results' list")
    hits: list[SearchHit] = []
    seen: set[str] = set()
    for item in payload["results"]:
        if len(hits) >= k:
            break
        if not isinstance(item, Mapping):
            continue
        url = item.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            continue
        if url in seen:
            continue
        seen.add(url)
        score = item.get("score")
        hits.append(
            SearchHit(
                provider="searxng",
                query=query,
                rank=len(hits) + 1,
                score=float(score) if isinstance(score, int | float) else None,
                doc_id=None,
                url=url,
                title=item.get("title") if isinstance(item.get("title"), str) else None,
                snippet=item.get("content") if isinstance(item.get("content"), str) else None,
                published_at_raw=(item.get("publishedDate")
                                  if isinstance(item.get("publishedDate"), str) else None),
            )
        )
    return hits


class SearxngProvider:
    """The ``searxng`` provider: a SearXNG instance's JSON API.

    Args:
        base_url: Instance root, e.g. ``"http://localhost:8888"`` (``/search`` is appended).
        client: An ``httpx.Client`` to use (tests pass one with ``httpx.MockTransport``); by
            default one is created with ``timeout_s`` and redirects followed.
        timeout_s: Per-request timeout in seconds for the default client.

    Attributes:
        errors: One line per failed query, ``"<query>: <reason>"``, in order of occurrence.

    Raises:
        ValueError: When ``base_url`` is not an http(s) URL.
    """

    name = "searxng"

    def __init__(
        self, base_url: str, *, client: httpx.Client | None = None, timeout_s: float = 15.0
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"SearXNG base_url must be http(s), got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.client = client or httpx.Client(
            timeout=timeout_s, follow_redirects=True, headers={"User-Agent": USER_AGENT}
        )
        self.timeout_s = timeout_s
        self.errors: list[str] = []

    def search(self, query: str, *, k: int) -> list[SearchHit]:
        """Return up to ``k`` hits for one query; a failure gives ``[]`` and an entry in errors."""
        try:
            response = self.client.get(
                f"{self.base_url}/search", params={"q": query, "format": "json"}
            )
            if response.status_code != 200:
                raise ValueError(f"HTTP {response.status_code}")
            return parse_searxng_results(response.json(), query=query, k=k)
        except (httpx.HTTPError, ValueError) as exc:  # json errors are ValueErrors
            self.errors.append(f"{query}: {type(exc).__name__}: {exc}")
            return []

    def search_many(self, queries: Sequence[str], *, k: int) -> list[list[SearchHit]]:
        """Return up to ``k`` hits per query, one request per query, in input order.

        Raises:
            ValueError: When ``k`` < 1.
        """
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        return [self.search(q, k=k) for q in queries]


@dataclass(frozen=True)
class SearchConfig:
    """Which search providers a run may use.

    Attributes:
        searxng_url: SearXNG instance root, or None when not configured.
        k: Hits requested per query and provider.
    """

    searxng_url: str | None = None
    k: int = 10

    def __post_init__(self) -> None:
        """Reject a non-positive ``k``."""
        if self.k < 1:
            raise ValueError(f"k must be >= 1, got {self.k}")


SEARXNG_URL_ENV = "AFFIDAVIT_SEARXNG_URL"
"""Environment variable of the SearXNG instance's root URL (web search)."""


def search_config_from_env(environ: Mapping[str, str] = os.environ) -> SearchConfig:
    """Read the search configuration from the environment.

    Args:
        environ: Variables; ``AFFIDAVIT_SEARXNG_URL`` (empty or unset: no SearXNG).

    Returns:
        The configuration.

    Raises:
        ValueError: For a URL that is not http(s) with a host, in one line naming the variable
            (:func:`affidavit.tasks.urls.config_url_error`).
    """
    url = (environ.get(SEARXNG_URL_ENV) or "").strip() or None
    if url and (error := config_url_error(SEARXNG_URL_ENV, url, "http://localhost:8888")):
        raise ValueError(error)
    return SearchConfig(searxng_url=url)


def probe_providers(
    config: SearchConfig, *, index: SearchIndex | None, client: httpx.Client | None = None
) -> dict[str, tuple[bool, str]]:
    """Say which search providers are available, for the run's preflight.

    Args:
        config: The search configuration.
        index: The archive index, or None when there is none.
        client: HTTP client for the SearXNG probe (default: a new one, 10 s timeout).

    Returns:
        ``{"archive": (available, reason), "searxng": (available, reason)}``. The archive is
        available when the index holds at least one document; SearXNG when a probe query
        answers HTTP 200 with a JSON ``results`` list.
    """
    out: dict[str, tuple[bool, str]] = {}
    if index is None:
        out["archive"] = (False, "no search index")
    elif len(index) == 0:
        out["archive"] = (False, "search index is empty")
    else:
        out["archive"] = (True, f"{len(index)} documents indexed")
    if not config.searxng_url:
        out["searxng"] = (False, "not configured (AFFIDAVIT_SEARXNG_URL unset)")
        return out
    own_client = client is None
    http = client or httpx.Client(timeout=10.0, headers={"User-Agent": USER_AGENT})
    try:
        response = http.get(
            f"{config.searxng_url.rstrip('/')}/search",
            params={"q": PROBE_QUERY, "format": "json"},
        )
        if response.status_code == 403:
            out["searxng"] = (False, "HTTP 403: is 'json' enabled in search.formats?")
        elif response.status_code != 200:
            out["searxng"] = (False, f"HTTP {response.status_code}")
        else:
            hits = parse_searxng_results(response.json(), query=PROBE_QUERY, k=1000)
            out["searxng"] = (True, f"probe answered with {len(hits)} results")
    except (httpx.HTTPError, ValueError) as exc:
        out["searxng"] = (False, f"{type(exc).__name__}: {exc}")
    finally:
        if own_client:
            http.close()
    return out


def build_providers(
    config: SearchConfig,
    *,
    index: SearchIndex | None,
    available: Mapping[str, tuple[bool, str]] | None = None,
    client: httpx.Client | None = None,
) -> list[SearchProvider]:
    """Instantiate the providers that are configured (and available, when a probe is given).

    Args:
        config: The search configuration.
        index: The archive index, or None.
        available: Output of :func:`probe_providers`; a provider it marks unavailable is left out.
        client: HTTP client passed to web providers.

    Returns:
        Providers in a fixed order: ``archive`` first, then ``searxng``.
    """

    def ok(name: str) -> bool:
        return available is None or available.get(name, (False, ""))[0]

    providers: list[SearchProvider] = []
    if index is not None and len(index) > 0 and ok("archive"):
        providers.append(ArchiveProvider(index))
    if config.searxng_url and ok("searxng"):
        providers.append(SearxngProvider(config.searxng_url, client=client))
    return providers


# --------------------------------------------------------------------------- Wayback CDX
_CDX_TS = re.compile(r"^\d{14}$")


def parse_cdx_timestamp(value: str) -> datetime | None:
    """Parse a 14-digit Wayback timestamp (``YYYYMMDDhhmmss``, UTC).

    Args:
        value: The timestamp field.

    Returns:
        An aware UTC datetime, or None when the field is not a valid 14-digit timestamp
        (e.g. month ``00``, as found in real CDX output).

    >>> parse_cdx_timestamp("19961231235847")
    datetime.datetime(1996, 12, 31, 23, 58, 47, tzinfo=datetime.timezone.utc)
    >>> parse_cdx_timestamp("20000012170449") is None
    True
    """
    value = value.strip()
    if not _CDX_TS.match(value):
        return None
    try:
        return datetime.strptime(value, "%Y%m%d%H%M%S").replace(tzinfo=UTC)
    except ValueError:
        return None


def parse_cdx_timestamps(body: str) -> list[datetime]:
    """Extract the capture times of a CDX server response, JSON or plain text.

    JSON (``output=json``): a list of rows whose first row is the header; the ``timestamp``
    column is used. Plain text: one capture per line, space separated; a line of one field is a
    bare timestamp (``fl=timestamp``), otherwise the second field is (the standard 11-field
    ``urlkey timestamp original mimetype statuscode digest length`` layout). Lines that do not
    parse — the resume key after a blank line, error messages, truncated or binary junk, invalid
    dates — are skipped.

    Args:
        body: The response text.

    Returns:
        Capture times (aware UTC) in response order.
    """
    text = body.strip()
    if not text:
        return []
    if text.startswith("["):
        try:
            rows = json.loads(text)
        except ValueError:
            rows = None
        if isinstance(rows, list):
            return _timestamps_from_json_rows(rows)
    out: list[datetime] = []
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 1:
            ts = parse_cdx_timestamp(fields[0])
        elif len(fields) >= 3:
            ts = parse_cdx_timestamp(fields[1])
        else:
            ts = None
        if ts is not None:
            out.append(ts)
    return out


def _timestamps_from_json_rows(rows: list[Any]) -> list[datetime]:
    if not rows or not isinstance(rows[0], list):
        return []
    header = rows[0]
    col = header.index("timestamp") if "timestamp" in header else None
    out: list[datetime] = []
    body = rows[1:] if col is not None else rows
    if col is None:  # no header row: fl=timestamp gives one column; full rows have it second
        col = 0 if all(isinstance(r, list) and len(r) == 1 for r in rows) else 1
    for row in body:
        if isinstance(row, list) and len(row) > col and isinstance(row[col], str):
            ts = parse_cdx_timestamp(row[col])
            if ts is not None:
                out.append(ts)
    return out


class WaybackCDX:
    """First-capture times from the Wayback Machine's CDX server.

    Args:
        client: An ``httpx.Client`` (tests pass one with ``httpx.MockTransport``); by default one
            with a 15 s timeout.
        base_url: CDX endpoint.

    Attributes:
        errors: One line per failed lookup, ``"<url>: <reason>"``.
    """

    def __init__(
        self,
        client: httpx.Client | None = None,
        base_url: str = "https://web.archive.org/cdx/search/cdx",
    ) -> None:
        self.client = client or httpx.Client(
            timeout=15.0, follow_redirects=True, headers={"User-Agent": USER_AGENT}
        )
        self.base_url = base_url
        self.errors: list[str] = []

    def first_seen(self, url: str, *, since: datetime | None = None) -> datetime | None:
        """Return the time of the earliest capture of ``url``, or None.

        Sends ``url=…&output=json&limit=1&fl=timestamp`` (CDX results are in ascending time
        order, so the one row is the first capture), with ``from=`` when ``since`` is given.

        Args:
            url: The page URL.
            since: Only consider captures at or after this time (UTC).

        Returns:
            An aware UTC datetime, or None when there is no capture, the response does not
            parse, or the request fails (the failure is appended to ``errors``; never raised).
        """
        params = {"url": url, "output": "json", "limit": "1", "fl": "timestamp"}
        if since is not None:
            params["from"] = since.astimezone(UTC).strftime("%Y%m%d%H%M%S")
        try:
            response = self.client.get(self.base_url, params=params)
        except httpx.HTTPError as exc:
            self.errors.append(f"{url}: {type(exc).__name__}: {exc}")
            return None
        if response.status_code != 200:
            self.errors.append(f"{url}: HTTP {response.status_code}")
            return None
        stamps = parse_cdx_timestamps(response.text)
        return min(stamps) if stamps else None
