"""Publishing a run: the HTML report folder and ClaimReview JSON-LD, from the warehouse.

Reads what the pages need (judgments, document titles and publishers, lineage edges, where each
claim appeared) and hands it to the pure renderers of ``affidavit.tasks.reports``; writes every
file atomically (temporary file, then rename).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import polars as pl

from affidavit.tasks.reports import (
    COUNTED_STANCES,
    PublishConfig,
    ReportSection,
    claimreview_nodes,
    render_report,
)
from affidavit.warehouse.store import Warehouse

_DOC_META = ["doc_id", "url", "title", "host", "author", "published_at"]


def publish_config_from_env(environ: Mapping[str, str] | None = None) -> PublishConfig:
    """The publishing settings of ``AFFIDAVIT_PUBLISH_BASE_URL`` / ``AFFIDAVIT_PUBLISHER_*``.

    Raises:
        ValueError: For a set URL that is not http(s).
    """
    return PublishConfig.from_env(os.environ if environ is None else environ)


def _write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def document_meta(wh: Warehouse, doc_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Return doc_id → {url, title, host, author, published_at} for the given documents."""
    ids = sorted({d for d in doc_ids if d})
    if not ids:
        return {}
    df = wh.read("documents", columns=_DOC_META, where="doc_id in (select unnest($ids))",
                 params={"ids": ids}).unique("doc_id")
    return {str(r["doc_id"]): r for r in df.iter_rows(named=True)}


def claim_sources(wh: Warehouse, claim_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Return, per claim extracted from a stored document, where it appeared.

    Returns:
        claim_id → ``{source_url, source_title, source_publisher, source_author,
        source_published_at}`` (the keys :func:`affidavit.tasks.reports.claimreview_jsonld`
        reads); claims given directly (files, texts) are absent.
    """
    if not claim_ids:
        return {}
    df = wh.query(
        "select c.claim_id, d.url, d.title, d.host, d.author, d.published_at "
        "from claims c join documents d on d.doc_id = c.source_doc_id "
        "where c.claim_id in (select unnest($ids))",
        {"ids": list(claim_ids)},
    ).unique("claim_id")
    return {
        str(r["claim_id"]): {"source_url": r["url"], "source_title": r["title"],
                             "source_publisher": r["host"], "source_author": r["author"],
                             "source_published_at": r["published_at"]}
        for r in df.iter_rows(named=True)
    }


def gather_report_inputs(
    wh: Warehouse, judgments: pl.DataFrame | None
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """Collect the evidence, lineage and document names the report pages show.

    Args:
        wh: The warehouse.
        judgments: The run's judgments (one row per (claim, document, judge)), with
            ``origin_doc_id`` when the research loop added it.

    Returns:
        ``(evidence, lineage, documents)`` as :func:`render_report` takes them: every judgment
        of a claim (the document text joined only to counted admitted rows), the lineage edges
        among each claim's evidence documents and their origins, and the title/publisher of
        every document named.
    """
    evidence: dict[str, list[dict[str, Any]]] = {}
    lineage: dict[str, dict[str, Any]] = {}
    if judgments is None or judgments.is_empty():
        return evidence, lineage, {}
    j = judgments
    if "origin_doc_id" not in j.columns:
        j = j.with_columns(pl.lit(None, dtype=pl.String).alias("origin_doc_id"))
    if j["origin_doc_id"].null_count():
        origins = wh.read("origins", columns=["doc_id", "origin_doc_id"],
                          where="doc_id in (select unnest($ids))",
                          params={"ids": j["doc_id"].unique().to_list()}).unique("doc_id")
        j = j.join(origins.rename({"origin_doc_id": "_origin"}), on="doc_id", how="left")
        j = j.with_columns(pl.coalesce("origin_doc_id", "_origin").alias("origin_doc_id"))
        j = j.drop("_origin")
    counted = j.filter(pl.col("is_admitted") & pl.col("stance").is_in(list(COUNTED_STANCES)))
    texts = wh.texts(counted["doc_id"].unique().to_list()).select("doc_id", "text")
    doc_ids = set(j["doc_id"].to_list()) | {o for o in j["origin_doc_id"].to_list() if o}
    documents = document_meta(wh, doc_ids)
    j = j.drop([c for c in ("text",) if c in j.columns]).join(
        texts.rename({"text": "_text"}), on="doc_id", how="left")
    j = j.with_columns(
        pl.when(pl.col("is_admitted") & pl.col("stance").is_in(list(COUNTED_STANCES)))
        .then(pl.col("_text")).otherwise(None).alias("text")).drop("_text")
    ids = sorted(set(counted["doc_id"].to_list())
                 | {o for o in counted["origin_doc_id"].to_list() if o})
    edges = (wh.read("lineage_edges",
                     columns=["parent_doc_id", "child_doc_id", "kind", "jaccard"],
                     where="parent_doc_id in (select unnest($ids)) "
                           "and child_doc_id in (select unnest($ids))",
                     params={"ids": ids}) if ids else pl.DataFrame())
    for (cid,), g in j.group_by("claim_id"):
        evidence[str(cid)] = g.to_dicts()
        c = g.filter(pl.col("is_admitted") & pl.col("stance").is_in(list(COUNTED_STANCES)))
        members = set(c["doc_id"].to_list()) | {o for o in c["origin_doc_id"].to_list() if o}
        if not members:
            continue
        origin_of = dict(zip(c["doc_id"].to_list(), c["origin_doc_id"].to_list(), strict=True))
        lineage[str(cid)] = {
            "documents": [{**documents.get(d, {"doc_id": d}), "doc_id": d,
                           "origin_doc_id": origin_of.get(d) or d} for d in sorted(members)],
            "edges": edges.filter(pl.col("parent_doc_id").is_in(list(members))
                                  & pl.col("child_doc_id").is_in(list(members))).to_dicts()
            if edges.height else [],
        }
    return evidence, lineage, documents


@dataclass(frozen=True, slots=True)
class PublishedReport:
    """Files written for a run.

    Attributes:
        index: ``report.html`` (open it in a browser).
        claimreview: ``claimreview.jsonld``.
        n_pages: Claim pages written.
        n_reviews: ClaimReview nodes written.
        left_out: Verdicts not written as ClaimReview, by reason.
        notes: What the run should tell the user (a publishing setting that was ignored).
    """

    index: Path
    claimreview: Path
    n_pages: int
    n_reviews: int
    left_out: dict[str, int]
    notes: tuple[str, ...] = ()


def write_run_report(
    wh: Warehouse,
    run_info: Mapping[str, Any],
    verdicts: Sequence[Mapping[str, Any]],
    judgments: pl.DataFrame | None,
    *,
    now: datetime,
    config: PublishConfig | None = None,
    sections: Sequence[ReportSection] = (),
) -> PublishedReport:
    """Write a run's report folder ``<home>/reports/<run_id>/``.

    Args:
        wh: The warehouse.
        run_info: ``runs`` row of the run (``run_id`` required).
        verdicts: The run's verdict rows.
        judgments: The run's judgments, or None.
        now: Fallback publication time of the reviews.
        config: Publishing settings (default: from the environment).
        sections: Extra sections of the index page.

    Returns:
        The files written.
    """
    notes: list[str] = []
    if config is None:
        try:
            config = publish_config_from_env()
        except ValueError as exc:  # a run's verdicts are written: never fail on its report
            notes.append(f"publishing settings ignored ({exc}); ClaimReview urls use "
                         f"{PublishConfig().base_url}")
            config = PublishConfig()
    folder = wh.paths.reports / str(run_info["run_id"])
    sources = claim_sources(wh, [str(v["claim_id"]) for v in verdicts])
    nodes, left_out = claimreview_nodes(
        [{**v, **sources.get(str(v["claim_id"]), {})} for v in verdicts], config=config, now=now)
    by_url = {n["url"]: n for n in nodes}
    embedded = {str(v["claim_id"]): by_url[config.claim_url(v["claim_id"])] for v in verdicts
                if config.claim_url(v["claim_id"]) in by_url}
    evidence, lineage, documents = gather_report_inputs(wh, judgments)
    pages = render_report(run_info, verdicts, evidence, lineage, documents=documents,
                          sections=sections, claimreviews=embedded)
    for rel, html in pages.items():
        if rel != "report.html":
            _write_text(folder / rel, html)
    _write_text(folder / "report.html", pages["report.html"])  # last: the index links to all
    jpath = folder / "claimreview.jsonld"
    _write_text(jpath, json.dumps(nodes, indent=1, default=str, ensure_ascii=False))
    return PublishedReport(folder / "report.html", jpath, len(pages) - 1, len(nodes),
                           dict(left_out), tuple(notes))


def rebuild_run_report(wh: Warehouse, run_id: str, *, now: datetime,
                       config: PublishConfig | None = None) -> PublishedReport:
    """Write a stored run's report folder again from its rows in the warehouse.

    Raises:
        ValueError: When the run has no verdicts.
    """
    verdicts = wh.query("select * from verdicts where run_id = $run", {"run": run_id}).to_dicts()
    if not verdicts:
        raise ValueError(f"run {run_id!r} has no verdicts")
    runs = wh.query("select * from runs where run_id = $run order by finished_at desc nulls last",
                    {"run": run_id}).to_dicts()
    judgments = wh.query("select * from judgments where run_id = $run", {"run": run_id})
    run_info = runs[0] if runs else {"run_id": run_id}
    return write_run_report(wh, run_info, verdicts, judgments, now=now, config=config)


def export_claimreview(
    wh: Warehouse,
    *,
    run_id: str | None = None,
    statuses: Sequence[str] | None = None,
    now: datetime,
    config: PublishConfig | None = None,
) -> tuple[list[dict[str, Any]], Counter[str], int]:
    """Build ClaimReview JSON-LD from the warehouse.

    Args:
        wh: The warehouse.
        run_id: One run's verdicts; None for the latest verdict of every claim.
        statuses: Only these statuses (None: every published status).
        now: Fallback publication time.
        config: Publishing settings (default: from the environment).

    Returns:
        ``(nodes, left_out, n_verdicts)``.

    Raises:
        ValueError: When ``run_id`` names no run with verdicts.
    """
    config = config or publish_config_from_env()
    if run_id:
        df = wh.query("select * from verdicts where run_id = $run order by claim_id",
                      {"run": run_id})
        if df.is_empty():
            raise ValueError(f"run {run_id!r} has no verdicts")
    else:
        df = wh.query("select * from verdicts_latest order by claim_id")
    rows = df.to_dicts()
    sources = claim_sources(wh, [str(v["claim_id"]) for v in rows])
    nodes, left_out = claimreview_nodes(
        [{**v, **sources.get(str(v["claim_id"]), {})} for v in rows], config=config, now=now,
        statuses=statuses)
    return nodes, left_out, len(rows)
