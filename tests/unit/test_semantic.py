"""The numpy sentence encoder and the judge's semantic relevance floor."""

from __future__ import annotations

import numpy as np
import pytest

from affidavit.schemas.enums import Stance
from affidavit.tasks import semantic
from affidavit.tasks.judge_lexical import LexicalJudge, LexicalJudgeConfig

# Cosines computed with sentence-transformers 6.3 (torch 2.13, CPU) from the same
# all-MiniLM-L6-v2 files; the numpy forward pass must reproduce them.
REFERENCE_COSINES = [
    ("Sea levels are rising.",
     "Global mean sea level has risen about 20 cm since 1900.", 0.6962),
    ("Marlow Dairies reported revenue of 57 million euros.",
     "The festival drew 40,000 visitors to the harbour.", 0.1720),
    ("The polar bear population has been growing.",
     "Worldwide population estimates of polar bears have increased over the past 50 years.",
     0.8491),
    ("Renewable energy investment kills jobs.",
     "Some 2.3 million people have found renewable energy jobs in recent years.", 0.6051),
]
REFERENCE_HEAD = [-0.0507, -0.0133, 0.0927, 0.0202, -0.0055, -0.0218]  # "Sea levels are rising."


@pytest.mark.parametrize(("claim", "passage", "cosine"), REFERENCE_COSINES)
def test_similarity_matches_sentence_transformers(claim: str, passage: str, cosine: float) -> None:
    assert semantic.similarity(claim, passage) == pytest.approx(cosine, abs=2e-4)


def test_encode_shape_dtype_and_reference_values() -> None:
    texts = ["Sea levels are rising.", "", "word " * 600, "Sea   levels are\nrising."]
    out = semantic.encoder().encode(texts)
    assert out.shape == (4, 384)
    assert out.dtype == np.float32
    assert np.allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)
    assert out[0, :6] == pytest.approx(REFERENCE_HEAD, abs=2e-4)
    assert np.array_equal(out[0], out[3])  # whitespace is collapsed before encoding


def test_batches_of_mixed_length_give_the_vectors_of_single_texts() -> None:
    enc = semantic.Encoder()
    texts = ["A short one.", "A much longer sentence about the harbour bridge toll in March "
             "and the ferry timetable that changed with it."]
    together = enc.encode(texts)
    alone = semantic.Encoder()
    single = np.stack([alone.encode([t])[0] for t in texts])
    assert np.allclose(together, single, atol=1e-5)


def test_other_weights_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(semantic, "WEIGHTS_SHA256", "0" * 64)
    with pytest.raises(semantic.SemanticModelError, match="sha256"):
        semantic.Encoder()


def test_missing_model_file_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(semantic, "MODEL_PACKAGE", "affidavit_no_such_encoder_package")
    with pytest.raises(semantic.SemanticModelError, match="model.safetensors cannot be read"):
        semantic.Encoder()


def test_bad_input_types_are_refused_and_surrogates_replaced() -> None:
    enc = semantic.encoder()
    with pytest.raises(TypeError, match="not one string"):
        enc.encode("hello")
    with pytest.raises(TypeError, match="got NoneType"):
        enc.encode(["fine", None])  # type: ignore[list-item]
    assert enc.encode([]).shape == (0, 384)
    out = enc.encode(["sea level \ud800 rising"])
    assert out.shape == (1, 384)
    assert np.isfinite(out).all()


CLAIM = "Renewable energy investment kills jobs in coastal towns."
PASSAGE = ("Coastal towns attract investment from energy firms, and the jobs they bring are "
           "seasonal. Tourism remains the main employer.")


def test_floor_turns_a_found_partial_under_it_neutral() -> None:
    # The lexical reading is PARTIAL at cosine 0.70: a floor above it makes it NEUTRAL and
    # says why; no floor, or a passage given as evidence, keeps PARTIAL.
    base = LexicalJudge(config=LexicalJudgeConfig(semantic_floor=None))
    assert base.judge_batch([(CLAIM, PASSAGE)], found=True)[0].stance is Stance.PARTIAL
    high = LexicalJudge(config=LexicalJudgeConfig(semantic_floor=0.75))
    r = high.judge_batch([(CLAIM, PASSAGE)], found=True)[0]
    assert r.stance is Stance.NEUTRAL
    assert "cosine 0.70 under the semantic floor 0.75" in r.rationale
    assert high.judge_batch([(CLAIM, PASSAGE)], found=False)[0].stance is Stance.PARTIAL


def test_default_floor_keeps_a_partial_about_the_claim() -> None:
    assert LexicalJudgeConfig().semantic_floor == semantic.RELEVANCE_FLOOR
    r = LexicalJudge().judge_batch([(CLAIM, PASSAGE)], found=True)[0]
    assert r.stance is Stance.PARTIAL


def test_a_quote_is_read_with_the_sentence_before_it() -> None:
    # "The board is expected to vote on the recommendation" alone is far from the claim
    # (cosine 0.24); with the sentence before it, it is the claim's school closure.
    claim = "Ashby County's school board has voted to close Mill Lane Primary."
    article = ("ASHBY, Feb. 3, 2025 — Ashby County Schools enrolled 9,120 pupils this year. "
               "Enrolment at Mill Lane Primary fell by a third since 2019. The superintendent "
               "recommended closing Mill Lane Primary at the end of the school year. The board "
               "is expected to vote on the recommendation at its March 11 meeting. Parents have "
               "started a petition.")
    r = LexicalJudge().judge_batch([(claim, article)], found=True)[0]
    assert r.quote.startswith("The board is expected to vote")
    assert semantic.similarity(claim, r.quote) < semantic.RELEVANCE_FLOOR
    assert r.stance is Stance.PARTIAL
