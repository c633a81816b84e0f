"""The capability preflight every research run starts with (DESIGN.md, Capabilities)."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from affidavit.tasks.judge_llm import LLMJudgeConfig, llm_config_from_env, llm_endpoint_missing
from affidavit.tasks.judges import Judge, make_judge, probe_judge
from affidavit.tasks.search import (
    ArchiveProvider,
    SearchConfig,
    SearchProvider,
    SearxngProvider,
    probe_providers,
    search_config_from_env,
)
from affidavit.warehouse.home import HomePaths
from affidavit.warehouse.search_index import SearchIndex
from affidavit.warehouse.store import Warehouse, count_stored_rows, load_weights, save_weights

NO_SEARCH_MESSAGE = "research could not run: no search capability"


JUDGE_FAILURE_SHARE_MAX = 0.5
"""Share of judged (claim, document) pairs the judge may fail on (an LLM answer that could not
be used, left to the lexical fallback) before the run is marked failed: past half, the verdicts
say more about the endpoint than about the claims. Override with
``$AFFIDAVIT_MAX_JUDGE_FAILURE_SHARE`` (0..1)."""


def max_judge_failure_share(environ: Mapping[str, str] | None = None) -> float:
    """Return the judge-failure share past which a run fails (see ``JUDGE_FAILURE_SHARE_MAX``).

    Raises:
        ValueError: When ``$AFFIDAVIT_MAX_JUDGE_FAILURE_SHARE`` is not a number in 0..1.
    """
    env = os.environ if environ is None else environ
    raw = env.get("AFFIDAVIT_MAX_JUDGE_FAILURE_SHARE")
    if not raw:
        return JUDGE_FAILURE_SHARE_MAX
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"AFFIDAVIT_MAX_JUDGE_FAILURE_SHARE must be a number in 0..1, got {raw!r}")
    return value


def has_nothing_to_search(paths: HomePaths, environ: Mapping[str, str] | None = None) -> bool:
    """Say whether research in this home is sure to find no search capability, before it starts.

    True when no web search is configured (``AFFIDAVIT_SEARXNG_URL``) and the home stores no
    document (its ``documents`` rows are counted: the table's empty placeholder part is no
    document), so that the archive's index is empty too (``open_index_repaired`` indexes every
    stored document). A configured web search is not probed here: the run's preflight does.
    False when the rows cannot be counted without opening the warehouse (a home on object
    storage, another layout, an unreadable part): the run's preflight decides then.

    Args:
        paths: The home (``affidavit.warehouse.home.resolve_home``); nothing is created.
        environ: Variables (default ``os.environ``).
    """
    if search_config_from_env(os.environ if environ is None else environ).searxng_url:
        return False
    return count_stored_rows(paths, "documents") == 0


def corpus_idf(wh: Warehouse) -> dict[str, float] | None:
    """Return the IDF of the lexical judge's terms over every stored document (cached).

    A judgment of one (claim, document) pair must not depend on which other pairs share its
    batch, so the lexical judge weighs terms by the warehouse's IDF, not the batch's. The IDF
    is cached per number of documents (the table is append-only) and per tokenizer
    (``tokenizer_version``). Document frequencies are kept
    too, with the ids of the documents they count: after a backfill only the new documents are
    read and tokenised, so no run recomputes term weights over the whole archive. The result
    equals ``compute_idf`` over all stored texts (tested).
    """
    from collections import Counter

    from affidavit.tasks.judge_lexical import tokenize, tokenizer_version

    n = wh.count("documents")
    if n == 0:
        return None
    # weights are tied to the tokenizer: a changed tokenizer starts them afresh (an IDF kept
    # by document count alone would weigh the new terms by the old ones' counts)
    version = tokenizer_version()
    key = f"n{n}-{version}"
    cached = load_weights(wh, "idf", key)
    if cached is not None:
        return cached
    df: Counter[str] = Counter(load_weights(wh, "df", version) or {})
    counted = set(load_weights(wh, "df_docs", version) or {})
    stored = set(wh.read("documents", columns=["doc_id"])["doc_id"].to_list())
    new_ids = sorted(stored - counted)
    for start in range(0, len(new_ids), _IDF_BATCH):
        texts = wh.texts(new_ids[start : start + _IDF_BATCH])["text"].fill_null("").to_list()
        for text in texts:
            df.update(set(tokenize(text)))
    counted |= set(new_ids)
    total = len(counted & stored)
    df.pop("", None)
    idf = {t: math.log((total + 1) / (c + 1)) + 1.0 for t, c in df.items()}
    idf[""] = math.log(total + 1) + 1.0
    if new_ids:
        save_weights(wh, "df", version, {t: float(c) for t, c in df.items()})
        save_weights(wh, "df_docs", version, dict.fromkeys(sorted(counted), 1.0))
    save_weights(wh, "idf", key, idf)
    return idf


_IDF_BATCH = 2000
"""Documents read and tokenised at once when document frequencies are brought up to date."""


@dataclass
class Capabilities:
    """What a run has: search providers, a judge, and what is missing.

    Attributes:
        providers: Search providers that answered the probe.
        judge: The judge to use (lexical when the LLM was asked for but is unavailable).
        judge_name: ``"lexical"`` or ``"llm:<model>"``.
        found: JSON-serialisable record for ``runs.capabilities``.
        degraded: What was missing, for ``runs.degraded`` and ``verdicts.degraded``.
    """

    providers: list[SearchProvider]
    judge: Judge
    judge_name: str
    found: dict[str, Any] = field(default_factory=dict)
    degraded: list[str] = field(default_factory=list)

    @property
    def can_search(self) -> bool:
        """Whether at least one search provider is present."""
        return bool(self.providers)


def archive_texts(wh: Warehouse, doc_ids: Sequence[str]) -> dict[str, tuple[str | None,
                                                                          str | None]]:
    """Return ``{doc_id: (title, text)}`` of stored documents, for the archive's passage ranking."""
    df = wh.texts(doc_ids).unique("doc_id", keep="last")
    return {d: (t, x) for d, t, x in df.select("doc_id", "title", "text").iter_rows()}


def open_index_repaired(wh: Warehouse) -> tuple[SearchIndex, str | None]:
    """Open the archive's search index, rebuilding what is missing from the stored documents.

    A deleted index, or one that lacks documents a killed run stored, would make research say
    "no search capability" while documents are stored. Missing documents are indexed again; a
    damaged index (unreadable files, unknown format) is moved aside to ``index.damaged-<n>``
    and rebuilt.

    Returns:
        The index and a one-line note of what was repaired (None when nothing was).
    """
    import shutil

    from affidavit.flows.stages import index_documents

    note = None
    try:
        index = SearchIndex.open(wh.paths.index)
    except (OSError, ValueError, KeyError) as exc:
        n = 1
        while (aside := wh.paths.root / f"index.damaged-{n}").exists():
            n += 1
        shutil.move(str(wh.paths.index), str(aside))
        wh.paths.index.mkdir(parents=True, exist_ok=True)
        index = SearchIndex.open(wh.paths.index)
        note = f"search index unreadable ({type(exc).__name__}): moved to {aside.name}, rebuilt"
    stored = set(wh.read("documents", columns=["doc_id"])["doc_id"].to_list())
    missing = stored - index.doc_ids()
    if missing:
        n_added = index_documents(wh, index, sorted(missing))
        note = (note + "; " if note else "") + (
            f"search index lacked {len(missing)} stored document(s): {n_added} indexed again")
    return index, note


def run_preflight(
    wh: Warehouse,
    *,
    judge: str = "lexical",
    llm_config: LLMJudgeConfig | None = None,
    search_config: SearchConfig | None = None,
    client: httpx.Client | None = None,
) -> Capabilities:
    """Probe search providers and the judge; never raises for a missing capability.

    Args:
        wh: The warehouse (its archive index is the ``archive`` provider).
        judge: ``"lexical"`` or ``"llm"``.
        llm_config: LLM endpoint (default: from ``AFFIDAVIT_LLM_*`` environment variables).
        search_config: Web search (default: from ``AFFIDAVIT_SEARXNG_URL``).
        client: httpx client for the probes (tests pass a mock).

    Raises:
        ValueError: For a judge name other than ``lexical`` or ``llm``.
    """
    if judge not in ("lexical", "llm"):
        raise ValueError(f"unknown judge {judge!r}: use 'lexical' or 'llm'")
    search_config = search_config or search_config_from_env()
    index, repair = open_index_repaired(wh)
    probes = probe_providers(search_config, index=index, client=client)
    providers: list[SearchProvider] = []
    found: dict[str, Any] = {"search": {k: {"available": ok, "detail": d}
                                        for k, (ok, d) in probes.items()}}
    degraded: list[str] = []
    if repair:
        found["index_repair"] = repair
    if probes.get("archive", (False, ""))[0]:
        providers.append(ArchiveProvider(index, texts=lambda ids: archive_texts(wh, ids)))
    if search_config.searxng_url and probes.get("searxng", (False, ""))[0]:
        providers.append(SearxngProvider(search_config.searxng_url, client=client))
    elif search_config.searxng_url:
        degraded.append("web search (SearXNG) configured but unavailable")

    llm_config = llm_config or llm_config_from_env()
    judge_obj: Judge
    if judge == "llm":
        ok, detail = (probe_judge("llm", llm_config=llm_config, client=client) if llm_config
                      else (False, llm_endpoint_missing() or "no LLM endpoint configured"))
        found["judge"] = {"asked": "llm", "available": ok, "detail": detail}
        if ok and llm_config:
            judge_obj = make_judge("llm", llm_config=llm_config, client=client,
                                   idf=corpus_idf(wh))
        else:
            degraded.append(f"LLM judge unavailable ({detail}): lexical judge used")
            judge_obj = make_judge("lexical", idf=corpus_idf(wh))
    else:
        found["judge"] = {"asked": "lexical", "available": True,
                          "detail": "lexical judge; no LLM used"}
        judge_obj = make_judge("lexical", idf=corpus_idf(wh))
        if llm_config is None:
            degraded.append("no LLM configured: lexical judge")
    return Capabilities(providers=providers, judge=judge_obj, judge_name=judge_obj.name,
                        found=found, degraded=degraded)
