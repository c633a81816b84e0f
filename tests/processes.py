"""Helpers for the child processes tests start (servers, workers, browsers)."""

from __future__ import annotations

import subprocess


def stop_process(proc: subprocess.Popen, grace: float) -> None:
    """Terminate a child process, kill it if it is still running after ``grace`` seconds.

    Args:
        proc: The child.
        grace: Seconds it has to exit after SIGTERM, and again after SIGKILL.

    Raises:
        subprocess.TimeoutExpired: When it has not exited even after SIGKILL.
    """
    proc.terminate()
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(grace)
