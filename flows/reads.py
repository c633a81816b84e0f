"""What the read-only commands do, without a Prefect flow run: no server, no lock.

``verdicts``, ``recall``, ``source`` and ``origins`` read the warehouse or the given files and
write nothing, so they start no Prefect server (about 10 s saved per command). The same
functions back the flows of ``affidavit.flows.analyst`` for users who want them as flow runs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from affidavit.warehouse.home import HomePaths
from affidavit.warehouse.readonly import query_views, sql_text

if TYPE_CHECKING:  # Polars, lineage and source modules: imported only where they are used
    import polars as pl

    from affidavit.flows.origins import OriginsReport
    from affidavit.tasks.ingest_common import ColumnMapping, IngestTally
    from affidavit.tasks.sources import CredibilityLists, SourceProfile
    from affidavit.warehouse.store import Warehouse


def recall_findings(wh: Warehouse, query: str, *, limit: int = 20,
                    now: datetime) -> pl.DataFrame:
    """Return prior verdicts whose claim contains every word of ``query`` and not yet expired.

    The query is bound as a parameter (``warehouse/sql/recall.sql``), never spliced into SQL.

    Returns:
        ``verdicts_latest`` rows, at most ``limit``.
    """
    words = [w.lower() for w in query.split() if w.strip()]
    return wh.query(sql_text("recall"), {"now": now, "words": words, "limit": limit})


def recall_rows(paths: HomePaths, query: str, *, limit: int = 20,
                now: datetime) -> list[dict[str, Any]]:
    """Like ``recall_findings``, as dicts, from the stored views when it can (no Polars import)."""
    words = [w.lower() for w in query.split() if w.strip()]
    rows = query_views(paths, sql_text("recall"), {"now": now, "words": words, "limit": limit})
    if rows is None:
        return recall_findings(_warehouse(paths), query, limit=limit, now=now).to_dicts()
    return rows


def latest_verdicts(paths: HomePaths, *, status: str | None, limit: int | None
                    ) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Return the newest verdicts and the counts per status over the whole view.

    At most ``limit`` rows (all when None), of ``status`` when given.

    Returns:
        (rows of ``verdicts_latest``, newest first; claims per status over the whole view).
    """
    where = "where status = $status" if status else ""
    params: dict[str, Any] = {"limit": limit if limit is not None else 2**62}
    if status:
        params["status"] = status
    sql = f"select * from verdicts_latest {where} order by decided_at desc limit $limit"
    count_sql = "select status, count(*) as n from verdicts_latest group by 1"
    rows = query_views(paths, sql, params)
    counts = query_views(paths, count_sql) if rows is not None else None
    if rows is None or counts is None:
        wh = _warehouse(paths)
        rows = wh.query(sql, params).to_dicts()
        counts = wh.query(count_sql).to_dicts()
    return rows, {str(r["status"]): int(r["n"]) for r in counts}


def _warehouse(paths: HomePaths) -> Warehouse:
    from affidavit.warehouse.store import Warehouse

    return Warehouse(paths)


SOURCE_SCHEMES = ("http", "https")
"""URL schemes ``source`` fetches (the fetcher's; DESIGN.md, Fetch: other schemes are refused)."""

_URL_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
"""A target that starts ``scheme://`` is a URL, not a file name."""


def unsupported_scheme(target: str) -> str | None:
    """The scheme of a URL target that is not in ``SOURCE_SCHEMES`` (``"ftp"``), else None.

    >>> unsupported_scheme("FTP://example.org/a"), unsupported_scheme("https://example.org/")
    ('ftp', None)
    >>> unsupported_scheme("stories.jsonl") is None
    True
    """
    m = _URL_SCHEME.match(target.strip())
    scheme = m.group(1).lower() if m else None
    return scheme if scheme is not None and scheme not in SOURCE_SCHEMES else None


def profile_source(target: str, *, wayback: bool = False, url: str | None = None
                   ) -> SourceProfile:
    """Profile one source (a URL or a local HTML file): type, credibility, date reliability.

    A URL is fetched with the guarded fetcher; a file is read from disk (``url`` names the
    address it was saved from, for host and identifier checks). With ``wayback`` the first
    capture time comes from the Wayback CDX API (network), so a page dated later than its first
    capture is flagged as re-dated. Credibility lists come from ``AFFIDAVIT_CREDIBILITY_LOW`` /
    ``_HIGH``.

    Raises:
        ValueError: When the target cannot be read or fetched, is a URL of a scheme other than
            ``SOURCE_SCHEMES``, or a credibility list cannot be read.
    """
    from affidavit.tasks.fetch import Fetcher, strip_credentials
    from affidavit.tasks.search import WaybackCDX
    from affidavit.tasks.sources import classify_source

    html: str | None = None
    shown = strip_credentials(target)  # a URL's user:password is never shown or stored
    if scheme := unsupported_scheme(target):
        raise ValueError(f"{shown}: the {scheme}:// scheme is not supported: "
                         "give an http:// or https:// URL, or the path of a saved HTML file")
    if target.lower().startswith(("http://", "https://")):
        res = Fetcher().fetch(target)
        if res.error or res.status is None or res.status >= 400:
            raise ValueError(f"cannot fetch {shown}: {res.error or res.status}")
        html = read_page_bytes(res.content, shown, content_type=res.headers.get("content-type"))
        url = strip_credentials(res.final_url or target)
    else:
        from affidavit.tasks.input_checks import input_path_fault, regular_file_fault

        path = Path(target)
        if fault := regular_file_fault(path):
            raise ValueError(f"{target}: is a directory, not an HTML file"
                             if fault.startswith("is a directory") else f"{target}: {fault}")
        if not path.is_file():
            raise ValueError(f"{target}: {input_path_fault(target) or 'not a regular file'}")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ValueError(f"cannot read {target}: {exc.strerror or exc}") from exc
        html = read_page_bytes(data, target)
        saved_from = url or page_url(html)
        url = strip_credentials(saved_from) if saved_from else None
    first_seen = WaybackCDX().first_seen(url) if wayback and url else None
    return classify_source(url, html=html, first_seen=first_seen,
                           credibility_lists=credibility_lists_from_env())


def credibility_lists_from_env(environ: Mapping[str, str] | None = None
                               ) -> CredibilityLists | None:
    """Load the credibility lists named by ``AFFIDAVIT_CREDIBILITY_LOW`` / ``_HIGH`` (host files).

    Raises:
        ValueError: When a named file cannot be read.
    """
    from affidavit.tasks.sources import CredibilityLists

    env = os.environ if environ is None else environ
    low, high = env.get("AFFIDAVIT_CREDIBILITY_LOW"), env.get("AFFIDAVIT_CREDIBILITY_HIGH")
    if not low and not high:
        return None
    from affidavit.tasks.input_checks import os_error_reason, regular_file_fault

    for var, value in (("AFFIDAVIT_CREDIBILITY_LOW", low), ("AFFIDAVIT_CREDIBILITY_HIGH", high)):
        if not value:
            continue
        p = Path(value)
        try:
            p.stat()  # a missing file, a symlink loop, no permission: said by its errno
        except OSError as exc:
            raise ValueError(f"cannot read the credibility list {var}={value}: "
                             f"{os_error_reason(exc)}") from None
        if fault := regular_file_fault(p):  # /dev/zero would be read without end
            raise ValueError(f"cannot read the credibility list {var}={value}: "
                             + ("is a directory, not a file of hosts"
                                if fault.startswith("is a directory") else fault))
    try:
        return CredibilityLists.from_files(low=low or None, high=high or None)
    except OSError as exc:
        raise ValueError(f"cannot read a credibility list: {os_error_reason(exc)}") from exc


MAX_SOURCE_PAGE_BYTES = 20 * 1024 * 1024
"""Largest page ``source`` reads, after decompression (bytes): ten times the extraction cap."""


def read_page_bytes(data: bytes, name: str, *, content_type: str | None = None) -> str:
    """Decode a saved or fetched page for ``source``: gunzipped, charset-decoded, checked.

    Raises:
        ValueError: For an empty file, a broken or oversized gzip stream, or content that is not
            an HTML page (no markup at all).
    """
    import zlib

    from affidavit.tasks.charset import decode_document

    if data[:2] == b"\x1f\x8b":
        d = zlib.decompressobj(wbits=31)
        try:
            data = d.decompress(data, MAX_SOURCE_PAGE_BYTES + 1)
        except zlib.error as exc:
            raise ValueError(f"{name}: broken gzip data ({exc})") from exc
        if len(data) > MAX_SOURCE_PAGE_BYTES:
            raise ValueError(f"{name}: decompresses past {MAX_SOURCE_PAGE_BYTES} bytes: refused")
        if not d.eof:
            raise ValueError(f"{name}: truncated gzip data")
    if not data.strip():
        raise ValueError(f"{name}: empty file: nothing to profile")
    text = decode_document(data, content_type=content_type, kind="html").text
    head = text[:65536]
    controls = sum(1 for c in head if c < " " and c not in "\t\n\r\f")
    if "<" not in head or text.count("\ufffd") > len(text) // 10 or controls > len(head) // 100:
        raise ValueError(f"{name}: not an HTML page (no markup, or binary data)")
    return text


_CANONICAL = re.compile(
    r"""<link\b[^>]*\brel=["']?canonical["']?[^>]*\bhref=["']([^"'>\s]+)"""
    r"""|<link\b[^>]*\bhref=["']([^"'>\s]+)["'][^>]*\brel=["']?canonical"""
    r"""|<meta\b[^>]*\bproperty=["']og:url["'][^>]*\bcontent=["']([^"'>\s]+)""",
    re.IGNORECASE,
)


def page_url(html: str) -> str | None:
    """Return the address a saved page declares (``<link rel=canonical>`` or ``og:url``).

    >>> page_url('<link rel="canonical" href="https://example.org/a">')
    'https://example.org/a'
    """
    m = _CANONICAL.search(html[:200_000])
    if not m:
        return None
    found = next(g for g in m.groups() if g)
    return found if found.lower().startswith(("http://", "https://")) else None


def load_documents(targets: Sequence[str], *, fetcher: Any = None,
                   mapping: ColumnMapping | None = None,
                   tally: IngestTally | None = None) -> tuple[pl.DataFrame, list[str]]:
    """Read documents from files or URLs without storing them (for ``origins``).

    Dumps are read with ``mapping`` (the default column names when None), as ``backfill`` reads
    them; skips, repairs and refused inputs are counted in ``tally`` as ``backfill`` counts them
    (:class:`~affidavit.tasks.ingest_common.IngestTally`).

    Returns:
        (one row per document read, ``DOCUMENTS_SCHEMA`` columns; the notes, input by input).
    """
    import polars as pl

    from affidavit.tasks.ingest import ingest_path
    from affidavit.tasks.ingest_common import ColumnMapping, IngestTally
    from affidavit.tasks.input_checks import os_error_reason

    mapping = mapping or ColumnMapping()
    tally = tally if tally is not None else IngestTally()
    frames = []
    for t in targets:
        tally.begin(t)
        failure: str | None = None
        try:
            for batch in ingest_path(t, mapping=mapping, fetcher=fetcher):
                tally.add(batch)
                df = pl.from_arrow(batch.documents)
                assert isinstance(df, pl.DataFrame)
                frames.append(df)
        except OSError as exc:  # missing, a directory, a symlink loop, no permission
            failure = os_error_reason(exc)
        except ValueError as exc:
            failure = str(exc)
        except Exception as exc:  # noqa: BLE001 - no input file may crash the command
            failure = f"cannot be read ({type(exc).__name__}: {str(exc)[:200]})"
        tally.end(t, failure)
    docs = pl.concat(frames, how="diagonal_relaxed") if frames else pl.DataFrame()
    return docs, tally.messages


@dataclass
class OriginsResult:
    """``compare_sources`` on loaded documents, with the loader's notes and counts.

    Attributes:
        report: The lineage report; None when no document could be read.
        messages: The loader's notes, input by input.
        counts: ``skip:<reason>``, ``repaired:<reason>``, ``documents_read`` and
            ``sources_refused``, as ``backfill`` counts them.
    """

    report: OriginsReport | None
    messages: list[str]
    counts: dict[str, int] = field(default_factory=dict)


def origins_of(targets: Sequence[str], *, mapping: ColumnMapping | None = None
               ) -> OriginsResult:
    """Compute the lineage of a set of documents (files or URLs): raw count vs origins.

    Dumps are read with ``mapping`` (the default column names when None). When no document
    could be read the report is None and the messages say why, input by input (the caller says
    that nothing was read, once).
    """
    from affidavit.flows.origins import compare_sources
    from affidavit.tasks.ingest_common import IngestTally

    tally = IngestTally()
    docs, messages = load_documents(targets, mapping=mapping, tally=tally)
    counts = dict(tally.counts)
    if docs.is_empty():
        return OriginsResult(None, messages, counts)
    docs = docs.unique("doc_id", keep="first", maintain_order=True)
    return OriginsResult(compare_sources(docs), messages, counts)
