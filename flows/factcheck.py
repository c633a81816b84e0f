"""Flow ``factcheck``, the main job: feeds and/or claims → claims → research → verdicts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import polars as pl
from prefect import flow, task, unmapped
from prefect.cache_policies import NO_CACHE
from prefect.futures import as_completed
from prefect.task_runners import ThreadPoolTaskRunner

from affidavit.flows.context import (
    RunFailed,
    RunRecord,
    publish_summary,
    sync_views,
    utcnow,
    writing_run,
)
from affidavit.flows.fanout import (
    BATCH_RETRIES,
    CLAIMS_PER_BATCH,
    NO_READABLE_WORDS,
    BatchOutcome,
    BatchPool,
    BatchSpec,
    batch_pool,
    batch_spec,
    research_batch,
    split_batches,
)
from affidavit.flows.preflight import (
    NO_SEARCH_MESSAGE,
    Capabilities,
    max_judge_failure_share,
    run_preflight,
)
from affidavit.flows.publish import write_run_report
from affidavit.flows.reads import credibility_lists_from_env
from affidavit.flows.research_loop import ResearchResult
from affidavit.flows.stages import (
    Progress,
    index_task,
    ingest_task,
    lineage_task,
    next_fetch_seq,
    poll_task,
    record_fetches,
)
from affidavit.flows.supervise import retry_unless_interrupted
from affidavit.schemas.enums import Mode, RunStatus, VerdictStatus
from affidavit.schemas.fetches import FetchKind
from affidavit.tasks.claims import build_claim_rows, extract_claims, read_claims_file
from affidavit.tasks.feed_poll import fetch_row
from affidavit.tasks.fetch import (
    AllowList,
    FetchConfig,
    Fetcher,
    allow_list_from_env,
    parse_allow_list,
    strip_credentials,
)
from affidavit.tasks.input_checks import os_error_reason
from affidavit.tasks.opml import OpmlError, OpmlList, is_opml, parse_opml, read_opml
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
        reason = os_error_reason(exc) if isinstance(exc, OSError) else str(exc)
        run.counts["skip:source_unreadable"] += 1
        run.counts["sources_refused"] += 1
        run.messages.append(f"{path}: {reason}: refused")
        return []
    repairs = ("control_chars_removed", "replacement_chars", "non_utf8_text")
    run.counts.update({(f"repaired:{k}" if k in repairs else f"skip:{k}"): v
                       for k, v in skips.items()})
    run.messages.extend(messages)
    if not items and limit != 0:
        run.counts["sources_refused"] += 1
        why = ", ".join(f"{k} {v}" for k, v in sorted(skips.items())) or "it holds no claim rows"
        run.messages.append(f"{path}: no claim could be read ({why}): refused")
    dupes: Counter[str] = Counter()
    rows = build_claim_rows(items, now=now, origin=f"file:{path}", skips=dupes)
    run.counts.update({f"skip:{k}": v for k, v in dupes.items()})
    return rows




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


def unresolved_claims(wh: Warehouse) -> list[dict[str, Any]]:
    """Return the stored claims whose latest verdict is UNVERIFIED or PARTIAL (the ledger)."""
    df = wh.query(
        "select c.* from claims c join verdicts_latest v using (claim_id) "
        "where v.status in ('UNVERIFIED', 'PARTIAL') and c.is_researchable"
    )
    return df.to_dicts()


@task(name="research-batch", retries=BATCH_RETRIES, retry_delay_seconds=1, cache_policy=NO_CACHE,
      retry_condition_fn=retry_unless_interrupted)
def research_batch_task(batch_no: int, claims: list[dict[str, Any]], pool: BatchPool
                        ) -> BatchOutcome:
    """One Prefect task run per batch: research, decide and write it where ``pool`` runs batches.

    A failure is retried ``BATCH_RETRIES`` times; the batch's part files are rewritten, so a
    retry adds no duplicate rows.
    """
    return pool.run(batch_no, claims)


def research_in_batches(
    wh: Warehouse,
    run: RunRecord,
    claims: Sequence[Mapping[str, Any]],
    *,
    caps: Capabilities,
    mode: Mode,
    now: datetime,
    workers: int | None = None,
    dask: str | None = None,
    batch_size: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    fetcher: Fetcher | None = None,
) -> tuple[list[BatchOutcome], list[str]]:
    """Fan the claims out in batches, one Prefect task per batch; gather what each wrote.

    A batch that still fails after its retries is recorded (its claims get no verdict in this
    run); the other batches land.

    Args:
        wh: The warehouse.
        run: The run record (its counts and notes receive the batches').
        claims: The run's claims.
        caps: The preflight's search providers and judge.
        mode: Research mode.
        now: The run's clock.
        workers: Local worker processes (default ``$AFFIDAVIT_WORKERS`` or every core).
        dask: A Dask scheduler address or ``"local"`` (default ``$AFFIDAVIT_DASK_ADDRESS``).
        batch_size: Claims per batch (default ``CLAIMS_PER_BATCH``).
        progress: Called with (claims done, claims in all) as batches finish.
        fetcher: The guarded fetcher for pages found by web search (its settings go to workers).

    Returns:
        The outcomes of the batches that landed (in batch order) and one note per failed batch.
    """
    batches = split_batches(claims, batch_size or CLAIMS_PER_BATCH)
    lists = credibility_lists_from_env()

    def inline(batch_no: int, batch: Sequence[Mapping[str, Any]]) -> BatchOutcome:
        return research_batch(wh, batch, run_id=run.run_id, batch_no=batch_no, caps=caps,
                              mode=mode, now=now, credibility_lists=lists, fetcher=fetcher)

    def spec() -> BatchSpec:
        return batch_spec(wh, caps, run_id=run.run_id, mode=mode, now=now,
                          credibility_lists=lists,
                          fetch_config=getattr(fetcher, "config", None))

    outcomes: list[BatchOutcome] = []
    failed: list[str] = []
    done = 0

    def collect(batch_no: int, state: Any) -> None:
        nonlocal done
        if state.is_completed():
            outcomes.append(state.result())
        else:
            exc = state.result(raise_on_failure=False)
            failed.append(f"batch {batch_no + 1} of {len(batches)} ({len(batches[batch_no])} "
                          f"claims) failed after {BATCH_RETRIES} retries: "
                          f"{type(exc).__name__}: {exc}")
        done += len(batches[batch_no])
        if progress:
            progress(done, len(claims))

    with batch_pool(len(batches), run_inline=inline, make_spec=spec, workers=workers,
                    dask=dask) as pool:
        run.counts[f"batches_{pool.kind}"] += len(batches)
        if pool.kind == "inline":  # one after the other, in this process
            for i, batch in enumerate(batches):
                collect(i, research_batch_task(i, batch, pool, return_state=True))
        else:
            futures = research_batch_task.map(list(range(len(batches))), batches,
                                              unmapped(pool))
            index = {f.task_run_id: i for i, f in enumerate(futures)}
            for fut in as_completed(futures):
                fut.wait()
                collect(index[fut.task_run_id], fut.state)
    outcomes.sort(key=lambda o: o.batch_no)
    for o in outcomes:
        run.counts.update(o.counts)
        run.messages.extend(o.messages)
    return outcomes, failed


def unreadable_note(counts: Mapping[str, int]) -> str | None:
    """Return the run's warning about claims with no readable words, or ``None``.

    Args:
        counts: The run's counts, with ``no_readable_words:<script>`` keys (see
            :data:`affidavit.flows.fanout.NO_READABLE_WORDS`).

    >>> unreadable_note({"no_readable_words:Han": 2, "no_readable_words:Cyrillic": 1})[:53]
    '3 claim(s) with no readable words (Cyrillic 1, Han 2)'
    """
    by_script = {k.split(":", 1)[1]: v for k, v in counts.items()
                 if k.startswith(f"{NO_READABLE_WORDS}:") and v}
    if not by_script:
        return None
    listed = ", ".join(f"{k} {v}" for k, v in sorted(by_script.items()))
    return (f"{sum(by_script.values())} claim(s) with no readable words ({listed}): the default "
            "lexical judge reads Latin-script words and figures only; their verdicts say so")


def execute_research_run(
    wh: Warehouse,
    run: RunRecord,
    claims: list[dict[str, Any]],
    *,
    judge: str,
    mode: Mode,
    now: datetime,
    progress: Callable[[int, int], None] | None = None,
    workers: int | None = None,
    dask: str | None = None,
    batch_size: int | None = None,
    fetcher: Fetcher | None = None,
) -> FactcheckResult:
    """Preflight, research the claims in batches, report; finish the run record.

    ``fetcher`` fetches the pages found by web search (default: ``Fetcher()``, whose
    private-address setting comes from ``AFFIDAVIT_ALLOW_PRIVATE``).

    Raises:
        RunFailed: When research could not run (no search capability), a batch failed after
            its retries, or the judge failed on more than ``max_judge_failure_share`` of the
            pairs. The verdicts that were decided are written; the exception carries the
            result, and the Prefect flow run ends FAILED with the reason.
    """
    max_share = max_judge_failure_share()
    caps = run_preflight(wh, judge=judge)
    run.capabilities = caps.found
    run.degraded = list(caps.degraded)
    if not caps.can_search:
        run.finish(RunStatus.NO_CAPABILITY, NO_SEARCH_MESSAGE)
        res = FactcheckResult(run.run_id, RunStatus.NO_CAPABILITY, NO_SEARCH_MESSAGE,
                              counts=dict(run.counts), capabilities=caps.found,
                              degraded=caps.degraded, messages=run.messages)
        publish_summary(run, res.verdicts, message=NO_SEARCH_MESSAGE, report_path=None)
        raise RunFailed(NO_SEARCH_MESSAGE, res)
    wh.append_unique("claims", pl.DataFrame(claims, infer_schema_length=None))
    run.counts["claims"] += len(claims)
    outcomes, failed = research_in_batches(wh, run, claims, caps=caps, mode=mode, now=now,
                                           workers=workers, dask=dask, batch_size=batch_size,
                                           progress=progress, fetcher=fetcher)
    n_fallbacks = sum(o.n_fallbacks for o in outcomes)
    if n_fallbacks:
        note = f"LLM judge failed on {n_fallbacks} pair(s): lexical judge used for them"
        caps.degraded.append(note)
        run.degraded.append(note)
        run.counts["judge_fallbacks"] += n_fallbacks
    unread = unreadable_note(run.counts)
    if unread:
        caps.degraded.append(unread)
        run.degraded.append(unread)
    verdicts = [v for o in outcomes for v in o.verdicts]
    frames = [o.judgments for o in outcomes if o.judgments.height]
    result = ResearchResult(
        judgments=pl.concat(frames, how="diagonal_relaxed") if frames else pl.DataFrame(),
        queries=[], queries_tried={k: v for o in outcomes for k, v in o.queries_tried.items()},
        stop_reasons={k: v for o in outcomes for k, v in o.stop_reasons.items()},
        rounds_run={k: v for o in outcomes for k, v in o.rounds_run.items()},
    )
    report = write_report(wh, run, verdicts, result, now=now)
    sync_views(wh, run)
    n_res = sum(1 for v in verdicts if v["status"] != VerdictStatus.UNVERIFIED.value)
    message = (f"{len(verdicts)} claim(s) decided: {n_res} with admitted evidence, "
               f"{len(verdicts) - n_res} unverified")
    n_unread = sum(v for k, v in run.counts.items() if k.startswith(f"{NO_READABLE_WORDS}:"))
    if n_unread:
        message += f" ({n_unread} with no readable words)"
    n_pairs = sum(o.n_pairs for o in outcomes)
    n_fail = sum(o.n_judge_failures for o in outcomes)
    reasons = list(failed)
    if n_pairs and n_fail / n_pairs > max_share:
        reasons.append(f"the judge failed on {n_fail} of {n_pairs} pairs "
                       f"({n_fail / n_pairs:.0%} > {max_share:.0%})")
    status = RunStatus.FAILED if reasons else RunStatus.COMPLETED
    if reasons:
        message = "; ".join(reasons) + f" — {message}"
        run.messages.extend(failed)
    run.finish(status, message)
    res = FactcheckResult(
        run.run_id, status, message, verdicts=verdicts, counts=dict(run.counts),
        capabilities=caps.found, degraded=caps.degraded, messages=run.messages,
        report_path=str(report), judgments=result.judgments if result.judgments.height
        else None, stop_reasons=result.stop_reasons, rounds_run=result.rounds_run,
    )
    publish_summary(run, verdicts, message=message, report_path=str(report))
    if reasons:
        raise RunFailed(message, res)
    return res


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


def gather_claims(
    wh: Warehouse,
    run: RunRecord,
    *,
    now: datetime,
    claims_path: str | None,
    claim_texts: Sequence[str],
    feed_doc_ids: Sequence[str],
    from_unresolved: bool,
    limit: int | None,
    text_column: str | None,
) -> list[dict[str, Any]]:
    """Collect the run's claims (file, texts, feed documents, the ledger), first of each kept."""
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
    return unique[:limit] if limit is not None else unique


def ingest_feeds(wh: Warehouse, run: RunRecord, feeds: Sequence[str], *, now: datetime,
                 fetcher: Fetcher, progress: Progress | None) -> list[str]:
    """Ingest feed files and poll feed URLs (documents → lineage → index).

    Returns:
        The documents whose claims the run checks: what the feeds added, or a local feed file's
        stored entries when it added nothing.
    """
    if not feeds:
        return []
    doc_ids: list[str] = []
    files, urls, titles = expand_feed_sources(list(feeds), run=run, wh=wh, fetcher=fetcher)
    if files:
        refused_before = run.counts["sources_refused"]
        doc_ids = ingest_task(wh, files, run=run, progress=progress, kind="feed",
                              fetcher=fetcher)
        # local feed files are counted as polled feeds are: a refused one failed
        n_failed = min(len(files), run.counts["sources_refused"] - refused_before)
        run.counts["feeds_failed"] += n_failed
        run.counts["feeds_read"] += len(files) - n_failed
    polled = None
    if urls:
        polled = poll_task(wh, urls, run=run, fetcher=fetcher, now=now, titles=titles,
                           progress=progress)
        doc_ids = [*doc_ids, *polled.added]
    lineage_task(wh, doc_ids, run=run)
    index_task(wh, doc_ids, run=run)
    if files and not doc_ids:
        # a local file's entries already stored: still check their claims
        doc_ids = wh.read("documents", columns=["doc_id"],
                          where="source_path in (select unnest($p))",
                          params={"p": files})["doc_id"].to_list()
    if polled is not None and not (polled.read or files):
        run.messages.append(
            f"feeds: {len(polled.not_modified)} not modified, {len(polled.failed)} "
            f"failed, {len(polled.backed_off)} backed off: no new entries")
    return doc_ids


@flow(name="factcheck", log_prints=False, validate_parameters=False,
      task_runner=ThreadPoolTaskRunner(max_workers=64))
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
    allow_private: str | bool | None = None,
    workers: int | None = None,
    dask: str | None = None,
    batch_size: int | None = None,
    progress: Progress | None = None,
    round_progress: Callable[[int, int], None] | None = None,
) -> FactcheckResult:
    """Run the main job: ingest feeds, gather claims, research them in batches, write verdicts.

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
        allow_private: Non-public addresses the fetcher may reach: ``"all"``/True, a list of
            CIDR ranges and host names, or off; None reads ``AFFIDAVIT_ALLOW_PRIVATE``
            (recorded in ``runs.parameters``).
        workers: Local worker processes for the research batches (default
            ``$AFFIDAVIT_WORKERS`` or every core).
        dask: Dask scheduler address (or ``"local"``) for the research batches (default
            ``$AFFIDAVIT_DASK_ADDRESS``).
        batch_size: Claims per research batch (one Prefect task each; default
            ``affidavit.flows.fanout.CLAIMS_PER_BATCH``).
        progress: Ingest progress callback.
        round_progress: Research progress callback (claims done, claims in all).

    Raises:
        ValueError: For an unknown mode or judge, a bad ``allow_private`` value, or an OPML
            file that cannot be used.
        RunFailed: See ``execute_research_run``; the flow run ends FAILED with the reason.
    """
    mode_enum = Mode(mode)
    allow = resolve_allow_list(allow_private)
    params = {"feeds": [strip_credentials(f) for f in feeds], "claims": claims_path,
              "n_claim_texts": len(claim_texts), "limit": limit, "mode": mode, "judge": judge,
              "allow_private": allow.describe()}
    fetch_config = FetchConfig(allow_private=allow.allow_all, allow=allow)
    with writing_run(home, "factcheck", params) as (wh, run), Fetcher(fetch_config) as fetcher:
        now = run.started_at
        feed_doc_ids = ingest_feeds(wh, run, feeds, now=now, fetcher=fetcher, progress=progress)
        claims = gather_claims(wh, run, now=now, claims_path=claims_path,
                               claim_texts=claim_texts, feed_doc_ids=feed_doc_ids,
                               from_unresolved=from_unresolved, limit=limit,
                               text_column=text_column)
        if not claims:
            message = "no claims to check"
            if feeds and not feed_doc_ids:
                c = run.counts
                message += (f" (feeds: {c['feeds_not_modified']} not modified, "
                            f"{c['feeds_read']} read with no new entry, {c['feeds_failed']} "
                            f"failed, {c['feeds_backed_off']} backed off)")
            sync_views(wh, run)
            run.finish(RunStatus.COMPLETED, message)
            publish_summary(run, [], message=message, report_path=None)
            return FactcheckResult(run.run_id, RunStatus.COMPLETED, message,
                                   counts=dict(run.counts), messages=run.messages)
        return execute_research_run(wh, run, claims, judge=judge, mode=mode_enum, now=now,
                                    progress=round_progress, workers=workers, dask=dask,
                                    batch_size=batch_size, fetcher=fetcher)
