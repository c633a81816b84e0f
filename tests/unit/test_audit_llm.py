"""The LLM auditor against a scripted OpenAI-compatible server on 127.0.0.1.

Cases: honest; lying with an invented quote; prose; truncated; 500s; timeout. Plus: records with
no evidence are never sent, the evidence is shortened with a marked cut, the request is
deterministic and capped, and calls in flight are capped.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from affidavit.schemas.audits import AuditLabel, AuditRecord, EvidenceItem
from affidavit.tasks.audit_llm import (
    DEMOTED_FLAG,
    METHOD_PROMPT,
    LLMAuditor,
    build_audit_messages,
    parse_audit_reply,
    shorten_output,
)
from affidavit.tasks.judge_llm import LLMJudgeConfig, LLMJudgeError

PYTEST = "collected 57 items\n\n55 passed, 2 skipped in 4.81s\n"
ANSWER = "55 tests pass in 4.81s. 3 tests are skipped."
GENUINE = "55 passed, 2 skipped in 4.81s"
INVENTED = "55 passed, 3 failed in 4.81s"


class ScriptedServer:
    """An OpenAI-compatible chat server whose replies are scripted per answer.

    ``script[key]`` is a list of steps consumed in order (the last repeats), chosen by the first
    key found in the user message; a step has ``status``, ``content``, ``sleep_s``, ``body``
    and ``hold_for``: the request is held until that many requests are in flight together (or
    30 s pass), so that a test of overlapping calls does not depend on the machine's load.
    """

    def __init__(self) -> None:
        self.script: dict[str, list[dict]] = {}
        self.calls: list[dict] = []
        self.lock = threading.Condition()
        self.active = 0
        self.max_active = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return

            def do_POST(self) -> None:  # noqa: N802 - http.server API
                n = int(self.headers.get("Content-Length", "0"))
                req = json.loads(self.rfile.read(n))
                user = req["messages"][-1]["content"]
                with server.lock:
                    server.calls.append(req)
                    server.active += 1
                    server.max_active = max(server.max_active, server.active)
                    key = next((k for k in server.script if k in user), None)
                    steps = server.script.get(key, [{"content": "{}"}])
                    step = steps.pop(0) if len(steps) > 1 else steps[0]
                    server.lock.notify_all()
                    if step.get("hold_for"):
                        server.lock.wait_for(lambda: server.max_active >= step["hold_for"],
                                             timeout=30.0)
                done = False
                try:
                    if step.get("sleep_s"):
                        time.sleep(step["sleep_s"])
                    # the call leaves the count before its reply is sent: a client that gets
                    # the reply and sends its next call at once never finds it still counted
                    with server.lock:
                        server.active -= 1
                        done = True
                    body = step.get("body") or json.dumps({"choices": [{"message": {
                        "role": "assistant", "content": step.get("content", "")}}]})
                    data = body.encode()
                    self.send_response(step.get("status", 200))
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    try:
                        self.wfile.write(data)
                    except (BrokenPipeError, ConnectionResetError):
                        pass
                finally:
                    if not done:
                        with server.lock:
                            server.active -= 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.02}, daemon=True)


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer()
    srv.thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


def _auditor(server: ScriptedServer, *, timeout_s: float = 2.0, record_timeout_s: float = 5.0,
             concurrency: int = 2, max_retries: int = 1, card: str = "") -> LLMAuditor:
    cfg = LLMJudgeConfig(base_url=server.url, model="scripted", timeout_s=timeout_s,
                         max_retries=max_retries, concurrency=concurrency, max_tokens=700)
    a = LLMAuditor(cfg, card=card, record_timeout_s=record_timeout_s)
    a._sleep = lambda s: time.sleep(min(s, 0.02))  # keep backoff short in tests
    return a


def _record(rid: str = "r1", answer: str = ANSWER, output: str = PYTEST) -> AuditRecord:
    return AuditRecord(rid, answer, (EvidenceItem("shell", "pytest -q", output),))


def _reply(*entries: tuple[str, str]) -> str:
    return json.dumps({"claims": [{"index": i, "label": lab, "reason": "r", "quote": q}
                                  for i, (lab, q) in enumerate(entries, 1)]})


def test_honest_auditor_labels_stand_and_request_is_deterministic(server: ScriptedServer) -> None:
    server.script[ANSWER] = [{"content": _reply(("SUPPORTED", GENUINE),
                                                ("CONTRADICTED", GENUINE))}]
    auditor = _auditor(server, card="Tool outputs are complete.")
    [o] = auditor.audit_records([_record()])
    assert [c.label for c in o.claims] == [AuditLabel.SUPPORTED, AuditLabel.CONTRADICTED]
    contra = o.claims[1]
    assert contra.anchor == "EXACT"
    assert contra.evidence_index == 0
    assert PYTEST[contra.quote_start:contra.quote_end] == GENUINE
    assert o.degraded is None
    assert o.n_demoted == 0
    assert auditor.n_failures == 0
    req = server.calls[0]
    assert req["temperature"] == 0
    assert req["max_tokens"] == 700
    assert req["model"] == "scripted"
    assert req["messages"][0]["content"].startswith(METHOD_PROMPT)
    assert "Tool outputs are complete." in req["messages"][0]["content"]


def test_lying_auditor_invented_contradiction_never_stands(server: ScriptedServer) -> None:
    server.script[ANSWER] = [{"content": _reply(("CONTRADICTED", INVENTED),
                                                ("CONTRADICTED", ""))}]
    auditor = _auditor(server)
    [o] = auditor.audit_records([_record()])
    assert all(c.label is not AuditLabel.CONTRADICTED for c in o.claims)
    assert [c.is_demoted for c in o.claims] == [True, True]
    assert all(DEMOTED_FLAG in c.flags for c in o.claims)
    assert o.claims[0].anchor == "FAILED"
    assert o.n_demoted == 2
    assert auditor.n_demoted == 2


@pytest.mark.parametrize(
    "content",
    [
        "Here is my audit:\n" + _reply(("SUPPORTED", GENUINE), ("CONTRADICTED", GENUINE))
        + "\nHope this helps.",
        "```json\n" + _reply(("SUPPORTED", GENUINE), ("CONTRADICTED", GENUINE)) + "\n```",
    ],
    ids=["prose", "fence"],
)
def test_prose_and_fences_are_salvaged(server: ScriptedServer, content: str) -> None:
    server.script[ANSWER] = [{"content": content}]
    [o] = _auditor(server).audit_records([_record()])
    assert [c.label for c in o.claims] == [AuditLabel.SUPPORTED, AuditLabel.CONTRADICTED]
    assert o.degraded is None


def test_truncated_reply_keeps_the_entries_before_the_cut(server: ScriptedServer) -> None:
    full = _reply(("SUPPORTED", GENUINE), ("CONTRADICTED", GENUINE))
    server.script[ANSWER] = [{"content": full[: full.index('"label": "CONTRADICTED"') + 10]}]
    auditor = _auditor(server)
    [o] = auditor.audit_records([_record()])
    assert [c.label for c in o.claims] == [AuditLabel.SUPPORTED, None]
    assert o.degraded == "llm reply covered 1 of 2 claims"
    assert auditor.n_failures == 0


def test_500s_fail_open_counted_and_the_run_goes_on(server: ScriptedServer) -> None:
    other = "The suite has 57 tests."
    server.script[ANSWER] = [{"status": 500, "body": '{"error": "boom"}'}]
    server.script[other] = [{"content": _reply(("SUPPORTED", "collected 57 items"))}]
    auditor = _auditor(server, max_retries=2)
    bad, good = auditor.audit_records([_record("bad"), _record("good", other)])
    assert [c.label for c in bad.claims] == [None, None]
    assert bad.degraded is not None
    assert "HTTP 500" in bad.degraded
    assert [h.flag for h in bad.flags] == []  # the scanner still ran: all its figures are held
    assert good.claims[0].label is AuditLabel.SUPPORTED
    assert good.degraded is None
    assert auditor.n_failures == 1
    assert len(auditor.degradations) == 1
    assert sum(1 for c in server.calls if ANSWER in c["messages"][-1]["content"]) == 3


def test_timeout_fails_open_within_the_record_cap(server: ScriptedServer) -> None:
    server.script[ANSWER] = [{"content": _reply(("SUPPORTED", GENUINE)), "sleep_s": 4.0}]
    auditor = _auditor(server, timeout_s=5.0, record_timeout_s=0.4)
    t0 = time.perf_counter()
    [o] = auditor.audit_records([_record()])
    assert time.perf_counter() - t0 < 3.5  # the reply takes 4 s: the 0.4 s cap cut it
    assert o.degraded is not None
    assert "timeout" in o.degraded.lower()
    assert all(c.label is None for c in o.claims)
    assert auditor.n_failures == 1


def test_garbage_reply_fails_open(server: ScriptedServer) -> None:
    server.script[ANSWER] = [{"content": "I cannot audit this."}]
    auditor = _auditor(server)
    [o] = auditor.audit_records([_record()])
    assert o.degraded is not None
    assert "no usable claim entry" in o.degraded
    assert auditor.n_failures == 1


def test_records_without_evidence_are_never_sent(server: ScriptedServer) -> None:
    auditor = _auditor(server)
    [o] = auditor.audit_records([AuditRecord("n", "It always takes 30 ms.")])
    assert server.calls == []
    assert o.auditor == "scanner"
    assert [c.label for c in o.claims] == [AuditLabel.UNSUPPORTED]
    assert [h.flag for h in o.flags] == ["always", "30 ms"]


def test_calls_in_flight_are_capped(server: ScriptedServer) -> None:
    records = [_record(f"r{i}", f"Answer {i} says 55 tests pass.") for i in range(6)]
    for r in records:
        server.script[r.answer] = [{"content": _reply(("SUPPORTED", GENUINE)), "sleep_s": 0.15,
                                    "hold_for": 2}]
    # generous client timeouts: a call held by the server is never given up and re-sent (a
    # re-sent call would count as one more in flight)
    outcomes = _auditor(server, concurrency=2, timeout_s=60.0,
                        record_timeout_s=120.0).audit_records(records)
    assert [o.record.record_id for o in outcomes] == [r.record_id for r in records]
    assert server.max_active == 2


def test_long_evidence_is_shortened_head_and_tail_with_a_marked_cut() -> None:
    long = "HEAD-LINE\n" + "x" * 50_000 + "\nTAIL-LINE"
    rec = AuditRecord("r", "It works.", (EvidenceItem("shell", "make", long),
                                          EvidenceItem("shell", "ls", "a.txt")))
    from affidavit.tasks.audit import split_claims

    user = build_audit_messages(rec, split_claims(rec.answer), char_cap=2_000)[1]["content"]
    assert "HEAD-LINE" in user
    assert "TAIL-LINE" in user
    assert "a.txt" in user
    assert "characters cut ...]" in user
    assert len(user) < 3_000
    assert shorten_output("abc", 10) == "abc"


def test_parse_audit_reply_rejects_nothing_usable() -> None:
    with pytest.raises(LLMJudgeError):
        parse_audit_reply('{"claims": [{"index": 1, "label": "MAYBE"}]}', 1)
    got = parse_audit_reply('{"claims": [{"index": 2, "label": "overstated"}]}', 2)
    assert got == {1: {"label": AuditLabel.OVERSTATED, "reason": "", "quote": ""}}


def test_limits_from_the_environment() -> None:
    from affidavit.tasks.audit_llm import audit_limits_from_env

    env = {"AFFIDAVIT_AUDIT_RECORD_TIMEOUT_S": "30", "AFFIDAVIT_AUDIT_EVIDENCE_CHARS": "8000"}
    assert audit_limits_from_env(env) == {"record_timeout_s": 30.0, "evidence_char_cap": 8000}
    assert audit_limits_from_env({}) == {}
    with pytest.raises(ValueError, match="positive"):
        audit_limits_from_env({"AFFIDAVIT_AUDIT_RECORD_TIMEOUT_S": "0"})
