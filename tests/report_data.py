"""Synthetic report inputs of any size, shaped like a real run's rows (tests and benchmarks).

Each claim has a few admitted quotes (SUPPORTS/REFUTES/PARTIAL) located in their document, a
NEUTRAL quote, a rejected quote, documents grouped under origins with copy and rewrite edges,
and the hostile fields a report must tame: a title of 600,000 characters, a URL with
``user:secret@`` credentials, markup in texts.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

NOW = datetime(2026, 11, 29, 17, 0, tzinfo=UTC)
STATUSES = ("SUPPORTED", "PARTIAL", "CONTESTED", "CONTRADICTED", "UNVERIFIED")
HOSTS = ("wire.example", "dailyledger.example", "metrowire.example", "valleynews.example",
         "bizpost.example", "techbeat.example", "countyfactcheck.example", "gov.example")
SECRET = "hunter2secret"


def synthetic_run(n_claims: int, *, seed: int = 7) -> dict[str, Any]:
    """Build ``run``, ``verdicts``, ``evidence``, ``lineage`` and ``documents`` for rendering.

    Args:
        n_claims: Number of claims (verdicts).
        seed: Random seed (deterministic output).

    Returns:
        Keyword arguments of :func:`affidavit.tasks.reports.render_report` plus ``run``.
    """
    rng = random.Random(seed)
    verdicts, evidence, lineage, documents = [], {}, {}, {}
    for i in range(n_claims):
        cid = f"{i:016x}"
        status = STATUSES[i % len(STATUSES)]
        claim = (f"The Corvallo council approved a budget of {rng.randint(2, 90)} million dollars "
                 f"for bridge number {i} on {rng.randint(1, 28)} May 2024.")
        rows, docs, edges = [], [], []
        n_docs = 0 if status == "UNVERIFIED" else rng.randint(2, 6)
        origin_ids: list[str] = []
        for k in range(n_docs):
            did = f"d{i}-{k}"
            host = HOSTS[(i + k) % len(HOSTS)]
            is_origin = k == 0 or rng.random() < 0.3
            origin = did if is_origin else origin_ids[-1]
            if is_origin:
                origin_ids.append(did)
            sentence = f"The council approved the budget for bridge number {i} on Monday."
            text = (f"<b>Corvallo</b> news. Officials met for hours. {sentence} "
                    "Residents asked questions about the tolls. The vote was 7 to 2.")
            start = text.index(sentence)
            stance = {"SUPPORTED": "SUPPORTS", "PARTIAL": "PARTIAL", "CONTRADICTED": "REFUTES",
                      "CONTESTED": ("SUPPORTS", "REFUTES")[k % 2]}[status]
            url = f"https://{host}/2024/05/bridge-{i}-{k}"
            if i == 1 and k == 0:
                url = f"https://editor:{SECRET}@{host}/private/bridge"
            title = f"Council approves bridge {i} budget ({host})"
            if i == 2 and k == 0:
                title = "Bridge " + "very long title " * 40_000
            documents[did] = {"doc_id": did, "url": url, "title": title, "host": host,
                              "published_at": NOW - timedelta(days=rng.randint(1, 300))}
            rows.append({"claim_id": cid, "doc_id": did, "stance": stance, "relevance": 0.8,
                         "quote": sentence, "anchor": "EXACT", "span_start": start,
                         "span_end": start + len(sentence), "is_admitted": True,
                         "reject_reason": None, "url": url, "title": title, "host": host,
                         "text": text, "origin_doc_id": origin})
            docs.append({"doc_id": did, "url": url, "title": title, "host": host,
                         "origin_doc_id": origin})
            if not is_origin:
                edges.append({"parent_doc_id": origin, "child_doc_id": did,
                              "kind": rng.choice(["syndication", "derivation"]),
                              "jaccard": round(rng.uniform(0.4, 0.99), 2)})
        rows.append({"claim_id": cid, "doc_id": f"n{i}", "stance": "NEUTRAL", "relevance": 0.2,
                     "quote": "Residents asked questions about the tolls.", "anchor": "EXACT",
                     "is_admitted": True, "url": f"https://forum.example/t/{i}",
                     "title": "Forum thread", "host": "forum.example"})
        rows.append({"claim_id": cid, "doc_id": f"r{i}", "stance": "SUPPORTS",
                     "quote": f"The council rejected bridge {i}.", "anchor": "FAILED",
                     "is_admitted": False, "reject_reason": "not_found",
                     "url": f"https://blog.example/{i}", "title": "A blog", "host": "blog.example"})
        n_sup = len({r["origin_doc_id"] for r in rows
                     if r.get("stance") in ("SUPPORTS", "PARTIAL") and r.get("is_admitted")})
        n_ref = len({r["origin_doc_id"] for r in rows
                     if r.get("stance") == "REFUTES" and r.get("is_admitted")})
        verdicts.append({
            "run_id": "run-synthetic", "claim_id": cid, "claim_text": claim, "status": status,
            "confidence": round(rng.uniform(0.05, 0.9), 3) if status != "UNVERIFIED" else 0.0,
            "supporting_origins": n_sup, "refuting_origins": n_ref,
            "supporting_publishers": n_sup, "refuting_publishers": n_ref,
            "sources_total": n_docs + 2, "n_admitted": n_docs, "n_rejected": 1,
            "best_quote": rows[0]["quote"] if n_docs else None,
            "best_doc_id": rows[0]["doc_id"] if n_docs else None,
            "best_url": rows[0]["url"] if n_docs else None,
            "queries_tried": [f"corvallo bridge {i} budget", f"corvallo bridge {i} debunked"],
            "judge": "lexical", "mode": "standard", "decided_at": NOW,
            "expires_at": NOW + timedelta(days=180),
            "degraded": "no LLM configured: lexical judge",
            "explanation": f"{n_sup} supporting origin(s), {n_ref} refuting",
        })
        evidence[cid] = rows
        lineage[cid] = {"documents": docs, "edges": edges}
    run = {
        "run_id": "run-synthetic", "flow": "factcheck", "started_at": NOW, "status": "completed",
        "capabilities": {"search": {"archive": {"available": True,
                                                "detail": "2193 documents indexed"},
                                    "searxng": {"available": False, "detail":
                                                f"https://admin:{SECRET}@search.example "
                                                "did not answer"}},
                         "judge": {"asked": "lexical", "available": True,
                                   "detail": "lexical judge; no LLM used"}},
        "degraded": ["no LLM configured: lexical judge"],
        "counts": {"claims": n_claims, "queries": 8 * n_claims, "skip:self_lineage": 3},
        "parameters": {"mode": "standard", "feeds": [f"https://u:{SECRET}@feeds.example/rss"]},
    }
    return {"run": run, "verdicts": verdicts, "evidence": evidence, "lineage": lineage,
            "documents": documents}
