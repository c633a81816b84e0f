"""The lineage stage on Prefect's Dask task runner (scale-out).

Signatures run as one Prefect task per batch of documents, the LSH band join as one task per
group of bands (bands are independent: DESIGN.md, scale-out), candidate verification as one task per
batch of candidate pairs and the passage n-gram join as one task per partition of the hash
space (``affidavit.tasks.lineage_scale``). Word splitting, furniture judgements, runs of
shared n-grams and origins stay in the flow. The result equals
``affidavit.tasks.lineage.build_lineage`` (or ``update_lineage`` for an incremental run) on the
same documents.
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
    build_lineage,
    signatures_task,
    update_lineage,
)
from affidavit.tasks.lineage_scale import (
    band_group_join_task,
    cut_pair_batches,
    join_partition_task,
    pair_overlaps_task,
    partition_grams,
)
from affidavit.tasks.minhash import WordArrays

__all__ = ["run_lineage_on_dask", "update_lineage_on_dask"]

_DEFAULT_CONFIG = LineageConfig()

PAIRS_PER_TASK = 50_000
"""Candidate pairs verified by one task at most. A batch ships the words (13 bytes a word) of
the documents its pairs name: at most 100k documents, in practice far fewer (pairs come sorted
by first member, and copies share partners)."""

GRAMS_PER_PARTITION = 2_000_000
"""Kept n-gram rows joined by one passage task at most (~50 MB of the frame's columns)."""

MIN_WORK = {"band_keys": 1_500_000, "pairs": 5_000, "grams": 400_000}
"""Least work worth one task: about a second of it, against the ~0.3-1 s a Prefect task run on a
Dask worker costs. Measured in process on the three shared corpora (3,984 documents, a loaded
2-core machine): band join 1.6M band keys/s, verification 6,200 random candidate pairs/s,
passage join 380k n-gram rows/s. Less work than this goes in fewer pieces (one at least)."""


def _n_pieces(work: int, kind: str, most: int, cap: int) -> int:
    """Return how many pieces to cut ``work`` units of one kind into.

    At most ``most`` (every worker busy), none smaller than ``MIN_WORK[kind]``, none larger
    than ``cap``.

    >>> _n_pieces(10, "pairs", 4, 50_000), _n_pieces(12_000, "pairs", 4, 50_000)
    (1, 3)
    >>> _n_pieces(1_000_000, "pairs", 4, 50_000)
    20
    """
    return max(1, min(most, -(-work // MIN_WORK[kind])), -(-work // cap))


def _dask_runner(batch_size: int, n_workers: int = 2) -> StageRunner:
    """A StageRunner that submits Prefect tasks (to the flow's task runner).

    The band join, verification and the passage join are cut into up to ``2 * n_workers``
    pieces (so every worker has work while another piece is shipped), fewer when a piece
    would hold less than ``MIN_WORK``, more when it would exceed ``PAIRS_PER_TASK`` pairs or
    ``GRAMS_PER_PARTITION`` rows.
    """
    pieces = max(1, 2 * n_workers)

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
        n_groups = min(_n_pieces(keys.size, "band_keys", pieces, keys.size or 1), len(keys) or 1)
        groups = np.array_split(np.arange(len(keys)), n_groups)
        futures = [band_group_join_task.submit(keys[g], new_mask, empty_mask, max_bucket)
                   for g in groups if len(g)]
        return _union_pairs([f.result() for f in futures])

    def pair_overlaps(
        words: WordArrays, texts: pl.Series, a: np.ndarray, b: np.ndarray, config: MinHashConfig
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        n_batches = _n_pieces(len(a), "pairs", pieces, PAIRS_PER_TASK)
        batches = cut_pair_batches(words, texts if config.hash_scheme == "sha1" else None,
                                   a, b, n_batches=n_batches)
        futures = [pair_overlaps_task.submit(batch, config) for batch in batches]
        out = tuple(np.zeros(len(a), dtype=np.int64) for _ in range(3))
        for batch, fut in zip(batches, futures, strict=True):
            start, stop = batch.sel
            for arr, part in zip(out, fut.result(), strict=True):
                arr[start:stop] = part
        return out  # type: ignore[return-value]

    def passage_join(grams: pl.DataFrame) -> pl.DataFrame:
        n_parts = _n_pieces(grams.height, "grams", pieces, GRAMS_PER_PARTITION)
        futures = [join_partition_task.submit(p) for p in partition_grams(grams, n_parts)]
        parts = [f.result() for f in futures]
        return pl.concat(parts) if parts else pl.DataFrame(
            schema={"i": pl.Int64, "j": pl.Int64, "gi": pl.Int64, "gj": pl.Int64})

    return StageRunner(signatures=signatures, band_join=band_join,
                       pair_overlaps=pair_overlaps, passage_join=passage_join)


def _task_runner(address: str | None, n_workers: int) -> object:
    """Prefect's Dask task runner on ``address``, or on a temporary local cluster."""
    from prefect_dask import DaskTaskRunner

    if address:
        return DaskTaskRunner(address=address)
    from affidavit.flows.fanout import local_worker_env

    return DaskTaskRunner(
        cluster_kwargs={"n_workers": n_workers, "threads_per_worker": 1, "processes": True,
                        "dashboard_address": None, "env": local_worker_env()}
    )


def run_lineage_on_dask(
    docs: pl.DataFrame,
    *,
    address: str | None,
    config: LineageConfig = _DEFAULT_CONFIG,
    batch_size: int = 2000,
    n_workers: int = 2,
) -> LineageResult:
    """Build the lineage with its heavy stages as Prefect tasks on Dask.

    Args:
        docs: As for ``affidavit.tasks.lineage.build_lineage``.
        address: A Dask scheduler address (``tcp://host:8786``); ``None`` starts a temporary
            local cluster of ``n_workers`` worker processes.
        config: Lineage thresholds.
        batch_size: Documents per signature task.
        n_workers: Workers of the temporary local cluster; pieces of work are cut for this
            many workers (at least two pieces each).

    Returns:
        A ``LineageResult`` equal to ``build_lineage(docs, config=config)``.

    Raises:
        ValueError: When ``batch_size`` < 1 or required columns are missing.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be >= 1")
    from prefect import flow

    @flow(name="lineage-dask", task_runner=_task_runner(address, n_workers), log_prints=False)
    def lineage_flow(frame: pl.DataFrame) -> LineageResult:
        return build_lineage(frame, config=config, runner=_dask_runner(batch_size, n_workers))

    return lineage_flow(docs)


def update_lineage_on_dask(
    new_docs: pl.DataFrame,
    *,
    address: str | None,
    stored_docs: pl.DataFrame,
    stored_signatures: pl.DataFrame,
    stored_edges: pl.DataFrame,
    stored_passages: pl.DataFrame | pl.LazyFrame | None = None,
    stored_furniture: pl.DataFrame | None = None,
    stored_packed: pl.DataFrame | pl.LazyFrame | None = None,
    config: LineageConfig = _DEFAULT_CONFIG,
    batch_size: int = 2000,
    n_workers: int = 2,
) -> LineageResult:
    """Add documents to a stored lineage with the heavy stages as Prefect tasks on Dask.

    Incremental as ``affidavit.tasks.lineage.update_lineage``: only the new documents get
    signatures, only pairs touching one are verified and joined.

    Args:
        new_docs: As for ``update_lineage``.
        address: A Dask scheduler address; ``None`` starts a temporary local cluster of
            ``n_workers`` worker processes.
        stored_docs: As for ``update_lineage``.
        stored_signatures: As for ``update_lineage``.
        stored_edges: As for ``update_lineage``.
        stored_passages: As for ``update_lineage``.
        stored_furniture: As for ``update_lineage``.
        stored_packed: As for ``update_lineage``.
        config: Lineage thresholds.
        batch_size: Documents per signature task.
        n_workers: Workers of the temporary local cluster; pieces of work are cut for this
            many workers (at least two pieces each).

    Returns:
        A ``LineageResult`` equal to ``update_lineage`` on the same inputs.

    Raises:
        ValueError: As ``update_lineage``, or when ``batch_size`` < 1.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be >= 1")
    from prefect import flow

    # the inputs are closed over, not flow parameters: Prefect would record them with the run
    @flow(name="lineage-dask-update", task_runner=_task_runner(address, n_workers),
          log_prints=False)
    def lineage_update_flow() -> LineageResult:
        return update_lineage(
            new_docs, stored_docs=stored_docs, stored_signatures=stored_signatures,
            stored_edges=stored_edges, stored_passages=stored_passages,
            stored_furniture=stored_furniture, stored_packed=stored_packed, config=config,
            runner=_dask_runner(batch_size, n_workers),
        )

    return lineage_update_flow()
