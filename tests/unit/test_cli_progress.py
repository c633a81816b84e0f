"""Progress output of the CLI: a first line before any heavy import, totals that hold."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from rich.console import Console
from rich.progress import Progress

from affidavit.flows import cli

FIRST_LINE_PROBE = """
import sys
claims = sys.argv[1] + "/claims.jsonl"
with open(claims, "w", encoding="utf-8") as fh:
    fh.write('{"claim": "The Lumen Bridge opened on 14 May 2024."}' + chr(10))
sys.argv = ["affidavit", "run", "--claims", claims, "--home", sys.argv[1] + "/h"]
from affidavit.flows import cli

def probe(what):
    heavy = sorted(m for m in ("pyarrow", "polars", "duckdb", "prefect") if m in sys.modules)
    print("first line; loaded:", ",".join(heavy) or "none")
    raise SystemExit(0)

cli._starting = probe
cli.main()
"""


def test_first_line_comes_before_heavy_imports(tmp_path: Path) -> None:
    res = subprocess.run([sys.executable, "-c", FIRST_LINE_PROBE, str(tmp_path)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert res.stdout.strip() == "first line; loaded: none", res.stderr


def _progress() -> Progress:
    return Progress(console=Console(file=io.StringIO()))


def test_round_progress_total_is_rounds_times_claims_and_shrinks() -> None:
    prog = _progress()
    cb = cli._round_progress(prog, rounds=3)
    cb(1, 10)  # 10 claims, 3 rounds: 30 claim-rounds
    task = prog.tasks[0]
    assert (task.completed, task.total) == (0, 30)
    cb(2, 4)  # 6 claims saturated after round 1: 10 done, 4 x 2 rounds left
    assert (task.completed, task.total) == (10, 18)
    cb(3, 4)
    assert (task.completed, task.total) == (14, 18)
    assert "round 3/3" in task.description


def test_ingest_progress_counts_jsonl_records(tmp_path: Path) -> None:
    path = tmp_path / "docs.jsonl"
    path.write_text('{"id": 1}\n\n{"id": 2}\n{"id": 3}', encoding="utf-8")
    assert cli._expected_records(str(path)) == 3
    assert cli._expected_records(str(tmp_path / "feed.xml")) is None
    prog = _progress()
    cb = cli._ingest_progress(prog)
    cb(str(path), 2)
    cb("lineage", 0)  # the next stage closes the previous bar
    assert (prog.tasks[0].completed, prog.tasks[0].total) == (2, 3)
    assert prog.tasks[1].description.startswith("lineage")


def _result(n: int) -> SimpleNamespace:
    from affidavit.schemas.enums import RunStatus

    verdicts = [{"status": "SUPPORTED", "confidence": 0.5, "supporting_origins": 2,
                 "refuting_origins": 0, "claim_text": f"claim number {i}", "best_quote": "q"}
                for i in range(n)]
    return SimpleNamespace(run_id="r", status=RunStatus.COMPLETED, message="done",
                           verdicts=verdicts, counts={}, capabilities={}, degraded=[],
                           messages=[], report_path="/tmp/r/report.html")


def test_run_prints_the_table_only_for_small_runs_or_with_show(monkeypatch) -> None:  # noqa: ANN001
    def printed(n: int, show: int | None) -> str:
        console = Console(record=True, width=200)
        monkeypatch.setattr(cli, "console", console)
        cli._print_run(_result(n), as_json=False, title="verdicts", show=show)
        return console.export_text()

    small = printed(5, None)
    assert "claim number 4" in small
    assert "report: /tmp/r/report.html" in small
    big = printed(600, None)
    assert "claim number" not in big
    assert "summary: SUPPORTED 600" in big
    assert "report: /tmp/r/report.html" in big
    shown = printed(600, 3)
    assert "claim number 2" in shown
    assert "claim number 3" not in shown
    assert "verdicts (3 of 600)" in shown


def test_summary_and_report_lines_stay_one_line_when_narrow(monkeypatch) -> None:  # noqa: ANN001
    """Piped output is 80 columns to rich: a ``summary:`` or ``report:`` line is not wrapped."""
    console = Console(record=True, width=24, soft_wrap=cli.console.soft_wrap)
    monkeypatch.setattr(cli, "console", console)
    cli._print_run(_result(600), as_json=False, title="verdicts", show=None)
    lines = console.export_text().splitlines()
    assert "report: /tmp/r/report.html" in lines
    summary = [line for line in lines if line.startswith("summary:")]
    assert len(summary) == 1
    assert "SUPPORTED 600" in summary[0]
    assert len(summary[0]) > 24  # longer than the console is wide: not wrapped
