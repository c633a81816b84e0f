"""The lineage stage on Prefect's Dask task runner (scale-out).

Signatures run as one Prefect task per batch of documents and the LSH band join as one task
per band (bands are independent: DESIGN.md, scale-out); verification, passages and origins
run in the flow. The result equals ``affidavit.tasks.lineage.build_lineage`` on the same documents.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from affidavit.schemas.signatures import MinHashConfig
from affidavit.tasks.lineage import (
    LineageConfig,
    LineageResult,
    StageRunner,
    _union_pairs,
    band_join_task,
    build_lineage,
    signatures_task,
)

__all__ = ["run_lineage_on_dask"]


def _dask_runner(batch_size: int) -> StageRunner:
    """A StageRunner that submits Prefect tasks (to the flow's task runner)."""

    def signatures(texts: list[str], config: MinHashConfig) -> tuple[np.ndarray, np.ndarray]:
        futures = [
            signatures_task.submit(texts[s : s + batch_size], config)
            for s in range(0, len(texts), batch_size)
        ]
        parts = [f.result() for f in futures]
        if not parts:
            return np.zeros((0, config.num_perm), np.uint32), np.zeros(0, np.int32)
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    def band_join(
        keys: np.ndarray,
        new_mask: np.ndarray | None,
        empty_mask: np.ndarray | None,
        max_bucket: int,
    ) -> tuple[np.ndarray, np.ndarray, int]:
        futures = [band_join_task.submit(k, new_mask, empty_mask, max_bucket) for k in keys]
        return _union_pairs([f.result() for f in futures])

    return StageRunner(signatures=signatures, band_join=band_join)


def run_lineage_on_dask(
    docs: pl.DataFrame,
    *,
    address: str | None,
    config: LineageConfig = LineageConfig(),
    batch_size: int = 2000,
    n_workers: int = 2,
) -> LineageResult:
    """Run the lineage stage with signatures and band joins as Prefect tasks on Dask.

    Args:
        docs: As for ``affidavit.tasks.lineage.build_lineage``.
        address: A Dask scheduler address (``tcp://host:8786``); ``None`` starts a temporary
            local cluster of ``n_workers`` worker processes.
        config: Lineage thresholds.
        batch_size: Documents per signature task.
        n_workers: Workers of the temporary local cluster (ignored with an address).

    Returns:
        A ``LineageResult`` equal to ``build_lineage(docs, config=config)``.

    Raises:
        ValueError: When ``batch_size`` < 1 or required columns are missing.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be >= 1")
    from prefect import flow
    from prefect_dask import DaskTaskRunner

    if address:
        task_runner = DaskTaskRunner(address=address)
    else:
        task_runner = DaskTaskRunner(
            cluster_kwargs={"n_workers": n_workers, "threads_per_worker": 1, "processes": True}
        )

    @flow(name="lineage-dask", task_runner=task_runner, log_prints=False)
    def lineage_flow(frame: pl.DataFrame) -> LineageResult:
        return build_lineage(frame, config=config, runner=_dask_runner(batch_size))

    return lineage_flow(docs)
