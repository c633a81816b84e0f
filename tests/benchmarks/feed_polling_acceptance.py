"""Scheduled-feed acceptance: real ``affidavit`` commands against a local server on 127.0.0.1.

Prints one JSON line per check:

1. ``two_runs``: two consecutive ``affidavit run --feed`` calls on the same three feeds (real
   feeds of ``../shared/data/feeds/rsparser-real-feeds``, served locally with ETag and
   Last-Modified): downloads, 304s and rows added by each run.
2. ``backoff``: a feed that fails three times in a row, then a fourth run: what ``feed_status``
   says and whether the server was asked again.
3. ``opml``: ``affidavit run --feed subs.opml`` on an OPML list of every feed file of that folder,
   served locally.
4. ``verify_web``: ``affidavit verify`` with a fake SearXNG and a page server, with the
   documented allow setting; fetch outcomes queried from ``fetches``.

Usage: ``python -m tests.benchmarks.feed_polling_acceptance [--limit N]`` (``--limit`` caps the
claims researched in the OPML run). Traffic goes to 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import duckdb

from tests.feed_server import FeedServer, opml

REPO = Path(__file__).resolve().parents[2]
FEEDS_DIR = REPO.parent / "shared" / "data" / "feeds" / "rsparser-real-feeds"
FEED_SUFFIXES = (".rss", ".atom", ".xml", ".rdf", ".json")
THREE = ("489.rss", "aktuality.rss", "DaringFireball.atom")
TABLES = ("documents", "claims", "verdicts", "judgments", "queries", "fetches", "runs")


def _cli(home: Path, *args: str, env: dict[str, str] | None = None) -> tuple[int, dict, float]:
    exe = Path(sys.executable).with_name("affidavit")
    t0 = time.perf_counter()
    proc = subprocess.run([str(exe), *args, "--home", str(home), "--json"], capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=1800, check=False)
    elapsed = time.perf_counter() - t0
    try:
        out = json.loads(proc.stdout) if proc.stdout.strip() else {}
    except json.JSONDecodeError:
        out = {"raw": proc.stdout[-400:]}
    if proc.returncode:
        out["stderr"] = proc.stderr.strip().splitlines()[-3:]
    return proc.returncode, out, elapsed


def _rows(home: Path) -> dict[str, int]:
    con = duckdb.connect()
    out = {}
    for t in TABLES:
        glob = str(home / "tables" / t / "*.parquet")
        out[t] = con.execute(f"select count(*) from read_parquet('{glob}', "
                             "union_by_name = true)").fetchone()[0]
    return out


def _sql(home: Path, sql: str) -> list[dict[str, Any]]:
    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    cur = con.execute(sql)
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]


def _feeds(names: tuple[str, ...] | list[str]) -> dict[str, bytes]:
    return {f"/{n}": (FEEDS_DIR / n).read_bytes() for n in names}


def check_two_runs(tmp: Path) -> dict[str, Any]:
    home = tmp / "two-runs"
    with FeedServer(_feeds(THREE)) as srv:
        args = ["run", "--allow-private", "127.0.0.1", "--mode", "quick"]
        for n in THREE:
            args += ["--feed", f"{srv.url}/{n}"]
        rc1, out1, t1 = _cli(home, *args)
        rows1 = _rows(home)
        rc2, out2, t2 = _cli(home, *args)
        rows2 = _rows(home)
        downloads, not_mod = dict(srv.downloads), dict(srv.not_modified)
    c1, c2 = out1.get("counts", {}), out2.get("counts", {})
    return {
        "check": "two_runs", "exit_codes": [rc1, rc2], "seconds": [round(t1, 1), round(t2, 1)],
        "server_downloads": downloads, "server_304s": not_mod,
        "run1": {k: c1.get(k, 0) for k in ("fetch:ok", "documents_read", "documents_added",
                                           "verdicts")},
        "run2": {k: c2.get(k, 0) for k in ("fetch:ok", "fetch:not_modified", "documents_read",
                                           "documents_added", "verdicts")},
        "run2_message": out2.get("message"),
        "rows_added_by_run2": {t: rows2[t] - rows1[t] for t in TABLES},
    }


def check_backoff(tmp: Path) -> dict[str, Any]:
    home = tmp / "backoff"
    with FeedServer(_feeds(("489.rss",)), fail_first={"/489.rss": 1000}) as srv:
        args = ["run", "--allow-private", "127.0.0.1", "--mode", "quick", "--feed",
                f"{srv.url}/489.rss"]
        codes = []
        for _ in range(4):
            rc, out, _t = _cli(home, *args)
            codes.append(rc)
        hits = srv.hits["/489.rss"]
    state = _sql(home, "select state, consecutive_failures, last_status, next_poll_at, "
                       "last_polled_at from feed_status")[0]
    outcomes = _sql(home, "select reason, count(*) as n from fetches group by 1 order by 1")
    return {"check": "backoff", "exit_codes": codes, "server_requests": hits,
            "feed_status": {**state, "next_poll_at": str(state["next_poll_at"]),
                            "last_polled_at": str(state["last_polled_at"])},
            "fetch_outcomes": outcomes, "run4_counts": {k: v for k, v in out["counts"].items()
                                                        if k.startswith(("fetch:", "feeds_"))}}


def check_opml(tmp: Path, limit: int) -> dict[str, Any]:
    home = tmp / "opml"
    names = sorted(p.name for p in FEEDS_DIR.iterdir() if p.name.endswith(FEED_SUFFIXES))
    with FeedServer(_feeds(names)) as srv:
        subs = tmp / "subs.opml"
        subs.write_bytes(opml([(n, f"{srv.url}/{n}") for n in names], folder="real feeds"))
        rc, out, t = _cli(home, "run", "--feed", str(subs), "--allow-private", "127.0.0.1",
                          "--mode", "quick", "--limit", str(limit))
    per_feed = _sql(home, "select last_reason, count(*) as n, sum(n_entries_seen) as entries, "
                          "sum(n_documents_added) as added from feed_status group by 1")
    c = out.get("counts", {})
    empty = _sql(home, "select feed_url, last_error from feed_status "
                       "where n_documents_added = 0")
    return {"check": "opml", "exit_code": rc, "seconds": round(t, 1), "files_listed": len(names),
            "opml_feeds": c.get("opml_feeds"), "feeds_read": c.get("feeds_read"),
            "feeds_failed": c.get("feeds_failed", 0), "documents_added": c.get("documents_added"),
            "by_last_reason": per_feed,
            "feeds_without_documents": [(r["feed_url"].rsplit("/", 1)[1], r["last_error"])
                                        for r in empty],
            "skips": {k: v for k, v in c.items() if k.startswith("skip:")}}


PAGE = ("<html><head><title>{t}</title><meta name='date' content='2025-05-20'></head><body>"
        "<article><h1>{t}</h1>{p}</article></body></html>")


def check_verify_web(tmp: Path) -> dict[str, Any]:
    home = tmp / "verify"
    para = ("<p>The Lumen Bridge in Corvallo opened to traffic on 14 May 2024, city officials "
            "said in a statement. The bridge cost 48 million euros.</p>") * 4
    files = {
        "/news/lumen": PAGE.format(t="Lumen Bridge opens", p=para).encode(),
        "/blog/lumen-copy": PAGE.format(t="Bridge opened", p=para).encode(),
        "/robots.txt": b"User-agent: *\nDisallow: /private\n",
    }

    def results(q: str) -> list[dict[str, Any]]:
        base = srv.url
        return [
            {"url": f"{base}/news/lumen", "title": "Lumen Bridge opens", "content": q},
            {"url": f"{base}/blog/lumen-copy", "title": "Bridge opened", "content": q},
            {"url": f"{base}/private/memo", "title": "Memo on the bridge",
             "content": "The Lumen Bridge in Corvallo opened on 14 May 2024.",
             "publishedDate": "2024-05-15T08:00:00"},
            {"url": f"{base}/gone", "title": "Gone story", "content": "Lumen Bridge opened.",
             "publishedDate": "2024-05-14T12:00:00"},
        ]

    srv = FeedServer(files, searxng=results)
    claim = "The Lumen Bridge in Corvallo opened to traffic on 14 May 2024."
    env = {"AFFIDAVIT_SEARXNG_URL": srv.url}
    try:
        rc_off, out_off, _ = _cli(tmp / "verify-off", "verify", claim, "--mode", "quick", env=env)
        rc, out, t = _cli(home, "verify", claim, "--mode", "quick", env={
            **env, "AFFIDAVIT_ALLOW_PRIVATE": "127.0.0.0/8"})
    finally:
        srv.close()
    outcomes = _sql(home, "select reason, count(*) as n from fetches group by 1 order by 1")
    snippets = _sql(home, "select title, published_at, is_snippet_only from documents "
                          "where is_snippet_only order by title")
    params = _sql(home, "select parameters from runs")[0]["parameters"]
    off = _sql(tmp / "verify-off", "select reason, count(*) as n from fetches group by 1")
    return {"check": "verify_web", "exit_code": rc, "seconds": round(t, 1),
            "statuses": [v["status"] for v in out.get("verdicts", [])],
            "fetch_outcomes": outcomes,
            "snippet_docs": [{**s, "published_at": str(s["published_at"])} for s in snippets],
            "runs_allow_private": json.loads(params).get("allow_private"),
            "without_allow_setting": {"exit_code": rc_off, "fetch_outcomes": off,
                                      "statuses": [v["status"] for v in
                                                   out_off.get("verdicts", [])]}}


def main() -> None:
    """Run the checks and print one JSON line each."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=30, help="claims researched in the OPML run")
    ap.add_argument("--only", choices=["two_runs", "backoff", "opml", "verify_web"])
    args = ap.parse_args()
    if not FEEDS_DIR.is_dir():
        sys.exit(f"{FEEDS_DIR} is absent")
    with tempfile.TemporaryDirectory(prefix="affidavit-feeds-") as d:
        tmp = Path(d)
        checks = {"two_runs": lambda: check_two_runs(tmp), "backoff": lambda: check_backoff(tmp),
                  "opml": lambda: check_opml(tmp, args.limit),
                  "verify_web": lambda: check_verify_web(tmp)}
        for name, fn in checks.items():
            if args.only and name != args.only:
                continue
            print(json.dumps(fn(), default=str), flush=True)


if __name__ == "__main__":
    main()
