"""The lineage stage on Prefect's Dask task runner equals the in-process run."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from affidavit.schemas.signatures import MinHashConfig
from affidavit.tasks.lineage import (
    LineageConfig,
    LineageResult,
    StageRunner,
    _local_band_join,
    _union_pairs,
    band_join_task,
    build_lineage,
    pair_overlaps,
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
from affidavit.tasks.lsh import band_keys, candidate_index_pairs
from affidavit.tasks.minhash import compute_signatures, shingle_hash_sets, word_arrays
from affidavit.tasks.passages import join_shared_ngrams
from affidavit.tasks.shingles import split_words
from tests.unit.test_lineage import DERIVED, INDEPENDENT, ORIGIN, OTHER, pool  # noqa: F401


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
    groups = _union_pairs([band_group_join_task.fn(keys[g], None, None, 500)
                           for g in np.array_split(np.arange(37), 4)])
    np.testing.assert_array_equal(groups[0], ci)
    np.testing.assert_array_equal(groups[1], cj)


def _same(a: LineageResult, b: LineageResult) -> None:
    assert a.signatures.equals(b.signatures)
    assert a.edges.equals(b.edges)
    assert a.origins.equals(b.origins)
    assert a.passages.equals(b.passages)
    assert a.furniture.sort(pl.all()).equals(b.furniture.sort(pl.all()))


def _split_store(docs: pl.DataFrame, config: LineageConfig) -> tuple[pl.DataFrame, dict]:
    """Store three documents' lineage; return the rest and ``update_lineage``'s stored inputs."""
    first = docs.filter(pl.col("doc_id").is_in(["origin", "independent", "other"]))
    stored = build_lineage(first, config=config)
    kwargs = dict(stored_docs=first.drop("text"), stored_signatures=stored.signatures,
                  stored_edges=stored.edges, stored_passages=stored.passages.lazy(),
                  stored_furniture=stored.furniture, config=config)
    return docs.filter(~pl.col("doc_id").is_in(first["doc_id"].to_list())), kwargs


@pytest.mark.parametrize("scheme", ["wordmix", "sha1"])
def test_pair_overlaps_in_batches_equal_the_exact_intersections(scheme):
    config = MinHashConfig(hash_scheme=scheme)
    texts = corpus()["text"].to_list()
    words = word_arrays([split_words(t) for t in texts])
    rng = np.random.default_rng(3)
    a, b = rng.integers(0, len(texts), 40), rng.integers(0, len(texts), 40)
    h, off = shingle_hash_sets(texts, config.shingles, scheme=scheme)
    want = [len(np.intersect1d(h[off[x]:off[x + 1]], h[off[y]:off[y + 1]]))
            for x, y in zip(a, b, strict=True)]
    shared, na, nb = pair_overlaps(words, texts, a, b, config)
    assert shared.tolist() == want
    assert na.tolist() == np.diff(off)[a].tolist()
    got = np.full(len(a), -1)
    batches = cut_pair_batches(words, texts if scheme == "sha1" else None, a, b, n_batches=3)
    assert len(batches) == 3
    for batch in batches:
        got[batch.sel[0]:batch.sel[1]] = pair_overlaps_task.fn(batch, config)[0]
    assert got.tolist() == want


def test_passage_join_by_hash_partitions_equals_one_join():
    rng = np.random.default_rng(5)
    n = 400
    grams = pl.DataFrame({
        "h": rng.integers(0, 40, n).astype(np.uint64), "g": np.arange(n, dtype=np.int64),
        "doc": rng.integers(0, 30, n).astype(np.int64),
        "cluster": rng.integers(0, 20, n).astype(np.int64),
        "is_new": rng.random(n) < 0.5,
    })
    whole = join_shared_ngrams(grams).sort(pl.all())
    assert whole.height > 0
    parts = partition_grams(grams, 4)
    assert len(parts) == 4
    assert sum(p.height for p in parts) == n
    joined = pl.concat([join_partition_task.fn(p) for p in parts]).sort(pl.all())
    assert joined.equals(whole)


def test_stage_runner_hooks_carry_verification_and_the_passage_join(pool):  # noqa: F811
    """With every hook set, the work goes through the hooks and the result is unchanged."""
    calls: dict[str, int] = {"overlaps": 0, "join": 0}

    def overlaps(words, texts, a, b, config):
        calls["overlaps"] += 1
        return pair_overlaps(words, texts, a, b, config)

    def join(grams):
        calls["join"] += 1
        return pl.concat([join_shared_ngrams(p) for p in partition_grams(grams, 3)])

    runner = StageRunner(signatures=compute_signatures, band_join=_local_band_join,
                         pair_overlaps=overlaps, passage_join=join)
    config = LineageConfig()
    _same(build_lineage(pool, config=config, runner=runner), build_lineage(pool, config=config))
    assert calls["overlaps"] >= 1
    assert calls["join"] == 1
    rest, kwargs = _split_store(pool, config)
    calls.update(overlaps=0, join=0)
    _same(update_lineage(rest, runner=runner, **kwargs), update_lineage(rest, **kwargs))
    assert calls["overlaps"] >= 1
    assert calls["join"] == 1


def test_build_and_update_on_a_local_dask_cluster_equal_in_process(pool, prefect_harness,  # noqa: F811
                                                                   monkeypatch):
    """Two worker processes: the build and an incremental update equal the in-process ones.

    The session's Prefect harness (tests/conftest.py) serves the flow; the workers get its API.
    """
    pytest.importorskip("prefect_dask")
    import affidavit.flows.lineage_dask as ld
    from affidavit.flows.fanout import dask_client
    from affidavit.flows.lineage_dask import run_lineage_on_dask, update_lineage_on_dask

    for kind in ld.MIN_WORK:  # several pieces of each kind even on this small corpus
        monkeypatch.setitem(ld.MIN_WORK, kind, 1)

    config = LineageConfig()
    rest, kwargs = _split_store(pool, config)
    with dask_client("local", workers=2) as client:
        address = client.scheduler.address
        built = run_lineage_on_dask(pool, address=address, config=config, batch_size=3)
        added = update_lineage_on_dask(rest, address=address, batch_size=2, **kwargs)
    _same(built, build_lineage(pool, config=config))
    ref = update_lineage(rest, **kwargs)
    _same(added, ref)
    assert sorted(added.signatures["doc_id"]) == sorted(rest["doc_id"])  # incremental
    assert ref.edges.height > 0
