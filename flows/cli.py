"""The ``affidavit`` command line (typer + rich). It only parses, calls flows and prints."""

from __future__ import annotations

import atexit
import errno
import json
import os
import sys
from collections.abc import Callable
from contextlib import ExitStack
from importlib import resources
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="affidavit: batch fact-checking with quotes anchored in their sources and "
    "corroboration counted in independent origins.",
)
console = Console(soft_wrap=True)
"""Standard output. Lines are not wrapped at the console's width (80 columns when output goes
to a pipe or a file): a ``summary:`` or ``report:`` line stays one line to grep or copy; tables
are still laid out to the width."""


def _print_version(value: bool) -> None:
    if value:
        from affidavit import __version__

        typer.echo(f"affidavit {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", callback=_print_version, is_eager=True,
        help="print the version and exit")] = False,
    home: Annotated[str | None, typer.Option(
        "--home", help="affidavit home of the command that follows (as its own --home, "
        "which wins when both are given)")] = None,
) -> None:
    """Check claims against sources; see the commands below."""
    _JSON_STATE.update(wanted=False, written=False)  # this command's, not an earlier one's
    _default_home(home)


def _default_home(home: str | None) -> None:
    """Make ``home`` the home the command that follows defaults to (its own --home wins).

    ``affidavit --home DIR COMMAND`` and ``affidavit export --home DIR claimreview``. Raises
    ``typer.Exit`` (2) on an empty value.
    """
    if home is not None:
        import os

        if not home.strip():
            _fail("--home is empty: give a folder (or leave it out for $AFFIDAVIT_HOME or "
                  "./.affidavit)", 2)
        os.environ["AFFIDAVIT_HOME"] = home


err = Console(stderr=True, soft_wrap=True)

EXIT_OK = 0
"""Done; rows skipped on the way are counted and listed (``skip:…``), not failures."""
EXIT_ERROR = 1
"""An input was refused or could not be read (the others were still processed and written),
or the home, its disk or a stored file failed: one line on stderr says which."""
EXIT_USAGE = 2
"""A bad option or argument: nothing was done."""
EXIT_NO_CAPABILITY = 3
"""Exit code when research could not run (no search capability)."""
# 128 + N: killed by signal N (the supervisor says so, see affidavit.flows.supervise)

STATUSES = ["SUPPORTED", "PARTIAL", "CONTESTED", "CONTRADICTED", "UNVERIFIED"]
STATUS_STYLE = {"SUPPORTED": "green", "PARTIAL": "yellow", "CONTESTED": "magenta",
                "CONTRADICTED": "red", "UNVERIFIED": "dim"}

HomeOpt = Annotated[str | None, typer.Option("--home", help="affidavit home (default "
                                             "$AFFIDAVIT_HOME or ./.affidavit)")]
ModeOpt = Annotated[str, typer.Option("--mode", help="quick | standard | deep | forensic")]
JudgeOpt = Annotated[str, typer.Option("--judge", help="lexical | llm")]
_JSON_STATE = {"wanted": False, "written": False}
"""Whether this command was asked for JSON (``--json``) and has written its JSON document."""


def _note_json(value: bool) -> bool:
    """Remember ``--json`` while the command line is read (an error then answers in JSON too)."""
    if value:
        _JSON_STATE["wanted"] = True
    return value


def _write_json(data: Any) -> None:
    """Write the command's JSON document on stdout (one per command)."""
    _JSON_STATE["written"] = True
    sys.stdout.write(json.dumps(data, default=str, indent=1) + "\n")


def _json_error(message: str, code: int) -> None:
    """Answer an error in JSON too when ``--json`` was asked and no document was written.

    ``{"error": "...", "exit_code": N}`` on stdout, so that a program reading stdout always
    reads one JSON document; the ``error:`` line on stderr stays.
    """
    if _JSON_STATE["wanted"] and not _JSON_STATE["written"]:
        _write_json({"error": message, "exit_code": code})


JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON for machines",
                                       callback=_note_json)]
COUNT_OPTION_MAX = 2**31 - 1
"""Largest value of a count option (``--limit``, ``--show``, ``--batch-size``), refused above it
with exit 2 like any bad argument. Counts reach DuckDB's LIMIT and Python's ``islice``, which take
at most 2**63 - 1; 2**31 - 1 is past any run or table this tool writes (convention)."""

WorkersOpt = Annotated[int | None, typer.Option("--workers", min=1, help="local processes for "
                                                "the research batches, at most 4 per core "
                                                "(default $AFFIDAVIT_WORKERS or every core)")]
DaskOpt = Annotated[str | None, typer.Option("--dask", help="Dask scheduler address for the "
                                             "research batches, or 'local' (default "
                                             "$AFFIDAVIT_DASK_ADDRESS)")]
IdColumnOpt = Annotated[str, typer.Option(help="dump column holding the id")]
UrlColumnOpt = Annotated[str, typer.Option(help="dump column holding the URL")]
TitleColumnOpt = Annotated[str, typer.Option(help="dump column holding the title")]
TextColumnOpt = Annotated[str, typer.Option(help="dump column holding the text")]
DateColumnOpt = Annotated[str, typer.Option(help="dump column holding the date")]
WaybackColumnOpt = Annotated[str, typer.Option(help="dump column holding the first archive "
                                               "capture time")]
"""The column mapping of dumps (``backfill``, ``origins``); defaults those of ``ColumnMapping``."""
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
        message = str(exc)
        if value is not None:  # the flag's value, not the environment's
            message = message.replace(f"{ALLOW_PRIVATE_ENV}:", "--allow-private:", 1)
        _fail(message, 2)


def _check_workers(workers: int | None) -> None:
    """Refuse a bad ``--workers`` or ``$AFFIDAVIT_WORKERS`` before Prefect starts (exit 2).

    Either must be a whole number from 1 to 4 per core this process may run on
    (``affidavit.flows.local_workers.WORKERS_PER_CORE``, where the bound is explained). The
    variable is read only when ``--workers`` is not given (the flag wins over it).
    """
    import os

    from affidavit.flows.local_workers import WORKERS_ENV, check_workers, parse_workers

    try:
        if workers is None:
            parse_workers(os.environ.get(WORKERS_ENV))
        else:
            check_workers(workers, given="--workers")
    except ValueError as exc:
        _fail(str(exc), EXIT_USAGE)


def _check_dask(address: str | None) -> None:
    """Refuse a ``--dask`` address (or ``$AFFIDAVIT_DASK_ADDRESS``) where no scheduler answers.

    Asked before Prefect starts: one line and exit 1, at once for a refused port or an unknown
    host (``affidavit.flows.dask_probe``); exit 2 for an address that is none (no port, an
    unknown scheme). ``local`` starts a cluster of its own. Without the
    ``dask`` extra installed any address is refused (exit 2).
    """
    import importlib.util
    import os

    given = "--dask" if address else "AFFIDAVIT_DASK_ADDRESS"
    address = address or os.environ.get("AFFIDAVIT_DASK_ADDRESS") or None
    if address is None:
        return
    missing = [m for m in ("distributed", "prefect_dask") if importlib.util.find_spec(m) is None]
    if missing:
        _fail(f"a Dask address ({address!r}, from --dask or AFFIDAVIT_DASK_ADDRESS) needs Dask, "
              f"which is not installed ({', '.join(missing)}): pip install 'affidavit[dask]', "
              "or run without it", EXIT_USAGE)
    if address == "local":
        return
    from affidavit.flows.dask_probe import (
        SchedulerUnreachableError,
        address_fault,
        check_scheduler,
    )

    if (why := address_fault(address)) is not None:
        _fail(f"{given} {address!r} is not a Dask scheduler address ({why}): give one such as "
              "tcp://host:8786, or local", EXIT_USAGE)
    try:
        check_scheduler(address)
    except SchedulerUnreachableError as exc:
        _fail(str(exc))


_HOME_URL: list[str] = []
"""The object-store home of this command, once resolved (its errors are told naming it)."""


def _env(home: str | None, *, write: bool = True, must_exist: bool = False) -> None:
    """Check the home is usable; point Prefect at it before any flow imports it.

    A command that writes (``write``) holds the home's writer lock until it exits; one that
    only reads takes no lock, starts no Prefect server and creates nothing. A home on object
    storage is asked once whether it can be used (credentials, endpoint, bucket). With
    ``must_exist`` (commands that show what a home holds) a home that does not exist is
    refused.
    """
    import os
    import tempfile

    from affidavit.warehouse.home import apply_prefect_environment

    if not os.environ.get("AFFIDAVIT_DEBUG"):
        # errors are told in one line by the CLI; Prefect's own tracebacks only with the flag
        # (its logs still reach the API: each run's summary is there)
        os.environ.setdefault("PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "CRITICAL")
    paths = _check_home(home)
    exists = paths.tables.is_dir()
    if paths.url and (write or must_exist):  # source and origins do not use the home
        from affidavit.warehouse.object_store import ObjectStoreError, check_object_store_home

        _HOME_URL[:] = [paths.url]
        try:
            exists = check_object_store_home(paths)
        except ObjectStoreError as exc:
            _fail(str(exc))
    if must_exist and not exists:
        _fail(f"no affidavit home at {paths.spec}: nothing to show (backfill, run, verify or "
              "demo make one; set --home or AFFIDAVIT_HOME to an existing home)")
    if not write:
        return
    try:
        paths.root.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=paths.root, prefix=".write-check-"):
            pass
        apply_prefect_environment(paths)
        _lock_home(paths.root)
        from affidavit.flows.context import pin_ephemeral_server_port

        pin_ephemeral_server_port()
    except OSError as exc:
        _fail(f"cannot use {paths.root} as the affidavit home (set --home or AFFIDAVIT_HOME to "
              f"a writable folder): {exc.strerror or exc}")


def _check_home(home: str | None) -> Any:
    """Refuse a home that the arguments alone show cannot be used; return its paths.

    An empty ``--home`` or a home spec ``resolve_home`` rejects is a bad argument (exit 2); a
    local home that is a file is a refused input (exit 1). Nothing is created or written: the
    commands that write call it before their first line, so that such a refusal comes before
    "starting" (``_env`` calls it again).
    """
    from affidavit.warehouse.home import resolve_home

    if home is not None and not home.strip():
        _fail("--home is empty: give a folder (or leave it out for $AFFIDAVIT_HOME or "
              "./.affidavit)", 2)
    try:
        paths = resolve_home(home)
    except ValueError as exc:
        _fail(str(exc), 2)
        raise  # not reached: _fail exits
    if paths.root.exists() and not paths.root.is_dir():
        _fail(f"cannot use {paths.root} as the affidavit home (set --home or AFFIDAVIT_HOME to "
              "a folder): it is a file")
    from affidavit.tasks.input_checks import file_above

    # ``--home notes.txt/home``: a folder that cannot be made, refused as a home that is a file
    if (blocker := file_above(paths.root)) is not None:
        _fail(f"cannot use {paths.root} as the affidavit home (set --home or AFFIDAVIT_HOME to "
              f"a folder): {blocker} is a file")
    return paths


def _check_before_start(home: str | None, *, allow_private: str | None = None,
                        dask: str | None = None, feeds: list[str] | None = None,
                        researches: bool = False) -> None:
    """Make every refusal the arguments decide before the "starting" line (one line, exit 1/2).

    The home (:func:`_check_home`), ``--allow-private`` (:func:`_apply_allow`), OPML lists
    given to ``--feed`` (:func:`_check_opml`), the Dask address (:func:`_check_dask`) and,
    for a command that researches, ``AFFIDAVIT_MAX_JUDGE_FAILURE_SHARE``, the endpoints'
    settings (:func:`_check_endpoints`; exit 2), the publishing settings its report is
    written with (``AFFIDAVIT_PUBLISH_*``; exit 2) and the credibility lists named in the
    environment.
    """
    import os

    _check_home(home)
    if researches:
        _check_endpoints()
    if researches and any(k.startswith("AFFIDAVIT_PUBLISH") for k in os.environ):
        from affidavit.flows.publish import publish_config_from_env

        try:  # the run's report would be written with other URLs than the ones asked for
            publish_config_from_env()
        except ValueError as exc:
            _fail(str(exc), EXIT_USAGE)
    if researches and os.environ.get("AFFIDAVIT_MAX_JUDGE_FAILURE_SHARE"):
        from affidavit.flows.preflight import max_judge_failure_share

        try:
            max_judge_failure_share()
        except ValueError as exc:
            _fail(str(exc), EXIT_USAGE)
    if researches and (os.environ.get("AFFIDAVIT_CREDIBILITY_LOW")
                       or os.environ.get("AFFIDAVIT_CREDIBILITY_HIGH")):
        from affidavit.flows.reads import credibility_lists_from_env

        try:  # a list that cannot be read: one line now, not a failed run after the start
            credibility_lists_from_env()
        except ValueError as exc:
            _fail(str(exc))
    # the check imports the fetcher (pyarrow): only when there is something to check
    # (``affidavit.tasks.fetch.ALLOW_PRIVATE_ENV`` is the variable)
    if allow_private is not None or os.environ.get("AFFIDAVIT_ALLOW_PRIVATE"):
        _apply_allow(allow_private)
    if feeds:  # imports the feed readers (pyarrow): only for a run with feeds
        _check_opml(feeds)
    _check_dask(dask)


def _check_endpoints() -> None:
    """Refuse a web search or LLM endpoint setting that cannot be used (one line, exit 2).

    ``AFFIDAVIT_SEARXNG_URL`` and ``AFFIDAVIT_LLM_BASE_URL`` when set must be http(s) URLs with
    a host, and ``AFFIDAVIT_LLM_TIMEOUT_S`` a positive number; the line names the variable.
    An endpoint that is well formed but does not answer is the run's preflight's to find (the
    run then goes on without it, and says so).
    """
    import os

    if not (os.environ.get("AFFIDAVIT_SEARXNG_URL") or os.environ.get("AFFIDAVIT_LLM_BASE_URL")):
        return  # nothing to check: the readers (httpx) are not imported
    from affidavit.tasks.judge_llm import llm_config_from_env
    from affidavit.tasks.search import search_config_from_env

    try:
        search_config_from_env()
        llm_config_from_env()
    except ValueError as exc:
        _fail(str(exc), EXIT_USAGE)


def _warn_without_llm(judge: str) -> None:
    """Say at the start, in one line, that ``--judge llm`` runs the lexical judge: no endpoint.

    The run goes on with the lexical judge (a missing LLM is a degraded run, not a refusal,
    unlike ``--auditor llm``); its preflight records the same in the run's capabilities and
    ``degraded``, with the words of :func:`affidavit.tasks.judge_llm.llm_endpoint_missing`.
    """
    if judge != "llm":
        return
    from affidavit.tasks.judge_llm import llm_endpoint_missing

    if (missing := llm_endpoint_missing()) is not None:
        err.print(f"[yellow]warning:[/yellow] --judge llm: {missing}: the lexical judge is used",
                  highlight=False, soft_wrap=True)


def _refuse_without_search(home: str | None) -> None:
    """Refuse research that could search nothing before Prefect starts (one line, exit 3).

    No web search configured and no document stored in the home: the run's preflight would
    find no search capability after Prefect's start-up (seconds), so it is said at once and
    nothing is created or recorded (``affidavit.flows.preflight.has_nothing_to_search``).
    """
    from affidavit.flows.preflight import NO_SEARCH_MESSAGE, has_nothing_to_search

    paths = _check_home(home)
    if has_nothing_to_search(paths):
        _fail(f"{NO_SEARCH_MESSAGE}: no document stored in {paths.spec} and no web search "
              "configured (set AFFIDAVIT_SEARXNG_URL, or store documents first with backfill "
              "or run --feed)", EXIT_NO_CAPABILITY)


def _read_home(home: str | None) -> Any:
    """Resolve the home of a command that shows what a home holds (no lock, no Prefect).

    A home that does not exist is refused (one line, exit 1), and nothing is created.
    """
    _env(home, write=False, must_exist=True)
    from affidavit.warehouse.home import resolve_home

    return resolve_home(home)


_HELD = ExitStack()
"""The home locks this process holds (released when it exits)."""
atexit.register(_HELD.close)  # before interpreter teardown clears the lock registry


def _lock_home(root: Path) -> None:
    """Hold the home's writer lock so that two commands do not write it at once.

    A second command on the same home waits for the first (and says so) instead of racing it
    on Prefect's database and the warehouse's check-then-write loads. The flows take the same
    (re-entrant) lock, so runs started from deployments wait too.
    """
    from affidavit.warehouse.home import home_lock

    _HELD.enter_context(home_lock(root, on_wait=lambda r: err.print(
        f"[yellow]waiting:[/yellow] another affidavit command is using {r}")))


def _check_choices(mode: str | None = None, judge: str | None = None) -> None:
    """Reject an unknown mode or judge before any work starts."""
    modes = ["quick", "standard", "deep", "forensic"]
    if mode is not None and mode not in modes:
        _fail(f"unknown mode {mode!r}: use one of {', '.join(modes)}", 2)
    if judge is not None and judge not in ("lexical", "llm"):
        _fail(f"unknown judge {judge!r}: use lexical or llm", 2)


def _no_empty(values: list[str], flag: str, *, urls: bool = True) -> None:
    """Refuse an empty value given for a path or URL option (a bad argument, exit 2).

    An empty path is not "the current folder": it is a mistake (an unset shell variable), said
    as one, as an empty text argument is (``verify ""``, ``research ""``). An option that
    reads local files only (``urls=False``) also refuses a URL (``scheme://...``), which
    would otherwise be looked for as a file and said missing.
    """
    if any(not v.strip() for v in values):
        _fail(f"{flag} is empty: give a file path{' or a URL' if urls else ''}", EXIT_USAGE)
    if not urls and (url := next((v for v in values if _is_url(v)), None)):
        from affidavit.tasks.input_checks import shown_path

        _fail(f"{flag} reads a local file, not a URL: {shown_path(url)} (download it first)",
              EXIT_USAGE)


def _no_empty_columns(columns: dict[str, str | None]) -> None:
    """Refuse an empty column name given to a column option (a bad argument, exit 2).

    ``columns`` maps an option (``--text-column``) to its value (None: not given). An empty
    name is a mistake (an unset shell variable), not a column: no header names one.
    """
    for flag, value in columns.items():
        if value is not None and not value.strip():
            _fail(f"{flag} is empty: give the name of a column", EXIT_USAGE)


def _fail(message: str, code: int = EXIT_ERROR) -> None:
    """Print ``error: message`` on stderr and exit with ``code``.

    After Ctrl-C or a SIGTERM nothing is printed: what failed then failed because of it
    (Prefect's task engine, stopped under it, raises errors of its own), and the command exits
    130 or 143, the supervisor saying why (:func:`_main`).
    """
    from affidavit.flows.supervise import INTERRUPTED, stop_signal

    if not INTERRUPTED.is_set() and stop_signal() is None:
        err.print(f"[red]error:[/red] {_show(message, 600)}", soft_wrap=True)
        _json_error(_show(message, 600), code)
    raise typer.Exit(code)


VERIFY_MAX_BYTES = 200_000
"""Largest text ``verify`` takes (UTF-8 bytes): the text and the claims drawn from it travel as
Prefect flow-run parameters, which Prefect's API limits to 524,288 bytes in all; the margin
leaves room for the claims' other fields."""

SHOW_ALL_UP_TO = 20
"""Runs with at most this many verdicts print the verdict table without ``--show``."""


def _starting(what: str) -> None:
    """Print the first line at once, before Prefect and the flows are imported (seconds)."""
    err.print(f"[dim]affidavit {what}: starting (Prefect's local server takes a few "
              "seconds)…[/dim]", highlight=False)


class _CountColumn(MofNCompleteColumn):
    """``done/total`` when the total is known, the count alone (or nothing) when it is not."""

    def render(self, task: Task) -> Text:  # noqa: D102
        if task.total is None:
            return Text(f"{int(task.completed)}" if task.completed else "",
                        style="progress.download")
        return super().render(task)


class _EtaColumn(TimeRemainingColumn):
    """``eta h:mm:ss`` for bars with a known total; nothing for the others."""

    def render(self, task: Task) -> Text:  # noqa: D102
        if task.total is None:
            return Text("")
        return Text("eta ", style="progress.remaining") + super().render(task)


def write_output_file(out: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to the file ``out`` whole.

    A regular file (or a new one) is written beside itself and renamed into place, so it is
    never seen half written; through a symlink, that is done to the file it points to (the
    link stays). A device or a pipe (``/dev/stdout``, ``<(…)``) is written into: renaming a
    file over it would replace it (as root, even in ``/dev``).

    Raises:
        OSError: When it cannot be written (``/dev/full``: no space left on device); a folder
            above ``out`` that is a file, or is missing, is named (its ``strerror``).
    """
    if out.exists() and not out.is_file() and not out.is_dir():
        with out.open("w", encoding="utf-8") as fh:  # the error of a last write, at close
            fh.write(text)
        return
    from affidavit.tasks.input_checks import file_above
    from affidavit.warehouse.store import write_text_atomic

    target = out.resolve() if out.is_symlink() else out
    if (blocker := file_above(target)) is not None:  # out.json under notes.txt: said as such
        raise NotADirectoryError(errno.ENOTDIR, f"{blocker} is a file, not a folder")
    if not target.parent.is_dir():  # a folder not there is the user's mistake: not made
        raise FileNotFoundError(errno.ENOENT, f"no folder {target.parent}")
    write_text_atomic(text, target)


def _argv_text(value: str) -> str:
    r"""Read the bytes of a text argument that are not UTF-8 as Windows-1252, as files are read.

    Python hands such bytes over as lone surrogates (U+DC80-U+DCFF, ``surrogateescape``),
    which no text can store or send; a file path keeps them (it names the file by its bytes).

    >>> _argv_text("caf\udce9")
    'café'
    """
    from affidavit.tasks.charset import repair_escaped_bytes

    text, n_bytes = repair_escaped_bytes(value)
    if n_bytes:
        err.print(f"[dim]note:[/dim] {n_bytes} byte(s) of the argument that are not UTF-8 read "
                  "as Windows-1252", soft_wrap=True)
    return text


def _show(value: Any, limit: int = 200) -> str:
    """Untrusted text (titles, claims, quotes, paths, messages) fit for the terminal.

    Control characters and escape sequences removed, one line, cut at ``limit`` characters,
    rich markup escaped (``affidavit.tasks.sanitize.display_text``).
    """
    from rich.markup import escape

    from affidavit.tasks.sanitize import display_text

    return escape(display_text(value, limit=limit))


def describe_error(exc: BaseException) -> str:
    """One line for an error: what failed and why, without a traceback.

    >>> describe_error(FileNotFoundError(2, "No such file or directory", "claims.jsonl"))
    'claims.jsonl: no such file or directory'
    """
    if isinstance(exc, FileNotFoundError) and not exc.strerror:
        return f"{exc}: no such file or directory"
    if isinstance(exc, OSError) and exc.errno == errno.ELOOP:  # not "too many levels of …"
        from affidavit.tasks.input_checks import os_error_reason

        return f"{exc.filename}: {os_error_reason(exc)}" if exc.filename else \
            os_error_reason(exc)
    if isinstance(exc, OSError) and exc.strerror:
        what = exc.filename if exc.filename is not None else ""
        reason = exc.strerror[0].lower() + exc.strerror[1:]
        if exc.errno == 28:
            reason += " (the home's disk is full: free space and run the command again; "
            reason += "rows already written are kept)"
        return f"{what}: {reason}" if what else reason
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text if isinstance(exc, ValueError | OSError) else f"{type(exc).__name__}: {text}"


def _exit_for_refusals(counts: dict[str, int], n_inputs: int | None = None) -> None:
    """Exit non-zero when any input was refused outright (after everything was printed)."""
    n = int(counts.get("sources_refused", 0))
    if n:
        of = f" of {n_inputs}" if n_inputs else ""
        _fail(f"{n}{of} input(s) refused: nothing could be read from "
              f"{'it' if n == 1 else 'them'} (see the notes above)")


def _progress() -> Progress:
    return Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                    _CountColumn(), TimeElapsedColumn(), _EtaColumn(), console=err,
                    transient=True)


def _startup_task(prog: Progress, label: str = "starting Prefect, preflight (search, "
                  "judge)") -> Any:
    """Show a spinner while Prefect and the warehouse start; return the call that ends it."""
    task = prog.add_task(label, total=None)

    def ready() -> None:
        if task in prog.task_ids:
            prog.remove_task(task)

    return ready


def _expected_records(path: str) -> int | None:
    """Count the records of a JSONL dump (its non-empty lines) for a progress total.

    Other formats (feeds, WARC, CSV, Parquet, gzip) return None: their totals are not known
    before they are parsed, and the bar shows a count without a total.
    """
    from affidavit.tasks.input_checks import dump_format

    p = Path(path)
    if dump_format(p) != "jsonl" or p.suffix.lower() == ".gz" or not p.is_file():
        return None
    with p.open("rb") as fh:
        return sum(1 for line in fh if line.strip())


def _status_counts(verdicts: list[dict[str, Any]]) -> dict[str, int]:
    counts = dict.fromkeys(STATUSES, 0)
    for v in verdicts:
        counts[v["status"]] = counts.get(v["status"], 0) + 1
    return counts


def _cut(text: Any, limit: int) -> str:
    """Cut a field for the terminal (a feed can carry a 600,000-character title)."""
    s = " ".join(str(text or "").split())
    return s if len(s) <= limit else s[: limit - 1] + "…"


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
            f"{v['supporting_origins']}/{v['refuting_origins']}", _show(v["claim_text"], 300),
            _show(v.get("decided_by") or v.get("best_quote") or "", 240),
        )
    return table


def _print_run(result: Any, *, as_json: bool, title: str, show: int | None = None) -> None:
    from affidavit.schemas.enums import RunStatus

    if as_json:
        out = {"run_id": result.run_id, "status": result.status.value,
               "message": result.message, "counts": result.counts,
               "capabilities": result.capabilities, "degraded": result.degraded,
               "verdicts": result.verdicts, "report": result.report_path}
        _write_json(out)
    else:
        n = len(result.verdicts)
        n_show = n if show is None and n <= SHOW_ALL_UP_TO else min(show or 0, n)
        if n_show:
            shown = f"{title} ({n_show} of {n})" if n_show < n else title
            console.print(_verdict_table(result.verdicts[:n_show], shown))
        elif n:
            console.print(f"[dim]{n} verdicts: the report lists them all (or use --show N, or "
                          "affidavit verdicts)[/dim]")
        counts = _status_counts(result.verdicts)
        console.print("summary: " + ", ".join(f"{k} {v}" for k, v in counts.items())
                      + f" — {_show(result.message, 300)}")
        skips = {k: v for k, v in result.counts.items() if k.startswith(("skip:", "reject:"))}
        if skips:
            console.print("skipped/rejected: " + ", ".join(f"{k} {v}" for k, v in
                                                            sorted(skips.items())))
            if "skip:self_lineage" in skips:
                console.print("[dim]skip:self_lineage: documents found for a claim that are its "
                              "own source or that source's copies and rewrites (its lineage), "
                              "not judged: a story cannot corroborate itself[/dim]")
        repaired = {k[9:]: v for k, v in result.counts.items() if k.startswith("repaired:")}
        if repaired:  # as backfill prints them: rows kept, text repaired (README, Exit codes)
            console.print("repaired or warned: " + ", ".join(f"{k} {v}" for k, v in
                                                             sorted(repaired.items())))
        fetches = {k[6:]: v for k, v in result.counts.items() if k.startswith("fetch:")}
        if fetches:
            console.print("fetches by outcome: " + ", ".join(f"{k} {v}" for k, v in
                                                             sorted(fetches.items())))
        for d in result.degraded:
            console.print(f"[yellow]degraded:[/yellow] {_show(d, 300)}", soft_wrap=True)
        for m in result.messages[:20]:
            err.print(f"[dim]note:[/dim] {_show(m, 300)}", soft_wrap=True)
        if len(result.messages) > 20 or (skips and len(result.messages) >= 20):
            # readers keep the first notes only: the counts above include every skip
            err.print("[dim]note:[/dim] … more notes in the run; the counts above give every "
                      "skipped or rejected row")
        if result.report_path:
            console.print(f"report: {result.report_path}")
        console.print(f"run: {result.run_id}")
    if result.status is RunStatus.NO_CAPABILITY:
        if not as_json:
            err.print(f"[red]{_show(result.message, 300)}[/red]")
        raise typer.Exit(EXIT_NO_CAPABILITY)
    _exit_for_refusals(result.counts)
    if result.status is RunStatus.FAILED:
        if not as_json:
            err.print(f"[red]run failed:[/red] {result.message}")
        raise typer.Exit(EXIT_ERROR)


def _run_research(call: Any, *, as_json: bool, title: str, mode: str | None = None,
                  show: int | None = None) -> None:
    """Run a research flow under progress bars; print its verdicts (or a clean error)."""
    from affidavit.flows.context import RunFailed

    try:
        with _progress() as prog:
            ready = _startup_task(prog)
            ingest = _ingest_progress(prog)
            claims = _claims_progress(prog)
            res = call(lambda *a: (ready(), ingest(*a)), lambda *a: (ready(), claims(*a)))
    except RunFailed as exc:  # the flow run is FAILED; what it wrote is still shown
        res = exc.result
    except (ValueError, OSError) as exc:
        _fail(describe_error(exc))
        return
    _print_run(res, as_json=as_json, title=title, show=show)


def _ingest_progress(prog: Progress) -> Any:
    """Return the progress callback of the ingest stages.

    One bar per source, with its record count as the total when it can be counted up front
    (JSONL), and one per later stage (lineage, index).
    """
    tasks: dict[str, Any] = {}

    def cb(label: str, n: int) -> None:
        if label not in tasks:
            for task in prog.tasks:  # the previous stage is done: close its bar
                if task.id in tasks.values() and task.total is None:
                    if task.completed:
                        prog.update(task.id, total=task.completed)
                    else:  # a stage without a count (lineage, index): done, hide it
                        prog.update(task.id, visible=False)
            total = _expected_records(label)
            name = {"lineage": "lineage (signatures, bands, edges)",
                    "index": "search index"}.get(label, f"reading {Path(label).name}")
            tasks[label] = prog.add_task(name, total=total)
        prog.advance(tasks[label], n)

    return cb


def _round_progress(prog: Progress, *, rounds: int | None = None) -> Any:
    """Progress callback of the research rounds: claim-rounds done out of rounds × claims.

    Called at the start of each round with the claims still active; claims that stop early
    (saturated) shrink the total, so the ETA stays honest.
    """
    state: dict[str, Any] = {"done": 0, "last": 0}

    def cb(round_no: int, active: int) -> None:
        n_rounds = rounds or round_no
        if "t" not in state:
            state["t"] = prog.add_task("research", total=active * n_rounds)
        state["done"] += state["last"]
        state["last"] = active
        total = state["done"] + active * max(1, n_rounds - round_no + 1)
        prog.update(state["t"], completed=state["done"], total=total,
                    description=f"research round {round_no}/{n_rounds}: {active} claim(s)")

    return cb


def _claims_progress(prog: Progress) -> Any:
    """Progress callback of the research batches: claims decided out of all the run's claims."""
    state: dict[str, Any] = {}

    def cb(done: int, total: int) -> None:
        if "t" not in state:
            state["t"] = prog.add_task("research (claims)", total=total)
        prog.update(state["t"], completed=done, total=total)

    return cb


def _mode_rounds(mode: str) -> int | None:
    from affidavit.schemas.enums import Mode
    from affidavit.tasks.queries import MODES

    try:
        return int(MODES[Mode(mode)].rounds)
    except (KeyError, ValueError, AttributeError):
        return None


@app.command()
def backfill(
    paths: Annotated[list[str], typer.Argument(help="WARC/WET files, JSONL/JSON/Parquet/CSV "
                                                    "dumps, feeds")],
    home: HomeOpt = None,
    id_column: IdColumnOpt = "id",
    url_column: UrlColumnOpt = "url",
    title_column: TitleColumnOpt = "title",
    text_column: TextColumnOpt = "text",
    date_column: DateColumnOpt = "published_at",
    wayback_column: WaybackColumnOpt = "wayback_first_seen",
    dask: Annotated[str | None, typer.Option("--dask", help="Dask scheduler address for ingest "
                                             "parsing and the lineage stage, or 'local' "
                                             "(default $AFFIDAVIT_DASK_ADDRESS)")] = None,
    allow_private: AllowOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Ingest archives and dumps into the warehouse; update lineage and the search index.

    Example: affidavit backfill ../shared/data/corpora/reuters21578.jsonl
    """
    _no_empty(paths, "an input path")
    _no_empty_columns({"--id-column": id_column, "--url-column": url_column,
                       "--title-column": title_column, "--text-column": text_column,
                       "--date-column": date_column, "--wayback-column": wayback_column})
    _check_some_input_exists(paths)
    _check_input_files(paths)
    _check_input_kinds(paths)
    columns = _dump_columns(paths, id_column=id_column, url_column=url_column,
                            title_column=title_column, text_column=text_column,
                            date_column=date_column, wayback_column=wayback_column)
    _check_before_start(home, allow_private=allow_private, dask=dask)
    if not as_json:
        _starting("backfill")
    _env(home)
    from affidavit.flows.backfill import backfill_archive
    from affidavit.tasks.ingest_common import ColumnMapping

    mapping = ColumnMapping(**columns)
    try:
        with _progress() as prog:
            ready = _startup_task(prog, "starting Prefect and the warehouse")
            ingest = _ingest_progress(prog)
            res = backfill_archive(paths, home=home, mapping=mapping, dask=dask,
                                   progress=lambda *a: (ready(), ingest(*a)))
    except (ValueError, OSError) as exc:
        _fail(describe_error(exc))
        return
    if as_json:
        _write_json({"run_id": res.run_id, "counts": res.counts, "messages": res.messages})
        _exit_for_refusals(res.counts, len(paths))
        return
    c = res.counts
    console.print(f"documents read {c.get('documents_read', 0)}, added "
                  f"{c.get('documents_added', 0)}, lineage edges added "
                  f"{c.get('lineage_edges_added', 0)}, indexed {c.get('documents_indexed', 0)}")
    _print_ingest_counts(c)
    for m in res.messages[:20]:
        err.print(f"[dim]note:[/dim] {_show(m, 300)}", soft_wrap=True)
    if len(res.messages) > 20:
        err.print(f"[dim]note:[/dim] … {len(res.messages) - 20} more")
    console.print(f"run: {res.run_id}")
    _exit_for_refusals(c, len(paths))


def _print_ingest_counts(counts: dict[str, int]) -> None:
    """Print the rows an ingest skipped and repaired, by reason (``backfill``, ``origins``)."""
    skips = {k: v for k, v in counts.items() if k.startswith("skip:")}
    if skips:
        console.print("skipped: " + ", ".join(f"{k[5:]} {v}" for k, v in sorted(skips.items())))
    repaired = {k: v for k, v in counts.items() if k.startswith("repaired:")}
    if repaired:
        console.print("repaired or warned: " + ", ".join(f"{k[9:]} {v}"
                                                         for k, v in sorted(repaired.items())))


@app.command()
def run(
    feed: Annotated[list[str] | None, typer.Option("--feed", help="feed file or URL, or an OPML "
                                                   "subscription list (repeatable)")] = None,
    claims: Annotated[str | None, typer.Option("--claims", help="claims file "
                                               "(JSONL/JSON/CSV)")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, max=COUNT_OPTION_MAX,
                                              help="at most N claims")] = None,
    mode: ModeOpt = "standard",
    judge: JudgeOpt = "lexical",
    text_column: Annotated[str | None, typer.Option(help="claims file column with the claim "
                                                    "text (auto-detected)")] = None,
    from_unresolved: Annotated[bool, typer.Option("--from-unresolved", help="re-check claims "
                                                  "left UNVERIFIED or PARTIAL")] = False,
    show: Annotated[int | None, typer.Option("--show", min=0, max=COUNT_OPTION_MAX,
                                             help="print the first N verdicts "
                                             "(default: all of a run of at most "
                                             f"{SHOW_ALL_UP_TO}, none of a bigger one)")] = None,
    allow_private: AllowOpt = None,
    workers: WorkersOpt = None,
    dask: DaskOpt = None,
    home: HomeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Run the main job: feeds and/or claims → research → verdicts.

    --feed takes feed files, feed URLs (polled with conditional GET; state in the feeds table)
    and OPML subscription lists. Prints the summary and the report's path; the verdict table
    with --show N (or for a run of at most 20 claims).

    Example: affidavit run --claims claims.jsonl --limit 200
    """
    _no_empty(feed or [], "--feed")
    _no_empty([claims] if claims is not None else [], "--claims", urls=False)
    _no_empty_columns({"--text-column": text_column})
    if not feed and not claims and not from_unresolved:
        _fail("give --feed and/or --claims (or --from-unresolved)", 2)
    _check_choices(mode, judge)
    _check_workers(workers)
    if claims is not None:
        _check_claims(claims, text_column)  # light imports only: before the first line
    elif not from_unresolved:
        _check_some_input_exists(feed or [])
        _check_feed_files(feed or [])
    _check_before_start(home, allow_private=allow_private, dask=dask, feeds=feed,
                        researches=True)
    _warn_without_llm(judge)
    if not as_json:
        _starting("run")
    _env(home)
    from affidavit.flows.factcheck import factcheck

    _run_research(
        lambda ingest, rounds: factcheck(
            feeds=feed or [], claims_path=claims, limit=limit, mode=mode, judge=judge,
            text_column=text_column, from_unresolved=from_unresolved, home=home,
            workers=workers, dask=dask, progress=ingest, round_progress=rounds),
        as_json=as_json, title="verdicts", mode=mode, show=show)


def _check_feed_files(feeds: list[str]) -> None:
    """Refuse up front when no feed could be read (one line, exit 1).

    That is when each is a local file that is missing, a directory, empty or binary. With one
    readable feed the run goes on, and the others are refused inputs in its notes.
    """
    from affidavit.tasks.input_checks import feed_file_fault, input_path_fault

    local = [f for f in feeds if not _is_url(f)]
    if not feeds or len(local) < len(feeds):
        return
    faults = [f"{f}: {fault}" if (fault := input_path_fault(f)) else feed_file_fault(f)
              for f in local]
    if all(faults):
        more = f" (and {len(faults) - 1} more feed(s) that cannot be read)" \
            if len(faults) > 1 else ""
        _fail(f"{faults[0]}{more}")


def _is_url(value: str) -> bool:
    """Whether an input is a URL (it opens with a scheme and ``://``), not a local path.

    A text that holds a URL further on ("see https://example.org for the claim") is not one.

    >>> _is_url("https://example.org/feed.xml"), _is_url("see https://example.org/x")
    (True, False)
    """
    import re

    return re.match(r"[A-Za-z][A-Za-z0-9+.-]*://", value.strip()) is not None


def _check_some_input_exists(inputs: list[str]) -> None:
    """Refuse up front when every input is a local file that does not exist (one line, exit 1).

    Nothing could be read, so nothing is started (Prefect takes seconds) and no home is
    created. A URL of a scheme other than http(s) (``ftp://``, ``file://``) is refused the
    same way, whatever the other inputs. When some input exists or is a URL, the run goes on
    and each missing file is a refused input in its notes, as the README's exit codes say.
    """
    from affidavit.flows.reads import unsupported_scheme
    from affidavit.tasks.input_checks import input_path_fault

    for p in inputs:
        if scheme := unsupported_scheme(p):
            _fail(f"{p}: the {scheme}:// scheme is not supported: give http:// or https:// "
                  "URLs, or paths of local files")
    faults = [(p, fault) for p in inputs if not _is_url(p) and (fault := input_path_fault(p))]
    if inputs and len(faults) == len(inputs):
        more = f" (and {len(faults) - 1} more input(s), none of which can be opened)" \
            if len(faults) > 1 else ""
        _fail(f"{faults[0][0]}: {faults[0][1]}{more}")


def _check_input_files(inputs: list[str]) -> None:
    """Refuse up front when no input of a dump command can give a document (one line, exit 1).

    That is when every input is a local path that is missing, a directory, a device or a
    pipe, or an empty file (``affidavit.tasks.input_checks.input_file_fault``): nothing is
    started (Prefect takes seconds) and no home is created. With one readable input or a URL
    the run goes on, and the others are refused inputs in its notes.
    """
    from affidavit.tasks.input_checks import input_file_fault

    if not inputs or any(_is_url(p) for p in inputs):
        return
    faults = [(p, fault) for p in inputs if (fault := input_file_fault(p))]
    if len(faults) == len(inputs):
        more = f" (and {len(faults) - 1} more input(s), none of which can be read)" \
            if len(faults) > 1 else ""
        _fail(f"{faults[0][0]}: {faults[0][1]}{more}")


def _check_input_kinds(inputs: list[str]) -> None:
    """Refuse up front when no input of ``backfill`` is of a kind it reads (one line, exit 1).

    A file whose name and first bytes tell neither a feed, a WARC/WET archive nor a dump (a
    plain-text file): ``affidavit.tasks.ingest.detect_kind`` says so, with the extensions it
    knows, before Prefect starts. Asked only when some input's name is not a dump's (the
    readers are imported for it).
    """
    from affidavit.tasks.input_checks import dump_format

    if all(_is_url(p) or dump_format(p) is not None for p in inputs):
        return
    from affidavit.tasks.ingest import detect_kind

    def fault(path: str) -> str | None:
        try:
            detect_kind(path)
        except (OSError, ValueError) as exc:
            return None if isinstance(exc, OSError) else str(exc)
        return None

    _refuse_when_every_input(inputs, fault, "like it")


def _dump_columns(inputs: list[str], *, id_column: str, url_column: str, title_column: str,
                  text_column: str, date_column: str, wayback_column: str) -> dict[str, str]:
    """Check the column options of a dump command up front; return the column mapping.

    Refused in one line (exit 1) before anything starts: a text column that no input has
    (:func:`_check_dump_text_columns`), and another column named by its option that no input
    has (:func:`_check_dump_named_columns`; only options given another name than their
    default, which a dump may simply lack).

    Returns:
        Keyword arguments of ``affidavit.tasks.ingest_common.ColumnMapping`` (built by the
        caller, after the checks: it imports pyarrow).
    """
    _check_dump_is_text(inputs)
    _check_dump_rows(inputs)
    _check_dump_text_columns(inputs, text_column)
    given = {"--id-column": ("id", id_column, "id"), "--url-column": ("url", url_column, "URL"),
             "--title-column": ("title", title_column, "title"),
             "--date-column": ("published_at", date_column, "date"),
             "--wayback-column": ("wayback_first_seen", wayback_column, "capture time")}
    _check_dump_named_columns(inputs, {opt: (col, what) for opt, (default, col, what)
                                       in given.items() if col != default})
    _check_dump_headers(inputs, {"text": text_column, "id": id_column, "URL": url_column,
                                 "title": title_column, "date": date_column,
                                 "capture time": wayback_column})
    return {"id": id_column, "url": url_column, "title": title_column, "text": text_column,
            "published_at": date_column, "wayback_first_seen": wayback_column}


def _refuse_when_every_input(inputs: list[str], fault: Callable[[str], str | None],
                             kind: str) -> None:
    """Refuse in one line (exit 1) when ``fault`` finds a fault in every local input.

    URLs are never judged up front. The line is the first input's fault, with how many more
    inputs are ``kind`` ("like it", "without it"). With one input free of it the run goes on,
    and the readers count the others.
    """
    faults = [None if _is_url(p) else fault(p) for p in inputs]
    if inputs and all(faults):
        more = f" (and {len(faults) - 1} more input(s) {kind})" if len(faults) > 1 else ""
        _fail(f"{faults[0]}{more}")


def _check_dump_is_text(inputs: list[str]) -> None:
    """Refuse up front when every input is a text dump that is not text (one line, exit 1).

    Binary data, UTF-16 saved without a byte-order mark, or a ``.parquet`` file that is not
    Parquet (no ``PAR1`` magic bytes), said as such
    (:func:`affidavit.tasks.input_checks.dump_not_text_fault`). With one other input the run
    goes on, and the reader counts the file.
    """
    from affidavit.tasks.input_checks import dump_not_text_fault

    _refuse_when_every_input(inputs, dump_not_text_fault, "like it")


def _check_dump_rows(inputs: list[str]) -> None:
    """Refuse up front when every input is a small dump holding no row (one line, exit 1).

    ``[]``, a JSON string or ``null``, a CSV header alone
    (:func:`affidavit.tasks.input_checks.dump_rows_fault`): nothing to store, so nothing
    starts. With one other input the run goes on, and the reader counts the file.
    """
    from affidavit.tasks.input_checks import dump_rows_fault

    _refuse_when_every_input(inputs, dump_rows_fault, "like it")


def _check_dump_headers(inputs: list[str], used: dict[str, str]) -> None:
    """Refuse up front when every input is a CSV/TSV dump repeating a column it would read.

    ``used`` maps what a column holds to its name (``affidavit.tasks.input_checks.
    dump_header_fault``); one line, exit 1. With one other input the run goes on, and the
    reader refuses each such file in its notes.
    """
    from affidavit.tasks.input_checks import dump_header_fault

    _refuse_when_every_input(inputs, lambda p: dump_header_fault(p, used), "like it")


def _check_dump_named_columns(inputs: list[str], named: dict[str, tuple[str, str]]) -> None:
    """Refuse up front a column named by an option that no input has (one line, exit 1).

    ``named`` maps an option (``--id-column``) to the column it names and what the column
    holds; only options given another name than their default are passed. A typo there
    would store every document without that value, silently.
    """
    from affidavit.tasks.input_checks import dump_text_fault

    for option, (column, what) in named.items():
        _refuse_when_every_input(
            inputs, lambda p, c=column, o=option, w=what: dump_text_fault(p, c, option=o, what=w),
            "without it")


def _check_dump_text_columns(inputs: list[str], text_column: str) -> None:
    """Refuse up front when no input has the text column (one line, exit 1).

    That is when every input is a local dump whose header, schema or (small) whole body shows
    the column is missing (``affidavit.tasks.input_checks.dump_text_fault``); the line names
    the columns or keys the first has. With one readable input the run goes on, and the others
    are refused inputs in its notes, each in one line.
    """
    from affidavit.tasks.input_checks import dump_text_fault

    _refuse_when_every_input(inputs, lambda p: dump_text_fault(p, text_column), "without it")


def _check_input(path: str, check: Callable[[str], object]) -> None:
    """Refuse an input file ``check`` cannot read, before Prefect starts (one line, exit 1)."""
    from affidavit.tasks.input_checks import os_error_reason

    try:
        check(path)
    except OSError as exc:  # missing, a symlink loop, no permission
        _fail(f"{path}: {os_error_reason(exc)}")
    except ValueError as exc:
        _fail(describe_error(exc))


def _looks_like_records(path: str) -> bool:
    """Whether a file given as one answer is a JSONL/JSON file of audit records instead.

    True when its name has an extension of a sessions file (``SESSION_EXTENSIONS``: JSONL,
    JSON, Parquet) and, for the JSON forms, its first non-blank line opens an object or a list
    holding an "answer" key.
    """
    import re

    from affidavit.tasks.charset import decode_user_text
    from affidavit.tasks.input_checks import SESSION_EXTENSIONS, dump_format

    fmt = dump_format(path)
    if fmt == "parquet":
        return True
    if not path.lower().removesuffix(".gz").endswith(SESSION_EXTENSIONS):
        return False
    try:
        with open(path, "rb") as fh:
            head = decode_user_text(fh.read(4096)).text.lstrip()
    except OSError:
        return False
    return head[:1] in "{[" and bool(re.search(r'"answer"\s*:', head))


def _check_claims(path: str, text_column: str | None = None) -> None:
    """Refuse a claims file that cannot be read before Prefect starts (one line, exit 1).

    Its first record must name a claim text column (``tasks.claims.check_claims_columns``),
    and one record must hold a claim the reader keeps: the file is read up to its first good
    row, so a file whose every row is a counted skip (a number for the claim, an empty text)
    is refused at once, with the counts, instead of starting a run that reads no claim.
    """
    from affidavit.tasks.claims_file import check_claims_columns, read_claims_file
    from affidavit.tasks.input_checks import check_claims_file, shown_path

    _check_input(path, check_claims_file)
    _check_input(path, lambda p: check_claims_columns(p, text_column=text_column))

    def some_claim(p: str) -> None:
        rows, skips, _ = read_claims_file(p, text_column=text_column, limit=1)
        if not rows:
            why = ", ".join(f"{k} {v}" for k, v in sorted(skips.items())) or "no claim rows"
            raise ValueError(f"{shown_path(p)}: no claim could be read ({why})")

    _check_input(path, some_claim)


def _check_opml(feeds: list[str]) -> None:
    """Refuse a broken or empty OPML list before any work starts (one line, exit 1)."""
    from affidavit.tasks.opml import OpmlError, is_opml, read_opml

    for src in feeds:
        if src.lower().startswith(("http://", "https://")) or not is_opml(src):
            continue
        try:
            read_opml(src)
        except FileNotFoundError:
            from affidavit.tasks.input_checks import path_fault

            _fail(f"{src}: {path_fault(src) or 'no such file'}")
        except OpmlError as exc:
            _fail(str(exc))


@app.command()
def demo(home: HomeOpt = None, as_json: JsonOpt = False) -> None:
    """Backfill the shipped demo corpus and check its claims (the README's first command)."""
    _check_workers(None)
    _check_before_start(home, researches=True)
    if not as_json:
        _starting("demo")
    _env(home)
    from affidavit.flows.backfill import backfill_archive
    from affidavit.flows.context import RunFailed
    from affidavit.flows.factcheck import factcheck

    demo_dir = resources.files("affidavit.flows").joinpath("demo")
    docs = str(demo_dir.joinpath("documents.jsonl"))
    claims_file = str(demo_dir.joinpath("claims.jsonl"))
    with _progress() as prog:
        ready = _startup_task(prog, "starting Prefect and the warehouse")
        ingest = _ingest_progress(prog)
        backfill_archive([docs], home=home, progress=lambda *a: (ready(), ingest(*a)))
        try:
            res = factcheck(claims_path=claims_file, home=home, mode="standard",
                            round_progress=_claims_progress(prog))
        except RunFailed as exc:  # printed, then a non-zero exit
            res = exc.result
    _print_run(res, as_json=as_json, title="demo verdicts")
    if not as_json:
        from affidavit.warehouse.home import resolve_home

        console.print(f"warehouse: {resolve_home(home).duckdb} — query it with DuckDB, e.g. "
                      "select status, count(*) from verdicts_latest group by 1")


VERDICT_ROWS_SHOWN = 50
"""Verdicts the ``verdicts`` table shows unless ``--limit`` says otherwise (a screenful)."""


@app.command()
def verdicts(
    limit: Annotated[int | None, typer.Option(
        min=1, max=COUNT_OPTION_MAX,
        help=f"rows to show (default: {VERDICT_ROWS_SHOWN} in the table, all with --json)"
    )] = None,
    status: Annotated[str | None, typer.Option(help="only this status")] = None,
    home: HomeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show the latest verdict of every claim (the ``verdicts_latest`` view)."""
    if status and status.upper() not in STATUSES:
        _fail(f"unknown status {status!r}: use one of {', '.join(STATUSES)}", 2)
    from affidavit.flows.reads import latest_verdicts

    if limit is None and not as_json:
        limit = VERDICT_ROWS_SHOWN
    rows, by_status = latest_verdicts(_read_home(home), status=status.upper() if status else None,
                                      limit=limit)
    if as_json:
        _write_json(rows)
        return
    total = dict.fromkeys(STATUSES, 0)
    total.update(by_status)
    n_all = by_status.get(status.upper(), 0) if status else sum(by_status.values())
    shown = f"{len(rows)} shown" if len(rows) >= n_all else (
        f"the newest {len(rows)} of {n_all}; --limit shows more, --json all")
    console.print(_verdict_table(rows, f"latest verdicts ({shown})"))
    console.print("all claims: " + ", ".join(f"{k} {v}" for k, v in total.items()))


@app.command()
def verify(
    text: Annotated[str | None, typer.Argument(help="text to check claim by claim")] = None,
    file: Annotated[str | None, typer.Option("--file", help="read the text from a file")] = None,
    mode: ModeOpt = "standard",
    judge: JudgeOpt = "lexical",
    allow_private: AllowOpt = None,
    workers: WorkersOpt = None,
    dask: DaskOpt = None,
    home: HomeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Check a text claim by claim against the archive (and web search when configured).

    Example: affidavit verify "The Lumen Bridge opened to traffic on 14 May 2024."
    """
    if (text is None) == (file is None):
        _fail("give TEXT or --file F (one of them)", 2)
    if text is not None and not text.strip():  # an empty argument: as research's, exit 2
        _fail("nothing to verify: the text is empty", EXIT_USAGE)
    text = _argv_text(text) if text is not None else None
    _no_empty([file] if file is not None else [], "--file", urls=False)
    _check_choices(mode, judge)
    _check_workers(workers)
    from affidavit.tasks.charset import decode_user_text
    from affidavit.tasks.input_checks import regular_file_fault

    if file is not None and (fault := regular_file_fault(file, pipe_ok=True)):
        # before it is opened: a device is no text (/dev/zero never ends, /dev/null is
        # nothing); a pipe is read once, as a shell's ``--file <(command)`` gives it
        _fail(f"cannot verify {file}: {fault}")
    raw = b""
    # at most this many bytes are read: a text over it is over the limit in any encoding
    # (UTF-32 takes 4 bytes a character), and a pipe fed without end, or a file that grows
    # while it is read, is not read into memory whole
    read_cap = 4 * VERIFY_MAX_BYTES + 4
    try:  # the readers' one decoding: a byte-order mark, else UTF-8 (Windows-1252 repairs)
        if text is None:
            with Path(str(file)).open("rb") as fh:
                raw = fh.read(read_cap + 1)
                size_on_disk = os.fstat(fh.fileno()).st_size
            if len(raw) > read_cap:
                shown = (f"{size_on_disk:,} bytes" if size_on_disk > read_cap
                         else f"more than {read_cap:,} bytes")
                _fail(f"cannot verify {file}: {shown} is over verify's {VERIFY_MAX_BYTES:,} "
                      "(the text travels as a Prefect flow-run parameter, limited to 524,288 "
                      "bytes); split it, or write its claims to a JSONL file and use run "
                      "--claims")
        body = text if text is not None else decode_user_text(raw).text
    except OSError as exc:  # missing, a directory, a symlink loop: by its errno
        from affidavit.tasks.input_checks import os_error_reason

        _fail(f"cannot read {file}: {os_error_reason(exc)}")
        return
    if not body.strip():  # the file is empty: a refused input (exit 1), as the README says
        _fail(f"nothing to verify: {file} is empty")
    from affidavit.tasks.sanitize import looks_binary

    if looks_binary(body):
        from affidavit.tasks.input_checks import SNIFF_CHARS, utf16_fault

        if wide := utf16_fault(raw[:SNIFF_CHARS]):
            _fail(f"cannot verify {file}: {wide}")
        _fail(f"cannot verify {file or 'the text'}: it is not text (binary data: NUL bytes or "
              "bytes that do not decode)")
    from affidavit.tasks.sanitize import strip_control_chars

    # as the readers do: terminal escapes and control characters removed (they also hide a
    # sentence end: "opened.\x1b[31m Northwind" read as one claim), counted in a note
    body, n_ctl = strip_control_chars(body)
    size = len(body.encode("utf-8"))
    if size > VERIFY_MAX_BYTES:
        _fail(f"cannot verify {file or 'the text'}: {size:,} bytes is over verify's "
              f"{VERIFY_MAX_BYTES:,} (the text travels as a Prefect flow-run parameter, "
              "limited to 524,288 bytes); split it, or write its claims to a JSONL file and "
              "use run --claims")
    _check_before_start(home, allow_private=allow_private, dask=dask, researches=True)
    if not body.strip():
        _fail(f"nothing to verify: {file or 'the text'} holds only control characters")
    if n_ctl:
        err.print(f"[dim]note:[/dim] {n_ctl} control character(s) removed or repaired in "
                  f"{file or 'the text'}", soft_wrap=True)
    _refuse_without_search(home)
    _warn_without_llm(judge)
    if not as_json:
        _starting("verify")
    _env(home)
    from affidavit.flows.analyst import verify as verify_flow

    _run_research(
        lambda _, rounds: verify_flow(body, mode=mode, judge=judge, home=home, workers=workers,
                                      dask=dask, round_progress=rounds),
        as_json=as_json, title="verify", mode=mode)


@app.command()
def research(
    question: Annotated[str, typer.Argument(help="the question or claim")],
    mode: ModeOpt = "standard",
    judge: JudgeOpt = "lexical",
    allow_private: AllowOpt = None,
    workers: WorkersOpt = None,
    dask: DaskOpt = None,
    home: HomeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Research a question in adversarial rounds (advocate and prosecutor).

    Example: affidavit research "Which is faster for web servers, Rust or Go?" --mode deep
    """
    if not question.strip():
        _fail("nothing to research: the question is empty", EXIT_USAGE)
    question = _argv_text(question)
    _check_choices(mode, judge)
    _check_workers(workers)
    _check_before_start(home, allow_private=allow_private, dask=dask, researches=True)
    _refuse_without_search(home)
    _warn_without_llm(judge)
    if not as_json:
        _starting("research")
    _env(home)
    from affidavit.flows.analyst import research_question

    _run_research(
        lambda _, rounds: research_question(question, mode=mode, judge=judge, home=home,
                                            workers=workers, dask=dask,
                                            round_progress=rounds),
        as_json=as_json, title="research", mode=mode)


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
    _no_empty([target], "TARGET")
    _no_empty([url] if url is not None else [], "--url")
    if url is not None:
        _check_saved_from(target, url)
    _env(home, write=False)
    _apply_allow(allow_private)
    from dataclasses import asdict

    from affidavit.flows.reads import profile_source

    try:
        prof = profile_source(target, wayback=wayback, url=url)
    except ValueError as exc:
        _fail(str(exc))
        return
    data = asdict(prof)
    if as_json:
        _write_json(data)
        return
    table = Table(title=f"source: {_show(target, 120)}", show_header=False)
    for k, v in data.items():
        table.add_row(k, _show(", ".join(map(str, v)) if isinstance(v, tuple) else str(v), 300))
    console.print(table)


def _check_saved_from(target: str, url: str) -> None:
    """Refuse a ``source --url`` that is not a web address, or that goes with a URL (exit 2)."""
    from urllib.parse import urlsplit

    from affidavit.tasks.fetch import strip_credentials

    shown = strip_credentials(url)  # a password in it is never shown
    if target.lower().startswith(("http://", "https://")):
        target = _show(strip_credentials(target), 120)
        _fail(f"--url {shown!r} goes with a saved file: the URL {target!r} is its own address",
              EXIT_USAGE)
    try:
        parts = urlsplit(url.strip())
        host, _ = parts.hostname, parts.port
    except ValueError:
        host = None
    if host is None or parts.scheme.lower() not in ("http", "https"):
        _fail(f"--url {shown!r} is not an http:// or https:// address with a host (the "
              "address the page was saved from)", EXIT_USAGE)


@app.command()
def recall(
    query: Annotated[str, typer.Argument(help="words the claim must contain")],
    limit: Annotated[int, typer.Option(min=1, max=COUNT_OPTION_MAX)] = 20,
    home: HomeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Recall prior findings from the warehouse that have not expired.

    Example: affidavit recall "Lumen Bridge"
    """
    from datetime import UTC, datetime

    from affidavit.flows.reads import recall_rows

    if not query.strip():
        _fail("nothing to recall: the query is empty (give words the claim must contain; "
              "affidavit verdicts lists them all)", EXIT_USAGE)
    query = _argv_text(query)
    rows = recall_rows(_read_home(home), query, limit=limit, now=datetime.now(UTC))
    if as_json:
        _write_json(rows)
        return
    if not rows:
        console.print(f"no unexpired finding matches {_show(query, 120)!r}")
        return
    console.print(_verdict_table(rows, f"findings for {query!r}"))


@app.command()
def origins(
    targets: Annotated[list[str], typer.Argument(help="files or URLs of documents")],
    home: HomeOpt = None,
    id_column: IdColumnOpt = "id",
    url_column: UrlColumnOpt = "url",
    title_column: TitleColumnOpt = "title",
    text_column: TextColumnOpt = "text",
    date_column: DateColumnOpt = "published_at",
    wayback_column: WaybackColumnOpt = "wayback_first_seen",
    allow_private: AllowOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show the lineage of a set of documents: raw count, independent origins, edges, tree.

    Dumps are read with the column mapping of ``backfill`` (``--text-column`` and the others).

    Example: affidavit origins stories.jsonl

    Example: affidavit origins articles.csv --text-column body --date-column date
    """
    _no_empty(targets, "an input path")
    _no_empty_columns({"--id-column": id_column, "--url-column": url_column,
                       "--title-column": title_column, "--text-column": text_column,
                       "--date-column": date_column, "--wayback-column": wayback_column})
    _check_some_input_exists(targets)
    _check_input_files(targets)
    columns = _dump_columns(targets, id_column=id_column, url_column=url_column,
                            title_column=title_column, text_column=text_column,
                            date_column=date_column, wayback_column=wayback_column)
    _env(home, write=False)
    _apply_allow(allow_private)  # a URL target on a private address, as ``source`` allows it
    from affidavit.flows.origins import render_origins
    from affidavit.flows.reads import origins_of
    from affidavit.tasks.ingest_common import ColumnMapping

    res = origins_of(targets, mapping=ColumnMapping(**columns))
    if res.report is None and len(res.messages) <= 1:  # one reason: said once, in the error
        _fail("no documents could be read" + (f": {res.messages[0]}" if res.messages else ""))
    for m in res.messages[:20]:
        err.print(f"[dim]note:[/dim] {_show(m, 300)}", soft_wrap=True)
    if res.report is None:
        _fail(f"no documents could be read from the {len(targets)} input(s) (see the notes "
              "above)")
        return
    if as_json:
        r = res.report
        data = {"n_documents": r.n_documents, "n_origins": r.n_origins,
                "edges": r.edges.to_dicts(), "origins": r.origins.to_dicts(), "notes": r.notes,
                "counts": res.counts, "messages": res.messages}
        _write_json(data)
    else:
        render_origins(res.report, console)
        _print_ingest_counts(res.counts)  # as backfill prints them
    _exit_for_refusals(res.counts, len(targets))


# -- audit: an answer checked against the evidence it was written from ----------------------------

_LABEL_STYLE = {"SUPPORTED": "green", "OVERSTATED": "yellow", "UNSUPPORTED": "dim",
                "CONTRADICTED": "red", "UNLABELLED": "dim"}


@app.command()
def audit(
    answer_file: Annotated[str | None, typer.Argument(help="a file holding one answer")] = None,
    evidence: Annotated[list[str] | None, typer.Option(
        "--evidence", help="a file holding one tool output the answer read (repeatable)")] = None,
    sessions: Annotated[str | None, typer.Option(
        "--sessions", help="JSONL/JSON/Parquet of records {id, answer, evidence: [{tool, "
        "input, output}]}")] = None,
    auditor: Annotated[str, typer.Option("--auditor", help="lexical | llm")] = "lexical",
    card: Annotated[str | None, typer.Option(
        "--card", help="facts-and-limits card for the llm auditor")] = None,
    id_column: Annotated[str | None, typer.Option(
        "--id-column", help="column of the record id (default: id, case_id, ...)")] = None,
    answer_column: Annotated[str | None, typer.Option(
        "--answer-column", help="column of the answer (default: answer, response, ...)")] = None,
    evidence_column: Annotated[str | None, typer.Option(
        "--evidence-column", help="column of the evidence list (default: evidence, "
        "tool_calls, ...)")] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, max=COUNT_OPTION_MAX,
                                              help="audit at most this many records")] = None,
    batch_size: Annotated[int, typer.Option("--batch-size", min=1, max=COUNT_OPTION_MAX,
                                            help="records per task run")] = 500,
    home: HomeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Audit an answer (or a file of them) against the evidence it was written from.

    Each claim is labelled SUPPORTED, OVERSTATED, UNSUPPORTED or CONTRADICTED against that
    evidence only; a scanner flags absolute words and figures no evidence holds.

    Example: affidavit audit answer.txt --evidence pytest.txt --evidence pyproject.toml

    Example: affidavit audit --sessions sessions.jsonl --json
    """
    if (answer_file is None) == (sessions is None):
        _fail("give either ANSWER_FILE (with --evidence files) or --sessions FILE", 2)
    _no_empty([answer_file] if answer_file is not None else [], "ANSWER_FILE", urls=False)
    _no_empty([sessions] if sessions is not None else [], "--sessions", urls=False)
    _no_empty(list(evidence or []), "--evidence")
    _no_empty([card] if card is not None else [], "--card")
    _no_empty_columns({"--id-column": id_column, "--answer-column": answer_column,
                       "--evidence-column": evidence_column})
    if sessions is not None and evidence:
        _fail("--evidence goes with ANSWER_FILE, not with --sessions", 2)
    if auditor not in ("lexical", "llm"):
        _fail(f"unknown auditor {auditor!r}: use lexical or llm", 2)
    _check_workers(None)
    from affidavit.tasks.audit import check_sessions_columns
    from affidavit.tasks.input_checks import check_sessions_file, check_text_file

    def check_sessions(p: str) -> None:
        check_sessions_file(p)
        check_sessions_columns(p, id_column=id_column, answer_column=answer_column,
                               evidence_column=evidence_column)

    # every input is checked before Prefect starts or the home is touched (seconds saved, and
    # nothing written for a command that is refused)
    checks = [(answer_file, lambda p: check_text_file(p, "answer file", allow_empty=False)),
              (sessions, check_sessions), (card, lambda p: check_text_file(p, "card")),
              *((e, lambda p: check_text_file(p, "evidence file")) for e in evidence or [])]
    for p, check in checks:
        if p is not None:
            _check_input(p, check)
    if answer_file is not None and _looks_like_records(answer_file):
        # "affidavit audit sessions.jsonl": records audited as one answer would be noise (with
        # --evidence too: each record carries its own evidence)
        _fail(f"{answer_file} holds records ({{id, answer, evidence}}), not one answer: give it "
              f"with --sessions {answer_file} (each record carries its own evidence)", 2)
    if auditor == "llm":
        from affidavit.tasks.audit_llm import audit_config_from_env, audit_limits_from_env

        try:
            if audit_config_from_env() is None:
                _fail("--auditor llm needs AFFIDAVIT_LLM_BASE_URL and AFFIDAVIT_LLM_MODEL", 2)
            audit_limits_from_env()
        except ValueError as exc:  # a base URL or a limit that cannot be used, named
            _fail(str(exc), 2)
    _check_dask(None)
    _env(home)
    from affidavit.flows.audit import audit_answer, audit_sessions
    from affidavit.flows.context import RunFailed

    try:
        if sessions is not None:
            with _progress() as prog:
                bar = prog.add_task("auditing", total=limit)
                res = audit_sessions(sessions, auditor=auditor, card_path=card,
                                     id_column=id_column, answer_column=answer_column,
                                     evidence_column=evidence_column, limit=limit,
                                     batch_size=batch_size, home=home,
                                     progress=lambda n: prog.advance(bar, n))
        else:
            assert answer_file is not None
            res = audit_answer(answer_file, list(evidence or []), auditor=auditor,
                               card_path=card, home=home)
    except RunFailed as exc:  # a batch failed: what landed is shown, then a non-zero exit
        res = exc.result
    except (ValueError, FileNotFoundError) as exc:
        _fail(str(exc))
        return
    for m in res.messages[:20]:
        err.print(f"[dim]note:[/dim] {_show(m, 300)}", soft_wrap=True)
    if as_json:
        by_audit: dict[str, list[dict[str, Any]]] = {}
        for c in res.claims:
            by_audit.setdefault(c["audit_id"], []).append(
                {k: c[k] for k in ("text", "label", "reason", "quote", "anchor", "flags")})
        out = {"run_id": res.run_id, "status": res.status.value, "message": res.message,
               "counts": res.counts, "degraded": res.degraded, "report": res.report_path,
               "audits": [{**{k: a[k] for k in ("audit_id", "record_id", "auditor", "n_claims",
                                               "n_supported", "n_overstated", "n_unsupported",
                                               "n_contradicted", "n_unlabelled", "n_demoted",
                                               "scanner_flags", "degraded")},
                           "claims": by_audit.get(a["audit_id"], [])} for a in res.audits]}
        _write_json(out)
        _exit_for_refusals(res.counts)
        if res.status.value == "failed":
            _fail(res.message)
        return
    shown = res.audits if len(res.audits) <= 20 else [
        a for a in res.audits if a["n_contradicted"] or a["degraded"]][:20]
    by_id = {}
    for c in res.claims:
        by_id.setdefault(c["audit_id"], []).append(c)
    for a in shown:
        # answers, record ids, flags and quotes are untrusted text: shown through _show
        flags = (f" flags: {_show(', '.join(a['scanner_flags']), 300)}"
                 if a["scanner_flags"] else "")
        console.print(f"[bold]{_show(a['record_id'], 120)}[/bold] ({_show(a['auditor'])})"
                      f"{flags}"
                      + (f" [yellow]{_show(a['degraded'], 300)}[/yellow]" if a["degraded"] else ""))
        for c in by_id.get(a["audit_id"], []):
            lab = c["label"] or "UNLABELLED"
            line = f"  [{_LABEL_STYLE.get(lab, 'dim')}]{lab:12}[/] {_show(c['text'], 300)}"
            if c["label"] != "SUPPORTED" and c["reason"]:
                line += f" [dim]— {_show(c['reason'], 300)}[/dim]"
            console.print(line)
            if c["label"] == "CONTRADICTED" and c["quote"]:
                console.print(f"      [dim]evidence:[/dim] {_show(repr(c['quote'][:200]))}")
    totals = {k: sum(a[f"n_{k}"] for a in res.audits)
              for k in ("supported", "overstated", "unsupported", "contradicted", "unlabelled")}
    console.print("summary: " + ", ".join(f"{k} {v}" for k, v in totals.items() if v or
                                          k != "unlabelled") + f" — {res.message}")
    _print_ingest_counts(res.counts)  # skipped, and repaired (kept) by reason
    if res.report_path:
        console.print(f"report: {res.report_path}")
    _exit_for_refusals(res.counts)
    if res.status.value == "failed":
        _fail(res.message)


export_app = typer.Typer(help="Export results for other systems.")
app.add_typer(export_app, name="export")


@export_app.callback(invoke_without_command=True)
def export_group(
    ctx: typer.Context,
    home: Annotated[str | None, typer.Option(
        "--home", help="affidavit home of the export that follows (as its own --home, which "
        "wins when both are given)")] = None,
) -> None:
    """Export results for other systems."""
    _default_home(home)
    if ctx.invoked_subcommand is None:
        # one error line, as every other usage fault says (not the help on stdout)
        _fail("export needs what to export: 'affidavit export claimreview' (see 'affidavit "
              "export --help')", EXIT_USAGE)


@export_app.command("claimreview")
def export_claimreview_cmd(
    run_id: Annotated[str | None, typer.Option("--run", help="one run's verdicts (default: the "
                                               "latest verdict of every claim)")] = None,
    status: Annotated[list[str] | None, typer.Option("--status", help="only this status "
                                                     "(repeatable)")] = None,
    out: Annotated[str | None, typer.Option("--out", help="write to this file (default: "
                                            "stdout)")] = None,
    base_url: Annotated[str | None, typer.Option("--base-url", help="where the report is "
                                                 "published (default "
                                                 "$AFFIDAVIT_PUBLISH_BASE_URL)")] = None,
    home: HomeOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write ClaimReview JSON-LD (schema.org) of the verdicts, one node per published claim.

    UNVERIFIED verdicts are left out (no finding to publish). Each node's url is the base URL
    plus claims/<claim_id>.html, the claim's page in the report folder. The output is JSON
    already; with --json an error is a JSON object too, as with every command.

    Example: affidavit export claimreview --status SUPPORTED --status CONTRADICTED --out cr.json
    """
    if out is not None and not out.strip():  # an unset variable, not the current folder
        _fail("--out is empty: give a file path", EXIT_USAGE)
    statuses = [x.upper() for x in status] if status else None
    for x in statuses or []:
        if x not in STATUSES:
            _fail(f"unknown status {x!r}: use one of {', '.join(STATUSES)}", 2)
        if x == "UNVERIFIED":
            _fail("UNVERIFIED verdicts are not published as ClaimReview (they carry no "
                  "finding); see the README", 2)
    # it only reads the home, as ``verdicts`` does: no lock, no Prefect, nothing written
    # there (a read-only home works); a missing one is refused
    paths = _read_home(home)
    import os

    from affidavit.flows.context import utcnow
    from affidavit.flows.publish import export_claimreview, publish_config_from_env
    from affidavit.warehouse.store import Warehouse

    env = dict(os.environ)
    if base_url:
        env["AFFIDAVIT_PUBLISH_BASE_URL"] = base_url
    try:
        config = publish_config_from_env(env)
        nodes, left_out, n = export_claimreview(Warehouse(paths), run_id=run_id,
                                                statuses=statuses, now=utcnow(), config=config)
    except ValueError as exc:
        message = str(exc)
        if base_url:  # the option's value, not the environment's
            message = message.replace("AFFIDAVIT_PUBLISH_BASE_URL", "--base-url", 1)
        _fail(message, 2)
        return
    text = json.dumps(nodes, indent=1, default=str, ensure_ascii=False) + "\n"
    if out is None:
        _JSON_STATE["written"] = True
        sys.stdout.write(text)
    else:
        try:
            write_output_file(Path(out), text)
        except OSError as exc:
            _fail(f"cannot write {out}: {exc.strerror or exc}")
    skipped = ", ".join(f"{k} {v}" for k, v in sorted(left_out.items()))
    err.print(f"{len(nodes)} ClaimReview node(s) from {n} verdict(s)"
              + (f"; left out: {skipped}" if skipped else "")
              + (f" → {out}" if out else ""), highlight=False)
    if config.is_placeholder:
        err.print("[yellow]note:[/yellow] no base URL set: review urls point to "
                  f"{config.base_url} (set AFFIDAVIT_PUBLISH_BASE_URL or --base-url)")


def _main() -> None:
    import os

    # typer carries its own click: its error classes are reached through a public one
    usage_error = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")
    click_exception = next(
        c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException"
    )
    from affidavit.flows.supervise import (
        EXIT_INTERRUPTED,
        INTERRUPTED,
        note_interrupts,
        stop_signal,
    )

    note_interrupts()
    try:
        code = _run_app(usage_error, click_exception)
    except (KeyboardInterrupt, SystemExit):
        if not INTERRUPTED.is_set():
            raise
        code = EXIT_INTERRUPTED
    if code not in (EXIT_OK, EXIT_INTERRUPTED) and (signum := stop_signal()):
        # ended by an error the SIGTERM passed on caused (Prefect's own on the way out): the
        # supervisor says it was stopped (affidavit.flows.supervise.run_supervised)
        code = 128 + signum
    if code == EXIT_INTERRUPTED and not os.environ.get("AFFIDAVIT_SUPERVISED"):
        # unsupervised (not Linux), no supervisor says it (affidavit.flows.supervise)
        err.print("[red]error:[/red] interrupted (Ctrl-C); what was written before stays")
    raise SystemExit(code)


def _run_app(usage_error: type[Exception], click_exception: type[Exception]) -> int:
    """Run the commands; return the exit status (every error said in one line on stderr).

    After Ctrl-C (:data:`~affidavit.flows.supervise.INTERRUPTED`) the status is 130 whatever
    the command ended with, and its errors are not printed: the supervisor says it was
    interrupted. A Ctrl-C that came after the command's run was completed set nothing
    (``note_run_completed``): the command ends as it would have.
    """
    import os

    from rich.markup import escape

    from affidavit.flows.supervise import EXIT_INTERRUPTED, INTERRUPTED, stop_signal

    try:
        # not standalone: a usage error comes back here, to be printed as one plain line
        code = app(standalone_mode=False, prog_name="affidavit")
    except usage_error as exc:  # a wrong flag, a missing value
        if not exc.format_message():  # no arguments: the help was printed
            raise SystemExit(exc.exit_code) from None
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        err.print(f"[red]error:[/red] {escape(exc.format_message())}{escape(hint)}",
                  soft_wrap=True)
        _JSON_STATE["wanted"] = _JSON_STATE["wanted"] or "--json" in sys.argv[1:]
        _json_error(exc.format_message() + hint, exc.exit_code)
        raise SystemExit(exc.exit_code) from None
    except click_exception as exc:  # e.g. a file option's path is missing
        err.print(f"[red]error:[/red] {escape(exc.format_message())}", soft_wrap=True)
        _JSON_STATE["wanted"] = _JSON_STATE["wanted"] or "--json" in sys.argv[1:]
        _json_error(exc.format_message(), exc.exit_code)
        raise SystemExit(exc.exit_code) from None
    except typer.Abort:  # Ctrl-D at a prompt
        raise SystemExit(EXIT_ERROR) from None
    except (KeyboardInterrupt, SystemExit):
        raise
    except Exception as exc:  # one line, not a traceback (AFFIDAVIT_DEBUG=1 shows it)
        if os.environ.get("AFFIDAVIT_DEBUG"):
            raise
        if INTERRUPTED.is_set():  # failed because of the Ctrl-C: the supervisor says it
            return EXIT_INTERRUPTED
        if signum := stop_signal():  # failed because of the SIGTERM: the supervisor says it
            return 128 + signum
        message = describe_error(exc)
        if _HOME_URL:  # an error of the object store: name the home and what to set
            from affidavit.warehouse.object_store import object_store_error_message

            message = object_store_error_message(exc, _HOME_URL[0]) or message
        if isinstance(exc, RuntimeError) and str(exc).startswith("Failed to reach API at"):
            # Prefect cannot reach the server PREFECT_API_URL names
            message += (" (PREFECT_API_URL): start that Prefect server, or unset "
                        "PREFECT_API_URL to run on the embedded local one")
        err.print(f"[red]error:[/red] {_show(message, 600)}", soft_wrap=True)
        _json_error(_show(message, 600), EXIT_ERROR)
        return EXIT_ERROR
    if INTERRUPTED.is_set():
        return EXIT_INTERRUPTED
    # the commands return nothing: what comes back is the code of a typer.Exit (or None)
    return code if isinstance(code, int) else EXIT_OK


def main() -> None:
    """Entry point of the ``affidavit`` console script (supervised: no process left behind)."""
    from affidavit.flows.supervise import run_supervised

    run_supervised(_main)


if __name__ == "__main__":
    main()
