"""The tribunal: a verdict per claim from admitted evidence counted in independent origins.

Only admitted judgments count (anchored quote, passed every gate). Supporting and refuting
evidence are each counted in distinct origins (``origin_doc_id`` of the lineage stage; a document
without one is its own origin), so two copies of one origin count once even when the origin
itself is not among the evidence. A contradiction caps confidence; it is never averaged away.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

import polars as pl

from affidavit.schemas.enums import Stance, VerdictStatus

PER_ORIGIN_STRENGTH = 0.4
"""Confidence one independent origin adds, as 1 - Π(1 - s·w) over origins of credibility w.

With s = 0.4 and the default credibility 0.8: one origin 0.32, two 0.54, three 0.69, four 0.79
(design choice of the project: two origins of ordinary credibility, the standard mode's bar for
SUPPORTED, land above one half).
"""

MAX_CONFIDENCE = 0.95
"""No verdict is ever certain: lexical evidence can be misread."""

REFUTATION_CAP = 0.4
"""Any admitted refutation caps confidence at 0.4 (DESIGN.md, Tribunal)."""

PARTIAL_FACTOR = 0.5
"""A PARTIAL verdict's confidence is half the strength of its supporting origins."""

OUTWEIGH_RATIO = 2.0
"""Refutation clearly outweighs support when it has at least this many times its origins and at
least two origins: then the verdict is CONTRADICTED rather than CONTESTED."""

DEFAULT_CREDIBILITY = 0.8
"""Credibility weight of a source with no signal either way (tasks.sources gives the others)."""


@dataclass(frozen=True, slots=True)
class TribunalConfig:
    """Tribunal settings.

    Attributes:
        origins_for_supported: Supporting independent origins needed for SUPPORTED (mode-dependent:
            quick 1, standard 2, deep 2, forensic 3; DESIGN.md, Research modes).
    """

    origins_for_supported: int = 2


def _strength(weights: Iterable[float]) -> float:
    p = 1.0
    for w in weights:
        p *= 1.0 - PER_ORIGIN_STRENGTH * max(0.0, min(1.0, w))
    return 1.0 - p


@dataclass(frozen=True, slots=True)
class Decision:
    """The tribunal's decision on one claim (a subset of the ``verdicts`` row).

    ``supporting_origins`` counts every independent origin with admitted support, full
    (SUPPORTS) or qualified (PARTIAL: hedged, planned, approximate); ``full_supporting_origins``
    counts only the full ones, which alone can reach SUPPORTED. ``decided_by`` names, in one line,
    the evidence the status rests on (one quote per deciding origin).
    """

    status: VerdictStatus
    confidence: float
    supporting_origins: int
    refuting_origins: int
    supporting_publishers: int
    refuting_publishers: int
    n_admitted: int
    best_doc_id: str | None
    best_quote: str | None
    explanation: str
    decided_by: str = ""
    full_supporting_origins: int = 0


DECIDED_BY_QUOTE_CHARS = 90
"""Characters of each deciding quote kept in ``decided_by`` (one line, readable in a terminal)."""

DECIDED_BY_ORIGINS = 3
"""Origins named per side in ``decided_by``; further ones are counted (``+N more``)."""


def _clip(text: str | None, n: int = DECIDED_BY_QUOTE_CHARS) -> str:
    t = " ".join((text or "").split())
    return t if len(t) <= n else t[: n - 1].rstrip() + "…"


def _cite(df: pl.DataFrame, label: str) -> str:
    """Name each origin of ``df`` once, by its most relevant admitted quote.

    E.g. ``supports: a.example "Revenue was EUR 57m." (+1 more)``.
    """
    if df.is_empty():
        return ""
    best = (df.sort(["relevance", "doc_id"], descending=[True, False], nulls_last=True)
            .unique("_origin", keep="first", maintain_order=True))
    parts = []
    for row in best.head(DECIDED_BY_ORIGINS).iter_rows(named=True):
        who = row.get("_publisher") or row.get("url") or row["doc_id"]
        parts.append(f'{who} "{_clip(row.get("quote"))}"')
    more = best.height - DECIDED_BY_ORIGINS
    return f"{label}: " + "; ".join(parts) + (f" (+{more} more)" if more > 0 else "")


def decide(evidence: pl.DataFrame, *, config: TribunalConfig = TribunalConfig()) -> Decision:
    """Decide one claim from its judgments.

    Only admitted judgments with a stance other than NEUTRAL bear on the claim (the judge returns
    NEUTRAL below its relevance floor and for sentences that do not address the claim's own
    quantity, predicate and time frame). Each side is counted in independent origins.

    Args:
        evidence: One row per judgment of this claim, columns ``doc_id`` (str), ``stance`` (str,
            ``affidavit.schemas.enums.Stance``), ``relevance`` (float 0..1), ``quote`` (str),
            ``is_admitted`` (bool), and optionally ``origin_doc_id`` (str, null → the document is
            its own origin), ``origin_host`` / ``host`` (str; publisher of the origin) and
            ``credibility`` (float 0..1, default ``DEFAULT_CREDIBILITY``).
        config: Tribunal settings.

    Returns:
        The ``Decision``. With S the origins of full support (SUPPORTS), Q those of qualified
        support only (PARTIAL), R the refuting origins and n = ``origins_for_supported``
        (DESIGN.md, Tribunal; ``../shared/bench/verdicts-dev/README.md``, Verdict rules):

        - CONTRADICTED: R ≥ 1 and S + Q = 0 (refutation with no support), or R ≥ 2 and
          R ≥ ``OUTWEIGH_RATIO`` · (S + Q) (refutation clearly outweighs support);
        - CONTESTED: R ≥ 1 and S + Q ≥ 1 otherwise (it always has a supporting origin);
        - SUPPORTED: R = 0 and S ≥ n;
        - PARTIAL: R = 0 and 1 ≤ S + Q with S < n (support short of the bar, or only
          qualified support);
        - UNVERIFIED: no admitted evidence bears on the claim.
    """
    ev = evidence.filter(pl.col("is_admitted"))
    ev = ev.filter(pl.col("stance") != Stance.NEUTRAL.value)
    n_admitted = ev.height
    if n_admitted == 0:
        return Decision(VerdictStatus.UNVERIFIED, 0.0, 0, 0, 0, 0, 0, None, None,
                        "no admitted evidence",
                        "UNVERIFIED: no admitted evidence bears on the claim")
    if "origin_doc_id" not in ev.columns:
        ev = ev.with_columns(pl.lit(None, dtype=pl.String).alias("origin_doc_id"))
    if "credibility" not in ev.columns:
        ev = ev.with_columns(pl.lit(DEFAULT_CREDIBILITY).alias("credibility"))
    if "relevance" not in ev.columns:
        ev = ev.with_columns(pl.lit(None, dtype=pl.Float64).alias("relevance"))
    host_col = "origin_host" if "origin_host" in ev.columns else ("host" if "host" in ev.columns
                                                                  else None)
    ev = ev.with_columns(
        pl.coalesce("origin_doc_id", "doc_id").alias("_origin"),
        pl.col("credibility").fill_null(DEFAULT_CREDIBILITY),
        (pl.col(host_col) if host_col else pl.lit(None, dtype=pl.String)).alias("_publisher"),
    )

    def side(stances: Sequence[str]) -> pl.DataFrame:
        return ev.filter(pl.col("stance").is_in(list(stances)))

    sup, par, ref = side([Stance.SUPPORTS]), side([Stance.PARTIAL]), side([Stance.REFUTES])

    def origins(df: pl.DataFrame) -> dict[str, float]:
        if df.is_empty():
            return {}
        g = df.group_by("_origin").agg(pl.col("credibility").max())
        return dict(zip(g["_origin"].to_list(), g["credibility"].to_list(), strict=True))

    def publishers(df: pl.DataFrame) -> int:
        vals = {p if p is not None else o for p, o in
                zip(df["_publisher"].to_list(), df["_origin"].to_list(), strict=True)}
        return len(vals)

    s_orig, p_orig, r_orig = origins(sup), origins(par), origins(ref)
    q_only = {o: w for o, w in p_orig.items() if o not in s_orig}
    n_s, n_q, n_r = len(s_orig), len(q_only), len(r_orig)
    n_sup = n_s + n_q
    need = max(1, config.origins_for_supported)

    if n_r and not n_sup:
        status = VerdictStatus.CONTRADICTED
    elif n_r >= 2 and n_r >= OUTWEIGH_RATIO * n_sup:
        status = VerdictStatus.CONTRADICTED
    elif n_r:
        status = VerdictStatus.CONTESTED
    elif n_s >= need:
        status = VerdictStatus.SUPPORTED
    else:
        status = VerdictStatus.PARTIAL

    if status is VerdictStatus.SUPPORTED:
        conf = _strength(s_orig.values())
    elif status is VerdictStatus.PARTIAL:
        conf = PARTIAL_FACTOR * _strength(list(s_orig.values()) + list(q_only.values()))
    elif status is VerdictStatus.CONTRADICTED:
        conf = _strength(r_orig.values())
    else:  # CONTESTED: the evidence is split; confidence in either side is low
        conf = abs(_strength(s_orig.values()) - _strength(r_orig.values()))
    conf = min(conf, MAX_CONFIDENCE)
    if n_r:
        conf = min(conf, REFUTATION_CAP)

    support = pl.concat([sup, par.filter(pl.col("_origin").is_in(list(q_only)))])
    lead = {
        VerdictStatus.SUPPORTED: sup, VerdictStatus.PARTIAL: support,
        VerdictStatus.CONTRADICTED: ref, VerdictStatus.CONTESTED: ref,
    }[status]
    best = lead.sort(["credibility", "relevance"], descending=True, nulls_last=True).row(
        0, named=True
    )
    explanation = (
        f"{n_s} supporting origin(s), {n_q} with qualified support only, {n_r} refuting; "
        f"{n_admitted} admitted judgment(s); {need} origin(s) needed for SUPPORTED"
    )
    if status is VerdictStatus.SUPPORTED:
        why = f"{n_s} independent origin(s) support it, none refutes"
        cited = [_cite(sup, "supports")]
    elif status is VerdictStatus.PARTIAL:
        why = (f"support from {n_s} origin(s) is short of the {need} needed" if n_s and not n_q
               else f"{n_s} full and {n_q} qualified (hedged or approximate) supporting origin(s)"
               f", {need} full needed")
        cited = [_cite(sup, "supports"),
                 _cite(par.filter(pl.col("_origin").is_in(list(q_only))), "qualified")]
    elif status is VerdictStatus.CONTRADICTED:
        why = (f"{n_r} origin(s) refute it, none supports" if not n_sup else
               f"{n_r} refuting origin(s) outweigh {n_sup} supporting")
        cited = [_cite(ref, "refutes"), _cite(support, "supports")]
    else:
        why = f"{n_sup} supporting and {n_r} refuting origin(s)"
        cited = [_cite(support, "supports"), _cite(ref, "refutes")]
    decided_by = f"{status.value}: {why} | " + " | ".join(c for c in cited if c)
    return Decision(
        status=status,
        confidence=round(float(conf), 4),
        supporting_origins=n_sup,
        refuting_origins=n_r,
        supporting_publishers=publishers(support) if n_sup else 0,
        refuting_publishers=publishers(ref) if n_r else 0,
        n_admitted=n_admitted,
        best_doc_id=best["doc_id"],
        best_quote=best.get("quote"),
        explanation=explanation,
        decided_by=decided_by,
        full_supporting_origins=n_s,
    )


def build_verdict_rows(
    claims: Sequence[Mapping[str, object]],
    judgments: pl.DataFrame,
    *,
    config: TribunalConfig,
    run_id: str,
    now: datetime,
    judge: str,
    mode: str,
    expires_at: Mapping[str, datetime | None],
    queries_tried: Mapping[str, list[str]],
    urls: Mapping[str, str | None],
    degraded: str | None = None,
) -> list[dict[str, object]]:
    """Decide every claim and return ``verdicts`` rows (``VERDICTS_SCHEMA``).

    Args:
        claims: Dicts with ``claim_id`` and ``text``.
        judgments: All judgments of the run (see ``decide`` for the columns) plus ``claim_id``.
        config: Tribunal settings.
        run_id: The run.
        now: Decision time (UTC).
        judge: Judge name recorded on the verdict.
        mode: Research mode.
        expires_at: Expiry per claim_id (from its volatility).
        queries_tried: Query texts per claim_id.
        urls: URL per doc_id for ``best_url``.
        degraded: What was missing in the run, or None.
    """
    rows = []
    by_claim = {k[0]: g for k, g in judgments.group_by("claim_id")} if judgments.height else {}
    for claim in claims:
        cid = str(claim["claim_id"])
        ev = by_claim.get(cid)
        if ev is None:
            ev = judgments.clear()
        d = decide(ev, config=config)
        explanation, decided_by = d.explanation, d.decided_by
        if d.status is VerdictStatus.UNVERIFIED:
            tried = queries_tried.get(cid, [])
            decided_by = (
                f"UNVERIFIED: no admitted evidence bears on the claim after {len(tried)} "
                f"quer{'y' if len(tried) == 1 else 'ies'}"
                + (f"; {ev.height} document(s) judged" if ev.height else "")
            )
            explanation = (
                f"no admitted evidence after {len(tried)} quer{'y' if len(tried) == 1 else 'ies'}"
                + (f" ({ev.height} judged, none admitted with a stance)" if ev.height else "")
            )
        rows.append(
            {
                "run_id": run_id,
                "claim_id": cid,
                "claim_text": str(claim["text"]),
                "status": d.status.value,
                "confidence": d.confidence,
                "supporting_origins": d.supporting_origins,
                "refuting_origins": d.refuting_origins,
                "supporting_publishers": d.supporting_publishers,
                "refuting_publishers": d.refuting_publishers,
                "sources_total": ev["doc_id"].n_unique() if ev.height else 0,
                "n_admitted": d.n_admitted,
                "n_rejected": int((~ev["is_admitted"]).sum()) if ev.height else 0,
                "best_quote": d.best_quote,
                "best_doc_id": d.best_doc_id,
                "best_url": urls.get(d.best_doc_id) if d.best_doc_id else None,
                "queries_tried": queries_tried.get(cid, []),
                "judge": judge,
                "mode": mode,
                "decided_at": now,
                "expires_at": expires_at.get(cid),
                "degraded": degraded,
                "explanation": explanation,
                "decided_by": decided_by,
            }
        )
    return rows
