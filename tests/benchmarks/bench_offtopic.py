"""Off-topic evidence: claims checked against an archive that cannot speak of them.

Usage (from the repository root)::

    python -m tests.benchmarks.bench_offtopic [--only NAME] [--limit N] [--keep DIR]

Every verdict benchmark measures evidence that bears on its claims. This one measures the
opposite: what the main job admits when the archive holds nothing about the claims at all. Each
control pairs real claims with a real corpus from another time or domain (built from
``../shared/data`` the way ``bench_verdicts`` builds a set; nothing is copied into the
repository):

* ``covid-vs-reuters``: the first 300 distinct COVID-Fact claims labelled SUPPORTED (2020) over
  the Reuters-21578 newswire (1987), which cannot mention COVID-19;
* ``scifact-vs-news``: SciFact's 300 dev claims (biomedical findings) over BBC News (2004–05)
  and the Climate-FEVER Wikipedia sentences;
* ``worlds-vs-news``: verdicts-dev's 90 claims about invented companies, towns and people over
  BBC News and FakeNewsNet, which never name them.

Each control is run through ``bench_verdicts`` (fresh home, backfill, ``affidavit run --claims``,
every claim expected on the side ``none``). Every admitted SUPPORTS, PARTIAL or REFUTES judgment
is then off-topic by construction, and every verdict other than UNVERIFIED is wrong.

Prints one JSON line per control::

    {"control": ..., "claims": N, "with_evidence": N, "off_topic_share": share of claims with
     a verdict other than UNVERIFIED, "statuses": {...}, "admitted": {stance: count},
     "reasons": {first clause of the judge's rationale: count (top 8)}}

and, as its LAST line, ``{"off_topic_share": {control: share}, "claims": N,
"with_evidence": N}`` (the goal is 0 everywhere).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED = REPO.parent / "shared"
DATA = SHARED / "data"
CORPORA = DATA / "corpora"

CONTROLS: dict[str, dict] = {
    "covid-vs-reuters": {
        "claims": "covidfact",
        "corpora": ["reuters21578.jsonl"],
    },
    "scifact-vs-news": {
        "claims": "scifact",
        "corpora": ["bbc-news.jsonl", "climate-fever-wikipedia.jsonl"],
    },
    "worlds-vs-news": {
        "claims": "verdicts-dev",
        "corpora": ["bbc-news.jsonl", "fakenewsnet-v1.jsonl"],
    },
}
N_CLAIMS = 300
"""Claims per control from the larger sets (a run of about a minute each on 2 cores)."""


def _claims(source: str, limit: int) -> list[str]:
    """The control's claim texts, in file order, distinct (case-folded)."""
    if source == "covidfact":
        rows = (json.loads(x) for x in (DATA / "claims/covidfact/COVIDFACT_dataset.jsonl")
                .read_text(encoding="utf-8").splitlines() if x.strip())
        texts = (r["claim"] for r in rows if r.get("label") == "SUPPORTED")
    elif source == "scifact":
        texts = (json.loads(x)["claim"] for x in (DATA / "claims/scifact-claims/claims_dev.jsonl")
                 .read_text(encoding="utf-8").splitlines() if x.strip())
    else:
        texts = (json.loads(x)["claim"] for x in (SHARED / "bench/verdicts-dev/claims.jsonl")
                 .read_text(encoding="utf-8").splitlines() if x.strip())
    out: list[str] = []
    seen: set[str] = set()
    for t in texts:
        k = " ".join(t.lower().split())
        if k and k not in seen:
            seen.add(k)
            out.append(t)
        if len(out) >= limit:
            break
    return out


def _build(name: str, spec: dict, folder: Path, limit: int) -> Path:
    """Write the control as a verdict set folder: claims.jsonl (side none), documents.jsonl."""
    d = folder / name
    d.mkdir(parents=True, exist_ok=True)
    with (d / "claims.jsonl").open("w", encoding="utf-8") as f:
        for i, text in enumerate(_claims(spec["claims"], limit)):
            f.write(json.dumps({"claim_id": f"{name}-{i}", "claim": text,
                                "expected_side": "none"}) + "\n")
    with (d / "documents.jsonl").open("w", encoding="utf-8") as out:
        for corpus in spec["corpora"]:
            with (CORPORA / corpus).open(encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        out.write(line if line.endswith("\n") else line + "\n")
    return d


def _admitted(home: Path) -> tuple[Counter[str], Counter[str], Counter[str]]:
    """Verdict statuses, admitted non-neutral stances and their reasons, from the home."""
    import duckdb

    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    try:
        statuses = Counter(dict(con.sql(
            "select status, count(*) from verdicts_latest group by status").fetchall()))
        rows = con.sql(
            "select j.stance, j.rationale from judgments j join verdicts_latest v "
            "on v.run_id = j.run_id and v.claim_id = j.claim_id "
            "where j.is_admitted and j.stance <> 'NEUTRAL'"
        ).fetchall()
    finally:
        con.close()
    stances = Counter(s for s, _ in rows)
    reasons = Counter(
        f"{s}: " + (r or "").split(";")[0].split(",")[0].strip()[:60] for s, r in rows
    )
    return statuses, stances, reasons


def main(argv: list[str] | None = None) -> int:
    """Run the controls; print one JSON line each, then the summary as the last line."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", choices=sorted(CONTROLS), action="append",
                    help="run only this control (repeatable)")
    ap.add_argument("--limit", type=int, default=N_CLAIMS, help="claims per control")
    ap.add_argument("--keep", default=None, help="build the sets and homes here (kept)")
    args = ap.parse_args(argv)
    if args.limit < 1:
        print("error: --limit must be at least 1", file=sys.stderr)
        return 2
    if not DATA.is_dir():
        print(f"error: shared data not found at {DATA}", file=sys.stderr)
        return 2
    folder = Path(args.keep or tempfile.mkdtemp(prefix="affidavit-offtopic-"))
    folder.mkdir(parents=True, exist_ok=True)
    summary: dict[str, float] = {}
    total = with_ev = 0
    for name in args.only or list(CONTROLS):
        set_dir = _build(name, CONTROLS[name], folder / "sets", args.limit)
        home = folder / "homes" / name
        if home.exists() and any(home.iterdir()):
            print(f"error: {home} is not empty", file=sys.stderr)
            return 2
        run = subprocess.run(
            [sys.executable, "-m", "tests.benchmarks.bench_verdicts", str(set_dir),
             "--home", str(home)],
            cwd=REPO, capture_output=True, text=True, check=False,
        )
        if run.returncode != 0:
            print(f"error: {name}: bench_verdicts failed: {run.stderr.strip()[-400:]}",
                  file=sys.stderr)
            return 1
        statuses, stances, reasons = _admitted(home)
        n = sum(statuses.values())
        n_claims = sum(1 for x in (set_dir / "claims.jsonl").open(encoding="utf-8"))
        ev = n - statuses.get("UNVERIFIED", 0)
        share = round(ev / n_claims, 4) if n_claims else 0.0
        summary[name] = share
        total += n_claims
        with_ev += ev
        print(json.dumps({
            "control": name, "claims": n_claims, "with_evidence": ev, "off_topic_share": share,
            "statuses": dict(statuses), "admitted": dict(stances),
            "reasons": dict(reasons.most_common(8)),
        }))
        sys.stdout.flush()
    print(json.dumps({"off_topic_share": summary, "claims": total, "with_evidence": with_ev}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
