"""The verdict benchmark finds its scorer wherever the repository is cloned."""

from __future__ import annotations

from pathlib import Path

from tests.benchmarks.bench_verdicts import SCORER, find_scorer, main


def test_the_scorer_beside_the_set_is_used_first(tmp_path: Path) -> None:
    # a clone not beside shared/ stopped with "scorer not found at /tmp/shared/..."
    (tmp_path / "bench" / "verdicts-x").mkdir(parents=True)
    beside = tmp_path / "bench" / "score_verdicts.py"
    beside.write_text("")
    assert find_scorer(tmp_path / "bench" / "verdicts-x") == beside


def test_a_set_elsewhere_uses_the_shared_scorer_or_the_one_given(tmp_path: Path) -> None:
    assert find_scorer(tmp_path) == SCORER
    assert find_scorer(tmp_path, "/x/score.py") == Path("/x/score.py")


def test_a_missing_scorer_is_one_error_line(tmp_path: Path, capsys) -> None:
    (tmp_path / "claims.jsonl").write_text('{"claim_id": "c1", "claim": "x"}\n')
    assert main([str(tmp_path), "--scorer", str(tmp_path / "none.py")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: scorer not found at {tmp_path / 'none.py'} (give it with --scorer)"]
