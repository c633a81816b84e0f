"""Wall time of the read-only commands (``recall``, ``verdicts``) on a warm install.

Usage (from the repository root)::

    python -m tests.benchmarks.bench_cli_latency --home DIR [--runs 5] [--query "Lumen Bridge"]

Runs each command ``--runs`` times as a user does (the ``affidavit`` console script of this
interpreter's environment, a new process each time) after one warm-up run, and prints one JSON
line per command with the median, min and max wall time in seconds. The home should hold
verdicts (``affidavit demo --home DIR`` makes one).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path


def main() -> None:
    """Run the benchmark and print its figures."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--query", default="Lumen Bridge")
    args = ap.parse_args()
    exe = str(Path(sys.executable).parent / "affidavit")
    for name, argv in (("recall", [exe, "recall", args.query, "--home", args.home]),
                       ("verdicts", [exe, "verdicts", "--home", args.home])):
        subprocess.run(argv, capture_output=True, check=True)  # warm-up (page cache, .pyc)
        times = []
        for _ in range(args.runs):
            t0 = time.perf_counter()
            subprocess.run(argv, capture_output=True, check=True)
            times.append(time.perf_counter() - t0)
        print(json.dumps({"command": name, "runs": args.runs,
                          "median_s": round(statistics.median(times), 2),
                          "min_s": round(min(times), 2), "max_s": round(max(times), 2)}))


if __name__ == "__main__":
    main()
