"""The answer audit on invented cases: records, claims, the lexical auditor, rows."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from affidavit.schemas.audits import (
    AUDIT_CLAIMS_SCHEMA,
    AUDITS_SCHEMA,
    AuditLabel,
    AuditRecord,
    EvidenceItem,
    make_audit_id,
)
from affidavit.tasks.anchor import anchor_quote
from affidavit.tasks.audit import audit_rows, read_sessions, record_from_files, split_claims
from affidavit.tasks.audit_lexical import audit_lexical
from affidavit.tasks.claims import split_answer_claims, split_clauses
from affidavit.warehouse.store import conform

PYPROJECT = """[project]
name = "wren"
version = "1.6.3"
requires-python = ">=3.11"
dependencies = [
    "httpx>=0.27",
    "attrs>=23.2",
]
"""
PYTEST = "collected 57 items\n\n55 passed, 2 skipped in 4.81s\n"
PIP_SHOW = "Name: wren\nVersion: 1.6.3\nRequires: attrs, httpx, sniffio\nRequired-by: heron\n"
CHANGELOG = "## [1.6.0] - 2025-03-09\n### Removed\n- Dropped the legacy `wren.compat` module.\n"
GITSTAT = "a1b2c3d Tidy the CLI\n 4 files changed, 96 insertions(+), 12 deletions(-)\n"
CONFIG_DOC = (
    "| variable | default | meaning |\n"
    "| `WREN_RETRY_WAIT` | `15` | Seconds between two retries of a failed upload |\n"
    "| `WREN_WORKERS` | `4` | Upload workers |\n"
    "Configuration is read once at start-up; restart the service to apply a change.\n"
)
RATE = "HTTP/1.1 200 OK\nratelimit-policy: 120;w=60\n\n{\"ok\":true}\n"
PACKAGE_JSON = '{\n  "name": "dash",\n  "engines": {\n    "node": ">=18.17"\n  }\n}\n'
CARGO_TEST = ("error[E0308]: mismatched types\n --> src/io.rs:12:5\n"
              "error[E0425]: cannot find value\n --> src/net.rs:40:9\n"
              "error: could not compile due to 2 previous errors\n")
RELEASES = "v2.4.0  Latest  2024-08-11\nv2.3.0          2024-07-02\n"
HTTP_503 = "HTTP/1.1 503 Service Unavailable\nretry-after: 30\n\n{\"ok\":false}\n"
CERT = "subject=CN=api.example.com\nnotAfter=Mar 14 12:00:00 2026 GMT\n"
GITLOG = (
    "f00d123 (HEAD -> main) Bump version to 2.1.0\n"
    "e11e456 Revert \"Add gzip to uploads (#88)\"\n"
    "d22d789 Add retry budget to the uploader (#91)\n"
    "c33c012 Add gzip to uploads (#88)\n"
)


def _audit(answer: str, *outputs: str) -> dict[str, AuditLabel | None]:
    rec = AuditRecord("r", answer, tuple(EvidenceItem("tool", f"in{i}", o)
                                          for i, o in enumerate(outputs)))
    [out] = audit_lexical([rec])
    return {c.text: c.label for c in out.claims}


# ---------------------------------------------------------------------------------------------
# Claims


@pytest.mark.parametrize(
    ("sentence", "clauses"),
    [
        ("The cache holds 3 entries, and the queue is empty.",
         ["The cache holds 3 entries", "the queue is empty"]),
        ("It answers 200 and reports build 7.", ["It answers 200", "reports build 7"]),
        ("Both the cache and the queue report ok.", ["Both the cache and the queue report ok"]),
        ("Compare Rust and Go for backend services.",
         ["Compare Rust and Go for backend services"]),
        ("Its plans are free, pro and team.", ["Its plans are free, pro and team"]),
        ("It needs a restart; nothing else changes.", ["It needs a restart",
                                                       "nothing else changes"]),
        ("The job failed, because the disk was full.",
         ["The job failed", "because the disk was full"]),
        ("Every page is cached, using a TTL of 60 seconds.",
         ["Every page is cached", "using a TTL of 60 seconds"]),
    ],
)
def test_split_clauses_keeps_predicates_whole(sentence: str, clauses: list[str]) -> None:
    assert [sentence[a:b] for a, b in split_clauses(sentence)] == clauses


def test_split_answer_claims_spans_point_into_the_answer() -> None:
    answer = "The build uses wren 1.6.3. unit tests pass and 2 are skipped in 30 ms. Why?"
    claims = split_answer_claims(answer)
    assert [c.text for c in claims] == ["The build uses wren 1.6.3", "unit tests pass",
                                        "2 are skipped in 30 ms"]
    for c in claims:
        assert answer[c.span_start:c.span_end] == c.text


@pytest.mark.parametrize(
    "answer",
    [
        "1. Open the settings page.\n2. Click Save, then restart the service.",
        "- Run `pip install wren`\n- Then run pytest -q",
        "Click Save, then restart.",
        "Step 3: set WREN_WORKERS before starting the service.",
        "Don't edit generated files; make sure the tests pass.",
    ],
)
def test_instructions_are_left_out_and_counted(answer: str) -> None:
    skips: Counter[str] = Counter()
    assert [c.text for c in split_answer_claims(answer, skips=skips)] == []
    assert skips["instruction_not_a_claim"] >= 1
    assert split_claims(answer) == []  # not the whole answer as one claim either


@pytest.mark.parametrize(
    ("answer", "claims"),
    [
        ("1. Revenue rose 12 percent in 2023.\n2. Build times fell 20%.",
         ["Revenue rose 12 percent in 2023", "Build times fell 20%"]),
        ("Rising costs hit margins.", ["Rising costs hit margins"]),
        ("Run times increased by 5% after the 1.6.3 upgrade.",
         ["Run times increased by 5% after the 1.6.3 upgrade"]),
        ("Commit d22d789 moved the retry budget into the uploader.",
         ["Commit d22d789 moved the retry budget into the uploader"]),
        ("Release notes list three fixes.", ["Release notes list three fixes"]),
        ("Set 1 contains 12 items.", ["Set 1 contains 12 items"]),
        ("Install size: 40 MB.", ["Install size: 40 MB"]),
        ("The tests pass on 3.11, and run in 40 s on 3.12.",
         ["The tests pass on 3.11", "run in 40 s on 3.12"]),
    ],
)
def test_statements_that_look_like_steps_stay_claims(answer: str, claims: list[str]) -> None:
    skips: Counter[str] = Counter()
    assert [c.text for c in split_answer_claims(answer, skips=skips)] == claims
    assert not skips


def test_a_step_beside_a_claim_leaves_the_claim_alone() -> None:
    answer = ("Configuration is read once at start-up, so restart the service. "
              "Run `wren --version`, and the CLI prints 1.6.3.")
    skips: Counter[str] = Counter()
    claims = split_answer_claims(answer, skips=skips)
    assert [c.text for c in claims] == ["Configuration is read once at start-up",
                                        "the CLI prints 1.6.3"]
    assert skips == Counter(instruction_not_a_claim=2)
    for c in claims:
        assert answer[c.span_start:c.span_end] == c.text


def test_audit_outcome_counts_questions_and_instructions() -> None:
    rec = AuditRecord("r", "1. Open pyproject.toml.\n2. wren is at version 1.6.3. Is that the "
                      "newest?", (EvidenceItem("read_file", "pyproject.toml", PYPROJECT),))
    [out] = audit_lexical([rec])
    assert {c.text: c.label for c in out.claims} == {
        "wren is at version 1.6.3": AuditLabel.SUPPORTED}
    assert out.skipped == Counter(instruction_not_a_claim=1, question_not_a_claim=1)
    [only] = audit_lexical([AuditRecord("n", "Restart the service. It is 1.6.3.", ())])
    assert only.auditor == "scanner"
    assert [c.text for c in only.claims] == ["It is 1.6.3"]
    assert only.skipped == Counter(instruction_not_a_claim=1)


# ---------------------------------------------------------------------------------------------
# The lexical auditor, rule by rule


def test_supported_claims_of_a_faithful_answer() -> None:
    labels = _audit("wren is at version 1.6.3 and needs Python 3.11 or newer. "
                    "55 tests pass and 2 are skipped, in 4.81s.", PYPROJECT, PYTEST)
    assert set(labels.values()) == {AuditLabel.SUPPORTED}, labels


@pytest.mark.parametrize(
    ("answer", "outputs", "claim"),
    [
        ("wren needs Python 3.9 or newer.", (PYPROJECT,), "wren needs Python 3.9 or newer"),
        ("wren 1.6.0 was released on 2024-03-09.", (CHANGELOG,),
         "wren 1.6.0 was released on 2024-03-09"),
        ("Failed uploads are retried after 30 seconds by default.", (CONFIG_DOC,),
         "Failed uploads are retried after 30 seconds by default"),
        ("The commit touched 96 files.", (GITSTAT,), "The commit touched 96 files"),
        ("wren does not depend on sniffio.", (PIP_SHOW,), "wren does not depend on sniffio"),
        ("A change of configuration applies live without a restart.", (CONFIG_DOC,),
         "A change of configuration applies live without a restart"),
        ("The API allows 120 requests per second.", (RATE,),
         "The API allows 120 requests per second"),
        ("The retry budget change was reverted.", (GITLOG,),
         "The retry budget change was reverted"),
        ("The dashboard needs Node 16 or later.", (PACKAGE_JSON,),
         "The dashboard needs Node 16 or later"),
        ("The run had 2 errors, both in src/io.rs.", (CARGO_TEST,), "both in src/io.rs"),
        ("The newest release is v2.3.0, published on 2024-08-11.", (RELEASES,),
         "The newest release is v2.3.0, published on 2024-08-11"),
        ("The health endpoint returned 200.", (HTTP_503,), "The health endpoint returned 200"),
        ("The certificate expires on 2025-03-14.", (CERT,),
         "The certificate expires on 2025-03-14"),
    ],
    ids=["version", "date-a-year-off", "figure", "count-of-else", "negation", "without",
         "rate-window", "event-of-else", "major-version", "all-in-one-place",
         "date-of-another-version", "http-status", "date-written-otherwise"],
)
def test_contradicted_with_an_anchored_quote(answer: str, outputs: tuple[str, ...],
                                             claim: str) -> None:
    rec = AuditRecord("r", answer, tuple(EvidenceItem("t", "", o) for o in outputs))
    [out] = audit_lexical([rec])
    [c] = [c for c in out.claims if c.text == claim]
    assert c.label is AuditLabel.CONTRADICTED, c.reason
    assert c.quote
    assert c.anchor in ("EXACT", "NORMALIZED")
    assert anchor_quote(c.quote, outputs[c.evidence_index], min_chars=8).is_admitted
    assert outputs[c.evidence_index][c.quote_start:c.quote_end] == c.quote


@pytest.mark.parametrize(
    ("answer", "outputs"),
    [
        ("wren needs Python 3.11 or newer.", (PYPROJECT,)),
        ("wren 1.6.0 was released on 2025-03-09.", (CHANGELOG,)),
        ("Failed uploads are retried after 15 seconds by default.", (CONFIG_DOC,)),
        ("The commit touched 4 files.", (GITSTAT,)),
        ("wren depends on sniffio.", (PIP_SHOW,)),
        ("There were no failures.", ("failures 0\n",)),
        ("The API allows 120 requests per minute.", (RATE,)),
        ("The gzip change was reverted.", (GITLOG,)),
        ("The dashboard needs Node 18 or later.", (PACKAGE_JSON,)),
        ("The run had 2 errors, one in src/io.rs and one in src/net.rs.", (CARGO_TEST,)),
        ("The newest release is v2.4.0, published on 2024-08-11.", (RELEASES,)),
        ("The health endpoint returned 503.", (HTTP_503,)),
        ("The certificate expires on 2026-03-14.", (CERT,)),
    ],
)
def test_the_same_claims_stated_right_are_supported(answer: str,
                                                    outputs: tuple[str, ...]) -> None:
    labels = _audit(answer, *outputs)
    assert set(labels.values()) == {AuditLabel.SUPPORTED}, labels


def test_absolute_word_beyond_the_evidence_is_overstated() -> None:
    labels = _audit("All 57 tests pass.", PYTEST)
    assert labels == {"All 57 tests pass": AuditLabel.OVERSTATED}


@pytest.mark.parametrize("answer", [
    "The run_all script passed.",           # an identifier holding a universal word
    "The allée is 200 m long.",             # a word with a non-ASCII letter after "all"
    "All 57 tests pass. The run_all target passed.",  # "all" flagged, then inside a word
])
def test_a_universal_word_inside_a_longer_word_is_not_one(answer: str) -> None:
    labels = _audit(answer, "42 passed in 3.1s; script target")
    assert labels  # audited, not a crash of the batch
    assert [t for t, label in labels.items()
            if label is AuditLabel.OVERSTATED and "all" not in t.lower().split()] == []


def test_a_record_the_lexical_auditor_fails_on_is_left_unlabelled_not_its_batch(monkeypatch):
    from affidavit.tasks.audit_lexical import LexicalAuditor

    real = LexicalAuditor.audit

    def audit(self, record, claims, flags):
        if record.record_id == "bad":
            claims[0].label = AuditLabel.SUPPORTED  # part-way, then it fails
            raise AssertionError("no such word")
        return real(self, record, claims, flags)

    monkeypatch.setattr(LexicalAuditor, "audit", audit)
    ev = (EvidenceItem("bash", "pytest", PYTEST),)
    good, bad = (AuditRecord(i, "All 57 tests pass.", ev) for i in ("good", "bad"))
    out = audit_lexical([bad, good])
    assert [o.record.record_id for o in out] == ["bad", "good"]
    assert out[1].degraded is None
    assert out[1].claims[0].label is AuditLabel.OVERSTATED
    assert out[0].degraded == "lexical failed: AssertionError: no such word"
    assert [(c.label, c.reason) for c in out[0].claims] == [
        (None, "left unlabelled: the lexical auditor failed (AssertionError: no such word)")]


def test_absolute_word_the_evidence_holds_is_not_flagged() -> None:
    labels = _audit("All settings are read at start-up.", "All settings are read at start-up.")
    assert labels == {"All settings are read at start-up": AuditLabel.SUPPORTED}


def test_frequency_every_is_not_an_overstatement() -> None:
    labels = _audit("The health check runs every 30 seconds.", "HEALTHCHECK --interval=30s")
    assert labels == {"The health check runs every 30 seconds": AuditLabel.SUPPORTED}


def test_unsupported_figure_and_claim_with_nothing_behind_it() -> None:
    labels = _audit("The image is 80 MB. It is already running in production.", PYPROJECT)
    assert labels == {"The image is 80 MB": AuditLabel.UNSUPPORTED,
                      "It is already running in production": AuditLabel.UNSUPPORTED}


def test_no_evidence_means_scanner_only_and_unsupported() -> None:
    rec = AuditRecord("r", "It always answers in 30 ms. Python 3.12 is required.")
    [out] = audit_lexical([rec])
    assert out.auditor == "scanner"
    assert {c.label for c in out.claims} == {AuditLabel.UNSUPPORTED}
    assert [h.flag for h in out.flags] == ["always", "30 ms", "3.12"]
    assert out.claims[0].flags == ["always", "30 ms"]


def test_a_contradiction_is_never_decided_on_inputs() -> None:
    """The date sits in the tool's input (a path), not its output: nothing contradicts."""
    rec = AuditRecord("r", "The log of 2024-05-03 shows 2 errors.",
                      (EvidenceItem("read_file", "logs/2024-05-02.log", "ERROR a\nERROR b\n"),))
    [out] = audit_lexical([rec])
    assert out.claims[0].label is not AuditLabel.CONTRADICTED
    assert [h.flag for h in out.flags] == ["2024-05-03"]


# ---------------------------------------------------------------------------------------------
# Reading records


def test_read_sessions_jsonl_counts_malformed_lines(tmp_path: Path) -> None:
    good = {"id": "a", "answer": "It works.", "evidence": [{"tool": "shell", "input": "x",
                                                            "output": "ok"}]}
    lines = [
        json.dumps(good),
        "{not json",
        json.dumps({"id": "b", "answer": "", "evidence": []}),
        json.dumps({"id": "c", "answer": "Fine.", "evidence": "oops"}),
        json.dumps([1, 2]),
        "",
        json.dumps({"id": "d", "answer": "No evidence here."}),
        json.dumps({"id": "a", "answer": "Again.", "evidence": []}),
        json.dumps({"id": "e", "answer": "Bad item.", "evidence": [{"tool": "x"}]}),
    ]
    p = tmp_path / "s.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    records, skips, notes = read_sessions(p)
    assert [r.record_id for r in records] == ["a", "d"]
    assert records[0].evidence == (EvidenceItem("shell", "x", "ok"),)
    assert records[1].evidence == ()
    assert records[1].line == 7
    assert skips == {"bad_json": 1, "missing_answer": 1, "bad_evidence": 2, "not_an_object": 1,
                     "duplicate_id": 1}
    assert any(n.startswith("line 2:") for n in notes)
    assert any(n.startswith("line 4:") and "not JSON" in n for n in notes)


def test_read_sessions_json_parquet_and_column_mapping(tmp_path: Path) -> None:
    rows = [{"sid": "x1", "reply": "It passed.",
             "calls": [{"tool": "shell", "input": "pytest", "output": "3 passed"}]},
            {"sid": "x2", "reply": "Nothing read.", "calls": []}]
    pj = tmp_path / "s.json"
    pj.write_text(json.dumps({"sessions": rows}), encoding="utf-8")
    kw = {"id_column": "sid", "answer_column": "reply", "evidence_column": "calls"}
    recs, skips, _ = read_sessions(pj, **kw)
    assert [(r.record_id, len(r.evidence)) for r in recs] == [("x1", 1), ("x2", 0)]
    assert not skips
    pp = tmp_path / "s.parquet"
    pq.write_table(pa.Table.from_pylist(rows), pp)
    recs2, _, _ = read_sessions(pp, **kw)
    assert recs2 == [AuditRecord(r.record_id, r.answer, r.evidence, r.line) for r in recs]
    with pytest.raises(ValueError, match="limit"):
        read_sessions(pj, limit=-1)
    bad = tmp_path / "s.csv"
    bad.write_text("a,b\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unsupported sessions file"):
        read_sessions(bad)


def test_read_sessions_refuses_an_id_that_is_no_text_or_number(tmp_path: Path) -> None:
    # an object, a list or a boolean would be stored as Python's repr ("{'a': 1}", "True")
    ids = [7, "b", {"a": 1}, ["c"], True, None]
    lines = [json.dumps({"id": i, "answer": "It passed.", "evidence": []}) for i in ids]
    p = tmp_path / "s.jsonl"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    records, skips, notes = read_sessions(p)
    assert [r.record_id for r in records] == ["7", "b", "line-6"]
    assert skips == {"bad_id": 3}
    assert "line 3: the id in column 'id' is an object, not text or a number" in notes
    assert "line 5: the id in column 'id' is a boolean, not text or a number" in notes


def test_read_sessions_parquet_with_binary_columns_reads_them_as_text(tmp_path: Path) -> None:
    # BYTE_ARRAY columns without a string annotation (some writers) hold the text as bytes
    item = pa.struct([("tool", pa.binary()), ("input", pa.binary()), ("output", pa.binary())])
    table = pa.table({
        "id": pa.array([b"a", b"b"], pa.binary()),
        "answer": pa.array([b"All 42 tests passed.", b"It is caf\xe9 time."], pa.binary()),
        "evidence": pa.array([[{"tool": b"bash", "input": b"pytest", "output": b"42 passed"}],
                              [{"tool": b"cat", "input": b"menu", "output": b"caf\xe9"}]],
                             pa.list_(item)),
    })
    pq.write_table(table, tmp_path / "s.parquet")
    records, skips, _ = read_sessions(tmp_path / "s.parquet")
    assert [(r.record_id, r.answer, r.evidence) for r in records] == [
        ("a", "All 42 tests passed.", (EvidenceItem("bash", "pytest", "42 passed"),)),
        ("b", "It is café time.", (EvidenceItem("cat", "menu", "café"),)),
    ]
    assert not skips
    # an output that is no text and no JSON value is a counted skip of its record, not an error
    nested = pa.table({"id": ["c"], "answer": ["It passed."],
                       "evidence": pa.array([[{"output": [b"x"]}]],
                                            pa.list_(pa.struct([("output",
                                                                 pa.list_(pa.binary()))])))})
    pq.write_table(nested, tmp_path / "n.parquet")
    records, skips, notes = read_sessions(tmp_path / "n.parquet")
    assert records == []
    assert skips == {"bad_evidence": 1}
    assert "row 1: evidence item 1: its output cannot be read as text" in notes


def test_read_sessions_parquet_with_a_nanosecond_timestamp_column(tmp_path: Path) -> None:
    # pandas writes its timestamps in nanoseconds; pyarrow cannot give them as datetimes
    table = pa.table({"id": ["a"], "answer": ["It passed."],
                      "created_at": pa.array([1_715_644_800_123_456_789], pa.timestamp("ns"))})
    pq.write_table(table, tmp_path / "s.parquet")
    records, skips, _ = read_sessions(tmp_path / "s.parquet")
    assert [(r.record_id, r.answer) for r in records] == [("a", "It passed.")]
    assert not skips


def test_record_from_files(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("55 tests pass.", encoding="utf-8")
    (tmp_path / "e.txt").write_text(PYTEST, encoding="utf-8")
    rec = record_from_files(tmp_path / "a.txt", [tmp_path / "e.txt"])
    assert rec.answer == "55 tests pass."
    assert rec.evidence[0].output == PYTEST
    with pytest.raises(FileNotFoundError):
        record_from_files(tmp_path / "a.txt", [tmp_path / "missing.txt"])


# ---------------------------------------------------------------------------------------------
# Rows


def test_rows_conform_to_the_schemas_and_ids_are_stable() -> None:
    rec = AuditRecord("r1", "wren needs Python 3.9 or newer. All is fine.",
                      (EvidenceItem("read_file", "pyproject.toml", PYPROJECT),))
    [out] = audit_lexical([rec])
    now = datetime(2026, 1, 1, tzinfo=UTC)
    a, cs = audit_rows(out, run_id="run", now=now, source="s.jsonl")
    conform(pa.Table.from_pylist([a], schema=AUDITS_SCHEMA), AUDITS_SCHEMA)
    conform(pa.Table.from_pylist(cs, schema=AUDIT_CLAIMS_SCHEMA), AUDIT_CLAIMS_SCHEMA)
    assert a["audit_id"] == make_audit_id(rec, "lexical")
    assert a["n_contradicted"] == 1
    assert a["n_claims"] == len(cs) == 2
    assert a["scanner_flags"] == ["3.9", "all"]
    changed = AuditRecord("r1", rec.answer + " ", rec.evidence)
    assert make_audit_id(changed, "lexical") != a["audit_id"]
    assert make_audit_id(rec, "llm:m") != a["audit_id"]


@pytest.mark.parametrize(
    ("answer", "output"),
    [
        ("The export lists 120 users.", "121 users.csv\n"),  # wc -l on a file name
        ("wren has no dependencies.", '[project]\nname = "wren"\ndependencies = []\n'),
        ("None of the jobs were cancelled.", "job build: success\njob lint: success\n"),
    ],
    ids=["count-before-a-file-name", "empty-list", "none-of"],
)
def test_no_contradiction_without_the_same_thing_said_otherwise(answer: str,
                                                                output: str) -> None:
    labels = _audit(answer, output)
    assert AuditLabel.CONTRADICTED not in labels.values(), labels


def test_a_measure_written_otherwise_is_held_but_a_version_is_not() -> None:
    assert _audit("The CPU is at 37%.", "web  37.00%  512MiB") == {
        "The CPU is at 37%": AuditLabel.SUPPORTED}
    labels = _audit("wren needs Python 3.1 or newer.", 'requires-python = ">=3.10"')
    assert labels == {"wren needs Python 3.1 or newer": AuditLabel.CONTRADICTED}


def test_an_event_in_the_active_voice_names_its_agent_not_what_it_befell() -> None:
    git = ("commit 9f8e7d6\nAuthor: Lena Ortiz <lena@example.org>\n\n    Drop Python 3.8 support\n"
           "\n 2 files changed, 3 insertions(+), 3 deletions(-)\n")
    labels = _audit("Lena Ortiz dropped Python 3.8 support in a commit touching 2 files.", git)
    assert AuditLabel.CONTRADICTED not in labels.values(), labels


def test_a_subset_count_is_not_a_count_of_something_else() -> None:
    out = "Ran 42 tests in 0.31s\n\nFAILED (failures=2)\n"
    labels = _audit("2 tests failed.", out)
    assert AuditLabel.CONTRADICTED not in labels.values(), labels


def test_blank_outputs_are_no_evidence() -> None:
    rec = AuditRecord("r", "It takes 30 ms.", (EvidenceItem("shell", "true", "  \n"),))
    [out] = audit_lexical([rec])
    assert out.auditor == "scanner"
    assert [c.label for c in out.claims] == [AuditLabel.UNSUPPORTED]


@pytest.mark.parametrize(
    ("last_provider", "label"),
    [("acme-us", AuditLabel.SUPPORTED), ("globex-eu", AuditLabel.OVERSTATED)],
)
def test_a_universal_claim_is_covered_member_by_member(last_provider: str,
                                                       label: AuditLabel) -> None:
    log = "".join(f"10:0{i} WARN card declined provider={p}\n"
                  for i, p in enumerate(["acme-us", "acme-us", last_provider]))
    labels = _audit("The gateway logged 3 card declines, all from acme-us.", log)
    assert labels["all from acme-us"] is label


def test_a_version_the_evidence_refines_is_held() -> None:
    labels = _audit("TypeScript is held to the 5.4 patch releases.", '"typescript": "~5.4.5"')
    assert labels == {"TypeScript is held to the 5.4 patch releases": AuditLabel.SUPPORTED}


@pytest.mark.parametrize(
    ("output", "label"),
    [('[project]\nname = "wren"\n', AuditLabel.UNSUPPORTED),
     ("wren is the most widely used upload client.\n", AuditLabel.SUPPORTED)],
)
def test_a_claim_about_the_world_needs_the_evidence_to_say_it(output: str,
                                                              label: AuditLabel) -> None:
    labels = _audit("wren is the most widely used upload client.", output)
    assert labels == {"wren is the most widely used upload client": label}


@pytest.mark.parametrize(
    ("package", "label"),
    [('{"dependencies": {"zod": "^3.23.8"}, "devDependencies": {"vitest": "^1.6.0"}}',
      AuditLabel.CONTRADICTED),
     ('{"dependencies": {"react": "^18.3.1"}, "devDependencies": {"zod": "^3.23.8"}}',
      AuditLabel.SUPPORTED)],
)
def test_only_in_one_section_of_a_json_file(package: str, label: AuditLabel) -> None:
    labels = _audit("zod is listed only under devDependencies.", package)
    assert labels == {"zod is listed only under devDependencies": label}


@pytest.mark.parametrize(
    ("log", "label"),
    [("12:00:01 ERROR job 7 killed: deadline exceeded after 600s\n", AuditLabel.CONTRADICTED),
     ("12:00:01 ERROR job 7 killed: out of memory (limit 2Gi)\n", AuditLabel.SUPPORTED),
     ("12:00:01 ERROR job 7 killed\n", AuditLabel.SUPPORTED)],
)
def test_a_failure_cause_the_evidence_gives_otherwise(log: str, label: AuditLabel) -> None:
    labels = _audit("Job 7 was killed because it ran out of memory.", log)
    assert labels == {"Job 7 was killed because it ran out of memory": label}, labels


@pytest.mark.parametrize(
    ("answer", "label"),
    [("The export holds 501 orders.", AuditLabel.CONTRADICTED),
     ("The export holds 500 orders.", AuditLabel.SUPPORTED),
     ("The export has 501 lines.", AuditLabel.SUPPORTED)],
)
def test_a_line_count_is_not_a_record_count_when_a_header_row_is_shown(
        answer: str, label: AuditLabel) -> None:
    rec = AuditRecord("r", answer, (
        EvidenceItem("shell", "wc -l out/orders.csv", "501 out/orders.csv\n"),
        EvidenceItem("shell", "head -3 out/orders.csv",
                     "order_id,total,currency\n9001,12.50,EUR\n9002,8.00,EUR\n")))
    [out] = audit_lexical([rec])
    assert [c.label for c in out.claims] == [label], out.claims[0].reason


PYTEST_FAILED = "tests/test_cli.py ..........F.\n\n1 failed, 11 passed in 0.52s\n"


@pytest.mark.parametrize(
    ("answer", "outputs"),
    [
        ("All 12 tests pass.", ("11 passed, 1 failed in 0.52s\n",)),
        ("All tests pass.", (PYTEST_FAILED,)),
        ("Every test passed.", ("Tests: 1 failed, 11 passed, 12 total\n",)),
        ("The whole suite passes.", ("test result: FAILED. 11 passed; 1 failed; 0 ignored\n",)),
        ("All 42 tests passed.", ("Ran 42 tests in 0.31s\n\nFAILED (failures=2)\n",)),
        ("No tests failed.", ("  11 passing (40ms)\n  1 failing\n",)),
        ("12 tests passed.", (PYTEST_FAILED,)),
        ("3 tests failed.", ("2 failed, 131 passed, 4 skipped in 12.48s\n",)),
        ("1 test failed.", ("12 passed in 0.40s\n",)),
        ("1 failed.", ("2 failed, 10 passed in 0.52s\n",)),
        ("The run had 1 failure.", ("2 failed, 10 passed in 0.52s\n",)),
        ("1 test fails.", ("2 failed, 10 passed in 0.52s\n",)),
        ("11 passed, 1 failed.", ("12 passed in 0.40s\n",)),
    ],
    ids=["all-n-pass", "all-pass", "jest", "cargo", "unittest", "mocha-none-failed",
         "pass-count", "fail-count", "fail-count-none-failed", "runner-form", "one-failure",
         "fails", "runner-form-none-failed"],
)
def test_a_test_outcome_the_run_counts_otherwise_is_contradicted(answer: str,
                                                                 outputs: tuple[str, ...]):
    rec = AuditRecord("r", answer, tuple(EvidenceItem("shell", "pytest -q", o) for o in outputs))
    [out] = audit_lexical([rec])
    [claim] = out.claims
    assert claim.label is AuditLabel.CONTRADICTED, claim.reason
    assert claim.anchor in ("EXACT", "NORMALIZED")
    assert claim.quote in outputs[0]


@pytest.mark.parametrize(
    ("answer", "outputs"),
    [
        ("All 42 tests pass.", ("40 passed, 2 skipped in 3.02s\n",)),  # skipped: overstated
        ("40 of the 42 tests pass.", ("40 passed, 2 skipped in 3.02s\n",)),
        ("All 12 tests pass.", ("12 passed, 2 xfailed in 1.10s\n",)),
        ("The 2 new tests pass.", ("40 passed in 0.52s\n",)),
        ("All tests in tests/test_auth.py pass.", (PYTEST_FAILED,)),
        ("Not all tests pass.", (PYTEST_FAILED,)),
        ("All tests pass now.", (PYTEST_FAILED, "12 passed in 0.40s\n")),  # after the fix
        ("No tests failed.", ("12 passed, 0 failed\n",)),
        ("The suite ran with 2 failures.", ("2 failed, 131 passed, 4 skipped in 12.48s\n",)),
        ("Two tests failed.", ("40 passed, 2 failed in 0.52s\n",)),
        ("11 passed, 1 failed.", ("11 passed, 1 failed in 0.52s\n",)),
        ("1 test failed.", ("1 failed, 11 passed in 0.52s\n", "12 passed in 0.40s\n")),
        ("The upload had 2 failed chunks.", ("12 passed in 0.40s\n",)),
    ],
    ids=["skipped", "part-of", "xfailed", "a-part", "a-file", "negated", "a-later-run",
         "zero-failed", "same-failures", "number-word", "runner-form", "an-earlier-run",
         "not-tests"],
)
def test_a_test_outcome_the_run_agrees_with_is_not_contradicted(answer: str,
                                                                outputs: tuple[str, ...]):
    rec = AuditRecord("r", answer, tuple(EvidenceItem("shell", "pytest -q", o) for o in outputs))
    [out] = audit_lexical([rec])
    assert all(c.label is not AuditLabel.CONTRADICTED for c in out.claims), [
        (c.text, c.reason) for c in out.claims]


@pytest.mark.parametrize(("answer", "output", "reason"), [
    ("1 test failed.", "12 passed in 0.40s\n", "the test run counts no failure (12 passed), "
     "not 1"),
    ("1 failed.", "2 failed, 10 passed in 0.52s\n", "the test run counts 2 failed, not 1"),
])
def test_a_failure_count_gets_the_runs_count_as_its_reason(answer: str, output: str,
                                                           reason: str) -> None:
    # not "the evidence holds 0% of the claim's terms" (a test run speaks to it) nor "the
    # evidence holds its figures and terms" (the 1 it holds is not a count of failures)
    rec = AuditRecord("r", answer, (EvidenceItem("shell", "pytest -q", output),))
    [out] = audit_lexical([rec])
    [claim] = out.claims
    assert (claim.label, claim.reason) == (AuditLabel.CONTRADICTED, reason)


def test_a_linters_errors_are_not_failed_tests() -> None:
    rec = AuditRecord("r", "All tests pass.", (
        EvidenceItem("shell", "npm run lint", "✖ 3 problems (3 errors, 0 warnings)\n"),
        EvidenceItem("shell", "npm test", "Tests: 12 passed, 12 total\n")))
    [out] = audit_lexical([rec])
    assert out.claims[0].label is not AuditLabel.CONTRADICTED, out.claims[0].reason


def test_a_version_that_meets_the_evidences_requirement_is_not_contradicted() -> None:
    pyproject = (
        '[project]\nname = "kiln"\nrequires-python = ">=3.10"\n'
        'dependencies = ["duckdb>=1.0", "polars==1.2.0"]\n'
    )
    out = _audit(
        "The project requires Python 3.12. It depends on duckdb 1.1.0. It pins polars 1.3.0.",
        pyproject,
    )
    labels = {k.split()[-1].rstrip("."): v for k, v in out.items()}
    assert labels["3.12"] is not AuditLabel.CONTRADICTED  # 3.12 meets >=3.10
    assert labels["1.1.0"] is not AuditLabel.CONTRADICTED  # 1.1.0 meets >=1.0
    assert labels["1.3.0"] is AuditLabel.CONTRADICTED  # the pin says 1.2.0
    out = _audit("The project requires Python 3.9.", pyproject)
    assert set(out.values()) == {AuditLabel.CONTRADICTED}  # 3.9 does not meet >=3.10


def test_a_sessions_file_without_an_answer_column_names_the_keys_it_has(tmp_path):
    from collections import Counter

    from affidavit.tasks.audit import iter_sessions

    path = tmp_path / "s.jsonl"
    path.write_text('{"id": "r1", "foo": "All tests pass.", "evidence": []}\n')
    skips: Counter[str] = Counter()
    notes: list[str] = []
    assert list(iter_sessions(path, skips=skips, notes=notes)) == []
    assert skips == {"missing_answer": 1}
    assert any("no answer column found among its keys (evidence, foo, id)" in n
               and "--answer-column" in n for n in notes)


def test_session_notes_name_parquet_rows_and_json_records_from_one(tmp_path):
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    from affidavit.tasks.audit import read_sessions

    rows = [{"id": "a", "answer": "All 3 tests pass.", "evidence": []},
            {"id": "b", "answer": "", "evidence": []}]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "s.parquet")
    (tmp_path / "s.json").write_text(json.dumps(rows))
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    said = {name: [n for n in read_sessions(tmp_path / name)[2] if "no answer text" in n]
            for name in ("s.parquet", "s.json", "s.jsonl")}
    assert said == {"s.parquet": ["row 2: no answer text in column 'answer'"],
                    "s.json": ["item 2: no answer text in column 'answer'"],
                    "s.jsonl": ["line 2: no answer text in column 'answer'"]}


def test_session_notes_name_a_number_answer_and_evidence_items_from_1(tmp_path):
    import json

    from affidavit.tasks.audit import read_sessions

    rows = [{"id": "a", "answer": "All 3 tests pass.", "evidence": ["3 passed"]},
            {"id": "b", "answer": 42, "evidence": []},
            {"id": "c", "answer": "Fine.", "evidence": ["ok", {"tool": "bash"}]}]
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    _, skips, notes = read_sessions(tmp_path / "s.jsonl")
    notes = [n for n in notes if n.startswith("line ")]
    assert "line 2: the answer in column 'answer' is a number, not text" in notes
    # counted as what the note says (it was missing_answer): the answer is there, not text
    assert skips == {"bad_answer": 1, "bad_evidence": 1}
    assert any(n.startswith("line 3:") and "evidence item 2 has no output" in n for n in notes)


@pytest.mark.parametrize(("answer", "output", "label"), [
    # the run counts every test it ran as passed: the "all" is covered
    ("All 5 tests passed.", "===== 5 passed in 0.12s =====", AuditLabel.SUPPORTED),
    ("All tests pass.", "$ pytest -q\n.....\n5 passed in 0.12s", AuditLabel.SUPPORTED),
    ("Every test passed.", "test result: ok. 7 passed; 0 failed; 0 ignored",
     AuditLabel.SUPPORTED),
    # a skip, a smaller count or another run's failure: not every test there was
    ("All 5 tests passed.", "===== 4 passed, 1 skipped in 0.12s =====", AuditLabel.OVERSTATED),
    ("All 6 tests passed.", "===== 5 passed in 0.12s =====", AuditLabel.OVERSTATED),
    ("All 5 tests passed.", "===== 4 passed, 1 failed in 0.12s =====", AuditLabel.CONTRADICTED),
    # "The tests passed." speaks of every test, as "all tests pass" does
    ("The tests passed.", "===== 3 failed, 10 passed in 2.01s =====", AuditLabel.CONTRADICTED),
    ("The tests passed.", "===== 10 passed in 2.01s =====", AuditLabel.SUPPORTED),
])
def test_an_all_pass_claim_is_supported_when_the_run_covers_every_test(answer, output, label):
    assert _audit(answer, output) == {answer.rstrip("."): label}


def test_control_characters_in_answer_and_evidence_files_are_removed_and_noted(tmp_path):
    from affidavit.tasks.audit import record_from_files

    answer = tmp_path / "answer.txt"
    answer.write_bytes(b"All 12 tests pass\x07 in 3.1s.\n")
    log = tmp_path / "pytest.txt"
    log.write_bytes(b"\x1b[32mPASSED\x1b[0m tests/test_a.py::test_reads_a_bridge_record\n" * 10
                    + b"== 12 passed\x00 in 3.1s ==\n")  # colours and a stray NUL: text
    notes: list[str] = []
    rec = record_from_files(str(answer), [str(log)], notes=notes)
    assert rec.answer == "All 12 tests pass in 3.1s.\n"
    assert rec.evidence[0].output.endswith("== 12 passed in 3.1s ==\n")
    assert not any(c in rec.evidence[0].output for c in "\x00\x1b\x07")
    assert notes == [f"{answer}: 1 control character(s) removed or repaired",
                     f"{log}: {10 * 9 + 1} control character(s) removed or repaired"]


def test_control_characters_in_session_records_are_removed_and_counted(tmp_path):
    from affidavit.tasks.audit import read_sessions

    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"id": "r1", "answer": "It passed.\u0007", "evidence": [
        {"tool": "shell", "input": "pytest\u001b[2J", "output": "3 passed\u0000"}]}) + "\n"
        + json.dumps({"id": "r2", "answer": "\u0000\u0007", "evidence": []}) + "\n",
        encoding="utf-8")
    records, skips, notes = read_sessions(path)
    assert [(r.answer, r.evidence[0].input, r.evidence[0].output) for r in records] == [
        ("It passed.", "pytest", "3 passed")]
    assert skips == {"control_chars_removed": 2, "missing_answer": 1}
    assert "line 1: 6 control character(s) removed or repaired: kept" in notes


@pytest.mark.parametrize(
    ("answer", "output", "why"),
    [
        ("The build uses Python 3.12.", "40 passed in 2.1s\nPython 3.11.4", "Python 3.11.4"),
        ("The config sets timeout to 30 seconds.", "[http]\ntimeout = 60\n", "timeout = 60"),
        ("The config sets the timeout to 30 s.", "timeout_s = 60", "timeout_s = 60"),
    ],
)
def test_a_version_or_setting_the_evidence_gives_otherwise_is_contradicted(answer, output, why):
    rec = AuditRecord("r", answer, (EvidenceItem("bash", "cat", output),))
    (res,) = audit_lexical([rec])
    assert [c.label for c in res.claims] == [AuditLabel.CONTRADICTED], res.claims
    assert why in res.claims[0].reason


def test_a_setting_in_another_unit_or_the_same_version_line_is_no_contradiction():
    for answer, output in [("The config sets timeout to 30 seconds.", "timeout_ms = 30000"),
                           ("The build uses Python 3.12.", "Python 3.12.1")]:
        rec = AuditRecord("r", answer, (EvidenceItem("bash", "cat", output),))
        (res,) = audit_lexical([rec])
        assert res.claims[0].label is not AuditLabel.CONTRADICTED, res.claims


def test_a_lead_in_and_a_lone_word_are_not_claims():
    from collections import Counter

    from affidavit.tasks.claims import split_answer_claims

    text = ("Here is what to do:\n1. Open the settings page.\n- a\n"
            "To fix it: set the port to 8080.\nThe release has 3 fixes:\n- one for login")
    skips: Counter[str] = Counter()
    claims = [c.text for c in split_answer_claims(text, skips=skips)]
    assert claims == ["The release has 3 fixes", "one for login"]
    assert skips["lead_in_not_a_claim"] == 2
    assert skips["fragment_not_a_claim"] == 1
    assert skips["instruction_not_a_claim"] == 2


def test_a_fact_before_a_colon_stays_a_claim():
    from affidavit.tasks.claims import split_answer_claims

    claims = [c.text for c in split_answer_claims(
        "Overall the migration went smoothly: two tables moved and none was lost.")]
    assert claims[0] == "Overall the migration went smoothly"


def test_session_notes_name_wrong_evidence_types_as_json_does(tmp_path):
    import json

    from affidavit.tasks.audit import read_sessions

    rows = [{"id": "a", "answer": "All 3 tests pass.", "evidence": {"tool": "bash"}},
            {"id": "b", "answer": "Fine.", "evidence": ["ok", 7]},
            {"id": "c", "answer": "Fine.", "evidence": 3.5}]
    (tmp_path / "s.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    notes = " | ".join(read_sessions(tmp_path / "s.jsonl")[2])
    assert "evidence is an object, not a list" in notes
    assert "evidence item 2 is a number, not an object" in notes
    assert "evidence is a number, not a list" in notes
    assert "dict" not in notes
    assert "float" not in notes
