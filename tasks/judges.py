"""Judge choice: the protocol every judge implements, a factory and a preflight probe.

``lexical`` needs nothing and is always available; ``llm`` needs an OpenAI-compatible endpoint
(:class:`affidavit.tasks.judge_llm.LLMJudgeConfig`, usually from
:func:`affidavit.tasks.judge_llm.llm_config_from_env`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

import httpx

from affidavit.schemas.judgments import JudgeResult
from affidavit.tasks.judge_lexical import LexicalJudge
from affidavit.tasks.judge_llm import LLMJudge, LLMJudgeConfig, probe_llm

__all__ = ["JUDGE_NAMES", "Judge", "make_judge", "probe_judge"]

JUDGE_NAMES = ("lexical", "llm")


@runtime_checkable
class Judge(Protocol):
    """Anything that decides stance and quote for many (claim, document_text) pairs at once."""

    name: str

    def judge_batch(
        self, pairs: Sequence[tuple[str, str]], *, titles: Sequence[str | None] | None = None,
        found: bool = False, hosts: Sequence[str | None] | None = None,
    ) -> list[JudgeResult]:
        """Return one judgment per ``(claim, document_text)`` pair, in order.

        ``titles`` (one per pair, or None) tell what each document is about; quotes come
        from the text alone. ``found`` says the documents were found by searching for the
        claim rather than given as its evidence (see ``LexicalJudge.judge_batch``).
        ``hosts`` (one per pair, or None) are the documents' publisher hosts, which may name
        the claim's subject as a title does.
        """
        ...


def make_judge(
    name: str,
    *,
    llm_config: LLMJudgeConfig | None = None,
    idf: Mapping[str, float] | None = None,
    client: httpx.Client | None = None,
) -> Judge:
    """Build a judge by name.

    Args:
        name: ``"lexical"`` or ``"llm"``.
        llm_config: Endpoint of the LLM judge (required for ``"llm"``).
        idf: Corpus IDF for the lexical judge (also the LLM judge's fallback).
        client: HTTP client for the LLM judge (tests pass a mock or a local one).

    Returns:
        The judge.

    Raises:
        ValueError: For an unknown name, or ``"llm"`` without ``llm_config``.
    """
    if name == "lexical":
        return LexicalJudge(idf=idf)
    if name == "llm":
        if llm_config is None:
            raise ValueError(
                "judge 'llm' needs an endpoint: set AFFIDAVIT_LLM_BASE_URL and "
                "AFFIDAVIT_LLM_MODEL (or pass llm_config)"
            )
        return LLMJudge(llm_config, client=client, fallback=LexicalJudge(idf=idf))
    raise ValueError(f"unknown judge {name!r}; expected one of {', '.join(JUDGE_NAMES)}")


def probe_judge(
    name: str,
    *,
    llm_config: LLMJudgeConfig | None = None,
    client: httpx.Client | None = None,
) -> tuple[bool, str]:
    """Tell the preflight whether a judge can run, and how.

    Args:
        name: ``"lexical"`` or ``"llm"``.
        llm_config: Endpoint of the LLM judge.
        client: HTTP client to probe with.

    Returns:
        ``(available, detail)``. ``lexical`` is always available; ``llm`` is available when its
        endpoint lists the model (``GET /v1/models``) or answers a one-token chat call.

    Raises:
        ValueError: For an unknown name.
    """
    if name == "lexical":
        return True, "lexical judge (no model)"
    if name == "llm":
        if llm_config is None:
            return False, "no LLM endpoint configured (AFFIDAVIT_LLM_BASE_URL, AFFIDAVIT_LLM_MODEL)"
        return probe_llm(llm_config, client=client)
    raise ValueError(f"unknown judge {name!r}; expected one of {', '.join(JUDGE_NAMES)}")
