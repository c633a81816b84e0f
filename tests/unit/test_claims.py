"""Tests of tasks.claims: extraction, decomposition, researchable gate, volatility, files, rows."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from affidavit.schemas.claims import CLAIMS_SCHEMA, make_claim_id
from affidavit.schemas.enums import Volatility
from affidavit.tasks.claims import (
    FAST,
    IMMUTABLE,
    SLOW,
    ClaimCandidate,
    build_claim_rows,
    classify_volatility,
    decompose_claim,
    expires_at,
    extract_claims,
    gate_researchable,
    read_claims_file,
    score_check_worthiness,
    split_sentences,
    unreadable_scripts,
)
from affidavit.tasks.judge_lexical import tokenize

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
NOW = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)

# --------------------------------------------------------------------------------------------
# Decomposition: the examples first, then twenty of our own.
# --------------------------------------------------------------------------------------------

DECOMPOSITION_CASES = [
    # issue: a comparison request stays one claim, predicate kept
    ("Compare Rust and Go for backend services", ["Compare Rust and Go for backend services"]),
    # issue: a choice question becomes one sub-question per alternative, each with the predicate
    (
        "Which is faster for web servers, Rust or Go?",
        ["Is Rust faster for web servers?", "Is Go faster for web servers?"],
    ),
    # 1
    (
        "Rust or Go: which is faster for web servers?",
        ["Is Rust faster for web servers?", "Is Go faster for web servers?"],
    ),
    # 2
    (
        "Is Rust or Go faster for web servers?",
        ["Is Rust faster for web servers?", "Is Go faster for web servers?"],
    ),
    # 3 three alternatives
    (
        "Which language uses less memory, Rust, Go or Java?",
        ["Does Rust use less memory?", "Does Go use less memory?", "Does Java use less memory?"],
    ),
    # 4 "has" frame
    (
        "Which has more users: Android or iOS?",
        ["Does Android have more users?", "Does iOS have more users?"],
    ),
    # 5 noun after "which"
    (
        "Which country has the larger population, India or China?",
        ["Does India have the larger population?", "Does China have the larger population?"],
    ),
    # 6 past tense auxiliary
    (
        "Which was founded earlier, Harvard or Yale?",
        ["Was Harvard founded earlier?", "Was Yale founded earlier?"],
    ),
    # 7 past tense verb without auxiliary
    (
        "Which reached orbit first, the USSR or the USA?",
        [
            "Is it true that the USSR reached orbit first?",
            "Is it true that the USA reached orbit first?",
        ],
    ),
    # 8 "which of these"
    (
        "Which of these is older, the Colosseum or the Parthenon?",
        ["Is the Colosseum older?", "Is the Parthenon older?"],
    ),
    # 9 plural "are" becomes "is" for each alternative
    (
        "Which are cheaper to run per mile, electric cars or diesel cars?",
        ["Is electric cars cheaper to run per mile?", "Is diesel cars cheaper to run per mile?"],
    ),
    # 10 two questions split, each kept whole
    (
        "Who won the 2018 World Cup? And who scored the final goal?",
        ["Who won the 2018 World Cup?", "Who scored the final goal?"],
    ),
    # 11 a plain factual claim stays whole
    (
        "The Eiffel Tower is 330 metres tall.",
        ["The Eiffel Tower is 330 metres tall."],
    ),
    # 12 a conjunction inside a predicate is never split
    (
        "Apple and Google reported record profits in 2021",
        ["Apple and Google reported record profits in 2021"],
    ),
    # 13 an "or" of predicates (not of subjects before a comparative) stays whole
    ("Is the vaccine safe or dangerous?", ["Is the vaccine safe or dangerous?"]),
    # 14 semicolon-joined independent clauses split
    (
        "Paris is the capital of France; Berlin is the capital of Germany.",
        ["Paris is the capital of France", "Berlin is the capital of Germany"],
    ),
    # 15 semicolon before a fragment does not split
    (
        "The report lists three causes; drought, war and inflation.",
        ["The report lists three causes; drought, war and inflation."],
    ),
    # 16 "versus" comparison stays one claim
    (
        "PostgreSQL versus MySQL for analytics workloads",
        ["PostgreSQL versus MySQL for analytics workloads"],
    ),
    # 17 a wh-question without alternatives stays whole
    ("What is the capital of Australia?", ["What is the capital of Australia?"]),
    # 18 duplicate questions collapse
    (
        "Is coffee bad for the heart? Is coffee bad for the heart?",
        ["Is coffee bad for the heart?"],
    ),
    # 19 "or" inside the predicate, alternatives as subjects with a comparative
    (
        "Are cats or dogs more popular as pets in Japan?",
        ["Is cats more popular as pets in Japan?", "Is dogs more popular as pets in Japan?"],
    ),
    # 21 a statement with a rhetorical question inside is not split (AVeriTeC-style quote)
    (
        'Trump said "I took on Big Pharma. You think that is easy? I signed orders."',
        ['Trump said "I took on Big Pharma. You think that is easy? I signed orders."'],
    ),
    # 22 a clause leaning on the one before (pronoun) is not split off
    (
        "Jim Hansen had several possible scenarios; his mid-level scenario B was right.",
        ["Jim Hansen had several possible scenarios; his mid-level scenario B was right."],
    ),
    # 23 a closing quote after the question mark is not a question of its own
    (
        "If warming caused the 2014 heat wave, why was it milder than in 1972?”",
        ["If warming caused the 2014 heat wave, why was it milder than in 1972?”"],
    ),
    # 24 "vs" alternatives before the question
    (
        "Rust vs Go: which is faster for web servers?",
        ["Is Rust faster for web servers?", "Is Go faster for web servers?"],
    ),
    # 20 predicate with a place and a time, all carried
    (
        "Which city was hotter in July 2023, Phoenix or Las Vegas?",
        ["Was Phoenix hotter in July 2023?", "Was Las Vegas hotter in July 2023?"],
    ),
]


@pytest.mark.parametrize(("text", "expected"), DECOMPOSITION_CASES)
def test_decompose_claim(text: str, expected: list[str]) -> None:
    assert decompose_claim(text) == expected


def test_decompose_keeps_predicate_in_every_part() -> None:
    parts = decompose_claim("Which is faster for web servers, Rust or Go?")
    assert len(parts) == 2
    assert all("for web servers" in p for p in parts)


def test_decompose_max_parts() -> None:
    parts = decompose_claim("Which uses less memory, Rust, Go or Java?", max_parts=2)
    assert parts == ["Does Rust use less memory?", "Does Go use less memory?"]
    with pytest.raises(ValueError, match="max_parts"):
        decompose_claim("x", max_parts=0)


# --------------------------------------------------------------------------------------------
# Researchable gate: the vague words, then twenty of our own.
# --------------------------------------------------------------------------------------------

RESEARCHABLE_CASES = [
    # issue: vague words without a falsifiable form
    ("Python is the best programming language", False, "vague: best"),
    ("Rust is a good language", False, "vague: good"),
    ("Rust is better than Go", False, "vague: better"),
    ("Clean water is important", False, "vague: important"),
    ("Exercise has a significant effect on mood", False, "vague: significant"),
    # issue: the same words with a falsifiable form pass, and the reason says which form
    (
        "Python was ranked the best language in the TIOBE index",
        True,
        "falsifiable: named_ranking_or_study",
    ),
    (
        "The effect on blood pressure was statistically significant",
        True,
        "falsifiable: named_ranking_or_study",
    ),
    # 1 a figure rescues a vague word
    ("The best CEO of the year earned $300 million", True, "falsifiable: figure"),
    # 2 attribution rescues a vague word
    ("The minister said the harvest was good", True, "falsifiable: attribution"),
    # 3 measurable comparison rescues a vague word
    (
        "Go is a good choice because it compiles faster than C++",
        True,
        "falsifiable: measurable_comparison",
    ),
    # 4 plain factual claims pass
    ("The Eiffel Tower is 330 metres tall", True, "falsifiable"),
    # 5
    ("Global warming is driving polar bears toward extinction", True, "falsifiable"),
    # 6 a measurable comparative question passes
    ("Is Rust faster for web servers?", True, "falsifiable"),
    # 7 a research request with no vague word passes
    ("Compare Rust and Go for backend services", True, "falsifiable"),
    # 8 opinion marker
    ("I think the economy is doing well", False, "opinion: i think"),
    # 9 opinion marker, other form
    ("In my opinion the film was too long", False, "opinion: in my opinion"),
    # 10 normative
    ("The government should raise taxes on sugar", False, "normative: should"),
    # 11 normative but attributed: the statement itself is checkable
    ("The WHO said countries should ban trans fats", True, "falsifiable"),
    # 12 speculative without figure or attribution
    ("Aliens might have visited Earth", False, "speculative: might"),
    # 13 "reportedly" is attribution-like, not speculation
    ("The company reportedly laid off staff in Berlin", True, "falsifiable"),
    # 14 too short
    ("Good", False, "too_short"),
    # 15 too short after stop words
    ("This is it", False, "too_short"),
    # 16 empty
    ("", False, "too_short"),
    # 17 evaluative word alone
    ("The new iPhone is amazing", False, "vague: amazing"),
    # 18 evaluative genius
    ("Einstein was a genius", False, "vague: genius"),
    # 19 "safe" names a measured property, not a vague word
    ("The measles vaccine is safe for children", True, "falsifiable"),
    # 20 superlative of a measurable property
    ("Tokyo is the most populous city in the world", True, "falsifiable"),
    # 21 a hedge inside a subordinate clause does not make the claim speculative
    (
        "Sea level rise, which began before humans could be blamed, has not accelerated",
        True,
        "falsifiable",
    ),
    # 22 a capitalised vague word inside a name is not vague
    ("The Great Barrier Reef is bleaching across two thirds of its length", True, "falsifiable"),
    # 23 "polls show" names the evidence
    (
        "Polls show Sanders would do better than Clinton against Trump",
        True,
        "falsifiable: named_ranking_or_study",
    ),
    # 24 a vague adverb on a measurable change
    (
        "Trade with Africa declined significantly under Trump",
        True,
        "falsifiable: measurable_change",
    ),
    # 25 "needs to" describing a mechanism is not normative
    ("Coal power needs to stay on standby when there is no wind", True, "falsifiable"),
]


@pytest.mark.parametrize(("text", "passed", "reason"), RESEARCHABLE_CASES)
def test_gate_researchable(text: str, passed: bool, reason: str) -> None:
    assert gate_researchable(text) == (passed, reason)


@pytest.mark.parametrize(
    ("text", "scripts"),
    [
        ("中国是世界上人口最多的国家。", ("Han",)),
        ("Москва — столица России с 1918 года.", ("Cyrillic",)),
        ("القاهرة هي عاصمة مصر", ("Arabic",)),
        ("Η Αθήνα είναι η πρωτεύουσα της Ελλάδας", ("Greek",)),
        ("서울은 한국의 수도이다", ("Hangul",)),
        # a word the lexical judge reads, or no letters at all: nothing to say
        ("特斯拉 Tesla 2023年销量为180万辆", ()),
        ("Le café coûte 2 euros à Paris", ()),
        ("1889", ()),
        ("", ()),
    ],
)
def test_unreadable_scripts_follows_what_the_lexical_judge_reads(
        text: str, scripts: tuple[str, ...]) -> None:
    assert unreadable_scripts(text) == scripts
    if scripts:
        assert [t for t in tokenize(text) if not t.startswith("#")] == []


def test_gate_says_a_claim_has_no_readable_words() -> None:
    assert gate_researchable("Москва — столица России с 1918 года.") == (
        False, "no_readable_words: Cyrillic script")
    assert gate_researchable("東京は日本の首都です") == (
        False, "no_readable_words: Han, Japanese kana scripts")
    assert gate_researchable("1889") == (False, "too_short")  # no letters: short, not unread


# --------------------------------------------------------------------------------------------
# Volatility: the design's classes, then twenty of our own.
# --------------------------------------------------------------------------------------------

F, S, IM = Volatility.FAST, Volatility.SLOW, Volatility.IMMUTABLE
VOLATILITY_CASES = [
    # design: prices, polls, counts "as of", current office holders → fast
    ("Bitcoin is trading at $64,000", F),
    ("Biden leads Trump by 3 points in the latest poll", F),
    ("As of March 2024, the city has 2.1 million residents", F),
    ("Joe Biden is the president of the United States", F),
    # design: births, foundings, constants, dated publications → immutable
    ("Barack Obama was born in Honolulu in 1961", IM),
    ("Apple was founded in 1976 by Steve Jobs and Steve Wozniak", IM),
    ("The speed of light is 299,792,458 metres per second", IM),
    ("The paper was published in Nature in 1953", IM),
    # design: otherwise slow
    ("Coffee reduces the risk of type 2 diabetes", S),
    # 1
    ("The current CEO of Twitter is Linda Yaccarino", F),
    # 2
    ("Gas prices are above $4 a gallon in California", F),
    # 3
    ("The COVID-19 death toll in Brazil has passed 600,000", F),
    # 4
    ("Elon Musk is the richest person in the world", F),
    # 5
    ("Mr. Smith serves as mayor of Springfield", F),
    # 6 a price on a past date is a record
    ("The share price closed at $150 on March 3, 2021", IM),
    # 7
    ("Apollo 11 landed on the Moon in July 1969", IM),
    # 8
    ("Germany won the 2014 World Cup", IM),
    # 9
    ("The Treaty of Versailles was signed in 1919", IM),
    # 10
    ("Water boils at 100 degrees Celsius at sea level", IM),
    # 11
    ("Mozart died in Vienna in 1791", IM),
    # 12 a dated statistic can be revised → slow
    ("Unemployment rose to 5% in 2019", S),
    # 13
    ("The Amazon rainforest produces 20% of the world's oxygen", S),
    # 14
    ("Mount Everest is the tallest mountain on Earth", S),
    # 15 undated authorship stays slow (no explicit date)
    ("Shakespeare wrote Hamlet", S),
    # 16
    ("Global temperatures have risen by 1.1C since pre-industrial times", S),
    # 17
    ("The population of Tokyo is 14 million", S),
    # 18
    ("Vitamin C prevents the common cold", S),
    # 19 a count "so far"
    ("So far 12 people have been rescued from the building", F),
    # 20 subscribers are a running count
    ("The channel has 10 million subscribers", F),
    # 21 "so far as" is not "so far"
    ("Few papers go so far as to call the warming anthropogenic", S),
    # 22 "pollutant" is not a poll
    ("Carbon dioxide is not a pollutant", S),
    # 23 a year opening an ongoing period is not a dated event
    ("Temperatures rose 0.5C since 1979", S),
    # 24 a poll on a past date is a record
    ("Kanye West was ahead of Biden in the Kentucky polls in October 2020", IM),
    # 25 a past price without a date
    ("There was a 40% drop in oil prices in Nigeria", S),
]


@pytest.mark.parametrize(("text", "expected"), VOLATILITY_CASES)
def test_classify_volatility(text: str, expected: Volatility) -> None:
    assert classify_volatility(text) is expected


@pytest.mark.parametrize(
    ("vol", "delta"),
    [
        (Volatility.FAST, timedelta(hours=24)),
        (Volatility.SLOW, timedelta(days=180)),
        (Volatility.IMMUTABLE, timedelta(days=5 * 365)),
    ],
)
def test_expires_at(vol: Volatility, delta: timedelta) -> None:
    assert expires_at(vol, NOW) - NOW == delta
    assert expires_at(vol.value, NOW) == expires_at(vol, NOW)  # type: ignore[arg-type]


def test_expires_at_constants_and_errors() -> None:
    assert (FAST, SLOW, IMMUTABLE) == (
        timedelta(hours=24),
        timedelta(days=180),
        timedelta(days=1825),
    )
    with pytest.raises(ValueError, match="timezone"):
        expires_at(Volatility.FAST, datetime(2026, 1, 1))
    with pytest.raises(ValueError, match="unknown volatility"):
        expires_at("weekly", NOW)  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# Sentence splitting, check-worthiness, extraction
# --------------------------------------------------------------------------------------------


def test_split_sentences_spans_and_abbreviations() -> None:
    text = "Dr. Smith joined Acme Inc. in 2019. Prices rose 5% in the U.S. last year!\nA headline"
    spans = split_sentences(text)
    assert [text[a:b] for a, b in spans] == [
        "Dr. Smith joined Acme Inc. in 2019.",
        "Prices rose 5% in the U.S. last year!",
        "A headline",
    ]


def test_split_sentences_decimal_and_initial() -> None:
    text = "Growth was 3.5 percent, J. Powell said. Markets fell."
    assert [text[a:b] for a, b in split_sentences(text)] == [
        "Growth was 3.5 percent, J. Powell said.",
        "Markets fell.",
    ]


@pytest.mark.parametrize(
    ("higher", "lower"),
    [
        (
            "Unemployment fell to 3.9% in April, the Labor Department said.",
            "Unemployment fell in April.",
        ),
        ("Netflix said it added 8.8 million subscribers.", "I think Netflix is the best service."),
        ("The Senate passed the bill 52 to 48 on Tuesday.", "Is this the end of the bill?"),
        ("Acme Corp reported revenue of $4.2 billion.", "Click here to read more."),
        ("NASA confirmed that the probe reached Mars in 2021.", "Breaking News Today"),
    ],
)
def test_score_check_worthiness_orders(higher: str, lower: str) -> None:
    assert score_check_worthiness(higher) > score_check_worthiness(lower)
    assert 0.0 <= score_check_worthiness(lower) <= 1.0


@pytest.mark.parametrize(
    "furniture",
    [
        "Click here to subscribe.",
        "Most read: City council approves new bus lanes.",
        "Photo: Reuters",
        "© 2024 Acme Corp. All rights reserved.",
        "Menu",
        "Related: Five things to know about the 2024 budget",
        "Last updated at 06:57 ET",
    ],
)
def test_page_furniture_scores_zero(furniture: str) -> None:
    assert score_check_worthiness(furniture) == 0.0


@pytest.mark.parametrize(
    "sentence",
    [
        "Next year, the company plans to hire 500 workers in Ohio.",
        "Previous studies showed a 10% rise in asthma cases in Ohio.",
        "Subscribers rose 10% to 2 million, Netflix said.",
        "Home prices in Denver fell 4% in 2023, Zillow said.",
    ],
)
def test_sentences_opening_with_navigation_words_are_kept(sentence: str) -> None:
    assert score_check_worthiness(sentence) >= 0.5


def test_extract_claims_skips_boilerplate_questions_headlines() -> None:
    text = (
        "Skip to content\n"
        "Markets Rally On Fed News\n"
        "Click here to subscribe.\n"
        "Is this the end of cheap money?\n"
        "I think this is the best magazine ever.\n"
        "The Federal Reserve raised interest rates by 0.25 percentage points on Wednesday, "
        "Chair Jerome Powell said.\n"
        "Read more\n"
        "Netflix said it added 8.8 million subscribers in the fourth quarter."
    )
    claims = extract_claims(text)
    assert [c.text for c in claims] == [
        "The Federal Reserve raised interest rates by 0.25 percentage points on Wednesday, "
        "Chair Jerome Powell said.",
        "Netflix said it added 8.8 million subscribers in the fourth quarter.",
    ]
    for c in claims:
        assert text[c.span_start : c.span_end] == c.text
        assert 0.0 < c.check_worthiness <= 1.0


def test_extract_claims_max_and_floor() -> None:
    text = (
        "The company sold 3 million phones in 2023, Reuters reported. "
        "Sales were up. "
        "Apple said revenue rose 8% to $90 billion in the quarter."
    )
    all_claims = extract_claims(text, min_worthiness=0.0)
    top = extract_claims(text, min_worthiness=0.0, max_claims=1)
    assert len(top) == 1
    assert top[0].check_worthiness == max(c.check_worthiness for c in all_claims)
    kept = extract_claims(text, max_claims=2)
    assert [c.span_start for c in kept] == sorted(c.span_start for c in kept)  # text order
    with pytest.raises(ValueError, match="min_worthiness"):
        extract_claims(text, min_worthiness=1.5)


def test_extract_claims_strips_line_markers() -> None:
    text = (
        "# Kate Winslet married her partner in a private ceremony in New York\n"
        "- Apple sold 3 million phones in 2023."
    )
    claims = extract_claims(text)
    assert [c.text for c in claims] == [
        "Kate Winslet married her partner in a private ceremony in New York",
        "Apple sold 3 million phones in 2023.",
    ]
    assert [text[c.span_start : c.span_end] for c in claims] == [c.text for c in claims]


def test_extract_claims_dedupes_repeated_sentence() -> None:
    s = "Acme Corp said it hired 500 engineers in Berlin in 2024."
    claims = extract_claims(f"{s}\n{s}")
    assert len(claims) == 1
    assert claims[0].span_start == 0


@pytest.mark.shared_data
def test_extract_claims_on_reuters() -> None:
    path = SHARED / "corpora" / "reuters21578.jsonl"
    if not path.exists():
        pytest.skip(f"{path} not present (../shared/data beside the repository)")
    n_docs = n_claims = 0
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            text = doc.get("text") or ""
            claims = extract_claims(text)
            for c in claims:
                assert text[c.span_start : c.span_end].split() == c.text.split()
                assert not c.text.endswith("?")
            n_docs += 1
            n_claims += len(claims)
            if n_docs == 200:
                break
    # Wire stories are dense with figures and attributions: most yield claims.
    assert n_claims / n_docs > 2


# --------------------------------------------------------------------------------------------
# Claims files
# --------------------------------------------------------------------------------------------


def test_read_jsonl_autodetect_and_bad_lines(tmp_path: Path) -> None:
    p = tmp_path / "claims.jsonl"
    p.write_text(
        '{"claim_id": "7", "claim": "The sky is blue", "claim_label": "SUPPORTS"}\n'
        "{not json}\n"
        "\n"
        '{"claim_id": "8", "claim": "   "}\n'
        '{"claim_id": "9"}\n'
        '["a list"]\n'
        '{"claim_id": 10, "claim": "Water  boils\\nat 100C", "claim_label": null}\n',
        encoding="utf-8",
    )
    rows, skips, messages = read_claims_file(p)
    assert rows == [
        {"text": "The sky is blue", "external_id": "7", "external_label": "SUPPORTS"},
        {"text": "Water boils at 100C", "external_id": "10", "external_label": None},
    ]
    assert skips == Counter({"bad_json": 1, "empty_text": 1, "missing_text": 1, "not_an_object": 1})
    assert "claims read from column 'claim'" in messages[0]
    assert any("not JSON" in m for m in messages)


def test_read_csv_with_mapping_and_limit(tmp_path: Path) -> None:
    p = tmp_path / "c.csv"
    p.write_text(
        'uid,Statement,Rating\n1,"Says taxes rose, a lot",false\n2,Second claim here,true\n'
        "3,Third,true\n",
        encoding="utf-8",
    )
    rows, skips, _ = read_claims_file(p, id_column="uid", limit=2)
    assert [r["text"] for r in rows] == ["Says taxes rose, a lot", "Second claim here"]
    assert rows[0]["external_label"] == "false"
    assert not skips
    rows2, _, _ = read_claims_file(p, text_column="Statement", label_column="Rating")
    assert len(rows2) == 3
    assert rows2[2]["external_label"] == "true"


def test_read_csv_ragged_row_counted(tmp_path: Path) -> None:
    p = tmp_path / "c.csv"
    p.write_text("id,text\n1,ok claim here\n2,a,b,c\n", encoding="utf-8")
    rows, skips, _ = read_claims_file(p)
    assert len(rows) == 1
    assert skips["bad_csv_row"] == 1


def test_read_csv_unclosed_quote_is_counted_not_merged(tmp_path: Path) -> None:
    p = tmp_path / "c.csv"
    p.write_text('claim,id\nThe bridge opened in 2023.,1\n"unterminated quote, 2\n'
                 'The bridge opened in 2024.,3\n', encoding="utf-8")
    rows, skips, notes = read_claims_file(p)
    assert [r["text"] for r in rows] == ["The bridge opened in 2023."]
    assert skips["bad_csv_row"] == 2  # the two lines the open quote swallowed, each counted
    assert f"{p}: line 3: a quote is never closed; lines 3-4 (2) skipped" in notes


def test_read_csv_unclosed_quote_on_the_last_line_names_one_line(tmp_path: Path) -> None:
    p = tmp_path / "c.csv"
    p.write_text('claim\nThe bridge opened in 2023.\n"unterminated\n', encoding="utf-8")
    rows, skips, notes = read_claims_file(p)
    assert [r["text"] for r in rows] == ["The bridge opened in 2023."]
    assert skips["bad_csv_row"] == 1
    assert f"{p}: line 3: a quote is never closed; line 3 skipped" in notes


def test_read_json_object_of_records(tmp_path: Path) -> None:
    p = tmp_path / "c.json"
    p.write_text(json.dumps({"a1": {"statement": "X is Y"}, "a2": {"statement": "Z is W"}}))
    rows, _, _ = read_claims_file(p)
    assert rows == [
        {"text": "X is Y", "external_id": "a1", "external_label": None},
        {"text": "Z is W", "external_id": "a2", "external_label": None},
    ]


def test_a_nan_claim_text_is_a_missing_claim_and_a_nan_id_no_id(tmp_path: Path) -> None:
    # a NaN claim (pandas' missing value, JSON's NaN) was "claim is a number, not text"
    p = tmp_path / "claims.jsonl"
    p.write_text('{"claim": NaN, "id": "1"}\n'
                 '{"claim": "Exports rose 12 percent in 2023.", "id": NaN, "label": NaN}\n',
                 encoding="utf-8")
    rows, skips, messages = read_claims_file(p)
    assert rows == [{"text": "Exports rose 12 percent in 2023.", "external_id": None,
                     "external_label": None}]
    assert dict(skips) == {"empty_text": 1}
    assert f"{p}: line 1: no claim text (NaN, a missing value): skipped" in messages


def test_read_claims_file_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_claims_file(tmp_path / "missing.jsonl")
    bad = tmp_path / "c.xml"
    bad.write_text("<x/>")
    with pytest.raises(ValueError, match="unsupported"):
        read_claims_file(bad)


@pytest.mark.shared_data
def test_read_climate_fever() -> None:
    path = SHARED / "claims" / "climate-fever" / "dataset" / "climate-fever.jsonl"
    if not path.exists():
        pytest.skip(f"{path} not present (../shared/data beside the repository)")
    rows, skips, messages = read_claims_file(path)
    assert len(rows) == 1535
    # three claims hold C1 control characters (mojibake of the source): removed and counted
    assert skips == {"control_chars_removed": 3}
    assert rows[0]["text"] == "Global warming is driving polar bears toward extinction"
    assert rows[0]["external_label"] == "SUPPORTS"
    assert rows[0]["external_id"] == "0"
    assert "claims read from column 'claim'" in messages[0]


@pytest.mark.shared_data
def test_read_averitec_json_array() -> None:
    path = SHARED / "claims" / "averitec" / "data" / "dev.json"
    if not path.exists():
        pytest.skip(f"{path} not present (../shared/data beside the repository)")
    rows, skips, _ = read_claims_file(path, limit=50)
    assert len(rows) == 50
    assert not skips
    assert rows[0]["external_label"] == "Refuted"


# --------------------------------------------------------------------------------------------
# Rows
# --------------------------------------------------------------------------------------------


def test_build_claim_rows_match_schema() -> None:
    cand = ClaimCandidate("Apple was founded in 1976 by Steve Jobs.", 10, 50, 0.7)
    rows = build_claim_rows(
        [
            cand,
            "Which is faster for web servers, Rust or Go?",
            {"text": "Bitcoin is trading at $64,000", "external_id": "x1", "external_label": "T"},
            "  ",
            "apple was founded in 1976 by Steve Jobs",  # same claim_id as the candidate
        ],
        now=NOW,
        origin="text",
        source_doc_id="doc-1",
        decompose=True,
    )
    table = pa.Table.from_pylist(rows, schema=CLAIMS_SCHEMA)
    assert table.num_rows == 5  # 3 items + 2 sub-questions; blank and duplicate dropped
    assert set(rows[0]) == set(CLAIMS_SCHEMA.names)
    first = rows[0]
    assert first["claim_id"] == make_claim_id(cand.text)
    assert (first["span_start"], first["span_end"], first["check_worthiness"]) == (10, 50, 0.7)
    assert first["volatility"] == "immutable"
    assert first["source_doc_id"] == "doc-1"
    parent = rows[1]
    subs = [r for r in rows if r["parent_claim_id"] == parent["claim_id"]]
    assert [r["text"] for r in subs] == [
        "Is Rust faster for web servers?",
        "Is Go faster for web servers?",
    ]
    btc = rows[-1]
    assert btc["external_id"] == "x1"
    assert btc["volatility"] == "fast"
    assert btc["is_researchable"]


def test_build_claim_rows_rejected_keep_reason() -> None:
    rows = build_claim_rows(["Python is the best language"], now=NOW, origin="question")
    assert rows[0]["is_researchable"] is False
    assert rows[0]["researchable_reason"] == "vague: best"


def test_build_claim_rows_errors() -> None:
    with pytest.raises(ValueError, match="timezone"):
        build_claim_rows(["x y z"], now=datetime(2026, 1, 1), origin="text")
    with pytest.raises(ValueError, match="unsupported"):
        build_claim_rows([42], now=NOW, origin="text")  # type: ignore[list-item]


_TOKENS = [*"abcXYZ019 ,.;:?!\"'’”-\n#", "or ", "which ", "is ", "Is ", "vs ", "; it "]
_TEXTS = st.lists(st.sampled_from(_TOKENS), max_size=80).map("".join)


@settings(max_examples=150, deadline=None)
@given(text=_TEXTS)
def test_claim_functions_never_fail(text: str) -> None:
    parts = decompose_claim(text)
    assert parts
    assert all(isinstance(p, str) for p in parts)
    if text.strip():
        assert all(p.strip() for p in parts)
    ok, reason = gate_researchable(text)
    assert isinstance(ok, bool)
    assert reason
    assert classify_volatility(text) in set(Volatility)
    for c in extract_claims(text, min_worthiness=0.0):
        assert text[c.span_start : c.span_end].split() == c.text.split()
        assert 0.0 < c.check_worthiness <= 1.0


def test_a_passage_is_not_a_claim() -> None:
    sentence = "Northwind Robotics reported third-quarter 2025 revenue of 42 million dollars. "
    assert gate_researchable(sentence) == (True, "falsifiable")
    ok, reason = gate_researchable(sentence * 700)
    assert not ok
    assert reason.startswith("too_long: ")


def test_a_directory_is_not_a_claims_file(tmp_path) -> None:
    from affidavit.tasks.claims import read_claims_file

    folder = tmp_path / "claims.jsonl"
    folder.mkdir()
    with pytest.raises(ValueError, match="is a directory"):
        read_claims_file(folder)


def test_an_empty_claim_is_a_skip_with_a_note(tmp_path) -> None:
    from affidavit.tasks.claims import read_claims_file

    path = tmp_path / "claims.jsonl"
    path.write_text('{"claim": "The Orrin bridge opened in 2024."}\n{"claim": null}\n'
                    '{"claim": "   "}\n', encoding="utf-8")
    rows, skips, messages = read_claims_file(path)
    assert len(rows) == 1
    assert skips["empty_text"] == 2
    assert any("line 2: the claim is empty" in m for m in messages)
    assert any("line 3: the claim is empty" in m for m in messages)


def test_jsonl_notes_give_the_file_line_blank_lines_counted(tmp_path) -> None:
    from affidavit.tasks.claims import read_claims_file

    path = tmp_path / "claims.jsonl"
    path.write_text('{"claim": "The Orrin bridge opened in 2024."}\n\n\n'
                    '{"claim": "   "}\n\n{"claim": 7}\n', encoding="utf-8")
    rows, skips, messages = read_claims_file(path)
    assert len(rows) == 1
    assert skips["empty_text"] == 1
    assert skips["wrong_type"] == 1
    assert any("claims.jsonl: line 4: the claim is empty" in m for m in messages), messages
    assert any("claims.jsonl: line 6: claim is a number, not text" in m for m in messages), messages


def test_an_id_that_is_no_text_or_number_is_a_counted_skip(tmp_path) -> None:
    # an object, a list or a boolean id was stored as its JSON or Python text ('["x", 2]')
    from affidavit.tasks.claims import read_claims_file

    ids = [{"a": 1}, ["x", 2], True, 7, "b", None]
    path = tmp_path / "claims.jsonl"
    path.write_text("".join(json.dumps({"id": i, "claim": f"The Orrin bridge opened in {n}."})
                            + "\n" for n, i in enumerate(ids, 2000)), encoding="utf-8")
    rows, skips, messages = read_claims_file(path)
    assert [r["external_id"] for r in rows] == ["7", "b", None]
    assert skips == {"wrong_type": 3}
    for n, what in ((1, "an object"), (2, "a list"), (3, "a boolean")):
        assert f"{path}: line {n}: id is {what}, not text or a number: skipped" in messages


def test_a_record_without_the_text_column_is_a_skip_with_a_note_naming_its_keys(tmp_path):
    from affidavit.tasks.claims import read_claims_file

    path = tmp_path / "claims.jsonl"
    path.write_text('{"claim": "The Orrin bridge opened in 2024."}\n\n'
                    '{"text": "The Elm tunnel closed in 2019.", "id": "b"}\n', encoding="utf-8")
    rows, skips, messages = read_claims_file(path)
    assert [r["text"] for r in rows] == ["The Orrin bridge opened in 2024."]
    assert skips["missing_text"] == 1
    note = next(m for m in messages if "line 3" in m)
    assert "'claim'" in note
    assert "id, text" in note
    assert note.endswith("skipped")


def test_csv_and_json_notes_name_the_line_or_the_item(tmp_path) -> None:
    # a JSON list's element was "record N" here and "item N" in the dump notes and README
    from affidavit.tasks.claims import read_claims_file

    csv_path = tmp_path / "claims.csv"
    csv_path.write_text('claim,id\n"The Orrin bridge\nopened in 2024.",1\n"  ",2\n',
                        encoding="utf-8")
    _, _, messages = read_claims_file(csv_path)
    assert any("claims.csv: line 4: the claim is empty" in m for m in messages), messages
    json_path = tmp_path / "claims.json"
    json_path.write_text('[{"claim": "The Orrin bridge opened in 2024."}, {"claim": ""}]',
                         encoding="utf-8")
    _, _, messages = read_claims_file(json_path)
    assert any("claims.json: item 2: the claim is empty" in m for m in messages), messages


def test_hard_wrapped_sentences_are_extracted_whole():
    from affidavit.tasks.claims import extract_claims, split_sentences

    text = ("During a rally in Fort Worth, the mayor said port fees would rise\n"
            "by 12 percent in 2026, according to the city budget office.\n"
            "Harbor Budget Approved\n"
            "The council approved the budget on 3 March.\n\n"
            "reporters were not admitted.")
    pieces = [text[a:b] for a, b in split_sentences(text)]
    assert pieces == [
        "During a rally in Fort Worth, the mayor said port fees would rise\n"
        "by 12 percent in 2026, according to the city budget office.",
        "Harbor Budget Approved",  # a headline line stays apart
        "The council approved the budget on 3 March.",
        "reporters were not admitted.",  # a blank line is a paragraph break
    ]
    claims = [c.text for c in extract_claims(text)]
    assert ("During a rally in Fort Worth, the mayor said port fees would rise by 12 percent "
            "in 2026, according to the city budget office.") in claims
    assert not any(c.endswith("would rise") for c in claims)


def test_a_line_of_numbered_options_is_not_a_claim() -> None:
    # a survey's answer list read from a feed is not a statement of fact
    assert score_check_worthiness(
        "(1) Should unlock the iPhone (2) Should not unlock the iPhone (3)"
    ) == 0.0
    assert score_check_worthiness("1) Yes, it should 2) No, it should not 3) Not sure") == 0.0
    # a statement that lists its parts is still a claim
    assert score_check_worthiness(
        "The plan has two parts: (a) a tax cut of 5 percent and (b) a rebate of 200 dollars "
        "for families."
    ) > 0.3


@pytest.mark.parametrize("text", [
    "What should the council do?\n1. Build the bridge by 2027\n2. Repair the old bridge\n"
    "3. Do nothing until 2030",
    "What should the council do?\n1. Build the bridge by 2027.\n2. Repair the old bridge.\n"
    "3. Do nothing until 2030.",
    "Poll: which plan do you back?\na) Build the bridge by 2027\nb) A ferry line from 2026\n"
    "c) Nothing before 2030",
    "Which is true?\n(1) Taxes rose 5% in 2024\n(2) Taxes fell 2% in 2024",
    # an HTML list arrives without its markers (<ol><li> become lines)
    "What should the council do?\nBuild the bridge by 2027\nRepair the old bridge\n"
    "Do nothing until 2030",
    # options and instructions with no question before them
    "Plans for 2026:\n- Raise taxes by 5% in 2025\n- To hire 400 teachers by 2027\n"
    "- Should close the old bridge in May 2026",
])
def test_the_options_of_a_question_or_a_list_of_instructions_are_not_claims(text) -> None:
    assert [c.text for c in extract_claims(text)] == []


def test_a_numbered_list_of_statements_keeps_its_claims() -> None:
    text = ("Results for 2024:\n1. Revenue rose 12% to 40 million euros in 2024.\n"
            "2. May sales fell 3% from a year earlier, the company said.\n")
    assert [c.text for c in extract_claims(text)] == [
        "Revenue rose 12% to 40 million euros in 2024.",
        "May sales fell 3% from a year earlier, the company said."]
    # under a question, a list of whole sentences is its answer, not a poll's options
    text = ("Why did revenue rise?\n1. Sales in Asia grew 20% in 2024.\n"
            "2. Prices rose 5% in March, the filing said.\n")
    assert len(extract_claims(text)) == 2
    # a numbered list going on after a paragraph ending in a quoted question
    text = ("\u201cWhat is he hiding in his taxes?\u201d Cruz asked.\n"
            "2. In March, Cruz called him a \u201ccoward\u201d on CNN")
    assert [c.text for c in extract_claims(text)][-1].startswith("In March, Cruz called")


def test_a_claim_over_the_maximum_length_is_a_counted_skip_naming_its_line(tmp_path) -> None:
    from affidavit.tasks.claims_file import MAX_CLAIM_CHARS, read_claims_file

    p = tmp_path / "claims.jsonl"
    short = "Northwind Robotics reported revenue of 42 million dollars."
    longest = ("x" * (MAX_CLAIM_CHARS - 1)) + " y"  # MAX_CLAIM_CHARS + 1 characters
    p.write_text("\n".join(json.dumps({"claim": t}) for t in
                           (short, longest, "z" * MAX_CLAIM_CHARS)) + "\n")
    rows, skips, messages = read_claims_file(p)
    assert [len(r["text"]) for r in rows] == [len(short), MAX_CLAIM_CHARS]
    assert skips["claim_too_long"] == 1
    assert any("line 2: a claim of 10,001 characters" in m and m.endswith("skipped")
               for m in messages), messages
