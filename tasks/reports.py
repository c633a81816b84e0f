"""Reports of a run: a self-contained HTML page, ClaimReview JSON-LD and status counts.

Pure rendering: every function takes dicts (rows of the ``runs``, ``verdicts``, ``judgments``,
``documents`` and ``lineage_edges`` tables) and returns a string or a dict; nothing here reads
or writes files. Optional keys may be missing or None everywhere.

The HTML page is self-contained: inline CSS, no script, no external stylesheet, font or image.
All text from documents, claims and runs is HTML-escaped by Jinja2's autoescape; links are only
made for http(s) URLs. Each admitted quote is shown in its context in the stored document text
with the anchored span inside ``<mark>``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime
from typing import Any

import jinja2

from affidavit.schemas.enums import VerdictStatus

CONTEXT_CHARS = 160
"""Characters of document text shown on each side of a highlighted span (about two lines of a
news paragraph: enough to read the sentence around a quote, short enough to scan a claim)."""

STATUS_ORDER: tuple[str, ...] = tuple(s.value for s in VerdictStatus)

CLAIMREVIEW_RATINGS: dict[str, tuple[int, int, int, str]] = {
    VerdictStatus.SUPPORTED.value: (5, 5, 1, "True"),
    VerdictStatus.PARTIAL.value: (4, 5, 1, "Partly supported"),
    VerdictStatus.CONTESTED.value: (3, 5, 1, "Disputed"),
    VerdictStatus.CONTRADICTED.value: (1, 5, 1, "False"),
    VerdictStatus.UNVERIFIED.value: (-1, -1, -1, "Unproven"),
}
"""status → (ratingValue, bestRating, worstRating, alternateName) of the ClaimReview rating.

A 1–5 scale (5 best), as in the Polygraph.info sample: SUPPORTED (enough independent origins, no
refutation) 5 "True"; PARTIAL (support short of the required origins) 4 "Partly supported";
CONTESTED (support and refutation) 3 "Disputed"; CONTRADICTED 1 "False". UNVERIFIED (no admitted
evidence) is not a truth rating: it is published as Snopes publishes "Unproven" — ratingValue,
bestRating and worstRating all -1 — so no consumer reads it as a point of the 1–5 scale. An
unknown status is treated as UNVERIFIED."""

_STATUS_COLOURS = {
    "SUPPORTED": "#1b7f3b",
    "PARTIAL": "#6a8f1f",
    "CONTESTED": "#b26b00",
    "CONTRADICTED": "#b3261e",
    "UNVERIFIED": "#5f6368",
}
_STANCE_COLOURS = {
    "SUPPORTS": "#1b7f3b",
    "PARTIAL": "#6a8f1f",
    "REFUTES": "#b3261e",
    "NEUTRAL": "#5f6368",
}


# ------------------------------------------------------------------------------ helpers
def _iso(value: Any) -> str | None:
    """Return an ISO-8601 string for a datetime/date/str, None otherwise."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str) and value:
        return value
    return None


def _is_http(url: Any) -> bool:
    return isinstance(url, str) and url.lower().startswith(("http://", "https://"))


def _as_mapping(value: Any) -> dict[str, Any]:
    """Accept a dict or a JSON object string (``runs.parameters``); anything else → {}."""
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            loaded = json.loads(value)
        except ValueError:
            return {}
        return loaded if isinstance(loaded, dict) else {}
    return {}


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def quote_in_context(
    text: str | None,
    span_start: int | None,
    span_end: int | None,
    *,
    quote: str | None = None,
    context_chars: int = CONTEXT_CHARS,
) -> tuple[str, str, str]:
    """Split a document around an anchored span for display.

    Args:
        text: The stored document text the span refers to.
        span_start: Start offset of the span (characters).
        span_end: End offset, exclusive.
        quote: The quote, shown alone when the span cannot be used.
        context_chars: Characters kept on each side, cut back to a word boundary.

    Returns:
        ``(before, span, after)``; ``before``/``after`` start/end with "…" when cut. When the
        text or a valid span is missing, ``("", quote or "", "")``.

    >>> quote_in_context("The cat sat on the mat.", 4, 7, context_chars=100)
    ('The ', 'cat', ' sat on the mat.')
    """
    if (
        not isinstance(text, str)
        or not isinstance(span_start, int)
        or not isinstance(span_end, int)
        or not 0 <= span_start < span_end <= len(text)
    ):
        return "", quote or "", ""
    lo = max(0, span_start - context_chars)
    hi = min(len(text), span_end + context_chars)
    before = text[lo:span_start]
    after = text[span_end:hi]
    if lo > 0:
        cut = before.find(" ")
        before = "…" + (before[cut + 1 :] if 0 <= cut < len(before) - 1 else before)
    if hi < len(text):
        cut = after.rfind(" ")
        after = (after[:cut] if cut > 0 else after) + "…"
    return before, text[span_start:span_end], after


def render_summary_counts(verdicts: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Count verdicts by status.

    Args:
        verdicts: Verdict rows (``status`` key).

    Returns:
        Every status of :class:`VerdictStatus` in its declared order, zero counts included,
        followed by any other status value met (a missing status counts as ``"UNKNOWN"``).

    >>> render_summary_counts([{"status": "SUPPORTED"}])["UNVERIFIED"]
    0
    """
    counts = dict.fromkeys(STATUS_ORDER, 0)
    for v in verdicts:
        status = v.get("status") or "UNKNOWN"
        counts[str(status)] = counts.get(str(status), 0) + 1
    return counts


# ------------------------------------------------------------------------------ JSON-LD
def claimreview_jsonld(
    verdict: Mapping[str, Any], *, org_name: str = "affidavit", now: datetime
) -> dict[str, Any]:
    """Build the schema.org ClaimReview of one verdict.

    Args:
        verdict: A ``verdicts`` row. Optional extra keys: ``source_url`` (or a ``source_urls``
            list) — where the claim appeared, given as ``itemReviewed.appearance``;
            ``review_url`` — the review's own URL; ``claimant``/``claim_date`` for the Claim.
        org_name: The reviewing organisation (``author``).
        now: Publication time (``datePublished``), timezone-aware; naive is taken as UTC.

    Returns:
        A JSON-serialisable dict with ``@context``, ``@type`` ClaimReview, ``claimReviewed``,
        ``reviewRating`` (see :data:`CLAIMREVIEW_RATINGS`), ``itemReviewed`` (a ``Claim``),
        ``datePublished``, ``author`` and, when known, ``url``, ``reviewBody``, ``citation``
        (the best evidence URL) and ``expires``.
    """
    status = str(verdict.get("status") or VerdictStatus.UNVERIFIED.value)
    value, best, worst, label = CLAIMREVIEW_RATINGS.get(
        status, CLAIMREVIEW_RATINGS[VerdictStatus.UNVERIFIED.value]
    )
    claim: dict[str, Any] = {"@type": "Claim"}
    urls: list[str] = []
    for candidate in [verdict.get("source_url"), *(verdict.get("source_urls") or [])]:
        if _is_http(candidate) and candidate not in urls:
            urls.append(candidate)
    if urls:
        claim["appearance"] = [{"@type": "CreativeWork", "url": u} for u in urls]
    if verdict.get("claimant"):
        claim["author"] = {"@type": "Person", "name": str(verdict["claimant"])}
    if _iso(verdict.get("claim_date")):
        claim["datePublished"] = _iso(verdict.get("claim_date"))
    review: dict[str, Any] = {
        "@context": "https://schema.org",
        "@type": "ClaimReview",
        "claimReviewed": str(verdict.get("claim_text") or ""),
        "reviewRating": {
            "@type": "Rating",
            "ratingValue": value,
            "bestRating": best,
            "worstRating": worst,
            "alternateName": label,
        },
        "itemReviewed": claim,
        "datePublished": _iso(now),
        "author": {"@type": "Organization", "name": org_name},
    }
    if _is_http(verdict.get("review_url")):
        review["url"] = verdict["review_url"]
    body = [str(verdict[k]) for k in ("decided_by", "explanation") if verdict.get(k)]
    if body:  # what decided the verdict first, then the counts behind it
        review["reviewBody"] = "\n".join(body)
    if _is_http(verdict.get("best_url")):
        review["citation"] = verdict["best_url"]
    if _iso(verdict.get("expires_at")):
        review["expires"] = _iso(verdict.get("expires_at"))
    return review


# ------------------------------------------------------------------------------ HTML
_TEMPLATE = r"""<!DOCTYPE html>
{%- macro link(href, label) -%}
{%- if href %}<a href="{{ href }}" rel="nofollow noopener">{{ label }}</a>
{%- else %}{{ label }}{% endif -%}
{%- endmacro -%}
{%- macro badge(colour, text) -%}
<span class="badge" style="background:{{ colour }}">{{ text }}</span>
{%- endmacro %}
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>affidavit report{% if run.run_id %} — {{ run.run_id }}{% endif %}</title>
<style>
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;
  color:#202124;background:#f6f7f9}
main{max-width:1000px;margin:0 auto;padding:24px}
h1{font-size:24px;margin:0 0 4px} h2{font-size:18px;margin:0 0 8px}
.meta{color:#5f6368;font-size:13px}
.card{background:#fff;border:1px solid #dadce0;border-radius:8px;padding:16px 20px;
  margin:16px 0}
.badge{display:inline-block;border-radius:4px;padding:1px 8px;color:#fff;font-size:12px;
  font-weight:600;letter-spacing:.03em}
.summary{display:flex;flex-wrap:wrap;gap:12px}
.summary div{border-radius:6px;padding:8px 14px;color:#fff;min-width:110px}
.summary b{display:block;font-size:22px}
table.kv{border-collapse:collapse;font-size:13px}
table.kv td{padding:2px 12px 2px 0;vertical-align:top}
table.kv td:first-child{color:#5f6368}
.quote{border-left:3px solid #dadce0;margin:10px 0;padding:4px 12px}
.quote p{margin:4px 0}
mark{background:#fff3a3;padding:0 1px}
.src{font-size:13px;color:#5f6368;word-break:break-all}
ul.lineage{font-size:13px} ul.lineage ul{margin:2px 0 6px}
details{margin-top:8px} summary{cursor:pointer;color:#1a73e8}
.muted{color:#5f6368}
</style>
</head>
<body>
<main>
<h1>Fact-check report</h1>
<div class="meta">
{% if run.run_id %}run {{ run.run_id }}{% endif %}
{% if run.flow %} · flow {{ run.flow }}{% endif %}
{% if run.started_at %} · started {{ run.started_at }}{% endif %}
{% if run.finished_at %} · finished {{ run.finished_at }}{% endif %}
{% if run.status %} · status {{ run.status }}{% endif %}
</div>
{% if run.degraded %}<p><strong>Degraded:</strong> {{ run.degraded }}</p>{% endif %}
{% if run.message %}<p>{{ run.message }}</p>{% endif %}
{% if run_tables %}
<div class="card">{% for title, rows in run_tables %}
<h2>{{ title }}</h2>
<table class="kv">
{% for k, v in rows %}<tr><td>{{ k }}</td><td>{{ v }}</td></tr>
{% endfor %}</table>
{% endfor %}</div>
{% endif %}

<section class="card" id="summary">
<h2>Summary: {{ n_claims|plural("claim") }}</h2>
<div class="summary">
{% for status, n in counts.items() -%}
<div style="background:{{ status_colour(status) }}" data-status="{{ status }}">
<b>{{ n }}</b>{{ status }}</div>
{% endfor %}</div>
</section>

{% for c in claims %}
<section class="card claim" id="claim-{{ c.claim_id }}">
<h2>{{ badge(status_colour(c.status), c.status) }} {{ c.claim_text }}</h2>
<table class="kv">
<tr><td>confidence</td><td>{{ c.confidence }}</td></tr>
<tr><td>independent origins</td><td>{{ c.supporting_origins }} supporting
({{ c.supporting_publishers|plural("publisher") }}) · {{ c.refuting_origins }} refuting
{%- if c.refuting_publishers is not none %} ({{ c.refuting_publishers|plural("publisher") }})
{%- endif %}</td></tr>
<tr><td>evidence</td><td>{{ c.sources_total }} documents judged ·
{{ c.n_admitted|plural("quote") }} admitted · {{ c.n_rejected }} rejected</td></tr>
{% if c.judge or c.mode -%}
<tr><td>judge · mode</td><td>{{ c.judge }} · {{ c.mode }}</td></tr>
{%- endif %}
{% if c.decided_at -%}
<tr><td>decided</td><td>{{ c.decided_at }}
{%- if c.expires_at %} · expires {{ c.expires_at }}{% endif %}</td></tr>
{%- endif %}
{% if c.degraded %}<tr><td>degraded</td><td>{{ c.degraded }}</td></tr>{% endif %}
</table>
{% if c.explanation %}<p>{{ c.explanation }}</p>{% endif %}
{% if c.decided_by %}<p class="muted">decided by: {{ c.decided_by }}</p>{% endif %}

{% if c.quotes %}
<h3>Admitted quotes</h3>
{% for q in c.quotes %}
<div class="quote" data-doc-id="{{ q.doc_id }}">
{{ badge(stance_colour(q.stance), q.stance) }}
{% if q.anchor %}<span class="muted">anchor {{ q.anchor }}</span>{% endif %}
{% if q.relevance is not none %}<span class="muted"> · relevance {{ q.relevance }}</span>
{%- endif %}
<p>{{ q.before }}<mark>{{ q.span }}</mark>{{ q.after }}</p>
<div class="src">{{ link(q.href, q.title or q.url or q.doc_id) }}
{%- if q.host %} · {{ q.host }}{% endif %}
{%- if q.origin_doc_id and q.origin_doc_id != q.doc_id %} · origin {{ q.origin_doc_id }}
{%- endif %}</div>
</div>
{% endfor %}
{% else %}
<p class="muted">No admitted quotes.</p>
{% endif %}

{% if c.rejected %}
<details><summary>{{ c.rejected|length|plural("rejected quote") }}</summary>
<ul>
{% for r in c.rejected %}<li><span class="muted">{{ r.reason }}</span> — {{ r.quote }}
<span class="src">({{ r.source }})</span></li>
{% endfor %}</ul>
</details>
{% endif %}

{% if c.lineage %}
<details open><summary>Lineage of the evidence: {{ c.lineage|length|plural("origin") }}
</summary>
<ul class="lineage">
{% for o in c.lineage %}<li><strong>origin</strong> {{ link(o.href, o.label) }}
<ul>
{% for d in o.documents %}<li>{{ link(d.href, d.label) }}
{%- if d.stance %} {{ badge(stance_colour(d.stance), d.stance) }}{% endif %}
{%- for e in d.edges %}<br><span class="muted">{{ e }}</span>{% endfor %}</li>
{% endfor %}</ul>
</li>
{% endfor %}
</ul>
</details>
{% endif %}

{% if c.queries_tried %}
<details><summary>{{ c.queries_tried|length|plural("query", "queries") }} tried</summary>
<ul>{% for q in c.queries_tried %}<li>{{ q }}</li>{% endfor %}</ul>
</details>
{% endif %}
</section>
{% endfor %}
<p class="meta">Generated by affidavit. Quotes are located mechanically in the stored source text;
independent origins count syndicated copies of one story once.</p>
</main>
</body>
</html>
"""

_ENV = jinja2.Environment(
    autoescape=True,
    undefined=jinja2.ChainableUndefined,
    trim_blocks=False,
    lstrip_blocks=False,
)
_ENV.filters["plural"] = lambda n, one, many=None: (
    f"{n} {one if n == 1 else (many or one + 's')}"
)
_ENV.globals["status_colour"] = lambda s: _STATUS_COLOURS.get(str(s), "#3c4043")
_ENV.globals["stance_colour"] = lambda s: _STANCE_COLOURS.get(str(s), "#3c4043")
_HTML = _ENV.from_string(_TEMPLATE)


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.2f}"
    if isinstance(value, datetime | date):
        return _iso(value) or ""
    if isinstance(value, Mapping | list | tuple):
        return json.dumps(value, default=str, ensure_ascii=False)
    return str(value)


def _doc_label(doc: Mapping[str, Any]) -> str:
    title = doc.get("title")
    url = doc.get("url")
    ident = doc.get("doc_id") or ""
    if title and url:
        return f"{title} — {url}"
    return str(title or url or ident)


def _lineage_groups(
    lineage: Mapping[str, Any] | None, judged: Mapping[str, Mapping[str, Any]]
) -> list[dict[str, Any]]:
    """Group a claim's lineage documents under their origin, with the edges into each."""
    if not lineage:
        return []
    docs: dict[str, dict[str, Any]] = {}
    for d in lineage.get("documents") or []:
        if isinstance(d, Mapping) and d.get("doc_id"):
            docs[str(d["doc_id"])] = dict(d)
    edges_into: dict[str, list[str]] = {}
    for e in lineage.get("edges") or []:
        if not isinstance(e, Mapping) or not e.get("child_doc_id"):
            continue
        jac = e.get("jaccard")
        jac_s = f", Jaccard {jac:.2f}" if isinstance(jac, int | float) else ""
        parent = str(e.get("parent_doc_id") or "")
        parent_label = _doc_label(docs.get(parent, {"doc_id": parent}))
        edges_into.setdefault(str(e["child_doc_id"]), []).append(
            f"{e.get('kind') or 'link'} of {parent_label}{jac_s}"
        )
    groups: dict[str, list[str]] = {}
    for doc_id, d in docs.items():
        origin = d.get("origin_doc_id") or (judged.get(doc_id) or {}).get("origin_doc_id") or doc_id
        groups.setdefault(str(origin), []).append(doc_id)
    out = []
    for origin, members in groups.items():
        odoc = docs.get(origin, {"doc_id": origin})
        out.append(
            {
                "label": _doc_label(odoc),
                "href": odoc.get("url") if _is_http(odoc.get("url")) else None,
                "documents": [
                    {
                        "label": _doc_label(docs[m]) + (" (the origin)" if m == origin else ""),
                        "href": docs[m].get("url") if _is_http(docs[m].get("url")) else None,
                        "edges": edges_into.get(m, []),
                        "stance": (judged.get(m) or {}).get("stance")
                        if (judged.get(m) or {}).get("is_admitted")
                        else None,
                    }
                    for m in members
                ],
            }
        )
    return out


def _claim_view(
    verdict: Mapping[str, Any],
    judgments: Sequence[Mapping[str, Any]],
    lineage: Mapping[str, Any] | None,
) -> dict[str, Any]:
    quotes, rejected = [], []
    judged: dict[str, Mapping[str, Any]] = {}
    for j in judgments:
        if not isinstance(j, Mapping):
            continue
        if j.get("doc_id"):
            judged[str(j["doc_id"])] = j
        source = j.get("url") or j.get("title") or j.get("doc_id") or ""
        if j.get("is_admitted"):
            start, end = j.get("span_start"), j.get("span_end")
            before, span, after = quote_in_context(
                j.get("text"),
                int(start) if isinstance(start, int | float) else None,
                int(end) if isinstance(end, int | float) else None,
                quote=j.get("quote"),
            )
            quotes.append(
                {
                    "doc_id": j.get("doc_id") or "",
                    "stance": j.get("stance") or "",
                    "anchor": j.get("anchor"),
                    "relevance": None
                    if j.get("relevance") is None
                    else _fmt(j.get("relevance")),
                    "before": before,
                    "span": span,
                    "after": after,
                    "url": j.get("url"),
                    "href": j.get("url") if _is_http(j.get("url")) else None,
                    "title": j.get("title"),
                    "host": j.get("host"),
                    "origin_doc_id": j.get("origin_doc_id"),
                }
            )
        elif j.get("quote") or j.get("reject_reason"):
            rejected.append(
                {
                    "reason": j.get("reject_reason") or "rejected",
                    "quote": j.get("quote") or "",
                    "source": source,
                }
            )
    order = {"REFUTES": 0, "SUPPORTS": 1, "PARTIAL": 2}
    quotes.sort(key=lambda q: order.get(str(q["stance"]), 3))
    refuting_pub = verdict.get("refuting_publishers")
    return {
        "claim_id": verdict.get("claim_id") or "",
        "claim_text": verdict.get("claim_text") or "",
        "status": verdict.get("status") or "UNKNOWN",
        "confidence": _fmt(verdict.get("confidence")),
        "supporting_origins": _int(verdict.get("supporting_origins")),
        "refuting_origins": _int(verdict.get("refuting_origins")),
        "supporting_publishers": _int(verdict.get("supporting_publishers")),
        "refuting_publishers": _int(refuting_pub) if refuting_pub is not None else None,
        "sources_total": _int(verdict.get("sources_total")),
        "n_admitted": _int(verdict.get("n_admitted")),
        "n_rejected": _int(verdict.get("n_rejected")),
        "judge": verdict.get("judge") or "",
        "mode": verdict.get("mode") or "",
        "decided_at": _fmt(verdict.get("decided_at")),
        "expires_at": _fmt(verdict.get("expires_at")),
        "degraded": verdict.get("degraded"),
        "explanation": verdict.get("explanation"),
        "decided_by": verdict.get("decided_by"),
        "queries_tried": [str(q) for q in (verdict.get("queries_tried") or [])],
        "quotes": quotes,
        "rejected": rejected,
        "lineage": _lineage_groups(lineage, judged),
    }


def render_html_report(
    run: Mapping[str, Any],
    verdicts: Sequence[Mapping[str, Any]],
    evidence: Mapping[str, Sequence[Mapping[str, Any]]],
    lineage: Mapping[str, Mapping[str, Any]],
) -> str:
    """Render the self-contained HTML report of one run.

    Args:
        run: A ``runs`` row (``run_id``, ``flow``, ``started_at``, ``finished_at``, ``status``,
            ``parameters``/``capabilities``/``counts`` as dicts or JSON strings, ``degraded``,
            ``message``); any key may be missing.
        verdicts: ``verdicts`` rows, one per claim, rendered in the given order.
        evidence: claim_id → judgment rows plus the document's ``url``, ``title``, ``host``,
            ``text`` and ``origin_doc_id``. Admitted rows are shown with the span
            ``text[span_start:span_end]`` highlighted in context; rejected rows are listed
            with their reason.
        lineage: claim_id → ``{"documents": [{doc_id, url, title, origin_doc_id}],
            "edges": [{parent_doc_id, child_doc_id, kind, jaccard}]}``, shown as a nested
            list of documents under their origin.

    Returns:
        One HTML document (UTF-8 text) with inline CSS and no external assets or scripts.
    """
    run = dict(run or {})
    run_view = {k: _fmt(run.get(k)) for k in
                ("run_id", "flow", "started_at", "finished_at", "status", "degraded", "message")}
    run_tables = []
    for key, title in (("capabilities", "Capabilities"), ("parameters", "Parameters"),
                       ("counts", "Counts")):
        mapping = _as_mapping(run.get(key))
        if mapping:
            run_tables.append((title, [(str(k), _fmt(v)) for k, v in mapping.items()]))
    claims = [
        _claim_view(
            v,
            list(evidence.get(str(v.get("claim_id")), []) or []),
            lineage.get(str(v.get("claim_id"))),
        )
        for v in verdicts
    ]
    return _HTML.render(
        run=run_view,
        run_tables=run_tables,
        counts=render_summary_counts(verdicts),
        n_claims=len(verdicts),
        claims=claims,
    )
