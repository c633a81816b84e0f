"""Stages shared by the flows: ingest into the warehouse, lineage, search index.

Each function is one batch step; the ``@task`` wrappers at the bottom make them Prefect task runs
(one per batch, never per row).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import polars as pl
from prefect import task
from prefect.cache_policies import NO_CACHE

from affidavit.flows.context import RunRecord, utcnow
from affidavit.schemas.fetches import FetchKind, FetchReason
from affidavit.tasks.feed_poll import FeedState, fetch_row, is_due, record_poll
from affidavit.tasks.fetch import Fetcher, FetchResult, strip_credentials
from affidavit.tasks.ingest import ingest_path
from affidavit.tasks.ingest_common import REPAIRS, ColumnMapping, IngestBatch, IngestTally
from affidavit.tasks.ingest_feeds import read_fetched
from affidavit.tasks.input_checks import os_error_reason
from affidavit.tasks.lineage import (
    LineageConfig,
    material_config,
    passage_packed_rows,
    update_lineage,
)
from affidavit.warehouse.search_index import SearchIndex
from affidavit.warehouse.store import Warehouse

Progress = Callable[[str, int], None]
"""Progress callback: (stage label, rows just done)."""


def ingest_sources(
    wh: Warehouse,
    sources: Sequence[str],
    *,
    run: RunRecord,
    mapping: ColumnMapping | None = None,
    fetcher: object | None = None,
    progress: Progress | None = None,
    kind: str | None = None,
    dask_client: object | None = None,
) -> list[str]:
    """Read every source (dump, feed, WARC, URL) in batches into ``documents``.

    Bad input is a counted skip with a message in ``run.messages``; a source that cannot be read
    at all (missing file, unknown format) is counted as ``source_unreadable`` and the others go on.
    With a Dask ``dask_client`` each source is parsed by a worker (``fanout.parse_source``) and
    the batches are stored here, in the order of ``sources`` (the same rows as in process).

    Returns:
        The doc_ids added by this call (already stored ones are not re-added).
    """
    added: list[str] = []
    known = wh.existing_keys("documents")  # read once, not once per batch
    sources = [strip_credentials(s) for s in sources]  # never shown or stored with a password
    mapping = mapping or ColumnMapping()
    parsed: dict[str, Any] = {}
    if dask_client is not None and fetcher is None:
        from affidavit.flows.fanout import parse_source

        submit = dask_client.submit  # type: ignore[attr-defined]
        parsed = {s: submit(parse_source, s, mapping, kind, pure=False)
                  for s in dict.fromkeys(sources)}
        run.counts["ingest_sources_on_dask"] += len(parsed)
    tally = IngestTally(run.counts, run.messages)  # counted as origins counts its inputs
    for source in sources:
        tally.begin(source)
        failure: str | None = None
        try:
            if source in parsed:  # parsed by a Dask worker
                batches, failure = parsed.pop(source).result()
            else:
                batches = ingest_path(source, mapping=mapping, fetcher=fetcher,
                                      kind=kind)  # type: ignore[arg-type]
            for batch in batches:
                tally.add(batch)
                docs = pl.from_arrow(batch.documents)
                assert isinstance(docs, pl.DataFrame)
                if docs.is_empty():
                    continue
                docs = docs.with_columns(pl.lit(run.run_id).alias("ingest_run_id"))
                new = wh.append_new("documents", docs, known=known)
                run.counts["documents_added"] += new.height
                added.extend(new["doc_id"].to_list())
                if progress:
                    progress(source, docs.height)
        except (OSError, ValueError) as exc:
            if isinstance(exc, OSError) and exc.errno in _DISK_ERRNOS:
                raise  # a full or failing disk is not the input's fault: stop the run
            # missing, a directory, a symlink loop, no permission: said by its errno
            failure = str(exc) if isinstance(exc, ValueError) else os_error_reason(exc)
        except Exception as exc:  # noqa: BLE001 - no input file may crash the batch
            failure = f"cannot be read ({type(exc).__name__}: {str(exc)[:200]})"
        tally.end(source, failure)
    return added


_DISK_ERRNOS = frozenset({28, 5, 30, 122})
"""ENOSPC (disk full), EIO, EROFS, EDQUOT: errors of the disk the home is on, not of an input."""


FEED_PARSE_FAILURES = frozenset({"malformed_feed", "not_a_feed", "xml_entity_declaration",
                                 "feed_error", "empty_feed", "too_large", "empty_extraction"})
"""Skip reasons that mean a 2xx body was not a usable feed (the poll counts as a failure)."""


def _count_batch(run: RunRecord, batch: IngestBatch) -> None:
    run.counts.update({(f"repaired:{k}" if k in REPAIRS else f"skip:{k}"): v
                       for k, v in batch.skips.items()})
    run.messages.extend(batch.messages)


def record_fetches(wh: Warehouse, run: RunRecord, rows: Sequence[Mapping[str, Any]]) -> int:
    """Write ``fetches`` rows and count their outcomes in the run (``fetch:<reason>``).

    Returns:
        Number of rows written.
    """
    if not rows:
        return 0
    for r in rows:
        run.counts[f"fetch:{r['reason']}"] += 1
    return wh.write("fetches", pl.DataFrame(list(rows), infer_schema_length=None))


def next_fetch_seq(run: RunRecord) -> int:
    """Return the next ``fetches`` sequence number of the run (counted in ``run.counts``)."""
    run.counts["fetches"] += 1
    return run.counts["fetches"]


@dataclass
class PollResult:
    """What one poll of a list of feed URLs did.

    Attributes:
        added: doc_ids added from the feeds' new entries.
        read: Feeds whose body was downloaded and parsed (2xx).
        not_modified: Feeds that answered 304 (nothing parsed).
        backed_off: Feeds not fetched because they are backed off.
        failed: Feeds whose fetch or parse failed.
    """

    added: list[str] = field(default_factory=list)
    read: list[str] = field(default_factory=list)
    not_modified: list[str] = field(default_factory=list)
    backed_off: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)


def poll_feeds(
    wh: Warehouse,
    urls: Sequence[str],
    *,
    run: RunRecord,
    fetcher: Fetcher,
    now: datetime | None = None,
    titles: Mapping[str, str | None] | None = None,
    progress: Progress | None = None,
) -> PollResult:
    """Poll feed URLs like a feed reader: conditional GET, per-feed state, backoff.

    Each due feed is fetched with the ETag / Last-Modified of its last answer (``feeds``). A 304
    is counted and nothing is parsed; a 2xx body is parsed and its new entries stored; a failure
    advances the feed's backoff (:mod:`affidavit.tasks.feed_poll`). A feed still backed off is
    not fetched, and is reported. Every attempt (and every backed-off skip) leaves a
    ``fetches`` row; ``feeds`` is rewritten with the new state.

    Args:
        wh: The warehouse.
        urls: Feed URLs (credentials already stripped).
        run: The run (counts, messages).
        fetcher: The guarded fetcher.
        now: The poll time (UTC); the current time when None.
        titles: Feed titles by URL (from an OPML list).
        progress: Progress callback (label, entries read).

    Returns:
        A :class:`PollResult`.
    """
    now = now or utcnow()
    titles = titles or {}
    states = {r["feed_url"]: FeedState.from_row(r) for r in wh.read("feeds").to_dicts()}
    out = PollResult()
    rows: list[dict[str, Any]] = []
    urls = list(dict.fromkeys(urls))
    due = [u for u in urls if is_due(states.get(u), now)]
    for u in urls:
        if u in due:
            continue
        st = states[u]
        out.backed_off.append(u)
        run.counts["feeds_backed_off"] += 1
        run.messages.append(
            f"{u}: backed off after {st.consecutive_failures} failures in a row "
            f"(last: {st.last_error or st.last_reason}); next poll at "
            f"{st.next_poll_at:%Y-%m-%d %H:%M} UTC")
        rows.append(fetch_row(None, run_id=run.run_id, seq=next_fetch_seq(run), kind=FetchKind.FEED,
                              fetched_at=now, url=u, reason=FetchReason.BACKED_OFF,
                              error=f"{st.consecutive_failures} consecutive failures"))
    validators = {u: (states[u].etag, states[u].last_modified) for u in due if u in states}
    results: list[FetchResult] = fetcher.fetch_many(due, validators=validators)
    known = wh.existing_keys("documents")
    for url, res in zip(due, results, strict=True):
        n_entries = n_added = 0
        parse_failed, parse_error = False, None
        if res.not_modified:
            out.not_modified.append(url)
            run.counts["feeds_not_modified"] += 1
        elif res.ok:
            batch = read_fetched(res, now=now, pages=False)  # a page is no feed
            _count_batch(run, batch)
            docs = pl.from_arrow(batch.documents)
            assert isinstance(docs, pl.DataFrame)
            n_entries = docs.height
            run.counts["documents_read"] += docs.height
            bad = sorted(k for k in batch.skips if k in FEED_PARSE_FAILURES)
            if docs.is_empty() and bad:
                parse_failed = True
                parse_error = next((m for m in batch.messages if m.startswith(url)), bad[0])
            if not docs.is_empty():
                docs = docs.with_columns(pl.lit(run.run_id).alias("ingest_run_id"))
                new = wh.append_new("documents", docs, known=known)
                n_added = new.height
                run.counts["documents_added"] += n_added
                out.added.extend(new["doc_id"].to_list())
            if not parse_failed:
                run.counts["feeds_read"] += 1
            if progress:
                progress(url, n_entries)
        state = record_poll(states.get(url), res, url=url, now=now, n_entries=n_entries,
                            n_added=n_added, parse_failed=parse_failed, parse_error=parse_error,
                            title=titles.get(url))
        states[url] = state
        if res.ok and not parse_failed:
            out.read.append(url)
        elif not res.not_modified:
            out.failed.append(url)
            run.counts["feeds_failed"] += 1
            # an input that could not be read (blocked by the address guard, an HTTP error,
            # too large, not a feed): the command exits non-zero after the others are read, as
            # for a local feed file (README, Exit codes); backed-off feeds were not polled
            run.counts["sources_refused"] += 1
            backoff = (f"backed off until {state.next_poll_at:%Y-%m-%d %H:%M} UTC"
                       if state.is_backed_off else "polled again at the next run")
            run.messages.append(f"{url}: feed failed ({state.last_error}); "
                                f"{state.consecutive_failures} failure(s) in a row, {backoff}")
        rows.append(fetch_row(res, run_id=run.run_id, seq=next_fetch_seq(run), kind=FetchKind.FEED,
                              fetched_at=now, doc_ids_added=n_added if res.ok else None))
    record_fetches(wh, run, rows)
    if states:
        wh.replace("feeds", pl.DataFrame([s.to_row() for s in states.values()],
                                         infer_schema_length=None))
    return out


_PACK_BATCH = 20_000
"""Documents whose passage material ``_pack_stored_packed`` reads at once (~1.2 GB of lists
at ~3 KB a document)."""


def _pack_stored_packed(wh: Warehouse, stored_ids: set[str], config: LineageConfig) -> int:
    """Store the packed passage material (``passage_packed``) of stored documents without it.

    A home from before the table was kept, or a run killed between storing a document's
    passage material and its packed form, has some; they are packed from ``passage_grams``
    once, so that the update reads flat arrays (``update_lineage``'s ``stored_packed``).

    Returns:
        Number of rows added.
    """
    cfg = material_config(config)
    packed = set(wh.read("passage_packed", columns=["doc_id"], where="config = ?",
                         params=[cfg])["doc_id"].to_list())
    todo = sorted(stored_ids - packed)
    n = 0
    for a in range(0, len(todo), _PACK_BATCH):
        ids = pl.Series(todo[a : a + _PACK_BATCH], dtype=pl.String)
        rows = (
            wh.scan("passage_grams")
            .filter((pl.col("config") == cfg) & pl.col("doc_id").is_in(ids.implode()))
            .unique(["doc_id", "config"], keep="first")
            .collect()
        )
        n += wh.append_unique("passage_packed", passage_packed_rows(rows))
    return n


def refresh_lineage(wh: Warehouse, new_doc_ids: Sequence[str], *, run: RunRecord,
                    config: LineageConfig | None = None, dask: str | None = None) -> int:
    """Add the new documents' signatures and lineage edges; recompute ``origins``.

    Documents without a signature (stored by a run killed before this stage) count as new.
    Only the new documents' signatures are computed; their bands are joined against the stored
    ones (``affidavit.tasks.lineage.update_lineage``). With ``dask`` (a scheduler address, or
    ``"local"`` for a temporary local cluster) the same incremental update runs its
    signatures, band joins, candidate verification and passage join as Prefect tasks on Dask
    (``affidavit.flows.lineage_dask``); the result equals the in-process one.

    Returns:
        Number of new lineage edges.
    """
    config = config or LineageConfig()
    cols = ["doc_id", "host", "published_at", "wayback_first_seen"]
    all_docs = wh.read("documents", columns=cols)
    # documents stored by a run killed before its lineage stage have no signature yet
    signed = set(wh.read("signatures", columns=["doc_id"])["doc_id"].to_list())
    new_doc_ids = sorted(set(new_doc_ids) | (set(all_docs["doc_id"].to_list()) - signed))
    if not new_doc_ids:
        return 0
    # stored texts are read only when some stored document has no passage material (a home
    # from before it was kept): that run splits them once and stores their material
    with_material = set(
        wh.read("passage_grams", columns=["doc_id"], where="config = ?",
                params=[material_config(config)])["doc_id"].to_list()
    )
    is_new = pl.col("doc_id").is_in(list(set(new_doc_ids)))
    stored_ids = set(all_docs.filter(~is_new)["doc_id"].to_list())
    from_store = stored_ids <= with_material
    if from_store:
        _pack_stored_packed(wh, stored_ids, config)
    text_ids = set(new_doc_ids) if from_store else set(all_docs["doc_id"].to_list())
    texts = wh.texts(sorted(text_ids)).select("doc_id", "text")
    all_docs = all_docs.join(texts, on="doc_id", how="left")
    lineage_inputs = dict(
        stored_docs=all_docs.filter(~is_new).drop("text") if from_store
        else all_docs.filter(~is_new),
        stored_signatures=wh.read("signatures"),
        stored_edges=wh.read("lineage_edges"),
        stored_passages=wh.scan("passage_grams") if from_store else None,
        stored_furniture=wh.read("passage_furniture") if from_store else None,
        stored_packed=wh.scan("passage_packed") if from_store else None,
        config=config,
    )
    if dask:
        # incremental on the cluster too: only the new documents' work is sent
        from affidavit.flows.lineage_dask import update_lineage_on_dask

        result = update_lineage_on_dask(all_docs.filter(is_new),
                                        address=None if dask == "local" else dask,
                                        **lineage_inputs)  # type: ignore[arg-type]
        run.counts["lineage_on_dask"] += 1
    else:
        result = update_lineage(all_docs.filter(is_new), **lineage_inputs)  # type: ignore[arg-type]
    # signatures last: a document with a signature is done, so a run killed before that point
    # recomputes its lineage next time (edges are keyed, so nothing is added twice)
    n_edges = wh.append_unique("lineage_edges", result.edges)
    run.counts["lineage_edges_added"] += n_edges
    wh.replace("origins", result.origins)
    # a large build returns its passage material as Parquet parts: appended a part at a time
    grams_known = wh.existing_keys("passage_grams")
    packed_known = wh.existing_keys("passage_packed")
    for part in result.passage_batches():
        wh.append_new("passage_grams", part, known=grams_known)
        wh.append_new("passage_packed", passage_packed_rows(part), known=packed_known)
    wh.replace("passage_furniture", result.furniture)
    run.counts["signatures_added"] += wh.append_unique("signatures", result.signatures)
    run.messages.extend(result.notes)
    return n_edges


def refresh_index(wh: Warehouse, new_doc_ids: Sequence[str], *, run: RunRecord) -> int:
    """Add the new documents to the archive's full-text index.

    Returns:
        Number of documents indexed.
    """
    index = SearchIndex.open(wh.paths.index)
    ids = list(new_doc_ids)
    missing = set(wh.read("documents", columns=["doc_id"])["doc_id"].to_list()) - index.doc_ids()
    ids = sorted(set(ids) | missing)
    n = index_documents(wh, index, ids)
    run.counts["documents_indexed"] += n
    return n


def index_documents(wh: Warehouse, index: SearchIndex, ids: Sequence[str]) -> int:
    """Add the stored documents ``ids`` (title and text) to ``index``; return how many."""
    if not ids:
        return 0
    docs = wh.texts(ids)
    rows: Iterable[tuple[str, str, str]] = zip(
        docs["doc_id"].to_list(),
        docs["title"].fill_null("").to_list(),
        docs["text"].fill_null("").to_list(),
        strict=True,
    )
    return index.add(rows)


ingest_task = task(ingest_sources, name="ingest", cache_policy=NO_CACHE)
poll_task = task(poll_feeds, name="poll-feeds", cache_policy=NO_CACHE)
lineage_task = task(refresh_lineage, name="lineage", cache_policy=NO_CACHE)
index_task = task(refresh_index, name="index", cache_policy=NO_CACHE)


def materialize_web_hits(
    wh: Warehouse,
    hits: Sequence[object],
    *,
    run: RunRecord,
    fetcher: object | None = None,
) -> dict[str, str]:
    """Turn web search hits (a URL, no doc_id) into stored documents; return url → doc_id.

    A URL already stored (same canonical URL) is not fetched again. A page that cannot be
    fetched or yields no text keeps the hit's title and snippet as a snippet-only document:
    quotable, never dropped (DESIGN.md, Ingest).
    """
    from affidavit.tasks.extract import extract_html, note_page_repairs
    from affidavit.tasks.ingest_common import parse_datetime, rows_to_documents
    from affidavit.tasks.urls import canonicalize_url

    by_url: dict[str, object] = {}
    for h in hits:
        url = getattr(h, "url", None)
        if url and url not in by_url:
            by_url[url] = h
    if not by_url:
        return {}
    canon = {u: canonicalize_url(u) for u in by_url}
    stored = wh.read("documents", columns=["doc_id", "canonical_url"],
                     where="canonical_url in (select unnest($c))",
                     params={"c": sorted(set(canon.values()))})
    known = dict(zip(stored["canonical_url"].to_list(), stored["doc_id"].to_list(), strict=True))
    out = {u: known[c] for u, c in canon.items() if c in known}
    todo = [u for u in by_url if u not in out]
    if not todo:
        return out

    def note(reason: str, message: str) -> None:
        run.counts[f"repaired:{reason}"] += 1
        run.messages.append(message)

    f = fetcher if fetcher is not None else Fetcher()
    fetched_at = utcnow()
    results = f.fetch_many(todo)  # type: ignore[attr-defined]
    web_rows, snippet_rows = [], []
    fetch_rows: dict[str, dict[str, Any]] = {}
    for url, res in zip(todo, results, strict=True):
        hit = by_url[url]
        page = None
        fetch_rows[url] = fetch_row(res, run_id=run.run_id, seq=next_fetch_seq(run),
                                    kind=FetchKind.PAGE, fetched_at=fetched_at, doc_ids_added=0)
        if res.error is None and res.status is not None and res.status < 400 and res.content:
            page = extract_html(res.content, url=res.final_url or url,
                                content_type=res.headers.get("content-type"))
            if page is not None:
                note_page_repairs(page, url, note)
        if page is not None and page.text.strip():
            web_rows.append({"url": url, "title": page.title or getattr(hit, "title", None),
                             "text": page.text, "author": page.author,
                             "published_at": page.published_at,
                             "published_at_raw": page.published_at_raw, "lang": page.lang,
                             "http_status": res.status, "fetched_at": fetched_at})
        else:
            run.counts["fetch_failed_snippet_kept"] += 1
            if res.ok:
                fetch_rows[url]["error"] = "no main text in the page: search snippet kept"
            title = getattr(hit, "title", None)
            text = " ".join(x for x in (title, getattr(hit, "snippet", None)) if x)
            raw_date = getattr(hit, "published_at_raw", None)
            snippet_rows.append({"url": url, "title": title, "text": text,
                                 "published_at": parse_datetime(raw_date) if raw_date else None,
                                 "published_at_raw": raw_date, "http_status": res.status,
                                 "fetched_at": fetched_at})
    new_ids: list[str] = []
    for rows, kind, is_snip in ((web_rows, "web", False), (snippet_rows, "snippet", True)):
        if not rows:
            continue
        batch = rows_to_documents(rows, source_kind=kind, source_path=None)
        run.counts.update({f"skip:{k}": v for k, v in batch.skips.items()})
        docs = pl.from_arrow(batch.documents)
        assert isinstance(docs, pl.DataFrame)
        if docs.is_empty():
            continue
        docs = docs.with_columns(pl.lit(is_snip).alias("is_snippet_only"),
                                 pl.lit(run.run_id).alias("ingest_run_id"))
        new = wh.append_new("documents", docs)
        new_ids.extend(new["doc_id"].to_list())
        added = set(new["doc_id"].to_list())
        for u, d in zip(docs["url"].to_list(), docs["doc_id"].to_list(), strict=True):
            out[u] = d
            if u in fetch_rows and d in added:
                fetch_rows[u]["doc_ids_added"] = 1
    record_fetches(wh, run, list(fetch_rows.values()))
    run.counts["web_documents_added"] += len(new_ids)
    if new_ids:
        refresh_lineage(wh, new_ids, run=run)
        refresh_index(wh, new_ids, run=run)
    return out
