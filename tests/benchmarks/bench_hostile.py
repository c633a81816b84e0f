"""Run a generated corpus of hostile inputs through ingest and print one JSON line of figures.

Every file goes through the same path as ``affidavit backfill`` (``ingest_sources``) into a
throwaway home. A crash (an exception out of ingest) is the failure this counts; refusals and
skips are the expected outcomes, each with a one-line message.

Usage: python -m tests.benchmarks.bench_hostile [--keep DIR]
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import tempfile
import time
from pathlib import Path

GOOD = "The harbour council approved a budget of 12 million euros on Tuesday evening."


def write_corpus(folder: Path) -> list[Path]:
    """Write the hostile files (invented content) and return their paths."""
    rss = ('<?xml version="1.0" encoding="{enc}"?><rss version="2.0"><channel><title>t</title>'
           "<item><title>{title}</title><link>https://a.example/{n}</link>"
           "<description>{body}</description></item></channel></rss>")
    files: dict[str, bytes] = {
        "utf16.xml": rss.format(enc="utf-16", title="\u00dc", n=1, body="Gr\u00fc\u00dfe 12 "
                                "Prozent").encode("utf-16"),
        "bogus-encoding.xml": rss.format(enc="x-bogus", title="a", n=2,
                                         body="caf\u00e9 text").encode(),
        "latin1.xml": rss.format(enc="iso-8859-1", title="a", n=3,
                                 body="\u201cquoted\u201d caf\u00e9").encode("cp1252"),
        "stray-byte.xml": rss.format(enc="utf-8", title="M\u00f6we", n=4,
                                     body="Z\u00fcrich CAFEBYTE").encode().replace(
                                         b"CAFEBYTE", b"Caf\xe9"),
        "nul.xml": rss.format(enc="utf-8", title="a\x00b", n=5, body="x\x00y").encode(),
        "huge-title.xml": rss.format(enc="utf-8", title="T" * 600_000, n=6, body="d").encode(),
        "escape-title.xml": rss.format(enc="utf-8", title="\x1b[2J\x1b[31mred", n=7,
                                       body=GOOD).encode(),
        "title-only.xml": rss.format(enc="utf-8", title="Ferry fares rise 8 percent", n=8,
                                     body="").encode(),
        "escaped-cdata.xml": rss.format(enc="utf-8", title="c", n=9,
                                        body="&lt;![CDATA[" + GOOD + "]]&gt;").encode(),
        "cest-date.xml": rss.format(enc="utf-8", title="d", n=10, body=GOOD).encode().replace(
            b"</title>", b"</title><pubDate>Sat, 01 Jun 2024 12:00 CEST</pubDate>", 1),
        "year-0001.xml": rss.format(enc="utf-8", title="d", n=11, body=GOOD).encode().replace(
            b"</title>", b"</title><pubDate>Mon, 01 Jan 0001 00:00:00 GMT</pubDate>", 1),
        "entity.xml": b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa">]><rss><channel>'
                      b"<item><title>&a;</title></item></channel></rss>",
        "binary.xml": bytes(range(256)) * 20,
        "gzip-bomb.xml.gz": gzip.compress(b"<rss>" + b" " * (60 * 1024 * 1024)),
        "jsonfeed-types.json": json.dumps({"version": "https://jsonfeed.org/version/1.1",
                                           "items": [{"id": ["x"], "title": {"a": 1},
                                                      "content_text": 123, "url": 7}]}).encode(),
        "jsonfeed-deep.json": ('{"version":"https://jsonfeed.org/version/1","items":'
                               + "[" * 100_000 + "]" * 100_000 + "}").encode(),
        "deep.jsonl": ('{"text": ' + "[" * 100_000 + "]" * 100_000 + "}\n").encode(),
        "bigint.jsonl": ('{"text": "x", "n": ' + "9" * 5000 + "}\n").encode(),
        "surrogate.jsonl": b'{"text": "broken \\ud800 here"}\n',
        "wrong-types.jsonl": b'{"text": 12}\n{"text": ["a"]}\n{"text": {"b": 1}}\n'
                             b'{"text": "ok", "title": {"x": 1}}\n',
        "empty.jsonl": b"",
        "blank-lines.jsonl": b"\n \n\n",
        "no-text-field.jsonl": b'{"body": "x"}\n',
        "empty.csv": b"",
        "header-only.csv": b"id,text\n",
        "no-text-column.csv": b"id,body\n1,x\n",
        "nul.csv": b"id,text\n1,a\x00b\n",
        "ragged.csv": b"id,text\n1,a,b,c\n2\n",
        "latin1.csv": "id,text\n1,caf\u00e9 cr\u00e8me\n".encode("latin-1"),
        "empty.warc": b"",
        "garbage.warc": b"GARBAGE\r\n\r\n" * 10,
        "negative-length.warc": b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: -5\r\n\r\n",
        "huge-length.warc": b"WARC/1.0\r\nWARC-Type: response\r\nContent-Length: "
                            b"99999999999999\r\n\r\nabc",
        "version-9.warc": b"WARC/9.9\r\nWARC-Type: resource\r\nWARC-Target-URI: "
                          b"https://a.example/r\r\nContent-Type: text/plain\r\nContent-Length: "
                          b"11\r\n\r\nhello world\r\n\r\n",
        "empty.parquet": b"",
        "junk.parquet": b"PAR1junkjunkPAR1",
        "scalar.json": b"42",
        "truncated.jsonl.gz": gzip.compress(b'{"text": "abc def"}\n' * 5000)[:300],
    }
    out = []
    for name, data in files.items():
        p = folder / name
        p.write_bytes(data)
        out.append(p)
    (folder / "a-directory.jsonl").mkdir(exist_ok=True)
    out.append(folder / "a-directory.jsonl")
    out.append(folder / "missing.jsonl")
    return out


def main(argv: list[str] | None = None) -> None:
    """Write the corpus, ingest each file, print the figures."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--keep", help="write the corpus here and keep it")
    args = ap.parse_args(argv)
    os.environ.setdefault("PREFECT_LOGGING_LEVEL", "CRITICAL")
    from affidavit.flows.context import RunRecord
    from affidavit.flows.stages import ingest_sources
    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import Warehouse

    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="hostile-"))
    folder.mkdir(parents=True, exist_ok=True)
    files = write_corpus(folder)
    wh = Warehouse(resolve_home(tempfile.mkdtemp(prefix="hostile-home-")))
    figures = {"cases": len(files), "crashed": 0, "refused": 0, "read": 0, "rows_skipped": 0,
               "repaired_or_warned": 0, "multi_line_messages": 0}
    t0 = time.perf_counter()
    for f in files:
        run = RunRecord(wh, "bench", {})
        try:
            ingest_sources(wh, [str(f)], run=run)
        except Exception as exc:  # noqa: BLE001 - what this benchmark counts
            figures["crashed"] += 1
            print(f"crash: {f.name}: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        figures["refused"] += int(run.counts.get("sources_refused", 0))
        figures["read"] += int(run.counts.get("documents_read", 0) > 0)
        figures["rows_skipped"] += sum(v for k, v in run.counts.items()
                                       if k.startswith("skip:") and k != "skip:source_unreadable")
        figures["repaired_or_warned"] += sum(v for k, v in run.counts.items()
                                             if k.startswith("repaired:"))
        figures["multi_line_messages"] += sum(1 for m in run.messages if "\n" in m)
    figures["elapsed_s"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
