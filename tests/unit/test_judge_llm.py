"""Tests of the LLM judge against a scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from affidavit.schemas.enums import Stance
from affidavit.tasks.anchor import anchor_quote
from affidavit.tasks.judge_lexical import LexicalJudge
from affidavit.tasks.judge_llm import (
    DOC_CHAR_CAP,
    LLMJudge,
    LLMJudgeConfig,
    build_messages,
    excerpt_document,
    llm_config_from_env,
    parse_reply,
    salvage_json,
)
from affidavit.tasks.judges import Judge, make_judge, probe_judge

DOC = (
    "The city council met on Tuesday evening to review the budget. "
    "Unemployment in the region fell to 11 percent in 2023, the statistics office said. "
    "The mayor did not attend the meeting."
)
CLAIM = "Unemployment in the region was 18 percent in 2023."
GENUINE = "Unemployment in the region fell to 11 percent in 2023, the statistics office said."


class ScriptedServer:
    """An OpenAI-compatible server whose replies are scripted per claim text.

    ``script[claim]`` is a list of steps consumed in order (the last one repeats); a step is a
    dict with ``status`` (default 200), ``content`` (the message content), ``sleep_s``, ``body``
    (a raw body replacing the chat envelope) and ``headers``.
    """

    def __init__(self) -> None:
        self.script: dict[str, list[dict]] = {}
        self.calls: list[dict] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return

            def _send(self, status: int, body: bytes, headers: dict | None = None) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                try:
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_GET(self) -> None:  # noqa: N802 - http.server API
                if self.path == "/v1/models":
                    self._send(200, json.dumps({"data": [{"id": "scripted"}]}).encode())
                else:
                    self._send(404, b"{}")

            def do_POST(self) -> None:  # noqa: N802 - http.server API
                n = int(self.headers.get("Content-Length", "0"))
                req = json.loads(self.rfile.read(n))
                with server.lock:
                    server.calls.append({"path": self.path, "json": req,
                                         "auth": self.headers.get("Authorization")})
                if self.path != "/v1/chat/completions":
                    self._send(404, b"{}")
                    return
                user = req["messages"][-1]["content"]
                claim = user.split("CLAIM:\n", 1)[1].split("\n", 1)[0]
                with server.lock:
                    steps = server.script.get(claim, [{"content": '{"stance": "NEUTRAL"}'}])
                    step = steps.pop(0) if len(steps) > 1 else steps[0]
                if step.get("sleep_s"):
                    time.sleep(step["sleep_s"])
                if "body" in step:
                    body = step["body"].encode()
                else:
                    body = json.dumps({"choices": [{"index": 0, "message": {
                        "role": "assistant", "content": step.get("content", "")}}]}).encode()
                self._send(step.get("status", 200), body, step.get("headers"))

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def chat_calls(self) -> list[dict]:
        """Calls made to the chat endpoint."""
        return [c for c in self.calls if c["path"] == "/v1/chat/completions"]


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer()
    srv.thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


def _judge(
    server: ScriptedServer, *, timeout_s: float = 0.5, max_retries: int = 2, concurrency: int = 2
) -> LLMJudge:
    cfg = LLMJudgeConfig(
        base_url=server.url, model="scripted", timeout_s=timeout_s, max_retries=max_retries,
        concurrency=concurrency,
    )
    judge = LLMJudge(cfg)
    judge._sleep = lambda s: time.sleep(min(s, 0.02))  # keep backoff short in tests
    return judge


def _reply(stance: str, quote: str, rationale: str = "r") -> str:
    return json.dumps({"stance": stance, "quote": quote, "rationale": rationale})


def test_well_formed_reply_is_used_and_request_is_deterministic(server: ScriptedServer) -> None:
    server.script[CLAIM] = [{"content": _reply("REFUTES", GENUINE)}]
    judge = _judge(server)
    [r] = judge.judge_batch([(CLAIM, DOC)])
    assert r.stance is Stance.REFUTES
    assert r.judge == "llm:scripted"
    assert r.quote == GENUINE
    assert anchor_quote(r.quote, DOC).is_admitted
    req = server.chat_calls()[0]["json"]
    assert req["temperature"] == 0
    assert req["model"] == "scripted"
    assert req["max_tokens"] == 512
    assert judge.n_fallbacks == 0
    assert judge.degradations == []


def test_lying_judge_cannot_add_support(server: ScriptedServer) -> None:
    invented = "Unemployment in the region was 18 percent in 2023, the statistics office said."
    server.script[CLAIM] = [{"content": _reply("SUPPORTS", invented)}]
    judge = _judge(server)
    [r] = judge.judge_batch([(CLAIM, DOC)])
    assert r.stance is Stance.SUPPORTS  # the model says so ...
    anchor = anchor_quote(r.quote, DOC)
    assert not anchor.is_admitted  # ... but its invented quote is rejected by the anchor gate
    admitted_support = [
        x for x in [r] if x.stance is Stance.SUPPORTS and anchor_quote(x.quote, DOC).is_admitted
    ]
    assert admitted_support == []


@pytest.mark.parametrize(
    "content",
    [
        f"Sure, here is my judgment:\n{_reply('REFUTES', GENUINE)}\nLet me know if you need more.",
        f"```json\n{_reply('REFUTES', GENUINE)}\n```",
        f"Answer:\n```\n{_reply('REFUTES', GENUINE)}\n```\nDone.",
        _reply("REFUTES", GENUINE, "the office reports a different rate")[:-25],  # cut off
    ],
    ids=["prose", "fence", "fence-in-prose", "truncated"],
)
def test_wrapped_or_truncated_json_is_salvaged(server: ScriptedServer, content: str) -> None:
    server.script[CLAIM] = [{"content": content}]
    judge = _judge(server)
    [r] = judge.judge_batch([(CLAIM, DOC)])
    assert r.judge == "llm:scripted"
    assert r.stance is Stance.REFUTES
    assert r.quote == GENUINE
    assert judge.n_fallbacks == 0


def test_timeout_falls_back_to_lexical_and_records_degradation(server: ScriptedServer) -> None:
    server.script[CLAIM] = [{"content": _reply("SUPPORTS", GENUINE), "sleep_s": 4.0}]
    other = "The mayor attended the meeting."
    server.script[other] = [{"content": _reply("REFUTES", "The mayor did not attend the meeting.")}]
    judge = _judge(server, timeout_s=0.3)
    t0 = time.perf_counter()
    r1, r2 = judge.judge_batch([(CLAIM, DOC), (other, DOC)])
    assert time.perf_counter() - t0 < 3.5  # the 4 s call was abandoned, not waited out
    assert r1.judge == "lexical(fallback)"
    assert "timeout" in r1.rationale
    lexical = LexicalJudge().judge_batch([(CLAIM, DOC)])[0]
    assert (r1.stance, r1.quote) == (lexical.stance, lexical.quote)
    assert r1.quote in DOC  # the fallback quotes a sentence of the document
    assert r2.judge == "llm:scripted"
    assert r2.stance is Stance.REFUTES
    assert judge.n_fallbacks == 1
    assert len(judge.degradations) == 1
    assert judge.degradations[0].startswith("0:")


def test_429_then_success_is_retried(server: ScriptedServer) -> None:
    server.script[CLAIM] = [
        {"status": 429, "body": '{"error": "rate limited"}', "headers": {"Retry-After": "0"}},
        {"status": 503, "body": '{"error": "busy"}'},
        {"content": _reply("REFUTES", GENUINE)},
    ]
    judge = _judge(server, max_retries=3)
    [r] = judge.judge_batch([(CLAIM, DOC)])
    assert r.judge == "llm:scripted"
    assert r.stance is Stance.REFUTES
    assert len(server.chat_calls()) == 3
    assert judge.n_fallbacks == 0


def test_persistent_5xx_and_garbage_fall_back(server: ScriptedServer) -> None:
    server.script[CLAIM] = [{"status": 500, "body": "{}"}]
    garbage = "The council met on Tuesday."
    server.script[garbage] = [{"content": "I cannot decide this one, sorry."}]
    judge = _judge(server, max_retries=1)
    r1, r2 = judge.judge_batch([(CLAIM, DOC), (garbage, DOC)])
    assert r1.judge == r2.judge == "lexical(fallback)"
    assert len(server.chat_calls()) == 3  # 2 attempts for the 500, 1 for the garbage
    assert judge.n_fallbacks == 2
    assert any("HTTP 500" in d for d in judge.degradations)
    assert any("no JSON" in d for d in judge.degradations)


def test_concurrency_limit_is_respected(server: ScriptedServer) -> None:
    claims = [f"Claim number {i} about the budget." for i in range(6)]
    for c in claims:
        server.script[c] = [{"content": _reply("NEUTRAL", ""), "sleep_s": 0.1}]
    active = {"now": 0, "max": 0}
    lock = threading.Lock()
    real_post = httpx.Client.post

    def counting_post(self: httpx.Client, *a: object, **kw: object) -> httpx.Response:
        with lock:
            active["now"] += 1
            active["max"] = max(active["max"], active["now"])
        try:
            return real_post(self, *a, **kw)  # type: ignore[arg-type]
        finally:
            with lock:
                active["now"] -= 1

    judge = _judge(server, concurrency=2)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(httpx.Client, "post", counting_post)
        out = judge.judge_batch([(c, DOC) for c in claims])
    assert [r.stance for r in out] == [Stance.NEUTRAL] * 6
    assert active["max"] == 2


def test_api_key_is_sent_from_named_variable(
    server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_TEST_KEY", "sekret")
    cfg = LLMJudgeConfig(base_url=server.url + "/v1", model="scripted", api_key_env="MY_TEST_KEY",
                         timeout_s=0.5)
    LLMJudge(cfg).judge_batch([(CLAIM, DOC)])
    assert server.chat_calls()[0]["auth"] == "Bearer sekret"


def test_long_document_is_cut_around_the_claim() -> None:
    filler = "Gardeners water their tomato plants every morning in the summer months. "
    key = "Unemployment in the region fell to 11 percent in 2023, the statistics office said."
    doc = filler * 400 + key + " " + filler * 400
    assert len(doc) > DOC_CHAR_CAP
    excerpt = excerpt_document(CLAIM, doc, char_cap=2_000)
    assert len(excerpt) <= 2_000 + 200
    assert key in excerpt
    for run in excerpt.split("\n"):
        assert run == "[...]" or run in doc  # every kept run is verbatim
    msgs = build_messages(CLAIM, doc)
    assert len(msgs[1]["content"]) < DOC_CHAR_CAP + 400
    assert key in msgs[1]["content"]
    assert build_messages(CLAIM, DOC)[1]["content"].count(DOC) == 1  # short: sent whole


def test_salvage_json_cases() -> None:
    assert salvage_json('{"stance": "SUPPORTS"}') == {"stance": "SUPPORTS"}
    assert salvage_json("```json\n{\"a\": 1}\n```") == {"a": 1}
    assert salvage_json('text {"stance": "PARTIAL", "quote": "q \\"x\\""} more') == {
        "stance": "PARTIAL", "quote": 'q "x"'}
    cut = salvage_json('{"stance": "SUPPORTS", "quote": "It rose by 8 per')
    assert cut == {"stance": "SUPPORTS", "quote": "It rose by 8 per"}
    assert salvage_json("") is None
    assert salvage_json("nothing here") is None


def test_parse_reply_rejects_unknown_stance() -> None:
    from affidavit.tasks.judge_llm import LLMJudgeError

    with pytest.raises(LLMJudgeError):
        parse_reply('{"stance": "MAYBE"}', judge="llm:x")
    assert parse_reply('{"stance": "supported", "quote": "q"}', judge="llm:x").stance is (
        Stance.SUPPORTS
    )


def test_config_from_env() -> None:
    assert llm_config_from_env({}) is None
    assert llm_config_from_env({"AFFIDAVIT_LLM_BASE_URL": "http://x"}) is None
    cfg = llm_config_from_env({
        "AFFIDAVIT_LLM_BASE_URL": "http://x:1", "AFFIDAVIT_LLM_MODEL": "m",
        "AFFIDAVIT_LLM_API_KEY_ENV": "K", "AFFIDAVIT_LLM_TIMEOUT_S": "2.5",
    })
    assert cfg == LLMJudgeConfig(base_url="http://x:1", model="m", api_key_env="K", timeout_s=2.5)
    with pytest.raises(ValueError, match="TIMEOUT"):
        llm_config_from_env({"AFFIDAVIT_LLM_BASE_URL": "http://x", "AFFIDAVIT_LLM_MODEL": "m",
                             "AFFIDAVIT_LLM_TIMEOUT_S": "soon"})


def test_factory_and_probe(server: ScriptedServer) -> None:
    assert isinstance(make_judge("lexical"), Judge)
    assert make_judge("lexical").name == "lexical"
    with pytest.raises(ValueError, match="unknown judge"):
        make_judge("oracle")
    with pytest.raises(ValueError, match="endpoint"):
        make_judge("llm")
    cfg = LLMJudgeConfig(base_url=server.url, model="scripted", timeout_s=0.5)
    judge = make_judge("llm", llm_config=cfg)
    assert isinstance(judge, Judge)
    assert judge.name == "llm:scripted"
    assert probe_judge("lexical") == (True, "lexical judge (no model)")
    ok, detail = probe_judge("llm", llm_config=cfg)
    assert ok, detail
    ok, detail = probe_judge("llm", llm_config=LLMJudgeConfig(base_url=server.url, model="other"))
    assert not ok
    assert "other" in detail
    ok, detail = probe_judge("llm")
    assert not ok
    # A closed port: nothing listens there once the server socket is closed.
    with ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler) as tmp:
        port = tmp.server_address[1]
    ok, detail = probe_judge(
        "llm", llm_config=LLMJudgeConfig(base_url=f"http://127.0.0.1:{port}", model="m",
                                         timeout_s=0.5)
    )
    assert not ok
    assert "unreachable" in detail


@pytest.mark.parametrize(("env", "unset"), [
    ({}, "AFFIDAVIT_LLM_BASE_URL and AFFIDAVIT_LLM_MODEL unset"),
    ({"AFFIDAVIT_LLM_BASE_URL": "http://127.0.0.1:9/v1"}, "AFFIDAVIT_LLM_MODEL unset"),
])
def test_preflight_records_which_llm_setting_is_missing(tmp_path, monkeypatch, env, unset):
    # it said "(AFFIDAVIT_LLM_BASE_URL)" with the base URL set and the model not
    from affidavit.flows.preflight import run_preflight
    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import Warehouse

    for var in ("AFFIDAVIT_LLM_BASE_URL", "AFFIDAVIT_LLM_MODEL", "AFFIDAVIT_SEARXNG_URL"):
        monkeypatch.delenv(var, raising=False)
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    caps = run_preflight(Warehouse(resolve_home(str(tmp_path / "h"))), judge="llm")
    detail = f"no LLM endpoint configured ({unset})"
    assert caps.found["judge"] == {"asked": "llm", "available": False, "detail": detail}
    assert f"LLM judge unavailable ({detail}): lexical judge used" in caps.degraded
    assert caps.judge_name == "lexical"
