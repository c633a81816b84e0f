"""Every case of ``../shared/bugreports`` meets its ``case.md`` (skipped when it is absent)."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from tests.conftest import SHARED

BUGS = SHARED / "bugreports"


def _case(name: str) -> Path:
    folder = BUGS / name
    if not folder.is_dir():
        pytest.skip(f"bug report inputs not found at {folder} (../shared beside the repository)")
    return folder


def _documents(home: Path) -> list[dict]:
    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import Warehouse

    wh = Warehouse(resolve_home(home))
    return wh.read("documents").sort("url").to_dicts()


@pytest.fixture(scope="module")
def feed_runs(prefect_harness, tmp_path_factory):  # noqa: ANN001, ANN201
    """``affidavit run --feed`` on the three feed cases, each in a home of its own."""
    from affidavit.flows.factcheck import factcheck

    out = {}
    for name, file in (("03-feed-escaped-cdata-description", "feed.xml"),
                       ("04-jsonfeed-date-updated", "feed.json"),
                       ("05-feed-utf8-stray-invalid-byte", "feed.xml")):
        folder = BUGS / name
        if not folder.is_dir():
            continue
        home = tmp_path_factory.mktemp(name[:2])
        res = factcheck(feeds=[str(folder / file)], home=str(home), mode="quick")
        out[name] = (home, res)
    return out


def test_03_escaped_cdata_descriptions_keep_their_text(feed_runs):
    _case("03-feed-escaped-cdata-description")
    home, res = feed_runs["03-feed-escaped-cdata-description"]
    docs = {d["url"].rsplit("/", 1)[1]: d for d in _documents(home)}
    assert set(docs) == {"grain-exports-march", "copper-steady", "control"}
    assert all(d["text"] for d in docs.values())
    grain = docs["grain-exports-march"]["text"]
    assert "Grain exports from the port of Veldmark rose 12 percent in March" in grain
    assert not any(s in grain for s in ("CDATA", "<![", "]]>"))
    copper = docs["copper-steady"]["text"]
    assert "Copper traded flat at 9,480 dollars a tonne" in copper
    assert "<p>" not in copper
    assert "&lt;p&gt;" not in copper
    assert "Freight rates on the northern route fell 4 percent" in docs["control"]["text"]
    assert any("12 percent" in v["claim_text"] for v in res.verdicts)
    assert res.counts.get("repaired:escaped_cdata_unwrapped") == 2


def test_04_json_feed_dates_and_fuller_html_body(feed_runs):
    _case("04-jsonfeed-date-updated")
    home, res = feed_runs["04-jsonfeed-date-updated"]
    with duckdb.connect() as con:
        con.execute("set TimeZone = 'UTC'")
        from affidavit.warehouse.home import resolve_home
        from affidavit.warehouse.store import Warehouse

        Warehouse(resolve_home(home)).create_views(con)
        rows = con.execute("select url, strftime(published_at, '%Y-%m-%d %H:%M'), "
                           "strftime(modified_at, '%Y-%m-%d %H:%M'), text from documents "
                           "order by url").fetchall()
    by = {r[0].rsplit("/", 1)[1]: r[1:] for r in rows}
    assert set(by) == {"glacier-survey", "seed-bank", "lake-ice"}
    assert by["glacier-survey"][:2] == ("2026-04-12 05:30", "2026-04-14 16:05")
    assert "The front had retreated 38 metres since the previous survey" in by["glacier-survey"][2]
    assert "records began in 1962" in by["glacier-survey"][2]
    assert "<p>" not in by["glacier-survey"][2]
    assert by["seed-bank"][:2] == ("2026-04-13 09:00", None)
    assert "bringing its collection to 61,000 samples" in by["seed-bank"][2]
    assert by["lake-ice"][:2] == ("2026-04-14 11:00", "2026-04-15 08:00")
    assert "19 days shorter than the 1991-2020 average" in by["lake-ice"][2]


def test_05_one_stray_byte_stays_one_character(feed_runs):
    _case("05-feed-utf8-stray-invalid-byte")
    home, res = feed_runs["05-feed-utf8-stray-invalid-byte"]
    docs = {d["url"].rsplit("/", 1)[1]: d for d in _documents(home)}
    assert set(docs) == {"1", "2", "3"}
    for d in docs.values():
        for field in (d["text"], d["title"]):
            assert "Ã" not in field
            assert "â€" not in field
    assert "„Die Möwe“" in docs["1"]["text"]
    assert "Zürich" in docs["1"]["text"]
    assert docs["1"]["title"] == "Premiere: „Die Möwe“ ausverkauft"
    assert "geöffnet" in docs["2"]["text"]
    assert "Caf\ufffd" in docs["2"]["text"] or "Café" in docs["2"]["text"]
    assert "Jördis Ekström" in docs["3"]["text"]
    assert "Malmö" in docs["3"]["text"]
    assert res.counts.get("repaired:replacement_chars") == 1  # the encoding problem is recorded


def _load17(folder: Path) -> tuple[str, list[dict], list[dict]]:
    text = json.loads((folder / "documents.jsonl").read_text(encoding="utf-8"))["text"]
    cases = [json.loads(x) for x in (folder / "cases.jsonl").read_text("utf-8").splitlines()]
    replies = [json.loads(x) for x in
               (folder / "llm-responses.jsonl").read_text("utf-8").splitlines()]
    return text, cases, replies


def test_17_quotes_in_typographic_wrappers_are_checked_not_skipped():
    from affidavit.tasks.anchor import anchor_quote

    text, cases, _ = _load17(_case("17-anchor-curly-quote-wrapper"))
    for c in cases:
        a = anchor_quote(c["quote"], text)
        if c["expected"] == "admit":
            assert a.kind.value == "NORMALIZED", c["case_id"]
            assert [a.span_start, a.span_end] == c["span"], c["case_id"]
        else:
            assert a.kind.value == "FAILED", c["case_id"]


def test_17_llm_replies_with_curly_quotes_go_through_the_anchor_gate():
    from affidavit.tasks.anchor import anchor_quote
    from tests.unit.test_judge_llm import ScriptedServer, _judge

    text, _, replies = _load17(_case("17-anchor-curly-quote-wrapper"))
    server = ScriptedServer()
    server.thread.start()
    try:
        for r in replies:
            server.script[r["claim"]] = server.script.get(r["claim"], []) + [
                {"content": r["content"]}]
        judge = _judge(server)
        # the two replies per claim are served in order: judge them one at a time
        results = [judge.judge_batch([(r["claim"], text)])[0] for r in replies]
    finally:
        server.httpd.shutdown()
        server.httpd.server_close()
    assert judge.n_fallbacks == 0  # none counted as a judge-output parse failure
    for r, res in zip(replies, results, strict=True):
        assert not res.is_failure
        a = anchor_quote(res.quote, text)
        assert a.is_admitted is r["expected_admitted"], r["response_id"]
        if r["expected_admitted"]:
            assert a.kind.value == "NORMALIZED"
        else:
            assert a.reason == "not_found"
