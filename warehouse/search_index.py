r"""Full-text BM25 index over the warehouse's own documents (the ``archive`` search provider).

Design (chosen for exact scores over elegance):

* **One global index, rebuilt from a stored token corpus.** bm25s indexes are static, so the
  index persists, beside the bm25s score matrix, the *term counts* of every indexed document
  (a CSR matrix, one row per document, one column per vocabulary token). ``add`` tokenises only
  the documents it has not seen, appends their rows, and rebuilds the BM25 score matrix of the
  whole corpus in one vectorised pass (numpy/scipy, O(non-zeros)). IDF and the average document
  length are therefore always those of the whole corpus, so scores are exactly comparable across
  documents — unlike per-batch segments, whose IDFs differ. Measured on a 2-core machine with
  the news corpora of ``shared/data/corpora`` (mean 1,091 characters a document): 20,000
  documents index in 3.4–3.7 s in one ``add``, 100,000 in 17–22 s (141 MB on disk, ~0.9 GB
  peak memory); adding 1,000 to 100,000 takes 1.0–1.4 s; opening takes < 0.1 s.
* **Retrieval** is one scipy sparse product per chunk of queries against the bm25s score
  matrix, equal in score to ``bm25s.BM25.retrieve`` (tested): 500 queries over 100,000
  documents take 0.36 s (about 1,400 queries/s) against 8–14 s with bm25s's numpy backend.
* **Tokens.** Lowercase, the scikit-learn/bm25s token pattern ``\b\w\w+\b``, bm25s's English
  stop-word list, and Harman's S-stemmer (plural folding: *ies→y*, *es→e*, *s→*; Harman 1991,
  "How effective is suffixing?", JASIS 42(1)) — no stemmer package is needed.
* **Cap.** A document is indexed on its title plus the first :data:`MAX_INDEXED_CHARS` characters
  of its text; the rest is not searchable (quotes are anchored on the stored text, not here).
* **Atomic persistence.** Each write goes to a fresh temporary directory under the index
  directory; when complete it is renamed to ``gen-<n>`` and the one-line ``CURRENT`` file is
  replaced (write temp, ``os.replace``) to point at it. A reader therefore sees the old or the
  new generation, never a half-written one; older generations are then removed. One writer at a
  time is assumed (the pipeline's ingest step); a reader keeps searching the generation it opened
  (memory-mapped) while a writer replaces it.

Layout of ``<path>/gen-<n>/``: ``manifest.json`` (format, tokenizer, BM25 parameters, counts),
``doc_ids.json`` (row order), ``vocab.json`` (token strings in id order),
``counts_{indptr,indices,data}.npy`` (term counts, CSR) and ``bm25/`` (a ``bm25s.BM25.save``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import bm25s
import numpy as np
import scipy.sparse as sp
from bm25s.tokenization import STOPWORDS_EN

MAX_INDEXED_CHARS = 20_000
"""Characters of a document's text that are indexed (title excluded). Measured on
``shared/data/corpora``: 99% of Reuters-21578 (max 10,073), BBC News (99th percentile 5,771) and
FakeNewsNet (99th percentile 18,659) texts fit whole, and 93% of the web articles cited by WiCE
(median 6,178); the rest are indexed on their opening, where news puts the facts."""

K1 = 1.5
"""BM25 term-frequency saturation (bm25s default; Robertson & Zaragoza 2009 suggest 1.2–2.0)."""

B = 0.75
"""BM25 length normalisation (bm25s default; Robertson & Zaragoza 2009)."""

FORMAT_VERSION = 1
_BATCH_DOCS = 2_000
_QUERY_CHUNK = 256
_TOKEN_RE = re.compile(r"(?u)\b\w\w+\b")
_STOPWORDS = frozenset(STOPWORDS_EN)
_CURRENT = "CURRENT"


def s_stem(word: str) -> str:
    """Fold an English plural with Harman's S-stemmer (1991).

    Args:
        word: A lowercase token.

    Returns:
        The token with a plural suffix removed, or unchanged.

    >>> [s_stem(w) for w in ["policies", "vaccines", "glass", "status", "goes", "cats"]]
    ['policy', 'vaccine', 'glass', 'status', 'goe', 'cat']
    """
    if len(word) > 3 and word.endswith("ies") and not word.endswith(("eies", "aies")):
        return word[:-3] + "y"
    if len(word) > 2 and word.endswith("es") and not word.endswith(("aes", "ees", "oes")):
        return word[:-1]
    if len(word) > 1 and word.endswith("s") and not word.endswith(("us", "ss")):
        return word[:-1]
    return word


class _Tokenizer:
    """Lowercase regex tokens without stop words, S-stemmed (memoised per distinct word)."""

    def __init__(self) -> None:
        self._memo: dict[str, str | None] = {}

    def tokens(self, text: str) -> list[str]:
        """Return the index tokens of ``text`` in order."""
        memo = self._memo
        out: list[str] = []
        for word in _TOKEN_RE.findall(text.lower()):
            term = memo.get(word, "")
            if term == "":
                term = None if word in _STOPWORDS else s_stem(word)
                if term is not None and term in _STOPWORDS:
                    term = None
                memo[word] = term
            if term is not None:
                out.append(term)
        return out


def bm25_score_matrix(
    counts: sp.csr_matrix, *, k1: float = K1, b: float = B
) -> dict[str, np.ndarray | int]:
    """Compute the BM25 (Lucene variant) score matrix in bm25s's CSC layout.

    score(d, t) = idf(t) · tf / (tf + k1 · (1 − b + b · |d| / avgdl)),
    idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5)) — bm25s ``method="lucene"``, which a unit test
    checks against ``bm25s.BM25.index`` on the same corpus.

    Args:
        counts: Term counts, shape (n_docs, n_vocab), integer; one row per document.
        k1: Term-frequency saturation.
        b: Length normalisation.

    Returns:
        bm25s ``scores`` dict: ``data`` float32 (nnz,), ``indices`` int32 (nnz,) document rows,
        ``indptr`` int64 (n_vocab + 1,) column pointers, ``num_docs`` int.
    """
    n_docs, _ = counts.shape
    counts = counts.tocsr()
    tf = counts.data.astype(np.float64)
    doc_len = np.asarray(counts.sum(axis=1)).ravel().astype(np.float64)
    avgdl = float(doc_len.mean()) if n_docs else 1.0
    avgdl = max(avgdl, 1e-9)
    df = np.bincount(counts.indices, minlength=counts.shape[1]).astype(np.float64)
    idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
    row_of = np.repeat(np.arange(n_docs), np.diff(counts.indptr))
    norm = k1 * (1.0 - b + b * doc_len[row_of] / avgdl)
    weights = idf[counts.indices] * tf / (tf + norm)
    matrix = sp.csr_matrix(
        (weights.astype(np.float32), counts.indices, counts.indptr), shape=counts.shape
    ).tocsc()
    matrix.sort_indices()
    return {
        "data": matrix.data.astype(np.float32),
        "indices": matrix.indices.astype(np.int32),
        "indptr": matrix.indptr.astype(np.int64),
        "num_docs": int(n_docs),
    }


def _batched(items: Iterable[tuple[str, str, str]], size: int) -> Iterator[list]:
    batch: list = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


class SearchIndex:
    """BM25 full-text index of documents, persisted under one directory.

    Use :meth:`open`; the constructor is internal. Not safe for two concurrent writers.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._doc_ids: list[str] = []
        self._row_of: dict[str, int] = {}
        self._vocab: dict[str, int] = {}
        self._counts = sp.csr_matrix((0, 0), dtype=np.int32)
        self._counts_loaded = True
        self._gen_dir: Path | None = None
        self._retriever: bm25s.BM25 | None = None
        self._tokenizer = _Tokenizer()
        self._df: np.ndarray | None = None

    # ----------------------------------------------------------------------------- opening
    @classmethod
    def open(cls, path: Path) -> SearchIndex:
        """Open the index stored under ``path``, or an empty one when none is there.

        Args:
            path: The index directory (e.g. ``<home>/index``); created on the first ``add``.

        Returns:
            The index; its BM25 matrix is memory-mapped, term counts load on the first ``add``.

        Raises:
            ValueError: When the stored index has an unknown format version.
            FileNotFoundError: When ``CURRENT`` names a generation that is missing (a damaged
                index is reported, never silently replaced by an empty one).
        """
        index = cls(Path(path))
        current = index.path / _CURRENT
        if not current.is_file():
            return index
        gen_dir = index.path / current.read_text(encoding="utf-8").strip()
        manifest = json.loads((gen_dir / "manifest.json").read_text(encoding="utf-8"))
        if manifest.get("format_version") != FORMAT_VERSION:
            raise ValueError(
                f"search index {gen_dir} has format {manifest.get('format_version')!r}, "
                f"expected {FORMAT_VERSION}"
            )
        index._doc_ids = json.loads((gen_dir / "doc_ids.json").read_text(encoding="utf-8"))
        index._row_of = {d: i for i, d in enumerate(index._doc_ids)}
        vocab_list = json.loads((gen_dir / "vocab.json").read_text(encoding="utf-8"))
        index._vocab = {t: i for i, t in enumerate(vocab_list)}
        index._gen_dir = gen_dir
        index._counts_loaded = False
        if index._doc_ids:
            index._retriever = bm25s.BM25.load(
                gen_dir / "bm25", mmap=True, load_vocab=False, show_progress=False
            )
            index._retriever.vocab_dict = index._vocab
            index._retriever.unique_token_ids_set = set(range(len(index._vocab)))
        return index

    def _refresh_if_stale(self) -> None:
        """Reload from disk when another instance has written a newer generation since."""
        current = self.path / _CURRENT
        if not current.is_file():
            return
        name = current.read_text(encoding="utf-8").strip()
        if self._gen_dir is not None and self._gen_dir.name == name:
            return
        fresh = type(self).open(self.path)
        self._doc_ids, self._row_of, self._vocab = fresh._doc_ids, fresh._row_of, fresh._vocab
        self._gen_dir, self._retriever = fresh._gen_dir, fresh._retriever
        self._counts, self._counts_loaded = fresh._counts, fresh._counts_loaded
        self._df = None

    def _load_counts(self) -> None:
        if self._counts_loaded:
            return
        assert self._gen_dir is not None
        g = self._gen_dir
        indptr = np.load(g / "counts_indptr.npy")
        indices = np.load(g / "counts_indices.npy")
        data = np.load(g / "counts_data.npy")
        self._counts = sp.csr_matrix(
            (data, indices, indptr), shape=(len(self._doc_ids), len(self._vocab))
        )
        self._counts_loaded = True

    # ----------------------------------------------------------------------------- reading
    def tokens(self, text: str) -> list[str]:
        """Return the index tokens of ``text`` (lowercase, stop words dropped, S-stemmed)."""
        return self._tokenizer.tokens(text or "")

    def idf(self, terms: Iterable[str]) -> dict[str, float]:
        """Return the BM25 (Lucene) idf of each index term, ``ln(1 + (N − df + 0.5)/(df + 0.5))``.

        A term absent from the index gets the idf of df = 0 (the rarest possible). Document
        frequencies come from the stored term counts (loaded on the first call).
        """
        self._refresh_if_stale()
        n = len(self._doc_ids)
        wanted = sorted(set(terms))
        if not wanted:
            return {}
        if n:
            self._load_counts()
            if self._df is None or len(self._df) != self._counts.shape[1]:
                self._df = np.bincount(self._counts.indices, minlength=self._counts.shape[1])
        out = {}
        for t in wanted:
            tid = self._vocab.get(t)
            df = int(self._df[tid]) if n and self._df is not None and tid is not None else 0
            out[t] = float(np.log(1.0 + (n - df + 0.5) / (df + 0.5)))
        return out

    def __len__(self) -> int:
        """Return the number of indexed documents."""
        return len(self._doc_ids)

    def doc_ids(self) -> set[str]:
        """Return the ids of the indexed documents (a new set)."""
        return set(self._doc_ids)

    def search(self, query: str, *, k: int = 10) -> list[tuple[str, float]]:
        """Return the best ``k`` documents for one query.

        Args:
            query: Free text; tokenised like the documents.
            k: Maximum number of hits (≥ 1).

        Returns:
            ``(doc_id, score)`` pairs, best first; only documents sharing a token with the query
            (score > 0). Empty for an empty index or a query of stop words only.

        Raises:
            ValueError: When ``k`` < 1.
        """
        return self.search_many([query], k=k)[0]

    def search_many(
        self, queries: Sequence[str], *, k: int = 10
    ) -> list[list[tuple[str, float]]]:
        """Return the best ``k`` documents for each query, scored in one sparse product.

        The query matrix (one row per query, token counts) is multiplied by the transposed
        bm25s score matrix (tokens × documents, the CSC arrays read as CSR, zero-copy), so each
        query's scores are the sum of its tokens' BM25 weights, exactly as
        ``bm25s.BM25.retrieve`` computes them (a unit test compares both), but without bm25s's
        per-token ``np.add.at`` (see the module docstring for timings).

        Args:
            queries: Free-text queries.
            k: Maximum hits per query (≥ 1).

        Returns:
            One list per query, in input order, of ``(doc_id, score)`` best first (score > 0;
            ties broken by row order, i.e. earlier-indexed first).

        Raises:
            ValueError: When ``k`` < 1.
        """
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        out: list[list[tuple[str, float]]] = [[] for _ in queries]
        if self._retriever is None or not self._doc_ids:
            return out
        scores = self._retriever.scores
        n_docs = int(scores["num_docs"])
        n_vocab = len(scores["indptr"]) - 1
        postings = sp.csr_matrix(
            (scores["data"], scores["indices"], scores["indptr"]), shape=(n_vocab, n_docs)
        )
        for lo in range(0, len(queries), _QUERY_CHUNK):
            chunk = queries[lo : lo + _QUERY_CHUNK]
            rows: list[int] = []
            cols: list[int] = []
            for qi, query in enumerate(chunk):
                for tok in self._tokenizer.tokens(query or ""):
                    tid = self._vocab.get(tok)
                    if tid is not None and tid < n_vocab:
                        rows.append(qi)
                        cols.append(tid)
            if not rows:
                continue
            qmat = sp.csr_matrix(
                (np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(len(chunk), n_vocab)
            )
            result = (qmat @ postings).tocsr()
            for qi in range(len(chunk)):
                start, end = result.indptr[qi], result.indptr[qi + 1]
                docs = result.indices[start:end]
                vals = result.data[start:end]
                keep = vals > 0.0
                docs, vals = docs[keep], vals[keep]
                if len(vals) > k:
                    kth = np.partition(vals, len(vals) - k)[len(vals) - k]
                    cand = vals >= kth
                    docs, vals = docs[cand], vals[cand]
                order = np.lexsort((docs, -vals))[:k]
                out[lo + qi] = [(self._doc_ids[int(docs[j])], float(vals[j])) for j in order]
        return out

    # ----------------------------------------------------------------------------- writing
    def add(self, docs: Iterable[tuple[str, str, str]]) -> int:
        """Index the documents not yet indexed, then persist the new index atomically.

        Args:
            docs: ``(doc_id, title, text)`` triples; ``title``/``text`` may be empty or None.
                An id already indexed (or repeated within ``docs``) is skipped: the first wins.

        Returns:
            The number of documents added (0 leaves the stored index untouched).

        Raises:
            OSError: When the index directory cannot be written (the previous generation stays).
        """
        self._refresh_if_stale()
        self._load_counts()
        vocab = self._vocab
        seen = set(self._row_of)
        new_ids: list[str] = []
        pieces: list[sp.csr_matrix] = []
        for batch in _batched(docs, _BATCH_DOCS):
            flat: list[int] = []
            bounds = [0]
            for doc_id, title, text in batch:
                if doc_id in seen:
                    continue
                seen.add(doc_id)
                new_ids.append(doc_id)
                body = f"{title or ''}\n{(text or '')[:MAX_INDEXED_CHARS]}"
                for tok in self._tokenizer.tokens(body):
                    tid = vocab.get(tok)
                    if tid is None:
                        tid = vocab[tok] = len(vocab)
                    flat.append(tid)
                bounds.append(len(flat))
            n_rows = len(bounds) - 1
            if n_rows == 0:
                continue
            tok_arr = np.asarray(flat, dtype=np.int64)
            row_arr = np.repeat(np.arange(n_rows, dtype=np.int64), np.diff(bounds))
            width = max(len(vocab), 1)
            keys, counts = np.unique(row_arr * width + tok_arr, return_counts=True)
            rows, cols = np.divmod(keys, width)
            pieces.append(
                sp.csr_matrix(
                    (counts.astype(np.int32), (rows, cols)), shape=(n_rows, width)
                )
            )
        if not new_ids:
            return 0
        width = len(vocab)
        blocks = [self._resize(self._counts, width)] + [self._resize(p, width) for p in pieces]
        counts_all = sp.vstack(blocks, format="csr", dtype=np.int32)
        counts_all.sort_indices()
        doc_ids = self._doc_ids + new_ids
        self._write_generation(doc_ids, counts_all)
        self._doc_ids = doc_ids
        self._row_of = {d: i for i, d in enumerate(doc_ids)}
        self._counts = counts_all
        self._df = None
        return len(new_ids)

    @staticmethod
    def _resize(m: sp.csr_matrix, width: int) -> sp.csr_matrix:
        m = m.tocsr()
        if m.shape[1] == width:
            return m
        return sp.csr_matrix((m.data, m.indices, m.indptr), shape=(m.shape[0], width))

    def _write_generation(self, doc_ids: list[str], counts: sp.csr_matrix) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        retriever = bm25s.BM25(k1=K1, b=B, method="lucene")
        retriever.scores = bm25_score_matrix(counts, k1=K1, b=B)
        retriever.vocab_dict = dict(self._vocab)
        retriever.unique_token_ids_set = set(self._vocab.values())
        retriever.nonoccurrence_array = None
        vocab_list = [""] * len(self._vocab)
        for tok, tid in self._vocab.items():
            vocab_list[tid] = tok
        tmp = Path(tempfile.mkdtemp(prefix=".tmp-gen-", dir=self.path))
        try:
            retriever.save(tmp / "bm25", show_progress=False)
            np.save(tmp / "counts_indptr.npy", counts.indptr.astype(np.int64))
            np.save(tmp / "counts_indices.npy", counts.indices.astype(np.int32))
            np.save(tmp / "counts_data.npy", counts.data.astype(np.int32))
            (tmp / "doc_ids.json").write_text(json.dumps(doc_ids), encoding="utf-8")
            (tmp / "vocab.json").write_text(
                json.dumps(vocab_list, ensure_ascii=False), encoding="utf-8"
            )
            manifest = {
                "format_version": FORMAT_VERSION,
                "n_docs": len(doc_ids),
                "n_vocab": len(vocab_list),
                "nnz": int(counts.nnz),
                "k1": K1,
                "b": B,
                "method": "lucene",
                "max_indexed_chars": MAX_INDEXED_CHARS,
                "tokenizer": "lower+\\b\\w\\w+\\b+bm25s-english-stopwords+harman-s-stemmer",
            }
            (tmp / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
            gen_name = f"gen-{self._next_generation():06d}"
            os.replace(tmp, self.path / gen_name)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        pointer = self.path / f".{_CURRENT}.tmp"
        pointer.write_text(gen_name + "\n", encoding="utf-8")
        os.replace(pointer, self.path / _CURRENT)
        self._gen_dir = self.path / gen_name
        self._retriever = retriever
        for old in self.path.iterdir():
            if old.name != gen_name and old.is_dir() and old.name.startswith(("gen-", ".tmp-gen-")):
                shutil.rmtree(old, ignore_errors=True)

    def _next_generation(self) -> int:
        numbers = [
            int(p.name[4:])
            for p in self.path.glob("gen-*")
            if p.is_dir() and p.name[4:].isdigit()
        ]
        return max(numbers, default=0) + 1
