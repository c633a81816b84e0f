"""Start ``affidavit`` commands as forks of one interpreter that has imported them already.

Each command is a process of its own, as ``python -m affidavit.flows.cli ARGS`` would be: its own
pid, its own Prefect client, files and locks, killed by a real signal. It is forked from a server
process that imported the command line, the flows, Prefect, Polars and DuckDB once, so a test
that starts many commands pays those imports once instead of once a command (seconds each on a
loaded machine). The server forks from its only Python thread, before any work: no Python lock
is held by another thread, Polars has not started its thread pool, and the helper threads the
native libraries start on import (jemalloc's, OpenBLAS's) take their locks around a fork.

Protocol on the server's stdin and stdout, one JSON object a line:
``{"args": [...], "stdout": path, "stderr": path}`` → ``{"pid": n}``, and, when a command ends,
``{"exited": n, "returncode": r}`` (``-signal`` for a command killed by a signal, as
``subprocess`` says it).
"""

from __future__ import annotations

import json
import os
import runpy
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

PRELOAD = ("affidavit.flows.cli", "affidavit.flows.backfill", "affidavit.flows.factcheck",
           "prefect", "polars", "duckdb", "pyarrow.parquet")


def _returncode(status: int) -> int:
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def _serve() -> list[str] | None:
    """Answer requests until stdin closes; return the arguments of a forked command (in it)."""
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)
    assert threading.active_count() == 1, threading.enumerate()
    requests = sys.stdin.buffer.raw
    pending = b""
    children: dict[int, int] = {}  # pidfd -> pid
    print(json.dumps({"ready": os.getpid()}), flush=True)
    while True:
        readable, _, _ = select.select([requests, *children], [], [])
        for fd in readable:
            if fd in children:
                pid = children.pop(fd)
                os.close(fd)
                _, status = os.waitpid(pid, 0)
                print(json.dumps({"exited": pid, "returncode": _returncode(status)}),
                      flush=True)
                continue
            chunk = os.read(requests.fileno(), 65536)
            if not chunk:
                return None
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                req = json.loads(line)
                sys.stdout.flush()
                sys.stderr.flush()
                pid = os.fork()
                if pid == 0:
                    for child_fd in children:
                        os.close(child_fd)
                    null = os.open(os.devnull, os.O_RDONLY)
                    os.dup2(null, 0)
                    for target, path in ((1, req["stdout"]), (2, req["stderr"])):
                        out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                        os.dup2(out, target)
                        os.close(out)
                    os.close(null)
                    return req["args"]
                children[os.pidfd_open(pid)] = pid
                print(json.dumps({"pid": pid}), flush=True)


class ForkedCommand:
    """A command started by :class:`CommandForks`: ``poll``, ``send_signal``, ``communicate``."""

    def __init__(self, forks: CommandForks, pid: int, stdout: Path, stderr: Path) -> None:
        self._forks, self.pid = forks, pid
        self._stdout, self._stderr = stdout, stderr
        self.returncode: int | None = None

    def poll(self) -> int | None:
        """Return the exit code once the command has ended (reaped), else None."""
        if self.returncode is None:
            self.returncode = self._forks.returncode(self.pid, timeout=0)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        """Send ``sig`` to the command, unless it has been reaped already."""
        if self.poll() is None:
            os.kill(self.pid, sig)

    def kill(self) -> None:
        """SIGKILL the command."""
        self.send_signal(signal.SIGKILL)

    def communicate(self, timeout: float | None = None) -> tuple[str, str]:
        """Wait for the command to end; return its stdout and stderr."""
        if self.returncode is None:
            self.returncode = self._forks.returncode(self.pid, timeout=timeout)
            if self.returncode is None:
                raise subprocess.TimeoutExpired(str(self.pid), timeout or 0)
        return (self._stdout.read_text(errors="replace"),
                self._stderr.read_text(errors="replace"))


class CommandForks:
    """The fork server (a process of its own) and the commands it started.

    Args:
        env: The environment of the server, hence of every command.
        folder: Where the commands' stdout and stderr files go.
    """

    def __init__(self, env: dict[str, str], folder: Path) -> None:
        self._folder = folder
        self._proc = subprocess.Popen([sys.executable, __file__], env=env, bufsize=0,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self._buffer = b""
        self._exits: dict[int, int] = {}
        self._n = 0
        first = self._read(timeout=300)
        assert first is not None, "the fork server did not start"
        assert "ready" in first, first

    def _read(self, timeout: float | None) -> dict | None:
        assert self._proc.stdout is not None
        fd = self._proc.stdout.fileno()
        deadline = None if timeout is None else time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                return None
            chunk = os.read(fd, 65536)
            assert chunk, f"the fork server ended ({self._proc.wait()})"
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def start(self, args: list[str]) -> ForkedCommand:
        """Fork a command that runs ``affidavit ARGS``."""
        assert self._proc.stdin is not None
        self._n += 1
        out, err = self._folder / f"cmd-{self._n}.out", self._folder / f"cmd-{self._n}.err"
        for path in (out, err):  # there to read even if the command is killed before it opens them
            path.touch()
        self._proc.stdin.write(json.dumps({"args": args, "stdout": str(out),
                                           "stderr": str(err)}).encode() + b"\n")
        self._proc.stdin.flush()
        while True:
            msg = self._read(timeout=60)
            assert msg is not None, "the fork server did not answer"
            if "pid" in msg:
                return ForkedCommand(self, msg["pid"], out, err)
            self._exits[msg["exited"]] = msg["returncode"]

    def returncode(self, pid: int, *, timeout: float | None) -> int | None:
        """Return the exit code of ``pid`` once it has been reaped, waiting up to ``timeout``."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while pid not in self._exits:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            msg = self._read(timeout=left)
            if msg is None:
                return None
            self._exits[msg["exited"]] = msg["returncode"]
        return self._exits[pid]

    def close(self) -> None:
        """End the server (after its commands: it waits for none)."""
        assert self._proc.stdin is not None
        self._proc.stdin.close()
        try:
            self._proc.wait(30)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


if __name__ == "__main__":
    _args = _serve()
    if _args is not None:  # in a forked command: run it as ``python -m`` would
        sys.argv = ["affidavit", *_args]
        runpy.run_module("affidavit.flows.cli", run_name="__main__", alter_sys=True)
