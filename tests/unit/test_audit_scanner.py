"""Table-driven tests of the audit scanner's rules (bench README, audit-dev), on invented text."""

from __future__ import annotations

import pytest

from affidavit.tasks.audit_scanner import (
    ABSOLUTE_WORDS,
    find_absolute_words,
    find_numeric_claims,
    number_tokens,
    scan_answer,
)


@pytest.mark.parametrize(
    ("answer", "found"),
    [
        ("Every job ran; NONE failed and it ALWAYS retries.", ["every", "none", "always"]),
        ("It is fully typed and entirely async.", ["fully", "entirely"]),
        ("Nothing changed; everyone agreed on everything.", ["nothing", "everyone", "everything"]),
        ("It is guaranteed, never impossible, totally only completely.",
         ["guaranteed", "never", "impossible", "totally", "only", "completely"]),
        ("all-in-one install", ["all"]),  # a whole word before a hyphen
        ("Install it overall; it is allowed and alwaysOn is a flag.", []),  # never inside a word
        ("Everybody knows it.", []),  # not in the list
        ("Everything's fine; it's all done.", ["everything", "all"]),
        # part of a longer word: an identifier, a figure, a word with a non-ASCII letter
        ("The run_all target and the 3all suite passed.", []),
        ("The allée was replanted; Allé is a name.", []),
    ],
)
def test_absolute_words_whole_word_any_case(answer: str, found: list[str]) -> None:
    assert [h.flag for h in find_absolute_words(answer)] == found


def test_absolute_word_list_is_the_benchmark_list() -> None:
    assert ABSOLUTE_WORDS == frozenset(
        "all always completely entirely every everyone everything fully guaranteed impossible "
        "never none nothing only totally".split())


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        # dotted numbers: versions, decimals, pre-releases
        ("Upgrade to v2.4.1 or 3.12.", [("v2.4.1", "version"), ("3.12", "version")]),
        ("It ships 1.4.0-rc.2 today.", [("1.4.0-rc.2", "version")]),
        ("A ratio of 0.75 was measured.", [("0.75", "version")]),
        ("Base image python:3.11-slim.", [("3.11", "version")]),
        ("Runs python3.12 on ubuntu-22.04.", [("3.12", "version"), ("22.04", "version")]),
        ("The wheel is 3.4 MB.", [("3.4 MB", "version")]),
        # ISO dates
        ("Released on 2023-11-07, tagged 2023-11-08.",
         [("2023-11-07", "date"), ("2023-11-08", "date")]),
        # percentages
        ("Coverage is 87% and 99.5 percent uptime, 4 per cent loss.",
         [("87%", "percent"), ("99.5 percent", "percent"), ("4 per cent", "percent")]),
        # integers with a unit: directly, after one space or one hyphen
        ("It waits 250ms, then 3 s, then a 5-minute pause.",
         [("250ms", "unit"), ("3 s", "unit"), ("5-minute", "unit")]),
        ("Cache 64 MiB, limit 2 GB, 10 req/s, 8 rps, 40 MB/s.",
         [("64 MiB", "unit"), ("2 GB", "unit"), ("10 req/s", "unit"), ("8 rps", "unit"),
          ("40 MB/s", "unit")]),
        ("It took 3 weeks and 2 days over 1 year.",
         [("3 weeks", "unit"), ("2 days", "unit"), ("1 year", "unit")]),
        # counts, years, ports, status codes are not numeric claims
        ("12 workers on port 8080 answered 404 in 2024 for 3 users.", []),
        ("5 mb is not a unit as written; 7 secrets and 9 bytes.", [("9 bytes", "unit")]),
        ("It has 4 sections.", []),  # "s" only as a whole word
        ("It took 2 Hours and 1,024 MB.", [("2 Hours", "unit"), ("1,024 MB", "unit")]),
        ("It took 3 S and 4 mB.", []),  # abbreviations as written
    ],
)
def test_numeric_claims(answer: str, claims: list[tuple[str, str]]) -> None:
    assert [(h.text, h.kind) for h in find_numeric_claims(answer)] == claims


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("p50 is 41.2 ms", ["50", "41.2"]),
        ("at 00:05", ["00", "05"]),
        ("v1.4.0-rc.2", ["1.4.0", "2"]),
        ("2024-05-18T10:00:00Z", ["2024-05-18", "10", "00", "00"]),
        ("1,200", ["1", "200"]),
        ("end of sentence 3.12.", ["3.12"]),
    ],
)
def test_number_tokens_as_written(text: str, tokens: list[str]) -> None:
    assert number_tokens(text) == tokens


@pytest.mark.parametrize(
    ("answer", "outputs", "flags"),
    [
        # held as a number token wherever it stands: p50 holds 50, "120ms" holds 120
        ("The median is 50 ms.", ["p50 41 ms"], []),
        ("It answers in 120 ms.", ["latency=120ms"], []),
        # 00:05 holds 05, which is not 5
        ("It runs 5 minutes after midnight.", ["cron: 00:05"], ["5 minutes"]),
        ("It runs at 05 s.", ["cron: 00:05"], []),
        # a version needs every number token held
        ("Pinned to 2.4.1.", ["version 2.4.0"], ["2.4.1"]),
        ("Pinned to v2.4.1.", ["pkg==2.4.1"], []),
        # absolute words: a whole word of some output, any case
        ("All tests pass.", ["ALL CHECKS PASSED"], []),
        ("All tests pass.", ["install ok"], ["all"]),
        # inputs are not evidence: the caller passes outputs only
        ("Only one file.", [], ["only"]),
        # one flag per distinct word or figure
        ("Every file, every line, 3.12 and 3.12 again.", ["no figures"], ["every", "3.12"]),
        # dates compare as one token
        ("Shipped 2024-02-29.", ["2024-02-28 shipped"], ["2024-02-29"]),
    ],
)
def test_scan_answer_flags_what_no_output_holds(
    answer: str, outputs: list[str], flags: list[str]
) -> None:
    assert [h.flag for h in scan_answer(answer, outputs)] == flags


def test_no_evidence_flags_every_absolute_word_and_numeric_claim() -> None:
    answer = "It always answers in 30 ms on v1.2.0, with 99% success since 2024-01-02."
    assert [h.flag for h in scan_answer(answer, [])] == [
        "always", "30 ms", "v1.2.0", "99%", "2024-01-02"]
