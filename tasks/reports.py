"""Reports of a run: ClaimReview JSON-LD and a static HTML report for editors.

Pure rendering: every function takes dicts (rows of the ``runs``, ``verdicts``, ``judgments``,
``documents`` and ``lineage_edges`` tables) and returns strings or dicts; nothing here reads or
writes files (``from_env`` reads a mapping it is given). Optional keys may be missing or None.

The HTML report is a folder: ``report.html`` (the index: summary, the run's capabilities in
words, extra sections, and a sortable table of every claim) and ``claims/<claim_id>.html`` (one
page per claim: admitted evidence with each quote highlighted in its stored text, evidence that
did not count folded away with its reason, and the lineage of the evidence as an inline SVG
graph). Every page is self-contained (inline CSS and, on the index, a small inline script for
sorting and filtering; no external file, font or image) so it opens offline. All text is
HTML-escaped by Jinja2's autoescape; credentials in URLs (``user:secret@``) are removed from
everything printed; links are made for http(s) URLs only; long fields are cut.

ClaimReview follows Google's fact-check structured data guidelines: every node has ``url`` (the
configured base URL plus ``claims/<claim_id>.html``, the same path as the claim's report page,
so publishing a run's report folder at the base URL makes every ``url`` resolve, and each
claim page embeds its node as ``application/ld+json``), ``author`` (an
Organization with name and url), ``datePublished``, ``claimReviewed`` (the claim as checked) with
``headline`` as its short form (at most 75 characters, Google's advice for ``claimReviewed``),
``reviewRating`` on the 1-5 scale of :data:`CLAIMREVIEW_RATINGS`, and ``itemReviewed``, a
``Claim`` with ``author``, ``datePublished`` and ``appearance`` when the claim came from a stored
document. Nodes carry no null or empty value.

UNVERIFIED verdicts are left out of the JSON-LD. An UNVERIFIED verdict says that no admitted
evidence was found: it is the absence of a finding, not a rating of the claim. The guidelines
ask that a reader can tell what was checked and what conclusion was reached, and a ClaimReview
is shown by search engines as a fact check; Snopes' ``-1`` "Unproven" rating (in the real
samples) is an editorial conclusion reached by people, which an empty search is not.
"""

from __future__ import annotations

import json
import math
import re
from collections import ChainMap, Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any
from urllib.parse import quote as url_quote
from urllib.parse import urlsplit, urlunsplit

import jinja2
from markupsafe import Markup, escape

from affidavit.schemas.enums import VerdictStatus
from affidavit.tasks.sanitize import page_text
from affidavit.tasks.urls import config_url_error

CONTEXT_CHARS = 160
"""Characters of document text shown on each side of a highlighted span (about two lines of a
news paragraph: enough to read the sentence around a quote, short enough to scan a claim)."""

SHORT_CLAIM_CHARS = 75
"""Length of the short form of a claim (``headline``): Google's fact-check guidelines advise
keeping ``claimReviewed`` under 75 characters so that it does not wrap on a phone."""

MAX_TITLE_CHARS = 160
"""Document titles are cut to this many characters (a long news headline is ~110)."""

MAX_CLAIM_CHARS = 600
"""Claim texts are cut to this many characters on the pages (a long sentence is ~300)."""

MAX_URL_CHARS = 120
"""URLs are shown cut to this many characters (the link itself keeps the whole URL)."""

MAX_QUOTE_CHARS = 800
"""Quotes and explanations are cut to this many characters."""

LINEAGE_MAX_ORIGINS = 12
"""Origins drawn in one claim's lineage graph; the others are listed below it."""

LINEAGE_MAX_DOCS_PER_ORIGIN = 10
"""Documents drawn under one origin; the others are counted."""

INDEX_PAGE_ROWS = 250
"""Rows of the claims table shown at a time. Every row is in the page (sorting and filtering
work on all of them) but only one page is laid out: measured with tests/benchmarks/
bench_report.py, a 10,000-claim index took 3.6 s to its load event with every row laid out and
0.3 s with 250."""

_GRAPH_PER_ROW = 3
"""Documents of one lineage level drawn side by side before wrapping to the next row."""

DEFAULT_BASE_URL = "https://affidavit.invalid/"
"""Base URL used when none is configured. ``.invalid`` is reserved by RFC 2606 and can never
resolve, so an unconfigured export is valid JSON-LD that is plainly not yet published."""

STATUS_ORDER: tuple[str, ...] = tuple(s.value for s in VerdictStatus)

CLAIMREVIEW_RATINGS: dict[str, tuple[int, str]] = {
    VerdictStatus.SUPPORTED.value: (5, "True"),
    VerdictStatus.PARTIAL.value: (4, "Partly supported"),
    VerdictStatus.CONTESTED.value: (3, "Disputed"),
    VerdictStatus.CONTRADICTED.value: (1, "False"),
}
"""status → (ratingValue, alternateName) on one scale: worstRating 1, bestRating 5.

A 1-5 scale (5 best), as in the Polygraph.info sample and Google's example scale: SUPPORTED
(enough independent origins, no refutation) 5 "True"; PARTIAL (support short of the required
origins) 4 "Partly supported"; CONTESTED (support and refutation) 3 "Disputed"; CONTRADICTED 1
"False". UNVERIFIED has no rating and is not published (see the module docstring)."""

BEST_RATING = 5
WORST_RATING = 1

UNPUBLISHED_STATUSES = frozenset({VerdictStatus.UNVERIFIED.value})
"""Statuses never written as ClaimReview (no finding to publish)."""

COUNTED_STANCES = frozenset({"SUPPORTS", "PARTIAL", "REFUTES"})
"""Stances of admitted judgments that count as evidence (NEUTRAL ones do not)."""

_STATUS_COLOURS = {
    "SUPPORTED": "#1b7f3b",
    "PARTIAL": "#5d7f12",
    "CONTESTED": "#a35f00",
    "CONTRADICTED": "#b3261e",
    "UNVERIFIED": "#5f6368",
}
_STANCE_COLOURS = {
    "SUPPORTS": "#1b7f3b",
    "PARTIAL": "#5d7f12",
    "REFUTES": "#b3261e",
    "NEUTRAL": "#80868b",
}
_EDGE_WORDS = {
    "syndication": "copy",
    "derivation": "rewrite",
    "quote": "quotes",
    "citation": "cites",
}
"""Lineage edge kinds (schemas.enums.EdgeKind) in an editor's words."""


# ------------------------------------------------------------------------------ helpers
_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s@?#]+@")


def redact_credentials(text: str) -> str:
    """Remove ``user:secret@`` from every URL in a text.

    >>> redact_credentials("see https://bob:hunter2@example.org/x")
    'see https://example.org/x'
    """
    return _CREDENTIALS.sub(r"\1", text if isinstance(text, str) else str(text))


def safe_url(url: Any) -> str | None:
    """Return an http(s) URL without credentials, or None for anything else.

    >>> safe_url("https://u:p@news.example:8080/a?b=1")
    'https://news.example:8080/a?b=1'
    >>> safe_url("javascript:alert(1)") is None
    True
    """
    if not isinstance(url, str) or not url.lower().startswith(("http://", "https://")):
        return None
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
        port = parts.port
    except ValueError:
        return None
    if not host:
        return None
    netloc = host if ":" not in host else f"[{host}]"
    if port is not None:
        netloc += f":{port}"
    return urlunsplit((parts.scheme.lower(), netloc, parts.path, parts.query, parts.fragment))


def cut(text: Any, limit: int) -> str:
    """Cut a text to ``limit`` characters at a word boundary, with "…" when cut.

    >>> cut("The Lumen Bridge opened on 14 May 2024.", 20)
    'The Lumen Bridge…'
    """
    s = "" if text is None else " ".join(str(text).split())
    if len(s) <= limit:
        return s
    head = s[: max(1, limit - 1)]
    space = head.rfind(" ")
    if space > limit // 2:
        head = head[:space]
    return head.rstrip(" ,;:") + "…"


def _iso(value: Any) -> str | None:
    """Return an ISO-8601 string for a datetime/date/str, None otherwise."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str) and value.strip():
        try:  # only a real ISO-8601 date or time is passed on
            return _iso(datetime.fromisoformat(value.strip().replace("Z", "+00:00")))
        except ValueError:
            try:
                return date.fromisoformat(value.strip()).isoformat()
            except ValueError:
                return None
    return None


def _as_mapping(value: Any) -> dict[str, Any]:
    """Accept a dict or a JSON object string (``runs.parameters``); anything else → {}."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            loaded = json.loads(value)
        except ValueError:
            return {}
        return loaded if isinstance(loaded, dict) else {}
    return {}


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    try:
        return list(value)
    except TypeError:
        return [value]


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _float(value: Any) -> float | None:
    try:
        f = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


def _prune(value: Any) -> Any:
    """Drop None, empty strings, empty lists and empty dicts, recursively."""
    if isinstance(value, Mapping):
        out = {k: _prune(v) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, "", [], {})}
    if isinstance(value, list | tuple):
        items = [_prune(v) for v in value]
        return [v for v in items if v not in (None, "", [], {})]
    return value


def _safe_id(claim_id: Any) -> str:
    """Return a claim id as a file name and URL path segment.

    Ids are hex hashes; anything else is percent-encoded so it cannot leave ``claims/``.
    """
    s = str(claim_id or "unknown")
    if re.fullmatch(r"[A-Za-z0-9_\-]{1,128}", s):
        return s
    return url_quote(s, safe="")[:200].replace("%", "_")


def claim_page_path(claim_id: Any) -> str:
    """Path of a claim's report page, relative to the report folder.

    >>> claim_page_path("3f2a9c")
    'claims/3f2a9c.html'
    """
    return f"claims/{_safe_id(claim_id)}.html"


# ------------------------------------------------------------------------------ config
@dataclass(frozen=True, slots=True)
class PublishConfig:
    """Where published reviews live and who publishes them.

    Attributes:
        base_url: http(s) URL the report folder is published at; each review's ``url`` is this
            plus :func:`claim_page_path` (env ``AFFIDAVIT_PUBLISH_BASE_URL``; default
            :data:`DEFAULT_BASE_URL`, a placeholder that never resolves).
        org_name: The reviewing organisation (``author.name``; env
            ``AFFIDAVIT_PUBLISHER_NAME``, default "affidavit").
        org_url: Its home page (``author.url``; env ``AFFIDAVIT_PUBLISHER_URL``, default the
            base URL).

    Raises:
        ValueError: For a base or organisation URL that is not http(s), or carries credentials.
    """

    base_url: str = DEFAULT_BASE_URL
    org_name: str = "affidavit"
    org_url: str | None = None

    def __post_init__(self) -> None:
        for name in ("base_url", "org_url"):
            value = getattr(self, name)
            if value is None and name == "org_url":
                continue
            if safe_url(value) is None:
                raise ValueError(f"{name} must be an http(s) URL, got {value!r}")
            if "@" in (urlsplit(value).netloc or ""):
                raise ValueError(f"{name} must not carry credentials")
        if not self.base_url.endswith("/"):
            object.__setattr__(self, "base_url", self.base_url + "/")
        if not self.org_name.strip():
            raise ValueError("org_name must not be empty")

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> PublishConfig:
        """Read the publishing settings from a mapping (``os.environ``).

        ``AFFIDAVIT_PUBLISH_BASE_URL``, ``AFFIDAVIT_PUBLISHER_NAME``, ``AFFIDAVIT_PUBLISHER_URL``;
        unset means the default.

        Raises:
            ValueError: For a set value that is not a usable URL, naming its variable.
        """
        for variable in ("AFFIDAVIT_PUBLISH_BASE_URL", "AFFIDAVIT_PUBLISHER_URL"):
            url = environ.get(variable)
            if url and (error := config_url_error(variable, url, "https://example.org/checks/")):
                raise ValueError(error)
            if url and "@" in (urlsplit(url.strip()).netloc or ""):
                raise ValueError(f"{variable} must not carry credentials (user:password@)")
        return cls(
            base_url=environ.get("AFFIDAVIT_PUBLISH_BASE_URL") or DEFAULT_BASE_URL,
            org_name=environ.get("AFFIDAVIT_PUBLISHER_NAME") or "affidavit",
            org_url=environ.get("AFFIDAVIT_PUBLISHER_URL") or None,
        )

    @property
    def is_placeholder(self) -> bool:
        """True when no base URL was configured (reviews point to ``affidavit.invalid``)."""
        return self.base_url == DEFAULT_BASE_URL

    def claim_url(self, claim_id: Any) -> str:
        """The stable URL of a claim's review: base URL + ``claims/<claim_id>.html``."""
        return self.base_url + claim_page_path(claim_id)


# ------------------------------------------------------------------------------ JSON-LD
def render_summary_counts(verdicts: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Count verdicts by status.

    Args:
        verdicts: Verdict rows (``status`` key).

    Returns:
        Every status of :class:`VerdictStatus` in its declared order, zero counts included,
        followed by any other status value met (a missing status counts as ``"UNKNOWN"``).

    >>> render_summary_counts([{"status": "SUPPORTED"}])["UNVERIFIED"]
    0
    """
    counts = dict.fromkeys(STATUS_ORDER, 0)
    for v in verdicts:
        status = v.get("status") or "UNKNOWN"
        counts[str(status)] = counts.get(str(status), 0) + 1
    return counts


def _claim_author(verdict: Mapping[str, Any]) -> dict[str, Any] | None:
    """Return who made the claim.

    The claimant given with it, else the source document's author, else its publisher (host).
    """
    claimant = verdict.get("claimant") or verdict.get("source_author")
    if isinstance(claimant, str) and claimant.strip():
        return {"@type": "Person", "name": cut(redact_credentials(claimant), 200)}
    publisher = verdict.get("source_publisher")
    if isinstance(publisher, str) and publisher.strip():
        node: dict[str, Any] = {"@type": "Organization",
                                "name": cut(redact_credentials(publisher), 200)}
        home = safe_url(f"https://{publisher}/") if re.fullmatch(r"[\w.\-]+", publisher) else None
        if home:
            node["url"] = home
        return node
    return None


def _review_body(verdict: Mapping[str, Any]) -> Any:
    """What decided the verdict (``decided_by``), then its counts (``explanation``).

    Returns the joined text, or ``explanation`` as given when there is no text to join.
    """
    parts = [p for p in (verdict.get("decided_by"), verdict.get("explanation"))
             if isinstance(p, str) and p.strip()]
    return "\n".join(parts) if parts else verdict.get("explanation")


def claimreview_jsonld(
    verdict: Mapping[str, Any], *, config: PublishConfig | None = None, now: datetime
) -> dict[str, Any]:
    """Build the schema.org ClaimReview of one verdict.

    Args:
        verdict: A ``verdicts`` row. Optional extra keys describe where the claim appeared:
            ``source_url`` (or a ``source_urls`` list), ``source_title``, ``source_publisher``
            (host), ``source_author``, ``source_published_at``; or ``claimant`` /
            ``claim_date`` given with the claim.
        config: Base URL and publisher (default :class:`PublishConfig`'s defaults).
        now: Publication time used when the verdict has no ``decided_at``; naive is UTC.

    Returns:
        A JSON-serialisable dict with no null or empty value (see the module docstring).

    Raises:
        ValueError: For a status with no rating (UNVERIFIED, unknown): it is not published.
    """
    config = config or PublishConfig()
    status = str(verdict.get("status") or "")
    if status not in CLAIMREVIEW_RATINGS:
        raise ValueError(f"status {status or 'missing'!r} has no ClaimReview rating")
    value, label = CLAIMREVIEW_RATINGS[status]
    text = redact_credentials(" ".join(str(verdict.get("claim_text") or "").split()))
    if not text:
        raise ValueError("a ClaimReview needs the claim's text")
    urls: list[str] = []
    for candidate in [verdict.get("source_url"), *_as_list(verdict.get("source_urls"))]:
        u = safe_url(candidate)
        if u and u not in urls:
            urls.append(u)
    publisher = verdict.get("source_publisher")
    appearance = [
        {
            "@type": "CreativeWork",
            "url": u,
            "headline": cut(redact_credentials(verdict.get("source_title") or ""),
                            MAX_TITLE_CHARS) if i == 0 and isinstance(
                                verdict.get("source_title"), str) else None,
            "publisher": {"@type": "Organization",
                          "name": cut(redact_credentials(publisher), 200)}
            if i == 0 and isinstance(publisher, str) and publisher.strip() else None,
            "datePublished": _iso(verdict.get("source_published_at")) if i == 0 else None,
        }
        for i, u in enumerate(urls)
    ]
    claim = {
        "@type": "Claim",
        "author": _claim_author(verdict),
        "datePublished": _iso(verdict.get("claim_date"))
        or _iso(verdict.get("source_published_at")),
        "appearance": appearance,
    }
    org = {"@type": "Organization", "name": config.org_name,
           "url": config.org_url or config.base_url}
    review = {
        "@context": "https://schema.org",
        "@type": "ClaimReview",
        "url": config.claim_url(verdict.get("claim_id") or text),
        "claimReviewed": text,
        "headline": cut(text, SHORT_CLAIM_CHARS),
        "reviewRating": {
            "@type": "Rating",
            "ratingValue": value,
            "bestRating": BEST_RATING,
            "worstRating": WORST_RATING,
            "alternateName": label,
        },
        "itemReviewed": claim,
        "datePublished": _iso(verdict.get("decided_at")) or _iso(now),
        "author": org,
        "publisher": org,
        "reviewBody": redact_credentials(cut(_review_body(verdict), MAX_QUOTE_CHARS)),
        "citation": safe_url(verdict.get("best_url")),
        "expires": _iso(verdict.get("expires_at")),
    }
    pruned: dict[str, Any] = _prune(review)
    return pruned


def claimreview_nodes(
    verdicts: Iterable[Mapping[str, Any]],
    *,
    config: PublishConfig | None = None,
    now: datetime,
    statuses: Iterable[str] | None = None,
) -> tuple[list[dict[str, Any]], Counter[str]]:
    """Build the ClaimReview nodes of many verdicts, leaving out what cannot be published.

    Args:
        verdicts: ``verdicts`` rows with the optional source keys of :func:`claimreview_jsonld`.
        config: Base URL and publisher.
        now: Fallback publication time.
        statuses: Only these statuses (None: every published status).

    Returns:
        ``(nodes, left_out)``: nodes in the given order; ``left_out`` counts the verdicts not
        written by reason (``status:UNVERIFIED``, ``status_filter``, ``no_text``,
        ``question``: a question asserts nothing to rate).
    """
    wanted = {s.upper() for s in statuses} if statuses is not None else None
    nodes: list[dict[str, Any]] = []
    left_out: Counter[str] = Counter()
    for v in verdicts:
        status = str(v.get("status") or "")
        if wanted is not None and status not in wanted:
            left_out["status_filter"] += 1
            continue
        if status not in CLAIMREVIEW_RATINGS:
            left_out[f"status:{status or 'missing'}"] += 1
            continue
        text = str(v.get("claim_text") or "").strip()
        if not text:
            left_out["no_text"] += 1
            continue
        if text.rstrip("\"'”’»)] ").endswith("?"):
            # a question ("Did Elmstead ban leaf blowers?", from ``research``) asserts nothing:
            # a ClaimReview rating it "False" would publish a rating of no claim
            left_out["question"] += 1
            continue
        nodes.append(claimreview_jsonld(v, config=config, now=now))
    return nodes, left_out


# ------------------------------------------------------------------------------ HTML views
def quote_in_context(
    text: str | None,
    span_start: int | None,
    span_end: int | None,
    *,
    quote: str | None = None,
    context_chars: int = CONTEXT_CHARS,
) -> tuple[str, str, str]:
    """Split a document around an anchored span for display.

    Args:
        text: The stored document text the span refers to.
        span_start: Start offset of the span (characters).
        span_end: End offset, exclusive.
        quote: The quote, shown alone when the span cannot be used.
        context_chars: Characters kept on each side, cut back to a word boundary.

    Returns:
        ``(before, span, after)``; ``before``/``after`` start/end with "…" when cut. When the
        text or a valid span is missing, ``("", quote or "", "")``.

    >>> quote_in_context("The cat sat on the mat.", 4, 7, context_chars=100)
    ('The ', 'cat', ' sat on the mat.')
    """
    quote = quote if isinstance(quote, str) else ("" if quote is None else str(quote))
    if (
        not isinstance(text, str)
        or not isinstance(span_start, int)
        or not isinstance(span_end, int)
        or not 0 <= span_start < span_end <= len(text)
    ):
        return "", quote or "", ""
    lo = max(0, span_start - context_chars)
    hi = min(len(text), span_end + context_chars)
    before = text[lo:span_start]
    after = text[span_end:hi]
    if lo > 0:
        cut_at = before.find(" ")
        before = "…" + (before[cut_at + 1 :] if 0 <= cut_at < len(before) - 1 else before)
    if hi < len(text):
        cut_at = after.rfind(" ")
        after = (after[:cut_at] if cut_at > 0 else after) + "…"
    return before, text[span_start:span_end], after


def _publisher(doc: Mapping[str, Any]) -> str:
    host = doc.get("host")
    if isinstance(host, str) and host:
        return host
    u = safe_url(doc.get("url"))
    return (urlsplit(u).hostname or "") if u else ""


def _doc_view(doc_id: str, doc: Mapping[str, Any] | None) -> dict[str, Any]:
    """Return the title, publisher and link of a document for display.

    Never a bare hash when a title, URL or publisher is known.
    """
    doc = doc or {}
    url = safe_url(doc.get("url"))
    title = cut(redact_credentials(str(doc.get("title") or "")), MAX_TITLE_CHARS)
    publisher = _publisher(doc)
    if not title:
        title = cut(url, MAX_URL_CHARS) if url else (f"document {doc_id[:12]}" if doc_id else "")
    # the SVG graph is built outside the template: every name shown is cleaned here
    title, publisher = redact_credentials(title), redact_credentials(cut(publisher, 100))
    return {"doc_id": doc_id, "title": title, "publisher": publisher, "href": url,
            "published": (_iso(doc.get("published_at")) or "")[:10]}


@dataclass(frozen=True, slots=True)
class ReportSection:
    """An extra section of the index page (audits, notes), rendered escaped.

    Attributes:
        section_id: HTML id (letters, digits, ``-``), also the anchor in the section list.
        title: Heading.
        paragraphs: Text paragraphs.
        table: Rows of cells; the first row is the header.
    """

    section_id: str
    title: str
    paragraphs: tuple[str, ...] = ()
    table: tuple[tuple[str, ...], ...] = field(default_factory=tuple)


def capabilities_in_words(capabilities: Any) -> list[str]:
    """Say what the run's preflight found, one sentence per capability.

    Args:
        capabilities: ``runs.capabilities`` (dict or JSON string): ``{"search": {name:
            {"available", "detail"}}, "judge": {"asked", "available", "detail"}}``; other keys
            are described generically.

    Returns:
        Sentences such as "Search: archive available (6 documents indexed)."

    >>> capabilities_in_words({"judge": {"asked": "lexical", "available": True}})
    ['Judge: lexical judge used.']
    """
    caps = _as_mapping(capabilities)
    out: list[str] = []
    search = caps.get("search")
    if isinstance(search, Mapping):
        for name, info in search.items():
            info = info if isinstance(info, Mapping) else {"available": bool(info)}
            detail = str(info.get("detail") or "").strip()
            state = "available" if info.get("available") else "not available"
            out.append(f"Search: {name} {state}" + (f" ({detail})." if detail else "."))
    elif isinstance(search, list | tuple):
        out.append("Search: " + ", ".join(map(str, search)) + ".")
    judge = caps.get("judge")
    if isinstance(judge, Mapping):
        asked = str(judge.get("asked") or "judge")
        detail = str(judge.get("detail") or "").strip()
        if judge.get("available", True):
            out.append(f"Judge: {asked} judge used" + (f" ({detail})." if detail else "."))
        else:
            out.append(f"Judge: {asked} judge asked for but not available"
                       + (f" ({detail})" if detail else "") + "; the lexical judge was used.")
    elif judge:
        out.append(f"Judge: {judge}.")
    for key, value in caps.items():
        if key in ("search", "judge"):
            continue
        out.append(f"{key.replace('_', ' ').capitalize()}: {_words(value)}.")
    return [redact_credentials(s) for s in out]


def _words(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        return "; ".join(f"{k.replace('_', ' ')} {_words(v)}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return ", ".join(_words(v) for v in value) or "none"
    if isinstance(value, float):
        return f"{value:.2f}"
    return str(value)


def _counts_in_words(counts: Any) -> list[str]:
    """Group a run's counters: rows written, then skips/rejects by reason, then statuses."""
    c = _as_mapping(counts)
    main, skips = [], []
    for k, v in sorted(c.items()):
        if k.startswith("status:"):
            continue
        label = k.replace("_", " ")
        if ":" in k:
            kind, reason = k.split(":", 1)
            skips.append(f"{reason.replace('_', ' ')} {_int(v)}"
                         + ("" if kind in ("skip", "reject") else f" ({kind})"))
        else:
            main.append(f"{label} {_int(v)}")
    out = []
    if main:
        out.append("Counts: " + ", ".join(main) + ".")
    if skips:
        out.append("Skipped, rejected or repaired: " + ", ".join(skips) + ".")
    return out


def _degraded_list(value: Any) -> list[str]:
    if isinstance(value, str):
        parts = [p.strip() for p in value.split(";")]
    else:
        parts = [str(p).strip() for p in _as_list(value)]
    return [redact_credentials(p) for p in parts if p]


def _local_names(value: Any) -> Any:
    """Show local file paths by their file name; URLs and other values are kept.

    A report is shared: the folders of the machine that ran it are not its business.

    >>> _local_names(["/home/ana/feeds/a.xml", "https://x.example/rss"])
    ['a.xml', 'https://x.example/rss']
    """
    if isinstance(value, list | tuple):
        return [_local_names(v) for v in value]
    if isinstance(value, str) and value.startswith(("/", "~", "./", "../")) and "://" not in value:
        return value.rstrip("/").rsplit("/", 1)[-1]
    return value


def _fmt_conf(value: Any) -> str:
    f = _float(value)
    return "" if f is None else f"{f:.2f}"


def _lineage_graph(
    docs: Mapping[str, dict[str, Any]],
    edges: Sequence[Mapping[str, Any]],
    stances: Mapping[str, str],
    origin_of: Mapping[str, str],
) -> dict[str, Any]:
    """Lay out a claim's evidence lineage: one tree per independent origin, side by side.

    Each origin heads its own block (thick border); the documents that copy or rewrite it hang
    below it along the lineage edges (breadth-first, at most ``_GRAPH_PER_ROW`` side by side);
    a document of the lineage with no drawn edge sits below its origin on a thin grey line.
    Border and fill say the stance of each document's admitted quote.

    Args:
        docs: doc_id → :func:`_doc_view` dict, for every document to draw (evidence documents
            and their origins).
        edges: ``lineage_edges`` rows among those documents.
        stances: doc_id → stance of its admitted judgment (absent: not evidence itself).
        origin_of: doc_id → origin doc_id (itself when independent).

    Returns:
        ``{"svg": Markup, "n_docs", "n_origins", "n_copies", "n_rewrites", "n_quotes",
        "hidden": [doc views of origins not drawn]}``.
    """
    groups: dict[str, list[str]] = {}
    for d in docs:
        groups.setdefault(origin_of.get(d, d), []).append(d)
    children: dict[str, list[tuple[str, str]]] = {}
    kinds: Counter[str] = Counter()
    for e in edges:
        p, c = str(e.get("parent_doc_id") or ""), str(e.get("child_doc_id") or "")
        if p in docs and c in docs and p != c:
            kind = str(e.get("kind") or "link")
            children.setdefault(p, []).append((c, kind))
            kinds[kind] += 1
    ordered = sorted(groups, key=lambda o: (-sum(m in stances for m in groups[o]), o))
    shown, hidden = ordered[:LINEAGE_MAX_ORIGINS], ordered[LINEAGE_MAX_ORIGINS:]
    box_w, box_h, gap_x, gap_y, pad, head = 184, 40, 14, 34, 10, 20
    pos: dict[str, tuple[int, int]] = {}
    tree: list[tuple[str, str, str]] = []  # (parent, child, kind) drawn
    blocks: list[tuple[int, str, int]] = []  # (x, origin, n_more)
    x0, bottom = pad, 0
    for origin in shown:
        members = set(groups[origin])
        level = {origin: 0}
        parent_of: dict[str, tuple[str, str]] = {}
        queue = [origin]
        while queue:
            cur = queue.pop(0)
            for child, kind in children.get(cur, []):
                if child in members and child not in level:
                    level[child] = level[cur] + 1
                    parent_of[child] = (cur, kind)
                    queue.append(child)
        for m in sorted(members - set(level)):
            level[m] = 1
            parent_of[m] = (origin, "lineage")
        rows: list[list[str]] = []
        budget = LINEAGE_MAX_DOCS_PER_ORIGIN
        for lv in range(max(level.values()) + 1):
            at = sorted((m for m in level if level[m] == lv), key=lambda m: (m not in stances, m))
            at = at[: max(0, budget)]
            budget -= len(at)
            for i in range(0, len(at), _GRAPH_PER_ROW):
                rows.append(at[i : i + _GRAPH_PER_ROW])
        n_cols = max((len(r) for r in rows), default=1)
        for ri, row in enumerate(rows):
            for ci, m in enumerate(row):
                pos[m] = (x0 + ci * (box_w + gap_x), pad + head + ri * (box_h + gap_y))
                bottom = max(bottom, pos[m][1] + box_h)
                if m in parent_of:
                    tree.append((parent_of[m][0], m, parent_of[m][1]))
        blocks.append((x0, origin, len(members) - sum(len(r) for r in rows)))
        x0 += n_cols * (box_w + gap_x) + 2 * gap_x
    width = max(x0 + pad, 260)
    height = bottom + pad + 16
    style = {"syndication": ('stroke="#3c4043"', ""),
             "derivation": ('stroke="#1a56c4"', ' stroke-dasharray="7 4"'),
             "quote": ('stroke="#8430ce"', ' stroke-dasharray="2 3"'),
             "citation": ('stroke="#8430ce"', ' stroke-dasharray="2 3"'),
             "lineage": ('stroke="#bdc1c6"', "")}
    parts = [
        f'<svg class="lineage" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="lineage of the evidence: {len(groups)} independent origin(s)">'
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" '
        'markerHeight="6" orient="auto"><path d="M0,0L10,5L0,10z" fill="#5f6368"/></marker>'
        "</defs>"
    ]
    for p, c, kind in tree:
        if p not in pos or c not in pos:
            continue
        (x1, y1), (x2, y2) = pos[p], pos[c]
        sx, sy, tx, ty = x1 + box_w / 2, y1 + box_h, x2 + box_w / 2, y2
        colour, dash = style.get(kind, style["lineage"])
        word = "same lineage" if kind == "lineage" else _EDGE_WORDS.get(kind, kind)
        mid = (sy + ty) / 2
        parts.append(
            f'<path d="M{sx:.0f},{sy:.0f} C{sx:.0f},{mid:.0f} {tx:.0f},{mid:.0f} {tx:.0f},'
            f'{ty - 2:.0f}" fill="none" {colour} stroke-width="1.6"{dash}'
            f'{"" if kind == "lineage" else " marker-end=" + chr(34) + "url(#arrow)" + chr(34)}>'
            f"<title>{escape(word)}</title></path>"
        )
    fills = {"SUPPORTS": "#e6f4ea", "PARTIAL": "#f1f8e0", "REFUTES": "#fce8e6",
             "NEUTRAL": "#f1f3f4"}
    for i, (bx, origin, more) in enumerate(blocks):
        parts.append(f'<text x="{bx}" y="{pad + 11}" class="oh">origin {i + 1}</text>')
        for m in groups[origin]:
            if m not in pos:
                continue
            mx, my = pos[m]
            v = docs[m]
            stance = stances.get(m)
            is_origin = m == origin
            tip = (f"{v['title']} — {v['publisher']}"
                   + (f" · {stance.lower()}" if stance else " · not evidence itself")
                   + (" · independent origin" if is_origin else ""))
            parts.append(
                f'<g class="node{" origin" if is_origin else ""}"'
                f' data-stance="{escape(stance or "")}"><title>{escape(tip)}</title>'
                f'<rect x="{mx}" y="{my}" width="{box_w}" height="{box_h}" rx="5" '
                f'fill="{fills.get(stance or "", "#fff")}" '
                f'stroke="{_STANCE_COLOURS.get(stance or "", "#9aa0a6")}" '
                f'stroke-width="{3 if is_origin else 1.4}"/>'
                f'<text x="{mx + 7}" y="{my + 16}" class="nl">'
                f'{escape(cut(v["publisher"] or v["title"], 24))}</text>'
                f'<text x="{mx + 7}" y="{my + 31}" class="ns">'
                f'{escape(cut(v["title"], 29) if v["publisher"] else "")}</text></g>'
            )
        if more:
            parts.append(f'<text x="{bx}" y="{height - 6}" class="ns">+{more} more '
                         "document(s) of this origin</text>")
    parts.append("</svg>")
    return {
        "svg": Markup("".join(parts)),
        "n_docs": len(docs),
        "n_origins": len(groups),
        "n_copies": kinds.get("syndication", 0),
        "n_rewrites": kinds.get("derivation", 0),
        "n_quotes": kinds.get("quote", 0) + kinds.get("citation", 0),
        "hidden": [docs[o] for o in hidden],
    }


def _claim_view(
    verdict: Mapping[str, Any],
    judgments: Sequence[Mapping[str, Any]],
    lineage: Mapping[str, Any] | None,
    documents: Mapping[str, Mapping[str, Any]],
) -> dict[str, Any]:
    """Everything a claim page shows, as plain values."""
    lineage = lineage or {}
    docs_meta: ChainMap[str, Mapping[str, Any]] = ChainMap({}, dict(documents) if not
                                                          isinstance(documents, dict)
                                                          else documents)
    for d in lineage.get("documents") or []:
        if isinstance(d, Mapping) and d.get("doc_id"):
            docs_meta.setdefault(str(d["doc_id"]), d)
    origin_of: dict[str, str] = {}
    for d in lineage.get("documents") or []:
        if isinstance(d, Mapping) and d.get("doc_id") and d.get("origin_doc_id"):
            origin_of[str(d["doc_id"])] = str(d["origin_doc_id"])
    admitted, neutral, rejected = [], [], []
    stances: dict[str, str] = {}
    for j in judgments:
        if not isinstance(j, Mapping):
            continue
        doc_id = str(j.get("doc_id") or "")
        meta = {**(docs_meta.get(doc_id) or {}), **{k: j[k] for k in ("url", "title", "host")
                                                     if j.get(k)}}
        if doc_id:
            docs_meta.setdefault(doc_id, meta)
        if doc_id and j.get("origin_doc_id"):
            origin_of.setdefault(doc_id, str(j["origin_doc_id"]))
        src = _doc_view(doc_id, meta)
        stance = str(j.get("stance") or "")
        quote = cut(redact_credentials(str(j.get("quote") or "")), MAX_QUOTE_CHARS)
        if j.get("is_admitted") and stance in COUNTED_STANCES:
            start, end = j.get("span_start"), j.get("span_end")
            before, span, after = quote_in_context(
                j.get("text"),
                int(start) if isinstance(start, int | float) and start == start else None,
                int(end) if isinstance(end, int | float) and end == end else None,
                quote=j.get("quote"),
            )
            origin = origin_of.get(doc_id) or doc_id
            admitted.append({
                "doc_id": doc_id, "stance": stance, "anchor": j.get("anchor") or "",
                "relevance": _fmt_conf(j.get("relevance")),
                "before": redact_credentials(before), "span": redact_credentials(span),
                "after": redact_credentials(after), "src": src,
                "origin": _doc_view(origin, docs_meta.get(origin)) if origin != doc_id else None,
            })
            stances[doc_id] = stance
        elif j.get("is_admitted"):
            neutral.append({"quote": quote, "src": src,
                            "reason": "located in the source, but judged neutral: it does not "
                                      "take a side on the claim"})
        elif j.get("quote") or j.get("reject_reason"):
            reason = str(j.get("reject_reason") or "rejected").replace("_", " ")
            rejected.append({"quote": quote, "src": src, "reason": reason})
    order = {"REFUTES": 0, "SUPPORTS": 1, "PARTIAL": 2}
    admitted.sort(key=lambda q: order.get(str(q["stance"]), 3))
    # lineage graph: evidence documents, their origins, and the lineage documents given
    graph_ids: dict[str, None] = {}
    for d in stances:
        graph_ids[d] = None
        graph_ids[origin_of.get(d, d)] = None
    for d in lineage.get("documents") or []:
        if isinstance(d, Mapping) and d.get("doc_id"):
            graph_ids[str(d["doc_id"])] = None
    graph = None
    if graph_ids:
        views = {d: _doc_view(d, docs_meta.get(d)) for d in graph_ids}
        graph = _lineage_graph(views, list(lineage.get("edges") or []), stances,
                               {d: origin_of.get(d, d) for d in graph_ids})
    publishers = sorted({a["src"]["publisher"] for a in admitted if a["src"]["publisher"]})
    return {
        "claim_id": str(verdict.get("claim_id") or ""),
        "page": claim_page_path(verdict.get("claim_id")),
        "claim_text": cut(redact_credentials(str(verdict.get("claim_text") or "")),
                          MAX_CLAIM_CHARS),
        "status": str(verdict.get("status") or "UNKNOWN"),
        "confidence": _fmt_conf(verdict.get("confidence")),
        "confidence_sort": _float(verdict.get("confidence")) or 0.0,
        "supporting_origins": _int(verdict.get("supporting_origins")),
        "refuting_origins": _int(verdict.get("refuting_origins")),
        "supporting_publishers": _int(verdict.get("supporting_publishers")),
        "refuting_publishers": _int(verdict.get("refuting_publishers")),
        "publishers": publishers,
        "sources_total": _int(verdict.get("sources_total")),
        "judge": verdict.get("judge") or "",
        "mode": verdict.get("mode") or "",
        "decided_at": (_iso(verdict.get("decided_at")) or "")[:19].replace("T", " "),
        "expires_at": (_iso(verdict.get("expires_at")) or "")[:10],
        "degraded": _degraded_list(verdict.get("degraded")),
        "explanation": cut(redact_credentials(str(verdict.get("explanation") or "")),
                           MAX_QUOTE_CHARS),
        "decided_by": cut(redact_credentials(str(verdict.get("decided_by") or "")),
                          MAX_QUOTE_CHARS),
        "queries_tried": [cut(redact_credentials(str(q)), 200)
                          for q in _as_list(verdict.get("queries_tried"))],
        "admitted": admitted,
        "neutral": neutral,
        "rejected": rejected,
        "graph": graph,
    }


# ------------------------------------------------------------------------------ templates
_CSS = """
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;
  color:#202124;background:#f6f7f9}
main{max-width:1100px;margin:0 auto;padding:20px 24px}
h1{font-size:24px;margin:0 0 4px} h2{font-size:18px;margin:0 0 8px}
h3{font-size:15px;margin:14px 0 6px}
a{color:#1a56c4}
.meta{color:#5f6368;font-size:13px}
.card{background:#fff;border:1px solid #dadce0;border-radius:8px;padding:14px 18px;margin:14px 0}
.badge{display:inline-block;border-radius:4px;padding:0 7px;color:#fff;font-size:12px;
  font-weight:600;letter-spacing:.03em;white-space:nowrap}
.summary{display:flex;flex-wrap:wrap;gap:10px}
.summary div{border-radius:6px;padding:6px 14px;color:#fff;min-width:100px}
.summary b{display:block;font-size:22px}
nav.sections a{margin-right:14px}
table.kv{border-collapse:collapse;font-size:13px}
table.kv td{padding:2px 12px 2px 0;vertical-align:top}
table.kv td:first-child{color:#5f6368;white-space:nowrap}
table.claims{border-collapse:collapse;width:100%;font-size:13px;background:#fff;table-layout:fixed}
table.claims th{position:sticky;top:0;background:#eef0f3;text-align:left;padding:6px;
  cursor:pointer;user-select:none;border-bottom:1px solid #dadce0}
table.claims th[aria-sort=ascending]::after{content:" \\25B2"}
table.claims th[aria-sort=descending]::after{content:" \\25BC"}
table.claims td{padding:5px 6px;border-bottom:1px solid #eceff1;vertical-align:top;
  overflow-wrap:anywhere}
table.claims col.st{width:120px} table.claims col.cf{width:60px} table.claims col.og{width:80px}
table.claims col.pb{width:210px}
.quote{border-left:3px solid #dadce0;margin:10px 0;padding:4px 12px}
.quote p{margin:4px 0}
mark{background:#fff3a3;padding:0 1px}
.src{font-size:13px;color:#5f6368;overflow-wrap:anywhere}
details{margin-top:8px} summary{cursor:pointer;color:#1a56c4}
.muted{color:#5f6368}
ul.notes{margin:4px 0;padding-left:20px}
svg.lineage{max-width:100%;height:auto;background:#fafbfc;border:1px solid #eceff1;
  border-radius:6px}
svg .nl{font:600 12px system-ui,sans-serif;fill:#202124}
svg .ns{font:11px system-ui,sans-serif;fill:#5f6368}
svg .oh{font:600 11px system-ui,sans-serif;fill:#5f6368;text-transform:uppercase}
svg .ew{font:italic 10px system-ui,sans-serif;fill:#5f6368}
.legend span{margin-right:14px;font-size:12px;color:#5f6368}
#filter{padding:4px 8px;font-size:14px;width:260px}
.pager{margin:6px 0 10px;display:flex;gap:10px;align-items:center;flex-wrap:wrap}
.pager button{font-size:13px;padding:3px 10px}
"""

_MACROS = r"""
{%- macro link(href, label) -%}
{%- if href %}<a href="{{ href }}" rel="nofollow noopener">{{ label }}</a>
{%- else %}{{ label }}{% endif -%}
{%- endmacro -%}
{%- macro badge(colour, text) -%}
<span class="badge" style="background:{{ colour }}">{{ text }}</span>
{%- endmacro -%}
{%- macro source(s) -%}
{{ link(s.href, s.title) }}{% if s.publisher %} — {{ s.publisher }}{% endif %}
{%- if s.published %} · {{ s.published }}{% endif %}
{%- endmacro -%}
"""

_INDEX = _MACROS + r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>affidavit report{% if run.run_id %} — {{ run.run_id }}{% endif %}</title>
<style>{{ css }}</style>
</head>
<body>
<main>
<h1>Fact-check report</h1>
<div class="meta">
{%- if run.run_id %}run {{ run.run_id }}{% endif %}
{%- if run.flow %} · {{ run.flow }}{% endif %}
{%- if run.started_at %} · started {{ run.started_at }}{% endif %}
{%- if run.finished_at %} · finished {{ run.finished_at }}{% endif %}
{%- if run.status %} · {{ run.status }}{% endif %}</div>
<nav class="sections card" aria-label="sections">
{%- for s in nav %}<a href="#{{ s.id }}">{{ s.title }}</a>{% endfor %}</nav>

<section class="card" id="summary">
<h2>Summary: {{ n_claims|plural("claim") }}</h2>
<div class="summary">
{% for status, n in counts.items() -%}
<div style="background:{{ status_colour(status) }}" data-status="{{ status }}">
<b>{{ n }}</b>{{ status }}</div>
{% endfor %}</div>
{% if run.message %}<p>{{ run.message }}</p>{% endif %}
</section>

<section class="card" id="run">
<h2>How this run was made</h2>
{% if capabilities %}<ul class="notes">{% for s in capabilities %}<li>{{ s }}</li>{% endfor %}
</ul>{% endif %}
{% if degraded %}<p><strong>Degraded:</strong> this run worked without some capabilities.</p>
<ul class="notes">{% for d in degraded %}<li>{{ d }}</li>{% endfor %}</ul>
{% else %}<p>Nothing was degraded: every capability asked for was available.</p>{% endif %}
{% for s in counts_words %}<p class="meta">{{ s }}</p>{% endfor %}
{% if parameters %}<p class="meta">Parameters: {{ parameters }}</p>{% endif %}
</section>

{% for sec in sections %}
<section class="card extra" id="{{ sec.section_id }}">
<h2>{{ sec.title }}</h2>
{% for p in sec.paragraphs %}<p>{{ p }}</p>{% endfor %}
{% if sec.table %}<table class="kv"><tr>{% for cell in sec.table[0] %}<th>{{ cell }}</th>
{%- endfor %}</tr>
{% for row in sec.table[1:] %}<tr>{% for cell in row %}<td>{{ cell }}</td>{% endfor %}</tr>
{% endfor %}</table>{% endif %}
</section>
{% endfor %}

<section id="claims">
<h2>Claims</h2>
<p class="meta">Click a column heading to sort. Origins are independent origins (copies of
one story count once); publishers are the hosts of the admitted evidence.</p>
<div class="pager"><input id="filter" type="search" placeholder="filter claims…"
aria-label="filter claims"> <button id="prev" type="button">‹ previous</button>
<span id="page-info">claims 1–{{ [n_claims, page_rows]|min }} of {{ n_claims }}</span>
<button id="next" type="button">next ›</button></div>
<noscript><style>#claims-table tr[hidden]{display:table-row!important}</style></noscript>
<table class="claims" id="claims-table" data-page-rows="{{ page_rows }}">
<colgroup><col class="st"><col class="cf"><col><col class="og"><col class="og"><col class="pb">
</colgroup>
<thead><tr><th data-type="num" scope="col">status</th><th data-type="num" scope="col">conf.</th>
<th data-type="text" scope="col">claim</th><th data-type="num" scope="col">origins +</th>
<th data-type="num" scope="col">origins −</th><th data-type="text" scope="col">publishers</th>
</tr></thead>
<tbody>
{% for c in claims -%}
<tr data-status="{{ c.status }}"{% if loop.index > page_rows %} hidden{% endif %}>
<td data-v="{{ status_rank(c.status) }}">
{{- badge(status_colour(c.status), c.status) }}</td><td>{{ c.confidence }}</td>
<td><a href="{{ c.page }}">{{ c.claim_text }}</a></td><td>{{ c.supporting_origins }}</td>
<td>{{ c.refuting_origins }}</td><td>{{ c.publishers_text }}</td></tr>
{% endfor -%}
</tbody>
<tbody id="claims-out" hidden></tbody></table>
</section>
<p class="meta">Generated by affidavit. Quotes are located mechanically in the stored source text;
independent origins count syndicated copies of one story once.</p>
</main>
<script>
(function(){
  "use strict";
  var table=document.getElementById("claims-table");
  if(!table){return;}
  var body=table.tBodies[0], out=document.getElementById("claims-out");
  var heads=table.tHead.rows[0].cells;
  var info=document.getElementById("page-info"), prev=document.getElementById("prev");
  var next=document.getElementById("next"), filter=document.getElementById("filter");
  var size=parseInt(table.getAttribute("data-page-rows"),10)||250;
  var all=Array.prototype.slice.call(body.rows), page=0, query="", shown=all.length;
  function key(row,i,num){var c=row.cells[i];var v=c.getAttribute("data-v");
    if(v===null){v=c.textContent.trim();}
    if(num){var f=parseFloat(v);return isNaN(f)?-1:f;}return v.toLowerCase();}
  function place(){
    table.removeChild(body);
    var keep=document.createDocumentFragment(), drop=document.createDocumentFragment();
    shown=0;
    all.forEach(function(r){
      if(!query||r.textContent.toLowerCase().indexOf(query)>=0){keep.appendChild(r);shown++;}
      else{drop.appendChild(r);}
    });
    body.appendChild(keep);out.appendChild(drop);
    paint();
    table.insertBefore(body,out);
  }
  function paint(){
    var pages=Math.max(1,Math.ceil(shown/size));
    page=Math.min(Math.max(page,0),pages-1);
    var s=page*size, e=s+size, rows=body.rows;
    for(var i=0;i<rows.length;i++){var h=i<s||i>=e;if(rows[i].hidden!==h){rows[i].hidden=h;}}
    info.textContent=shown?("claims "+(s+1)+"\u2013"+Math.min(e,shown)+" of "+shown+
      (query?" matching":"")):"no claim matches";
    prev.disabled=page===0;next.disabled=page>=pages-1;
  }
  Array.prototype.forEach.call(heads,function(th,i){
    th.addEventListener("click",function(){
      var num=th.getAttribute("data-type")==="num";
      var dir=th.getAttribute("aria-sort")==="ascending"?-1:1;
      Array.prototype.forEach.call(heads,function(h){h.removeAttribute("aria-sort");});
      th.setAttribute("aria-sort",dir===1?"ascending":"descending");
      var keyed=all.map(function(r,n){return [key(r,i,num),n,r];});
      keyed.sort(function(a,b){return a[0]<b[0]?-dir:a[0]>b[0]?dir:a[1]-b[1];});
      all=keyed.map(function(k){return k[2];});
      page=0;place();
    });
  });
  prev.addEventListener("click",function(){page--;paint();});
  next.addEventListener("click",function(){page++;paint();});
  filter.addEventListener("input",function(){
    query=filter.value.trim().toLowerCase();page=0;place();});
  paint();
})();
</script>
</body>
</html>
"""

_CLAIM = _MACROS + r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ c.status }} — {{ c.claim_text|cut(80) }}</title>
<style>{{ css }}</style>
{% if ld %}<script type="application/ld+json">{{ ld }}</script>{% endif %}
</head>
<body>
<main>
<p class="meta"><a href="../report.html">← all claims</a>
{%- if run_id %} · run {{ run_id }}{% endif %}</p>
<section class="card claim" id="claim-{{ c.claim_id }}">
<h1>{{ badge(status_colour(c.status), c.status) }} {{ c.claim_text }}</h1>
<table class="kv">
<tr><td>confidence</td><td>{{ c.confidence }}</td></tr>
<tr><td>independent origins</td><td>{{ c.supporting_origins }} supporting
({{ c.supporting_publishers|plural("publisher") }}) · {{ c.refuting_origins }} refuting
({{ c.refuting_publishers|plural("publisher") }})</td></tr>
<tr><td>evidence</td><td>{{ c.sources_total|plural("document") }} judged ·
{{ c.admitted|length }} admitted · {{ c.neutral|length }} neutral ·
{{ c.rejected|length }} rejected</td></tr>
{% if c.judge or c.mode %}<tr><td>judge · mode</td><td>{{ c.judge }} · {{ c.mode }}</td></tr>
{%- endif %}
{% if c.decided_at %}<tr><td>decided</td><td>{{ c.decided_at }}
{%- if c.expires_at %} · re-check after {{ c.expires_at }}{% endif %}</td></tr>{% endif %}
</table>
{% if c.explanation %}<p>{{ c.explanation }}</p>{% endif %}
{% if c.decided_by %}<p class="muted">Decided by: {{ c.decided_by }}</p>{% endif %}
{% if c.degraded %}<p class="muted"><strong>Degraded:</strong> {{ c.degraded|join("; ") }}.</p>
{%- endif %}
</section>

{% if c.graph %}
<section class="card" id="lineage">
<h2>Lineage of the evidence</h2>
<p>{{ c.graph.n_docs|plural("document") }} from
<strong>{{ c.graph.n_origins|plural("independent origin") }}</strong>
{%- if c.graph.n_copies or c.graph.n_rewrites or c.graph.n_quotes %}:
{{ c.graph.n_copies|plural("copy", "copies") }}, {{ c.graph.n_rewrites|plural("rewrite") }},
{{ c.graph.n_quotes|plural("quotation") }} link them{% endif %}.</p>
<p class="legend"><span>thick border: independent origin</span>
<span>── copy (syndication)</span><span style="color:#1a56c4">- - rewrite (derivation)</span>
<span style="color:#8430ce">··· quotes it</span><span style="color:#1b7f3b">■ supports</span>
<span style="color:#5d7f12">■ partly supports</span><span style="color:#b3261e">■ refutes</span>
<span>□ white: not evidence itself</span></p>
{{ c.graph.svg }}
{% if c.graph.hidden %}<p class="meta">Not drawn: {{ c.graph.hidden|length|plural("more origin") }}:
{% for h in c.graph.hidden %}{{ source(h) }}{% if not loop.last %}; {% endif %}{% endfor %}</p>
{%- endif %}
</section>
{% endif %}

<section class="card" id="admitted">
<h2>Admitted evidence ({{ c.admitted|length }})</h2>
{% for q in c.admitted %}
{% if loop.index == 7 %}<details><summary>{{ (c.admitted|length - 6)|plural("more quote") }}
</summary>{% endif %}
<div class="quote" data-doc-id="{{ q.doc_id }}" data-stance="{{ q.stance }}">
{{ badge(stance_colour(q.stance), q.stance) }}
{% if q.anchor %}<span class="muted"> quote located: {{ q.anchor|lower }} match</span>{% endif %}
{% if q.relevance %}<span class="muted"> · relevance {{ q.relevance }}</span>{% endif %}
<p>{{ q.before }}<mark>{{ q.span }}</mark>{{ q.after }}</p>
<div class="src">{{ source(q.src) }}
{%- if q.origin %}<br>copied or derived from the origin: {{ source(q.origin) }}{% endif %}</div>
</div>
{% if loop.last and loop.length > 6 %}</details>{% endif %}
{% else %}
<p class="muted">No admitted evidence: no quote that takes a side on the claim was located in a
stored source.</p>
{% endfor %}
</section>

{% if c.neutral or c.rejected %}
<section class="card" id="not-counted">
<h2>Evidence that did not count</h2>
{% if c.rejected %}
<details><summary>{{ c.rejected|length|plural("rejected quote") }}</summary>
<ul class="notes">
{% for r in c.rejected %}<li><span class="muted">{{ r.reason }}</span> — “{{ r.quote }}”
<span class="src">({{ source(r.src) }})</span></li>
{% endfor %}</ul>
</details>
{% endif %}
{% if c.neutral %}
<details><summary>{{ c.neutral|length|plural("neutral quote") }}</summary>
<ul class="notes">
{% for r in c.neutral %}<li><span class="muted">{{ r.reason }}</span> — “{{ r.quote }}”
<span class="src">({{ source(r.src) }})</span></li>
{% endfor %}</ul>
</details>
{% endif %}
</section>
{% endif %}

{% if c.queries_tried %}
<section class="card" id="queries">
<details><summary>{{ c.queries_tried|length|plural("query", "queries") }} tried</summary>
<ul class="notes">{% for q in c.queries_tried %}<li>{{ q }}</li>{% endfor %}</ul>
</details>
</section>
{% endif %}
</main>
</body>
</html>
"""


def _json_for_script(node: Mapping[str, Any]) -> Markup:
    r"""Serialise JSON for an inline ``<script>`` element.

    ``<``, ``>`` and ``&`` are written as JSON unicode escapes, so no text can close it.

    >>> str(_json_for_script({"a": "</script>"}))
    '{"a": "\\u003c/script\\u003e"}'
    """
    text = json.dumps(node, ensure_ascii=False, default=str)
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def _finalize(value: Any) -> Any:
    """Clean every printed value: credentials out of URLs, controls and bidi overrides out.

    Texts lose the credentials of any URL in them and their terminal escapes, control
    characters and bidirectional overrides (``affidavit.tasks.sanitize.page_text``).
    """
    if isinstance(value, Markup):
        return value
    if isinstance(value, str):
        return redact_credentials(page_text(value))
    if value is None:
        return ""
    return value


_ENV = jinja2.Environment(
    autoescape=True,
    undefined=jinja2.ChainableUndefined,
    finalize=_finalize,
)
_ENV.filters["plural"] = lambda n, one, many=None: (
    f"{n} {one if n == 1 else (many or one + 's')}"
)
_ENV.filters["cut"] = cut
_ENV.globals["status_colour"] = lambda s: _STATUS_COLOURS.get(str(s), "#3c4043")
_ENV.globals["stance_colour"] = lambda s: _STANCE_COLOURS.get(str(s), "#3c4043")
_ENV.globals["status_rank"] = lambda s: (
    STATUS_ORDER.index(str(s)) if str(s) in STATUS_ORDER else len(STATUS_ORDER)
)
_INDEX_T = _ENV.from_string(_INDEX)
_CLAIM_T = _ENV.from_string(_CLAIM)


def render_report(
    run: Mapping[str, Any],
    verdicts: Sequence[Mapping[str, Any]],
    evidence: Mapping[str, Sequence[Mapping[str, Any]]],
    lineage: Mapping[str, Mapping[str, Any]],
    *,
    documents: Mapping[str, Mapping[str, Any]] | None = None,
    sections: Sequence[ReportSection] = (),
    claimreviews: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, str]:
    """Render the HTML report of one run as a set of pages.

    Args:
        run: A ``runs`` row (``run_id``, ``flow``, ``started_at``, ``finished_at``, ``status``,
            ``parameters``/``capabilities``/``counts`` as dicts or JSON strings, ``degraded``,
            ``message``); any key may be missing.
        verdicts: ``verdicts`` rows, one per claim, listed in the given order.
        evidence: claim_id → judgment rows (admitted or not) plus the document's ``url``,
            ``title``, ``host``, ``origin_doc_id`` and, for admitted ones, ``text``. Admitted
            SUPPORTS/PARTIAL/REFUTES rows are shown with ``text[span_start:span_end]``
            highlighted in context; admitted NEUTRAL rows and rejected rows are folded away
            with their reason.
        lineage: claim_id → ``{"documents": [{doc_id, url, title, host, origin_doc_id}],
            "edges": [{parent_doc_id, child_doc_id, kind, jaccard}]}``.
        documents: doc_id → ``{url, title, host, published_at}`` for documents named on the
            pages (origins of the evidence); optional.
        sections: Extra sections of the index page, listed in its section list.
        claimreviews: claim_id → ClaimReview node, embedded in the claim's page as
            ``<script type="application/ld+json">`` (how search engines read ClaimReview: on
            the page its ``url`` names).

    Returns:
        Relative path → HTML text: ``report.html`` and one ``claims/<claim_id>.html`` per
        verdict.
    """
    run = dict(run or {})
    documents = documents or {}

    def short(key: str) -> str:
        v = run.get(key)
        return (_iso(v) or "")[:19].replace("T", " ") if isinstance(v, datetime) else (
            redact_credentials(str(v)) if v not in (None, "") else "")

    run_view = {k: short(k) for k in ("run_id", "flow", "started_at", "finished_at", "status",
                                      "message")}
    params = _as_mapping(run.get("parameters"))
    param_words = "; ".join(f"{k} {cut(_words(_local_names(v)), 200)}"
                            for k, v in params.items() if v not in (None, "", [], {}, 0))
    pages: dict[str, str] = {}
    rows = []
    for v in verdicts:
        cid = str(v.get("claim_id"))
        view = _claim_view(v, list(evidence.get(cid, []) or []), lineage.get(cid), documents)
        pubs = view["publishers"]
        view["publishers_text"] = ", ".join(pubs[:3]) + (f" +{len(pubs) - 3}" if len(pubs) > 3
                                                         else "")
        node = (claimreviews or {}).get(cid)
        pages[view["page"]] = _CLAIM_T.render(c=view, css=Markup(_CSS),
                                              run_id=run_view["run_id"],
                                              ld=_json_for_script(node) if node else None)
        rows.append({k: view[k] for k in ("status", "confidence", "page", "claim_text",
                                          "supporting_origins", "refuting_origins",
                                          "publishers_text")})
    nav = [{"id": "summary", "title": "Summary"}, {"id": "run", "title": "How this run was made"}]
    nav += [{"id": s.section_id, "title": s.title} for s in sections]
    nav.append({"id": "claims", "title": f"Claims ({len(verdicts)})"})
    pages["report.html"] = _INDEX_T.render(
        run=run_view,
        css=Markup(_CSS),
        nav=nav,
        sections=list(sections),
        capabilities=capabilities_in_words(run.get("capabilities")),
        degraded=_degraded_list(run.get("degraded")),
        counts_words=_counts_in_words(run.get("counts")),
        parameters=param_words,
        counts=render_summary_counts(verdicts),
        n_claims=len(verdicts),
        claims=rows,
        page_rows=INDEX_PAGE_ROWS,
    )
    return pages


# ---------------------------------------------------------------------------------------------
# Answer audits: a page of their own (self-contained, like the verdict report).

_AUDIT_COLOURS = {"SUPPORTED": "#1b7f3b", "OVERSTATED": "#b26b00", "UNSUPPORTED": "#5f6368",
                  "CONTRADICTED": "#b3261e"}
_AUDIT_TEMPLATE = r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>affidavit audits{% if run.run_id %} — {{ run.run_id }}{% endif %}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#202124;background:#f6f7f9}
main{max-width:1000px;margin:0 auto;padding:24px} h1{font-size:24px;margin:0 0 4px}
.meta,.muted{color:#5f6368;font-size:13px}
.card{background:#fff;border:1px solid #dadce0;border-radius:8px;padding:12px 18px;margin:12px 0}
.badge{display:inline-block;border-radius:4px;padding:1px 8px;color:#fff;font-size:12px;
  font-weight:600}
table{border-collapse:collapse;font-size:13px;width:100%}
td,th{padding:3px 8px 3px 0;vertical-align:top;text-align:left}
q{font-family:ui-monospace,monospace;font-size:12px;background:#fff3a3}
</style></head><body><main>
<h1>Audits</h1>
<p class="meta">run {{ run.run_id }} · {{ audits|length }} audits{% if run.degraded %}
 · degraded: {{ run.degraded|join("; ") }}{% endif %}</p>
<section id="audits">
{%- for a in audits %}
<div class="card"><b>{{ a.record_id }}</b> <span class="muted">{{ a.auditor }} ·
 {{ a.n_claims }} claims: {{ a.n_supported }} supported, {{ a.n_overstated }} overstated,
 {{ a.n_unsupported }} unsupported, {{ a.n_contradicted }} contradicted
 {%- if a.n_unlabelled %}, {{ a.n_unlabelled }} unlabelled{% endif %}
 {%- if a.scanner_flags %} · flags: {{ a.scanner_flags|join(", ") }}{% endif %}
 {%- if a.degraded %} · {{ a.degraded }}{% endif %}</span>
<table>
{%- for c in claims.get(a.audit_id, []) %}
<tr><td><span class="badge" style="background:{{ colour(c.label) }}">
{{- c.label or "—" }}</span></td>
<td>{{ c.text }}<br><span class="muted">{{ c.reason }}</span>
{%- if c.quote %}<br><q>{{ c.quote }}</q> <span class="muted">{{ c.anchor }}</span>
{%- endif %}</td></tr>
{%- endfor %}
</table></div>
{%- endfor %}
</section></main></body></html>
"""
_AUDIT_ENV = jinja2.Environment(autoescape=True, undefined=jinja2.ChainableUndefined,
                                finalize=_finalize)
_AUDIT_ENV.globals["colour"] = lambda s: _AUDIT_COLOURS.get(str(s), "#3c4043")
_AUDIT_HTML = _AUDIT_ENV.from_string(_AUDIT_TEMPLATE)


def render_audit_report(
    run: Mapping[str, Any],
    audits: Sequence[Mapping[str, Any]],
    claims: Sequence[Mapping[str, Any]],
) -> str:
    """Render the audits of a run as a self-contained HTML page.

    Args:
        run: The run's row (``run_id``, ``degraded`` as a list of strings).
        audits: Rows of ``audits`` (one per audited answer).
        claims: Rows of ``audit_claims`` of those audits.

    Returns:
        The HTML document; every text is escaped.
    """
    by_audit: dict[str, list[Mapping[str, Any]]] = {}
    for c in sorted(claims, key=lambda c: (str(c.get("audit_id")), c.get("claim_index") or 0)):
        by_audit.setdefault(str(c.get("audit_id")), []).append(c)
    return _AUDIT_HTML.render(run=run, audits=list(audits), claims=by_audit)
