"""Tests for tasks.minhash and tasks.lsh: equality with datasketch."""

from __future__ import annotations

import numpy as np
import pytest
from datasketch import MinHash, MinHashLSH
from datasketch.lsh import _optimal_param
from hypothesis import given, settings
from hypothesis import strategies as st

from affidavit.schemas.signatures import MinHashConfig, ShingleConfig
from affidavit.tasks.lsh import find_candidates, optimal_bands
from affidavit.tasks.minhash import (
    EMPTY_HASH,
    compute_signatures,
    word_arrays,
    word_arrays_from_texts,
    wordmix_hash32,
)
from affidavit.tasks.shingles import shingle_text, split_words

WORDS = st.sampled_from(
    [
        "oil",
        "price",
        "rose",
        "fell",
        "bank",
        "rate",
        "the",
        "a",
        "of",
        "said",
        "ÉTÉ",
        "naïve",
        "—",
        "42%",
    ]
)
TEXTS = st.lists(WORDS, max_size=60).map(" ".join)


def datasketch_signature(text: str, config: MinHashConfig) -> np.ndarray:
    hashfunc = {"hashfunc": wordmix_hash32} if config.hash_scheme == "wordmix" else {}
    m = MinHash(num_perm=config.num_perm, seed=config.seed, **hashfunc)
    m.update_batch(shingle_text(text, config.shingles))
    return m.hashvalues


@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(st.one_of(TEXTS, st.text(max_size=80)), min_size=1, max_size=8),
    num_perm=st.sampled_from([1, 16, 128, 200]),
    seed=st.integers(0, 2**31 - 1),
    k=st.integers(1, 5),
    scheme=st.sampled_from(["wordmix", "sha1"]),
)
def test_signatures_equal_datasketch_bit_for_bit(texts, num_perm, seed, k, scheme):
    """Both schemes equal datasketch (wordmix: with ``hashfunc=wordmix_hash32``)."""
    config = MinHashConfig(
        num_perm=num_perm, seed=seed, shingles=ShingleConfig(k=k), hash_scheme=scheme
    )
    sigs, n_shingles = compute_signatures(texts, config)
    assert sigs.dtype == np.uint32
    assert sigs.shape == (len(texts), num_perm)
    assert n_shingles.dtype == np.int32
    for text, sig, n in zip(texts, sigs, n_shingles, strict=True):
        np.testing.assert_array_equal(sig, datasketch_signature(text, config))
        assert n == len(shingle_text(text, config.shingles))


def test_many_documents_cross_vectorised_blocks():
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(500)]
    texts = [" ".join(rng.choice(vocab, size=rng.integers(0, 900))) for _ in range(40)]
    sigs, _ = compute_signatures(texts)
    for text, sig in zip(texts, sigs, strict=True):
        np.testing.assert_array_equal(sig, datasketch_signature(text, MinHashConfig()))


@settings(max_examples=60, deadline=None)
@given(texts=st.lists(st.one_of(TEXTS, st.text(max_size=80)), max_size=8))
def test_words_split_in_arrow_equal_split_words(texts):
    got = word_arrays_from_texts(texts)
    want = word_arrays([split_words(t) for t in texts])
    for name in ("offsets", "hashes", "lengths", "has_digit"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))


def test_config_names_its_hash_scheme():
    assert str(MinHashConfig()) == "mh128s1-w3n1-wordmix"
    assert str(MinHashConfig(hash_scheme="sha1")) == "mh128s1-w3n1"
    with pytest.raises(ValueError, match="hash_scheme"):
        MinHashConfig(hash_scheme="md5")


def test_empty_text_gets_the_empty_signature():
    sigs, n = compute_signatures(["", "   "])
    assert (sigs == EMPTY_HASH).all()
    assert (n == 0).all()


@pytest.mark.parametrize(
    ("threshold", "num_perm"), [(0.3, 128), (0.5, 128), (0.85, 64), (0.4, 256)]
)
def test_optimal_bands_equal_datasketch(threshold, num_perm):
    assert optimal_bands(threshold, num_perm) == _optimal_param(threshold, num_perm, 0.5, 0.5)


def test_optimal_bands_rejects_bad_arguments():
    with pytest.raises(ValueError, match="threshold"):
        optimal_bands(1.5, 128)
    with pytest.raises(ValueError, match="sum to 1"):
        optimal_bands(0.5, 128, fp_weight=0.9, fn_weight=0.9)


def _near_duplicate_corpus(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    vocab = [f"t{i}" for i in range(300)]
    bases = [list(rng.choice(vocab, size=120)) for _ in range(n // 4)]
    texts = []
    for _ in range(n):
        words = list(bases[rng.integers(len(bases))])
        for _ in range(rng.integers(0, 40)):  # perturb
            words[rng.integers(len(words))] = str(rng.choice(vocab))
        texts.append(" ".join(words))
    return texts


def test_candidates_equal_datasketch_minhash_lsh():
    texts = _near_duplicate_corpus(80, seed=3)
    ids = [f"d{i:03d}" for i in range(len(texts))]
    sigs, _ = compute_signatures(texts)
    b, r = optimal_bands(0.5, 128)
    ours = find_candidates(ids, sigs, bands=b, rows=r)
    assert ours.columns == ["doc_id_a", "doc_id_b"]
    assert (ours["doc_id_a"] < ours["doc_id_b"]).all()
    lsh = MinHashLSH(threshold=0.5, num_perm=128)
    minhashes = {}
    for doc_id, sig in zip(ids, sigs, strict=True):
        minhashes[doc_id] = MinHash(num_perm=128, hashvalues=sig, scheme="affine32")
        lsh.insert(doc_id, minhashes[doc_id])
    expected = {(a, q) for a, m in minhashes.items() for q in lsh.query(m) if a < q}
    assert expected  # the corpus has near-duplicates
    assert set(zip(ours["doc_id_a"], ours["doc_id_b"], strict=True)) == expected


def test_candidates_with_new_mask_are_those_touching_new_documents():
    texts = _near_duplicate_corpus(60, seed=5)
    ids = [f"d{i:03d}" for i in range(len(texts))]
    sigs, _ = compute_signatures(texts)
    full = find_candidates(ids, sigs, bands=25, rows=5)
    new = np.zeros(len(ids), dtype=bool)
    new[45:] = True
    inc = find_candidates(ids, sigs, bands=25, rows=5, new_mask=new)
    new_ids = set(np.asarray(ids)[new])
    expected = {p for p in zip(full["doc_id_a"], full["doc_id_b"], strict=True) if new_ids & set(p)}
    assert set(zip(inc["doc_id_a"], inc["doc_id_b"], strict=True)) == expected


def test_huge_bucket_is_linked_as_a_star():
    sigs, _ = compute_signatures(["the same story about oil prices today"] * 700)
    ids = [f"c{i:04d}" for i in range(700)]
    cands = find_candidates(ids, sigs, bands=25, rows=5, max_bucket=100)
    assert cands.height == 699
    assert cands["doc_id_a"].unique().to_list() == ["c0000"]


def test_joining_bands_in_groups_gives_the_same_pairs(monkeypatch):
    import affidavit.tasks.lsh as lsh

    texts = _near_duplicate_corpus(80, seed=9)
    sigs, _ = compute_signatures(texts)
    full = lsh.candidate_index_pairs(sigs, bands=37, rows=3)
    monkeypatch.setattr(lsh, "_MAX_JOIN_ROWS", 200)  # 2 bands per group for 80 documents
    grouped = lsh.candidate_index_pairs(sigs, bands=37, rows=3)
    np.testing.assert_array_equal(full[0], grouped[0])
    np.testing.assert_array_equal(full[1], grouped[1])
    assert len(full[0]) > 0


def test_page_budget_gives_a_file_maps_pages_back_only_past_its_budget(tmp_path, monkeypatch):
    import affidavit.tasks.minhash as minhash

    np.save(tmp_path / "w.npy", np.arange(1 << 16, dtype=np.uint64))
    mapped = np.load(tmp_path / "w.npy", mmap_mode="r")
    given_back: list[object] = []
    monkeypatch.setattr(minhash, "release_pages", lambda *a: given_back.append(a))
    # 64 KiB blocks of 8-byte words: 8192 words a block; a budget of two blocks
    budget = minhash.PageBudget(mapped, budget_bytes=2 * minhash.MAP_BLOCK_BYTES)
    budget.touch(np.array([0, 100, 8191]))  # block 0
    budget.touch(np.array([8192]), np.array([9000]))  # block 1
    budget.touch(np.array([5, 16000]))  # blocks 0 and 1 again
    assert given_back == []
    budget.touch(np.array([16384]))  # block 2: past the budget
    assert len(given_back) == 1
    budget.touch(np.array([16390, 0]))  # blocks 2 and 0 since then
    assert len(given_back) == 1
    # an array that is not a file map is never given back
    plain = minhash.PageBudget(np.arange(1 << 16, dtype=np.uint64), budget_bytes=1)
    plain.touch(np.arange(0, 1 << 16, 8192))
    plain.release()
    assert len(given_back) == 1
