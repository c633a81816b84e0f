"""Source checks: source type, credibility signals and publication-date reliability.

Pure functions (no network, no clock); :func:`load_credibility_list` reads only the file it is
given. DESIGN.md, *Source checks*: source type (primary / official / peer-reviewed / news /
aggregator / blog / forum) from host patterns and identifiers (DOI, arXiv, PMID, RFC, SEC
filings); credibility signals; publication-date reliability from JSON-LD, meta tags, the URL and
the first archive capture (a page dated later than its first capture was re-dated).

The host tables below are small, hand-picked examples of each type, not a census: a host that
is in none of them is classified from its patterns (``.gov``, ``blog.``, ``/forum/``) or left
``unknown``. Users add their own judgement with credibility lists (:class:`CredibilityLists`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import lxml.html
from lxml import etree

from affidavit.schemas.enums import SourceType
from affidavit.tasks.urls import host_of

__all__ = [
    "CREDIBILITY_BY_TYPE",
    "PRIMARY_TYPES",
    "CredibilityLists",
    "SourceProfile",
    "WEIGHT_BY_TYPE",
    "classify_source",
    "credibility_weight",
    "date_reliability",
    "extract_dates",
    "extract_identifiers",
    "is_primary",
    "load_credibility_list",
    "parse_date",
]


@dataclass(frozen=True, slots=True)
class CredibilityLists:
    """User-supplied host lists (see :func:`load_credibility_list`).

    Attributes:
        low: Hosts (or ``host/path`` prefixes) of low credibility, e.g. a misinformation list.
        high: Hosts (or prefixes) of high credibility.
    """

    low: frozenset[str] = frozenset()
    high: frozenset[str] = frozenset()

    @classmethod
    def from_files(
        cls, *, low: str | Path | None = None, high: str | Path | None = None
    ) -> CredibilityLists:
        """Load the lists from files (either may be omitted)."""
        return cls(
            low=load_credibility_list(low) if low is not None else frozenset(),
            high=load_credibility_list(high) if high is not None else frozenset(),
        )


@dataclass(frozen=True, slots=True)
class SourceProfile:
    """What the source checks found about one document.

    Attributes:
        url: The URL as given.
        host: Normalised host (lowercase, no ``www.``), or ``None``.
        source_type: primary, official, peer-reviewed, news, aggregator, blog, forum or unknown.
        credibility: 0..1, see :data:`CREDIBILITY_BY_TYPE` and :func:`classify_source`.
        signals: Names of the signals that set the type and credibility, sorted, e.g.
            ``("has_author", "host:news", "listed_low")``.
        identifiers: Normalised identifiers of the page itself, e.g. ``"doi:10.1038/171737a0"``,
            ``"arxiv:2101.00001"``, ``"pmid:123"``, ``"rfc:9110"``, ``"sec:0000320193-21-000010"``.
        published_at: Publication time (UTC) from the most trusted date source, or ``None``.
        date_source: Which source gave ``published_at`` (a key of :func:`extract_dates`).
        date_reliability: ``"reliable"``, ``"redated"``, ``"conflicting"`` or ``"unknown"``.
        first_seen: First archive capture (UTC), when known.
    """

    url: str | None
    host: str | None
    source_type: SourceType
    credibility: float
    signals: tuple[str, ...]
    identifiers: tuple[str, ...]
    published_at: datetime | None
    date_source: str | None
    date_reliability: str
    first_seen: datetime | None


# --------------------------------------------------------------------------------------------
# Host tables
# --------------------------------------------------------------------------------------------

_PEER_REVIEWED_HOSTS = frozenset(
    """doi.org dx.doi.org nature.com science.org sciencemag.org sciencedirect.com
    link.springer.com springer.com onlinelibrary.wiley.com wiley.com thelancet.com nejm.org
    bmj.com jamanetwork.com cell.com journals.plos.org plos.org pnas.org academic.oup.com
    tandfonline.com journals.sagepub.com sagepub.com frontiersin.org mdpi.com
    ieeexplore.ieee.org dl.acm.org pubmed.ncbi.nlm.nih.gov ncbi.nlm.nih.gov
    annualreviews.org jstor.org cambridge.org agupubs.onlinelibrary.wiley.com
    journals.aps.org iopscience.iop.org pubs.acs.org royalsocietypublishing.org
    elifesciences.org biomedcentral.com""".split()
)
# Preprint servers and standards/filing repositories publish primary documents.
_PRIMARY_HOSTS = frozenset(
    """arxiv.org biorxiv.org medrxiv.org ssrn.com papers.ssrn.com osf.io zenodo.org
    rfc-editor.org datatracker.ietf.org ietf.org w3.org iso.org prnewswire.com
    businesswire.com globenewswire.com accesswire.com newswire.ca courtlistener.com
    supremecourt.gov uscourts.gov clinicaltrials.gov data.gov data.europa.eu
    data.worldbank.org github.com""".split()
)
_OFFICIAL_HOSTS = frozenset(
    """who.int un.org europa.eu ec.europa.eu europarl.europa.eu oecd.org imf.org worldbank.org
    canada.ca gov.uk nhs.uk bankofengland.co.uk ecb.europa.eu federalreserve.gov
    bundesregierung.de elysee.fr whitehouse.gov nasa.gov noaa.gov cdc.gov nih.gov
    ipcc.ch unesco.org unicef.org wto.org nato.int iaea.org""".split()
)
_NEWS_HOSTS = frozenset(
    """reuters.com apnews.com bbc.co.uk bbc.com nytimes.com washingtonpost.com theguardian.com
    guardian.co.uk cnn.com nbcnews.com cbsnews.com abcnews.go.com foxnews.com npr.org
    wsj.com ft.com bloomberg.com economist.com latimes.com usatoday.com politico.com
    axios.com thehill.com aljazeera.com dw.com france24.com lemonde.fr spiegel.de
    elpais.com lanacion.com.ar livemint.com theatlantic.com newyorker.com time.com
    newsweek.com independent.co.uk telegraph.co.uk thetimes.co.uk cbc.ca abc.net.au
    smh.com.au irishtimes.com hindustantimes.com timesofindia.indiatimes.com
    scmp.com japantimes.co.jp afp.com aktuality.sk macworld.com theverge.com
    arstechnica.com wired.com techcrunch.com businessinsider.com cnbc.com forbes.com
    vox.com slate.com huffpost.com nypost.com dailymail.co.uk mirror.co.uk thesun.co.uk
    snopes.com politifact.com factcheck.org fullfact.org checkyourfact.com""".split()
)
_AGGREGATOR_HOSTS = frozenset(
    """news.google.com google.com news.yahoo.com yahoo.com msn.com flipboard.com feedly.com
    drudgereport.com allsides.com ground.news newsnow.co.uk apple.news smartnews.com
    wikipedia.org wikiwand.com britannica.com inoreader.com pocket.co getpocket.com
    muckrack.com newsbreak.com""".split()
)
_BLOG_HOSTS = frozenset(
    """medium.com substack.com wordpress.com blogspot.com blogger.com tumblr.com ghost.io
    hashnode.dev dev.to wixsite.com weebly.com livejournal.com typepad.com
    daringfireball.net""".split()
)
_FORUM_HOSTS = frozenset(
    """reddit.com quora.com stackexchange.com stackoverflow.com news.ycombinator.com 4chan.org
    4channel.org twitter.com x.com facebook.com instagram.com tiktok.com youtube.com
    t.me telegram.org threads.net mastodon.social bsky.app discord.com
    answers.yahoo.com disqus.com""".split()
)
_SATIRE_HOSTS = frozenset(
    """theonion.com babylonbee.com clickhole.com thebeaverton.com newsthump.com
    thedailymash.co.uk waterfordwhispersnews.com scoopertino.com duffelblog.com
    empirenews.net""".split()
)

CREDIBILITY_BY_TYPE: dict[SourceType, float] = {
    SourceType.PEER_REVIEWED: 0.85,
    SourceType.OFFICIAL: 0.8,
    SourceType.PRIMARY: 0.75,
    SourceType.NEWS: 0.65,
    SourceType.AGGREGATOR: 0.45,
    SourceType.UNKNOWN: 0.45,
    SourceType.BLOG: 0.35,
    SourceType.FORUM: 0.25,
}
"""Base credibility (0..1) of each source type before the signals of :func:`classify_source`.
A design choice of the project, ordered after the evidence hierarchy fact-checkers use
(peer-reviewed and official records over reporting over commentary); not measured."""

WEIGHT_BY_TYPE: dict[SourceType, float] = {
    SourceType.PEER_REVIEWED: 1.0,
    SourceType.OFFICIAL: 1.0,
    SourceType.PRIMARY: 0.95,
    SourceType.NEWS: 0.85,
    SourceType.UNKNOWN: 0.8,
    SourceType.AGGREGATOR: 0.7,
    SourceType.BLOG: 0.6,
    SourceType.FORUM: 0.5,
}
"""Credibility weight for the tribunal's confidence (:func:`credibility_weight`). ``unknown`` is
0.8, the tribunal's ``DEFAULT_CREDIBILITY`` for a source with no signal either way; the others
are set around it by the same ordering as :data:`CREDIBILITY_BY_TYPE`. Design choice, not
measured."""

WEIGHT_LISTED_LOW = 0.2
"""Weight of a source on the user's low-credibility list (it still counts, a fifth as much)."""
WEIGHT_SATIRE = 0.1
"""Weight of a known satire site."""
WEIGHT_REDATED_FACTOR = 0.9
"""Multiplier for a page whose stated date is later than its first archive capture."""


def _host_matches(host: str, table: frozenset[str]) -> str | None:
    """Return the table entry that ``host`` equals or is a subdomain of, else ``None``."""
    parts = host.split(".")
    for i in range(len(parts) - 1):
        cand = ".".join(parts[i:])
        if cand in table:
            return cand
    return None


def _listed(host: str | None, path: str, entries: frozenset[str]) -> str | None:
    """Return the list entry matching a host (and path prefix, for ``host/path`` entries)."""
    if not host or not entries:
        return None
    parts = host.split(".")
    suffixes = [".".join(parts[i:]) for i in range(len(parts) - 1)]
    for s in suffixes:
        if s in entries:
            return s
    p = path.rstrip("/").lower()
    for entry in entries:
        if "/" in entry:
            eh, ep = entry.split("/", 1)
            if eh in suffixes and (p == "/" + ep or p.startswith("/" + ep + "/")):
                return entry
    return None


# --------------------------------------------------------------------------------------------
# Credibility lists
# --------------------------------------------------------------------------------------------


def _normalise_entry(line: str) -> str | None:
    s = line.split("#", 1)[0] if not line.lstrip().startswith("http") else line
    s = re.sub(r"\s+", "", s).strip().lower()
    if not s or s.startswith(("//", ";")):
        return None
    s = re.sub(r"^[a-z][a-z0-9+.\-]*://", "", s)
    s = s.split("#", 1)[0].split("?", 1)[0].rstrip("/")
    host, _, path = s.partition("/")
    host = host.split("@")[-1].split(":")[0].strip(".")
    if host.startswith("www."):
        host = host[4:]
    if "." not in host or not re.fullmatch(r"[a-z0-9.\-_]+", host):
        return None
    return f"{host}/{path}" if path else host


def load_credibility_list(path: str | Path) -> frozenset[str]:
    """Load a credibility list: one host per line, ``#`` comments and blank lines allowed.

    Entries are normalised: lowercase, scheme and ``www.`` dropped, stray spaces removed
    (``"Silver-Coin-Investor. com"`` → ``silver-coin-investor.com``), trailing ``/``,
    fragments and queries dropped. An entry with a path (``cato.org/blog``) is kept as a
    ``host/path`` prefix and matches only URLs under that path. Lines without a dotted host
    are ignored.

    Args:
        path: A UTF-8 text file (e.g. AVeriTeC's ``misinfo_list.txt``).

    Returns:
        The set of normalised entries.

    Raises:
        FileNotFoundError: When the file does not exist.
    """
    p = Path(path)
    text = p.read_text(encoding="utf-8", errors="replace")
    out = {e for e in (_normalise_entry(line) for line in text.splitlines()) if e}
    return frozenset(out)


# --------------------------------------------------------------------------------------------
# Identifiers
# --------------------------------------------------------------------------------------------

_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s\"'<>&?#]+)", re.IGNORECASE)
_ARXIV_URL = re.compile(
    r"arxiv\.org/(?:abs|pdf|html)/([a-z\-]+(?:\.[A-Z]{2})?/\d{7}|\d{4}\.\d{4,5})", re.I
)
_ARXIV_TEXT = re.compile(r"\barxiv:\s?(\d{4}\.\d{4,5}|[a-z\-]+/\d{7})", re.IGNORECASE)
_PMID_URL = re.compile(
    r"pubmed\.ncbi\.nlm\.nih\.gov/(\d{1,9})|ncbi\.nlm\.nih\.gov/pubmed/(\d{1,9})", re.I
)
_PMID_TEXT = re.compile(r"\bPMID:?\s*(\d{1,9})\b")
_PMCID = re.compile(r"\b(PMC\d{4,9})\b")
_RFC_URL = re.compile(
    r"(?:rfc-editor\.org/rfc/rfc|ietf\.org/(?:doc/html/|rfc/)rfc|datatracker\.ietf\.org/doc/(?:html/)?rfc)(\d{1,5})",
    re.I,
)
_RFC_TEXT = re.compile(r"\bRFC\s?(\d{3,5})\b")
_SEC_ACCESSION = re.compile(r"\b(\d{10}-\d{2}-\d{6})\b")
_SEC_URL = re.compile(r"sec\.gov/(?:Archives/edgar|cgi-bin/browse-edgar|ix\?doc=/Archives)", re.I)


def _clean_doi(doi: str) -> str:
    d = unquote(doi).rstrip(".,;)]}").lower()
    d = re.sub(r"\.(full|abstract|pdf|html)(\.pdf)?$", "", d)
    if d.startswith("10.1101/"):  # bioRxiv / medRxiv: "v3" is the version, not the DOI
        d = re.sub(r"v\d+$", "", d)
    return d


def extract_identifiers(url: str | None, text: str | None = None) -> tuple[str, ...]:
    """Find scholarly and filing identifiers in a URL (and optionally a text).

    Args:
        url: The page URL.
        text: Text to scan too (e.g. the page's ``citation_*`` meta values). Identifiers found
            only in running article text cite a source; they do not make the page that source,
            so :func:`classify_source` passes only URL and meta values here.

    Returns:
        Sorted unique identifiers: ``doi:``, ``arxiv:``, ``pmid:``, ``pmcid:``, ``rfc:``,
        ``sec:`` (EDGAR accession number) prefixed.

    >>> extract_identifiers("https://doi.org/10.1038/171737A0")
    ('doi:10.1038/171737a0',)
    >>> extract_identifiers("https://www.rfc-editor.org/rfc/rfc9110.html")
    ('rfc:9110',)
    """
    ids: set[str] = set()
    u = url or ""
    for src in (u, text or ""):
        for dm in _DOI.finditer(src):
            ids.add("doi:" + _clean_doi(dm.group(1)))
    m: re.Match[str] | None
    if m := _ARXIV_URL.search(u):
        ids.add("arxiv:" + m.group(1).lower())
    if m := _PMID_URL.search(u):
        ids.add("pmid:" + (m.group(1) or m.group(2)))
    if m := _RFC_URL.search(u):
        ids.add("rfc:" + str(int(m.group(1))))
    if _SEC_URL.search(u):
        digits = re.search(r"/(\d{10})(\d{2})(\d{6})/", u)
        if (m := _SEC_ACCESSION.search(u)) is not None:
            ids.add("sec:" + m.group(1))
        elif digits:
            ids.add(f"sec:{digits.group(1)}-{digits.group(2)}-{digits.group(3)}")
        else:
            ids.add("sec:edgar")
    for m in _PMCID.finditer(u):
        ids.add("pmcid:" + m.group(1).upper())
    if text:
        for m in _ARXIV_TEXT.finditer(text):
            ids.add("arxiv:" + m.group(1).lower())
        for m in _PMID_TEXT.finditer(text):
            ids.add("pmid:" + m.group(1))
        for m in _RFC_TEXT.finditer(text):
            ids.add("rfc:" + str(int(m.group(1))))
    return tuple(sorted(ids))


# --------------------------------------------------------------------------------------------
# Dates
# --------------------------------------------------------------------------------------------

_MONTHS = {
    m: i
    for i, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ],
        1,
    )
    for m in names
}
_ISO = re.compile(
    r"^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?\s*"
    r"(Z|[+-]\d{2}:?\d{2}|UTC|GMT)?)?$",
    re.IGNORECASE,
)
_YMD_SLASH = re.compile(r"^(\d{4})[/.](\d{1,2})[/.](\d{1,2})")
_COMPACT = re.compile(r"^(\d{4})(\d{2})(\d{2})(?:T?(\d{2})(\d{2})(\d{2})?)?Z?$")
_MDY = re.compile(r"^([A-Za-z]{3,9})\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})")
_DMY = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)?\s+([A-Za-z]{3,9})\.?,?\s+(\d{4})")
_MIN_YEAR, _MAX_YEAR = 1800, 2200


def _mk(y: int, mo: int, d: int, h: int = 0, mi: int = 0, s: int = 0) -> datetime | None:
    if not _MIN_YEAR <= y <= _MAX_YEAR:
        return None
    try:
        return datetime(y, mo, d, h, mi, s, tzinfo=UTC)
    except ValueError:
        return None


def parse_date(value: Any) -> datetime | None:
    """Parse a date string as found in pages: ISO 8601, RFC 2822, "March 4, 2021", "4 Mar 2021".

    Naive values are taken as UTC; the result is always UTC. Years outside 1800..2200 and
    impossible dates give ``None``.

    Args:
        value: A string (other types give ``None``, except a ``datetime``, made UTC).

    Returns:
        A timezone-aware UTC datetime, or ``None``.

    >>> parse_date("2021-03-04T10:00:00+02:00")
    datetime.datetime(2021, 3, 4, 8, 0, tzinfo=datetime.timezone.utc)
    >>> parse_date("March 4, 2021")
    datetime.datetime(2021, 3, 4, 0, 0, tzinfo=datetime.timezone.utc)
    """
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if not isinstance(value, str):
        return None
    s = value.strip()
    if not s or len(s) > 64:
        return None
    if m := _ISO.match(s):
        y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
        h = int(m.group(4) or 0)
        mi = int(m.group(5) or 0)
        sec = int(m.group(6) or 0)
        base = _mk(y, mo, d, h, mi, sec)
        if base is None:
            return None
        tz = (m.group(7) or "").upper()
        if tz and tz not in ("Z", "UTC", "GMT"):
            sign = 1 if tz[0] == "+" else -1
            digits = tz[1:].replace(":", "")
            offset = timedelta(hours=int(digits[:2]), minutes=int(digits[2:4]))
            base = base - sign * offset
        return base
    if m := _COMPACT.match(s):
        return _mk(
            int(m.group(1)),
            int(m.group(2)),
            int(m.group(3)),
            int(m.group(4) or 0),
            int(m.group(5) or 0),
            int(m.group(6) or 0),
        )
    if m := _YMD_SLASH.match(s):
        return _mk(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    try:
        dt = parsedate_to_datetime(s)
    except (TypeError, ValueError, IndexError):
        dt = None
    if dt is not None:
        if not _MIN_YEAR <= dt.year <= _MAX_YEAR:
            return None
        return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)
    if m := _MDY.match(s):
        month = _MONTHS.get(m.group(1).lower())
        return _mk(int(m.group(3)), month, int(m.group(2))) if month else None
    if m := _DMY.match(s):
        month = _MONTHS.get(m.group(2).lower())
        return _mk(int(m.group(3)), month, int(m.group(1))) if month else None
    return None


_PUBLISHED_META = frozenset(
    """article:published_time og:published_time og:article:published_time datepublished
    pubdate publishdate publish_date publish-date publication_date date dc.date dc.date.issued
    dc.date.created dcterms.created dcterms.issued dcterms.date citation_publication_date
    citation_date citation_online_date sailthru.date parsely-pub-date article.published
    article_date_original original-publish-date displaydate""".split()
)
_MODIFIED_META = frozenset(
    """article:modified_time og:updated_time og:article:modified_time datemodified
    last-modified lastmod dcterms.modified dc.date.modified article.updated
    parsely-updated""".split()
)
_URL_DATE = (
    re.compile(r"/((?:19|20)\d{2})/(\d{1,2})/(\d{1,2})(?:/|$|[-_])"),
    re.compile(r"/((?:19|20)\d{2})-(\d{2})-(\d{2})(?:/|$|[-_.])"),
    re.compile(r"/((?:19|20)\d{2})(\d{2})(\d{2})(?:/|$|[-_.])"),
)


def _walk_jsonld(node: Any) -> Iterator[Mapping[str, Any]]:
    if isinstance(node, list):
        for n in node:
            yield from _walk_jsonld(n)
    elif isinstance(node, Mapping):
        yield node
        for key in ("@graph", "mainEntity", "mainEntityOfPage", "hasPart", "itemListElement"):
            if key in node:
                yield from _walk_jsonld(node[key])


def _parse_html(html: str) -> Any | None:
    """Parse HTML with lxml; ``None`` for empty or unparsable input (never raises)."""
    if not html or not html.strip():
        return None
    try:
        return lxml.html.fromstring(html.encode("utf-8", "replace"))
    except (etree.ParserError, etree.XMLSyntaxError, ValueError):
        return None


def _jsonld_objects(tree: Any) -> list[Mapping[str, Any]]:
    out: list[Mapping[str, Any]] = []
    for script in tree.xpath('//script[contains(translate(@type, "LDJSON", "ldjson"), "ld+json")]'):
        raw = (script.text or "").strip()
        if not raw:
            continue
        try:
            data = json.loads(raw)
        except json.JSONDecodeError:
            try:  # pages often break JSON-LD with raw newlines or a trailing semicolon
                data = json.loads(re.sub(r"[\r\n\t]+", " ", raw).rstrip(";"), strict=False)
            except json.JSONDecodeError:
                continue
        out.extend(_walk_jsonld(data))
    return out


def extract_dates(html: str | None, url: str | None) -> dict[str, datetime]:
    """Collect the publication and modification dates a page states.

    Sources, each under its own key (only those found are present):

    * ``jsonld_published`` / ``jsonld_modified`` — JSON-LD ``datePublished`` (or
      ``dateCreated``, ``uploadDate``) / ``dateModified``, first found in document order;
    * ``meta_published`` / ``meta_modified`` — ``<meta>`` tags by ``property``, ``name`` or
      ``itemprop`` (``article:published_time``, ``og:updated_time``, ``dc.date``,
      ``citation_publication_date``, ``parsely-pub-date``, ...);
    * ``time_published`` — the first ``<time datetime>`` marked ``itemprop="datePublished"``
      or ``pubdate``; ``time_element`` — the first unmarked one (often the update time, so it
      is used only when nothing else states a date and is never compared);
    * ``url`` — a date in the URL path (``/2021/03/04/``, ``/2021-03-04``, ``/20210304/``).

    Args:
        html: The page HTML (may be ``None`` or broken; nothing is raised for bad HTML).
        url: The page URL.

    Returns:
        Key → UTC datetime.
    """
    found: dict[str, datetime] = {}
    tree = _parse_html(html) if html else None
    if tree is not None:
        for obj in _jsonld_objects(tree):
            for key, names in (
                ("jsonld_published", ("datePublished", "dateCreated", "uploadDate")),
                ("jsonld_modified", ("dateModified",)),
            ):
                if key in found:
                    continue
                for name in names:
                    dt = parse_date(obj.get(name))
                    if dt is not None:
                        found[key] = dt
                        break
        for meta in tree.iter("meta"):
            name = (
                (meta.get("property") or meta.get("name") or meta.get("itemprop") or "")
                .strip()
                .lower()
            )
            if not name:
                continue
            if name in _PUBLISHED_META:
                key = "meta_published"
            elif name in _MODIFIED_META:
                key = "meta_modified"
            else:
                continue
            if key in found:
                continue
            dt = parse_date(meta.get("content") or meta.get("value"))
            if dt is not None:
                found[key] = dt
        for t in tree.xpath("//time[@datetime]"):
            marked = (t.get("itemprop") or "").lower() == "datepublished" or (
                t.get("pubdate") is not None
            )
            key = "time_published" if marked else "time_element"
            if key in found:
                continue
            dt = parse_date(t.get("datetime"))
            if dt is not None:
                found[key] = dt
    if url:
        try:
            path = urlsplit(url).path
        except ValueError:
            path = ""
        for pat in _URL_DATE:
            if m := pat.search(path):
                dt = _mk(int(m.group(1)), int(m.group(2)), int(m.group(3)))
                if dt is not None:
                    found["url"] = dt
                    break
    return found


_PUBLISHED_PRIORITY = ("jsonld_published", "meta_published", "time_published", "url")
"""Which stated date wins as ``published_at``: structured data first, then the URL; these are
the dates compared for ``"conflicting"``."""
_FALLBACK_DATE_KEYS = ("time_element",)
"""Used as ``published_at`` only when no key of ``_PUBLISHED_PRIORITY`` is present."""

REDATE_TOLERANCE = timedelta(hours=24)
"""Slack before a date later than the first capture counts as re-dating. A capture cannot
precede a real publication; a date-only value read as midnight UTC can be ahead of the true
instant by at most 14 h (UTC+14), so 24 h leaves margin (reasoning from time zones). On
lineage-dev all 56 origins whose stated time follows their first capture do so by more than
25 h, and none of the 2,137 other documents is flagged."""
CONFLICT_TOLERANCE = timedelta(days=1, hours=12)
"""Slack between two stated publication dates: a date-only value (URL path, ``dc.date``) is the
local calendar day, which can differ from the UTC instant of a timestamp by up to about a day
either way; 36 h covers that (reasoning from time zones, not measured)."""


def date_reliability(
    published_at: datetime | None,
    *,
    first_seen: datetime | None = None,
    candidates: Mapping[str, datetime] | None = None,
    redate_tolerance: timedelta = REDATE_TOLERANCE,
    conflict_tolerance: timedelta = CONFLICT_TOLERANCE,
) -> str:
    """Judge how far a page's stated publication date can be trusted.

    * ``"unknown"`` — no publication date;
    * ``"redated"`` — the stated date is later than the first archive capture by more than
      ``redate_tolerance``: the page existed before the date it shows, so it was re-dated;
    * ``"conflicting"`` — the stated publication dates (JSON-LD, meta, marked ``<time>``, URL)
      disagree by more than ``conflict_tolerance``; modification dates are not compared (a
      later update is normal);
    * ``"reliable"`` — otherwise.

    Args:
        published_at: The chosen publication date (UTC; naive is read as UTC).
        first_seen: First archive capture (e.g. Wayback CDX), if known.
        candidates: All stated dates, as :func:`extract_dates` returns them.
        redate_tolerance: See :data:`REDATE_TOLERANCE`.
        conflict_tolerance: See :data:`CONFLICT_TOLERANCE`.

    Returns:
        One of ``"reliable"``, ``"redated"``, ``"conflicting"``, ``"unknown"``.

    >>> t = datetime(2020, 5, 1, tzinfo=UTC)
    >>> date_reliability(t, first_seen=datetime(2019, 1, 1, tzinfo=UTC))
    'redated'
    """
    pub = parse_date(published_at) if published_at is not None else None
    if pub is None:
        return "unknown"
    if first_seen is not None:
        fs = parse_date(first_seen)
        if fs is not None and pub - fs > redate_tolerance:
            return "redated"
    if candidates:
        parsed = [parse_date(candidates[k]) for k in _PUBLISHED_PRIORITY if k in candidates]
        stated = [d for d in parsed if d is not None]
        if stated and max(stated) - min(stated) > conflict_tolerance:
            return "conflicting"
    return "reliable"


# --------------------------------------------------------------------------------------------
# Classification
# --------------------------------------------------------------------------------------------

_FORUM_PATH = re.compile(r"/(forum|forums|threads?|discussion|discussions|community|t)/", re.I)
_BLOG_PATH = re.compile(r"/(blog|blogs|opinion|column|columns|op-ed|oped)/", re.I)
_PRESS_PATH = re.compile(
    r"/(press-releases?|pressreleases?|news-releases?|press/|newsroom/|investors?/)", re.I
)
_NEWS_PATH = re.compile(r"/(news|politics|world|business|article|articles|story|stories)/", re.I)
_OFFICIAL_TLD = re.compile(
    r"(\.gov|\.mil|\.int|\.gov\.[a-z]{2}|\.gob\.[a-z]{2}|\.gouv\.[a-z]{2}|\.go\.[a-z]{2}|"
    r"\.govt\.[a-z]{2}|\.gc\.ca|\.bund\.de|\.admin\.ch)$"
)
_ACADEMIC_TLD = re.compile(r"(\.edu|\.ac\.[a-z]{2}|\.edu\.[a-z]{2})$")


def _meta_values(tree: Any) -> dict[str, str]:
    vals: dict[str, str] = {}
    for meta in tree.iter("meta"):
        name = (meta.get("property") or meta.get("name") or meta.get("itemprop") or "").strip()
        content = meta.get("content")
        if name and content and name.lower() not in vals:
            vals[name.lower()] = content.strip()
    return vals


def _jsonld_types(objs: list[Mapping[str, Any]]) -> set[str]:
    types: set[str] = set()
    for o in objs:
        t = o.get("@type")
        for x in t if isinstance(t, list) else [t]:
            if isinstance(x, str):
                types.add(x.lower())
    return types


def classify_source(
    url: str | None,
    *,
    html: str | None = None,
    text: str | None = None,
    first_seen: datetime | None = None,
    credibility_lists: CredibilityLists | None = None,
) -> SourceProfile:
    """Profile a source: type, credibility, signals, identifiers and date reliability.

    Type, first match wins: a known satire host (type from its pattern, credibility 0.05);
    identifiers of the page itself (DOI or PMID → peer-reviewed, unless the host is a preprint
    or repository host; arXiv, RFC, SEC EDGAR → primary); ``citation_journal_title`` meta →
    peer-reviewed; host tables (peer-reviewed, official, primary, aggregator, forum, blog,
    news); official TLDs (``.gov``, ``.gov.uk``, ``.gouv.fr``, ``.int``, ...) → official;
    press-release / investor paths and ``ir.``/``investor.``/``newsroom.`` hosts → primary;
    forum / blog patterns (``forum.`` host, ``/threads/``; ``blog.`` host, ``/blog/``, JSON-LD
    ``BlogPosting``); news patterns (JSON-LD ``NewsArticle``, ``news`` in the host, dated
    ``/news/`` paths) → news; academic TLDs (``.edu``, ``.ac.uk``) → official; else unknown.

    Credibility starts from :data:`CREDIBILITY_BY_TYPE` and moves by signals: ``listed_high``
    +0.15, ``listed_low`` → 0.1, ``satire`` → 0.05, ``has_author`` +0.03, ``has_date`` +0.02,
    ``cites_sources`` (identifiers in the text) +0.03, ``no_https`` −0.05, ``redated`` −0.1,
    ``conflicting_dates`` −0.05; clipped to [0, 1].

    Args:
        url: The document URL (``None`` for user text).
        html: The page HTML, for JSON-LD, meta tags and ``<time>``.
        text: The extracted text, scanned for cited identifiers (a signal only).
        first_seen: First archive capture (UTC), for re-dating.
        credibility_lists: Optional user lists.

    Returns:
        A :class:`SourceProfile`.
    """
    lists = credibility_lists or CredibilityLists()
    host = host_of(url) if url else None
    try:
        parts = urlsplit(url) if url else None
    except ValueError:
        parts = None
    path = parts.path if parts else ""
    scheme = (parts.scheme or "").lower() if parts else ""
    signals: set[str] = set()

    tree = _parse_html(html) if html else None
    meta = _meta_values(tree) if tree is not None else {}
    objs = _jsonld_objects(tree) if tree is not None else []
    ld_types = _jsonld_types(objs)
    meta_ids_text = " ".join(
        v for k, v in meta.items() if k.startswith(("citation_", "dc.identifier", "prism.doi"))
    )
    identifiers = extract_identifiers(url, meta_ids_text or None)
    kinds = {i.split(":", 1)[0] for i in identifiers}

    stype = SourceType.UNKNOWN
    h = host or ""
    satire = _host_matches(h, _SATIRE_HOSTS) if h else None
    if satire:
        signals.add("satire")
    in_primary_table = bool(h and _host_matches(h, _PRIMARY_HOSTS))
    if (
        kinds & {"doi", "pmid", "pmcid"}
        and not in_primary_table
        and not (h and _host_matches(h, _AGGREGATOR_HOSTS | _FORUM_HOSTS | _BLOG_HOSTS))
    ):
        stype = SourceType.PEER_REVIEWED
        signals.add("identifier:" + sorted(kinds & {"doi", "pmid", "pmcid"})[0])
    elif kinds & {"arxiv", "rfc", "sec"}:
        stype = SourceType.PRIMARY
        signals.add("identifier:" + sorted(kinds & {"arxiv", "rfc", "sec"})[0])
    elif "citation_journal_title" in meta and not in_primary_table:
        stype = SourceType.PEER_REVIEWED
        signals.add("meta:citation_journal_title")
    elif h:
        for table, t in (
            (_PEER_REVIEWED_HOSTS, SourceType.PEER_REVIEWED),
            (_OFFICIAL_HOSTS, SourceType.OFFICIAL),
            (_PRIMARY_HOSTS, SourceType.PRIMARY),
            (_AGGREGATOR_HOSTS, SourceType.AGGREGATOR),
            (_FORUM_HOSTS, SourceType.FORUM),
            (_BLOG_HOSTS, SourceType.BLOG),
            (_NEWS_HOSTS, SourceType.NEWS),
        ):
            if _host_matches(h, table):
                stype = t
                signals.add(f"host:{t.value}")
                break
        if stype is SourceType.UNKNOWN:
            labels = h.split(".")
            if _OFFICIAL_TLD.search(h):
                stype = SourceType.OFFICIAL
                signals.add("tld:official")
            elif labels[0] in (
                "ir",
                "investor",
                "investors",
                "newsroom",
                "press",
            ) or _PRESS_PATH.search(path):
                stype = SourceType.PRIMARY
                signals.add("pattern:press_release")
            elif (
                labels[0] in ("forum", "forums", "community", "discuss", "boards")
                or _FORUM_PATH.search(path)
                or "discussionforumposting" in ld_types
            ):
                stype = SourceType.FORUM
                signals.add("pattern:forum")
            elif (
                labels[0] in ("blog", "blogs")
                or _BLOG_PATH.search(path)
                or "blogposting" in ld_types
            ):
                stype = SourceType.BLOG
                signals.add("pattern:blog")
            elif (
                ld_types & {"newsarticle", "reportagenewsarticle", "analysisnewsarticle"}
                or any("news" in lab for lab in labels[:-1])
                or (_NEWS_PATH.search(path) and any(p.search(path) for p in _URL_DATE))
            ):
                stype = SourceType.NEWS
                signals.add("pattern:news")
            elif _ACADEMIC_TLD.search(h):
                stype = SourceType.OFFICIAL
                signals.add("tld:academic")
    if stype is SourceType.NEWS and _BLOG_PATH.search(path):
        signals.add("opinion_section")

    cred = CREDIBILITY_BY_TYPE[stype]
    low = _listed(host, path, lists.low)
    high = _listed(host, path, lists.high)
    if high:
        signals.add("listed_high")
        cred += 0.15
    author = meta.get("author") or meta.get("article:author") or meta.get("citation_author")
    if not author:
        for o in objs:
            if o.get("author"):
                author = "jsonld"
                break
    if author:
        signals.add("has_author")
        cred += 0.03
    if text and extract_identifiers(None, text):
        signals.add("cites_sources")
        cred += 0.03
    if scheme == "http":
        signals.add("no_https")
        cred -= 0.05

    dates = extract_dates(html, url) if (html or url) else {}
    published_at: datetime | None = None
    date_source: str | None = None
    for key in (*_PUBLISHED_PRIORITY, *_FALLBACK_DATE_KEYS):
        if key in dates:
            published_at, date_source = dates[key], key
            break
    fs = parse_date(first_seen) if first_seen is not None else None
    reliability = date_reliability(published_at, first_seen=fs, candidates=dates)
    if published_at is not None:
        signals.add("has_date")
        cred += 0.02
    if reliability == "redated":
        signals.add("redated")
        cred -= 0.1
    elif reliability == "conflicting":
        signals.add("conflicting_dates")
        cred -= 0.05
    if low:
        signals.add("listed_low")
        cred = min(cred, 0.1)
    if satire:
        cred = min(cred, 0.05)
    return SourceProfile(
        url=url,
        host=host,
        source_type=stype,
        credibility=round(max(0.0, min(1.0, cred)), 3),
        signals=tuple(sorted(signals)),
        identifiers=identifiers,
        published_at=published_at,
        date_source=date_source,
        date_reliability=reliability,
        first_seen=fs,
    )


PRIMARY_TYPES = frozenset({SourceType.PRIMARY, SourceType.OFFICIAL, SourceType.PEER_REVIEWED})
"""Source types that count as a primary source for the ``primary_source`` gap of
:func:`affidavit.tasks.queries.detect_gaps`."""


def is_primary(profile: SourceProfile) -> bool:
    """Whether a source counts as primary (primary, official or peer-reviewed, not low-listed).

    >>> is_primary(classify_source("https://www.rfc-editor.org/rfc/rfc9110.html"))
    True
    """
    return profile.source_type in PRIMARY_TYPES and "listed_low" not in profile.signals


def credibility_weight(profile: SourceProfile) -> float:
    """Weight of a source in the tribunal's confidence, 0..1.

    Values (design choice, not measured): by type from :data:`WEIGHT_BY_TYPE` — peer-reviewed
    1.0, official 1.0, primary 0.95, news 0.85, unknown 0.8 (the tribunal's default), aggregator
    0.7, blog 0.6, forum 0.5; a source on the user's high list gets 1.0; a re-dated page is
    multiplied by 0.9; a source on the user's low list is capped at 0.2 and a satire site at 0.1
    (low and satire win over everything else).

    Args:
        profile: From :func:`classify_source`.

    Returns:
        A float in [0, 1].

    >>> p = classify_source("https://www.reuters.com/world/some-story-2021-03-04/")
    >>> credibility_weight(p)
    0.85
    """
    sig = set(profile.signals)
    w = 1.0 if "listed_high" in sig else WEIGHT_BY_TYPE.get(profile.source_type, 0.8)
    if profile.date_reliability == "redated":
        w *= WEIGHT_REDATED_FACTOR
    if "listed_low" in sig:
        w = min(w, WEIGHT_LISTED_LOW)
    if "satire" in sig:
        w = min(w, WEIGHT_SATIRE)
    return round(w, 3)
