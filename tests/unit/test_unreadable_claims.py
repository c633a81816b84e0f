"""Claims in a script the lexical judge reads no word of: their verdicts and the run say so."""

from __future__ import annotations

from typing import Any

import pytest

from affidavit.flows.factcheck import unreadable_note
from affidavit.flows.fanout import explain_unreadable


def _row(status: str = "UNVERIFIED") -> dict[str, Any]:
    return {"status": status, "confidence": 0.0, "supporting_origins": 0,
            "explanation": "no admitted evidence after 4 queries",
            "decided_by": "UNVERIFIED: no admitted evidence bears on the claim after 4 queries"}


def test_an_unresearched_claim_says_its_script_is_not_read() -> None:
    row = _row()
    assert explain_unreadable(row, ("Han",), researched=False, lexical=True)
    assert row["explanation"].startswith("not researched: no readable words: the default "
                                         "lexical judge reads no words in Han script")
    assert "no readable words" in row["decided_by"]
    assert row["status"] == "UNVERIFIED"
    assert row["confidence"] == 0.0


def test_a_researched_claim_keeps_its_verdict_and_gains_the_reason() -> None:
    row = _row()
    assert explain_unreadable(row, ("Cyrillic", "Han"), researched=True, lexical=True)
    assert "reads no words in Cyrillic, Han scripts" in row["explanation"]
    assert row["explanation"].endswith("no admitted evidence after 4 queries")
    assert row["decided_by"].startswith("UNVERIFIED: no readable words")
    assert row["decided_by"].endswith("no admitted evidence bears on the claim after 4 queries")
    decided = _row("PARTIAL")
    assert explain_unreadable(decided, ("Han",), researched=True, lexical=True)
    assert decided["status"] == "PARTIAL"
    assert decided["explanation"].endswith("decided on its figures alone")
    assert decided["decided_by"] == _row()["decided_by"]


def test_an_llm_judge_reads_the_script_so_nothing_is_said() -> None:
    row = _row()
    assert not explain_unreadable(row, ("Han",), researched=True, lexical=False)
    assert row == _row()


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        ({"no_readable_words:Han": 2, "no_readable_words:Cyrillic": 1, "claims": 5},
         "3 claim(s) with no readable words (Cyrillic 1, Han 2)"),
        ({"claims": 5, "skip:duplicate_claim": 1}, None),
        ({"no_readable_words:Han": 0}, None),
    ],
)
def test_the_run_warns_of_unread_claims(counts: dict[str, int], expected: str | None) -> None:
    note = unreadable_note(counts)
    if expected is None:
        assert note is None
    else:
        assert note is not None
        assert note.startswith(expected + ":")
