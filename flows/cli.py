"""The ``affidavit`` command line (typer + rich). It only parses, calls flows and prints."""

from __future__ import annotations

import json
import sys
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn
from rich.table import Table

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="affidavit: batch fact-checking with quotes anchored in their sources and "
    "corroboration counted in independent origins.",
)
console = Console()
err = Console(stderr=True)

EXIT_NO_CAPABILITY = 3
"""Exit code when research could not run (no search capability)."""

STATUSES = ["SUPPORTED", "PARTIAL", "CONTESTED", "CONTRADICTED", "UNVERIFIED"]
STATUS_STYLE = {"SUPPORTED": "green", "PARTIAL": "yellow", "CONTESTED": "magenta",
                "CONTRADICTED": "red", "UNVERIFIED": "dim"}

HomeOpt = Annotated[str | None, typer.Option("--home", help="affidavit home (default "
                                             "$AFFIDAVIT_HOME or ./.affidavit)")]
ModeOpt = Annotated[str, typer.Option("--mode", help="quick | standard | deep | forensic")]
JudgeOpt = Annotated[str, typer.Option("--judge", help="lexical | llm")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON for machines")]
AllowOpt = Annotated[str | None, typer.Option(
    "--allow-private", metavar="all|CIDR,HOST,…",
    help="let the fetcher reach private addresses: 'all', or CIDR ranges and host names "
         "(comma-separated; '.corp.example' covers subdomains). Default "
         "$AFFIDAVIT_ALLOW_PRIVATE, else off. Recorded in runs.")]


def _apply_allow(value: str | None) -> None:
    """Validate ``--allow-private`` and hand it to the flows through its environment variable."""
    import os

    from affidavit.tasks.fetch import ALLOW_PRIVATE_ENV, parse_allow_list

    try:
        if value is not None:
            parse_allow_list(value)
            os.environ[ALLOW_PRIVATE_ENV] = value
        else:
            parse_allow_list(os.environ.get(ALLOW_PRIVATE_ENV))
    except ValueError as exc:
        _fail(str(exc), 2)


def _env(home: str | None) -> None:
    """Check the home is a writable folder; point Prefect at it before any flow imports it."""
    import tempfile

    from affidavit.warehouse.home import apply_prefect_environment, resolve_home

    paths = resolve_home(home)
    try:
        paths.root.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=paths.root, prefix=".write-check-"):
            pass
        apply_prefect_environment(paths)
        _lock_home(paths.root)
    except OSError as exc:
        _fail(f"cannot use {paths.root} as the affidavit home (set --home or AFFIDAVIT_HOME to "
              f"a writable folder): {exc.strerror or exc}")


_HOME_LOCKS: dict[Path, Any] = {}
"""Open lock files of the homes this process uses (held until the process exits)."""


def _lock_home(root: Path) -> None:
    """Hold an exclusive lock on the home so that two commands do not write it at once.

    A second command on the same home waits for the first (and says so) instead of racing it
    on Prefect's database and the warehouse's check-then-write loads.
    """
    import fcntl

    if root in _HOME_LOCKS:  # this process holds it already
        return
    fh = (root / ".lock").open("a")
    try:
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        err.print(f"[yellow]waiting:[/yellow] another affidavit command is using {root}")
        fcntl.flock(fh, fcntl.LOCK_EX)
    _HOME_LOCKS[root] = fh


def _check_choices(mode: str | None = None, judge: str | None = None) -> None:
    """Reject an unknown mode or judge before any work starts."""
    modes = ["quick", "standard", "deep", "forensic"]
    if mode is not None and mode not in modes:
        _fail(f"unknown mode {mode!r}: use one of {', '.join(modes)}", 2)
    if judge is not None and judge not in ("lexical", "llm"):
        _fail(f"unknown judge {judge!r}: use lexical or llm", 2)


def _fail(message: str, code: int = 1) -> None:
    err.print(f"[red]error:[/red] {message}")
    raise typer.Exit(code)


def _progress() -> Progress:
    return Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                    MofNCompleteColumn(), console=err, transient=True)


def _status_counts(verdicts: list[dict[str, Any]]) -> dict[str, int]:
    counts = dict.fromkeys(STATUSES, 0)
    for v in verdicts:
        counts[v["status"]] = counts.get(v["status"], 0) + 1
    return counts


def _verdict_table(verdicts: list[dict[str, Any]], title: str) -> Table:
    table = Table(title=title, show_lines=False, expand=False)
    table.add_column("status")
    table.add_column("conf", justify="right")
    table.add_column("origins +/-", justify="right")
    table.add_column("claim", overflow="fold", max_width=60)
    table.add_column("decided by", overflow="fold", max_width=60)
    for v in verdicts:
        st = v["status"]
        table.add_row(
            f"[{STATUS_STYLE.get(st, '')}]{st}[/]", f"{v['confidence']:.2f}",
            f"{v['supporting_origins']}/{v['refuting_origins']}", v["claim_text"],
            (v.get("decided_by") or v.get("best_quote") or "")[:240],
        )
    return table


def _print_run(result: Any, *, as_json: bool, title: str) -> None:
    from affidavit.schemas.enums import RunStatus

    if as_json:
        out = {"run_id": result.run_id, "status": result.status.value,
               "message": result.message, "counts": result.counts,
               "capabilities": result.capabilities, "degraded": result.degraded,
               "verdicts": result.verdicts, "report": result.report_path}
        sys.stdout.write(json.dumps(out, default=str, indent=1) + "\n")
    else:
        if result.verdicts:
            console.print(_verdict_table(result.verdicts, title))
        counts = _status_counts(result.verdicts)
        console.print("summary: " + ", ".join(f"{k} {v}" for k, v in counts.items())
                      + f" — {result.message}")
        skips = {k: v for k, v in result.counts.items() if k.startswith(("skip:", "reject:"))}
        if skips:
            console.print("skipped/rejected: " + ", ".join(f"{k} {v}" for k, v in
                                                            sorted(skips.items())))
        fetches = {k[6:]: v for k, v in result.counts.items() if k.startswith("fetch:")}
        if fetches:
            console.print("fetches by outcome: " + ", ".join(f"{k} {v}" for k, v in
                                                             sorted(fetches.items())))
        for d in result.degraded:
            console.print(f"[yellow]degraded:[/yellow] {d}")
        for m in result.messages[:20]:
            err.print(f"[dim]note:[/dim] {m}")
        if len(result.messages) > 20:
            err.print(f"[dim]note:[/dim] … {len(result.messages) - 20} more notes in the run")
        if result.report_path:
            console.print(f"report: {result.report_path}")
        console.print(f"run: {result.run_id}")
    if result.status is RunStatus.NO_CAPABILITY:
        if not as_json:
            err.print(f"[red]{result.message}[/red]")
        raise typer.Exit(EXIT_NO_CAPABILITY)


def _run_research(call: Any, *, as_json: bool, title: str) -> None:
    """Run a research flow under progress bars; print its verdicts (or a clean error)."""
    try:
        with _progress() as prog:
            res = call(_ingest_progress(prog), _round_progress(prog))
    except ValueError as exc:
        _fail(str(exc))
        return
    _print_run(res, as_json=as_json, title=title)


def _ingest_progress(prog: Progress) -> Any:
    tasks: dict[str, Any] = {}

    def cb(label: str, n: int) -> None:
        if label not in tasks:
            tasks[label] = prog.add_task(f"reading {Path(label).name}", total=None)
        prog.advance(tasks[label], n)

    return cb


def _round_progress(prog: Progress) -> Any:
    state: dict[str, Any] = {}

    def cb(round_no: int, active: int) -> None:
        if "t" not in state:
            state["t"] = prog.add_task("research", total=None)
        prog.update(state["t"], description=f"research round {round_no}: {active} claim(s)",
                    advance=1)

    return cb


@app.command()
def backfill(
    paths: Annotated[list[str], typer.Argument(help="WARC/WET files, JSONL/JSON/Parquet/CSV "
                                                    "dumps, feeds")],
    home: HomeOpt = None,
    id_column: Annotated[str, typer.Option(help="dump column holding the id")] = "id",
    url_column: Annotated[str, typer.Option(help="dump column holding the URL")] = "url",
    title_column: Annotated[str, typer.Option(help="dump column holding the title")] = "title",
    text_column: Annotated[str, typer.Option(help="dump column holding the text")] = "text",
    date_column: Annotated[str, typer.Option(help="dump column holding the date")] =
    "published_at",
    wayback_column: Annotated[str, typer.Option(help="dump column holding the first archive "
                                                "capture time")] = "wayback_first_seen",
    dask: Annotated[str | None, typer.Option("--dask", help="Dask scheduler address for the "
                                             "lineage stage, or 'local' (default "
                                             "$AFFIDAVIT_DASK_ADDRESS)")] = None,
    allow_private: AllowOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Ingest archives and dumps into the warehouse; update lineage and the search index.

    Example: affidavit backfill ../shared/data/corpora/reuters21578.jsonl
    """
    _env(home)
    _apply_allow(allow_private)
    from affidavit.flows.backfill import backfill_archive
    from affidavit.tasks.ingest_common import ColumnMapping

    mapping = ColumnMapping(id=id_column, url=url_column, title=title_column, text=text_column,
                            published_at=date_column, wayback_first_seen=wayback_column)
    try:
        with _progress() as prog:
            res = backfill_archive(paths, home=home, mapping=mapping, dask=dask,
                                   progress=_ingest_progress(prog))
    except ValueError as exc:
        _fail(str(exc))
        return
    if as_json:
        sys.stdout.write(json.dumps({"run_id": res.run_id, "counts": res.counts,
                                     "messages": res.messages}, indent=1) + "\n")
        return
    c = res.counts
    if not c.get("documents_read") and c.get("skip:source_unreadable"):
        for m in res.messages[:20]:
            err.print(f"[dim]note:[/dim] {m}")
        _fail("no input could be read")
    console.print(f"documents read {c.get('documents_read', 0)}, added "
                  f"{c.get('documents_added', 0)}, lineage edges added "
                  f"{c.get('lineage_edges_added', 0)}, indexed {c.get('documents_indexed', 0)}")
    skips = {k: v for k, v in c.items() if k.startswith("skip:")}
    if skips:
        console.print("skipped: " + ", ".join(f"{k[5:]} {v}" for k, v in sorted(skips.items())))
    for m in res.messages[:20]:
        err.print(f"[dim]note:[/dim] {m}")
    if len(res.messages) > 20:
        err.print(f"[dim]note:[/dim] … {len(res.messages) - 20} more")
    console.print(f"run: {res.run_id}")


@app.command()
def run(
    feed: Annotated[list[str] | None, typer.Option("--feed", help="feed file or URL, or an OPML "
                                                   "subscription list (repeatable)")] = None,
    claims: Annotated[str | None, typer.Option("--claims", help="claims file "
                                               "(JSONL/JSON/CSV)")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="at most N claims")] = None,
    mode: ModeOpt = "standard",
    judge: JudgeOpt = "lexical",
    text_column: Annotated[str | None, typer.Option(help="claims file column with the claim "
                                                    "text (auto-detected)")] = None,
    from_unresolved: Annotated[bool, typer.Option("--from-unresolved", help="re-check claims "
                                                  "left UNVERIFIED or PARTIAL")] = False,
    allow_private: AllowOpt = None,
    home: HomeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Run the main job: feeds and/or claims → research → verdicts.

    --feed takes feed files, feed URLs (polled with conditional GET; state in the feeds table)
    and OPML subscription lists.

    Example: affidavit run --claims claims.jsonl --limit 200
    """
    _env(home)
    _apply_allow(allow_private)
    from affidavit.flows.factcheck import factcheck

    if not feed and not claims and not from_unresolved:
        _fail("give --feed and/or --claims (or --from-unresolved)", 2)
    _check_choices(mode, judge)
    _check_opml(feed or [])
    _run_research(
        lambda ingest, rounds: factcheck(
            feeds=feed or [], claims_path=claims, limit=limit, mode=mode, judge=judge,
            text_column=text_column, from_unresolved=from_unresolved, home=home,
            progress=ingest, round_progress=rounds),
        as_json=as_json, title="verdicts")


def _check_opml(feeds: list[str]) -> None:
    """Refuse a broken or empty OPML list before any work starts (one line, exit 1)."""
    from affidavit.tasks.opml import OpmlError, is_opml, read_opml

    for src in feeds:
        if src.lower().startswith(("http://", "https://")) or not is_opml(src):
            continue
        try:
            read_opml(src)
        except FileNotFoundError:
            _fail(f"{src}: no such file")
        except OpmlError as exc:
            _fail(str(exc))


@app.command()
def demo(home: HomeOpt = None, as_json: JsonOpt = False) -> None:
    """Backfill the shipped demo corpus and check its claims (the README's first command)."""
    _env(home)
    from affidavit.flows.backfill import backfill_archive
    from affidavit.flows.factcheck import factcheck

    demo_dir = resources.files("affidavit.flows").joinpath("demo")
    docs = str(demo_dir.joinpath("documents.jsonl"))
    claims_file = str(demo_dir.joinpath("claims.jsonl"))
    with _progress() as prog:
        backfill_archive([docs], home=home, progress=_ingest_progress(prog))
        res = factcheck(claims_path=claims_file, home=home, mode="standard",
                        round_progress=_round_progress(prog))
    _print_run(res, as_json=as_json, title="demo verdicts")
    if not as_json:
        from affidavit.warehouse.home import resolve_home

        console.print(f"warehouse: {resolve_home(home).duckdb} — query it with DuckDB, e.g. "
                      "select status, count(*) from verdicts_latest group by 1")


@app.command()
def verdicts(
    limit: Annotated[int, typer.Option(min=1, help="rows to show")] = 50,
    status: Annotated[str | None, typer.Option(help="only this status")] = None,
    home: HomeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show the latest verdict of every claim (the ``verdicts_latest`` view)."""
    _env(home)
    from affidavit.flows.context import open_warehouse

    if status and status.upper() not in STATUSES:
        _fail(f"unknown status {status!r}: use one of {', '.join(STATUSES)}", 2)
    wh = open_warehouse(home)
    where = "where status = $status" if status else ""
    params: dict[str, Any] = {"limit": limit}
    if status:
        params["status"] = status.upper()
    df = wh.query(f"select * from verdicts_latest {where} order by decided_at desc limit $limit",
                  params)
    rows = df.to_dicts()
    if as_json:
        sys.stdout.write(json.dumps(rows, default=str, indent=1) + "\n")
        return
    counts = wh.query("select status, count(*) as n from verdicts_latest group by 1")
    console.print(_verdict_table(rows, f"latest verdicts ({len(rows)} shown)"))
    total = dict.fromkeys(STATUSES, 0)
    total.update(dict(counts.iter_rows()))
    console.print("all claims: " + ", ".join(f"{k} {v}" for k, v in total.items()))


@app.command()
def verify(
    text: Annotated[str | None, typer.Argument(help="text to check claim by claim")] = None,
    file: Annotated[Path | None, typer.Option("--file", help="read the text from a file")] = None,
    mode: ModeOpt = "standard",
    judge: JudgeOpt = "lexical",
    allow_private: AllowOpt = None,
    home: HomeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Check a text claim by claim against the archive (and web search when configured).

    Example: affidavit verify "The Lumen Bridge opened to traffic on 14 May 2024."
    """
    _env(home)
    _apply_allow(allow_private)
    from affidavit.flows.analyst import verify as verify_flow

    if (text is None) == (file is None):
        _fail("give TEXT or --file F (one of them)", 2)
    _check_choices(mode, judge)
    try:
        body = text if text is not None else Path(str(file)).read_text(encoding="utf-8",
                                                                       errors="replace")
    except OSError as exc:
        _fail(f"cannot read {file}: {exc.strerror or exc}")
        return
    if not body.strip():
        _fail("nothing to verify: the text is empty", 2)
    _run_research(
        lambda _, rounds: verify_flow(body, mode=mode, judge=judge, home=home,
                                      round_progress=rounds),
        as_json=as_json, title="verify")


@app.command()
def research(
    question: Annotated[str, typer.Argument(help="the question or claim")],
    mode: ModeOpt = "standard",
    judge: JudgeOpt = "lexical",
    allow_private: AllowOpt = None,
    home: HomeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Research a question in adversarial rounds (advocate and prosecutor).

    Example: affidavit research "Which is faster for web servers, Rust or Go?" --mode deep
    """
    _env(home)
    _apply_allow(allow_private)
    from affidavit.flows.analyst import research_question

    _check_choices(mode, judge)
    if not question.strip():
        _fail("nothing to research: the question is empty", 2)
    _run_research(
        lambda _, rounds: research_question(question, mode=mode, judge=judge, home=home,
                                            round_progress=rounds),
        as_json=as_json, title="research")


@app.command()
def source(
    target: Annotated[str, typer.Argument(help="URL or local HTML file")],
    url: Annotated[str | None, typer.Option("--url", help="address a local file was saved "
                                            "from")] = None,
    wayback: Annotated[bool, typer.Option("--wayback", help="ask the Wayback CDX API for the "
                                          "first capture (network)")] = False,
    allow_private: AllowOpt = None,
    home: HomeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Profile a source: type, credibility signals, publication-date reliability.

    Example: affidavit source page.html
    """
    _env(home)
    _apply_allow(allow_private)
    from dataclasses import asdict

    from affidavit.flows.analyst import check_source

    try:
        prof = check_source(target, home=home, wayback=wayback, url=url)
    except ValueError as exc:
        _fail(str(exc))
        return
    data = asdict(prof)
    if as_json:
        sys.stdout.write(json.dumps(data, default=str, indent=1) + "\n")
        return
    table = Table(title=f"source: {target}", show_header=False)
    for k, v in data.items():
        table.add_row(k, ", ".join(map(str, v)) if isinstance(v, tuple) else str(v))
    console.print(table)


@app.command()
def recall(
    query: Annotated[str, typer.Argument(help="words the claim must contain")],
    limit: Annotated[int, typer.Option(min=1)] = 20,
    home: HomeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Recall prior findings from the warehouse that have not expired.

    Example: affidavit recall "Lumen Bridge"
    """
    _env(home)
    from affidavit.flows.analyst import recall as recall_flow

    df = recall_flow(query, limit=limit, home=home)
    rows = df.to_dicts()
    if as_json:
        sys.stdout.write(json.dumps(rows, default=str, indent=1) + "\n")
        return
    if not rows:
        console.print(f"no unexpired finding matches {query!r}")
        return
    console.print(_verdict_table(rows, f"findings for {query!r}"))


@app.command()
def origins(
    targets: Annotated[list[str], typer.Argument(help="files or URLs of documents")],
    home: HomeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show the lineage of a set of documents: raw count, independent origins, edges, tree.

    Example: affidavit origins stories.jsonl
    """
    _env(home)
    from affidavit.flows.analyst import origins as origins_flow
    from affidavit.flows.origins import render_origins

    res = origins_flow(targets, home=home)
    for m in res.messages[:20]:
        err.print(f"[dim]note:[/dim] {m}")
    if res.report is None:
        _fail("no documents could be read")
        return
    if as_json:
        r = res.report
        data = {"n_documents": r.n_documents, "n_origins": r.n_origins,
                "edges": r.edges.to_dicts(), "origins": r.origins.to_dicts(), "notes": r.notes}
        sys.stdout.write(json.dumps(data, default=str, indent=1) + "\n")
        return
    render_origins(res.report, console)


def main() -> None:
    """Entry point of the ``affidavit`` console script."""
    from affidavit.warehouse.store import WarehouseError

    try:
        app()
    except WarehouseError as exc:
        err.print(f"[red]error:[/red] {exc}")
        raise SystemExit(1) from exc
    except RuntimeError as exc:
        # Prefect raises "Failed to reach API at <url>" when PREFECT_API_URL names a server
        # that does not answer: one line, not a traceback.
        if not str(exc).startswith("Failed to reach API at"):
            raise
        err.print(f"[red]error:[/red] {exc} (PREFECT_API_URL): start that Prefect server, or "
                  "unset PREFECT_API_URL to run on the embedded local one")
        raise SystemExit(1) from exc


if __name__ == "__main__":
    main()
