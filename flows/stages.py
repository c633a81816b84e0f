"""Stages shared by the flows: ingest into the warehouse, lineage, search index.

Each function is one batch step; the ``@task`` wrappers at the bottom make them Prefect task runs
(one per batch, never per row).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import polars as pl
from prefect import task
from prefect.cache_policies import NO_CACHE

from affidavit.flows.context import RunRecord
from affidavit.tasks.ingest import ingest_path
from affidavit.tasks.ingest_common import ColumnMapping
from affidavit.tasks.lineage import LineageConfig, update_lineage
from affidavit.warehouse.search_index import SearchIndex
from affidavit.warehouse.store import Warehouse

REPAIRS = frozenset({"non_utf8_text", "nul_removed", "malformed_feed_recovered",
                     "bad_chunked_body_kept_raw", "content_encoding_already_decoded",
                     "text_truncated", "control_chars_removed", "date_untrusted",
                     "replacement_chars", "escaped_cdata_unwrapped", "title_only_entry",
                     "page_truncated", "charset_declared_wrong", "warc_digest_mismatch",
                     "warc_version_unknown", "content_html_preferred"})
"""Ingest counters that record a repair or a warning about a row that was kept, not a skip."""

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
) -> list[str]:
    """Read every source (dump, feed, WARC, URL) in batches into ``documents``.

    Bad input is a counted skip with a message in ``run.messages``; a source that cannot be read
    at all (missing file, unknown format) is counted as ``source_unreadable`` and the others go on.

    Returns:
        The doc_ids added by this call (already stored ones are not re-added).
    """
    added: list[str] = []
    known = wh.existing_keys("documents")  # read once, not once per batch
    for source in sources:
        n_read = 0
        n_skipped = 0
        failure: str | None = None
        try:
            batches = ingest_path(source, mapping=mapping or ColumnMapping(), fetcher=fetcher,
                                  kind=kind)  # type: ignore[arg-type]
            for batch in batches:
                run.counts.update({(f"repaired:{k}" if k in REPAIRS else f"skip:{k}"): v
                                   for k, v in batch.skips.items()})
                n_skipped += sum(v for k, v in batch.skips.items() if k not in REPAIRS)
                run.messages.extend(batch.messages)
                docs = pl.from_arrow(batch.documents)
                assert isinstance(docs, pl.DataFrame)
                run.counts["documents_read"] += docs.height
                n_read += docs.height
                if docs.is_empty():
                    continue
                docs = docs.with_columns(pl.lit(run.run_id).alias("ingest_run_id"))
                new = wh.append_new("documents", docs, known=known)
                run.counts["documents_added"] += new.height
                added.extend(new["doc_id"].to_list())
                if progress:
                    progress(source, docs.height)
        except FileNotFoundError:
            failure = "no such file"
        except IsADirectoryError:
            failure = "is a directory, not a file"
        except PermissionError as exc:
            failure = f"permission denied ({exc.strerror or exc})"
        except (OSError, ValueError) as exc:
            if isinstance(exc, OSError) and exc.errno in _DISK_ERRNOS:
                raise  # a full or failing disk is not the input's fault: stop the run
            failure = str(exc) if isinstance(exc, ValueError) else (exc.strerror or str(exc))
        except Exception as exc:  # noqa: BLE001 - no input file may crash the batch
            failure = f"cannot be read ({type(exc).__name__}: {str(exc)[:200]})"
        if failure is not None:
            run.counts["skip:source_unreadable"] += 1
            name = source.rsplit("/", 1)[-1]
            if failure.startswith((source, name)):  # the reader's message names the file
                failure = failure.split(": ", 1)[1] if ": " in failure else failure
            if not failure.endswith(("skipped", "refused")):
                failure += ": refused"
            run.messages.append(f"{source}: {failure}")
        if n_read == 0 and (failure is not None or n_skipped):
            # nothing at all came out of this input: it is refused, and the command says so
            run.counts["sources_refused"] += 1
    return added


_DISK_ERRNOS = frozenset({28, 5, 30, 122})
"""ENOSPC (disk full), EIO, EROFS, EDQUOT: errors of the disk the home is on, not of an input."""


def refresh_lineage(wh: Warehouse, new_doc_ids: Sequence[str], *, run: RunRecord,
                    config: LineageConfig | None = None, dask: str | None = None) -> int:
    """Add the new documents' signatures and lineage edges; recompute ``origins``.

    Documents without a signature (stored by a run killed before this stage) count as new.
    Only the new documents' signatures are computed; their bands are joined against the stored
    ones (``affidavit.tasks.lineage.update_lineage``). With ``dask`` (a scheduler address, or
    ``"local"``
    for a temporary local cluster) the lineage is rebuilt with signatures and band joins as
    Prefect tasks on Dask (``affidavit.flows.lineage_dask``); the result equals the incremental
    one, and
    only rows not stored yet are added.

    Returns:
        Number of new lineage edges.
    """
    cols = ["doc_id", "text", "host", "published_at", "wayback_first_seen"]
    all_docs = wh.read("documents", columns=cols)
    # documents stored by a run killed before its lineage stage have no signature yet
    signed = set(wh.read("signatures", columns=["doc_id"])["doc_id"].to_list())
    new_doc_ids = sorted(set(new_doc_ids) | (set(all_docs["doc_id"].to_list()) - signed))
    if not new_doc_ids:
        return 0
    if dask:
        from affidavit.flows.lineage_dask import run_lineage_on_dask

        result = run_lineage_on_dask(all_docs, address=None if dask == "local" else dask,
                                     config=config or LineageConfig())
        run.counts["lineage_on_dask"] += 1
    else:
        is_new = pl.col("doc_id").is_in(list(set(new_doc_ids)))
        result = update_lineage(
            all_docs.filter(is_new),
            stored_docs=all_docs.filter(~is_new),
            stored_signatures=wh.read("signatures"),
            stored_edges=wh.read("lineage_edges"),
            config=config or LineageConfig(),
        )
    # signatures last: a document with a signature is done, so a run killed before that point
    # recomputes its lineage next time (edges are keyed, so nothing is added twice)
    n_edges = wh.append_unique("lineage_edges", result.edges)
    run.counts["lineage_edges_added"] += n_edges
    wh.replace("origins", result.origins)
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
    from affidavit.tasks.fetch import Fetcher
    from affidavit.tasks.ingest_common import rows_to_documents
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
    results = f.fetch_many(todo)  # type: ignore[attr-defined]
    web_rows, snippet_rows = [], []
    for url, res in zip(todo, results, strict=True):
        hit = by_url[url]
        page = None
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
                             "http_status": res.status})
        else:
            run.counts["fetch_failed_snippet_kept"] += 1
            text = " ".join(x for x in (getattr(hit, "title", None), getattr(hit, "snippet", None))
                            if x)
            snippet_rows.append({"url": url, "title": getattr(hit, "title", None), "text": text,
                                 "http_status": res.status})
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
        for u, d in zip(docs["url"].to_list(), docs["doc_id"].to_list(), strict=True):
            out[u] = d
    run.counts["web_documents_added"] += len(new_ids)
    if new_ids:
        refresh_lineage(wh, new_ids, run=run)
        refresh_index(wh, new_ids, run=run)
    return out
