"""Tests of warehouse.search_index: BM25 scores, incremental adds, persistence, atomicity."""

from __future__ import annotations

import json
from pathlib import Path

import bm25s
import numpy as np
import pytest
import scipy.sparse as sp

from affidavit.warehouse import search_index as si
from affidavit.warehouse.search_index import SearchIndex, bm25_score_matrix

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"

DOCS = [
    ("d1", "Cocoa harvest", "Showers continued in the Bahia cocoa zone, easing the drought."),
    ("d2", "Oil prices", "OPEC agreed to cut oil production by 8% to support prices."),
    ("d3", "Vaccines", "The vaccine trial enrolled 30,000 volunteers in three countries."),
    ("d4", "Wheat", "Wheat exports fell as the drought hit the plains."),
]


def test_s_stem_folds_plurals_only() -> None:
    assert si.s_stem("policies") == "policy"
    assert si.s_stem("vaccines") == "vaccine"
    assert si.s_stem("status") == "status"
    assert si.s_stem("glass") == "glass"
    assert si.s_stem("drought") == "drought"


def test_empty_index_opens_and_returns_nothing(tmp_path: Path) -> None:
    index = SearchIndex.open(tmp_path / "index")
    assert len(index) == 0
    assert index.doc_ids() == set()
    assert index.search("anything") == []
    assert index.search_many(["a query", ""]) == [[], []]
    assert not (tmp_path / "index").exists()


def test_add_search_and_skip_known_ids(tmp_path: Path) -> None:
    index = SearchIndex.open(tmp_path / "index")
    assert index.add(DOCS) == 4
    assert len(index) == 4
    hits = index.search("drought in Bahia", k=10)
    assert hits[0][0] == "d1"
    assert {d for d, _ in hits} == {"d1", "d4"}  # only documents sharing a token
    assert all(a[1] >= b[1] for a, b in zip(hits, hits[1:], strict=False))
    # plural folding: "vaccines" finds "vaccine"
    assert index.search("vaccines")[0][0] == "d3"
    # re-adding known ids adds nothing; duplicates within a batch keep the first
    assert index.add(DOCS[:2]) == 0
    assert index.add([("d5", "", "cocoa"), ("d5", "", "wheat")]) == 1
    assert index.doc_ids() == {"d1", "d2", "d3", "d4", "d5"}
    assert [d for d, _ in index.search("wheat")] == ["d4"]


def test_k_limits_and_validation(tmp_path: Path) -> None:
    index = SearchIndex.open(tmp_path / "index")
    index.add(DOCS)
    assert len(index.search("drought", k=1)) == 1
    assert len(index.search("drought", k=50)) == 2  # k larger than the corpus is fine
    assert index.search("the of and") == []  # stop words only
    with pytest.raises(ValueError, match="k must be"):
        index.search("drought", k=0)


def test_persistence_and_incremental_equals_full_build(tmp_path: Path) -> None:
    path = tmp_path / "index"
    index = SearchIndex.open(path)
    index.add(DOCS[:2])
    reopened = SearchIndex.open(path)
    assert len(reopened) == 2
    reopened.add(DOCS[2:])
    full = SearchIndex.open(tmp_path / "full")
    full.add(DOCS)
    again = SearchIndex.open(path)
    queries = ["drought", "oil prices cut", "vaccine volunteers", "cocoa wheat drought"]
    for got, want in zip(again.search_many(queries), full.search_many(queries), strict=True):
        assert [d for d, _ in got] == [d for d, _ in want]
        np.testing.assert_allclose([s for _, s in got], [s for _, s in want], rtol=1e-5)
    # one generation is left on disk, and CURRENT names it
    gens = [p.name for p in path.iterdir() if p.is_dir()]
    assert gens == [(path / "CURRENT").read_text().strip()]


def test_global_idf_after_incremental_add(tmp_path: Path) -> None:
    """A term that becomes common after an add must lose weight (no stale per-batch IDF)."""
    index = SearchIndex.open(tmp_path / "index")
    index.add([("a", "", "zebra grazing"), ("b", "", "lion hunting")])
    before = dict(index.search("zebra"))["a"]
    index.add([(f"z{i}", "", "zebra zebra crossing") for i in range(20)])
    after = dict(index.search("zebra", k=50))["a"]
    assert after < before


def test_score_matrix_matches_bm25s_index() -> None:
    corpus = [["cocoa", "drought", "cocoa"], ["oil", "price", "cut"], ["drought", "wheat"], []]
    vocab = {t: i for i, t in enumerate(sorted({t for d in corpus for t in d}))}
    ids = [[vocab[t] for t in d] for d in corpus]
    ref = bm25s.BM25(k1=si.K1, b=si.B, method="lucene")
    ref.index((ids, dict(vocab)), create_empty_token=False, show_progress=False)
    rows = np.repeat(np.arange(len(ids)), [len(d) for d in ids])
    cols = np.asarray([t for d in ids for t in d])
    counts = sp.csr_matrix(
        (np.ones(len(cols), dtype=np.int32), (rows, cols)), shape=(len(ids), len(vocab))
    )
    ours = bm25_score_matrix(counts)
    ref_m = sp.csc_matrix(
        (ref.scores["data"], ref.scores["indices"], ref.scores["indptr"]),
        shape=(len(ids), len(vocab)),
    )
    our_m = sp.csc_matrix(
        (ours["data"], ours["indices"], ours["indptr"]), shape=(len(ids), len(vocab))
    )
    np.testing.assert_allclose(our_m.toarray(), ref_m.toarray(), rtol=1e-5)
    assert ours["num_docs"] == ref.scores["num_docs"]


def test_long_documents_are_capped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(si, "MAX_INDEXED_CHARS", 40)
    index = SearchIndex.open(tmp_path / "index")
    index.add([("long", "title", "alpha beta gamma delta " + "filler " * 20 + "omega")])
    assert index.search("alpha")[0][0] == "long"
    assert index.search("omega") == []


def test_failed_write_keeps_previous_generation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "index"
    index = SearchIndex.open(path)
    index.add(DOCS[:2])

    def boom(*_args: object, **_kwargs: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(np, "save", boom)
    with pytest.raises(OSError, match="disk full"):
        SearchIndex.open(path).add(DOCS[2:])
    monkeypatch.undo()
    survivor = SearchIndex.open(path)
    assert survivor.doc_ids() == {"d1", "d2"}
    assert not [p for p in path.iterdir() if p.name.startswith(".tmp-gen-")]
    assert survivor.search("oil")[0][0] == "d2"


def test_unknown_format_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "index"
    SearchIndex.open(path).add(DOCS)
    gen = path / (path / "CURRENT").read_text().strip()
    manifest = json.loads((gen / "manifest.json").read_text())
    manifest["format_version"] = 999
    (gen / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(ValueError, match="format"):
        SearchIndex.open(path)


def test_reuters_sample_finds_known_story(tmp_path: Path) -> None:
    corpus = DATA / "corpora" / "reuters21578.jsonl"
    if not corpus.is_file():
        pytest.skip(f"shared data absent: {corpus}")
    rows = []
    with corpus.open(encoding="utf-8") as fh:
        for line in fh:
            rows.append(json.loads(line))
            if len(rows) == 2000:
                break
    index = SearchIndex.open(tmp_path / "index")
    assert index.add((r["id"], r.get("title") or "", r.get("text") or "") for r in rows) == 2000
    first = rows[0]
    # the story's own title should retrieve it among the top hits
    hits = index.search(first["title"], k=5)
    assert first["id"] in [d for d, _ in hits]


def test_search_many_matches_bm25s_retrieve(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    words = [f"w{i}x" for i in range(150)]  # no stop words, no plural endings
    docs = [
        (f"doc{i}", "", " ".join(rng.choice(words, size=int(rng.integers(5, 60)))))
        for i in range(400)
    ]
    index = SearchIndex.open(tmp_path / "index")
    index.add(docs)
    queries = [" ".join(rng.choice(words, size=int(rng.integers(1, 6)))) for _ in range(60)]
    ours = index.search_many(queries, k=10)
    token_ids = [[index._vocab[w] for w in q.split()] for q in queries]
    retriever = index._retriever
    ref = retriever.retrieve(token_ids, k=10, show_progress=False)
    for qi, hits in enumerate(ours):
        # same top-10 scores as bm25s.retrieve ...
        np.testing.assert_allclose([s for _, s in hits], ref.scores[qi][: len(hits)], rtol=1e-4)
        # ... and each hit's score is that document's bm25s score (ties may be ordered apart)
        full = retriever.get_scores(token_ids[qi])
        for doc_id, score in hits:
            assert full[int(doc_id[3:])] == pytest.approx(score, rel=1e-4)
        # ties are broken by row order
        for (d1, s1), (d2, s2) in zip(hits, hits[1:], strict=False):
            assert s1 > s2 or int(d1[3:]) < int(d2[3:])


def test_reader_survives_writer_and_stale_instance_catches_up(tmp_path: Path) -> None:
    path = tmp_path / "index"
    SearchIndex.open(path).add(DOCS[:2])
    reader = SearchIndex.open(path)
    other = SearchIndex.open(path)
    other.add(DOCS[2:3])  # replaces the generation the reader opened
    assert reader.search("oil")[0][0] == "d2"  # still searchable (memory-mapped)
    reader.add(DOCS[3:])  # must not drop what `other` added
    assert SearchIndex.open(path).doc_ids() == {"d1", "d2", "d3", "d4"}


def test_idf_and_tokens_follow_the_index(tmp_path: Path) -> None:
    """``idf`` is BM25's Lucene idf from the stored document frequencies, after reopening too."""
    ix = SearchIndex.open(tmp_path / "ix")
    assert ix.idf(["bridge"]) == {"bridge": pytest.approx(np.log(1 + 0.5 / 0.5))}  # empty index
    ix.add([("a", "Bridges", "The bridge opened."), ("b", "Rain", "Rain fell on the bridge."),
            ("c", "Oil", "Oil prices fell.")])
    assert ix.tokens("The Bridges opened") == ["bridge", "opened"]
    for index in (ix, SearchIndex.open(tmp_path / "ix")):
        idf = index.idf(["bridge", "oil", "zzz"])
        assert idf["bridge"] == pytest.approx(np.log(1 + (3 - 2 + 0.5) / (2 + 0.5)))
        assert idf["oil"] == pytest.approx(np.log(1 + (3 - 1 + 0.5) / (1 + 0.5)))
        assert idf["zzz"] == pytest.approx(np.log(1 + (3 + 0.5) / 0.5))
