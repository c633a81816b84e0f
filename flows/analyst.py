"""The analyst's one-off flows: verify, research, source, recall, origins."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import polars as pl
from prefect import flow

from affidavit.flows.context import open_warehouse, utcnow, writing_run
from affidavit.flows.factcheck import FactcheckResult, execute_research_run
from affidavit.flows.reads import (
    OriginsResult,
    load_documents,
    origins_of,
    page_url,
    profile_source,
    read_page_bytes,
    recall_findings,
)
from affidavit.schemas.enums import Mode
from affidavit.tasks.claims import build_claim_rows, decompose_claim, extract_claims
from affidavit.tasks.ingest_common import ColumnMapping
from affidavit.tasks.queries import MODES
from affidavit.tasks.sources import SourceProfile

__all__ = ["OriginsResult", "check_source", "load_documents", "origins", "page_url",
           "read_page_bytes", "recall", "research_question", "verify"]


@flow(name="verify", log_prints=False, validate_parameters=False)
def verify(
    text: str,
    *,
    mode: str = "standard",
    judge: str = "lexical",
    home: str | None = None,
    workers: int | None = None,
    dask: str | None = None,
    round_progress: Callable[[int, int], None] | None = None,
) -> FactcheckResult:
    """Check a text claim by claim.

    The text is split into check-worthy claims (``affidavit.tasks.claims.extract_claims``); when
    none scores
    as check-worthy, the whole text is checked as one claim.

    Raises:
        ValueError: For empty text, an unknown mode or judge.
    """
    if not text.strip():
        raise ValueError("nothing to verify: the text is empty")
    mode_enum = Mode(mode)
    with writing_run(home, "verify", {"text_chars": len(text), "mode": mode,
                                      "judge": judge}) as (wh, run):
        now = run.started_at
        cands = extract_claims(text)
        claims = build_claim_rows(cands if cands else [text.strip()], now=now, origin="text")
        return execute_research_run(wh, run, claims, judge=judge, mode=mode_enum, now=now,
                                    progress=round_progress, workers=workers, dask=dask)


@flow(name="research", log_prints=False, validate_parameters=False)
def research_question(
    question: str,
    *,
    mode: str = "standard",
    judge: str = "lexical",
    home: str | None = None,
    workers: int | None = None,
    dask: str | None = None,
    round_progress: Callable[[int, int], None] | None = None,
) -> FactcheckResult:
    """Research a question in adversarial rounds: sub-questions, advocate and prosecutor sides.

    Raises:
        ValueError: For an empty question, an unknown mode or judge.
    """
    if not question.strip():
        raise ValueError("nothing to research: the question is empty")
    mode_enum = Mode(mode)
    with writing_run(home, "research", {"question": question, "mode": mode,
                                        "judge": judge}) as (wh, run):
        now = run.started_at
        subs = decompose_claim(question)[: MODES[mode_enum].sub_questions] or [question]
        claims = build_claim_rows(subs, now=now, origin="question")
        return execute_research_run(wh, run, claims, judge=judge, mode=mode_enum, now=now,
                                    progress=round_progress, workers=workers, dask=dask)


@flow(name="source", log_prints=False, validate_parameters=False)
def check_source(target: str, *, home: str | None = None, wayback: bool = False,
                 url: str | None = None) -> SourceProfile:
    """Profile one source as a flow run (``affidavit.flows.reads.profile_source``).

    Raises:
        ValueError: When the target cannot be read or fetched.
    """
    open_warehouse(home)  # Prefect environment under the home
    return profile_source(target, wayback=wayback, url=url)


@flow(name="recall", log_prints=False, validate_parameters=False)
def recall(query: str, *, limit: int = 20, home: str | None = None) -> pl.DataFrame:
    """Return prior unexpired verdicts matching ``query`` (see ``reads.recall_findings``)."""
    return recall_findings(open_warehouse(home), query, limit=limit, now=utcnow())


@flow(name="origins", log_prints=False, validate_parameters=False)
def origins(targets: Sequence[str], *, home: str | None = None,
            mapping: ColumnMapping | None = None) -> OriginsResult:
    """Compute the lineage of a set of documents (``affidavit.flows.reads.origins_of``).

    Dumps are read with ``mapping`` (the default column names when None).
    """
    open_warehouse(home)
    return origins_of(targets, mapping=mapping)
