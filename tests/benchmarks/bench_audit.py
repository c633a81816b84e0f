"""Audit benchmark: audit every case of an audit-dev-shaped folder, score with score_audit.py.

Usage (from the repository root)::

    python -m tests.benchmarks.bench_audit ../shared/bench/audit-dev [--out preds.jsonl]
        [--limit N] [--verbose]

Writes one prediction per case (``case_id, claims: [{text, label}], scanner_flags``) and runs
``score_audit.py`` (next to the folder, or ``--scorer``); its JSON is the last line printed.
The lexical auditor runs by default; ``--auditor llm`` uses the configured LLM endpoint
(``AFFIDAVIT_LLM_BASE_URL``, ``AFFIDAVIT_LLM_MODEL``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from affidavit.tasks.audit import read_sessions
from affidavit.tasks.audit_lexical import audit_lexical


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench", type=Path)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--scorer", type=Path)
    ap.add_argument("--limit", type=int)
    ap.add_argument("--auditor", default="lexical", choices=["lexical", "llm"])
    ap.add_argument("--card", type=Path, help="facts-and-limits card for the LLM auditor")
    ap.add_argument("--verbose", action="store_true", help="print each claim's label")
    args = ap.parse_args(argv)
    cases = args.bench / "cases.jsonl"
    records, skips, notes = read_sessions(cases, limit=args.limit)
    t0 = time.perf_counter()
    if args.auditor == "llm":
        from affidavit.tasks.audit_llm import LLMAuditor, audit_config_from_env

        cfg = audit_config_from_env()
        if cfg is None:
            print("no LLM endpoint configured (AFFIDAVIT_LLM_BASE_URL, AFFIDAVIT_LLM_MODEL)",
                  file=sys.stderr)
            return 2
        card = args.card.read_text(encoding="utf-8") if args.card else ""
        auditor = LLMAuditor(cfg, card=card)
        try:
            outcomes = auditor.audit_records(records)
        finally:
            auditor.close()
    else:
        outcomes = audit_lexical(records)
    elapsed = time.perf_counter() - t0
    out = args.out or Path(tempfile.mkstemp(prefix="audit-preds-", suffix=".jsonl")[1])
    with out.open("w", encoding="utf-8") as fh:
        for o in outcomes:
            fh.write(json.dumps({
                "case_id": o.record.record_id,
                "claims": [{"text": c.text, "label": c.label.value if c.label else None}
                           for c in o.claims],
                "scanner_flags": [h.flag for h in o.flags],
            }) + "\n")
            if args.verbose:
                print(f"## {o.record.record_id} {o.auditor} flags={[h.flag for h in o.flags]}")
                for c in o.claims:
                    print(f"   {c.label.value if c.label else '-':12} {c.text} | {c.reason}"
                          f" | {c.quote[:60]!r}")
    print(f"{len(outcomes)} records audited in {elapsed:.2f} s ({args.auditor}); "
          f"skips {dict(skips)}; predictions in {out}", file=sys.stderr)
    scorer = args.scorer or args.bench.parent / "score_audit.py"
    res = subprocess.run([sys.executable, str(scorer), str(args.bench), str(out)],
                         capture_output=True, text=True, check=False)
    if res.returncode:
        print(res.stderr, file=sys.stderr)
        return res.returncode
    print(res.stdout.strip().splitlines()[-1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
