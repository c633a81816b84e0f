"""The research loop: rounds of queries → search → judge → anchor gate → interim tribunal.

Every round is one batch over all active claims: one search call per provider, one judge batch,
one anchor pass. Rounds stop per claim on saturation (two consecutive rounds under 15% new
documents), when the planner has no new query, or when the mode's round budget is spent.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import polars as pl

from affidavit.flows.context import RunRecord
from affidavit.schemas.enums import AnchorKind, Mode, Side, Stance
from affidavit.tasks.anchor import AnchorCache, anchor_quote
from affidavit.tasks.gates import BudgetItem, gate_budget, gate_saturation, reason_code
from affidavit.tasks.judge_frame import date_gate
from affidavit.tasks.judges import Judge
from affidavit.tasks.queries import MODES, detect_gaps, plan_queries
from affidavit.tasks.search import SearchHit, SearchProvider
from affidavit.tasks.sources import (
    CredibilityLists,
    classify_source,
    credibility_weight,
    is_primary,
)
from affidavit.tasks.tribunal import TribunalConfig, decide
from affidavit.warehouse.store import Warehouse

BUDGET_CHARS_PER_ROUND = 2_000_000
"""Evidence budget: characters of document text judged per claim and round (≈ 500 pages of
4 KB). Ranked by search score; what does not fit is skipped and counted, the rest goes on."""

HITS_PER_QUERY = 10
"""Results asked of each provider for each query."""


@dataclass
class ClaimState:
    """Research state of one claim across rounds."""

    claim_id: str
    text: str
    excluded: set[str] = field(default_factory=set)
    own_found: set[str] = field(default_factory=set)
    issued: set[str] = field(default_factory=set)
    seen: set[str] = field(default_factory=set)
    novelty: list[float] = field(default_factory=list)
    gaps: frozenset[str] = frozenset()
    stopped: str | None = None
    rounds_run: int = 0


@dataclass
class ResearchResult:
    """What the research loop produced for a batch of claims.

    Attributes:
        judgments: ``judgments`` rows (``affidavit.schemas.judgments.JUDGMENTS_SCHEMA`` columns)
        plus the
            evidence columns the tribunal reads (origin_doc_id, origin_host, host, url,
            credibility).
        queries: ``queries`` rows.
        queries_tried: Query texts per claim_id.
        stop_reasons: Why each claim's rounds ended.
    """

    judgments: pl.DataFrame
    queries: list[dict[str, Any]]
    queries_tried: dict[str, list[str]]
    stop_reasons: dict[str, str]
    rounds_run: dict[str, int]


def _query_id(run_id: str, claim_id: str, round_no: int, text: str, provider: str) -> str:
    h = hashlib.sha256(f"{run_id}|{claim_id}|{round_no}|{provider}|{text}".encode())
    return h.hexdigest()[:16]


def lineage_of(wh: Warehouse, doc_ids: Sequence[str]) -> dict[str, set[str]]:
    """Return, for each document, every document of its lineage (itself included)."""
    ids = [d for d in set(doc_ids) if d]
    if not ids:
        return {}
    df = wh.query(
        "select o.doc_id as doc_id, m.doc_id as member from origins o "
        "join origins m on m.lineage_id = o.lineage_id "
        "where o.doc_id in (select unnest($ids))",
        {"ids": ids},
    )
    out: dict[str, set[str]] = {d: {d} for d in ids}
    for d, m in df.iter_rows():
        out[d].add(m)
    return out


def evidence_context(wh: Warehouse, doc_ids: Sequence[str]) -> pl.DataFrame:
    """Return, per document: url, host, text, content hash, origin and the origin's host."""
    ids = sorted(set(doc_ids))
    return wh.query(
        "select d.doc_id, d.url, d.host, d.title, d.text, d.content_sha256, d.published_at, "
        "coalesce(o.origin_doc_id, d.doc_id) as origin_doc_id, "
        "coalesce(od.host, d.host) as origin_host "
        "from documents d left join origins o on o.doc_id = d.doc_id "
        "left join documents od on od.doc_id = o.origin_doc_id "
        "where d.doc_id in (select unnest($ids)) "
        "qualify row_number() over (partition by d.doc_id "
        "order by d.fetched_at desc nulls last) = 1",
        {"ids": ids},
    )


def research(
    wh: Warehouse,
    claims: Sequence[Mapping[str, Any]],
    *,
    run: RunRecord,
    mode: Mode,
    judge: Judge,
    providers: Sequence[SearchProvider],
    now: datetime,
    materialize: Callable[[list[SearchHit]], dict[str, str]] | None = None,
    progress: Callable[[int, int], None] | None = None,
    credibility_lists: CredibilityLists | None = None,
) -> ResearchResult:
    """Research claims in rounds and return their judgments and queries.

    Args:
        wh: The warehouse (documents, origins).
        claims: Dicts with ``claim_id``, ``text`` and optionally ``source_doc_id`` (a claim is
            never corroborated by its source document's lineage).
        run: The run record (counts, messages).
        mode: Research mode (rounds, queries per side; DESIGN.md, Research modes).
        judge: The judge (lexical or llm).
        providers: Search providers; hits with a ``doc_id`` are documents of the warehouse.
        now: The run's clock.
        materialize: Turns web hits (URL, no doc_id) into stored documents; returns url → doc_id.
        progress: Called with (round number, claims still active).
        credibility_lists: Hosts of low / high credibility the user pointed to.
    """
    cfg = MODES[mode]
    tribunal = TribunalConfig(origins_for_supported=cfg.origins_for_supported)
    states = {str(c["claim_id"]): ClaimState(str(c["claim_id"]), str(c["text"])) for c in claims}
    sources = {str(c["claim_id"]): c.get("source_doc_id") for c in claims}
    lineages = lineage_of(wh, [s for s in sources.values() if s])
    for cid, src in sources.items():
        if src:
            states[cid].excluded = lineages.get(src, {src})
    cache = AnchorCache()
    judgment_frames: list[pl.DataFrame] = []
    query_rows: list[dict[str, Any]] = []
    source_weights: dict[str, float] = {}
    primary_docs: set[str] = set()

    for round_no in range(1, cfg.rounds + 1):
        active = [s for s in states.values() if s.stopped is None]
        if not active:
            break
        if progress:
            progress(round_no, len(active))
        # 1. plan
        planned: list[tuple[ClaimState, Any]] = []
        for st in active:
            qs = plan_queries(st.text, mode=mode, round_no=round_no, gaps=st.gaps,
                              issued=frozenset(st.issued))
            if not qs:
                st.stopped = "no new query to ask"
                continue
            st.rounds_run = round_no
            planned.extend((st, q) for q in qs)
        if not planned:
            break
        texts = [q.text for _, q in planned]
        # 2. search (one batch per provider)
        hits_by_q: list[list[SearchHit]] = [[] for _ in planned]
        for provider in providers:
            try:
                results = provider.search_many(texts, k=HITS_PER_QUERY)
            except Exception as exc:  # a provider failing must not lose the round
                run.counts[f"search_error:{provider.name}"] += 1
                run.messages.append(f"search provider {provider.name} failed: {exc}")
                continue
            for i, hits in enumerate(results):
                hits_by_q[i].extend(hits)
        if materialize:
            web_hits = [h for hits in hits_by_q for h in hits if h.doc_id is None and h.url]
            if web_hits:
                url_to_doc = materialize(web_hits)
                hits_by_q = [
                    [h if h.doc_id or not h.url or h.url not in url_to_doc else
                     SearchHit(h.provider, h.query, h.rank, h.score, url_to_doc[h.url], h.url,
                               h.title, h.snippet) for h in hits]
                    for hits in hits_by_q
                ]
        # 3. new documents per claim, queries rows
        new_docs: dict[str, dict[str, tuple[Side, float]]] = {}
        n_unique: Counter[str] = Counter()
        round_docs: dict[str, set[str]] = {}
        for (st, q), hits in zip(planned, hits_by_q, strict=True):
            ids = [h.doc_id for h in hits if h.doc_id]
            own = [d for d in dict.fromkeys(ids) if d in st.excluded and d not in st.own_found]
            if own:  # each of the claim's own documents once, however many queries found it
                st.own_found.update(own)
                run.counts["skip:self_lineage"] += len(own)
            ids = [d for d in ids if d not in st.excluded]
            fresh = [d for d in dict.fromkeys(ids) if d not in st.seen]
            for h in hits:
                if h.doc_id and h.doc_id in fresh:
                    side_score = new_docs.setdefault(st.claim_id, {}).get(h.doc_id)
                    score = float(h.score or 0.0)
                    side = q.side
                    if side_score is not None:
                        # found by both sides → judged as the advocate (admits every stance)
                        side = Side.ADVOCATE if Side.ADVOCATE in (side, side_score[0]) else side
                        score = max(score, side_score[1])
                    new_docs[st.claim_id][h.doc_id] = (side, score)
            round_docs.setdefault(st.claim_id, set()).update(ids)
            st.issued.add(q.text)
            providers_used = sorted({h.provider for h in hits}) or [p.name for p in providers]
            query_rows.append({
                "query_id": _query_id(run.run_id, st.claim_id, round_no, q.text,
                                      ",".join(providers_used)),
                "run_id": run.run_id, "claim_id": st.claim_id, "round": round_no,
                "angle": q.angle.value, "side": q.side.value, "text": q.text,
                "provider": ",".join(providers_used), "n_results": len(ids),
                "n_new_docs": len(fresh), "novelty": (len(fresh) / len(ids)) if ids else 0.0,
                "issued_at": now,
            })
        for st in active:
            if st.stopped:
                continue
            docs = round_docs.get(st.claim_id, set())
            n_unique[st.claim_id] = len(docs)
            fresh = set(new_docs.get(st.claim_id, {}))
            st.novelty.append(len(fresh) / len(docs) if docs else 0.0)
            st.seen |= docs
        # 4. judge the new (claim, document) pairs in one batch, within the evidence budget
        all_new = sorted({d for m in new_docs.values() for d in m})
        ctx = evidence_context(wh, all_new) if all_new else None
        ctx_rows = {r["doc_id"]: r for r in ctx.iter_rows(named=True)} if ctx is not None else {}
        pairs: list[tuple[str, str, Side, str]] = []
        for cid, docs in new_docs.items():
            items = [BudgetItem(d, len(ctx_rows[d]["text"] or ""), score)
                     for d, (_, score) in docs.items() if d in ctx_rows]
            admitted, skipped = gate_budget(items, budget_chars=BUDGET_CHARS_PER_ROUND)
            for _, reason in skipped:
                run.counts[f"skip:{reason}"] += 1
            pairs.extend((cid, d, docs[d][0], ctx_rows[d]["text"] or "") for d in admitted)
        if pairs:
            results = judge.judge_batch([(states[c].text, t) for c, _, _, t in pairs],
                                        titles=[ctx_rows[d]["title"] for _, d, _, _ in pairs],
                                        hosts=[ctx_rows[d]["host"] for _, d, _, _ in pairs],
                                        found=True)
            rows = []
            for (cid, doc_id, side, text), res in zip(pairs, results, strict=True):
                meta = ctx_rows[doc_id]
                if doc_id not in source_weights:
                    profile = classify_source(meta["url"], text=text,
                                              credibility_lists=credibility_lists)
                    source_weights[doc_id] = credibility_weight(profile)
                    if is_primary(profile):
                        primary_docs.add(doc_id)
                if res.is_failure:
                    run.counts["judge_failure"] += 1
                if res.quote:
                    anc = anchor_quote(res.quote, text, expected_sha256=meta["content_sha256"],
                                       cache=cache)
                    kind, start, end, reason = anc.kind, anc.span_start, anc.span_end, anc.reason
                else:
                    kind, start, end, reason = AnchorKind.FAILED, None, None, "no_quote"
                # a done fact of a year cannot be reported before that year began
                res = date_gate(states[cid].text, meta["published_at"], res)
                stance = Stance(res.stance)
                # admitted when its quote is anchored, whichever side's query found it: a stance
                # is read from the document's own text, so support a prosecutor query happens to
                # find is support (rejecting it lost support that was never judged again)
                admitted_flag = kind is not AnchorKind.FAILED
                if stance is Stance.NEUTRAL:
                    run.counts["judged_neutral"] += 1
                elif not admitted_flag:
                    run.counts[f"reject:{reason_code(reason or 'rejected')}"] += 1
                rows.append({
                    "run_id": run.run_id, "claim_id": cid, "doc_id": doc_id, "judge": res.judge,
                    "side": side.value, "stance": Stance(res.stance).value,
                    "relevance": float(res.relevance), "quote": res.quote,
                    "rationale": res.rationale, "anchor": kind.value, "span_start": start,
                    "span_end": end, "content_sha256": meta["content_sha256"],
                    "is_admitted": admitted_flag,
                    "reject_reason": None if admitted_flag else reason, "judged_at": now,
                    "url": meta["url"], "host": meta["host"],
                    "origin_doc_id": meta["origin_doc_id"], "origin_host": meta["origin_host"],
                    "credibility": source_weights[doc_id],
                })
            run.counts["judgments"] += len(rows)
            judgment_frames.append(pl.DataFrame(rows, infer_schema_length=None))
        # 5. interim tribunal → gaps; saturation gate
        so_far = pl.concat(judgment_frames, how="diagonal_relaxed") if judgment_frames else None
        for st in active:
            if st.stopped:
                continue
            ev = so_far.filter(pl.col("claim_id") == st.claim_id) if so_far is not None else None
            has_primary = False
            if ev is not None and ev.height:
                d = decide(ev, config=tribunal)
                n_s, n_r = d.full_supporting_origins, d.refuting_origins
                adm = ev.filter(pl.col("is_admitted") & (pl.col("stance") != "NEUTRAL"))
                has_primary = any(x in primary_docs for x in adm["doc_id"].to_list())
            else:
                n_s = n_r = 0
            st.gaps = detect_gaps(supporting_origins=n_s, refuting_origins=n_r,
                                  n_results=n_unique[st.claim_id], has_primary=has_primary,
                                  origins_needed=cfg.origins_for_supported)
            stop, why = gate_saturation(st.novelty)
            if stop:
                st.stopped = why
    for st in states.values():
        if st.stopped is None:
            st.stopped = f"round budget of mode {mode.value} spent ({cfg.rounds})"
    judgments = (pl.concat(judgment_frames, how="diagonal_relaxed") if judgment_frames
                 else pl.DataFrame())
    tried: dict[str, list[str]] = {}
    for q in query_rows:
        tried.setdefault(q["claim_id"], []).append(q["text"])
    return ResearchResult(
        judgments=judgments,
        queries=query_rows,
        queries_tried=tried,
        stop_reasons={c: s.stopped or "" for c, s in states.items()},
        rounds_run={c: s.rounds_run for c, s in states.items()},
    )
