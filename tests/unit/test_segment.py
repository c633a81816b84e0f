"""Tests for tasks.segment: the batch splitter equals the one-text reference."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from affidavit.tasks.minhash import Ragged, word_arrays
from affidavit.tasks.segment import Segments, segment_text, segment_texts

LINEAGE_DEV = Path(__file__).resolve().parents[2].parent / "shared" / "bench" / "lineage-dev"

# characters that carry the rules: stops, closers, quotation marks, apostrophes, whitespace of
# every kind ASCII has, line breaks, punctuation, digits, and a few non-ASCII ones
_ALPHABET = list("ab Z9 .!?\"')]\n\t\x0b\x1c_'`-,") + ["  ", ". ", '." ', "\n\n", "x.\n"]
_UNICODE = ["é", "“", "”", "’", "\u00a0", "ﬁ", "ß", "\u2028", "«", "»", "„", "‘", "İ", "\u0301",
            "\u00b4", "…", "\u200b", "\u00ad", "\x85", "\u3000", "Ω", "—", "٣"]


def _reference(texts: list[str], *, normalize: bool, stop_needed: bool) -> Segments:
    parts = [segment_text(t, normalize=normalize, stop_needed=stop_needed) for t in texts]
    return Segments(
        word_arrays([p[0] for p in parts]),
        Ragged.from_lists([p[1] for p in parts], np.int32),
        Ragged.from_lists([p[2] for p in parts], np.int32),
        Ragged.from_lists([p[3] for p in parts], np.int32, width=2),
    )


def _assert_same(got: Segments, want: Segments) -> None:
    for name in ("hashes", "lengths", "has_digit", "offsets"):
        assert np.array_equal(getattr(got.words, name), getattr(want.words, name)), name
    for name in ("line_lengths", "sentence_lengths", "quoted"):
        g, w = getattr(got, name), getattr(want, name)
        assert np.array_equal(g.offsets, w.offsets), name
        assert np.array_equal(g.values, w.values), name
        assert g.values.dtype == w.values.dtype, name


def test_reference_rules_on_one_text():
    words, lines, sentences, quoted = segment_text(
        'Headline\nHe said "Rates rose. Then fell." It\'s over \nagain', stop_needed=True
    )
    assert words == ["headline", "he", "said", "rates", "rose", "then", "fell", "its", "over",
                     "again"]
    assert lines == [1, 8, 1]
    # the headline has no stop: its sentence runs on; the quotation is cut by the sentence end
    assert sentences == [5, 2, 3]
    assert quoted == [(3, 5), (5, 7)]


@pytest.mark.parametrize("normalize", [True, False])
@pytest.mark.parametrize("stop_needed", [True, False])
@settings(max_examples=150, deadline=None)
@given(
    texts=st.lists(
        st.lists(st.sampled_from(_ALPHABET + _UNICODE), max_size=40).map("".join), max_size=12
    )
)
def test_batch_equals_reference(texts, normalize, stop_needed):
    got = segment_texts(texts, normalize=normalize, stop_needed=stop_needed)
    _assert_same(got, _reference(texts, normalize=normalize, stop_needed=stop_needed))


def test_batch_of_many_texts_crosses_chunks():
    rng = np.random.default_rng(7)
    texts = ["".join(rng.choice(_ALPHABET, size=int(rng.integers(0, 60)))) for _ in range(700)]
    texts[5] = "caf\u00e9 “quoted.” text"
    texts[6] = "Straße: „Ja.“ — sagte er’s\u00a0heute. «Non.» İstanbul"
    for normalize in (True, False):
        got = segment_texts(texts, normalize=normalize, stop_needed=True)
        _assert_same(got, _reference(texts, normalize=normalize, stop_needed=True))


@pytest.mark.skipif(not LINEAGE_DEV.exists(), reason="../shared/bench/lineage-dev is absent")
def test_batch_equals_reference_on_lineage_dev():
    with (LINEAGE_DEV / "documents.jsonl").open(encoding="utf-8") as f:
        texts = [json.loads(line)["text"] for line in f]
    got = segment_texts(texts, normalize=True, stop_needed=True)
    _assert_same(got, _reference(texts, normalize=True, stop_needed=True))
