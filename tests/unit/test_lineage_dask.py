"""The lineage stage on Prefect's Dask task runner equals the in-process run."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from affidavit.tasks.lineage import (
    LineageConfig,
    _local_band_join,
    band_join_task,
    build_lineage,
    signatures_task,
)
from affidavit.tasks.lsh import band_keys, candidate_index_pairs
from affidavit.tasks.minhash import compute_signatures
from tests.unit.test_lineage import DERIVED, INDEPENDENT, ORIGIN, OTHER


def corpus() -> pl.DataFrame:
    texts = [
        ORIGIN,
        "Home | News\n" + ORIGIN,
        ORIGIN[:600],
        DERIVED,
        INDEPENDENT,
        OTHER,
        "",
        "short one",
    ]
    return pl.DataFrame(
        {
            "doc_id": [f"d{i}" for i in range(len(texts))],
            "text": texts,
            "host": [
                "a.example",
                "b.example",
                "c.example",
                "b.example",
                "a.example",
                "d.example",
                None,
                None,
            ],
        }
    )


def test_task_bodies_and_band_union():
    texts = corpus()["text"].to_list()
    sigs, n = signatures_task.fn(texts)
    ref_sigs, ref_n = compute_signatures(texts)
    np.testing.assert_array_equal(sigs, ref_sigs)
    np.testing.assert_array_equal(n, ref_n)
    keys = band_keys(sigs, bands=37, rows=3)
    per_band = [band_join_task.fn(k) for k in keys]
    assert all(len(p) == 3 for p in per_band)
    union = _local_band_join(keys, None, None, 500)
    ci, cj, _ = candidate_index_pairs(sigs, bands=37, rows=3)
    np.testing.assert_array_equal(union[0], ci)
    np.testing.assert_array_equal(union[1], cj)


def test_run_on_a_local_dask_cluster_equals_in_process(tmp_path, monkeypatch):
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect"))
    monkeypatch.setenv("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    monkeypatch.setenv("DO_NOT_TRACK", "1")
    pytest.importorskip("prefect_dask")
    from prefect.testing.utilities import prefect_test_harness

    from affidavit.flows.lineage_dask import run_lineage_on_dask

    docs = corpus()
    config = LineageConfig()
    with prefect_test_harness():
        res = run_lineage_on_dask(docs, address=None, config=config, batch_size=3, n_workers=2)
    ref = build_lineage(docs, config=config)
    assert res.signatures.equals(ref.signatures)
    assert res.edges.equals(ref.edges)
    assert res.origins.equals(ref.origins)
    assert res.edges.height > 0
