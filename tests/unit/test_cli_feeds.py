"""CLI: the allow-private flag, broken OPML lists and an unreachable Prefect API, each one line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from affidavit.flows.cli import app


def test_bad_allow_private_value_is_refused_up_front(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["verify", "x", "--allow-private", "10.0.0.0/8,bad host!",
                                   "--home", str(tmp_path / "h")])
    assert res.exit_code == 2
    assert "not a CIDR range" in res.output


def test_broken_opml_is_one_line_before_any_work(tmp_path: Path) -> None:
    subs = tmp_path / "subs.opml"
    subs.write_text('<opml version="2.0"><body><outline xmlUrl="http://a.test/"></body>')
    res = CliRunner().invoke(app, ["run", "--feed", str(subs), "--home", str(tmp_path / "h")])
    assert res.exit_code == 1
    assert "not well-formed XML at line 1" in res.output
    assert "Traceback" not in res.output


def test_unreachable_prefect_api_is_one_line(tmp_path: Path) -> None:
    claims = tmp_path / "c.jsonl"
    claims.write_text('{"claim": "The Lumen Bridge opened on 14 May 2024."}\n')
    exe = Path(sys.executable).with_name("affidavit")
    env = {**os.environ, "PREFECT_API_URL": "http://127.0.0.1:9/api"}  # port 9: refused
    proc = subprocess.run([str(exe), "run", "--claims", str(claims), "--home",
                           str(tmp_path / "h")], capture_output=True, text=True, env=env,
                          timeout=300, check=False)
    assert proc.returncode == 1
    assert "Failed to reach API at http://127.0.0.1:9/api" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len([line for line in proc.stderr.splitlines() if line.strip()]) <= 3


def test_unreachable_dask_scheduler_is_one_line_before_prefect(tmp_path: Path) -> None:
    claims = tmp_path / "c.jsonl"
    claims.write_text('{"claim": "The Lumen Bridge opened on 14 May 2024."}\n')
    home = tmp_path / "h"
    res = CliRunner().invoke(app, ["run", "--claims", str(claims), "--dask",
                                   "tcp://127.0.0.1:9", "--home", str(home)])  # 9: refused
    assert res.exit_code == 1
    assert "no Dask scheduler answers at tcp://127.0.0.1:9 (connection refused)" in res.output
    assert "RuntimeError" not in res.output
    assert "Traceback" not in res.output
    assert not (home / "prefect").exists()  # refused before Prefect was set up


@pytest.mark.parametrize(("address", "why"), [
    ("notanaddress", "missing port number"),
    ("tcp://127.0.0.1:abc", "port"),
    ("foo://127.0.0.1:8786", "unknown address scheme 'foo'"),
])
def test_a_malformed_dask_address_is_a_bad_argument(tmp_path: Path, address: str,
                                                     why: str) -> None:
    claims = tmp_path / "c.jsonl"
    claims.write_text('{"claim": "The Lumen Bridge opened on 14 May 2024."}\n')
    home = tmp_path / "h"
    res = CliRunner().invoke(app, ["run", "--claims", str(claims), "--dask", address,
                                   "--home", str(home)])
    assert res.exit_code == 2, res.output
    assert f"--dask {address!r} is not a Dask scheduler address" in res.output
    assert why in res.output
    assert "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert not (home / "prefect").exists()


def test_a_malformed_dask_address_in_the_environment_names_the_variable(tmp_path: Path,
                                                                         monkeypatch) -> None:
    monkeypatch.setenv("AFFIDAVIT_DASK_ADDRESS", "scheduler")
    sessions = tmp_path / "s.jsonl"
    sessions.write_text('{"id": "a", "answer": "It passed.", "evidence": []}\n')
    res = CliRunner().invoke(app, ["audit", "--sessions", str(sessions),
                                   "--home", str(tmp_path / "h")])
    assert res.exit_code == 2, res.output
    assert "AFFIDAVIT_DASK_ADDRESS 'scheduler' is not a Dask scheduler address" in res.output


@pytest.mark.parametrize(("page", "hint"), [
    (b"<!DOCTYPE html>\n<html><head><title>News</title></head><body><p>The bridge opened in "
     b"2024.</p></body></html>",
     'give the site\'s feed (a page names it in <link rel="alternate">)'),
    (b'<html><head><link rel="alternate" type="application/atom+xml" href="https://n.example/'
     b'atom.xml"/></head><body><p>x</p></body></html>', "the page names its feed: "
     "https://n.example/atom.xml"),
])
def test_a_local_html_page_given_as_a_feed_is_one_line_before_prefect(tmp_path: Path, monkeypatch,
                                                                     page: bytes, hint: str):
    # it was refused after Prefect's start-up, as "not well-formed XML at line 2 (syntax
    # error)"; a feed URL answering a page is refused alike (tests/integration/test_feed_polling)
    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:9/api")  # a started Prefect fails
    path = tmp_path / "news.html"
    path.write_bytes(page)
    res = CliRunner().invoke(app, ["run", "--feed", str(path), "--home", str(tmp_path / "h")])
    assert res.exit_code == 1, res.output
    assert res.output.strip() == (f"error: {path}: is an HTML page, not an RSS/Atom/JSON Feed "
                                  f"document; {hint}")
    assert not (tmp_path / "h").exists()


def test_the_feed_parser_refuses_an_html_page_as_the_up_front_check_does(tmp_path: Path) -> None:
    # a local feed among readable ones reaches the reader: the same words there
    from affidavit.tasks.ingest_feeds import parse_feed

    batch = parse_feed(b"<html><body><p>The bridge opened in 2024.</p></body></html>",
                       source="news.html")
    assert dict(batch.skips) == {"not_a_feed": 1}
    assert batch.messages == ["news.html: is an HTML page, not an RSS/Atom/JSON Feed document; "
                              'give the site\'s feed (a page names it in <link rel="alternate">)'
                              ": refused"]


def test_a_claims_pipe_is_refused_with_what_to_do(tmp_path: Path) -> None:
    fifo = tmp_path / "claims.jsonl"
    os.mkfifo(fifo)
    res = CliRunner().invoke(app, ["run", "--claims", str(fifo), "--home", str(tmp_path / "h")])
    assert res.exit_code == 1
    assert "not a regular file (a device or a pipe)" in res.output
    assert "no such file" not in res.output


@pytest.mark.parametrize("address", ["local", "tcp://127.0.0.1:9"])
def test_a_dask_address_without_dask_installed_is_one_line(tmp_path, monkeypatch, address):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "distributed" else real(name, *a))
    claims = tmp_path / "c.jsonl"
    claims.write_text('{"claim": "The Lumen Bridge opened on 14 May 2024."}\n')
    home = tmp_path / "h"
    res = CliRunner().invoke(app, ["run", "--claims", str(claims), "--dask", address,
                                   "--home", str(home)])
    assert res.exit_code == 2
    assert "needs Dask, which is not installed (distributed)" in res.output
    assert "ModuleNotFoundError" not in res.output
    assert not (home / "prefect").exists()
