"""Tests for tasks.lineage_batches: the pool of batch workers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

_PARENT = """
import os, sys, time
from concurrent.futures import ProcessPoolExecutor
import multiprocessing
from affidavit.tasks import lineage_batches as lb

if __name__ == "__main__":
    init = lb._end_with_parent if sys.argv[1] == "tied" else None
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                               initializer=init, initargs=(os.getpid(),) if init else ())
    print(pool.submit(os.getpid).result(), flush=True)
    time.sleep(600)
"""


def _gone(pid: int, within_s: float) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":  # ended, not yet reaped by its new parent
            return True
        time.sleep(0.1)
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_a_pool_worker_ends_when_its_parent_is_killed(tmp_path):
    script = tmp_path / "parent.py"
    script.write_text(_PARENT)
    parent = subprocess.Popen([sys.executable, str(script), "tied"],
                              stdout=subprocess.PIPE, text=True)
    try:
        worker = int(parent.stdout.readline())
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        # without the tie (``sys.argv[1] != "tied"``) the worker waited on its pipe for good
        assert _gone(worker, 20.0)
    finally:
        try:
            os.kill(worker, signal.SIGKILL)
        except (OSError, UnboundLocalError):
            pass
