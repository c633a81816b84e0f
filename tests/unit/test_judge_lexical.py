"""Tests of the lexical judge: sentences, figures, IDF, stance rules and quotes that anchor."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from affidavit.schemas.enums import AnchorKind, Stance
from affidavit.schemas.judgments import JudgeResult
from affidavit.tasks.anchor import anchor_quote
from affidavit.tasks.judge_lexical import (
    LexicalJudge,
    LexicalJudgeConfig,
    compute_idf,
    conversion_variants,
    name_numbers,
    normalize_figures,
    split_sentences,
    tokenize,
)

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
JUDGE_DEV = SHARED / "bench" / "judge-dev" / "cases.jsonl"


def judge1(claim: str, doc: str) -> JudgeResult:
    return LexicalJudge().judge_batch([(claim, doc)])[0]


# --- sentences ---------------------------------------------------------------------------------


def test_split_sentences_spans_are_original_text() -> None:
    text = "  Dr. Smith arrived at 9 a.m. on Monday.  The U.S. team won!\n\nWas it 3.5 km? Yes.  "
    spans = split_sentences(text)
    got = [text[a:b] for a, b in spans]
    assert got == [
        "Dr. Smith arrived at 9 a.m. on Monday.",
        "The U.S. team won!",
        "Was it 3.5 km?",
        "Yes.",
    ]


def test_split_sentences_empty_and_no_punctuation() -> None:
    assert split_sentences("") == []
    assert split_sentences("   \n ") == []
    assert split_sentences("no final stop here") == [(0, 18)]


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .!?\n\"'’)A1")), max_size=80))
def test_split_sentences_spans_are_ordered_trimmed_and_cover_all_words(text: str) -> None:
    spans = split_sentences(text)
    prev = 0
    for a, b in spans:
        assert prev <= a < b <= len(text)
        assert not text[a].isspace()
        assert not text[b - 1].isspace()
        prev = b
    covered = "".join(text[a:b] for a, b in spans)
    assert "".join(covered.split()) == "".join(text.split())


def test_a_hard_wrapped_sentence_is_one_sentence_and_one_quote() -> None:
    # Plain-text releases and e-mail wrap paragraphs at a fixed width: a single line break
    # before a lowercase word continues the sentence; a line that ends one, a blank line or a
    # capitalised next line stays a boundary.
    text = (
        "Northwind Logistics said its revenue grew 18 percent in the\n"
        "third quarter, helped by new contracts.\n"
        "Outlook\n"
        "The company expects\n"
        "\n"
        "slower growth next year."
    )
    assert [text[a:b] for a, b in split_sentences(text)] == [
        "Northwind Logistics said its revenue grew 18 percent in the\n"
        "third quarter, helped by new contracts.",
        "Outlook",
        "The company expects",
        "slower growth next year.",
    ]
    r = judge1("Northwind Logistics revenue grew 18 percent in the third quarter", text)
    assert r.stance is Stance.SUPPORTS
    assert r.quote.startswith("Northwind Logistics said")
    assert "third quarter" in r.quote
    assert anchor_quote(r.quote, text).kind is not AnchorKind.FAILED


# --- figures -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("8%", 8.0, "percent"),
        ("8 percent", 8.0, "percent"),
        ("8.0 per cent", 8.0, "percent"),
        ("eight percent", 8.0, "percent"),
        ("1,200 km", 1_200_000.0, "metre"),  # metric lengths in metres
        ("21.2 cm", 0.212, "metre"),
        ("212mm", 0.212, "metre"),
        ("thirty-seven", 37.0, None),  # a hyphenated compound is one number
        ("forty-two percent", 42.0, "percent"),
        ("a 10-month term", 10 / 12, "year_span"),  # a unit joined by a hyphen, in years
        ("an eight-month term", 8 / 12, "year_span"),
        ("five-year-olds", 5.0, None),  # an age ("-year-old"), not a span
        ("3.5 million people", 3_500_000.0, "person"),
        ("$5 billion", 5e9, "usd"),
        ("in 1998", 1998.0, "year"),
        ("twelve", 12.0, None),
        ("0.3 degrees", 0.3, "deg"),
    ],
)
def test_normalize_figures_reads_value_and_unit(text: str, value: float, unit: str | None) -> None:
    figs = normalize_figures(text)
    assert len(figs) == 1, figs
    assert figs[0].value == pytest.approx(value)
    assert figs[0].unit == unit


def test_equal_figures_give_equal_terms_and_units_are_kept() -> None:
    assert tokenize("rose 8%") == tokenize("rose 8.0 percent") == tokenize("rose eight percent")
    assert tokenize("rose 8 km") != tokenize("rose 8%")
    assert normalize_figures("about 400 films")[0].is_hedged
    assert not normalize_figures("400 films")[0].is_hedged


def test_normalize_figures_offsets_point_at_the_figure() -> None:
    text = "growth was 18 percent last year"
    [f] = normalize_figures(text)
    assert text[f.start : f.end].strip().startswith("18")


# --- IDF -----------------------------------------------------------------------------------------


def test_compute_idf_weights_rare_terms_higher() -> None:
    idf = compute_idf(["the glacier melted", "the river froze", "the lake froze"])
    assert idf[tokenize("glacier")[0]] > idf[tokenize("froze")[0]] > idf["the"]
    assert idf[""] >= idf[tokenize("glacier")[0]]


def test_corpus_idf_changes_the_selected_sentence() -> None:
    doc = "Paris hosted the summit on energy policy. The energy summit ended with a dinner."
    claim = "Paris hosted the energy summit."
    r = judge1(claim, doc)
    assert r.quote == "Paris hosted the summit on energy policy."


# --- stance ------------------------------------------------------------------------------------

DOC = (
    "The regional council published its annual labour report on Tuesday. "
    "Unemployment in the region rose to 11 percent in 2023, the statistics office said. "
    "The council plans new training programmes for young workers."
)


def test_figure_in_same_frame_refutes() -> None:
    r = judge1("Unemployment in the region rose to 18 percent in 2023.", DOC)
    assert r.stance is Stance.REFUTES
    assert "11 percent" in r.quote
    assert "figure" in r.rationale


def test_equal_figure_written_differently_supports() -> None:
    r = judge1("Unemployment in the region rose to eleven per cent in 2023.", DOC)
    assert r.stance is Stance.SUPPORTS


@pytest.mark.parametrize(
    ("claim", "variants"),
    [
        ("Sea levels rose by 20 cm (8 inches) last century.",
         ["Sea levels rose by 20 cm last century.", "Sea levels rose by 8 inches last century."]),
        ("It warmed 0.54F (0.3C) and then 0.9 °F (0.5 °C).",
         ["It warmed 0.54F and then 0.9 °F.", "It warmed 0.3C and then 0.5 °C."]),
        ("Revenue was 57 million euros ($62 million) in 2023.",
         ["Revenue was 57 million euros in 2023.", "Revenue was $62 million in 2023."]),
        ("a 12 km (about 7.5 mi) line", ["a 12 km line", "a about 7.5 mi line"]),
        # a labelled figure, a year, bare numbers, a breakdown, two values of one unit
        ("Profit rose to EUR 18.7 million (Q2 2023: EUR 15.2 million).", None),
        ("Sales fell 4 percent in 2019 (2018).", None),
        ("Sales of 12 (15) units.", None),
        ("The firm hired 40 people (12 engineers).", None),
        ("Prices rose 3.2 percent (2.9%).", None),
    ],
)
def test_a_figure_and_its_conversion_in_parentheses_are_read_as_alternatives(
    claim: str, variants: list[str] | None
) -> None:
    assert conversion_variants(claim) == (variants or [claim])


@pytest.mark.parametrize(
    ("claim", "sentence", "stance"),
    [
        # the sentence states either unit's figure: the claim's quantity, not half of it
        ("Sea levels at Port Arvel rose by 20 cm (8 inches) last century.",
         "Sea levels at Port Arvel rose by 20 cm last century.", Stance.SUPPORTS),
        ("Sea levels at Port Arvel rose by 8 inches (20 cm) last century.",
         "Sea levels at Port Arvel rose by 20 cm last century.", Stance.SUPPORTS),
        ("Nordhavn Shipping reported revenue of 57 million euros ($62 million) in 2023.",
         "Nordhavn Shipping reported revenue of $62 million for 2023.", Stance.SUPPORTS),
        # another value in either unit still refutes
        ("Sea levels at Port Arvel rose by 8 inches (20 cm) last century.",
         "Sea levels at Port Arvel rose by 35 cm last century.", Stance.REFUTES),
        ("Nordhavn Shipping reported revenue of 57 million euros ($62 million) in 2023.",
         "Nordhavn Shipping reported revenue of 75 million euros for 2023.", Stance.REFUTES),
    ],
)
def test_a_sentence_stating_one_unit_of_a_converted_figure_bears_on_the_claim(
    claim: str, sentence: str, stance: Stance
) -> None:
    doc = (f"{sentence} The figures were published on Monday. "
           "Officials said further reports would follow in the spring.")
    assert judge1(claim, doc).stance is stance


def test_unrelated_document_is_an_honest_neutral() -> None:
    r = judge1("The volcano on the island erupted twice in 1902.", DOC)
    assert r.stance is Stance.NEUTRAL
    assert r.relevance < LexicalJudgeConfig().relevance_floor


@pytest.mark.parametrize(
    "evidence",
    [
        "The claim that vitamin C cures the common cold has been debunked by several trials.",
        "Later trials failed to replicate the finding that vitamin C cures the common cold.",
        "Researchers found no evidence that vitamin C cures the common cold.",
        "The paper claiming that vitamin C cures the common cold was withdrawn.",
        "Vitamin C did not cure the common cold in a large trial.",
    ],
)
def test_refutation_and_correction_cues_refute(evidence: str) -> None:
    r = judge1("Vitamin C cures the common cold.", evidence)
    assert r.stance is Stance.REFUTES


def test_plain_statement_supports() -> None:
    r = judge1("Vitamin C cures the common cold.", "Trials showed vitamin C cures the common cold.")
    assert r.stance is Stance.SUPPORTS


def test_antonym_refutes() -> None:
    r = judge1(
        "Arctic sea ice extent increased over the decade.",
        "Arctic sea ice extent decreased over the decade, satellite records show.",
    )
    assert r.stance is Stance.REFUTES
    assert "antonym" in r.rationale


def test_other_value_in_same_frame_refutes_and_negated_claim_is_supported() -> None:
    doc = "SpongeBob SquarePants is an American animated television series."
    assert judge1("SpongeBob SquarePants is a French series.", doc).stance is Stance.REFUTES
    negated = judge1("SpongeBob SquarePants is not a French series.", doc)
    assert negated.stance is Stance.SUPPORTS
    negated = judge1("SpongeBob SquarePants is not an American series.", doc)
    assert negated.stance is Stance.REFUTES


def test_qualified_statement_is_partial_not_a_contradiction() -> None:
    r = judge1(
        "Sea level rise is caused by melting glaciers.",
        "Sea level rise may be caused in part by melting glaciers, some studies suggest.",
    )
    assert r.stance is Stance.PARTIAL


def test_article_with_claim_spread_over_sentences() -> None:
    filler = " ".join(
        f"Paragraph {i} talks about gardening tips and seasonal flowers." for i in range(8)
    )
    doc = (
        f"{filler} Flume released the single Never Be Like You in January. "
        "The single featured vocals from the Canadian singer Kai. "
        f"It reached number one on the ARIA chart in Australia. {filler}"
    )
    claim = "Never Be Like You, featuring Kai, reached number one in Australia."
    r = judge1(claim, doc)
    assert r.stance in (Stance.SUPPORTS, Stance.PARTIAL)
    assert r.quote in (
        "The single featured vocals from the Canadian singer Kai.",
        "It reached number one on the ARIA chart in Australia.",
    )
    unrelated = judge1("The bridge over the river opened in 1932 after delays.", doc)
    assert unrelated.stance is Stance.NEUTRAL


# --- quotes ------------------------------------------------------------------------------------


def test_short_best_sentence_is_extended_to_the_anchor_minimum() -> None:
    doc = "Prices fell. Oil dropped to 60 dollars a barrel on Friday."
    r = judge1("Prices fell.", doc)
    assert len(r.quote) >= 24
    assert r.quote in doc
    assert r.quote.startswith("Prices fell.")


def test_empty_document_and_empty_claim() -> None:
    r = judge1("Anything at all.", "")
    assert (r.stance, r.quote) == (Stance.NEUTRAL, "")
    r = judge1("the of and", DOC)
    assert r.stance is Stance.NEUTRAL


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.text(alphabet=st.sampled_from(list("abcdeé ’.,!?\n0123456789%")), max_size=60),
        min_size=1,
        max_size=6,
    ),
    st.text(alphabet=st.sampled_from(list("abcde 0123456789%")), min_size=1, max_size=40),
)
def test_quote_is_always_an_exact_substring(parts: list[str], claim: str) -> None:
    doc = " ".join(parts)
    r = judge1(claim, doc)
    assert r.quote in doc
    if r.quote:
        assert anchor_quote(r.quote, doc, min_chars=1).kind is AnchorKind.EXACT


def test_batch_keeps_order_and_name() -> None:
    judge = LexicalJudge()
    pairs = [("Unemployment rose to 18 percent.", DOC), ("Council plans training.", DOC)] * 3
    out = judge.judge_batch(pairs)
    assert len(out) == 6
    assert all(r.judge == "lexical" for r in out)
    assert out[0] == out[2] == out[4]
    assert judge.judge_batch([]) == []


# --- real data ---------------------------------------------------------------------------------


@pytest.mark.shared_data
def test_judge_dev_quotes_anchor_and_beat_the_seed_figures() -> None:
    if not JUDGE_DEV.exists():
        pytest.skip(f"judge-dev benchmark not found at {JUDGE_DEV}")
    cases = [json.loads(line) for line in open(JUDGE_DEV) if line.strip()]
    wice = [c for c in cases if c["source"] == "wice"][:120]
    fever = [c for c in cases if c["source"] == "fever_symmetric"]
    judge = LexicalJudge()
    t0 = time.perf_counter()
    out = judge.judge_batch([(c["claim"], c["document"]) for c in wice + fever])
    assert time.perf_counter() - t0 < 30
    n_anchor = 0
    for c, r in zip(wice + fever, out, strict=True):
        assert r.quote in c["document"]
        if len(r.quote) >= 24:
            n_anchor += anchor_quote(r.quote, c["document"]).is_admitted
    assert n_anchor >= 0.95 * sum(len(r.quote) >= 24 for r in out)
    fever_out = out[len(wice) :]
    correct = sum(
        (r.stance.value if r.stance is not Stance.PARTIAL else "SUPPORTS") == c["expected"]
        for c, r in zip(fever, fever_out, strict=True)
    )
    assert correct / len(fever) > 0.5  # above chance on the claim-only-neutral set (seed: 0.428)


# --- frame reading (articles) ------------------------------------------------------------------
# Invented articles of more than three sentences, so the article path (frames) judges them.

_PAD = (
    "The firm was founded in 1971 and has offices in four towns. "
    "Its chair is Ada Morrow, who joined the board last spring. "
    "Shares were little changed in early trading on the exchange. "
)


def frame1(claim: str, body: str) -> JudgeResult:
    return LexicalJudge().judge_batch([(claim, _PAD + body)])[0]


@pytest.mark.parametrize(
    ("phenomenon", "claim", "body", "expected"),
    [
        # figure stated for the claim's quantity, in unit and format variants
        ("unit variant", "Tarsel Optics reported revenue of 57 million euros in 2023.",
         "Tarsel Optics said revenue for 2023 was EUR 57m, its best year.", Stance.SUPPORTS),
        ("unit variant", "Tarsel Optics reported revenue of €57 million in 2023.",
         "Tarsel Optics said its 2023 revenue reached 57 million euros.", Stance.SUPPORTS),
        ("percent variant", "Tarsel Optics' sales grew 23% in 2023.",
         "Tarsel Optics said 2023 sales rose 23 percent.", Stance.SUPPORTS),
        # paraphrase of the predicate
        ("paraphrase", "Tarsel Optics grew its sales 18 percent in 2023.",
         "Tarsel Optics posted an increase of 18 percent in sales for 2023.", Stance.SUPPORTS),
        ("paraphrase", "Tarsel Optics is set to create 90 positions at its Orrin plant.",
         "Tarsel Optics will add 90 new jobs at the Orrin factory next year.", Stance.SUPPORTS),
        ("paraphrased object", "The Orrin Board blocked Tarsel Optics' takeover of Brel.",
         "The Orrin Board has not blocked the transaction, Tarsel Optics said.", Stance.REFUTES),
        # a different figure for the same quantity and period
        ("changed number", "Tarsel Optics reported revenue of 75 million euros in 2023.",
         "Tarsel Optics said revenue for 2023 was 57 million euros.", Stance.REFUTES),
        # a different quantity, or another period: neither
        ("other quantity", "Tarsel Optics reported revenue of 57 million euros in 2023.",
         "Tarsel Optics' order intake did not grow 23 percent in the third quarter.",
         Stance.NEUTRAL),
        ("time frame", "Tarsel revenue grew 9% in Q3.",
         "Tarsel said revenue grew 9% in the second quarter of 2024.", Stance.NEUTRAL),
        # opposite predicates and explicit negation
        ("opposite predicate", "Tarsel Optics' sales increased in 2023.",
         "Tarsel Optics' sales fell 2 percent in 2023.", Stance.REFUTES),
        ("negation", "The Orrin council approved the Tarsel Optics warehouse.",
         "The Orrin council did not approve the Tarsel Optics warehouse.", Stance.REFUTES),
        # qualification and contrast are not contradiction
        ("qualification", "Tarsel Optics reported revenue of 57 million euros in 2023.",
         "Tarsel Optics said 2023 revenue was 57 million euros, excluding a one-off grant.",
         Stance.SUPPORTS),
        ("contrast", "Tarsel Optics reported revenue of 57 million euros in 2023.",
         "Tarsel Optics said 2023 revenue was 57 million euros, but margins narrowed.",
         Stance.SUPPORTS),
        # hedged or planned against a done fact; approximate figure
        ("plan", "Tarsel Optics has closed its Orrin plant.",
         "Tarsel Optics intends to close its Orrin plant by the end of next year.",
         Stance.PARTIAL),
        ("approximate", "Tarsel Optics sold 62,000 lenses in 2023.",
         "Tarsel Optics said it sold about 60,000 lenses in 2023.", Stance.PARTIAL),
        ("rounded bound", "Tarsel Optics had 2,310,000 customers at the end of 2023.",
         "Tarsel Optics' customers passed 2.3 million at the end of 2023.", Stance.PARTIAL),
        ("rounding", "Tarsel Optics' 2023 net sales were 1.18 billion dollars.",
         "Tarsel Optics' net sales for 2023 were $1,180.3 million.", Stance.SUPPORTS),
        # attribution and denial
        ("attribution", "Tarsel Optics will close 30 of its shops in 2025.",
         "A rumour that Tarsel Optics will close 30 of its shops in 2025 spread online.",
         Stance.NEUTRAL),
        ("space-grouped thousands", "Orrin General had 14,862 patients on its waiting list.",
         "Orrin General had 14 862 patients on its waiting list at the end of March.",
         Stance.SUPPORTS),
        ("opposite predicate, pass", "The Orrin laboratory failed its biosafety inspection.",
         "The Orrin laboratory passed its biosafety inspection, the inspectorate said.",
         Stance.REFUTES),
        ("negation after 'contrary to'", "Tarsel Optics has been fined over the Orrin spill.",
         "Contrary to some posts on social media, Tarsel Optics has not been fined over the "
         "Orrin spill.", Stance.REFUTES),
        ("a prohibition is no negation", "Orrin Water's hosepipe ban takes effect on 15 July.",
         "Orrin Water's hosepipe ban takes effect on 15 July. While the ban is in force, "
         "customers must not use a hosepipe to water gardens.", Stance.SUPPORTS),
        ("attribution, told", "The Orrin laboratory failed its biosafety inspection.",
         "Staff have also been told that the Orrin laboratory failed its biosafety inspection.",
         Stance.NEUTRAL),
        ("a sibling name's figure", "Orrin Hill Academy's pass rate in 2025 was 87.4 per cent.",
         "Orrin Vale Academy's pass rate in 2025 was 74.2 per cent, the county said.",
         Stance.NEUTRAL),
        ("kilotonnes", "The Orrin kiln may burn up to 150,000 tonnes of waste fuel a year.",
         "The Orrin kiln will continue to burn up to 150 kt of refuse-derived fuel a year.",
         Stance.SUPPORTS),
        ("paraphrased quantity, precise value", "Orrin Energy's operating profit for April "
         "to June 2024 came to €187m.", "Orrin Energy, second quarter 2024. Adjusted result "
         "excluding special items: EUR 187 million (EUR 162 million).", Stance.SUPPORTS),
        ("paraphrased quantity, two-digit value", "Orrin Energy's operating profit for April "
         "to June 2024 came to €23m.", "Orrin Energy, second quarter 2024. Adjusted result "
         "excluding special items: EUR 23 million (EUR 16 million).", Stance.NEUTRAL),
        ("a state's length", "The boil-water notice in Orrin lasted 19 days.",
         "The Orrin boil-water notice, which was in place for 16 days, was lifted on 6 May.",
         Stance.REFUTES),
        ("another of the claim's figures", "Tarsel Optics is to shut six of its 40 garden "
         "centres.", "Tarsel Optics will shut six garden centres, bringing its estate down to "
         "34.", Stance.NEUTRAL),
        ("the change at the claim's figure", "Tarsel Optics' sales grew 3.7% in the second "
         "quarter.", "Tarsel Optics' sales did not return to growth in the second quarter and "
         "were 3.7 per cent lower than a year earlier.", Stance.REFUTES),
        ("the others of a count", "Tarsel Optics is shutting twelve shops across the Orrin "
         "region.", "Tarsel Optics' 9 remaining Orrin shops will continue to trade as normal "
         "across the region.", Stance.NEUTRAL),
        ("a start-up is no start", "Tarsel Optics has shut down its Orrin office.",
         "Tarsel Optics is consulting staff on a proposal to close its Orrin office. The "
         "Orrin office has been the company's second home since it bought local start-up "
         "Lensly in 2016.", Stance.PARTIAL),
        ("a proposal to", "Tarsel Optics has shut down its Orrin office.",
         "Tarsel Optics is consulting staff on a proposal to close its Orrin office.",
         Stance.PARTIAL),
        ("a name opening the sentence, another head", "Orrin Bay Airport handled 2.84m "
         "passengers in 2024.", "Orrin Bay Ferry Terminal carried 1.1 million passengers in "
         "2024, a rise of 3 per cent.", Stance.NEUTRAL),
        ("an open bound admits the claim's value", "Orrin's average private rent stood at "
         "£1,045 a month in March 2024.", "In March 2024 the average private rent in Orrin was "
         "above £1,000 a month.", Stance.NEUTRAL),
        ("an open bound that excludes the claim's value", "Orrin's average private rent "
         "stood at £945 a month in March 2024.", "In March 2024 the average private rent in "
         "Orrin was above £1,000 a month.", Stance.REFUTES),
        ("a statement rejected", "Orrin District Council is cutting 45 jobs from its housing "
         "service.", "Orrin District Council has rejected claims by the workers' union that 45 "
         "jobs will be lost from its housing service.", Stance.REFUTES),
        ("thrown out", "Tarsel Homes' plans for Quarry Lane were thrown out by the Orrin "
         "planning committee.", "The Orrin planning committee has approved Tarsel Homes' plans "
         "for Quarry Lane.", Stance.REFUTES),
        ("a loss is no profit", "The Orrin Tigers ice hockey club made an operating profit "
         "in 2024.", "The Orrin Tigers ice hockey club made an operating loss of £2.1m in 2024.",
         Stance.REFUTES),
        ("attribution, belief", "Orrin's seal colony is growing.",
         "More sightings in Orrin have led to a belief that the seal colony is growing.",
         Stance.NEUTRAL),
        ("attribution, perception", "Tarsel Optics will close 30 of its shops in 2025.",
         "The perception that Tarsel Optics will close 30 of its shops in 2025 has spread.",
         Stance.NEUTRAL),
        ("denial", "Tarsel Optics will close 30 of its shops in 2025.",
         "Tarsel Optics denied that it will close 30 of its shops in 2025.", Stance.REFUTES),
        ("denial", "Tarsel Optics will close 30 of its shops in 2025.",
         "Tarsel Optics has no plans to close any of its shops in 2025.", Stance.REFUTES),
        # same entity, another event; a correction of one statement leaves the others
        ("other event", "Tarsel Optics opened a lens laboratory in Orrin in 2024.",
         "Tarsel Optics sold its Brel warehouse to a logistics group in 2019.", Stance.NEUTRAL),
        ("other statement corrected", "Tarsel Optics will hire 90 engineers in Orrin.",
         "Correction: Tarsel Optics' 2023 revenue was 57 million euros, not 75 million euros "
         "as first reported. Tarsel Optics will hire 90 engineers in Orrin, as announced.",
         Stance.SUPPORTS),
        # off-topic: another entity, or shared jargon only
        ("off topic", "Tarsel booked 57 million euros.",
         "Brindle Glassworks booked 57 million euros in 2023.", Stance.NEUTRAL),
        ("off topic, long claim", "Tarsel Optics reported revenue of 57 million euros in 2023.",
         "Brindle Glassworks reported revenue of 57 million euros in 2023.", Stance.NEUTRAL),
        ("off topic, compound claim",
         "Tarsel Optics, a lens maker, reported revenue of 57 million euros in 2023.",
         "Brindle Glassworks, a lens maker, reported revenue of 57 million euros in 2023.",
         Stance.NEUTRAL),
        ("other entity as object", "The Orrin Courier is shutting down.",
         "The Orrin Courier marked its centenary in May. Its owner Brel Media has decided to "
         "shut down the Harbour Weekly.", Stance.NEUTRAL),
        ("jargon overlap", "Tarsel Optics opened a lens laboratory in Orrin.",
         "Lens laboratories need clean rooms and careful calibration.", Stance.NEUTRAL),
        # a negated claim: refuted by the plain statement, supported only by a negation
        ("negated claim, plain statement", "Orrin harbour's sea level is not rising.",
         "Tide gauges show the sea level at Orrin harbour rising by 4 mm a year.",
         Stance.REFUTES),
        ("negated claim, negated statement", "Orrin harbour's sea level is not rising.",
         "Tide gauges show the sea level at Orrin harbour is not rising.", Stance.SUPPORTS),
        ("claim of a denial", "The closure of the Tarsel Optics plant in Orrin is a myth.",
         "Tarsel Optics closed its plant in Orrin in May, the company said.", Stance.REFUTES),
        ("negation in a title", "Never Mind the Frost, by Tarsel Optics, topped the Orrin chart.",
         "Never Mind the Frost, by Tarsel Optics, topped the Orrin chart in May.",
         Stance.SUPPORTS),
        # degree words are part of what the claim says
        ("degree absent", "Brel heating is the main cause of the Orrin smog.",
         "Brel heating is a cause of the Orrin smog, officials said.", Stance.PARTIAL),
        ("degree as synonym", "Brel heating is the main cause of the Orrin smog.",
         "Brel heating is the primary cause of the Orrin smog, officials said.",
         Stance.SUPPORTS),
        ("figure with a half", "Tarsel Optics raised prices by three and a half percent.",
         "Tarsel Optics raised prices by 3.5 per cent.", Stance.SUPPORTS),
        # "lifted" a guidance is a rise (it reverses only a ban or a limit)
        ("lifted guidance", "Tarsel Optics cut its profit guidance for 2024.",
         "Tarsel Optics lifted its profit guidance for 2024 after strong sales.",
         Stance.REFUTES),
        # a month that ends a fiscal year is not the claim's month
        ("fiscal year", "Tarsel Optics cut its profit guidance for the year to February 2025.",
         "For the year to February 2025, Tarsel Optics lifted its profit guidance, helped by "
         "strong January sales.",
         Stance.REFUTES),
        # "high" and "low" as adjectives are not a rise or a fall
        ("adjective low", "Tarsel Optics cut its profit guidance for 2024.",
         "Tarsel Optics raised its profit guidance for 2024 despite low-margin January sales.",
         Stance.REFUTES),
        # a comparative with a figure is a rise or a fall
        ("comparative with a figure", "Tarsel Optics' Orrin sales fell in 2024.",
         "Tarsel Optics' Orrin sales in 2024 were 4% higher than in 2023.", Stance.REFUTES),
        # hearsay: what people say they were told is not the document's assertion
        ("hearsay", "Tarsel Optics has committed to keeping its Orrin plant open.",
         "Workers say they have been told that Tarsel Optics will keep its Orrin plant open.",
         Stance.NEUTRAL),
        # a count is not a year: "1842 votes" puts the claim in no year
        ("count, not a year", "Maren Holt received 1842 votes in the Orrin by-election.",
         "In 2024 Maren Holt received 1,842 votes in the Orrin by-election.",
         Stance.SUPPORTS),
        # "came into operation" starts something; it is not a job ("starters")
        ("start is not a job", "Orrin's redesigned bus network came into operation in 2024.",
         "The Orrin drivers' union said its members will work hard to make the new bus "
         "network a success in 2024.", Stance.NEUTRAL),
        # another value of the claim's quantity refutes it, whatever else the document
        # expects or plans ("stood at" is only a verb of stating a value)
        ("other value among plans", "Tarsel Optics' order backlog stood at $640 million at "
         "the end of 2023.",
         "At December 31, 2023, Tarsel Optics' order backlog was $460.2 million. We expect "
         "to ship substantially all of it during 2024.", Stance.REFUTES),
        # refusing permission is a refusal; "clear" is not an approval
        ("refused permission", "The Orrin council approved the Tarsel Optics warehouse.",
         "The Orrin council decided to refuse planning permission for the Tarsel Optics "
         "warehouse, against the clear advice of its officers.", Stance.REFUTES),
        # a short form of the claim's name names it
        ("short form of a name", "The Pellworth Gazette is shutting down.",
         "After 131 years the Gazette will stop printing. But we are not shutting down.",
         Stance.REFUTES),
        # a negation negates the word it stands before
        ("negation of another verb", "Tarsel Optics' sales in Orrin increased in 2024.",
         "Tarsel Optics does not dispute that its sales in Orrin increased in 2024.",
         Stance.SUPPORTS),
        ("not only", "Tarsel Optics' sales in Orrin increased in 2024.",
         "Tarsel Optics' sales in Orrin not only increased in 2024, they doubled.",
         Stance.SUPPORTS),
        ("negated clause", "Tarsel Optics paid its Orrin suppliers 41.2 cents a litre in 2024.",
         "The 41.2 cent figure is not what Tarsel Optics paid its Orrin suppliers in 2024.",
         Stance.REFUTES),
        # someone arguing a position is not the document's assertion
        ("argues", "Tarsel Optics' sales in Orrin increased in 2024.",
         "Lena Voss argues that Tarsel Optics' sales in Orrin did not increase in 2024.",
         Stance.NEUTRAL),
        # "has shut down" is a done fact whichever words say it
        ("plan against a phrasal done fact", "Tarsel Optics has shut down its Orrin plant.",
         "Tarsel Optics approved a plan to close its Orrin plant by the end of next year.",
         Stance.PARTIAL),
        # a time frame counted from when the claim was made is part of what it states
        ("forward time frame absent", "Next year the Orrin lagoon will be free of ice.",
         "Forecasters say the Orrin lagoon will be free of ice within a few decades.",
         Stance.PARTIAL),
        ("forward time frame unstated", "Tarsel Optics will close its Orrin plant next year.",
         "Tarsel Optics will close its Orrin plant, the company said.", Stance.PARTIAL),
        ("forward time frame stated", "Next year the Orrin lagoon will be free of ice.",
         "Forecasters say the Orrin lagoon will be free of ice next year.", Stance.SUPPORTS),
        ("narrative time frame", "Tarsel Optics opened its Orrin plant the following year.",
         "In 2019 Tarsel Optics bought land in Orrin. It opened its Orrin plant in 2020.",
         Stance.SUPPORTS),
        ("forward time frame in other words", "The Orrin lagoon will be free of ice within a "
         "decade.", "Forecasters say the Orrin lagoon will be free of ice in the next ten years.",
         Stance.SUPPORTS),
        # a number written as a hyphenated compound is one number (37, not 30 and 7)
        ("compound number word", "Thirty-seven cases of measles have been confirmed in the "
         "Orrin outbreak.", "The Orrin health agency has confirmed 37 cases of measles in the "
         "outbreak.", Stance.SUPPORTS),
        # a negation of the claim's subject phrase denies nothing the claim says of it ...
        ("negated subject phrase", "Competition regulators have approved Tarsel Optics' "
         "purchase of Brel Lenses.", "The Orrin Competition Board has approved the purchase of "
         "Brel Lenses by Tarsel Optics, on condition that two shops are sold in towns where the "
         "firms face little or no competition.", Stance.SUPPORTS),
        # ... and is read past to the predicate it negates
        ("negation past the subject phrase", "Jobs were cut at the Tarsel Optics plant in Orrin.",
         "No jobs were cut at the Tarsel Optics plant in Orrin, the company said.",
         Stance.REFUTES),
        ("metric length in another prefix", "Orrin had 21.2 cm of rain in October 2025.",
         "In October 2025, 212 mm of rain fell in Orrin.", Stance.SUPPORTS),
        # "than in 2023" is the base of the comparison: the sentence is of 2024
        ("comparison base year", "Orrin's wheat harvest in 2025 was 12% smaller than in 2024.",
         "The 2024 Orrin wheat harvest was 12% smaller than in 2023, the farmers' union said.",
         Stance.NEUTRAL),
        # a sentence that opens with a year is of that year, whatever the lede's date
        ("sentence opening with another year", "More than 90% of Orrin's pupils passed the "
         "reading test in 2025.", "The Orrin schools report was published in March 2025. In "
         "2024, 91% of Orrin's pupils passed the reading test.", Stance.NEUTRAL),
        # a figure of a quarter or of some months is not another value of the whole year's
        ("figure of a quarter", "Orrin airport handled 2.6 million passengers in 2024.",
         "Orrin airport handled 0.7 million passengers between January and March 2024, up 9% "
         "on a year earlier.", Stance.NEUTRAL),
        ("figure of months", "Orrin airport handled 2.6 million passengers in 2024.",
         "Orrin airport's figures for 2024 were published on 12 January 2025. From April to "
         "June 2024 Orrin airport handled 690,000 passengers.", Stance.NEUTRAL),
        # the number of a name ("Vista 5") is not a value of the claim's quantity
        ("number of a name", "Tarsel set the price of the 128 GB Tarsel Vista 5 at 499 euros.",
         "The Tarsel Vista 5 is a phone that many reviewers liked. Its battery lasts two days.",
         Stance.NEUTRAL),
        # "the whole of 2024" is the claim's period, not a degree ("all") it asserts
        ("whole period", "Orrin airport handled 2.6 million passengers over the whole of 2024.",
         "Orrin airport handled 2.6 million passengers in 2024, its busiest year.",
         Stance.SUPPORTS),
        # what was announced, approved or designed is still to come: its plan is what was
        # announced; a plan of the decision itself, or of a done fact the claim reports, is not
        ("announced plan", "Orrin Water announced a hosepipe ban that applies to 1.1m "
         "households.", "Orrin Water said the restrictions will apply to all 1.1 million "
         "household customers in its area.", Stance.SUPPORTS),
        ("designed capacity", "The Brel plant was designed to burn 350,000 tonnes of waste a "
         "year.", "The Brel plant would burn 350,000 tonnes of waste a year.", Stance.SUPPORTS),
        ("approval", "Orrin councillors have given the go-ahead for a stand taking Brel Park "
         "to 27,500 seats.", "Orrin councillors are expected to approve a stand taking Brel "
         "Park to 27,500 seats.", Stance.PARTIAL),
        ("announced done fact", "Tarsel Optics announced that it had cut 140 jobs at Orrin.",
         "Tarsel Optics will cut 140 jobs at Orrin.", Stance.PARTIAL),
        # a count of occurrences ("spilled 3,412 times") counts the act, as "4,312 spill events"
        # does; "times" followed by a preposition or a stop is a frequency, not a factor
        ("frequency", "Orrin Water's storm overflows spilled 3,412 times in 2024.",
         "For Orrin Water, the register records 4,312 spill events in 2024 across its 1,210 "
         "overflows.", Stance.REFUTES),
        ("frequency", "Orrin Water's storm overflows spilled 4,312 times in 2024.",
         "For Orrin Water, the register records 4,312 spill events in 2024 across its 1,210 "
         "overflows.", Stance.SUPPORTS),
        # "decided not to grant a permit" is the claim's "refusal of the permit", no denial
        ("negated opposite", "Orrin Renewables has appealed against the refusal of the Brel "
         "Point permit.", "The Orrin Environmental Authority has decided not to grant a permit "
         "to Orrin Renewables for the Brel Point plant.", Stance.NEUTRAL),
        ("comparison with the one replaced", "The Orrin League's new TV contract is worth less "
         "than the one it replaces.", "The Orrin League's new media agreement is worth 310 "
         "million euros, a 40 percent increase on the league's current contract.",
         Stance.REFUTES),
        # "was dismissed" is a sacking, not a denial; "dismissed as nonsense" is one
        ("passive dismissal", "Orrin Town finished bottom of the Brel League in 2021.",
         "Gary Whitlow was dismissed in April after Orrin Town finished bottom of the Brel "
         "League in 2021.", Stance.SUPPORTS),
        ("dismissed as", "Orrin Town finished bottom of the Brel League in 2021.",
         "The club dismissed as nonsense reports that Orrin Town finished bottom of the Brel "
         "League in 2021.", Stance.REFUTES),
        # closing in idiom: "stopped seeing patients", "ceased operating", "closed its doors"
        ("closing idiom", "Orrin Street Clinic stopped seeing patients at the end of February "
         "2025.", "The minutes of March 2025 note that Orrin Street Clinic had ceased operating "
         "at the end of February.", Stance.SUPPORTS),
        ("opening idiom", "Five new Orrin stores opened their doors in 2024.",
         "Orrin opened five new stores in 2024.", Stance.SUPPORTS),
        # a period dated by its last day is of that calendar year, whatever financial year
        # names it; thirteen weeks are a quarter
        ("dated period", "Orrin Pharmacy took in £187.3m of revenue in the three months to 28 "
         "December 2024.", "Orrin Pharmacy issues its trading update for the 13 weeks to 30 "
         "December 2023, the third quarter of the 2024 financial year. Revenue in the period "
         "was £171.9 million.", Stance.NEUTRAL),
        # "4.2 million US dollars" is a sum in dollars; a purse is the prize money
        ("currency name", "The 2025 Orrin Open carries total prize money of 4.2 million US "
         "dollars.", "The Orrin Open's total purse in 2025 stands at US$4.2m, paid equally "
         "across the men's and women's events.", Stance.SUPPORTS),
        # a possessive ends a name: "Orrin Power's Brel Bay wind farm" is named by "Brel Bay";
        # the "and" of a range ("between July and September") joins no second fact, so the
        # claim's figure for its quantity in its quarter supports it
        ("owner's name", "Orrin Power's Brel Bay wind farm produced 1,200 gigawatt hours "
         "between July and September 2025.", "The largest single contributor in the third "
         "quarter of 2025 was the Brel Bay offshore wind farm, whose metered output reached "
         "1,200 GWh.", Stance.SUPPORTS),
        # halving is a cut of 50 percent: a cut of 25 percent is another value of it
        ("halving", "Orrin is halving its budget for stop-smoking services in 2025-26.",
         "Orrin's plan for 2025-26: stop-smoking services budget reduced from 1.2m pounds to "
         "0.9m pounds, a reduction of 25 percent.", Stance.REFUTES),
        ("halving", "Orrin halved its budget for stop-smoking services in 2025-26.",
         "In 2025-26 Orrin cut its budget for stop-smoking services by half.", Stance.SUPPORTS),
        # a round count of a named subject's things is its count, as any other figure is
        ("round count", "Two people died in the Orrin legionella cluster.",
         "Orrin health officials gave an update on the legionella cluster on Thursday. Two "
         "people have died. Nine patients have been treated in hospital.", Stance.SUPPORTS),
        # a figure of a half is not another value of the year's; a range holds its values
        ("half of the year", "Orrin Outfitters made a pre-tax profit of £42 million in the year "
         "to February 2025.", "Orrin Outfitters published interim results in September 2024. "
         "Profit before tax for the half was £14.6 million.", Stance.NEUTRAL),
        ("range", "Orrin Outfitters made a pre-tax profit of £42 million in the year to February "
         "2025.", "The board of Orrin Outfitters now expects profit before tax for the year "
         "ending 1 February 2025 to be in the range of £41 million to £43 million.",
         Stance.PARTIAL),
        # a count of jobs lost is not a headcount, and another count of jobs lost refutes it
        ("loss against a headcount", "The Orrin-Brel merger will cost 90 jobs.",
         "The merged Orrin-Brel university will bring together around 21,000 students and 3,400 "
         "staff.", Stance.NEUTRAL),
        ("loss against a loss", "The Orrin-Brel merger will cost 90 jobs.",
         "The Orrin-Brel merger will cut 120 jobs.", Stance.REFUTES),
        ("a price is no loss", "Building the Orrin Observatory's telescope cost €74 million.",
         "Building the Orrin Observatory's telescope cost €81 million, its accounts show.",
         Stance.REFUTES),
        # a document that reports the claim's value and then contradicts it refutes it
        ("reported value contradicted", "Building the Orrin Observatory's telescope cost €74 "
         "million.", "The Orrin Observatory's telescope cost more than its operators have said. "
         "The Orrin Observatory announced a price of €74m when the telescope saw first light. "
         "But the Orrin consortium's annual accounts put the total cost of building the "
         "telescope at €81m.", Stance.REFUTES),
        # a claim of several facts whose main predicate no sentence states is supported in part
        ("several facts without the main predicate", "Orrin Brands had been told about "
         "overheating kettle bases months before it announced the recall.", "Orrin Brands is "
         "voluntarily recalling its kettle after identifying a fault that may cause the kettle "
         "base to overheat. The recall was announced on 12 September by Orrin Brands. Customers "
         "should stop using the kettles at once and contact Orrin Brands for a refund. Orrin "
         "Brands said it had received reports of overheating bases.", Stance.PARTIAL),
        # "14 of its pubs" counts pubs
        ("partitive count", "Orrin Inns sold off 14 of its pubs in the year to September 2024.",
         "Orrin Inns sold 19 pubs in its financial year to the end of September 2024.",
         Stance.REFUTES),
        # a count of other things ("12 of these areas") is no value of the claim's count, nor
        # is a bound that admits it ("at least three")
        ("count of other things", "Orrin intends to close twelve of the pharmacies it bought "
         "from Brel.", "Orrin bought 46 pharmacies from Brel, the regulator said. In 12 of these "
         "areas at least three competing pharmacies remain.", Stance.NEUTRAL),
        # "pulled its kettles off the market" is a recall
        ("recall idiom", "Orrin Brands has pulled its KT-200 kettles off the market.",
         "Orrin Brands is recalling its KT-200 kettles.", Stance.SUPPORTS),
        # "gone into administration" is to have entered it
        ("go into", "Orrin Grills has gone into administration.",
         "Orrin Grills said: the group has not entered administration.", Stance.REFUTES),
        # "go up by 7%" is a rise; the claim's figure stated as a fall refutes it
        ("opposite change of the claim's figure", "Orrin University saw international enrolment "
         "go up by 7% in 2024/25.", "Orrin University's registry counts 4,310 international "
         "students in 2024/25, a decrease of 7 percent compared with the previous year.",
         Stance.REFUTES),
        # a statement placed in other named places is not of the claim's place
        ("other places", "Orrin Hotels has opened a hotel in Edinburgh.",
         "Orrin Hotels opened three hotels during the quarter, in Truro, Lincoln and Stirling.",
         Stance.NEUTRAL),
        ("same place", "Orrin Hotels has opened a hotel in Edinburgh.",
         "Orrin Hotels opened two hotels during the quarter, in Edinburgh and Stirling.",
         Stance.SUPPORTS),
        # a date written in numbers is a date: its day and year are compared, not figures
        ("numeric date", "The Orrin bridge opened on 2024-05-14.",
         "The Orrin bridge opened on 14 May 2024, the council said.", Stance.SUPPORTS),
        ("numeric date", "The Orrin bridge opened on 14/05/2024.",
         "The Orrin bridge opened on 14 May 2024, the council said.", Stance.SUPPORTS),
        ("numeric date", "The Orrin bridge opened on 2024-05-15.",
         "The Orrin bridge opened on 14 May 2024, the council said.", Stance.REFUTES),
        ("numeric date", "The Orrin bridge opened on 2025-05-14.",
         "The Orrin bridge opened on 14 May 2024, the council said.", Stance.REFUTES),
        # a sum in yen or rupees is not one in dollars
        ("other currency", "Orrin Robotics reported revenue of 42 million yen in 2025.",
         "Orrin Robotics reported revenue of 42 million dollars in 2025.", Stance.NEUTRAL),
        ("other currency", "Orrin Robotics reported revenue of ¥42 million in 2025.",
         "Orrin Robotics reported revenue of 42 million dollars in 2025.", Stance.NEUTRAL),
        ("same currency", "Orrin Robotics reported revenue of C$42 million in 2025.",
         "Orrin Robotics reported revenue of 42 million Canadian dollars in 2025.",
         Stance.SUPPORTS),
        # "one person" is a count of people (as "two people" is), here the corrected value
        ("correction to one", "Two people died in the Orrin legionella outbreak.",
         "Correction. Our update of August 8 on the Orrin legionella outbreak said that two "
         "people had died. That was incorrect. One person, a man in his seventies, has died.",
         Stance.REFUTES),
        # a comparison with an earlier time is a change; an age group ("two-year-olds") is
        # who is counted, not a figure
        ("comparison with the past", "Fewer Orrin two-year-olds had their first MMR jab in 2024 "
         "than a year earlier.", "The share of Orrin two-year-olds who have had their first MMR "
         "jab slipped to 91.4 per cent in 2024, from 92.0 per cent in 2023.", Stance.SUPPORTS),
        ("comparison with the past", "Fewer Orrin two-year-olds had their first MMR jab in 2024 "
         "than a year earlier.", "The share of Orrin two-year-olds who have had their first MMR "
         "jab rose to 92.4 per cent in 2024, from 92.0 per cent in 2023.", Stance.REFUTES),
        # "38 percent full" is a share of capacity; "at the start of July 2025" is a time; a
        # light verb ("stood at") is not among the words that name a figure's quantity
        ("share of capacity", "Orrin Water's reservoirs were 38 percent full at the start of "
         "July 2025.", "Reservoir stocks in the Orrin Water supply system stood at 41 per cent "
         "of capacity on 1 July 2025, the agency said.", Stance.REFUTES),
        ("share of capacity", "Orrin Water's reservoirs were 41 percent full at the start of "
         "July 2025.", "Reservoir stocks in the Orrin Water supply system stood at 41 per cent "
         "of capacity on 1 July 2025, the agency said.", Stance.SUPPORTS),
    ],
)
def test_frame_classes(phenomenon: str, claim: str, body: str, expected: Stance) -> None:
    r = frame1(claim, body)
    assert r.stance is expected, (phenomenon, r.rationale)


@pytest.mark.parametrize(
    ("claim", "body"),
    [
        # ends of ranges, on either side, are not values of the quantity
        ("Orrin harbour's sea level rose by 25 cm after 1990.",
         "Orrin harbour's sea level rose by 16–21 cm after 1990, the survey said."),
        ("Orrin harbour's sea level rose by 20 to 30 cm after 1990.",
         "Orrin harbour's sea level rose by 16 cm after 1990, the survey said."),
        # a factor compares two quantities
        ("Orrin heatwaves are five times more likely after 1990.",
         "Orrin heatwaves are 1.2 times more likely after 1990 in the model runs."),
    ],
)
def test_ranges_and_factors_are_not_other_values(claim: str, body: str) -> None:
    for judge in (frame1, judge1):
        assert judge(claim, body).stance is not Stance.REFUTES


@pytest.mark.parametrize(
    "claim",
    [
        "However, it raised Orrin harbour's sea level by 20 cm in 2023.",
        "as it raised Orrin harbour's sea level by 20 cm in 2023",
    ],
)
def test_claim_that_names_nothing_is_supported_in_part(claim: str) -> None:
    body = "The Brel dam raised Orrin harbour's sea level by 20 cm in 2023, the survey said."
    named = judge1("The Brel dam raised Orrin harbour's sea level by 20 cm in 2023.", body)
    assert named.stance is Stance.SUPPORTS
    r = judge1(claim, body)
    assert r.stance is Stance.PARTIAL
    assert "names no subject" in r.rationale


def test_a_measure_in_a_things_description_is_not_the_claims_figure() -> None:
    # "4.1-metre telescope" names which telescope; the claim states its cost
    fr = LexicalJudge()._claim_frame(
        "Building the Orrin Observatory's 4.1-metre telescope cost €74 million.", {}, 1.0
    )
    assert [(f.value, f.unit) for f in fr.figures] == [(74e6, "eur")]
    assert "#4.1" in fr.predicate
    # alone, it is what the claim states ("approved a 200-metre track")
    fr = LexicalJudge()._claim_frame("Orrin approved a 200-metre track.", {}, 1.0)
    assert [(f.value, f.unit) for f in fr.figures] == [(200.0, "metre")]


@pytest.mark.parametrize("text", ["tuition from fall 2025", "in the fall semester",
                                  "from the fall of 2026", "fall term fees"])
def test_fall_as_a_season_is_no_fall(text: str) -> None:
    """"from fall 2025" names the season: no concept of a fall (a decrease) is read."""
    from affidavit.tasks.judge_frame import _concept_terms

    assert "decrea" not in _concept_terms(text)
    assert "decrea" in _concept_terms(text.replace("fall", "fall 4%", 1).replace(
        "fall 4% 2025", "fall 4% in 2025"))


@pytest.mark.parametrize("forms", [
    ("merge", "merged", "merger"),  # a merger
    ("axing", "axed", "removed"),  # "axing 180 jobs" removes them, as "axed" does
])
def test_word_forms_share_their_concept(forms: tuple[str, ...]) -> None:
    from affidavit.tasks.judge_frame import _concept_terms

    assert len({tuple(_concept_terms(w)) for w in forms}) == 1, forms


@pytest.mark.parametrize(("text", "denial"), [
    ("the university asked the journals to retract the three papers", False),
    ("we retract the statement", True),
    ("the paper was retracted", True),
])
def test_retracting_a_paper_is_no_denial_of_a_statement(text: str, denial: bool) -> None:
    from affidavit.tasks.judge_frame import _DENIAL_RE

    assert bool(_DENIAL_RE.search(text)) is denial


def test_a_named_agents_verdict_is_not_a_negated_claim() -> None:
    # "Lena Voss disproved X" is about what Lena Voss did: a source stating X does not
    # contradict it (as it contradicts "X was disproved").
    body = "Lena Voss spoke at the meeting. Tarsel Optics closed its Orrin plant in May."
    agent = frame1("Lena Voss disproved the closure of the Tarsel Optics plant in Orrin.", body)
    plain = frame1("The closure of the Tarsel Optics plant in Orrin was disproved.", body)
    assert agent.stance is not Stance.REFUTES
    assert plain.stance is Stance.REFUTES


def test_title_names_the_subject_the_text_does_not() -> None:
    claim = "Tarsel Optics' net sales for 2023 were 1.18 billion dollars."
    body = _PAD + "Net sales for fiscal 2023 increased 8.3% to $1,180.3 million. More later."
    judge = LexicalJudge()
    untitled = judge.judge_batch([(claim, body)])[0]
    titled = judge.judge_batch([(claim, body)], titles=["Tarsel Optics – Annual Report 2023"])[0]
    assert untitled.stance is Stance.NEUTRAL
    assert titled.stance is Stance.SUPPORTS
    assert titled.quote in body  # the quote comes from the text, never from the title
    with pytest.raises(ValueError, match="titles"):
        judge.judge_batch([(claim, body)], titles=[])


@pytest.mark.parametrize(
    ("passage", "expected"),
    [
        # the passage names the claim's subject: its negation bears on the claim
        ("The Orrin council did not approve the Tarsel Optics warehouse.", Stance.REFUTES),
        # it names something else: a word-set negation is not borne out by the claim's frame
        ("Brindle Glassworks has not approved any warehouse plans this year.", Stance.NEUTRAL),
    ],
)
def test_passage_negation_needs_the_claims_subject(passage: str, expected: Stance) -> None:
    claim = "The Orrin council approved the Tarsel Optics warehouse."
    assert judge1(claim, passage).stance is expected


@pytest.mark.xfail(strict=True, reason="known gap: a correction whose corrected sentence "
                   "shares little of the claim's wording loses to the quoted original")
def test_frame_correction_refutes() -> None:
    claim = "Tarsel Optics' order backlog stood at $640 million at the end of 2023."
    correction = (
        "Tarsel Optics' announcement gave the order backlog at the end of 2023 as $640 million. "
        "That figure was wrong: the backlog at December 31, 2023 was $460 million."
    )
    assert frame1(claim, correction).stance is Stance.REFUTES


def test_correction_quoting_the_corrected_figure_is_no_support() -> None:
    claim = "The Orrin book prize judges chose their shortlist from 168 entries."
    correction = (
        "Correction, 16 May 2025. Our notice about the Orrin book prize stated that the judges "
        "chose the shortlist from 168 entries. That figure was wrong. The judges read 186 "
        "novels. We apologise to the publishers concerned."
    )
    r = LexicalJudge().judge_batch([(claim, correction)])[0]
    assert r.stance is not Stance.SUPPORTS, r.rationale


def test_frame_own_figure_beats_other_figures() -> None:
    claim = "Tarsel Optics' order backlog stood at $640 million at the end of 2023."
    # A document that states the claim's figure also mentions other figures of its own.
    release = (
        "Tarsel Optics' order backlog stood at $640 million at the end of 2023. "
        "Its backlog of service contracts was $75 million."
    )
    assert frame1(claim, release).stance is Stance.SUPPORTS


def test_frame_quote_is_a_sentence_of_the_document_and_anchors() -> None:
    claim = "Tarsel Optics reported revenue of 57 million euros in 2023."
    doc = _PAD + "Tarsel Optics said revenue for 2023 was EUR 57m, its best year. More later."
    r = LexicalJudge().judge_batch([(claim, doc)])[0]
    assert r.quote
    assert r.quote in doc
    anchored = anchor_quote(r.quote, doc)
    assert anchored.kind is AnchorKind.EXACT


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("EUR 57m", 57e6, "eur"),
        ("€57 million", 57e6, "eur"),
        ("GBP 3.2m", 3.2e6, "gbp"),
        ("3.8m passengers", 3.8e6, None),
        ("180m tall", 180.0, "metre"),
        ("149.9m to blade tip", 149.9, "metre"),
        ("2.31m broadband customers", 2.31e6, None),
        ("three and a half percent", 3.5, "percent"),
        ("41.2 cents", 41.2, "cent"),
        ("118 thousand", 118e3, None),
    ],
)
def test_normalize_figures_money_scales_and_halves(text: str, value: float, unit: str) -> None:
    f = normalize_figures(text)[0]
    assert (f.value, f.unit) == (value, unit)


@pytest.mark.parametrize("pad", ["", _PAD])
def test_correction_of_another_figure_is_not_evidence(pad: str) -> None:
    claim = "Tarsel Optics reported second-quarter revenue of 57 million euros."
    doc = pad + (
        "Correction: an earlier report misstated the growth of Tarsel Optics' second-quarter "
        "revenue. Revenue grew 11 percent, not 18 percent as previously reported."
    )
    assert LexicalJudge().judge_batch([(claim, doc)])[0].stance is Stance.NEUTRAL


def test_digits_glued_to_letters_are_names_not_figures() -> None:
    assert [(f.value, f.unit) for f in normalize_figures("CO2 rose 2% and H2O fell")] == [
        (2.0, "percent")
    ]


@pytest.mark.parametrize(
    ("claim", "subject_words"),
    [
        # a leading phrase of source, place or time is not the subject
        ("According to the Brel Institute, Orrin smog doubled in 2023.", ["Orrin"]),
        ("In Alaska, the Brel Institute found remnants of the 1918 flu.", ["Brel", "Institute"]),
        # ... unless the rest names nothing: the place is then what the claim is about
        ("In Alaska, researchers found remnants of the 1918 flu.", ["Alaska"]),
        # a unit written capitalised names nothing
        ("The Orrin lagoon warmed by 2 degrees Fahrenheit.", ["Orrin"]),
        # names after a leading date phrase stay
        ("From April 2025, drivers at Market Street car park will pay more.",
         ["Market", "Street"]),
    ],
)
def test_claim_subject_words(claim: str, subject_words: list[str]) -> None:
    from affidavit.tasks.judge_frame import _subject_words

    assert _subject_words(claim) == subject_words


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("Never Mind the Frost is not a song.", Stance.REFUTES),
        ("It is false that Never Mind the Frost is a song.", Stance.REFUTES),
        ("Never Mind the Frost is a song.", Stance.SUPPORTS),
    ],
)
def test_a_title_that_opens_with_a_negation_negates_nothing(claim: str, expected: Stance) -> None:
    passage = "Never Mind the Frost is a song by the Orrin rock band Paradise Motel."
    assert judge1(claim, passage).stance is expected


# --- documents found by search (open world) ------------------------------------------------


def test_found_document_naming_the_subject_only_is_no_evidence() -> None:
    # Given as the claim's evidence, a sentence that says something else of the claim's subject
    # refutes it (FEVER's closed world); found by search it is only another statement about
    # the subject, neither support nor refutation.
    claim = "The Eiffel Tower was built in Berlin."
    doc = "The Eiffel Tower is a wrought-iron lattice tower in Paris."
    given = LexicalJudge().judge_batch([(claim, doc)])[0]
    found = LexicalJudge().judge_batch([(claim, doc)], found=True)[0]
    assert given.stance is Stance.REFUTES
    assert found.stance is Stance.NEUTRAL


def test_found_document_names_the_claims_place_by_its_distinctive_words() -> None:
    # "Orrin General" names "Orrin General Hospital"; a document naming Orrin and another
    # place ("Kelsford General") does not
    claim = "Brel Health opened a 24-bed ward at Orrin General Hospital."
    doc = _PAD + "The Orrin General ward opened by Brel Health in March has 24 beds."
    assert LexicalJudge().judge_batch([(claim, doc)], found=True)[0].stance is Stance.SUPPORTS
    other = _PAD + "The Kelsford General ward opened by Brel Health in Orrin in March has 24 beds."
    r = LexicalJudge().judge_batch([(claim, other)], found=True)[0]
    assert r.stance is Stance.NEUTRAL, r.rationale


def test_found_document_class_word_needs_the_claims_frame() -> None:
    # "American" against "French" is read as a word; in a document found by search it refutes
    # only where the claim's frame bears it out, and is never support.
    claim = "SpongeBob SquarePants is a French series."
    doc = "SpongeBob SquarePants is an American animated television series."
    assert LexicalJudge().judge_batch([(claim, doc)])[0].stance is Stance.REFUTES
    assert LexicalJudge().judge_batch([(claim, doc)], found=True)[0].stance is Stance.NEUTRAL
    pair = ("Lyme disease is more common in southern, warmer regions.",
            "Lyme disease occurs regularly in Northern Hemisphere temperate regions.")
    assert LexicalJudge().judge_batch([pair])[0].stance is Stance.REFUTES
    assert LexicalJudge().judge_batch([pair], found=True)[0].stance is Stance.NEUTRAL


def test_found_document_antonym_on_the_claims_predicate_still_refutes() -> None:
    claim = "Arctic sea ice extent increased over the decade."
    doc = "Arctic sea ice extent decreased over the decade, satellite records show."
    r = LexicalJudge().judge_batch([(claim, doc)], found=True)[0]
    assert r.stance is Stance.REFUTES


@pytest.mark.parametrize("doc", [
    "In 2024 Tarrow Council closely examined the Quay Street library.",
    "In 2024 Tarrow Council looked at the Quay Street library more closely.",
])
def test_a_word_that_only_shares_a_stem_with_a_concept_is_not_that_concept(doc: str) -> None:
    # "closely" truncates to the stem of "close": it is no form of "close", so no antonym of
    # "opened" (the concept table reads word forms, not bare stems)
    claim = "Tarrow Council opened the Quay Street library in 2024."
    r = LexicalJudge().judge_batch([(claim, doc)], found=True)[0]
    assert r.stance is not Stance.REFUTES, r.rationale
    # the word forms of the concept still are: "closed" is the antonym
    shut = "In 2024 Tarrow Council closed the Quay Street library."
    assert LexicalJudge().judge_batch([(claim, shut)], found=True)[0].stance is Stance.REFUTES


@pytest.mark.parametrize(("claim", "doc"), [
    # words that share a cue's truncation stem are no cue: "contract" and "contrast" are not
    # "contrary", "reported" is not "reportedly", "like" is not "likely", "potent" is not
    # "potential", "control" is not "controversial", "part of" is not "in part", "noted" is
    # not "not"
    ("Harlow Steel won the Varna Rail order in 2024.",
     "Harlow Steel won the Varna Rail order in 2024 under a contract worth 40 million euros."),
    ("Harlow Steel won the Varna Rail order in 2024.",
     "In contrast to 2023, Harlow Steel won the Varna Rail order in 2024."),
    ("Northwind's revenue was 57 million euros in 2024.",
     "Northwind reported revenue of 57 million euros in 2024."),
    ("Polar bears depend on sea ice.",
     "Polar bears, like other Arctic mammals, depend on sea ice."),
    ("Methane is a greenhouse gas.", "Methane is a potent greenhouse gas."),
    ("The Kessel dam holds back the Arve river.",
     "The Kessel dam holds back the Arve river under flood control rules."),
    ("The study was published in 2019.", "The study was published in 2019 as part of a series."),
    ("Polar bears depend on sea ice.", "Researchers noted that polar bears depend on sea ice."),
])
@pytest.mark.parametrize("found", [False, True])
def test_a_word_sharing_a_cues_stem_is_no_cue(claim: str, doc: str, found: bool) -> None:
    r = LexicalJudge().judge_batch([(claim, doc)], found=found)[0]
    assert r.stance is Stance.SUPPORTS, r.rationale


@pytest.mark.parametrize(("doc", "stance"), [
    ("Polar bears reportedly depend on sea ice.", Stance.PARTIAL),
    ("Polar bears likely depend on sea ice.", Stance.PARTIAL),
    ("Polar bears depend in part on sea ice.", Stance.PARTIAL),
    ("Contrary to what is said, polar bears do not depend on sea ice.", Stance.REFUTES),
])
def test_the_cue_words_themselves_still_qualify_or_negate(doc: str, stance: Stance) -> None:
    claim = "Polar bears depend on sea ice."
    assert LexicalJudge().judge_batch([(claim, doc)])[0].stance is stance


def test_an_antonym_is_a_word_not_a_stem() -> None:
    # "highly" truncates to the stem of "high": it is no form of "high", so no antonym of "low"
    # (the sentence is read by the other rules, which need not support it either)
    claim = "Arctic sea ice extent is low in September."
    r = LexicalJudge().judge_batch([(claim, "Arctic sea ice extent is highly variable in "
                                            "September.")])[0]
    assert "antonym" not in r.rationale
    r = LexicalJudge().judge_batch([(claim, "Arctic sea ice extent is high in September.")])[0]
    assert r.stance is Stance.REFUTES
    assert "antonym" in r.rationale


@pytest.mark.parametrize(
    ("claim", "body", "inflected"),
    [
        ("Tarsel Optics opened an old lens plant near the Orrin river in May 2024.",
         "Tarsel Optics opened a lens plant near the Orrin river in May 2024, the news agency "
         "said.", "news"),
        ("The Tessa drought was the first severe drought in the Orrin valley since 1950.",
         "The Tessa drought lasted four years and was the most severe drought in the Orrin "
         "valley since 1950.", "lasted"),
        ("Maren Holt was absent from the Orrin council budget meeting in March 2024.",
         "Maren Holt presented the budget at the Orrin council budget meeting in March 2024.",
         "presented"),
    ],
)
def test_an_adjectives_inflected_homograph_is_no_antonym(
    claim: str, body: str, inflected: str
) -> None:
    # "news" is not a form of "new", "lasted" of "last", "presented" of "present": the -s, -ed
    # and -ing forms of an adjective are other words, so none is an antonym of the claim's word
    r = LexicalJudge().judge_batch([(claim, body)])[0]
    assert "antonym" not in r.rationale, (inflected, r.rationale)
    # the adjective itself still is
    adjective = {"news": "new", "lasted": "last", "presented": "present"}[inflected]
    r = LexicalJudge().judge_batch([(claim, body.replace(inflected, adjective, 1))])[0]
    assert "antonym" in r.rationale, (adjective, r.rationale)


def test_concepts_are_read_on_word_forms() -> None:
    from affidavit.tasks.judge_frame import _word_concept

    same = {w: _word_concept(w) for w in ("factory", "factories", "plant", "mills")}
    assert set(same.values()) == {"factor"}
    for word in ("factors", "consensus", "far", "closely", "continent", "positive",
                 "authority"):
        assert _word_concept(word).endswith("~"), word
    assert _word_concept("hiring") == _word_concept("hire") == _word_concept("hired")
    assert _word_concept("reduced") == _word_concept("cut") == _word_concept("cutting")


def test_found_document_other_figure_refutes_only_a_claim_with_a_subject() -> None:
    # A claim with no subject of its own shares its quantity's words with every document on
    # the topic; found by search, another figure there is another measure, not a refutation.
    pad = " The survey team met in March. Its report ran to 90 pages. Two authors disagreed."
    claim = "Since the early 1990s, rainfall has been rising at around 2 percent per decade."
    doc = "The rain gauge record shows rainfall rising by around 7 percent since 1950." + pad
    assert LexicalJudge().judge_batch([(claim, doc)])[0].stance is Stance.REFUTES
    assert LexicalJudge().judge_batch([(claim, doc)], found=True)[0].stance is not Stance.REFUTES
    named = "The Fallowmoor Ridge turbines will stand 180 metres tall."
    about = "The turbines at Fallowmoor Ridge would reach a tip height of 149.9 metres." + pad
    r = LexicalJudge().judge_batch([(named, about)], found=True)[0]
    assert r.stance is Stance.REFUTES


_HALL_PAD = " The hall opened in 1931. Its roof was repaired in 1988. The car park has 40 spaces."


def test_found_document_must_name_what_the_claim_names_after_its_subject() -> None:
    claim = "Tarnby Council intends to close Elm Street Library."
    other = ("Hollin Road Library has closed for good after Tarnby Council voted to shut the "
             "branch." + _HALL_PAD)
    same = "Tarnby Council plans to close Elm Street Library next spring." + _HALL_PAD
    short_subject = "The council plans to close Elm Street Library next spring." + _HALL_PAD
    judge = LexicalJudge()
    assert judge.judge_batch([(claim, other)], found=True)[0].stance is Stance.NEUTRAL
    assert judge.judge_batch([(claim, same)], found=True)[0].stance is Stance.SUPPORTS
    # the subject itself may be shortened ("the council")
    assert judge.judge_batch([(claim, short_subject)], found=True)[0].stance is Stance.SUPPORTS


def test_generality_over_an_indefinite_noun_is_not_the_claims_fact() -> None:
    claim = "Tarnby Council intends to close Elm Street Library."
    doc = ("Save Elm Street Library! Tarnby Council must keep it. Once a library closes, it "
           "never reopens." + _HALL_PAD)
    r = LexicalJudge().judge_batch([(claim, doc)], found=True)[0]
    assert r.stance is not Stance.SUPPORTS


def test_an_appeal_is_not_an_assertion() -> None:
    claim = "Tarnby Council intends to close Elm Street Library."
    doc = ("Readers wrote in about Elm Street Library. We call on Tarnby Council to halt the "
           "closure of Elm Street Library." + _HALL_PAD)
    r = LexicalJudge().judge_batch([(claim, doc)], found=True)[0]
    assert r.stance is not Stance.SUPPORTS


def test_a_done_fact_of_a_year_is_not_reported_before_that_year() -> None:
    from datetime import UTC, datetime

    from affidavit.tasks.judge_frame import published_before_claim

    claim = "The audience award at the 2024 Tarnby Film Festival went to a documentary."
    assert published_before_claim(claim, datetime(2023, 10, 19, tzinfo=UTC)) == 2024
    assert published_before_claim(claim, datetime(2024, 10, 19, tzinfo=UTC)) is None
    assert published_before_claim(claim, None) is None
    plan = "The 2024 Tarnby Film Festival will open with a documentary."
    assert published_before_claim(plan, datetime(2023, 10, 19, tzinfo=UTC)) is None
    budget = "The 2025 budget was approved by the council in December 2024."
    assert published_before_claim(budget, datetime(2024, 12, 19, tzinfo=UTC)) is None
    # a year the act looks ahead to is no year of the act: the decision is reported before it
    ahead = "Tarnby College's board has decided to end teaching at its Elm campus after 2026."
    assert published_before_claim(ahead, datetime(2025, 3, 17, tzinfo=UTC)) is None

    from affidavit.tasks.judge_frame import date_gate

    support = JudgeResult(Stance.SUPPORTS, 0.8, "q", "covers 80% of the claim", "lexical")
    early = date_gate(claim, datetime(2023, 10, 19, tzinfo=UTC), support)
    assert early.stance is Stance.NEUTRAL
    assert early.quote == "q"
    assert date_gate(claim, datetime(2024, 10, 19, tzinfo=UTC), support) is support
    refutes = JudgeResult(Stance.REFUTES, 0.8, "q", "antonym", "lexical")
    assert date_gate(claim, datetime(2023, 10, 19, tzinfo=UTC), refutes) is refutes


def test_a_level_at_another_time_does_not_refute_the_value_a_change_reached() -> None:
    pad = " The firm was founded in Tarnby. Its software plans delivery routes. It sells abroad."
    claim = "Kelvane has doubled its headcount to 180 employees."
    level = "Kelvane raised a seed round last week. It has 22 employees and 60 customers." + pad
    change = "Kelvane has grown its headcount to 120 employees this year." + pad
    judge = LexicalJudge()
    assert judge.judge_batch([(claim, level)], found=True)[0].stance is not Stance.REFUTES
    assert judge.judge_batch([(claim, change)], found=True)[0].stance is Stance.REFUTES


def test_found_claim_of_several_facts_needs_one_of_its_measured_figures() -> None:
    claim = "Traffic through the Tarnby Tunnel dropped by 8 percent after the toll increase."
    other = ("Traffic in the Tarnby Tunnel will stop for ten nights in May after the toll "
             "increase. Drivers will use the coast road. Emergency vehicles will be escorted. "
             "We apologise.")
    stated = ("Traffic through the Tarnby Tunnel fell by 8 percent in the three months after the "
              "toll went up. Drivers used the coast road. Hauliers complained. Tolls fund "
              "repairs.")
    pairs = [(claim, other), (claim, stated)]
    found = LexicalJudge().judge_batch(pairs, found=True)
    given = LexicalJudge().judge_batch(pairs)
    assert given[0].stance is Stance.PARTIAL
    assert found[0].stance is Stance.NEUTRAL
    # an antonym read as words ("increase" against "fell") gives way to the frame's reading
    assert found[1].stance is Stance.SUPPORTS


def test_figures_of_another_modality_do_not_refute() -> None:
    pad = " The survey team met in March. Its report ran to 90 pages. Two authors disagreed."
    judge = LexicalJudge()
    plan = "Tarnby Council will close 30 of its libraries."
    reported = "Tarnby Council closed 12 of its libraries in 2019, the report said." + pad
    other_plan = "Tarnby Council will close 12 of its libraries, the report said." + pad
    assert judge.judge_batch([(plan, reported)])[0].stance is not Stance.REFUTES
    assert judge.judge_batch([(plan, other_plan)])[0].stance is Stance.REFUTES
    projection = "The Tarn estuary could rise by seven feet by the year 2100."
    other = "The report said the Tarn estuary could rise by up to two feet by 2100." + pad
    assert judge.judge_batch([(projection, other)])[0].stance is not Stance.REFUTES


def test_a_negated_restriction_asserts_the_predicate() -> None:
    claim = "Tarn sea level rise is not caused only by melting ice."
    doc = "Tarn sea level rise is caused by melting ice, the survey found."
    r = LexicalJudge().judge_batch([(claim, doc)], found=True)[0]
    assert r.stance is not Stance.REFUTES
    negated = "Tarn sea level rise is not caused by melting ice."
    assert LexicalJudge().judge_batch([(negated, doc)], found=True)[0].stance is Stance.REFUTES


def test_a_repeated_denial_is_not_refuted_by_the_predicate() -> None:
    pad = " The survey team met in March. Its report ran to 90 pages. Two authors disagreed."
    judge = LexicalJudge()
    hoax = "The Tarn flood defence scheme is a hoax invented by developers."
    said = ("A councillor has said that the Tarn flood defence scheme is a hoax invented by "
            "developers." + pad)
    assert judge.judge_batch([(hoax, said)], found=True)[0].stance is not Stance.REFUTES


def test_posts_are_jobs_not_hearsay() -> None:
    # "posts" counts jobs ("210 posts will go"); only posts online are someone else's word
    claim = "Tarnby Radio is going to shut its Elm Street studio centre."
    pad = " This figure was incorrect. We apologise for the error. Staff have been told."
    jobs = "Posts in Tarnby Radio Studios are affected by the closure of Elm Street." + pad
    online = ("Social media posts say Tarnby Radio is going to shut its Elm Street studio "
              "centre." + pad)
    judge = LexicalJudge()
    assert judge.judge_batch([(claim, jobs)], found=True)[0].stance is Stance.SUPPORTS
    assert judge.judge_batch([(claim, online)], found=True)[0].stance is not Stance.SUPPORTS


_SURVEY_PAD = (
    " The survey office in Brell publishes its figures every March."
    " Its staff of 40 count the herds by air."
)


def test_a_denial_that_is_itself_negated_is_no_denial() -> None:
    # "do not refute the long-term decline" asserts the decline: it never refutes a claim
    # about it (Climate-FEVER: "... but does not refute long-term climate change trends")
    claim = "The caribou decline on Brell Island is because of the Tessa drought."
    doc = (
        "Winter storms on Brell Island can appear to slow down herd growth over short periods,"
        " but do not refute the long-term caribou decline." + _SURVEY_PAD
        + " The Tessa drought lasted from 2010 to 2014."
    )
    for found in (True, False):
        r = LexicalJudge().judge_batch([(claim, doc)], found=found)[0]
        assert r.stance is not Stance.REFUTES, r.rationale


def test_denial_cues_negated_or_past_a_clause_end_do_not_reach_the_predicate() -> None:
    from affidavit.tasks import judge_frame as jf

    text = "Critics still dismiss them; the council renamed the festival in May."
    s = jf.parse_doc_frames(text, [(0, len(text))]).sentences[0]
    assert s.has_denial
    renamed = frozenset(c for c in s.word_concepts if c.startswith("renam"))
    assert renamed
    # the denial's object ends at the semicolon: "them", not the renaming after it
    assert not jf._cue_before(s, s.denial_at, renamed, 12, in_clause=True)
    assert jf._cue_before(s, s.denial_at, renamed, 12)  # read on words alone it would reach
    assert jf._denials("it does not refute the trend") == []
    assert jf._denials("the ministry never denied the report") == []
    assert jf._denials("the ministry denied the report") != []


def test_without_in_a_sentence_is_a_condition_not_a_negation() -> None:
    from affidavit.tasks import judge_frame as jf

    text = "Its atmosphere warms the surface above what it would be without the atmosphere."
    s = jf.parse_doc_frames(text, [(0, len(text))]).sentences[0]
    assert s.neg_at == []
    text = "The surface would not be warm."
    assert jf.parse_doc_frames(text, [(0, len(text))]).sentences[0].neg_at != []


def test_a_negation_read_on_words_in_a_found_document_needs_the_frame() -> None:
    # a short passage whose "never" negates another predicate than the claim's: given as
    # evidence it refutes on words; found by search only the claim's frame could make it so
    claim = "According to the Brenna accord such a pipeline can never exist."
    doc = (
        "The Brenna accord defines the existence of a levy that describes who pays for each"
        " pipeline and how much."
    )
    given = LexicalJudge().judge_batch([(claim, doc)])[0]
    found = LexicalJudge().judge_batch([(claim, doc)], found=True)[0]
    assert given.stance is Stance.REFUTES, given.rationale
    assert found.stance is not Stance.REFUTES, found.rationale


def test_an_agents_act_of_debunking_is_not_supported_by_the_debunked_figure() -> None:
    # "X has been debunked by the head of the board" is about the head's act: a sentence that
    # states X (the figure) neither supports nor refutes it
    claim = (
        "The claim that 97 percent of Norland's doctors back the reform has been debunked by"
        " the head of the Norland Medical Board."
    )
    doc = (
        "Norland's doctors were surveyed in 2021 for the Norland Medical Board." + _SURVEY_PAD
        + " A survey found that 97 percent of Norland's doctors back the reform."
    )
    r = LexicalJudge().judge_batch([(claim, doc)], found=True)[0]
    assert r.stance is Stance.NEUTRAL, r.rationale


def test_a_claim_of_several_facts_is_not_fully_supported_without_its_figures() -> None:
    # "Over the coming 25 or 30 years, scientists say, the climate is likely to gradually warm"
    # against sentences on warming that name no such period: part of the claim, not all of it
    claim = (
        "Over the coming 30 years, scientists say, the Varn glacier is likely to retreat"
        " gradually, lose its lower tongue and expose the old moraine near Brell."
    )
    rest = _SURVEY_PAD + " The Tessa drought lasted four years."
    without = (
        "Scientists say the Varn glacier is likely to retreat gradually, lose its lower tongue"
        " and expose the old moraine near Brell." + rest
    )
    stated = (
        "Scientists say that over the coming 30 years the Varn glacier is likely to retreat"
        " gradually, lose its lower tongue and expose the old moraine near Brell." + rest
    )
    r = LexicalJudge().judge_batch([(claim, without)], found=True)[0]
    assert r.stance is Stance.PARTIAL, r.rationale
    assert "time frame ('over the coming 30 years')" in r.rationale
    r = LexicalJudge().judge_batch([(claim, stated)], found=True)[0]
    assert r.stance is Stance.SUPPORTS, r.rationale


def test_calling_a_claim_false_refutes_it_but_restating_an_act_of_calling_does_not() -> None:
    pad = _SURVEY_PAD + " The Tessa drought lasted four years."
    claim = "The town of Brell banned all diesel ferries in 2023."
    doc = "Claims that the town of Brell banned all diesel ferries in 2023 are false." + pad
    r = LexicalJudge().judge_batch([(claim, doc)], found=True)[0]
    assert r.stance is Stance.REFUTES, r.rationale
    claim = "Mayor Drew Hale claims the Brell dam is a hoax."
    doc = "Fact: Mayor Drew Hale claimed the Brell dam is a hoax." + pad
    r = LexicalJudge().judge_batch([(claim, doc)], found=True)[0]
    assert r.stance is not Stance.REFUTES, r.rationale


# --- numbers that are part of a name ------------------------------------------------------------

_FILLER = (
    " The index fell in early trading. Shares of the miner rose. Analysts expect a quiet week."
    " The bank cut its forecast."
)


def test_a_number_joined_to_a_name_is_not_a_figure() -> None:
    # "COVID-19", "SARS-CoV-2", "F-16": the number is part of the name.
    assert [f.token for f in normalize_figures("the sars-cov-2 spike protein")] == []
    assert [(f.token, f.unit) for f in normalize_figures("covid-19 cases rose 19 percent")] == [
        ("#19", "percent")
    ]
    assert [f.token for f in normalize_figures("by mid-2020 it had 5 sites")] == ["#2020", "#5"]
    judge = LexicalJudge()
    pairs = [
        (  # "19 counties" states nothing about COVID-19
            "A chest-CT and clinical chemistry based flowchart for rapid COVID-19 triage at "
            "emergency departments",
            "The Anhui provincial government has sent emergency relief to the 19 counties "
            "affected, the news agency said.",
        ),
        (  # nor "two proteins", with a negation, about SARS-CoV-2
            "The furin cleavage site of SARS-CoV-2 spike protein is a key determinant for "
            "transmission due to enhanced replication in airway cells.",
            "Corrections said the two 500-bed facilities are scheduled to be opened within one "
            "year of final contract signing at an total capital investment of about 27 mln dlrs.",
        ),
        (
            "The SARS-CoV-2-like virus found in captive pangolins from Guangdong should be "
            "better sequenced.",
            "The vaccine uses two proteins found on the surface of the AIDS virus.",
        ),
    ]
    for claim, sentence in pairs:
        r = judge.judge_batch([(claim, sentence + _FILLER)], found=True)[0]
        assert r.stance is Stance.NEUTRAL, (claim, r.rationale)


def test_a_version_or_model_number_is_part_of_the_name() -> None:
    assert name_numbers("Northwind Logistics grew 18 percent; Apollo 11 landed") == {"#11"}
    judge = LexicalJudge()
    # "iOS 9.3" in both is a shared name, not the claim's figure stated
    r = judge.judge_batch([(
        "We will add this functionality back in the next beta of iOS 9.3.",
        "I put it in recovery mode, and then updated it to iOS 9.3 beta 4." + _FILLER,
    )], found=True)[0]
    assert r.stance is Stance.NEUTRAL, r.rationale
    # a measure after a capitalised word is still a figure, and another value refutes
    r = judge.judge_batch([(
        "Northwind revenue grew 18 percent in 2023.",
        "Northwind said its revenue grew 12 percent in 2023." + _FILLER,
    )], found=True)[0]
    assert r.stance is Stance.REFUTES, r.rationale



def test_a_sentence_about_another_numbered_name_is_no_evidence():
    # "Windows 10" is another product than the claim's "Windows 11", however much else the
    # sentence shares with the claim (it covered 84% of it)
    judge = LexicalJudge()
    docs = [
        "Microsoft released Windows 10 on 29 July 2015 as a free upgrade for most users.",
        "On 29 July 2015 Microsoft released Windows 10 in 190 countries, the company said.",
    ]
    for doc in docs:
        r = judge.judge_batch([("Microsoft released Windows 11 on 29 July 2015.", doc)],
                              found=True)[0]
        assert r.stance is Stance.NEUTRAL, r.rationale
        assert "Windows 10, not the claim's Windows 11" in r.rationale
        # the claim it does state is supported
        r = judge.judge_batch([("Microsoft released Windows 10 on 29 July 2015.", doc)],
                              found=True)[0]
        assert r.stance is Stance.SUPPORTS, r.rationale


def test_a_sentence_wrapped_before_its_figure_is_one_sentence():
    text = ("Officials said on Monday that the Tarnby library renovation would cost\n"
            "8 million dollars and take until 2027.\n"
            "Residents were asked to choose one of three plans:\n"
            "1. Build a new wing for 4 million dollars\n"
            "2. Do nothing until 2030")
    sentences = [text[a:b] for a, b in split_sentences(text)]
    assert sentences[:2] == [
        "Officials said on Monday that the Tarnby library renovation would cost\n"
        "8 million dollars and take until 2027.",
        "Residents were asked to choose one of three plans:",
    ]
    assert not any("\n" in x for x in sentences[1:])  # numbered items are not continuations
    r = judge1("The Tarnby library renovation will cost 8 million dollars.", text)
    assert r.stance is Stance.SUPPORTS, r.rationale
    # a headline and the date under it stay apart
    page = "Bake Off goes millennial with the youngest ever line-up\n20 Aug 2019, 10:00"
    assert len(split_sentences(page)) == 2


def test_a_fact_stated_on_another_day_does_not_support_the_claims_day():
    judge = LexicalJudge()
    claim = "The Lumen Bridge in Corvallo opened on 14 May 2024."
    for doc in ("The Lumen Bridge in Corvallo opened on 16 May 2024 after delays.",
                "The Lumen Bridge in Corvallo opened on May 16, 2024 after delays."):
        r = judge.judge_batch([(claim, doc)], found=True)[0]
        assert r.stance is Stance.REFUTES, r.rationale
        assert "not the claim's 14 May" in r.rationale
    # the claim's own day, written otherwise, still supports it
    r = judge.judge_batch([(claim, "The Lumen Bridge in Corvallo opened on May 14th, 2024.")],
                          found=True)[0]
    assert r.stance is Stance.SUPPORTS, r.rationale


_MILL_PAD = (
    " The mill employed 300 people at its peak. Its owners also run a dye works in Fennick."
    " The town council discussed the site at its March meeting."
)


def test_a_causal_due_to_is_no_plan() -> None:
    from affidavit.tasks import judge_frame as jf

    # "due to" before a noun phrase gives a cause; before a verb it is a schedule
    assert jf._rewrite("warming is due to cosmic rays") == "warming is caused by cosmic rays"
    assert jf._rewrite("the bridge is due to open in may") == "the bridge is due to open in may"
    claim = "Harwick Mills closed its Dunmore plant in 2023."
    done = judge1x(claim, "Due to falling orders, Harwick Mills closed its Dunmore plant in 2023.")
    assert done.stance is Stance.SUPPORTS, done.rationale
    planned = judge1x(claim, "Harwick Mills is due to close its Dunmore plant in 2023.")
    assert planned.stance is Stance.PARTIAL, planned.rationale


def test_a_negated_cause_bears_only_on_that_cause() -> None:
    # "not caused by the sun" denies the sun as the cause, not the claim's cause
    claim = "Warming of the Dunmore estuary is caused by the power station."
    other = judge1x(claim, "Warming of the Dunmore estuary is not caused by the sun.")
    assert other.stance is not Stance.REFUTES, other.rationale
    same = judge1x(claim, "Warming of the Dunmore estuary is not caused by the power station.")
    assert same.stance is Stance.REFUTES, same.rationale


def test_a_negation_against_a_claim_with_no_subject_needs_nearly_all_its_predicate() -> None:
    # a claim that names nothing shares its words with every document on its topic: a negated
    # sentence refutes it only when it carries nearly all of its predicate, and never supports it
    claim = "winter rainfall in the valley has increased sharply."
    full = judge1x(claim, "Winter rainfall in the valley has not increased sharply.")
    assert full.stance is Stance.REFUTES, full.rationale
    part = judge1x(claim, "In the valley, rainfall has not increased in winter.")
    assert part.stance is Stance.NEUTRAL, part.rationale


def judge1x(claim: str, sentence: str) -> JudgeResult:
    """Judge a claim against a found article whose first sentence is ``sentence``."""
    return LexicalJudge().judge_batch([(claim, sentence + _MILL_PAD)], found=True)[0]


def test_a_rise_said_of_another_thing_is_not_the_claims_rise() -> None:
    # "rising" is said of the temperatures; the claim's numbers are named 17 words on
    claim = "Skerry seal numbers are increasing."
    other = judge1x(
        claim,
        "Rising sea temperatures, caused by the warm current, bring more storms to the coast,"
        " endangering various animals, such as Skerry seal pups and their numbers.",
    )
    assert other.stance is not Stance.SUPPORTS, other.rationale
    same = judge1x(claim, "Skerry seal numbers are increasing, the survey found.")
    assert same.stance is Stance.SUPPORTS, same.rationale
    # the things named before a change word in its clause are what it is said of
    claim = "Traffic through the Gorran Tunnel rose by 8 percent after the toll increase."
    before = judge1x(
        claim, "Traffic through the Gorran Tunnel in March, April and May was 8% higher after"
        " the toll increase."
    )
    assert before.stance is Stance.SUPPORTS, before.rationale


def test_a_fact_dated_to_a_past_period_supports_a_present_claim_in_part() -> None:
    claim = "Skerry seal numbers are increasing."
    then = judge1x(claim, "Skerry seal numbers were increasing rapidly in the 1960s.")
    assert then.stance is Stance.PARTIAL, then.rationale
    assert "past period" in then.rationale
    since = judge1x(claim, "Skerry seal numbers have been increasing since the 1960s.")
    assert since.stance is Stance.SUPPORTS, since.rationale


def test_a_possibility_supports_a_plain_claim_only_in_part() -> None:
    claim = "Harwick Mills pays its staff a living wage."
    could = judge1x(claim, "Harwick Mills could pay its staff a living wage.")
    assert could.stance is Stance.PARTIAL, could.rationale
    does = judge1x(claim, "Harwick Mills pays its staff a living wage.")
    assert does.stance is Stance.SUPPORTS, does.rationale
    # nor does a possibility support a claim that a thing will be
    will = judge1x("Harwick Mills will close its Dunmore plant.",
                   "Harwick Mills may close its Dunmore plant.")
    assert will.stance is Stance.PARTIAL, will.rationale
    # a claim that is itself a possibility is supported by one
    maybe = judge1x("Harwick Mills may pay its staff a living wage.",
                    "Harwick Mills may pay its staff a living wage.")
    assert maybe.stance is Stance.SUPPORTS, maybe.rationale


def test_an_event_dated_to_a_day_of_another_month_is_the_same_event_on_another_date() -> None:
    pad = (" The rocket is built by Orbex Dynamics in Tarrow. The company employs 400 people."
           " Its chief executive is Ida Marsh.")
    claim = "Orbex launched the Falcon rocket on 20 January 2025."
    other = LexicalJudge().judge_batch(
        [(claim, "Orbex launched the Falcon rocket on 2 February 2025." + pad)], found=True)[0]
    assert other.stance is Stance.REFUTES, other.rationale
    assert "2 February" in other.rationale
    # a measure of another month is another period, not a contradiction
    sales = LexicalJudge().judge_batch(
        [("Orbex sales rose 5% in January 2025.", "Orbex sales rose 7% in February 2025." + pad)],
        found=True)[0]
    assert sales.stance is Stance.NEUTRAL, sales.rationale


_BRIDGE = (
    "After four years of construction, the Lumen Bridge in Corvallo opened to traffic on 14 May"
    " 2024. The cable-stayed bridge carries four lanes and a cycle path across the Aster River."
    " Mayor Ilse Varga cut the ribbon in front of several hundred residents."
)


def test_the_month_may_is_no_hedge() -> None:
    r = LexicalJudge().judge_batch([("The Lumen Bridge opened in 2024.", _BRIDGE)], found=True)[0]
    assert r.stance is Stance.SUPPORTS, r.rationale


def test_a_count_of_the_same_noun_with_another_value_refutes() -> None:
    six = "The Lumen Bridge carries six lanes across the Aster River."
    r = LexicalJudge().judge_batch([(six, _BRIDGE)], found=True)[0]
    assert r.stance is Stance.REFUTES, r.rationale
    four = six.replace("six", "four")
    assert LexicalJudge().judge_batch([(four, _BRIDGE)], found=True)[0].stance is Stance.SUPPORTS
    # a count of another noun is no conflict
    cyc = "The Lumen Bridge has six cycle racks."
    assert LexicalJudge().judge_batch([(cyc, _BRIDGE)], found=True)[0].stance is not (
        Stance.REFUTES)


def test_an_event_dated_to_another_year_is_refuted() -> None:
    claim = "The Lumen Bridge in Corvallo opened to traffic on 14 May 2023."
    short = LexicalJudge().judge_batch([(claim, _BRIDGE)], found=True)[0]
    assert short.stance is Stance.REFUTES, short.rationale
    assert "14 May 2024" in short.rationale
    long = judge1x(claim, "The Lumen Bridge in Corvallo opened to traffic on 14 May 2024.")
    assert long.stance is Stance.REFUTES, long.rationale


def test_a_date_of_an_event_about_another_subject_is_another_event() -> None:
    claim = "The final printed edition of the Pellworth Gazette will be published on 28 March 2025."
    doc = (
        "Ledgerwood Media has taken the difficult decision to close the Marsh End Weekly. The"
        " final edition will be published on 28 September 2023. The Weekly has served Marsh End"
        " and the surrounding villages since 1962. Coverage of Marsh End will be provided by the"
        " Pellworth Gazette, which will add a Marsh End page to its website."
    )
    others = [  # the batch's other documents weigh the claim's words as a corpus would
        "The Pellworth Gazette reported that the council met on Tuesday. The mayor spoke. The"
        " budget passed. Roads will be resurfaced.",
        "The Pellworth Gazette covers sport and weather. Its office is on Mill Street. It"
        " employs 12 people. Readers can subscribe online.",
    ]
    r = LexicalJudge().judge_batch([(claim, d) for d in [doc, *others]],
                                   titles=["Marsh End Weekly to close", None, None], found=True)[0]
    assert r.stance is not Stance.REFUTES, r.rationale


def test_a_claim_opening_with_a_common_word_needs_its_leading_words_in_the_sentence() -> None:
    # "Solar" is common in this corpus, so no name anchors the claim: its leading words
    # ("Solar cycles") say what it is about, and a sentence without them that carries the rest
    # of its predicate is about something else (partial at most); one that opens with a
    # pronoun speaks of what came before it
    corpus = [f"Solar power report {i} on the grid." for i in range(30)]
    judge = LexicalJudge(idf=compute_idf([*corpus, "Rain fell in the valley."]))
    claim = "Solar cycles cause global warming over decades."

    def stance(sentence: str) -> Stance:
        doc = "Solar power is cheap. " + sentence + _MILL_PAD
        return judge.judge_batch([(claim, doc)], found=True)[0].stance

    assert stance("Emissions from coal cause global warming, a panel found.") is Stance.PARTIAL
    assert stance("Solar cycles cause global warming, a panel found.") is Stance.SUPPORTS
    assert stance("They cause global warming, a panel found.") is Stance.SUPPORTS


def test_the_same_act_of_calling_a_thing_a_hoax_supports_the_claim_of_that_act() -> None:
    # the claim reports an act ("claims ... is a hoax"): the sentence's "hoax" reports the
    # same act and negates nothing
    claim = "Mayor Drew Hale claims the Brell dam is a hoax."
    r = judge1x(claim, "Mayor Drew Hale claimed the Brell dam is a hoax.")
    assert r.stance is Stance.SUPPORTS, r.rationale


def test_a_steady_state_is_the_opposite_of_a_change() -> None:
    claim = "Ridership on the Kell line has been stable since 2020."
    rose = judge1x(claim, "Ridership on the Kell line has risen sharply since 2020.")
    assert rose.stance is Stance.REFUTES, rose.rationale
    same = judge1x(claim, "Ridership on the Kell line has been stable since 2020.")
    assert same.stance is Stance.SUPPORTS, same.rationale
    claim = "Ridership on the Kell line has remained the same since 2020, officials say."
    rose = judge1x(claim, "Ridership on the Kell line has risen sharply since 2020.")
    assert rose.stance is not Stance.SUPPORTS, rose.rationale


def test_an_opposite_under_a_condition_does_not_refute() -> None:
    claim = "Ridership on the Kell line has been stable."
    lede = "The Kell line opened in 1990. "
    stated = judge1x(claim, lede + "Ridership on the line has fallen.")
    assert stated.stance is Stance.REFUTES, stated.rationale
    iffy = judge1x(claim, lede + "If fares doubled, ridership on the line would fall.")
    assert iffy.stance is not Stance.REFUTES, iffy.rationale
    maybe = judge1x(claim, lede + "Ridership on the line could fall.")
    assert maybe.stance is not Stance.REFUTES, maybe.rationale


def test_a_claim_of_a_trend_needs_the_trend_in_the_sentence() -> None:
    # "have risen" / "have been stable" is what the claim says of the temperatures: a sentence
    # that names the same things without any change or steady state supports it only in part
    lede = "The Kell basin lies north of the city. "
    measured = lede + "Winter surface temperatures in the Kell basin are measured at six stations."
    for claim in ("Winter surface temperatures in the Kell basin have been stable.",
                  "Winter surface temperatures in the Kell basin have risen."):
        r = judge1x(claim, measured)
        assert r.stance is Stance.PARTIAL, r.rationale
    r = judge1x("Winter surface temperatures in the Kell basin have risen.",
                lede + "Winter surface temperatures in the Kell basin have increased.")
    assert r.stance is Stance.SUPPORTS, r.rationale


def test_a_claim_read_as_figures_only_is_evidence_of_nothing():
    """A claim whose words are in a script the judge does not read keeps only its figures,
    which any document stating them would match, whatever it is about."""
    from affidavit.tasks.judge_lexical import LexicalJudge

    doc = ("In 2021 the harbour took 146 million tonnes of grain. The port board met in May. "
           "Its chair spoke of 2021 and the 146 ships it served.")
    judge = LexicalJudge()
    [unread, read] = judge.judge_batch(
        [("Население России в 2021 году составило 146 миллионов человек.", doc),
         ("The harbour took 146 million tonnes of grain in 2021.", doc)], found=True)
    assert unread.stance.value == "NEUTRAL"
    assert "script" in unread.rationale
    assert read.stance.value == "SUPPORTS"


def test_a_passage_about_the_claims_subject_that_says_nothing_of_it_is_no_partial_support():
    """Found by search, a short passage that shares only what the claim is about ("the polar
    bear") and nothing of what it says of it (its population, its growth) is not support short
    of the bar: it is NEUTRAL. One that carries part of what the claim says stays PARTIAL."""
    from affidavit.tasks.judge_lexical import LexicalJudge

    claim = "The polar bear population has been growing."
    judge = LexicalJudge()
    [about, part] = judge.judge_batch(
        [(claim, "The polar bear is the most carnivorous species of bear."),
         (claim, "Polar bear population counts are hard to make on the sea ice.")], found=True)
    assert about.stance.value == "NEUTRAL", about
    assert part.stance.value == "PARTIAL", part


def test_a_number_past_a_floats_range_is_the_largest_figure_and_breaks_nothing() -> None:
    # 400 digits overflowed to infinity and int() of it raised: one such number in any stored
    # document made every research command on the home fail while its terms were counted. It
    # is read as the largest float (not dropped: a claim of 10^400 dollars with its figure
    # dropped was supported in part by any sum of the same subject)
    big = "9" * 400
    text = f"The Zorbel institute counted {big} grains of sand on Pellin beach in 2024."
    assert [(f.value, f.unit) for f in normalize_figures(text)] == [
        (sys.float_info.max, None), (2024.0, "year")
    ]
    assert tokenize(text)  # read, with the digits as one term
    claim = "The Zorbel institute counted grains of sand on Pellin beach in 2024."
    assert LexicalJudge().judge_batch([(claim, text)])[0].stance is Stance.SUPPORTS
    r = LexicalJudge().judge_batch([(f"Northwind Robotics employs {big} people.", text)])[0]
    assert r.stance is Stance.NEUTRAL
    claim = f"Northwind Robotics reported revenue of 1{'0' * 400} dollars in 2025."
    r = LexicalJudge().judge_batch([(claim, _PAD + "Northwind Robotics reported revenue of 42 "
                                            "million dollars in 2025.")])[0]
    assert r.stance is Stance.REFUTES, r


def test_another_name_of_the_same_stem_does_not_name_the_claims_subject() -> None:
    # Name terms are 6-character stems: "Kellbrook" and "Kellbridge" are both "kellbr". A
    # document about Kellbridge Farms says nothing of Kellbrook Foods, and its figure no longer
    # refutes the claim's; the same document naming Kellbrook ("Kellbrook's") still does.
    claim = "Kellbrook Foods reported revenue of 48 million euros in 2024."
    other = _PAD + ("Kellbridge Farms, a dairy co-operative in the valley, reported revenue of "
                    "4 million euros in 2024, its members said on Monday.")
    same = other.replace("Kellbridge Farms", "Kellbrook Foods")
    judge = LexicalJudge()
    [r_other, r_same] = judge.judge_batch([(claim, other), (claim, same)], found=True)
    assert r_other.stance is Stance.NEUTRAL, r_other.rationale
    assert r_same.stance is Stance.REFUTES, r_same.rationale
    possessive = other.replace("Kellbridge Farms", "Kellbrook Foods'")
    assert judge.judge_batch([(claim, possessive)], found=True)[0].stance is Stance.REFUTES
    # a word of the stem in lowercase is a common word, not another name: "Volcanoes" opening
    # a claim is named by "volcanic"
    from affidavit.tasks.judge_lexical import _names_not_written

    assert _names_not_written(("Kellbrook",), other, None) == frozenset({"kellbr"})
    assert _names_not_written(("Kellbrook",), same, None) == frozenset()
    assert _names_not_written(("Volcanoes",), "Eruptions of volcanic ash cool the climate.",
                              None) == frozenset()
    assert _names_not_written(("Antarctica",), "The Antarctic ice sheet is losing mass.",
                              None) == frozenset()


def test_a_leading_place_names_the_subject_of_a_claim_that_names_none_else() -> None:
    # "In TRIAL-7, velorimab cut ...": the drug is written in lowercase, so the trial named by
    # the leading setting is what a found document must name for its figure to refute
    claim = "In TRIAL-7, velorimab cut strokes by 24% compared with placebo."
    said = ("An independent re-analysis found that the reduction in strokes with velorimab "
            "compared with placebo in {} was 12%, not the figure the sponsor gave.")
    judge = LexicalJudge()
    [here, other] = judge.judge_batch(
        [(claim, _PAD + said.format("TRIAL-7")), (claim, _PAD + said.format("TRIAL-9"))],
        found=True,
    )
    assert here.stance is Stance.REFUTES, here.rationale
    assert other.stance is Stance.NEUTRAL, other.rationale
    from affidavit.tasks.judge_frame import _subject_words

    assert _subject_words("In 2015, global temperatures rose.") == []
    assert _subject_words("According to NASA, global temperatures rose.") == []



def test_sentences_that_carry_a_claim_of_several_facts_but_negate_its_main_verb() -> None:
    # The court, the hearing and the prison are named, but she "was not sent to prison": the
    # sentences together do not support the claim
    claim = "Ada Kell was sent straight to prison after her hearing at Lornmouth Crown Court."
    lede = "Ada Kell, 44, admitted fraud at Lornmouth Crown Court on Monday. "
    negated = lede + ("She was not sent to prison: her ten-month sentence was suspended. The "
                      "hearing lasted two hours, and the court heard she had repaid the money.")
    sent = lede + ("After the hearing she was sent straight to prison for ten months. The court "
                   "heard she had repaid the money.")
    [r_negated, r_sent] = LexicalJudge().judge_batch(
        [(claim, _PAD + negated), (claim, _PAD + sent)], found=True
    )
    assert r_negated.stance is Stance.PARTIAL, r_negated.rationale
    assert "negated" in r_negated.rationale
    assert r_sent.stance is Stance.SUPPORTS, r_sent.rationale



def test_two_lengths_of_a_thing_in_one_unit_are_values_of_the_claims_quantity() -> None:
    # "a four-month prison term" is the length of the sentence, as the claim's "of six months"
    # is: another value, which refutes. A period the text speaks of ("in the past four months")
    # is not a length and refutes nothing.
    claim = "Rhona Vale was given a suspended prison sentence of six months."
    lede = _PAD + "Rhona Vale, 41, admitted fraud at Orrin Crown Court on Monday. "
    [other, period, same] = LexicalJudge().judge_batch(
        [(claim, lede + "Vale received a four-month prison term, suspended for a year."),
         (claim, lede + "Vale had been given a suspended prison sentence once before, in the "
                        "past four months."),
         (claim, lede + "Vale received a six-month prison term, suspended for a year.")],
        found=True,
    )
    assert other.stance is Stance.REFUTES, other.rationale
    assert period.stance is not Stance.REFUTES, period.rationale
    assert same.stance is Stance.SUPPORTS, same.rationale
    from affidavit.tasks.judge_frame import is_length

    assert [is_length(t, f) for t in ("a two-year deal", "over the past 800,000 years",
                                      "five-year-olds", "for 41 minutes on average")
            for f in normalize_figures(t)] == [True, False, False, True]



@pytest.mark.parametrize(
    ("claim", "evidence", "stance"),
    [
        # "said yes to" is an approval: it refutes a refusal instead of supporting it
        ("League governors turned down the Kestle Rovers' application to join the league.",
         "League governors said yes to the Kestle Rovers' application at Monday's meeting.",
         Stance.REFUTES),
        # a regulator that "cleared the proposed takeover" approved it: the takeover is the
        # proposal, the clearance is done
        ("Regulators have approved Orrin Foods' takeover of Pell Stores.",
         "The Competition Board has cleared the proposed takeover of Pell Stores by Orrin Foods.",
         Stance.SUPPORTS),
        # work that "continued without interruption" was not halted
        ("Orrin Aid halted its operations in Pell province in May 2025.",
         "Orrin Aid has continued its operations in Pell province without interruption "
         "throughout 2025.",
         Stance.REFUTES),
        # operations "suspended" were halted
        ("Orrin Aid halted its operations in Pell province in May 2025.",
         "In May 2025 Orrin Aid suspended all operations in Pell province after two attacks on "
         "its convoys.",
         Stance.SUPPORTS),
        # "word on the forums is that" relays hearsay: not the writer's assertion
        ("Pellnet is cutting 200 engineering jobs.",
         "Word on the installer forums this week is that Pellnet is about to cut 200 "
         "engineering jobs.",
         Stance.NEUTRAL),
        # closed in the claim's month, its reopening still to come: the opposite of the claim
        ("Pell Inns reopened its Harbour Row hotel in June 2025.",
         "The Harbour Row hotel of Pell Inns closed temporarily in June 2025 for repairs and is "
         "expected to reopen in spring 2026.",
         Stance.REFUTES),
        # a claim with no period is supported in part by the planned reopening
        ("Pell Inns has reopened its Harbour Row hotel.",
         "The Harbour Row hotel of Pell Inns closed temporarily in June 2025 for repairs and is "
         "expected to reopen in spring 2026.",
         Stance.PARTIAL),
        # "remained flat" in a document is a steady state, the opposite of a rise
        ("Orrin Foods' sales rose in 2024.", "Orrin Foods said its sales remained flat in 2024.",
         Stance.REFUTES),
        ("Orrin Foods' sales were unchanged in 2024.",
         "Orrin Foods said its sales remained flat in 2024.", Stance.SUPPORTS),
        # people "arrested" were detained
        ("Pell Police detained 12 suspects in Operation Heron.",
         "Twelve people have been arrested in Operation Heron, Pell Police said.",
         Stance.SUPPORTS),
        # ... and clearing snow approves nothing
        ("Regulators have approved Orrin Foods' takeover of Pell Stores.",
         "The Competition Board has cleared the snow from the car park at Pell Stores, Orrin "
         "Foods said.",
         Stance.NEUTRAL),
    ],
)
def test_decisions_written_in_other_words(claim: str, evidence: str, stance: Stance) -> None:
    r = LexicalJudge().judge_batch([(claim, _PAD + evidence)], found=True)[0]
    assert r.stance is stance, r.rationale


@pytest.mark.parametrize(
    ("claim", "evidence", "refutes"),
    [
        # "takes the group to 37 inns" is the group's size after the opening, not a number of
        # new inns; a number of new inns still refutes
        ("Harlow Inns has opened four new inns in Cornwall.",
         "Harlow Inns opened an inn in Devon on Monday. The opening takes the group to 37 inns.",
         False),
        ("Harlow Inns has opened four new inns in Cornwall.",
         "Harlow Inns opened two new inns in Cornwall on Monday, taking the group to 37 inns.",
         True),
        # the amount a round raised is not the company's valuation; another valuation refutes
        ("Pellam's Series A round valued the budgeting app company at 90 million dollars.",
         "Pellam, the budgeting app company, said it has raised US$12 million in a Series A "
         "round led by Orrel Capital.", False),
        ("Pellam's Series A round valued the budgeting app company at 90 million dollars.",
         "Pellam, the budgeting app company, said its Series A round valued it at US$60 "
         "million.", True),
        # "128 GB" names the model the price is of: stated with another price, it refutes
        ("Orvel set the launch price of the 128 GB Orvel Nine at 499 euros.",
         "The launch price of the 128 GB Orvel Nine is €449.", True),
        ("Orvel set the launch price of the 128 GB Orvel Nine at 499 euros.",
         "The launch price of the 128 GB Orvel Nine is €499.", False),
        # a target is what the sum was measured against, not another value of it
        ("The Pell Trust's 2024 spring appeal brought in 1.8 million pounds.",
         "The Pell Trust's 2024 spring appeal beat its £1.2m target by a wide margin, the "
         "charity said.", False),
        ("The Pell Trust's 2024 spring appeal brought in 1.8 million pounds.",
         "The Pell Trust's 2024 spring appeal brought in £1.5m, the charity said.", True),
        # a month's figure "of the quarter" is not another value of the claim's whole year
        ("Orrin Airport handled 2.1 million passengers over the whole of 2024.",
         "Orrin Airport handled its busiest month of the quarter in March 2024, with 190,000 "
         "passengers.", False),
        ("Orrin Airport handled 2.1 million passengers over the whole of 2024.",
         "Orrin Airport handled 1.9 million passengers in 2024.", True),
    ],
)
def test_figures_of_other_quantities_do_not_refute(claim: str, evidence: str,
                                                    refutes: bool) -> None:
    r = LexicalJudge().judge_batch([(claim, _PAD + evidence)], found=True)[0]
    assert (r.stance is Stance.REFUTES) is refutes, r.rationale


@pytest.mark.parametrize("found", [False, True])
@pytest.mark.parametrize(
    ("claim", "passage", "stance"),
    [
        # another value of the claim's count in a sentence the best one does not hold
        ("The Harle Library in Orrinford holds 8,000 books.",
         "The Harle Library in Orrinford opened on 3 March 2021. The building cost 12 million "
         "pounds and holds 80,000 books. Residents queued around the block on opening day.",
         Stance.REFUTES),
        # "six times a day" is a frequency, not a factor
        ("The Pell ferry sails 12 times a day.", "The Pell ferry sails 6 times a day.",
         Stance.REFUTES),
        # the passage dates the opening to another year: not support for the claim's year
        ("The Harle Library in Orrinford opened in March 2019.",
         "The Harle Library in Orrinford opened on 3 March 2021. The building cost 12 million "
         "pounds and holds 80,000 books. Residents queued around the block on opening day.",
         Stance.NEUTRAL),
        # "did not ban" denies "banned"
        ("The city council of Aldmoor banned plastic bags in 2022.",
         "The city council of Aldmoor did not ban plastic bags in 2022.", Stance.REFUTES),
    ],
)
def test_short_passages_that_give_the_claim_another_value(claim: str, passage: str,
                                                          stance: Stance, found: bool) -> None:
    r = LexicalJudge().judge_batch([(claim, passage)], found=found)[0]
    assert r.stance is stance, r.rationale


def test_a_found_passage_without_the_claims_leading_name_speaks_of_someone_else() -> None:
    claim = "Tom Baker was elected mayor of Tessel in November 2022."
    other = "Jane Ortiz was elected mayor of Tessel in November 2022. She won 61 percent."
    same = "Tom Baker was elected mayor of Tessel in November 2022. He won 61 percent."
    [r_other, r_same] = LexicalJudge().judge_batch([(claim, other), (claim, same)], found=True)
    assert r_other.stance is Stance.NEUTRAL, r_other.rationale
    assert r_same.stance is Stance.SUPPORTS, r_same.rationale


def _found(claim: str, evidence: str) -> JudgeResult:
    """The judgment of ``evidence`` after three unrelated sentences, found by search."""
    return LexicalJudge().judge_batch([(claim, _PAD + evidence)], found=True)[0]


@pytest.mark.parametrize(
    ("claim", "evidence", "stance"),
    [
        # a bound that excludes the claim's value is another value, however close
        ("Turnout in the Harrowby council by-election was 52.4%.",
         "Turnout in the Harrowby council by-election was just under 48 per cent.",
         Stance.REFUTES),
        ("Turnout in the Harrowby council by-election was 52.4%.",
         "Turnout in the Harrowby council by-election was nearly 48 per cent.",
         Stance.REFUTES),
        # an approximation that allows it is approximate support
        ("Turnout in the Harrowby council by-election was 52.4%.",
         "Turnout in the Harrowby council by-election was about 50 per cent.", Stance.PARTIAL),
        # someone else's word: "is said to", "has it that", "people familiar with"
        ("Dunmore Foods is buying the Pellow bakery chain for 40 million pounds.",
         "Dunmore Foods is said to be buying the Pellow bakery chain for £40m.", Stance.NEUTRAL),
        ("Dunmore Foods is buying the Pellow bakery chain for 40 million pounds.",
         "Talk in the trade has it that Dunmore Foods is buying the Pellow bakery chain for "
         "£40m.", Stance.NEUTRAL),
        ("Dunmore Foods is buying the Pellow bakery chain for 40 million pounds.",
         "Dunmore Foods is buying the Pellow bakery chain for £40m, according to two people "
         "familiar with the talks.", Stance.NEUTRAL),
        ("Dunmore Foods is buying the Pellow bakery chain for 40 million pounds.",
         "Dunmore Foods is buying the Pellow bakery chain for £40m, the company said.",
         Stance.SUPPORTS),
        # "told to pay" is an order, not hearsay; a number written out in words is one number
        ("Carrow Dairies was fined £12,500 for hygiene failings.",
         "Carrow Dairies has been told to pay a penalty of twelve thousand five hundred pounds "
         "for hygiene failings.", Stance.SUPPORTS),
        ("Wyle Orbital put 36 satellites into orbit.",
         "Wyle Orbital put three dozen satellites into orbit.", Stance.SUPPORTS),
        ("Harle Council built 340 homes.", "Harle Council built three hundred and forty homes.",
         Stance.SUPPORTS),
        # an average is not one member's value, nor the other way round
        ("The opening match of the Orrin Cup drew 42,000 spectators.",
         "Matches at the Orrin Cup drew an average of 31,000 spectators.", Stance.NEUTRAL),
        ("Orrin Cup matches averaged 42,000 spectators.",
         "Orrin Cup matches averaged 31,000 spectators.", Stance.REFUTES),
        ("In 2023 the Pell viaduct carried an average of 9,400 lorries a day.",
         "In 2023 the Pell viaduct carried 7,100 lorries a day.", Stance.REFUTES),
        # a part of the claim's count is not all of it
        ("All 52 staff of Harle Print are keeping their jobs after the takeover.",
         "Fourteen of the 52 staff at Harle Print were given redundancy notices after the "
         "takeover.", Stance.REFUTES),
        ("All 52 staff of Harle Print are keeping their jobs after the takeover.",
         "All 52 staff at Harle Print are keeping their jobs after the takeover, the buyer "
         "said.", Stance.SUPPORTS),
        # a claim of the part of the whole
        ("Inspectors found faults in nine of the 25 Pell heaters they tested.",
         "Inspectors found faults in nine of the 25 Pell heaters they tested last month.",
         Stance.SUPPORTS),
        # the whole a part is counted from is not what the sentence states of the part
        ("52 staff at Harle Print were given redundancy notices.",
         "Fourteen of the 52 staff at Harle Print were given redundancy notices.",
         Stance.NEUTRAL),
        # the claim's value named only to be rejected for another
        ("Pellow Homes sold its flats for 248,000 pounds on average in 2024.",
         "Registry data show the average price of Pellow Homes flats sold in 2024 was "
         "£231,000, not the £248,000 the company gave.", Stance.REFUTES),
        ("Pellow Homes sold its flats for 248,000 pounds on average in 2024.",
         "Pellow Homes sold its flats for £248,000 on average in 2024.", Stance.SUPPORTS),
        # a claim of one month speaks of that month's quarter, not another
        ("Loan approvals in Dunmere rose in May 2025.",
         "The Dunmere lending index covers the first quarter of 2025. Loan approvals in "
         "Dunmere rose 3% in the quarter.", Stance.NEUTRAL),
        ("Loan approvals in Dunmere rose in May 2025.",
         "The Dunmere lending index covers the second quarter of 2025. Loan approvals in "
         "Dunmere rose 3% in the quarter.", Stance.SUPPORTS),
        # what a rejected proposal proposed does not happen
        ("Orrin council voted to close three swimming pools.",
         "Orrin council voted to keep all nine swimming pools open, rejecting a proposal to "
         "close three swimming pools.", Stance.REFUTES),
        ("Orrin council voted to close three swimming pools.",
         "Orrin councillors did not approve the plan to close three swimming pools.",
         Stance.REFUTES),
        ("Orrin council rejected a plan to close three swimming pools.",
         "Orrin council rejected a plan to close three swimming pools.", Stance.SUPPORTS),
        # a financial year written as its months
        ("Orrin Housing built 640 new homes in the twelve months to March 2025.",
         "Orrin Housing built 640 new homes in the year to 31 March 2025.", Stance.SUPPORTS),
        # a quarter written as its months
        ("Rents in Dunmere went up in the first three months of 2025.",
         "Rents in Dunmere fell 1.4% in the first quarter of 2025.", Stance.REFUTES),
        ("Rents in Dunmere went up in the first three months of 2025.",
         "Rents in Dunmere fell 1.4% in the final quarter of 2024.", Stance.NEUTRAL),
        # "taken over" is an acquisition; "took over as chair" is not one
        ("Pellmark Books has acquired the publisher Orrin House.",
         "Pellmark Books has taken over the publisher Orrin House.", Stance.SUPPORTS),
        # a duration stated with a copula is a value of the claim's duration
        ("The median wait at Brackley's walk-in centres in 2024 was 47 minutes.",
         "Using timestamps released by Brackley's health board, we calculated that the median "
         "wait from arrival to first assessment at the two walk-in centres was 63 minutes in "
         "2024.", Stance.REFUTES),
        ("The median wait at Brackley's walk-in centres in 2024 was 47 minutes.",
         "The median wait from arrival to assessment at Brackley's walk-in centres was 47 "
         "minutes in 2024.", Stance.SUPPORTS),
        # a decade is ten years; a plan named after a figure does not hedge it
        ("Marlow Insurance's naming deal for the Otters' arena runs for a decade.",
         "The Otters and Marlow Insurance have agreed a ten-year naming-rights partnership for "
         "the Otters' home arena.", Stance.SUPPORTS),
        ("Marlow Insurance's naming deal for the Otters' arena runs for a decade.",
         "In March we signed a seven-year naming-rights agreement with the Otters, under which "
         "their arena will be known as Marlow Arena.", Stance.REFUTES),
        # a whole named first takes its part after a comma
        ("Tollard General Hospital has filled all 42 jobs created for its new stroke unit.",
         "Of the 42 posts created for the new stroke unit at Tollard General Hospital, only 29 "
         "have been filled by permanent appointments.", Stance.REFUTES),
        # money handed over is money paid; the consideration for a shareholding is its price
        ("Corvale Holdings handed over £64m for its controlling stake in Ashby Town.",
         "The consideration for Corvale Holdings' shareholding in Ashby Town is £46 million, "
         "payable in full on completion.", Stance.REFUTES),
        # sacked is dismissed; "did not dismiss" denies it
        ("The Harrow Hawks sacked head coach Jonas Pell.",
         "Harrow Hawks: head coach Jonas Pell dismissed; contract terminated by the club.",
         Stance.SUPPORTS),
        ("The Harrow Hawks sacked head coach Jonas Pell.",
         "The Harrow Hawks said Jonas Pell left by mutual consent: \"The club did not dismiss "
         "Jonas.\"", Stance.REFUTES),
        # to put pen to paper is to sign; a contract is a deal
        ("Milo Arden has put pen to paper on a three-year deal at Fenwick Rovers.",
         "Milo Arden has signed a three-year contract with Fenwick Rovers after passing his "
         "medical.", Stance.SUPPORTS),
        # a licence granted is an authorisation
        ("Orvane has been authorised in Castria to treat plaque psoriasis in adults.",
         "The Castrian Medicines Agency decided to license Orvane for adults with plaque "
         "psoriasis.", Stance.SUPPORTS),
        # a present state ("can now") is not supported in full by a plan
        ("Stroke patients can now get thrombectomy at Wendham Hospital around the clock.",
         "Wendham Hospital expects to begin offering a 24-hour thrombectomy service for stroke "
         "patients from next spring.", Stance.PARTIAL),
        # the other value is a target the figure is measured against, not the value reached
        ("Ellworth Water got its leakage down to 131 million litres a day in 2024.",
         "Ellworth Water cut leakage to 131 megalitres a day in 2024. This beat the company's "
         "commitment of 137 million litres a day.", Stance.SUPPORTS),
        # a fine of another amount is another value of the claim's fine
        ("Hollin Dyes was fined £3.6 million over the River Arle pollution.",
         "Hollin Dyes has been fined £6.3 million after a tank failure sent dye into the River "
         "Arle.", Stance.REFUTES),
        # the year a change is measured from is not the year it is of
        ("Ellworth Water's leakage fell to 131 million litres a day in the 2024-25 financial year.",
         "Ellworth Water: in 2024-25 leakage fell to 131 megalitres a day, down from 140 Ml/d in "
         "2023-24.", Stance.SUPPORTS),
        # an opposite act dated years back is an earlier event, not the claim's contradiction
        ("Tarrand Energy has shut down its Millbrook call centre.",
         "Tarrand Energy's Millbrook call centre opened in 2009 and employs 300 people.",
         Stance.NEUTRAL),
        ("Tarrand Energy has shut down its Millbrook call centre.",
         "Tarrand Energy has opened its Millbrook call centre to new staff.", Stance.REFUTES),
        # a figure someone demands is not the value agreed or offered
        ("Harlow Cargo raised its pay offer to 4% after the Denby strike.",
         "The Harlow Cargo workers' union is seeking a 9% pay increase for 2025.",
         Stance.NEUTRAL),
        # "contract out" is to outsource: an agreement that moves no job is not its negation
        ("Harlow Cargo intends to contract out 150 warehouse jobs.",
         "The union wants a guarantee that no job will be moved to an agency during the life "
         "of the agreement with Harlow Cargo.", Stance.NEUTRAL),
        # what people say they were told is hearsay, not the document's assertion
        ("Harlow Cargo intends to outsource 150 warehouse jobs.",
         "Members say managers told them in May that Harlow Cargo intends to outsource 150 "
         "warehouse jobs.", Stance.NEUTRAL),
        ("Harlow Cargo intends to outsource 150 warehouse jobs.",
         "Harlow Cargo intends to outsource 150 warehouse jobs, its chief executive said.",
         Stance.SUPPORTS),
    ],
)
def test_figures_and_decisions_as_other_authors_write_them(claim: str, evidence: str,
                                                           stance: Stance) -> None:
    r = _found(claim, evidence)
    assert r.stance is stance, r.rationale


@pytest.mark.parametrize(
    ("claim", "evidence", "supports"),
    [
        # a sentence without the claim's main verb states another fact of the same things
        ("The Corrie synthetic aperture radar satellites have been launched.",
         "Pellmark builds the Corrie synthetic aperture radar satellites at its Dunmore plant.",
         False),
        ("The Corrie synthetic aperture radar satellites have been launched.",
         "The Corrie synthetic aperture radar satellites were launched on Tuesday.", True),
        ("Corran Quarries has restarted underground blasting at the Pellow Hill quarry face.",
         "Underground blasting at the Pellow Hill quarry face of Corran Quarries was halted in "
         "March.", False),
        ("Corran Quarries has restarted underground blasting at the Pellow Hill quarry face.",
         "Corran Quarries: Pellow Hill quarry face, underground blasting licence held since "
         "2019.", False),
        ("Corran Quarries has restarted underground blasting at the Pellow Hill quarry face.",
         "Corran Quarries restarted underground blasting at the Pellow Hill quarry face on "
         "Monday.", True),
        # a plan stated after what is planned
        ("The Pellow ferry service has been launched.",
         "Launch of the Pellow ferry service is planned for 2027.", False),
    ],
)
def test_sentences_that_do_not_state_what_the_claim_says_of_its_subject(
    claim: str, evidence: str, supports: bool
) -> None:
    r = _found(claim, evidence)
    assert (r.stance is Stance.SUPPORTS) is supports, r.rationale


def test_a_correction_retracts_the_value_it_quotes_and_only_that_value() -> None:
    claim = "The Felling Arts Trust received 2,400 grant applications in 2024."
    retracted = (
        "Correction. Our report of 3 May stated that the Felling Arts Trust received 2,400 "
        "grant applications in 2024. That was wrong. The correct figure is 1,900."
    )
    other = (
        "Correction. Our report of 3 May stated that the Felling Arts Trust received 2,400 "
        "grant applications in 2024 and gave out £30,000. That was wrong. It gave out £25,000."
    )
    [r_retracted, r_other] = LexicalJudge().judge_batch(
        [(claim, retracted), (claim, other)], found=True
    )
    assert r_retracted.stance is Stance.REFUTES, r_retracted.rationale
    assert r_other.stance is not Stance.REFUTES, r_other.rationale


@pytest.mark.parametrize(
    ("text", "figures"),
    [
        ("three hundred jobs", [300.0]),
        ("two dozen satellites", [24.0]),
        ("a fine of eighteen thousand five hundred pounds", [18500.0]),
        ("one hundred and twenty homes", [120.0]),
        ("two and a half million visitors", [2500000.0]),
        ("seven or eight boats", [7.0, 8.0]),
        ("four point two million viewers", [4200000.0]),
        ("a rise of twenty-one point five percent", [21.5]),
    ],
)
def test_numbers_written_out_in_several_words_are_one_number(text: str,
                                                             figures: list[float]) -> None:
    assert [f.value for f in normalize_figures(text)] == figures




@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("a 48-hour stoppage", 2.0, "day_span"),
        ("a strike of two days", 2.0, "day_span"),
        ("six weeks", 42.0, "day_span"),
        ("an 18-month sentence", 1.5, "year_span"),
        ("57 minutes", 57.0, "minute_span"),
    ],
)
def test_spans_of_time_are_read_in_days_or_years(text: str, value: float, unit: str) -> None:
    [f] = normalize_figures(text)
    assert (round(f.value, 6), f.unit) == (value, unit)


def test_a_count_of_another_kind_of_the_same_noun_is_another_quantity() -> None:
    claim = "Orrin Homes handed over 1,146 new homes in the twelve months to June 2025."
    other_kind = (
        "Orrin Homes has submitted a planning application for 250 homes on farmland at Pell "
        "Lane, on the southern edge of Dunmere.\n\nThe scheme includes 75 affordable homes, a "
        "play area and a new junction on the Dunmere Road. Residents of Pell Lane have started "
        "a petition against it.\n\nThe district council expects to decide the application in "
        "the autumn."
    )
    same_kind = "Orrin Homes handed over 980 new homes in the twelve months to June 2025."
    [r_other, r_same] = LexicalJudge().judge_batch(
        [(claim, other_kind), (claim, same_kind)], found=True
    )
    assert r_other.stance is not Stance.REFUTES, r_other.rationale
    assert r_same.stance is Stance.REFUTES, r_same.rationale


@pytest.mark.parametrize(("text", "hedged"), [
    ("Orrin Homes handed over 1,146 homes", False),  # the verb's particle
    ("Pellmark took over 40 shops", False),
    ("Orrin Homes sold over 1,146 homes", True),  # more than
])
def test_over_after_a_verb_is_its_particle_not_a_bound(text: str, hedged: bool) -> None:
    [f] = normalize_figures(text)
    assert f.is_hedged is hedged


def test_a_correction_supports_the_value_it_corrects_to_and_its_quote_refutes_nothing() -> None:
    correction = (
        "Correction, 2 June 2025: An article of 30 May about the Tallow Green pool gave the "
        "repair budget approved by Orrin council as 3.6 million pounds. That figure was wrong. "
        "The budget approved was 1.9 million pounds. We apologise for the error."
    )
    corrected = "Orrin council approved a repair budget of 1.9 million pounds for the Tallow " \
        "Green pool."
    retracted = "Orrin council approved a repair budget of 3.6 million pounds for the Tallow " \
        "Green pool."
    [r_corrected, r_retracted] = LexicalJudge().judge_batch(
        [(corrected, correction), (retracted, correction)], found=True
    )
    assert r_corrected.stance is Stance.SUPPORTS, r_corrected.rationale
    assert r_retracted.stance is Stance.REFUTES, r_retracted.rationale


def test_a_claimed_average_is_not_one_days_value() -> None:
    review = (
        "DUNMERE, 1 September 2025 - August 2025 in Dunmere was dry. The average daily high "
        "temperature for the month was 24 degrees Celsius, the weather office said. The hottest "
        "day was 12 August, when the temperature reached 33 degrees Celsius."
    )
    peak = "The average daily high temperature in Dunmere in August 2025 was 33 degrees Celsius."
    mean = "The average daily high temperature in Dunmere in August 2025 was 24 degrees Celsius."
    [r_peak, r_mean] = LexicalJudge().judge_batch([(peak, review), (mean, review)], found=True)
    assert r_peak.stance is Stance.REFUTES, r_peak.rationale
    assert r_mean.stance is Stance.SUPPORTS, r_mean.rationale


@pytest.mark.parametrize(("claim", "passage"), [
    # a number written out is covered by its digits
    ("The Pellbury village hall was awarded a grant of twelve thousand five hundred pounds.",
     "PELLBURY, 4 March 2025 - The Pellbury village hall has been awarded a grant of £12,500 "
     "by the county arts fund. Thirty-two volunteers help run the hall."),
    # a quarter of a financial year is read by its months, not as a calendar quarter
    ("Larkfield Chemists took in £92.6m of revenue in the three months to 28 December 2024.",
     "Larkfield Chemists plc - Trading update for the third quarter of the 2025 financial "
     "year\n\nLarkfield Chemists plc today issues a trading update for the 13 weeks to 28 "
     "December 2024, the third quarter of its 2025 financial year.\n\nGroup revenue for the "
     "quarter was £92.6 million. Like-for-like sales rose 4.1%."),
])
def test_a_passage_found_by_search_supports_the_claim_it_states(claim: str, passage: str) -> None:
    r = LexicalJudge().judge_batch([(claim, passage)], found=True)[0]
    assert r.stance is Stance.SUPPORTS, r.rationale


def test_financial_years_are_compared_as_financial_years() -> None:
    claim = "Pellham Rovers lost £4.1m before tax in the 2024-25 financial year."
    last_year = ("Pellham Rovers lost £6.8m before tax in the year to June 2024, an improvement "
                 "on the previous year, according to accounts released by the club.")
    same_year = ("Pellham Rovers lost £3.0m before tax in the 2024-25 financial year, "
                 "according to accounts released by the club.")
    assert _found(claim, last_year).stance is Stance.NEUTRAL
    assert _found(claim, same_year).stance is Stance.REFUTES
    from affidavit.tasks.judge_frame import read_time

    t = read_time("the 13 weeks to 28 december 2024, the third quarter of its 2025 financial "
                  "year", months_as_quarters=True)
    assert (t.years, t.quarters, t.fiscal) == ({2024}, {4}, {2025})  # a fiscal Q3 is no Q3


def test_declined_is_a_refusal_before_an_object_and_a_fall_before_a_figure() -> None:
    from affidavit.tasks.judge_frame import _rewrite

    assert "refused" in _rewrite("the authority declined the paediatric indication")
    assert "refused" in _rewrite("the council declined to approve the scheme")
    assert "refused" not in _rewrite("sales declined 4% in the quarter")
    assert "refused" not in _rewrite("coverage declined to 91.4 percent")


@pytest.mark.parametrize(
    ("text", "value", "unit"),
    [
        ("a gust of 94 mph", 94 * 1.609344, "kmh"),
        ("a gust of 151 km/h", 151.0, "kmh"),
        ("1,200 gigawatt hours", 1.2e9, "kwh"),
        ("1.2 TWh", 1.2e9, "kwh"),
        ("142 megalitres per day", 142e6, "litre"),
        ("142 million litres a day", 142e6, "litre"),
        ("a floor area of 42,000 m2", 42000.0, "m2"),  # "m²" as folded
        ("42,000 square metres under one roof", 42000.0, "m2"),
        ("Gross internal floor area: 4.2 ha", 42000.0, "m2"),
        ("a 5 acre site", 5 * 4046.8564224, "m2"),
        ("3 square kilometres", 3e6, "m2"),
    ],
)
def test_speeds_energy_and_volumes_are_read_in_one_unit(text: str, value: float,
                                                        unit: str) -> None:
    [f] = normalize_figures(text)
    assert f.unit == unit
    assert f.value == pytest.approx(value)



@pytest.mark.parametrize(
    ("claim", "evidence", "stance"),
    [
        # a negated verb negates the object it governs: the claim's cover was not taken out
        ("Ashwell council took out flood insurance with Greyholm.",
         "Ashwell council's policy with Greyholm does not include flood insurance.",
         Stance.REFUTES),
        ("Ashwell council took out flood insurance with Greyholm.",
         "Ashwell council did not approve the optional flood insurance offered by Greyholm.",
         Stance.REFUTES),
        # ... but a negated verb of telling leaves its object standing
        ("Ashwell council took out flood insurance with Greyholm.",
         "Ashwell council did not disclose the cost of its flood insurance with Greyholm.",
         Stance.SUPPORTS),
        # a product "cleared for" a use is approved for it; its figures in a negated clause
        # are what was not approved
        ("Corland's medicines agency cleared Tremaxil for psoriasis patients aged 12 to 17.",
         "Corland's medicines agency did not approve the use of Tremaxil in patients aged 12 "
         "to 17.", Stance.REFUTES),
        ("Corland's medicines agency cleared Tremaxil for psoriasis patients aged 12 to 17.",
         "Corland's medicines agency has approved Tremaxil for psoriasis patients aged 12 to "
         "17.", Stance.SUPPORTS),
        # "declined to approve" is a refusal, "refused to renew" too
        ("Aldbury councillors voted to allow more night flights at Aldbury Airport.",
         "Aldbury councillors declined to approve more night flights at Aldbury Airport.",
         Stance.REFUTES),
        # a negated reason ("for not paying") is no negation of the claim's predicate
        ("Pellow Jet was fined 1.3 million euros for not paying delay compensation.",
         "The regulator fined Pellow Jet EUR 1,300,000 for failing to pay delay compensation.",
         Stance.SUPPORTS),
        # another party's figure in the same register is not the claim's subject's value
        ("Pellow Jet was fined 1.3 million euros by the Aviation Directorate.",
         "The Aviation Directorate has fined Bramwell Air EUR 800,000 for overbooking.",
         Stance.NEUTRAL),
        ("Pellow Jet was fined 1.3 million euros by the Aviation Directorate.",
         "The Aviation Directorate has fined Pellow Jet EUR 800,000 for overbooking.",
         Stance.REFUTES),
        # damages are a measure of money: another sum of them is another value
        ("Halden Generics was ordered to pay Quarrington 23.5 million euros in damages.",
         "On the financial claims, the court assessed the damages payable by Halden Generics "
         "to Quarrington at EUR 12.5 million.", Stance.REFUTES),
        # an amount asked for and an amount given are two quantities
        ("Quarrington had asked the court for 40 million euros in damages from Halden.",
         "The court awarded Quarrington 23.5 million euros in damages from Halden.",
         Stance.NEUTRAL),
        ("The court awarded Mara Quill 2 million dollars in damages from Velton Foods.",
         "Mara Quill asked for 2 million dollars in damages from Velton Foods. The court "
         "awarded her 150,000 dollars on Friday.", Stance.REFUTES),
        ("Castellan Life paid out £318m on protection policies in 2024.",
         "In 2024 a Castellan Life policyholder sought payment of £85,000 on a protection "
         "policy.", Stance.NEUTRAL),
        # a number joined to another noun ("five-storey") is no count of years
        ("Brackwell Holdings has been banned from letting homes for five years.",
         "Brackwell Holdings bought the five-storey block for £2.35 million.", Stance.NEUTRAL),
        # "the twelve months to the end of March 2023" is the year to March 2023
        ("Fenwold Homes completed 640 new homes in the year to March 2024.",
         "Fenwold Homes finished 590 new homes over the twelve months to the end of March "
         "2023.", Stance.NEUTRAL),
        # a scheduled flight is a timetabled one, not one still to come
        ("Norrath Airlines' last flight on the Calder route took place on 11 January 2025.",
         "Norrath Airlines operated its final scheduled flight on the Calder route on 11 "
         "January 2025.", Stance.SUPPORTS),
        # a plan after the claim's figure hedges what follows it, not the figure
        ("Dunmere council had purchased 86 homes for use as temporary accommodation.",
         "Dunmere council has bought 86 homes to use as temporary accommodation, as part of "
         "its plan to end the use of hotels.", Stance.SUPPORTS),
        ("Dunmere council had purchased 86 homes for use as temporary accommodation.",
         "Dunmere council plans to buy 86 homes to use as temporary accommodation.",
         Stance.PARTIAL),
        # off the market for good is discontinued: a recall of some batches is not it
        ("Daskin is taking Lormidex off the market for good.",
         "Daskin said it is not discontinuing Lormidex.", Stance.REFUTES),
        # one word of the claim and none of its names is no evidence ("road closures")
        ("Daskin is taking Lormidex off the market for good.",
         "Daskin makes Lormidex in Velland.\n- City marathon road closures announced",
         Stance.NEUTRAL),
        # a named place read from the claim's name words when no name group is read
        ("The Port of Ostrand handled 1.84m TEU in 2024.",
         "Port statistics for 2024 are out. - Haldvik handled 3.02 million TEU, a fall of 0.7 "
         "per cent.", Stance.NEUTRAL),
        # a correction that says the error in the quoting sentence, the value after it
        ("Harwick Mutual's combined ratio for January to March 2025 was 94.1 percent.",
         "Correction notice. In the update issued by Harwick Mutual on 24 April 2025, the "
         "combined ratio for the first quarter of 2025 was stated incorrectly as 94.1%. The "
         "correct figure is 96.4%.", Stance.REFUTES),
        # a correction that retracts a whole reported statement with a bare sentence of error
        ("The Lowmoor link road is expected to open in 2026.",
         "Correction. Our press release on the Lowmoor scheme stated that the Lowmoor link road "
         "was expected to open in 2026. This was an error.", Stance.REFUTES),
        ("Container volumes at the Port of Ostrand rose in the first quarter of 2025.",
         "Correction notice. The Port of Ostrand said that container throughput in 2024 had "
         "risen by 6.1%. This was wrong.", Stance.NEUTRAL),
        # the same count of the same thing, whatever the verb ("handled", "reached"); a count
        # run ends at a comma
        ("The Port of Ostrand handled 1.84m TEU in 2024.",
         "Port of Ostrand annual report 2024. Throughput reached 1.84 million TEU, growth of "
         "6.1% on 2023.", Stance.SUPPORTS),
        # "twelve months earlier" is the base of a comparison, not a figure of the claim
        ("Westmarch home prices were 3.1% higher in March 2025 than twelve months earlier.",
         "Home prices in Westmarch increased by 3.1 per cent in the twelve months to March "
         "2025.", Stance.SUPPORTS),
        # a sentence that states the claim's change beside an opposite one does not refute it
        ("Westmarch home prices were 3.1% higher in March 2025 than twelve months earlier.",
         "Westmarch home prices fell by 0.4% in March 2025 compared with February, but were "
         "3.1% higher than in March 2024.", Stance.SUPPORTS),
        # a round figure stated with the claim's day is that fact, however few of its words
        ("Tenants of Gresham Lane Lettings in Ashby Vale face a 4% rent increase from 1 April "
         "2025.",
         "Gresham Lane Lettings said rents across its Ashby Vale homes will go up by four per "
         "cent from 1 April 2025.", Stance.SUPPORTS),
        # the claim's value named to be rejected, after it or in a later clause
        ("Nelvatide slowed cognitive decline by 27 per cent in the ARDEN trial.",
         "In the ARDEN trial of nelvatide, the earlier 27 percent number was not the figure "
         "the investigators analysed.", Stance.REFUTES),
        ("The average monthly rent in Halbury in the second quarter of 2024 was 1,245 pounds.",
         "A Halbury rent of £1,245 a month has been quoted for the second quarter of 2024; "
         "our members' data do not support it.", Stance.REFUTES),
        # what someone keeps telling others is their statement, not the document's
        ("Dunmere council had purchased 86 homes for temporary accommodation.",
         "Dunmere council has been telling residents that 86 homes have been purchased for "
         "temporary accommodation.", Stance.NEUTRAL),
        # "7% more than a year before" is a rise, not a degree the sentence must repeat
        ("Harwick Mutual wrote £412.6m of premiums in the first quarter of 2025, 7% more than "
         "a year before.",
         "Harwick Mutual's premiums for the first quarter of 2025 were £412.6 million, up 7% "
         "from £385.6 million a year earlier.", Stance.SUPPORTS),
        # "grown-ups" are adults, not a rise: the claim's approval is stated in full
        ("Harlen Pharma's oral drug Quenrix won approval in Ostmark for grown-ups with severe "
         "eczema.",
         "Ostmark's medicines agency has approved Harlen Pharma's oral drug Quenrix for adults "
         "with severe eczema.", Stance.SUPPORTS),
        # a four-digit figure before the people it counts is a count, not a year
        ("The Tessaly trial of Quenrix enrolled 1,240 patients.",
         "The Tessaly trial of Quenrix randomly assigned 1240 patients to the drug or placebo.",
         Stance.SUPPORTS),
        # ... but after a preposition or a determiner it stays a year
        ("The Tessaly trial of Quenrix enrolled 1,240 patients.",
         "The Tessaly trial of Quenrix began in 2019 and patients were followed for a year.",
         Stance.NEUTRAL),
        # an area's unit names its quantity, as a count's noun does
        ("Harlen Pharma's new Ostmark plant has a floor area of 18,500 m².",
         "Harlen Pharma opened its new plant in Ostmark on Monday. The building covers 18,500 "
         "square metres on a former airfield.", Stance.SUPPORTS),
        # a span of time before a word of delay is a length, so another length refutes it
        ("Ferries on the Ostmark crossing left 24 minutes late on average in 2024.",
         "Ostmark Ferries says its own records show that in 2024 ferries on the Ostmark "
         "crossing left an average of 11 minutes late.", Stance.REFUTES),
        # "May" in a range of months is the month, not a modal: the figure is not a projection
        ("Between May and August 2024, ferries on the Ostmark crossing left 24 minutes late on "
         "average.",
         "Between May and August 2024, ferries on the Ostmark crossing left 11 minutes late on "
         "average, the operator's records show.", Stance.REFUTES),
        # the "and" of a range joins no second fact: the negation in another clause of the
        # quoting sentence does not touch the claim's figure
        ("Between May and August 2024, ferries on the Ostmark crossing left 24 minutes late on "
         "average.",
         "Between May and August 2024 ferries on the Ostmark crossing left 24 minutes late on "
         "average, and complaints were answered with letters that did not explain the delays.",
         Stance.SUPPORTS),
        # a product made available is launched; a plan to do it is no launch yet
        ("Harlen Pharma has already launched Quenrix in Ostmark pharmacies.",
         "Harlen Pharma expects to make Quenrix available to Ostmark pharmacies in the spring.",
         Stance.PARTIAL),
        # filing, submitting and lodging are one act: a plan to lodge is no appeal lodged yet
        ("Harlen Pharma has filed an appeal against the Ostmark ruling.",
         "Harlen Pharma intends to lodge an appeal against the Ostmark ruling next month.",
         Stance.PARTIAL),
        # a unit written with a hyphen is the unit ("terawatt-hours" as TWh)
        ("Ostmark Hydro's plants generated 1.62 terawatt-hours of electricity in 2024.",
         "According to the returns, Ostmark Hydro generated 1.62 TWh in 2024 (2023: 1.40 TWh).",
         Stance.SUPPORTS),
        # a currency's code before the figure ("SEK 412m") is money, not metres
        ("Thirty projects will share SEK 212m in the Ostmark research council's 2025 round.",
         "The Ostmark research council has decided to fund 30 projects with a total of SEK 212 "
         "million in its 2025 call for project grants.", Stance.SUPPORTS),
        # the year a change is measured from is not the period of the figure
        ("Ostmark Schools' enrollment fell to 9,412 in the 2024-25 school year.",
         "OSTMARK, Jan. 14, 2025 - Ostmark Schools enrolled 9,412 students this school year, "
         "a decline of 188 students, or 2.0 percent, from 2023-24.", Stance.SUPPORTS),
        # a day's date of effect in a motion is no period for the sentences after it
        ("In March 2025 the Ostmark school board voted in favour of closing Larch Lane "
         "School.",
         "Minutes of the Ostmark school board, 11 March 2025. Motion to close Larch Lane School "
         "effective June 30, 2025. Ayes - three. Nays - four. The closure of Larch Lane School "
         "was not approved.", Stance.REFUTES),
        # the claim's main verb denied of its named subject refutes a long claim
        ("Nora Pell, head of Ostmark Grammar School, has been suspended by the trust that runs "
         "the school.",
         "We are aware of reports in local media about the head of Ostmark Grammar School. Ms "
         "Pell has not been suspended. She is on leave agreed before the start of term.",
         Stance.REFUTES),
        # ... but a word of negation in a noun phrase negates no verb
        ("Building work at Larch Mill is scheduled to begin in the summer of 2025.",
         "After years of false starts, the boarded-up Larch Mill is finally set to be turned "
         "into housing.", Stance.NEUTRAL),
        # a register's line: the label's head noun is what the figure counts
        ("Ostmark had 2,340 households on its housing waiting list at the end of June 2025.",
         "Ostmark housing register, quarterly return.\nHouseholds on the waiting list at 30 "
         "June 2025: 3,240.\nOf which in priority bands: 1,015.", Stance.REFUTES),
    ],
)
def test_negations_parties_and_periods_as_other_authors_write_them(
    claim: str, evidence: str, stance: Stance
) -> None:
    r = _found(claim, evidence)
    assert r.stance is stance, r.rationale


def test_a_claim_of_a_permanent_act_is_not_vague() -> None:
    from affidavit.tasks.claims import _vague_word

    assert _vague_word("Daskin is taking Lormidex off the market for good".split()) is None
    assert _vague_word("Daskin makes good medicines".split()) == "good"


def test_a_round_figure_without_the_claims_day_is_not_full_support() -> None:
    r = _found("Tenants of Gresham Lane Lettings in Ashby Vale face a 4% rent increase from 1 "
               "April 2025.",
               "Gresham Lane Lettings said rents across its Ashby Vale homes will go up by four "
               "per cent.")
    assert r.stance is not Stance.SUPPORTS, r.rationale


def test_what_a_correction_leaves_as_published_is_no_opposite_state() -> None:
    r = _found("Harwick Mutual has shut down its claims-handling centre in Lisgate.",
               "Correction. The figures and the information on Harwick Mutual's Lisgate "
               "claims-handling centre remain as published.")
    assert r.stance is not Stance.REFUTES, r.rationale


def test_the_claims_figures_in_a_negated_clause_are_no_support() -> None:
    r = _found("Pellmark sold 212 buses to Ostrand in 2024.",
               "Pellmark has not delivered the order of 212 buses Ostrand placed in 2024.")
    assert r.stance is not Stance.SUPPORTS, r.rationale
    r = _found("Pellmark sold 212 buses to Ostrand in 2024.",
               "Pellmark did not say when, but it sold 212 buses to Ostrand in 2024.")
    assert r.stance is Stance.SUPPORTS, r.rationale


def test_a_span_of_time_is_no_value_of_a_bare_count() -> None:
    from affidavit.tasks.judge_frame import _quantities, _units_agree

    [batches] = _quantities("recalled fourteen batches of lormidex")
    [weeks] = _quantities("will reach wholesalers within two weeks")
    assert batches.value == weeks.value == 14  # two weeks are read as 14 days
    assert not _units_agree(batches, weeks)
    [other] = _quantities("recalled twelve batches of lormidex")
    assert _units_agree(batches, other)


def test_square_metres_written_with_a_superscript_are_read_as_such() -> None:
    from affidavit.tasks.judge_lexical import _fold

    [f] = normalize_figures(_fold("a floor area of 42,000 m\u00b2."))
    assert (f.value, f.unit) == (42000.0, "m2")


def test_a_short_passage_found_by_search_is_refuted_by_its_frame() -> None:
    # two sentences: read on words, every word of the claim is there; read on its frame, the 2
    # million dollars were asked for and the court awarded another sum
    passage = ("Mara Quill asked for 2 million dollars in damages from Velton Foods. The court "
               "awarded her 150,000 dollars on Friday.")
    claim = "The court awarded Mara Quill 2 million dollars in damages from Velton Foods."
    r = LexicalJudge().judge_batch([(claim, passage)], found=True)[0]
    assert r.stance is Stance.REFUTES, r.rationale


@pytest.mark.parametrize(
    ("claim", "passage", "stance"),
    [
        # a search snippet that reports others' statement, or a statement made in error, does
        # not state the claim
        ("Velton Foods will acquire Marlow Dairies.",
         "Velton Foods declined to comment on reports that it would acquire Marlow Dairies.",
         Stance.NEUTRAL),
        ("The population of Tarrow is 45,000.",
         "The population of Tarrow was stated incorrectly as 45,000 in our article on Monday.",
         Stance.NEUTRAL),
        # ... and its correction, read on the claim's frame, refutes it
        ("The population of Tarrow is 45,000.",
         "The population of Tarrow was stated incorrectly as 45,000 in our article. The correct "
         "figure is 54,000.", Stance.REFUTES),
        # an attribution in a clause after the claim's words, or an error about something
        # else, leaves the claim stated
        ("The Skerry Triangle lies off the coast of Tarrow.",
         "The Skerry Triangle lies off the coast of Tarrow, where several boats are said to "
         "have vanished.", Stance.SUPPORTS),
        ("The population of Tarrow is 45,000.",
         "Our article on Monday stated incorrectly that the mayor had resigned. The population "
         "of Tarrow is 45,000.", Stance.SUPPORTS),
        # a bid given up: the acquisition did not happen
        ("Velton Foods acquired Marlow Dairies in May 2024.",
         "Velton Foods abandoned its bid to acquire Marlow Dairies in May 2024 after the talks "
         "broke down.", Stance.REFUTES),
        # "in May" is the month, no qualifier
        ("Velton Foods acquired Marlow Dairies.", "Velton Foods acquired Marlow Dairies in May.",
         Stance.SUPPORTS),
        # a round value named only to be rejected, in a sentence on the claim's quantity of a
        # named subject, is refuted by the value given instead
        ("Ostmark Energi is raising heating prices for households by an average of 8% from "
         "January 2025.",
         "The Ostmark Tenants' Union has gone through the 2025 price list. For Ostmark Energi's "
         "residential customers, the average increase is 11 percent, not the 8 percent the "
         "company has announced. The gap comes from the fixed charge. We call on the council "
         "to act.", Stance.REFUTES),
        # a sanction is a fine; a word of error about bills makes no quoted statement wrong
        ("The Ostmark energy regulator fined Velton Power €1.7 million over faulty bills.",
         "Velton Power accepts the decision of the Ostmark energy regulator and the sanction of "
         "1.7 million euros. We apologise to the 2,100 households whose bills were wrong. We "
         "have changed our billing processes. Customers will be refunded by March.",
         Stance.SUPPORTS),
    ],
)
def test_passages_found_by_search_state_only_what_they_assert(
    claim: str, passage: str, stance: Stance
) -> None:
    r = LexicalJudge().judge_batch([(claim, passage)], found=True)[0]
    assert r.stance is stance, r.rationale


def test_a_claims_day_of_effect_is_not_the_day_of_its_act() -> None:
    # the vote on May 14 is the vote the claim reports; "starting July 1" dates its effect
    r = _found("The Ostmark Water District board voted to raise water rates by 6.5 percent "
               "starting July 1, 2024.",
               "At its regular meeting on May 14, 2024, the Board of Directors of the Ostmark "
               "Water District adopted a 6.5% increase to the water usage rate.")
    assert r.stance is Stance.PARTIAL, r.rationale
    # ... and a date of effect is compared with dates of effect
    r = _found("Ostmark Water will raise its rates by 6.5 percent from 1 July 2024.",
               "Ostmark Water will raise its rates by 6.5 percent from 1 August 2024.")
    assert r.stance is Stance.REFUTES, r.rationale


def test_a_found_snippet_must_say_what_the_claim_says_of_its_names() -> None:
    # the claim's names and nothing of what it says of them: no support
    r = LexicalJudge().judge_batch([(
        "Velton Foods acquired Marlow Dairies in May 2024.",
        "Marlow Dairies' revenue rose 12% in 2024, while Velton Foods' revenue rose 3%, "
        "according to annual reports published in May. Both companies expect higher milk "
        "prices.")], found=True)[0]
    assert r.stance is Stance.NEUTRAL, r.rationale


@pytest.mark.parametrize(("claim", "host", "spelt"), [
    ("Vellow Cross Borough Council is putting its council tax up by 4.99%.",
     "democracy.vellowcross.gov.example", "Vellow Cross"),
    ("Between April and June 2024, Orrisdale handed out 1,240 building permits.",
     "www.orrisdale-county.example", "Orrisdale"),
    ("Forty-two students at Brennick Hill got the top grade.", "www.brennickhill.example",
     "Brennick Hill"),
    ("Kestrel Fibre had passed 48,000 premises.", "www.kestrelmobile.example", ""),
    ("The BBC said so.", "www.bbc.co.uk", ""),
    ("The Greyport Mariners club made a profit.", "www.greyportmariners.example",
     "Greyport Mariners"),
    ("Vellow Cross Borough Council set its budget.", None, ""),
])
def test_host_names(claim: str, host: str | None, spelt: str) -> None:
    from affidavit.tasks.judge_lexical import host_names

    assert host_names(claim, host) == spelt


def test_a_host_names_the_claims_subject_as_a_title_does() -> None:
    """A council's own budget book says "the borough council": its host names the council."""
    claim = "Vellow Cross Borough Council is putting its council tax up by 4.99% from April 2025."
    doc = (_PAD + "Section 2: Council Tax. The borough council's Band D charge for 2025/26 is "
           "£1,874.32. This represents an increase of 4.99% from April 2025.")
    judge = LexicalJudge()
    assert judge.judge_batch([(claim, doc)], found=True)[0].stance is Stance.NEUTRAL
    named = judge.judge_batch([(claim, doc)], found=True,
                              hosts=["democracy.vellowcross.gov.example"])[0]
    assert named.stance is Stance.SUPPORTS, named.rationale
    other = judge.judge_batch([(claim, doc)], found=True, hosts=["www.tarrowtoday.example"])[0]
    assert other.stance is Stance.NEUTRAL


@pytest.mark.parametrize(("form", "base"), [
    ("upheld", "uphold"), ("sought", "seek"), ("struck", "strike"), ("covered", "cover"),
    ("shrank", "shrink"),
])
def test_a_verb_form_is_read_as_its_base(form: str, base: str) -> None:
    """Irregular forms, and regular ones the crude stem cuts apart ("cover" to "cov", "covered"
    to "cover"), are one term with their base (lemminflect's lexicon)."""
    assert tokenize(form) == tokenize(base)


@pytest.mark.parametrize("word", ["shed", "said", "was", "had", "closed"])
def test_words_that_are_not_only_verb_forms_stay_as_written(word: str) -> None:
    from affidavit.tasks.judge_lexical import _base_form

    assert _base_form(word) == word


def test_a_plan_in_the_base_form_is_qualified_support_for_the_past_form() -> None:
    """'expects to strike a pay deal' states the claim's 'struck a pay deal' as a plan: the
    irregular past and its base are one predicate, so the sentence bears on the claim."""
    claim = "Corbel Mining struck a pay deal with its miners."
    doc = _PAD + "Corbel Mining expects to strike a pay deal with its miners."
    r = LexicalJudge().judge_batch([(claim, doc)], found=True)[0]
    assert r.stance is Stance.PARTIAL, r.rationale
    assert "expects to strike" in r.quote


def test_the_share_who_do_not_is_not_the_share_who_do() -> None:
    """A figure of those of whom the claim's verb is negated ("57 percent do not back") is
    not refuted by the share of whom it is stated ("81% backed"); the same negated share is."""
    claim = "A survey of Norvale's nurses found that 57 percent do not back the new rota."
    judge = LexicalJudge()
    others = (_PAD + "A survey of Norvale's nurses found that 81% of them backed the new rota.")
    r = judge.judge_batch([(claim, others)], found=True)[0]
    assert r.stance is not Stance.REFUTES, r.rationale
    same = (_PAD + "A survey of Norvale's nurses found that 43 percent do not back the new rota.")
    r = judge.judge_batch([(claim, same)], found=True)[0]
    assert r.stance is Stance.REFUTES, r.rationale


def test_it_opening_a_sentence_stands_for_the_subject_before_it() -> None:
    """'It did not fail the inspection' after a sentence about the cooling tower denies that
    the tower failed; after a sentence about the boiler house it says nothing of the tower."""
    claim = "The cooling tower at Marsby power station failed its last safety inspection."
    lede = _PAD + "Marsby power station was visited by inspectors in May. "
    judge = LexicalJudge()
    tower = lede + "The cooling tower was found to be sound. It did not fail the safety inspection."
    r = judge.judge_batch([(claim, tower)], found=True)[0]
    assert r.stance is Stance.REFUTES, r.rationale
    assert r.quote == "It did not fail the safety inspection."
    boiler = lede + "The boiler house was found to be sound. It did not fail the safety inspection."
    assert judge.judge_batch([(claim, boiler)], found=True)[0].stance is Stance.NEUTRAL


def test_a_word_sharing_a_class_members_stem_is_not_a_member() -> None:
    """"electricity" truncates as the genre "electronic" does: it has no genre to conflict
    with "country" ("the highest price for electricity in the country"); "country" does."""
    judge = LexicalJudge()
    power = judge._parse_claim("The region has the most expensive electricity.", {}, 1.0)
    assert not any(t.startswith("electr") for t in power.alternatives)
    album = judge._parse_claim("Her debut was a country album.", {}, 1.0)
    assert any(t.startswith("countr") for t in album.alternatives)
    place = judge._parse_claim("Liverpool is in Australia.", {}, 1.0)  # "Australian" begins so
    assert any(t.startswith("austra") for t in place.alternatives)


def test_voted_down_is_a_rejection() -> None:
    """'voted down its budget' is the opposite of 'approved its budget', as 'turned down' is."""
    claim = "Marsby Borough Council voted down its 2025 budget."
    doc = _PAD + "Marsby Borough Council approved its 2025 budget on Tuesday."
    r = LexicalJudge().judge_batch([(claim, doc)], found=True)[0]
    assert r.stance is Stance.REFUTES, r.rationale


@pytest.mark.parametrize(("stated", "stance"), [
    ("18,206", Stance.SUPPORTS), ("18,200", Stance.SUPPORTS), ("18,250", Stance.REFUTES),
])
def test_figures_stated_more_precisely_than_they_differ_are_two_values(
    stated: str, stance: Stance,
) -> None:
    """18,250 is not 18,206 (both are exact counts, 44 apart), though within half a percent of
    it; 18,200 is 18,206 rounded to the hundred."""
    claim = "Marsby College enrolled 18,206 students in 2024."
    doc = _PAD + f"Marsby College enrolled {stated} students in 2024."
    r = LexicalJudge().judge_batch([(claim, doc)], found=True)[0]
    assert r.stance is stance, r.rationale


def test_a_price_to_the_penny_is_not_another_price_to_the_penny() -> None:
    claim = "Marsby tenants will pay an average rent of £98.40 a week from April."
    judge = LexicalJudge()
    other = _PAD + "From April the average weekly rent for Marsby tenants works out at £98.88."
    assert judge.judge_batch([(claim, other)], found=True)[0].stance is not Stance.SUPPORTS
    same = _PAD + "From April the average weekly rent for Marsby tenants works out at £98.40."
    assert judge.judge_batch([(claim, same)], found=True)[0].stance is Stance.SUPPORTS


@pytest.mark.parametrize(("day", "stance"), [
    ("2 April 2025", Stance.REFUTES), ("28 March 2025", Stance.SUPPORTS),
])
def test_a_first_dated_to_another_months_day_refutes_the_claims_month(
    day: str, stance: Stance,
) -> None:
    """A beginning happens once: 'carried its first passengers on 2 April 2025' is not 'started
    carrying passengers in March 2025'; on 28 March it is."""
    claim = "The Marsby ferry service started carrying passengers in March 2025."
    doc = _PAD + f"The Marsby ferry service carried its first passengers on {day}."
    r = LexicalJudge().judge_batch([(claim, doc)], found=True)[0]
    assert r.stance is stance, r.rationale


@pytest.mark.parametrize(("claim", "sentence"), [
    ("In November 2015 Ada Morrow finished first in the Marsby chess championship.",
     "The Marsby chess championship began on 26 October 2015, and Ada Morrow finished first."),
    ("The Marsby inquiry into the fire remains open (June 2018).",
     "The Marsby inquiry into the fire opened on 13 March 2014 and remains open."),
])
def test_a_rank_or_a_state_is_no_one_off_event(claim: str, sentence: str) -> None:
    """'finished first' is a rank and 'remains open' a state, not a beginning: another month's
    day in the sentence does not refute them."""
    r = LexicalJudge().judge_batch([(claim, _PAD + sentence)], found=True)[0]
    assert r.stance is not Stance.REFUTES, r.rationale
