"""Flow ``backfill_archive``: archives and dumps → documents → lineage → search index."""

from __future__ import annotations

import os
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass

from prefect import flow

from affidavit.flows.context import publish_summary, sync_views, writing_run
from affidavit.flows.fanout import dask_client
from affidavit.flows.stages import Progress, index_task, ingest_task, lineage_task, refresh_lineage
from affidavit.schemas.enums import RunStatus
from affidavit.tasks.ingest_common import ColumnMapping
from affidavit.warehouse.home import configured_prefect_api


@dataclass
class BackfillResult:
    """Outcome of a backfill: the run id, counts and messages."""

    run_id: str
    counts: dict[str, int]
    messages: list[str]
    status: RunStatus


@flow(name="backfill_archive", log_prints=False, validate_parameters=False)
def backfill_archive(
    paths: Sequence[str],
    *,
    home: str | None = None,
    mapping: ColumnMapping | None = None,
    dask: str | None = None,
    progress: Progress | None = None,
) -> BackfillResult:
    """Ingest WARC/WET files and JSONL/Parquet/CSV dumps; update lineage and the search index.

    Resumable and idempotent: documents already stored are not added again, so a run killed
    half-way is simply run again.

    Args:
        paths: Files (or feed URLs) to read.
        home: affidavit home (default ``$AFFIDAVIT_HOME`` or ``./.affidavit``).
        mapping: Column mapping for dumps.
        dask: Dask scheduler address (or ``"local"`` for a temporary 2-worker cluster) for
            ingest parsing (one task per source) and the lineage stage; default
            ``$AFFIDAVIT_DASK_ADDRESS``, else both run in this process.
        progress: Progress callback (stage, rows).
    """
    dask = dask or os.environ.get("AFFIDAVIT_DASK_ADDRESS") or None
    with (writing_run(home, "backfill_archive", {"paths": list(paths)}) as (wh, run),
          dask_client(dask) if dask else nullcontext() as client):
        new_ids = ingest_task(wh, list(paths), run=run, mapping=mapping, progress=progress,
                              dask_client=client)
        # lineage and index also pick up documents a killed run stored but did not process
        if progress:
            progress("lineage", 0)
        if client is not None and dask != "local" and not configured_prefect_api():
            run.messages.append(
                "lineage on a remote Dask cluster runs Prefect tasks on its workers: without "
                "PREFECT_API_URL set here and on the workers, each worker starts a Prefect "
                "server of its own")
        if client is not None:  # a subflow on the Dask task runner: not wrapped in a task
            refresh_lineage(wh, new_ids, run=run, dask=client.scheduler.address)
        else:
            lineage_task(wh, new_ids, run=run)
        if progress:
            progress("index", 0)
        index_task(wh, new_ids, run=run)
        sync_views(wh, run)
        message = f"{run.counts['documents_added']} documents added"
        run.finish(RunStatus.COMPLETED, message)
        publish_summary(run, [], message=message, report_path=None)
    return BackfillResult(run.run_id, dict(run.counts), run.messages, RunStatus.COMPLETED)
