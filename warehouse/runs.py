"""Run liveness: a lock file held for a run's lifetime, and closing out runs whose process died.

A run holds an exclusive ``flock`` on ``<home>/locks/run-<run_id>.lock`` from its start to its
end. The kernel releases the lock when the process exits in any way (SIGKILL and the OOM killer
included), so a ``runs`` row still ``running`` whose lock can be taken belongs to a dead process:
it is rewritten as ``abandoned``. No clock or timeout is involved, so a long run is never
mistaken for a dead one.
"""

from __future__ import annotations

import fcntl
import os
from datetime import datetime
from pathlib import Path
from typing import IO

import pyarrow as pa

from affidavit.schemas.enums import RunStatus
from affidavit.schemas.runs import RUNS_SCHEMA
from affidavit.warehouse.store import Warehouse

__all__ = ["RunLock", "close_out_abandoned_runs", "run_lock_path"]


def run_lock_path(wh: Warehouse, run_id: str) -> Path:
    """Return ``<home>/locks/run-<run_id>.lock``."""
    return wh.paths.root / "locks" / f"run-{run_id}.lock"


class RunLock:
    """The exclusive lock a live run holds (see the module docstring).

    Args:
        wh: The warehouse of the run.
        run_id: The run.
    """

    def __init__(self, wh: Warehouse, run_id: str) -> None:
        self.path = run_lock_path(wh, run_id)
        self._fh: IO[str] | None = None

    def acquire(self) -> RunLock:
        """Take the lock (it is new, so this never waits)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = self.path.open("a")
        fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self._fh = fh
        return self

    def release(self) -> None:
        """Release the lock and remove its file."""
        if self._fh is None:
            return
        self.path.unlink(missing_ok=True)
        fcntl.flock(self._fh, fcntl.LOCK_UN)
        self._fh.close()
        self._fh = None


def _is_held(path: Path) -> bool:
    """Whether another live process holds the lock at ``path`` (False when there is no file)."""
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing drops the lock taken just now
    return False


def close_out_abandoned_runs(wh: Warehouse, *, now: datetime) -> list[str]:
    """Mark every ``running`` run whose process is gone as ``abandoned``.

    Args:
        wh: The warehouse.
        now: Time written to ``finished_at`` (UTC).

    Returns:
        The run ids closed out.
    """
    running = wh.read("runs", where="status = ?", params=[RunStatus.RUNNING.value])
    closed = []
    for row in running.iter_rows(named=True):
        lock = run_lock_path(wh, row["run_id"])
        if _is_held(lock):
            continue
        row = {**row, "status": RunStatus.ABANDONED.value, "finished_at": now,
               "message": "abandoned: the process running it died before it finished "
                          "(killed or out of memory); its rows are left out of "
                          "verdicts_latest and evidence"}
        wh.write("runs", pa.Table.from_pylist([row], schema=RUNS_SCHEMA),
                 part=f"run-{row['run_id']}")
        lock.unlink(missing_ok=True)
        closed.append(row["run_id"])
    return closed
