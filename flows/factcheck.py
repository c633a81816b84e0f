"""Flow ``factcheck``, the main job: feeds and/or claims → claims → research → verdicts."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import polars as pl
from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from affidavit.flows.context import RunRecord, open_warehouse, sync_views, utcnow
from affidavit.flows.preflight import NO_SEARCH_MESSAGE, Capabilities, run_preflight
from affidavit.flows.publish import write_run_report
from affidavit.flows.research_loop import ResearchResult, research
from affidavit.flows.stages import (
    Progress,
    index_task,
    ingest_task,
    lineage_task,
    materialize_web_hits,
    next_fetch_seq,
    poll_task,
    record_fetches,
)
from affidavit.schemas.enums import Mode, RunStatus, VerdictStatus, Volatility
from affidavit.schemas.fetches import FetchKind
from affidavit.tasks.claims import (
    build_claim_rows,
    expires_at,
    extract_claims,
    read_claims_file,
)
from affidavit.tasks.feed_poll import fetch_row
from affidavit.tasks.fetch import (
    AllowList,
    FetchConfig,
    Fetcher,
    allow_list_from_env,
    parse_allow_list,
    strip_credentials,
)
from affidavit.tasks.opml import OpmlError, OpmlList, is_opml, parse_opml, read_opml
from affidavit.tasks.queries import MODES
from affidavit.tasks.sources import CredibilityLists
from affidavit.tasks.tribunal import TribunalConfig, build_verdict_rows
from affidavit.warehouse.store import Warehouse

CLAIMS_PER_FEED_DOCUMENT = 2
"""Check-worthy claims extracted from each feed entry (the highest scored)."""


@dataclass
class FactcheckResult:
    """Outcome of a research run (factcheck, verify, research).

    Attributes:
        run_id: The run.
        status: Run status (``no_capability`` when no search provider was present).
        message: One line for the user.
        verdicts: The verdict rows written.
        counts: Rows written, skips and rejects by reason.
        capabilities: What the preflight found.
        report_path: The run's HTML report, if written.
    """

    run_id: str
    status: RunStatus
    message: str
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    capabilities: dict[str, Any] = field(default_factory=dict)
    degraded: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    report_path: str | None = None
    judgments: pl.DataFrame | None = None
    stop_reasons: dict[str, str] = field(default_factory=dict)
    rounds_run: dict[str, int] = field(default_factory=dict)


def claims_from_documents(wh: Warehouse, doc_ids: Sequence[str], *, now: datetime,
                          per_document: int = CLAIMS_PER_FEED_DOCUMENT) -> list[dict[str, Any]]:
    """Extract check-worthy claims from stored documents (feed entries, articles)."""
    rows: list[dict[str, Any]] = []
    if not doc_ids:
        return rows
    docs = wh.texts(doc_ids)
    for doc in docs.iter_rows(named=True):
        cands = extract_claims(doc["text"] or "", max_claims=per_document)
        rows.extend(build_claim_rows(cands, now=now, origin=f"document:{doc['doc_id']}",
                                     source_doc_id=doc["doc_id"]))
    return rows


def claims_from_file(path: str, *, now: datetime, limit: int | None, run: RunRecord,
                     text_column: str | None = None) -> list[dict[str, Any]]:
    """Read claims from a JSONL/JSON/CSV file; bad rows are counted skips.

    A file that cannot be read, or from which no claim comes, is refused like any input
    (``skip:source_unreadable`` / ``sources_refused``, one message): the run goes on with the
    other inputs and the command exits non-zero.
    """
    try:
        items, skips, messages = read_claims_file(path, text_column=text_column, limit=limit)
    except (OSError, ValueError) as exc:
        reason = "no such file" if isinstance(exc, FileNotFoundError) else (
            getattr(exc, "strerror", None) or str(exc))
        run.counts["skip:source_unreadable"] += 1
        run.counts["sources_refused"] += 1
        run.messages.append(f"{path}: {reason}: refused")
        return []
    repairs = ("control_chars_removed", "replacement_chars", "charset_not_utf8")
    run.counts.update({(f"repaired:{k}" if k in repairs else f"skip:{k}"): v
                       for k, v in skips.items()})
    run.messages.extend(messages)
    if not items and limit != 0:
        run.counts["sources_refused"] += 1
        why = ", ".join(f"{k} {v}" for k, v in sorted(skips.items())) or "empty file"
        run.messages.append(f"{path}: no claim could be read ({why}): refused")
    dupes: Counter[str] = Counter()
    rows = build_claim_rows(items, now=now, origin=f"file:{path}", skips=dupes)
    run.counts.update({f"skip:{k}": v for k, v in dupes.items()})
    return rows


def decide_and_write(
    wh: Warehouse,
    claims: Sequence[Mapping[str, Any]],
    *,
    run: RunRecord,
    caps: Capabilities,
    mode: Mode,
    now: datetime,
    progress: Callable[[int, int], None] | None = None,
    fetcher: Fetcher | None = None,
) -> tuple[list[dict[str, Any]], ResearchResult | None]:
    """Research the researchable claims, decide every claim, write judgments/queries/verdicts.

    A claim that is not researchable gets an UNVERIFIED verdict that says why.
    """
    researchable = [c for c in claims if c.get("is_researchable", True)]
    result = None
    if researchable:
        web = any(p.name != "archive" for p in caps.providers)
        lists = credibility_lists_from_env()
        result = research(
            wh, researchable, run=run, mode=mode, judge=caps.judge, providers=caps.providers,
            now=now, progress=progress,
            materialize=((lambda hits: materialize_web_hits(wh, hits, run=run, fetcher=fetcher))
                         if web else None),
            credibility_lists=lists,
        )
        n_fallbacks = int(getattr(caps.judge, "n_fallbacks", 0) or 0)
        if n_fallbacks:
            note = f"LLM judge failed on {n_fallbacks} pair(s): lexical judge used for them"
            caps.degraded.append(note)
            run.degraded.append(note)
            run.counts["judge_fallbacks"] += n_fallbacks
        if result.judgments.height:
            wh.write("judgments", result.judgments)
        if result.queries:
            wh.write("queries", pl.DataFrame(result.queries, infer_schema_length=None))
        run.counts["queries"] += len(result.queries)
    judgments = result.judgments if result is not None else pl.DataFrame()
    if judgments.is_empty():
        judgments = pl.DataFrame(schema={"claim_id": pl.String, "doc_id": pl.String,
                                         "stance": pl.String, "relevance": pl.Float64,
                                         "quote": pl.String, "is_admitted": pl.Boolean})
    urls = {}
    if judgments.height and "url" in judgments.columns:
        urls = dict(zip(judgments["doc_id"].to_list(), judgments["url"].to_list(), strict=True))
    exp = {str(c["claim_id"]): expires_at(Volatility(c["volatility"]), now) for c in claims}
    degraded = "; ".join(caps.degraded) or None
    rows = build_verdict_rows(
        claims, judgments, config=TribunalConfig(MODES[mode].origins_for_supported),
        run_id=run.run_id, now=now, judge=caps.judge_name, mode=mode.value, expires_at=exp,
        queries_tried=result.queries_tried if result else {}, urls=urls, degraded=degraded,
    )
    for row, claim in zip(rows, claims, strict=True):
        if not claim.get("is_researchable", True):
            row["explanation"] = f"not researchable: {claim.get('researchable_reason')}"
            row["decided_by"] = (f"UNVERIFIED: not researched, the claim is not researchable "
                                 f"({claim.get('researchable_reason')})")
    wh.write("verdicts", pl.DataFrame(rows, infer_schema_length=None))
    for row in rows:
        run.counts[f"status:{row['status']}"] += 1
    run.counts["verdicts"] += len(rows)
    return rows, result


def write_report(wh: Warehouse, run: RunRecord, verdicts: list[dict[str, Any]],
                 result: ResearchResult | None, *, now: datetime) -> Path:
    """Write the run's report folder and ClaimReview JSON-LD; return the index page's path.

    The folder is ``<home>/reports/<run_id>/``: ``report.html``, one page per claim under
    ``claims/`` and ``claimreview.jsonld``.
    """
    run_info = {"run_id": run.run_id, "flow": run.flow, "started_at": run.started_at,
                "capabilities": run.capabilities, "degraded": run.degraded,
                "counts": dict(run.counts), "parameters": run.parameters}
    published = write_run_report(wh, run_info, verdicts,
                                 result.judgments if result is not None else None, now=now)
    run.messages.extend(published.notes)
    return published.index


def credibility_lists_from_env(environ: Mapping[str, str] | None = None) -> CredibilityLists | None:
    """Load the credibility lists named by ``AFFIDAVIT_CREDIBILITY_LOW`` / ``_HIGH`` (host files).

    Raises:
        ValueError: When a named file cannot be read.
    """
    env = os.environ if environ is None else environ
    low, high = env.get("AFFIDAVIT_CREDIBILITY_LOW"), env.get("AFFIDAVIT_CREDIBILITY_HIGH")
    if not low and not high:
        return None
    try:
        return CredibilityLists.from_files(low=low or None, high=high or None)
    except OSError as exc:
        raise ValueError(f"cannot read a credibility list: {exc}") from exc


def unresolved_claims(wh: Warehouse) -> list[dict[str, Any]]:
    """Return the stored claims whose latest verdict is UNVERIFIED or PARTIAL (the ledger)."""
    df = wh.query(
        "select c.* from claims c join verdicts_latest v using (claim_id) "
        "where v.status in ('UNVERIFIED', 'PARTIAL') and c.is_researchable"
    )
    return df.to_dicts()


decide_task = task(decide_and_write, name="research-and-decide", cache_policy=NO_CACHE)


def execute_research_run(
    wh: Warehouse,
    run: RunRecord,
    claims: list[dict[str, Any]],
    *,
    judge: str,
    mode: Mode,
    now: datetime,
    progress: Callable[[int, int], None] | None = None,
    fetcher: Fetcher | None = None,
) -> FactcheckResult:
    """Preflight, then research and decide ``claims``; finish the run record.

    ``fetcher`` fetches the pages found by web search (default: ``Fetcher()``, whose
    private-address setting comes from ``AFFIDAVIT_ALLOW_PRIVATE``).
    """
    caps = run_preflight(wh, judge=judge)
    run.capabilities = caps.found
    run.degraded = list(caps.degraded)
    if not caps.can_search:
        run.finish(RunStatus.NO_CAPABILITY, NO_SEARCH_MESSAGE)
        return FactcheckResult(run.run_id, RunStatus.NO_CAPABILITY, NO_SEARCH_MESSAGE,
                               counts=dict(run.counts), capabilities=caps.found,
                               degraded=caps.degraded, messages=run.messages)
    wh.append_unique("claims", pl.DataFrame(claims, infer_schema_length=None))
    run.counts["claims"] += len(claims)
    verdicts, result = decide_task(wh, claims, run=run, caps=caps, mode=mode, now=now,
                                   progress=progress, fetcher=fetcher)
    report = write_report(wh, run, verdicts, result, now=now)
    sync_views(wh, run)
    n_res = sum(1 for v in verdicts if v["status"] != VerdictStatus.UNVERIFIED.value)
    message = (f"{len(verdicts)} claim(s) decided: {n_res} with admitted evidence, "
               f"{len(verdicts) - n_res} unverified")
    run.finish(RunStatus.COMPLETED, message)
    return FactcheckResult(
        run.run_id, RunStatus.COMPLETED, message, verdicts=verdicts, counts=dict(run.counts),
        capabilities=caps.found, degraded=caps.degraded, messages=run.messages,
        report_path=str(report), judgments=result.judgments if result else None,
        stop_reasons=result.stop_reasons if result else {},
        rounds_run=result.rounds_run if result else {},
    )


def expand_feed_sources(
    feeds: Sequence[str],
    *,
    run: RunRecord,
    wh: Warehouse | None = None,
    fetcher: Fetcher | None = None,
) -> tuple[list[str], list[str], dict[str, str | None]]:
    """Split feed sources into local files and URLs, reading OPML lists as lists of feed URLs.

    An OPML list is a local file (``.opml`` or an ``<opml>`` root) or, with ``fetcher``, an
    http(s) URL whose path ends in ``.opml`` (fetched through the guard; its fetch is recorded in
    ``fetches`` when ``wh`` is given). Credentials in URLs are dropped.

    Returns:
        (local feed files, feed URLs in order without duplicates, titles of URLs from OPML).

    Raises:
        ValueError: (``OpmlError``) for a broken, non-OPML or empty OPML list, or a remote list
            that cannot be fetched.
        FileNotFoundError: For a missing OPML file named by ``.opml``.
    """
    files: list[str] = []
    urls: list[str] = []
    titles: dict[str, str | None] = {}
    for src in feeds:
        lst: OpmlList | None = None
        if src.lower().startswith(("http://", "https://")):
            url = strip_credentials(src)
            if fetcher is None or not urlsplit(url).path.lower().endswith(".opml"):
                urls.append(url)
                continue
            lst = _fetch_opml(url, run=run, wh=wh, fetcher=fetcher)
        elif is_opml(src) and (Path(src).exists() or src.lower().endswith(".opml")):
            lst = read_opml(src)
        else:
            files.append(src)
            continue
        run.messages.extend(lst.messages)
        run.counts["opml_feeds"] += len(lst.feeds)
        if lst.n_skipped:
            run.counts["skip:opml_outline"] += lst.n_skipped
        for f in lst.feeds:
            urls.append(f.url)
            titles.setdefault(f.url, f.title)
    return files, list(dict.fromkeys(urls)), titles


def _fetch_opml(url: str, *, run: RunRecord, wh: Warehouse | None, fetcher: Fetcher) -> OpmlList:
    """Fetch a remote OPML list through the guard (recorded in ``fetches``) and parse it.

    Raises:
        OpmlError: When it cannot be fetched or used.
    """
    fetched_at = utcnow()
    res = fetcher.fetch(url)
    if wh is not None:
        record_fetches(wh, run, [fetch_row(res, run_id=run.run_id, seq=next_fetch_seq(run),
                                           kind=FetchKind.FEED, fetched_at=fetched_at)])
    if not res.ok:
        raise OpmlError(f"{url}: OPML list could not be fetched "
                        f"({res.error or f'HTTP {res.status}'})")
    return parse_opml(res.content, source=url)


def resolve_allow_list(allow_private: str | bool | None) -> AllowList:
    """Return the private-address setting: the flow parameter when given, else the environment.

    Raises:
        ValueError: When the value cannot be parsed (``affidavit.tasks.fetch.parse_allow_list``).
    """
    if allow_private is None:
        return allow_list_from_env()
    if isinstance(allow_private, bool):
        return AllowList(allow_all=allow_private)
    return parse_allow_list(allow_private)


@flow(name="factcheck", log_prints=False, validate_parameters=False)
def factcheck(
    *,
    feeds: Sequence[str] = (),
    claims_path: str | None = None,
    claim_texts: Sequence[str] = (),
    limit: int | None = None,
    mode: str = "standard",
    judge: str = "lexical",
    text_column: str | None = None,
    from_unresolved: bool = False,
    home: str | None = None,
    progress: Progress | None = None,
    round_progress: Callable[[int, int], None] | None = None,
    allow_private: str | bool | None = None,
) -> FactcheckResult:
    """Run the main job: ingest feeds, gather claims, research them, write verdicts.

    Feed URLs are polled (``flows.stages.poll_feeds``): conditional GET, per-feed state in
    ``feeds``, backoff of failing feeds, one ``fetches`` row per attempt. Claims come from the
    entries a URL feed added in this run (an unchanged feed, a 304, adds none, so a scheduled run
    over unchanged feeds researches nothing); a local feed file's stored entries are checked
    again when it adds nothing new.

    Args:
        feeds: Feed files or URLs, or OPML subscription lists (``.opml`` or an ``<opml>`` root)
            whose outlines name the feeds; entries become documents and claims are extracted
            from them.
        claims_path: A claims file (JSONL/JSON/CSV).
        claim_texts: Claims given directly.
        limit: At most this many claims in all.
        mode: quick | standard | deep | forensic.
        judge: lexical | llm.
        text_column: Column holding the claim text in the claims file (auto-detected if None).
        from_unresolved: Also re-check the claims whose latest verdict is UNVERIFIED or PARTIAL.
        home: affidavit home.
        progress: Ingest progress callback.
        round_progress: Research progress callback (round, active claims).
        allow_private: Non-public addresses the fetcher may reach: ``"all"``/True, a list of
            CIDR ranges and host names, or off; None reads ``AFFIDAVIT_ALLOW_PRIVATE``
            (recorded in ``runs.parameters``).

    Raises:
        ValueError: For an unknown mode or judge, a bad ``allow_private`` value, or an OPML
            file that cannot be used.
    """
    mode_enum = Mode(mode)
    allow = resolve_allow_list(allow_private)
    wh = open_warehouse(home)
    now = utcnow()
    run = RunRecord(wh, "factcheck", {"feeds": [strip_credentials(f) for f in feeds],
                                      "claims": claims_path,
                                      "n_claim_texts": len(claim_texts), "limit": limit,
                                      "mode": mode, "judge": judge,
                                      "allow_private": allow.describe()}).start()
    fetcher = Fetcher(FetchConfig(allow_private=allow.allow_all, allow=allow))
    try:
        feed_doc_ids: list[str] = []
        if feeds:
            files, urls, titles = expand_feed_sources(list(feeds), run=run, wh=wh,
                                                      fetcher=fetcher)
            if files:
                feed_doc_ids = ingest_task(wh, files, run=run, progress=progress, kind="feed",
                                           fetcher=fetcher)
            polled = None
            if urls:
                polled = poll_task(wh, urls, run=run, fetcher=fetcher, now=now, titles=titles,
                                   progress=progress)
                feed_doc_ids = [*feed_doc_ids, *polled.added]
            lineage_task(wh, feed_doc_ids, run=run)
            index_task(wh, feed_doc_ids, run=run)
            if files and not feed_doc_ids:
                # a local file's entries already stored: still check their claims
                feed_doc_ids = wh.read("documents", columns=["doc_id"],
                                       where="source_path in (select unnest($p))",
                                       params={"p": files})["doc_id"].to_list()
            if polled is not None and not (polled.read or files):
                run.messages.append(
                    f"feeds: {len(polled.not_modified)} not modified, {len(polled.failed)} "
                    f"failed, {len(polled.backed_off)} backed off: no new entries")
        claims: list[dict[str, Any]] = []
        if claims_path:
            claims += claims_from_file(claims_path, now=now, limit=limit, run=run,
                                       text_column=text_column)
        if claim_texts:
            claims += build_claim_rows(list(claim_texts), now=now, origin="text")
        if feed_doc_ids:
            claims += claims_from_documents(wh, feed_doc_ids, now=now)
        if from_unresolved:
            claims += unresolved_claims(wh)
        seen: set[str] = set()
        unique = []
        for c in claims:
            if c["claim_id"] not in seen:
                seen.add(c["claim_id"])
                unique.append(c)
        claims = unique[:limit] if limit is not None else unique
        if not claims:
            message = "no claims to check"
            if feeds and not feed_doc_ids:
                c = run.counts
                message += (f" (feeds: {c['feeds_not_modified']} not modified, "
                            f"{c['feeds_read']} read with no new entry, {c['feeds_failed']} "
                            f"failed, {c['feeds_backed_off']} backed off)")
            sync_views(wh, run)
            run.finish(RunStatus.COMPLETED, message)
            return FactcheckResult(run.run_id, RunStatus.COMPLETED, message,
                                   counts=dict(run.counts), messages=run.messages)
        return execute_research_run(wh, run, claims, judge=judge, mode=mode_enum, now=now,
                                    progress=round_progress, fetcher=fetcher)
    except BaseException as exc:
        run.finish(RunStatus.FAILED, f"{type(exc).__name__}: {exc}")
        raise
    finally:
        fetcher.close()

