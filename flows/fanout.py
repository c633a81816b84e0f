"""Work fanned out in batches: one Prefect task per batch, on local processes or Dask.

Research runs in batches of claims, answer audits in batches of records
(``affidavit.flows.audit``). A research batch researches its claims
(``affidavit.flows.research_loop.research``), decides them
(``affidavit.tasks.tribunal.build_verdict_rows``) and writes its own judgments, queries and
verdicts. Claims are independent of one another (each has its own rounds, the judge weighs terms
by the warehouse's IDF, fixed for the run by the preflight), so the verdicts do not depend on how
claims are batched nor on where a batch runs: a parallel run equals a sequential one.

Where batches run (``BatchPool``):

* ``inline``: in the flow's process, one after the other (one core);
* ``processes``: a pool of ``workers`` spawned processes on this machine (the default uses every
  core);
* ``dask``: a Dask cluster (``tcp://host:8786``, or ``local`` for a temporary 2-worker cluster).

Only the Prefect task of each batch (its retries, its state; ``affidavit.flows.factcheck``)
lives in the flow's process; the work it sends to a process or a Dask worker is a plain
function of this module, which does not import Prefect: workers never talk to Prefect and never
start a Prefect server of their own.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import polars as pl

from affidavit.flows.context import RunRecord
from affidavit.flows.dask_probe import check_scheduler
from affidavit.flows.local_workers import check_workers, default_workers
from affidavit.flows.preflight import Capabilities, corpus_idf
from affidavit.flows.research_loop import research
from affidavit.flows.supervise import INTERRUPTED
from affidavit.schemas.enums import Mode, Volatility
from affidavit.tasks.claims import expires_at, unreadable_scripts
from affidavit.tasks.input_checks import os_error_reason
from affidavit.tasks.judge_llm import LLMJudgeConfig, llm_config_from_env
from affidavit.tasks.queries import MODES
from affidavit.tasks.sources import CredibilityLists
from affidavit.tasks.tribunal import TribunalConfig, build_verdict_rows
from affidavit.warehouse.home import home_lock, resolve_home
from affidavit.warehouse.store import Warehouse

CLAIMS_PER_BATCH = 20
"""Claims researched by one Prefect task. Large enough that orchestration stays a small share
of a batch (a task run costs ~0.1 s; a Climate-FEVER claim ~0.5 s in standard mode), small
enough that two workers stay busy on a run of a few dozen claims."""

BATCH_RETRIES = 2
"""Retries of a failed batch before it is recorded as failed (its part files are rewritten,
so a retry adds no duplicate rows)."""

FETCH_SEQ_BLOCK = 1_000_000
"""``fetches`` sequence numbers reserved for each batch (``fetch_id`` is run id and sequence):
batch ``b`` numbers its fetches from ``(b + 1) * FETCH_SEQ_BLOCK``, the run's own (feeds) from 1."""

FALLBACK_NOTE = "LLM judge failed on some of this claim's pairs: lexical judge used for them"
"""``verdicts.degraded`` note of a claim whose LLM judgments fell back to the lexical judge."""


def split_batches(claims: Sequence[Mapping[str, Any]], size: int = CLAIMS_PER_BATCH
                  ) -> list[list[Mapping[str, Any]]]:
    """Split claims into consecutive batches of at most ``size``.

    Raises:
        ValueError: When ``size`` < 1.

    >>> [len(b) for b in split_batches([{}] * 45, 20)]
    [20, 20, 5]
    """
    if size < 1:
        raise ValueError("batch size must be >= 1")
    return [list(claims[i:i + size]) for i in range(0, len(claims), size)]


@dataclass
class BatchOutcome:
    """What one batch wrote and what the run needs to know of it.

    Attributes:
        batch_no: The batch's position (0-based) in the run.
        verdicts: ``verdicts`` rows, one per claim of the batch, in the batch's order.
        judgments: The batch's judgments with the evidence columns (for the report).
        queries_tried: Query texts per claim_id.
        stop_reasons: Why each claim's rounds ended.
        rounds_run: Rounds run per claim.
        counts: Rows written, skips and rejects by reason.
        messages: Notes for the run.
        n_pairs: (claim, document) pairs judged.
        n_judge_failures: Pairs the judge could not decide (a failure, or an LLM fallback).
        n_fallbacks: Pairs the LLM judge left to the lexical fallback.
    """

    batch_no: int
    verdicts: list[dict[str, Any]]
    judgments: pl.DataFrame
    queries_tried: dict[str, list[str]] = field(default_factory=dict)
    stop_reasons: dict[str, str] = field(default_factory=dict)
    rounds_run: dict[str, int] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    messages: list[str] = field(default_factory=list)
    n_pairs: int = 0
    n_judge_failures: int = 0
    n_fallbacks: int = 0


def research_batch(
    wh: Warehouse,
    claims: Sequence[Mapping[str, Any]],
    *,
    run_id: str,
    batch_no: int,
    caps: Capabilities,
    mode: Mode,
    now: datetime,
    credibility_lists: CredibilityLists | None = None,
    fetcher: Any = None,
) -> BatchOutcome:
    """Research, decide and write one batch of claims (its judgments, queries and verdicts).

    A claim that is not researchable gets an UNVERIFIED verdict that says why. The batch's rows
    go to part files named by run and batch, so a retried batch replaces what it wrote before.

    Args:
        wh: The warehouse.
        claims: ``claims`` rows (dicts with ``claim_id``, ``text``, ``volatility`` …).
        run_id: The run.
        batch_no: The batch's position (names its part files).
        caps: Search providers and judge from the run's preflight.
        mode: Research mode.
        now: The run's clock.
        credibility_lists: Hosts of low / high credibility the user pointed to.
        fetcher: The guarded fetcher for pages found by web search (default ``Fetcher()``).

    Returns:
        The batch's outcome.
    """
    record = RunRecord(wh, "batch", {}, run_id=run_id)  # counts and notes only; never written
    seq0 = (batch_no + 1) * FETCH_SEQ_BLOCK
    record.counts["fetches"] = seq0  # this batch's block of fetches sequence numbers
    researchable = [c for c in claims if c.get("is_researchable", True)]
    part = f"{run_id}-b{batch_no:05d}"
    judge = caps.judge
    fallbacks_before = int(getattr(judge, "n_fallbacks", 0) or 0)
    result = None
    if researchable:
        web = any(p.name != "archive" for p in caps.providers)
        result = research(
            wh, researchable, run=record, mode=mode, judge=judge, providers=caps.providers,
            now=now, materialize=(lambda hits: _materialize_locked(wh, hits, record, fetcher))
            if web else None, credibility_lists=credibility_lists,
        )
        if result.judgments.height:
            wh.write("judgments", result.judgments, part=part)
        if result.queries:
            wh.write("queries", pl.DataFrame(result.queries, infer_schema_length=None), part=part)
        record.counts["queries"] += len(result.queries)
    n_fallbacks = int(getattr(judge, "n_fallbacks", 0) or 0) - fallbacks_before
    judgments = result.judgments if result is not None else pl.DataFrame()
    if judgments.is_empty():
        judgments = pl.DataFrame(schema={"claim_id": pl.String, "doc_id": pl.String,
                                         "judge": pl.String, "stance": pl.String,
                                         "relevance": pl.Float64, "quote": pl.String,
                                         "is_admitted": pl.Boolean})
    urls: dict[str, str] = {}
    if judgments.height and "url" in judgments.columns:
        urls = dict(zip(judgments["doc_id"].to_list(), judgments["url"].to_list(), strict=True))
    exp = {str(c["claim_id"]): expires_at(Volatility(c["volatility"]), now) for c in claims}
    rows = build_verdict_rows(
        claims, judgments, config=TribunalConfig(MODES[mode].origins_for_supported),
        run_id=run_id, now=now, judge=caps.judge_name, mode=mode.value, expires_at=exp,
        queries_tried=result.queries_tried if result else {}, urls=urls,
        degraded="; ".join(caps.degraded) or None,
    )
    fell_back: set[str] = set()
    if judgments.height and "judge" in judgments.columns:
        fell_back = set(judgments.filter(pl.col("judge").str.contains("fallback"))["claim_id"])
    for row, claim in zip(rows, claims, strict=True):
        if not claim.get("is_researchable", True):
            row["explanation"] = f"not researchable: {claim.get('researchable_reason')}"
            row["decided_by"] = (f"UNVERIFIED: not researched, the claim is not researchable "
                                 f"({claim.get('researchable_reason')})")
        scripts = unreadable_scripts(str(claim.get("text") or ""))
        if scripts and explain_unreadable(row, scripts,
                                          researched=claim.get("is_researchable", True),
                                          lexical=caps.judge_name == "lexical"):
            record.counts[f"{NO_READABLE_WORDS}:{scripts[0]}"] += 1
        if row["claim_id"] in fell_back:
            row["degraded"] = "; ".join(x for x in (row.get("degraded"), FALLBACK_NOTE) if x)
    wh.write("verdicts", pl.DataFrame(rows, infer_schema_length=None), part=part)
    for row in rows:
        record.counts[f"status:{row['status']}"] += 1
    record.counts["verdicts"] += len(rows)
    record.counts["fetches"] -= seq0
    return BatchOutcome(
        batch_no=batch_no, verdicts=rows, judgments=judgments,
        queries_tried=result.queries_tried if result else {},
        stop_reasons=result.stop_reasons if result else {},
        rounds_run=result.rounds_run if result else {},
        counts=dict(record.counts), messages=list(record.messages),
        n_pairs=int(record.counts["judgments"]),
        n_judge_failures=int(record.counts["judge_failure"]) + n_fallbacks,
        n_fallbacks=n_fallbacks,
    )


NO_READABLE_WORDS = "no_readable_words"
"""Run count prefix of the claims in a script the lexical tools read no word of, one key per
script (``no_readable_words:Han``): their verdicts say so, and the run warns of them."""


def explain_unreadable(row: dict[str, Any], scripts: Sequence[str], *, researched: bool,
                       lexical: bool) -> bool:
    """Say in a verdict row that its claim has no word the lexical tools read (in place).

    The status and counts are left as decided; only ``explanation`` and ``decided_by`` change.
    A claim the researchable gate stopped is said to be unread by the gate and the default
    lexical judge; a researched one only when the lexical judge decided it (an LLM judge reads
    its script).

    Args:
        row: A ``verdicts`` row.
        scripts: The claim's scripts (:func:`affidavit.tasks.claims.unreadable_scripts`).
        researched: Whether the claim passed the researchable gate.
        lexical: Whether the run's judge is the lexical one.

    Returns:
        Whether the row was changed (not for a claim an LLM judge researched).
    """
    names = f"{', '.join(scripts)} script{'s' if len(scripts) > 1 else ''}"
    why = (f"no readable words: the default lexical judge reads no words in {names} (it "
           "reads Latin-script words and figures only)")
    if not researched:
        row["explanation"] = f"not researched: {why}; the claims gate reads none either"
        row["decided_by"] = f"UNVERIFIED: not researched, {why}"
    elif not lexical:
        return False
    elif row["status"] == "UNVERIFIED":
        row["explanation"] = f"{why}; {row['explanation']}"
        row["decided_by"] = (f"UNVERIFIED: {why}; "
                             + str(row["decided_by"]).removeprefix("UNVERIFIED: "))
    else:
        row["explanation"] = f"{row['explanation']}; {why}: decided on its figures alone"
    return True


def _materialize_locked(wh: Warehouse, hits: list[Any], record: RunRecord,
                        fetcher: Any) -> dict[str, str]:
    """Store web hits as documents, one batch at a time (they write documents and the index)."""
    from affidavit.flows.stages import materialize_web_hits

    with home_lock(wh.paths.root, name=".materialize.lock"):
        return materialize_web_hits(wh, hits, run=record, fetcher=fetcher)


# -- running a batch somewhere else ------------------------------------------------------------

@dataclass(frozen=True)
class BatchSpec:
    """What a worker process needs to rebuild the run's capabilities (picklable).

    Attributes:
        home: The affidavit home (a local folder every worker can reach, or its URL).
        run_id: The run.
        mode: Research mode value.
        judge_kind: ``"lexical"`` or ``"llm"`` (what the preflight found usable).
        judge_name: Judge name recorded on verdicts.
        llm_config: The LLM endpoint, for ``judge_kind == "llm"``.
        idf: The corpus IDF fixed by the preflight (the same weights in every batch).
        providers: Names of the search providers the preflight found (``archive``, ``searxng``).
        searxng_url: The SearXNG instance, when ``searxng`` is among them.
        degraded: What the preflight found missing.
        credibility_lists: Hosts of low / high credibility.
        now: The run's clock.
        fetch_config: The guarded fetcher's settings (private-address allow list) for pages
            found by web search.
    """

    home: str
    run_id: str
    mode: str
    judge_kind: str
    judge_name: str
    llm_config: LLMJudgeConfig | None
    idf: dict[str, float] | None
    providers: tuple[str, ...]
    searxng_url: str | None
    degraded: tuple[str, ...]
    credibility_lists: CredibilityLists | None
    now: datetime
    fetch_config: Any = None


def batch_spec(wh: Warehouse, caps: Capabilities, *, run_id: str, mode: Mode, now: datetime,
               credibility_lists: CredibilityLists | None, fetch_config: Any = None
               ) -> BatchSpec:
    """Describe the run's capabilities so that a worker process can rebuild them."""
    names = tuple(p.name for p in caps.providers)
    searxng = next((getattr(p, "base_url", None) for p in caps.providers
                    if p.name == "searxng"), None)
    kind = "llm" if caps.judge_name.startswith("llm") else "lexical"
    return BatchSpec(
        home=wh.paths.spec, run_id=run_id, mode=mode.value, judge_kind=kind,
        judge_name=caps.judge_name, llm_config=llm_config_from_env() if kind == "llm" else None,
        idf=corpus_idf(wh), providers=names, searxng_url=searxng, degraded=tuple(caps.degraded),
        credibility_lists=credibility_lists, now=now, fetch_config=fetch_config,
    )


_WORKER: dict[str, Any] = {}
"""Per worker process: the warehouse and capabilities of the spec it was given (built once)."""


def _worker_state(spec: BatchSpec) -> tuple[Warehouse, Capabilities]:
    key = (spec.home, spec.run_id)
    if _WORKER.get("key") != key:
        from affidavit.tasks.judges import make_judge
        from affidavit.tasks.search import ArchiveProvider, SearxngProvider
        from affidavit.warehouse.search_index import SearchIndex

        wh = Warehouse(resolve_home(spec.home))
        providers: list[Any] = []
        if "archive" in spec.providers:
            from affidavit.flows.preflight import archive_texts

            # built as the preflight builds it (passage re-ranking reads the stored texts)
            providers.append(ArchiveProvider(SearchIndex.open(wh.paths.index),
                                             texts=lambda ids: archive_texts(wh, ids)))
        if "searxng" in spec.providers and spec.searxng_url:
            providers.append(SearxngProvider(spec.searxng_url))
        judge = make_judge(spec.judge_kind, llm_config=spec.llm_config, idf=spec.idf)
        caps = Capabilities(providers=providers, judge=judge, judge_name=spec.judge_name,
                            degraded=list(spec.degraded))
        fetcher = None
        if spec.fetch_config is not None:
            from affidavit.tasks.fetch import Fetcher

            fetcher = Fetcher(spec.fetch_config)
        _WORKER.update(key=key, wh=wh, caps=caps, fetcher=fetcher)
    return _WORKER["wh"], _WORKER["caps"]


def run_batch_in_worker(spec: BatchSpec, batch_no: int,
                        claims: Sequence[Mapping[str, Any]]) -> BatchOutcome:
    """Run one batch in a worker process or on a Dask worker (a plain function: no Prefect)."""
    wh, caps = _worker_state(spec)
    return research_batch(wh, claims, run_id=spec.run_id, batch_no=batch_no, caps=caps,
                          mode=Mode(spec.mode), now=spec.now,
                          credibility_lists=spec.credibility_lists, fetcher=_WORKER["fetcher"])


class BatchPool:
    """Where the batches of one run execute: ``inline``, local ``processes`` or ``dask``.

    Args:
        kind: ``"inline"``, ``"processes"`` or ``"dask"``.
        run_inline: Runs a batch in this process (batch_no, items) → outcome.
        spec: What workers need to run a batch (picklable; ``processes`` and ``dask``).
        workers: Local worker processes (``processes``), or workers of a temporary local Dask
            cluster (``dask`` with address ``local``).
        dask_address: A Dask scheduler address, or ``"local"``.
        worker_fn: Runs a batch in a worker (spec, batch_no, items) → outcome: a plain,
            picklable function that does not use Prefect (default ``run_batch_in_worker``,
            a research batch).
    """

    def __init__(self, kind: str, *, run_inline: Callable[[int, Sequence[Any]], Any],
                 spec: Any = None, workers: int = 1, dask_address: str | None = None,
                 worker_fn: Callable[[Any, int, Sequence[Any]], Any] | None = None) -> None:
        if kind not in ("inline", "processes", "dask"):
            raise ValueError(f"unknown batch pool {kind!r}")
        self.kind = kind
        self.workers = workers
        self._run_inline = run_inline
        self._spec = spec
        self._dask_address = dask_address
        self._worker_fn = worker_fn or run_batch_in_worker
        self._executor: Any = None
        self._client: Any = None
        self._client_cm: Any = None
        self._spec_ref: Any = spec

    def __enter__(self) -> BatchPool:
        if self.kind == "processes":
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            # spawn, not fork: the flow's process runs Prefect's threads and event loops
            self._executor = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"))
        elif self.kind == "dask":
            self._client_cm = dask_client(self._dask_address or "local", workers=self.workers)
            self._client = self._client_cm.__enter__()
            self._spec_ref = self._client.scatter(self._spec, broadcast=True)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._executor is not None:
            stopped = INTERRUPTED.is_set() or exc[0] is not None
            # the workers ignore Ctrl-C (``run``): after it, or an error such as a stop
            # signal, this process stops them rather than wait on batches whose outcome
            # nobody will read
            # (``_processes`` is the executor's own record of its workers: it has no public one)
            workers = list((getattr(self._executor, "_processes", None) or {}).values())
            self._executor.shutdown(wait=not stopped, cancel_futures=True)
            if stopped:
                for proc in workers:
                    proc.terminate()
        if self._client_cm is not None:
            self._client_cm.__exit__(None, None, None)

    def run(self, batch_no: int, items: Sequence[Any]) -> Any:
        """Run one batch where this pool runs them and wait for its outcome."""
        if self.kind == "inline":
            return self._run_inline(batch_no, items)
        fut: Future[Any] | Any
        if self.kind == "processes":
            # a worker started by this submit ignores Ctrl-C, which the terminal sends to the
            # whole process group: the command stops it (``__exit__``), with no traceback of
            # the worker's own
            from affidavit.tasks.lineage_batches import submit_without_sigint

            fut = submit_without_sigint(self._executor, self._worker_fn, self._spec, batch_no,
                                        list(items))
        else:
            fut = self._client.submit(self._worker_fn, self._spec_ref, batch_no, list(items),
                                      pure=False)
        return fut.result()


@contextmanager
def batch_pool(
    n_batches: int,
    *,
    run_inline: Callable[[int, Sequence[Any]], Any],
    make_spec: Callable[[], Any],
    workers: int | None = None,
    dask: str | None = None,
    worker_fn: Callable[[Any, int, Sequence[Any]], Any] | None = None,
) -> Iterator[BatchPool]:
    """Choose where the batches run and hold that place open for the run.

    Dask when an address is given (or ``$AFFIDAVIT_DASK_ADDRESS``); local processes when there
    are at least two batches and two workers; else inline (a pool would cost more than it saves).
    ``worker_fn`` runs a batch in a worker (``BatchPool``; default: a research batch).

    Raises:
        ValueError: For a bad ``$AFFIDAVIT_WORKERS``, or ``workers`` < 1 or over 4 per core
            (:func:`affidavit.flows.local_workers.check_workers`).
    """
    if workers is not None:
        check_workers(workers, given="workers")
    dask = dask or os.environ.get("AFFIDAVIT_DASK_ADDRESS") or None
    n = workers or default_workers()
    if dask:
        pool = BatchPool("dask", run_inline=run_inline, spec=make_spec(),
                         workers=workers or 2, dask_address=dask, worker_fn=worker_fn)
    elif n >= 2 and n_batches >= 2:
        pool = BatchPool("processes", run_inline=run_inline, spec=make_spec(),
                         workers=min(n, n_batches), worker_fn=worker_fn)
    else:
        pool = BatchPool("inline", run_inline=run_inline)
    with pool:
        yield pool


def merge_counts(total: Counter[str], outcome: BatchOutcome) -> None:
    """Add a batch's counts to the run's."""
    total.update(outcome.counts)


# -- answer audits in batches ------------------------------------------------------------------

AUDITORS = ("lexical", "llm")


def make_auditor(auditor: str, *, card_path: str | None = None) -> Any:
    """Build the auditor by name: ``lexical`` (default) or ``llm`` (the configured endpoint).

    Raises:
        ValueError: For an unknown auditor, or ``llm`` with no endpoint configured.
        FileNotFoundError: When the card file does not exist.
    """
    if auditor == "lexical":
        from affidavit.tasks.audit_lexical import LexicalAuditor

        return LexicalAuditor()
    if auditor == "llm":
        from affidavit.tasks.audit_llm import (
            LLMAuditor,
            audit_config_from_env,
            audit_limits_from_env,
            read_card,
        )

        cfg = audit_config_from_env()
        if cfg is None:
            raise ValueError("the llm auditor needs AFFIDAVIT_LLM_BASE_URL and "
                             "AFFIDAVIT_LLM_MODEL")
        return LLMAuditor(cfg, card=read_card(card_path), **audit_limits_from_env())
    raise ValueError(f"unknown auditor {auditor!r}: use lexical or llm")


def audit_batch(records: Sequence[Any], auditor: Any) -> list[Any]:
    """Audit one batch of ``AuditRecord`` with ``auditor`` (lexical or LLM).

    Returns:
        One ``AuditOutcome`` per record, in order. Records are audited independently of one
        another, so the outcomes do not depend on how records are batched.
    """
    from affidavit.tasks.audit_lexical import LexicalAuditor, audit_lexical

    if isinstance(auditor, LexicalAuditor):
        return audit_lexical(records, auditor)
    return list(auditor.audit_records(records))


@dataclass(frozen=True)
class AuditSpec:
    """What a worker needs to build the run's auditor (picklable).

    Attributes:
        auditor: ``"lexical"`` or ``"llm"`` (an LLM endpoint from the worker's environment).
        card_path: The LLM auditor's facts-and-limits card.
    """

    auditor: str
    card_path: str | None = None


@dataclass
class AuditBatchOutcome:
    """One audited batch of records.

    Attributes:
        batch_no: The batch's position (0-based) in the run.
        outcomes: One ``AuditOutcome`` per record, in the batch's order.
        degradations: What the auditor noted going wrong while it audited this batch.
    """

    batch_no: int
    outcomes: list[Any]
    degradations: list[str] = field(default_factory=list)


def audit_in_batch(batch_no: int, records: Sequence[Any], auditor: Any) -> AuditBatchOutcome:
    """Audit one batch with an auditor at hand and gather what it noted meanwhile."""
    notes = getattr(auditor, "degradations", None)
    before = len(notes) if notes is not None else 0
    outcomes = audit_batch(records, auditor)
    after = getattr(auditor, "degradations", None) or []
    return AuditBatchOutcome(batch_no, outcomes, [str(d) for d in after[before:]])


_AUDITORS: dict[AuditSpec, Any] = {}
"""Per worker process: the auditor of each spec it was given (built once)."""


def audit_batch_in_worker(spec: AuditSpec, batch_no: int,
                          records: Sequence[Any]) -> AuditBatchOutcome:
    """Audit one batch in a worker process or on a Dask worker (a plain function: no Prefect)."""
    if spec not in _AUDITORS:
        _AUDITORS[spec] = make_auditor(spec.auditor, card_path=spec.card_path)
    return audit_in_batch(batch_no, records, _AUDITORS[spec])


# -- ingest parsing on Dask --------------------------------------------------------------------

def parse_source(source: str, mapping: Any, kind: str | None) -> tuple[list[Any], str | None]:
    """Parse one source into document batches on a worker (a plain function: no Prefect).

    Returns:
        The ``IngestBatch`` list, and None; or an empty list and the error, as the driver
        reports it (``"no such file"``, ``"is a directory, not a file"`` or the exception's text).
    """
    from affidavit.tasks.ingest import ingest_path

    try:
        return list(ingest_path(source, mapping=mapping, kind=kind)), None  # type: ignore[arg-type]
    except (OSError, ValueError) as exc:  # an OSError by its errno (a symlink loop too)
        return [], str(exc) if isinstance(exc, ValueError) else os_error_reason(exc)
    except Exception as exc:  # noqa: BLE001 - no input file may crash the batch
        return [], f"cannot be read ({type(exc).__name__}: {str(exc)[:200]})"


@contextmanager
def dask_client(address: str, *, workers: int = 2) -> Iterator[Any]:
    """Connect to a Dask scheduler, or start a temporary local cluster for ``"local"``.

    A local cluster's workers get the flow's Prefect API (``PREFECT_API_URL``, or the address of
    the ephemeral server this process runs) so that Prefect tasks sent to them report there
    instead of each starting a Prefect server of its own. Workers of a remote cluster need
    ``PREFECT_API_URL`` set in their own environment for that.
    """
    from distributed import Client, LocalCluster

    if address != "local":
        check_scheduler(address)
        with Client(address) as client:
            yield client
        return
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None, env=local_worker_env()) as cluster, \
            Client(cluster) as client:
        yield client


def local_worker_env() -> dict[str, str]:
    """Environment for the workers of a local Dask cluster: the flow's Prefect API.

    ``PREFECT_API_URL``, or the address of the ephemeral server this process runs, so that
    Prefect tasks sent to the workers report there instead of each starting a server.
    """
    api = os.environ.get("PREFECT_API_URL") or _ephemeral_api_url()
    return {"PREFECT_API_URL": api} if api else {}


def _ephemeral_api_url() -> str | None:
    """Return the API of the ephemeral Prefect server this process started, if any."""
    import sys

    if "prefect" not in sys.modules:
        return None
    from prefect.server.api.server import SubprocessASGIServer
    from prefect.settings import get_current_settings

    url = get_current_settings().api.url
    if url:
        return str(url)
    server = SubprocessASGIServer()
    return server.api_url if server.running else None
