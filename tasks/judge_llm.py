"""LLM judge: stance and quote from any OpenAI-compatible ``/v1/chat/completions`` endpoint.

The model is asked, at temperature 0, for one JSON object ``{"stance", "quote", "rationale"}``
whose quote is copied verbatim from the document. The reply is read defensively: JSON wrapped in
prose or code fences, or cut off at the token cap, is salvaged (:func:`salvage_json`); 429 and
5xx answers are retried with exponential backoff that honours ``Retry-After``; a pair whose call
still fails, times out or returns nothing usable is judged by the fallback judge (the lexical
judge by default) and the degradation is recorded in :attr:`LLMJudge.degradations`.

The LLM judge never decides whether its own quote is genuine: its quote goes through the anchor
gate (``affidavit.tasks.anchor.anchor_quote``) like any other, so an invented quote is rejected
there and
cannot add support.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx

from affidavit.schemas.enums import Stance
from affidavit.schemas.judgments import JudgeResult
from affidavit.tasks.urls import config_url_error

__all__ = [
    "DOC_CHAR_CAP",
    "LLMJudge",
    "LLMJudgeConfig",
    "LLMJudgeError",
    "build_messages",
    "excerpt_document",
    "llm_config_from_env",
    "parse_reply",
    "salvage_json",
]

DOC_CHAR_CAP = 24_000
"""Documents longer than this many characters are cut before being sent (about 6,000 tokens of
English at ~4 characters a token, which fits the 8k context of small local models with the
prompt and the answer). The cut keeps the sentences about the claim (:func:`excerpt_document`)."""

BACKOFF_BASE_S = 0.5
"""First retry delay in seconds; doubles on each retry (0.5, 1, 2 ...), capped at 8 s. Convention
of HTTP clients (exponential backoff)."""

BACKOFF_CAP_S = 8.0

SYSTEM_PROMPT = (
    "You are a careful fact-checking judge. Given a CLAIM and a DOCUMENT, decide the stance of "
    "the document toward the claim: SUPPORTS (the document states the claim), PARTIAL (it states "
    "part of the claim, or a qualified version of it), REFUTES (it states something that "
    "contradicts the claim), or NEUTRAL (it says nothing decisive about the claim). Reply with "
    'one JSON object only: {"stance": "...", "quote": "...", "rationale": "..."}. The quote must '
    "be copied verbatim from the DOCUMENT (one or two consecutive sentences, at least 24 "
    "characters) and must show the stance; use an empty quote for NEUTRAL when nothing applies. "
    "The rationale is one short sentence."
)


class LLMJudgeError(RuntimeError):
    """A call to the LLM endpoint failed after its retries, or its reply could not be used."""


@dataclass(frozen=True, slots=True)
class LLMJudgeConfig:
    """Where and how to call the LLM judge.

    Attributes:
        base_url: Root of the OpenAI-compatible API, with or without a trailing ``/v1``
            (``http://localhost:8000/v1``, ``http://localhost:11434``...).
        model: Model name sent in the request.
        api_key_env: Name of the environment variable holding the API key (no key → no
            ``Authorization`` header, as local servers need none).
        timeout_s: Timeout of one HTTP call, seconds.
        max_tokens: Token cap of the answer.
        concurrency: Most calls in flight at once.
        max_retries: Retries after the first attempt on 429, 5xx and transport errors.
    """

    base_url: str
    model: str
    api_key_env: str = "AFFIDAVIT_LLM_API_KEY"
    timeout_s: float = 60.0
    max_tokens: int = 512
    concurrency: int = 4
    max_retries: int = 3

    def endpoint(self, path: str) -> str:
        """Return the URL of ``path`` (e.g. ``"chat/completions"``) under ``/v1``.

        >>> LLMJudgeConfig("http://h:1/v1/", "m").endpoint("models")
        'http://h:1/v1/models'
        >>> LLMJudgeConfig("http://h:1", "m").endpoint("chat/completions")
        'http://h:1/v1/chat/completions'
        """
        root = self.base_url.rstrip("/")
        if not root.endswith("/v1"):
            root += "/v1"
        return f"{root}/{path.lstrip('/')}"

    def headers(self, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        """Return the request headers, with the bearer key when its variable is set."""
        env = os.environ if environ is None else environ
        key = env.get(self.api_key_env, "")
        return {"Authorization": f"Bearer {key}"} if key else {}


LLM_ENDPOINT_VARIABLES = ("AFFIDAVIT_LLM_BASE_URL", "AFFIDAVIT_LLM_MODEL")
"""The settings an LLM endpoint needs, both (:func:`llm_config_from_env`)."""


def llm_endpoint_missing(environ: Mapping[str, str] = os.environ) -> str | None:
    """Say which settings of the LLM endpoint are unset, or None when both are set.

    The one wording of a run asked for ``--judge llm`` without an endpoint: the CLI's warning
    at the start and the preflight's record (capabilities, ``degraded``).

    >>> llm_endpoint_missing({"AFFIDAVIT_LLM_BASE_URL": "http://localhost:8000/v1"})
    'no LLM endpoint configured (AFFIDAVIT_LLM_MODEL unset)'
    >>> llm_endpoint_missing({})
    'no LLM endpoint configured (AFFIDAVIT_LLM_BASE_URL and AFFIDAVIT_LLM_MODEL unset)'
    """
    unset = [v for v in LLM_ENDPOINT_VARIABLES if not environ.get(v, "").strip()]
    return f"no LLM endpoint configured ({' and '.join(unset)} unset)" if unset else None


def llm_config_from_env(environ: Mapping[str, str] = os.environ) -> LLMJudgeConfig | None:
    """Read the LLM judge's configuration from environment variables.

    ``AFFIDAVIT_LLM_BASE_URL`` and ``AFFIDAVIT_LLM_MODEL`` are required (``None`` when either is
    missing or empty); ``AFFIDAVIT_LLM_API_KEY_ENV`` names the key's variable and
    ``AFFIDAVIT_LLM_TIMEOUT_S`` sets the timeout in seconds.

    Args:
        environ: The environment to read.

    Returns:
        The configuration, or ``None`` when no endpoint is configured.

    Raises:
        ValueError: When ``AFFIDAVIT_LLM_TIMEOUT_S`` is not a positive number, or
            ``AFFIDAVIT_LLM_BASE_URL`` is not an http(s) URL with a host (one line naming the
            variable: :func:`affidavit.tasks.urls.config_url_error`).
    """
    base = environ.get("AFFIDAVIT_LLM_BASE_URL", "").strip()
    model = environ.get("AFFIDAVIT_LLM_MODEL", "").strip()
    if base and (error := config_url_error("AFFIDAVIT_LLM_BASE_URL", base,
                                           "http://localhost:8000/v1")):
        raise ValueError(error)
    if not base or not model:
        return None
    kwargs: dict[str, Any] = {}
    key_env = environ.get("AFFIDAVIT_LLM_API_KEY_ENV", "").strip()
    if key_env:
        kwargs["api_key_env"] = key_env
    timeout = environ.get("AFFIDAVIT_LLM_TIMEOUT_S", "").strip()
    if timeout:
        try:
            kwargs["timeout_s"] = float(timeout)
        except ValueError:
            raise ValueError(f"AFFIDAVIT_LLM_TIMEOUT_S is not a number: {timeout!r}") from None
        if kwargs["timeout_s"] <= 0:
            raise ValueError(f"AFFIDAVIT_LLM_TIMEOUT_S must be positive: {timeout!r}")
    return LLMJudgeConfig(base_url=base, model=model, **kwargs)


# ---------------------------------------------------------------------------------------------
# Reply parsing.

_FENCE_RE = re.compile(r"```(?:json|JSON)?\s*(.*?)(?:```|$)", re.DOTALL)
_FIELD_RE = re.compile(r'"(stance|quote|rationale)"\s*:\s*"((?:[^"\\]|\\.)*)("?)', re.DOTALL)


def salvage_json(text: str) -> dict | None:
    """Recover the JSON object of a model reply, even when wrapped or cut off.

    Tries, in order: the whole text; the inside of a code fence; the first balanced ``{...}``
    object in the text; and, for output cut off at the token cap, the object's fields read one by
    one (a string cut mid-way is kept as far as it goes).

    Args:
        text: The raw content of the model's message.

    Returns:
        The object as a dict, or ``None`` when no object can be recovered.

    >>> salvage_json('Sure! Here it is: {"stance": "SUPPORTS", "quote": "x"} Hope it helps.')
    {'stance': 'SUPPORTS', 'quote': 'x'}
    >>> salvage_json('{"stance": "REFUTES", "quote": "The rate was 11 per')
    {'stance': 'REFUTES', 'quote': 'The rate was 11 per'}
    >>> salvage_json("no json here") is None
    True
    """
    if not text:
        return None
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _FENCE_RE.finditer(text)]
    for cand in candidates:
        try:
            obj = json.loads(cand)
        except ValueError:
            obj = None
        if isinstance(obj, dict):
            return obj
    dec = json.JSONDecoder()
    for m in re.finditer(r"\{", text):
        try:
            obj, _ = dec.raw_decode(text, m.start())
        except ValueError:
            continue
        if isinstance(obj, dict):
            return obj
    start = text.find("{")
    if start < 0:
        return None
    fields: dict[str, str] = {}
    for m in _FIELD_RE.finditer(text, start):
        raw = m.group(2)
        if not m.group(3):  # cut mid-string: drop a dangling escape
            raw = raw[:-1] if raw.endswith("\\") and not raw.endswith("\\\\") else raw
        try:
            fields[m.group(1)] = json.loads(f'"{raw}"')
        except ValueError:
            fields[m.group(1)] = raw
    return fields or None


_PROSE_STANCE_RE = re.compile(
    r"\bstance\b\W{0,3}(?:is\W{0,3})?([A-Za-z_ ]{3,24}?)(?=[\s.,;:!)\]\"'*]|$)", re.I)
_PROSE_QUOTE_RES = (
    re.compile(r"\u201c([^\u201c\u201d]{8,}?)\u201d"),
    re.compile(r"\u00ab([^\u00ab\u00bb]{8,}?)\u00bb"),
    re.compile(r"\u201e([^\u201c\u201d\u201e]{8,}?)[\u201c\u201d]"),
    re.compile(r'"([^"]{8,}?)"'),
    re.compile(r"\u2018([^\u2018\u2019]{8,}?)\u2019(?!\w)"),
)


def salvage_prose(text: str) -> dict | None:
    """Read a stance and a quote from a reply written as prose instead of JSON.

    The stance is the word after ``stance`` (``Stance: REFUTES``), or else the only stance
    label written in capitals; the quote is the longest passage in quote marks (curly,
    straight, guillemets). The quote still has to pass the anchor gate like any other.

    >>> salvage_prose('The mayor said \u201cWe will close it soon.\u201d Stance: REFUTES')
    {'stance': 'REFUTES', 'quote': 'We will close it soon.'}
    >>> salvage_prose("I cannot tell.") is None
    True
    """
    stance = None
    for m in _PROSE_STANCE_RE.finditer(text):
        word = m.group(1).strip().upper()
        if word in _STANCE_ALIASES:
            stance = word
            break
    if stance is None:
        found = {a for a in _STANCE_ALIASES if re.search(rf"(?<![A-Za-z_]){re.escape(a)}"
                                                           rf"(?![A-Za-z_])", text)}
        kinds = {_STANCE_ALIASES[a] for a in found}
        if len(kinds) != 1:
            return None
        stance = max(found, key=len)
    quotes = [m.group(1).strip() for rx in _PROSE_QUOTE_RES for m in rx.finditer(text)]
    return {"stance": stance, "quote": max(quotes, key=len) if quotes else ""}


_STANCE_ALIASES = {
    "SUPPORT": Stance.SUPPORTS, "SUPPORTED": Stance.SUPPORTS, "SUPPORTS": Stance.SUPPORTS,
    "ENTAILMENT": Stance.SUPPORTS, "PARTIAL": Stance.PARTIAL, "PARTIALLY_SUPPORTS": Stance.PARTIAL,
    "PARTIALLY SUPPORTS": Stance.PARTIAL, "REFUTES": Stance.REFUTES, "REFUTE": Stance.REFUTES,
    "REFUTED": Stance.REFUTES, "CONTRADICTION": Stance.REFUTES, "CONTRADICTS": Stance.REFUTES,
    "NEUTRAL": Stance.NEUTRAL, "NOT ENOUGH INFO": Stance.NEUTRAL, "NOT_ENOUGH_INFO": Stance.NEUTRAL,
    "NEI": Stance.NEUTRAL, "UNRELATED": Stance.NEUTRAL,
}  # fmt: skip


def parse_reply(content: str, *, judge: str) -> JudgeResult:
    """Turn a model's message content into a judgment.

    Args:
        content: The message content.
        judge: Name recorded on the result (``"llm:<model>"``).

    Returns:
        The judgment. Relevance is 1.0 for a decided stance with a quote, 0.0 for NEUTRAL.

    Raises:
        LLMJudgeError: When no JSON object can be salvaged or its stance is not one of the four.
    """
    obj = salvage_json(content)
    if obj is None:
        obj = salvage_prose(content)
    if obj is None:
        raise LLMJudgeError("reply holds no JSON object and no stated stance")
    raw = str(obj.get("stance", "")).strip().upper()
    stance = _STANCE_ALIASES.get(raw)
    if stance is None:
        raise LLMJudgeError(f"unknown stance {raw!r}")
    quote = obj.get("quote") or ""
    if not isinstance(quote, str):
        quote = str(quote)
    rationale = obj.get("rationale") or ""
    relevance = 0.0 if stance is Stance.NEUTRAL else 1.0
    return JudgeResult(stance, relevance, quote.strip(), str(rationale), judge)


def excerpt_document(claim: str, document: str, *, char_cap: int = DOC_CHAR_CAP) -> str:
    """Cut a long document to ``char_cap`` characters around the sentences about the claim.

    Sentences are ranked by how many of the claim's terms they hold (the lexical judge's
    tokenizer); the best ones and their neighbours are kept, in document order, as written, until
    the cap is reached. Runs of left-out sentences become a ``[...]`` line, so a quote copied from
    one kept run is still a verbatim passage of the document (a quote stitched across ``[...]``
    fails the anchor gate, as it should).

    Args:
        claim: The claim.
        document: The document text.
        char_cap: Most characters of document text kept.

    Returns:
        The document itself when it fits, else the excerpt.
    """
    if len(document) <= char_cap:
        return document
    from affidavit.tasks.judge_lexical import split_sentences, tokenize

    spans = split_sentences(document)
    if not spans:
        return document[:char_cap]
    claim_terms = {t for t in tokenize(claim) if len(t) > 2}
    scores = [len(claim_terms.intersection(tokenize(document[a:b]))) for a, b in spans]
    order = sorted(range(len(spans)), key=lambda i: (-scores[i], i))
    keep: set[int] = set()
    used = 0
    for i in order:
        for j in (i, i - 1, i + 1):
            if 0 <= j < len(spans) and j not in keep:
                size = spans[j][1] - spans[j][0] + 1
                if used + size > char_cap:
                    continue
                keep.add(j)
                used += size
        if used >= char_cap * 0.98:
            break
    parts: list[str] = []
    runs: list[list[int]] = []
    for j in sorted(keep):
        if runs and runs[-1][1] == j - 1:
            runs[-1][1] = j
        else:
            runs.append([j, j])
    for first, last in runs:
        if first > 0:
            parts.append("[...]")
        parts.append(document[spans[first][0] : spans[last][1]])  # the run as written
    if runs[-1][1] != len(spans) - 1:
        parts.append("[...]")
    return "\n".join(parts)


def build_messages(claim: str, document: str, *, char_cap: int = DOC_CHAR_CAP) -> list[dict]:
    """Build the chat messages for one pair (a long document cut to ``char_cap`` characters).

    Args:
        claim: The claim.
        document: The document text.
        char_cap: Most characters of the document sent (see :func:`excerpt_document`).

    Returns:
        A system and a user message in the OpenAI chat format.
    """
    doc = excerpt_document(claim, document, char_cap=char_cap)
    note = "" if doc is document else "\n[long document: only the passages about the claim]"
    user = f"CLAIM:\n{claim}\n\nDOCUMENT:\n{doc}{note}\n\nAnswer with the JSON object only."
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


# ---------------------------------------------------------------------------------------------
# The judge.


class LLMJudge:
    """Judge pairs with an OpenAI-compatible chat endpoint, falling back per pair.

    Args:
        config: Endpoint and limits.
        client: An ``httpx.Client`` to use (tests pass one with a mock transport); by default
            one is created with the configured timeout and closed by :meth:`close`.
        fallback: Judge for pairs the model could not decide; default a ``LexicalJudge``.

    Attributes:
        name: ``"llm:<model>"``.
        n_fallbacks: Pairs judged by the fallback since creation.
        degradations: One line per degraded pair, ``"<pair index>: <reason>"``, for the run's
            record.
    """

    def __init__(
        self,
        config: LLMJudgeConfig,
        *,
        client: httpx.Client | None = None,
        fallback: Any | None = None,
    ) -> None:
        if config.concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {config.concurrency}")
        if config.max_retries < 0:
            raise ValueError(f"max_retries must be non-negative, got {config.max_retries}")
        self.config = config
        self.name = f"llm:{config.model}"
        self._owns_client = client is None
        self._client = client or httpx.Client(timeout=config.timeout_s)
        if fallback is None:
            from affidavit.tasks.judge_lexical import LexicalJudge

            fallback = LexicalJudge()
        self.fallback = fallback
        self.n_fallbacks = 0
        self.n_calls = 0
        self.degradations: list[str] = []
        self._lock = threading.Lock()
        self._sleep = time.sleep

    def close(self) -> None:
        """Close the HTTP client when this judge created it."""
        if self._owns_client:
            self._client.close()

    def judge_batch(
        self, pairs: Sequence[tuple[str, str]], *, titles: Sequence[str | None] | None = None,
        found: bool = False, hosts: Sequence[str | None] | None = None,
    ) -> list[JudgeResult]:
        """Judge many (claim, document_text) pairs, at most ``concurrency`` calls at once.

        Args:
            pairs: ``(claim, document_text)`` tuples.
            titles: Each document's title or None; the model reads the text alone, the
                fallback judge of a failed pair also reads its title.
            found: The documents were found by search, not given as the claim's evidence;
                passed to the fallback judge (``LexicalJudge.judge_batch``).
            hosts: Each document's publisher host or None; the model reads the text alone,
                the fallback judge of a failed pair also reads its host.

        Returns:
            One result per pair, in order. Pairs the model could not decide carry the fallback's
            judgment with ``judge="lexical(fallback)"`` and the reason in the rationale.
        """
        if not pairs:
            return []
        results: list[JudgeResult | None] = [None] * len(pairs)
        failed: list[tuple[int, str]] = []

        def one(i: int) -> None:
            claim, doc = pairs[i]
            try:
                results[i] = self._judge_one(claim, doc)
            except (LLMJudgeError, httpx.HTTPError) as exc:
                failed.append((i, f"{type(exc).__name__}: {exc}"))

        workers = min(self.config.concurrency, len(pairs))
        if workers == 1:
            for i in range(len(pairs)):
                one(i)
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                list(pool.map(one, range(len(pairs))))
        if failed:
            failed.sort()
            fb = self.fallback.judge_batch(
                [pairs[i] for i, _ in failed],
                titles=None if titles is None else [titles[i] for i, _ in failed],
                found=found,
                hosts=None if hosts is None else [hosts[i] for i, _ in failed],
            )
            with self._lock:
                for (i, reason), r in zip(failed, fb, strict=True):
                    results[i] = JudgeResult(
                        r.stance, r.relevance, r.quote,
                        f"LLM judge failed ({reason}); {r.rationale}", "lexical(fallback)",
                        r.is_failure,
                    )
                    self.n_fallbacks += 1
                    self.degradations.append(f"{i}: {reason}")
        return [r for r in results if r is not None]

    def _judge_one(self, claim: str, document: str) -> JudgeResult:
        cfg = self.config
        body = {
            "model": cfg.model,
            "messages": build_messages(claim, document),
            "temperature": 0,
            "max_tokens": cfg.max_tokens,
        }
        data = self._post_with_retries(cfg.endpoint("chat/completions"), body)
        try:
            choice = data["choices"][0]
            content = choice["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            raise LLMJudgeError("reply has no choices[0].message.content") from None
        return parse_reply(content, judge=self.name)

    def _post_with_retries(self, url: str, body: dict) -> dict:
        cfg = self.config
        headers = cfg.headers()
        last = "no attempt"
        last_retry_after: float | None = None
        for attempt in range(cfg.max_retries + 1):
            if attempt:
                self._sleep(_backoff_s(attempt, last_retry_after))
            last_retry_after = None
            with self._lock:
                self.n_calls += 1
            try:
                resp = self._client.post(url, json=body, headers=headers, timeout=cfg.timeout_s)
            except httpx.TimeoutException as exc:
                # A timeout is not retried: the next attempt would most likely time out too and
                # multiply the wait; the pair falls back instead.
                raise LLMJudgeError(f"timeout after {cfg.timeout_s:g} s") from exc
            except httpx.TransportError as exc:
                last = f"transport error: {exc}"
                continue
            if resp.status_code == 429 or resp.status_code >= 500:
                last = f"HTTP {resp.status_code}"
                last_retry_after = _retry_after_s(resp.headers.get("retry-after"))
                continue
            if resp.status_code >= 400:
                raise LLMJudgeError(f"HTTP {resp.status_code}: {resp.text[:200]}")
            try:
                return resp.json()
            except ValueError:
                raise LLMJudgeError("reply is not JSON") from None
        raise LLMJudgeError(f"gave up after {cfg.max_retries + 1} attempts ({last})")


def _retry_after_s(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _backoff_s(attempt: int, retry_after: float | None) -> float:
    """Delay before retry ``attempt`` (1-based): Retry-After when given, else exponential."""
    if retry_after is not None:
        return min(retry_after, BACKOFF_CAP_S)
    return min(BACKOFF_BASE_S * 2 ** (attempt - 1), BACKOFF_CAP_S)


def probe_llm(config: LLMJudgeConfig, *, client: httpx.Client | None = None) -> tuple[bool, str]:
    """Check that the endpoint answers: ``GET /v1/models``, then a one-token chat call.

    Args:
        config: Endpoint.
        client: Optional client.

    Returns:
        ``(available, detail)``; ``detail`` names the model and endpoint, or the error.
    """
    own = client is None
    http = client or httpx.Client(timeout=min(config.timeout_s, 10.0))
    try:
        try:
            r = http.get(config.endpoint("models"), headers=config.headers(),
                         timeout=min(config.timeout_s, 10.0))
            if r.status_code == 200:
                ids = []
                try:
                    ids = [m.get("id") for m in r.json().get("data", []) if isinstance(m, dict)]
                except (ValueError, AttributeError):
                    ids = []
                if ids and config.model not in ids:
                    return False, (
                        f"{config.endpoint('models')} does not list model {config.model!r} "
                        f"(has {', '.join(map(str, ids[:5]))})"
                    )
                return True, f"llm:{config.model} at {config.base_url}"
        except httpx.HTTPError:
            pass
        body = {
            "model": config.model,
            "messages": [{"role": "user", "content": "Reply with OK."}],
            "temperature": 0,
            "max_tokens": 1,
        }
        try:
            r = http.post(config.endpoint("chat/completions"), json=body,
                          headers=config.headers(), timeout=config.timeout_s)
        except httpx.HTTPError as exc:
            return False, f"{config.endpoint('chat/completions')} unreachable: {exc}"
        if r.status_code == 200:
            return True, f"llm:{config.model} at {config.base_url}"
        return False, f"{config.endpoint('chat/completions')} answered HTTP {r.status_code}"
    finally:
        if own:
            http.close()
