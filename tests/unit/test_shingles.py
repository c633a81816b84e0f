"""Tests for tasks.shingles."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from affidavit.schemas.signatures import ShingleConfig
from affidavit.tasks.shingles import normalize_for_shingles, shingle_text, split_words


def test_normalize_folds_case_width_ligatures_and_punctuation():
    assert normalize_for_shingles("The “FED” Raised—Rates!") == "the fed raised rates"
    assert normalize_for_shingles("ﬁnancial ＡＢＣ") == "financial abc"  # NFKC ligature, full width
    assert normalize_for_shingles("Straße") == "strasse"  # casefold, not lower


def test_normalize_joins_apostrophe_variants_and_drops_invisible_characters():
    assert normalize_for_shingles("don’t") == normalize_for_shingles("don't") == "dont"
    assert normalize_for_shingles("co\u00adoper\u200bation") == "cooperation"


def test_shingles_are_distinct_word_kgrams_in_order():
    assert shingle_text("a b c a b c", ShingleConfig(k=3)) == [b"a b c", b"b c a", b"c a b"]
    assert shingle_text("one two", ShingleConfig(k=1)) == [b"one", b"two"]


def test_short_and_empty_texts():
    assert shingle_text("", ShingleConfig()) == []
    assert shingle_text("  ... !!! ", ShingleConfig()) == []
    assert shingle_text("Hello, world", ShingleConfig(k=3)) == [b"hello world"]


def test_lone_surrogates_from_undecodable_bytes_do_not_crash():
    text = b"caf\xe9 au lait served hot".decode("utf-8", "surrogateescape")
    shingles = shingle_text(text)
    assert shingles  # the surrogate is a word boundary, the rest is shingled
    assert all(isinstance(s, bytes) for s in shingles)


def test_invalid_k_is_rejected():
    with pytest.raises(ValueError, match="k must be"):
        shingle_text("a b c", ShingleConfig(k=0))


def test_config_string_form_goes_into_paths():
    assert str(ShingleConfig()) == "w3n1"


@given(st.text(max_size=200))
def test_normalisation_is_idempotent_and_split_matches(text):
    once = normalize_for_shingles(text)
    assert normalize_for_shingles(once) == once
    assert split_words(text) == once.split()


@given(st.text(alphabet=st.characters(max_codepoint=127), max_size=300))
def test_ascii_fast_path_equals_the_general_path(text):
    from affidavit.tasks.shingles import _normalize_unicode

    assert normalize_for_shingles(text) == _normalize_unicode(text)
