"""The answer audit flows: ``audit_sessions`` (records in batches) and ``audit_answer``.

``audit_sessions`` reads a file of records; ``audit_answer`` one answer and its evidence files.

read records → batches fanned out, one Prefect task each (scanner + auditor, on local
processes, every core by default, or Dask: ``affidavit.flows.fanout``) → ``audits`` /
``audit_claims`` (idempotent, written in record order) → report → run record. Records are
audited independently, so a parallel run equals a sequential one. A batch that still fails
after its retries is recorded and the run ends FAILED; the other batches land. Records without
evidence are audited by the scanner alone; a failed model call leaves its record unlabelled,
counted in the run and stored in ``audits.degraded``.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain, islice
from pathlib import Path
from typing import Any

import pyarrow as pa
from prefect import flow, task
from prefect.cache_policies import NO_CACHE

from affidavit.flows.context import (
    RunFailed,
    RunRecord,
    finish_after_error,
    open_warehouse,
    sync_views,
    utcnow,
)
from affidavit.flows.fanout import (
    AUDITORS,
    BATCH_RETRIES,
    AuditBatchOutcome,
    AuditSpec,
    BatchPool,
    audit_batch,
    audit_batch_in_worker,
    audit_in_batch,
    batch_pool,
    make_auditor,
)
from affidavit.flows.supervise import retry_unless_interrupted
from affidavit.schemas.audits import AUDIT_CLAIMS_SCHEMA, AUDITS_SCHEMA, AuditRecord
from affidavit.schemas.enums import RunStatus
from affidavit.tasks.audit import (
    AuditOutcome,
    audit_key,
    audit_rows,
    iter_sessions,
    record_from_files,
)
from affidavit.tasks.ingest_common import REPAIRS
from affidavit.warehouse.store import Warehouse

__all__ = ["AUDITORS", "AuditRunResult", "audit_answer", "audit_batch", "audit_sessions",
           "make_auditor", "store_outcomes"]

DEFAULT_BATCH = 500
"""Records per Prefect task run: large enough that orchestration stays a small share of a run
(DESIGN.md: task runs per batch, never per row), small enough to write progress often."""


@dataclass
class AuditRunResult:
    """Outcome of an audit run.

    Attributes:
        run_id: The run.
        status: Run status.
        message: One line for the user.
        audits: The ``audits`` rows this run wrote (records audited before by the same auditor
            are skipped and counted in ``already_audited``), the first
            :data:`REPORT_MAX_AUDITS` of them.
        claims: Their ``audit_claims`` rows.
        counts: Records read, rows written, skips by reason, failures.
        degraded: What the run lacked (model failures).
        messages: Notes (columns used, skipped lines).
        report_path: The run's HTML report.
    """

    run_id: str
    status: RunStatus
    message: str
    audits: list[dict[str, Any]] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    degraded: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    report_path: str | None = None


def store_outcomes(wh: Warehouse, outcomes: Sequence[AuditOutcome], *, run: RunRecord,
                   source: str | None, known: dict[str, set[tuple[Any, ...]]]
                   ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Write a batch's rows (only those not stored yet) and count them in the run.

    Returns:
        The batch's audit and claim rows (all of them, stored before or now).
    """
    now = utcnow()
    audits, claims = [], []
    for o in outcomes:
        a, cs = audit_rows(o, run_id=run.run_id, now=now, source=source)
        audits.append(a)
        claims.extend(cs)
        run.counts[f"auditor:{o.auditor}"] += 1
        if o.degraded:
            run.counts["llm_failures" if o.degraded.startswith("llm failed") else
                       "lexical_failures" if o.degraded.startswith("lexical failed") else
                       "llm_partial_replies"] += 1
        run.counts["contradictions_demoted"] += o.n_demoted
        for reason, n in o.skipped.items():  # questions and instructions: not claims
            run.counts[f"skip:{reason}"] += n
        for c in o.claims:
            run.counts[f"label:{c.label.value if c.label else 'UNLABELLED'}"] += 1
    if audits:
        added = wh.append_new("audits", pa.Table.from_pylist(audits, schema=AUDITS_SCHEMA),
                              known=known["audits"])
        run.counts["audits_written"] += added.height
    if claims:
        added = wh.append_new("audit_claims",
                              pa.Table.from_pylist(claims, schema=AUDIT_CLAIMS_SCHEMA),
                              known=known["audit_claims"])
        run.counts["audit_claims_written"] += added.height
    return audits, claims


@task(name="audit-batch", retries=BATCH_RETRIES, retry_delay_seconds=1, cache_policy=NO_CACHE,
      retry_condition_fn=retry_unless_interrupted)
def audit_batch_task(batch_no: int, records: list[AuditRecord], pool: BatchPool
                     ) -> AuditBatchOutcome:
    """One Prefect task run per batch of records: audit it where ``pool`` runs batches.

    A failure is retried ``BATCH_RETRIES`` times; nothing is written by the task (the flow
    writes each batch's rows, in record order), so a retry adds no rows.
    """
    return pool.run(batch_no, records)


REPORT_MAX_AUDITS = 1000
"""Most audits listed in a run's report and kept in its result (the first ones; the tables hold
them all), so that a run over a million records stays bounded in memory."""


def _execute(wh: Warehouse, run: RunRecord, records: Iterable[AuditRecord], *, auditor: str,
             card_path: str | None, source: str | None, batch_size: int,
             progress: Callable[[int], None] | None, workers: int | None = 1,
             dask: str | None = None) -> AuditRunResult:
    """Audit the records in batches, one Prefect task per batch, and write them in order.

    Raises:
        RunFailed: When a batch still failed after its retries; the other batches are written
            and the exception carries the result.
    """
    engine = make_auditor(auditor, card_path=card_path)
    known = {"audits": wh.existing_keys("audits"), "audit_claims": wh.existing_keys("audit_claims")}
    kept_audits: list[dict[str, Any]] = []
    kept_claims: list[dict[str, Any]] = []
    degradations: list[str] = []
    failed: list[str] = []
    n_audits = n_claims = 0
    earlier: list[str] = []  # audit ids of records audited before (skipped, reported as stored)
    it = iter(records)
    # the first two batches are read ahead: a pool of processes pays off from two batches
    ahead = [b for b in (list(islice(it, batch_size)), list(islice(it, batch_size))) if b]
    raw: Iterator[list[AuditRecord]] = chain(ahead, iter(lambda: list(islice(it, batch_size)), []))

    def land(batch_no: int, n_read: int, n_todo: int, fut: Any) -> None:
        nonlocal n_audits, n_claims, kept_audits, kept_claims
        fut.wait()
        state = fut.state
        if state.is_completed():
            outcome: AuditBatchOutcome = state.result()
            degradations.extend(outcome.degradations)
            a, c = store_outcomes(wh, outcome.outcomes, run=run, source=source, known=known)
            n_audits += len(a)
            n_claims += len(c)
            room = REPORT_MAX_AUDITS - len(kept_audits)
            if room > 0:
                kept_audits += a[:room]
                ids = {x["audit_id"] for x in a[:room]}
                kept_claims += [x for x in c if x["audit_id"] in ids]
        else:
            exc = state.result(raise_on_failure=False)
            run.counts["batches_failed"] += 1
            failed.append(f"batch {batch_no + 1} ({n_todo} records) failed after "
                          f"{BATCH_RETRIES} retries: {type(exc).__name__}: {exc}")
        if progress is not None:
            progress(n_read)

    try:
        with batch_pool(len(ahead), run_inline=lambda no, recs: audit_in_batch(no, recs, engine),
                        make_spec=lambda: AuditSpec(auditor, card_path), workers=workers,
                        dask=dask, worker_fn=audit_batch_in_worker) as pool:
            # batches in flight: enough to keep every worker busy, few enough to bound memory
            in_flight = 1 if pool.kind == "inline" else 2 * pool.workers
            pending: deque[tuple[int, int, int, Any]] = deque()
            submitted: set[tuple[str]] = set()  # keys of records sent in earlier batches
            for batch_no, batch in enumerate(raw):
                run.counts["records_read"] += len(batch)
                todo = [r for r in batch if (k := (audit_key(r, engine.name),))
                        not in known["audits"] and k not in submitted]
                submitted.update((audit_key(r, engine.name),) for r in todo)
                run.counts["already_audited"] += len(batch) - len(todo)
                if len(earlier) < REPORT_MAX_AUDITS:
                    earlier += [k for r in batch
                                if ((k := audit_key(r, engine.name)),) in known["audits"]][
                        : REPORT_MAX_AUDITS - len(earlier)]
                fut = None
                if todo:
                    run.counts[f"batches_{pool.kind}"] += 1
                    fut = audit_batch_task.submit(batch_no, todo, pool)
                pending.append((batch_no, len(batch), len(todo), fut))
                while pending and (pending[0][3] is None or
                                   sum(p[3] is not None for p in pending) >= in_flight):
                    _land_next(pending, land, progress)
            while pending:
                _land_next(pending, land, progress)
    finally:
        if hasattr(engine, "close"):
            engine.close()
    failures = run.counts.get("llm_failures", 0)
    if failures:
        run.degraded.append(f"llm auditor failed on {failures} record(s); they are unlabelled")
        run.messages += [f"llm: {d}" for d in degradations[:20]]
    if lexical_failures := run.counts.get("lexical_failures", 0):
        run.degraded.append(f"lexical auditor failed on {lexical_failures} record(s); they are "
                            "unlabelled")
    room = REPORT_MAX_AUDITS - len(kept_audits)
    if earlier and room > 0:
        # a record audited before is reported with its stored audit, so that a re-run (say
        # with --json) shows the labels instead of an empty list
        a, c = _stored_audits(wh, earlier[:room])
        kept_audits += a
        kept_claims += c
    if n_audits > len(kept_audits):
        run.messages.append(f"the report lists the first {len(kept_audits)} of {n_audits} "
                            "audits; the audits table holds them all")
    report = _write_report(wh, run, kept_audits, kept_claims)
    sync_views(wh, run)
    msg = f"{n_audits} answer{'s' if n_audits != 1 else ''} audited, {n_claims} claims"
    if run.counts.get("already_audited"):
        msg += f"; {run.counts['already_audited']} already audited by {engine.name} (skipped)"
    if failures:
        msg += f"; the llm auditor failed on {failures}"
    status = RunStatus.FAILED if failed else RunStatus.COMPLETED
    if failed:
        msg = "; ".join(failed) + f" — {msg}"
        run.messages.extend(failed)
    run.finish(status, msg)
    result = AuditRunResult(run.run_id, status, msg, kept_audits, kept_claims,
                            dict(run.counts), list(run.degraded), list(run.messages), str(report))
    if failed:
        raise RunFailed(msg, result)
    return result


def _stored_audits(wh: Warehouse, ids: list[str]) -> tuple[list[dict[str, Any]],
                                                            list[dict[str, Any]]]:
    """The stored ``audits`` and ``audit_claims`` rows of these audit ids (in their order)."""
    audits = wh.query("select * from audits where audit_id in (select unnest($ids))",
                      {"ids": ids}).to_dicts()
    claims = wh.query("select * from audit_claims where audit_id in (select unnest($ids))",
                      {"ids": ids}).to_dicts()
    order = {k: i for i, k in enumerate(ids)}
    audits.sort(key=lambda r: order.get(r["audit_id"], len(order)))
    return audits, claims


def _land_next(pending: deque[tuple[int, int, int, Any]],
               land: Callable[[int, int, int, Any], None],
               progress: Callable[[int], None] | None) -> None:
    """Write the oldest batch in flight (batches land in record order)."""
    batch_no, n_read, n_todo, fut = pending.popleft()
    if fut is None:  # a batch of records audited before: only its progress
        if progress is not None:
            progress(n_read)
        return
    land(batch_no, n_read, n_todo, fut)


def _write_report(wh: Warehouse, run: RunRecord, audits: list[dict[str, Any]],
                  claims: list[dict[str, Any]]) -> Path:
    from affidavit.tasks.reports import render_audit_report

    folder = wh.paths.reports / run.run_id
    folder.mkdir(parents=True, exist_ok=True)
    html = render_audit_report({"run_id": run.run_id, "degraded": run.degraded}, audits, claims)
    path = folder / "report.html"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(html, encoding="utf-8")
    tmp.replace(path)
    return path


@flow(name="audit_sessions", log_prints=False, validate_parameters=False)
def audit_sessions(
    path: str,
    *,
    auditor: str = "lexical",
    card_path: str | None = None,
    id_column: str | None = None,
    answer_column: str | None = None,
    evidence_column: str | None = None,
    limit: int | None = None,
    batch_size: int = DEFAULT_BATCH,
    home: str | None = None,
    progress: Callable[[int], None] | None = None,
    workers: int | None = None,
    dask: str | None = None,
) -> AuditRunResult:
    """Audit a file of answer records (JSONL, JSON, Parquet), in batches fanned out as tasks.

    Args:
        path: The sessions file, one record per answer: ``{id, answer, evidence: [{tool,
            input, output}]}``.
        auditor: ``lexical`` or ``llm``.
        card_path: Facts-and-limits card of the LLM auditor.
        id_column: Column mapping (auto-detected when ``None``).
        answer_column: Column mapping.
        evidence_column: Column mapping.
        limit: At most this many records.
        batch_size: Records per task run.
        home: affidavit home.
        progress: Called with the number of records of each finished batch.
        workers: Local worker processes (default ``$AFFIDAVIT_WORKERS`` or every core; one
            batch, or one worker, runs in this process).
        dask: A Dask scheduler address or ``"local"`` (default ``$AFFIDAVIT_DASK_ADDRESS``).

    Raises:
        FileNotFoundError: When the file does not exist.
        ValueError: For an unreadable file, an unknown auditor, a bad batch size.
        RunFailed: When a batch failed after its retries (the others are written; the
            exception carries the result and the flow run ends FAILED).
    """
    if auditor not in AUDITORS:
        raise ValueError(f"unknown auditor {auditor!r}: use lexical or llm")
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    wh = open_warehouse(home)
    run = RunRecord(wh, "audit_sessions", {"path": path, "auditor": auditor, "card": card_path,
                                           "limit": limit, "batch_size": batch_size}).start()
    try:
        skips: Counter[str] = Counter()
        notes: list[str] = []
        records = iter_sessions(path, skips=skips, notes=notes, id_column=id_column,
                                answer_column=answer_column, evidence_column=evidence_column,
                                limit=limit)
        try:
            result = _execute(wh, run, records, auditor=auditor, card_path=card_path,
                              source=path, batch_size=batch_size, progress=progress,
                              workers=workers, dask=dask)
        except RunFailed as failed:
            result = failed.result
        name = str(path)  # the file as the user gave it, as every note names it
        if skips:  # counted as the file was streamed: rewrite the run's row with them
            run.counts.update({(f"repaired:{k}" if k in REPAIRS else f"skip:{k}"): v
                               for k, v in skips.items()})
            if not run.counts.get("records_read"):
                # nothing readable in the file: refused, as every command refuses such input
                run.counts["sources_refused"] = 1
                notes.append("no answer record could be read: refused")
            run.finish(result.status, result.message)
            result.counts = dict(run.counts)
        result.messages = [f"{name}: {n}" for n in notes] + result.messages
        if result.status is RunStatus.FAILED:
            raise RunFailed(result.message, result)
        return result
    except RunFailed:
        raise
    except BaseException as exc:  # a stop (Ctrl-C, SIGTERM) is recorded abandoned
        finish_after_error(run, exc, failed_anyway=True)
        raise


@flow(name="audit_answer", log_prints=False, validate_parameters=False)
def audit_answer(
    answer_path: str,
    evidence_paths: Sequence[str] = (),
    *,
    auditor: str = "lexical",
    card_path: str | None = None,
    home: str | None = None,
) -> AuditRunResult:
    """Audit one answer file against evidence files (each file one tool output).

    Raises:
        FileNotFoundError: When a file does not exist.
        ValueError: For an empty answer or an unknown auditor.
    """
    if auditor not in AUDITORS:
        raise ValueError(f"unknown auditor {auditor!r}: use lexical or llm")
    wh = open_warehouse(home)
    run = RunRecord(wh, "audit_answer", {"answer": answer_path, "evidence": list(evidence_paths),
                                         "auditor": auditor, "card": card_path}).start()
    try:
        notes: list[str] = []
        record = record_from_files(answer_path, evidence_paths, notes=notes)
        if notes:  # control characters removed: kept, counted as a repair (one a file)
            run.counts["repaired:control_chars_removed"] += len(notes)
            run.messages.extend(notes)
        return _execute(wh, run, [record], auditor=auditor, card_path=card_path,
                        source=f"answer:{answer_path}", batch_size=1, progress=None)
    except BaseException as exc:  # a stop (Ctrl-C, SIGTERM) is recorded abandoned
        finish_after_error(run, exc, failed_anyway=True)
        raise
