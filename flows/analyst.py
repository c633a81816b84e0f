"""The analyst's one-off flows: verify, research, source, recall, origins."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl
from prefect import flow

from affidavit.flows.context import RunRecord, open_warehouse, utcnow
from affidavit.flows.factcheck import FactcheckResult, execute_research_run
from affidavit.flows.origins import OriginsReport, compare_sources
from affidavit.schemas.enums import Mode
from affidavit.tasks.claims import build_claim_rows, decompose_claim, extract_claims
from affidavit.tasks.ingest import ingest_path
from affidavit.tasks.ingest_common import ColumnMapping
from affidavit.tasks.queries import MODES
from affidavit.tasks.sources import SourceProfile, classify_source
from affidavit.warehouse.store import load_sql


@flow(name="verify", log_prints=False, validate_parameters=False)
def verify(
    text: str,
    *,
    mode: str = "standard",
    judge: str = "lexical",
    home: str | None = None,
    round_progress: Callable[[int, int], None] | None = None,
) -> FactcheckResult:
    """Check a text claim by claim.

    The text is split into check-worthy claims (``affidavit.tasks.claims.extract_claims``); when
    none scores
    as check-worthy, the whole text is checked as one claim.

    Raises:
        ValueError: For empty text, an unknown mode or judge.
    """
    if not text.strip():
        raise ValueError("nothing to verify: the text is empty")
    mode_enum = Mode(mode)
    wh = open_warehouse(home)
    now = utcnow()
    run = RunRecord(wh, "verify", {"text_chars": len(text), "mode": mode, "judge": judge}).start()
    cands = extract_claims(text)
    claims = build_claim_rows(cands if cands else [text.strip()], now=now, origin="text")
    return execute_research_run(wh, run, claims, judge=judge, mode=mode_enum, now=now,
                                progress=round_progress)


@flow(name="research", log_prints=False, validate_parameters=False)
def research_question(
    question: str,
    *,
    mode: str = "standard",
    judge: str = "lexical",
    home: str | None = None,
    round_progress: Callable[[int, int], None] | None = None,
) -> FactcheckResult:
    """Research a question in adversarial rounds: sub-questions, advocate and prosecutor sides.

    Raises:
        ValueError: For an empty question, an unknown mode or judge.
    """
    if not question.strip():
        raise ValueError("nothing to research: the question is empty")
    mode_enum = Mode(mode)
    wh = open_warehouse(home)
    now = utcnow()
    run = RunRecord(wh, "research", {"question": question, "mode": mode, "judge": judge}).start()
    subs = decompose_claim(question)[: MODES[mode_enum].sub_questions] or [question]
    claims = build_claim_rows(subs, now=now, origin="question")
    return execute_research_run(wh, run, claims, judge=judge, mode=mode_enum, now=now,
                                progress=round_progress)


@flow(name="source", log_prints=False, validate_parameters=False)
def check_source(target: str, *, home: str | None = None, wayback: bool = False,
                 url: str | None = None) -> SourceProfile:
    """Profile one source (a URL or a local HTML file): type, credibility, date reliability.

    A URL is fetched with the guarded fetcher; a file is read from disk (``url`` names the
    address it was saved from, for host and identifier checks). With ``wayback`` the first
    capture time comes from the Wayback CDX API (network), so a page dated later than its first
    capture is flagged as re-dated. Credibility lists come from ``AFFIDAVIT_CREDIBILITY_LOW`` /
    ``_HIGH``.

    Raises:
        ValueError: When the target cannot be read or fetched.
    """
    from affidavit.flows.factcheck import credibility_lists_from_env
    from affidavit.tasks.fetch import Fetcher
    from affidavit.tasks.search import WaybackCDX

    open_warehouse(home)  # Prefect environment under the home
    html: str | None = None
    if target.lower().startswith(("http://", "https://")):
        res = Fetcher().fetch(target)
        if res.error or res.status is None or res.status >= 400:
            raise ValueError(f"cannot fetch {target}: {res.error or res.status}")
        html = read_page_bytes(res.content, target, content_type=res.headers.get("content-type"))
        url = res.final_url or target
    else:
        path = Path(target)
        if path.is_dir():
            raise ValueError(f"{target}: is a directory, not an HTML file")
        if not path.is_file():
            raise ValueError(f"no such file: {target}")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ValueError(f"cannot read {target}: {exc.strerror or exc}") from exc
        html = read_page_bytes(data, target)
        url = url or page_url(html)
    first_seen = WaybackCDX().first_seen(url) if wayback and url else None
    return classify_source(url, html=html, first_seen=first_seen,
                           credibility_lists=credibility_lists_from_env())


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


@flow(name="recall", log_prints=False, validate_parameters=False)
def recall(query: str, *, limit: int = 20, home: str | None = None) -> pl.DataFrame:
    """Return prior verdicts whose claim contains every word of ``query`` and not yet expired.

    The query is bound as a parameter (``warehouse/sql/recall.sql``), never spliced into SQL.
    """
    wh = open_warehouse(home)
    words = [w.lower() for w in query.split() if w.strip()]
    return wh.query(load_sql("recall"), {"now": utcnow(), "words": words, "limit": limit})


def load_documents(targets: Sequence[str], *, fetcher: Any = None) -> tuple[pl.DataFrame,
                                                                               list[str]]:
    """Read documents from files or URLs without storing them (for ``origins``)."""
    frames, messages = [], []
    for t in targets:
        try:
            for batch in ingest_path(t, mapping=ColumnMapping(), fetcher=fetcher):
                messages.extend(batch.messages)
                df = pl.from_arrow(batch.documents)
                assert isinstance(df, pl.DataFrame)
                frames.append(df)
        except FileNotFoundError:
            messages.append(f"{t}: no such file: refused")
        except IsADirectoryError:
            messages.append(f"{t}: is a directory, not a file: refused")
        except (OSError, ValueError) as exc:
            text = getattr(exc, "strerror", None) or str(exc)
            messages.append(text if text.startswith(t) else f"{t}: {text}")
        except Exception as exc:  # noqa: BLE001 - no input file may crash the command
            messages.append(f"{t}: cannot be read ({type(exc).__name__}: {str(exc)[:200]})")
    docs = pl.concat(frames, how="diagonal_relaxed") if frames else pl.DataFrame()
    return docs, messages


@dataclass
class OriginsResult:
    """``compare_sources`` on loaded documents, with the loader's messages."""

    report: OriginsReport | None
    messages: list[str]


@flow(name="origins", log_prints=False, validate_parameters=False)
def origins(targets: Sequence[str], *, home: str | None = None) -> OriginsResult:
    """Compute the lineage of a set of documents (files or URLs): raw count vs origins."""
    open_warehouse(home)
    docs, messages = load_documents(targets)
    if docs.is_empty():
        return OriginsResult(None, messages + ["no documents could be read"])
    docs = docs.unique("doc_id", keep="first", maintain_order=True)
    return OriginsResult(compare_sources(docs), messages)
