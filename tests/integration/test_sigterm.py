"""SIGTERM a real ``affidavit run`` in the middle of its research, as ``timeout`` or systemd do.

The run must be recorded ``abandoned`` with ``terminated (SIGTERM)`` (not ``failed``, not left
``running``), and the command must exit 143 saying so in one line. The signal is sent once the
home shows research under way (a judgments part), not after a timer.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from tests.integration.test_kill_and_readers import AFFIDAVIT, _corpus, _parts

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the supervisor is Linux only (prctl)")


@pytest.fixture(scope="module")
def stocked(prefect_harness, tmp_path_factory):  # noqa: ANN001, ANN201
    """A home holding a small corpus, the claims to check against it, and the commands' env."""
    from prefect.settings import PREFECT_API_URL

    from affidavit.flows.backfill import backfill_archive

    folder = tmp_path_factory.mktemp("sigterm")
    backfill_archive([str(p) for p in _corpus(folder, n_files=1, per_file=30)],
                     home=str(folder / "home"))
    claims = folder / "claims.jsonl"
    claims.write_text("".join(
        json.dumps({"claim": f"The harbour council budget rose {n} percent in March {y}."})
        + "\n" for n, y in zip(range(12, 52), range(1990, 2030), strict=True)))
    env = {k: v for k, v in os.environ.items() if not k.startswith("AFFIDAVIT_")}
    env["PREFECT_API_URL"] = str(PREFECT_API_URL.value())  # the harness: no server start
    return folder / "home", claims, env


def _signal_during_research(stocked, tmp_path, send) -> tuple[int, str, dict]:  # noqa: ANN001
    """Start ``affidavit run`` on a copy of the stocked home, call ``send(pid)`` once research
    is under way (a judgments part, the run not closed) and return the exit status, stderr and
    the run's ``runs`` row."""
    import shutil

    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import Warehouse

    base, claims, env = stocked
    home = tmp_path / "home"
    shutil.copytree(base, home, symlinks=True, ignore=shutil.ignore_patterns("locks"))
    proc = subprocess.Popen([*AFFIDAVIT, "run", "--claims", str(claims), "--mode", "quick",
                             "--workers", "2", "--home", str(home)],
                            env=env, start_new_session=True, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while _parts(home, "judgments") == 0:
            if proc.poll() is not None:
                pytest.skip("the run ended before research was seen under way")
            assert time.monotonic() < deadline, "research never started"
            time.sleep(0.01)
        send(proc.pid)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    runs = Warehouse(resolve_home(home)).read("runs")
    [row] = runs.filter(runs["flow"] == "factcheck").to_dicts()
    return proc.returncode, err, row


@pytest.mark.parametrize("to_group", [False, True])
def test_a_sigterm_during_research_records_the_run_terminated(stocked, tmp_path, to_group):
    """``kill PID`` (the supervisor passes it on) and ``kill -- -PGID`` (systemd stops every
    process of the service: the command gets it twice) end the same way."""
    def send(pid: int) -> None:
        if to_group:
            os.killpg(pid, signal.SIGTERM)
        else:
            os.kill(pid, signal.SIGTERM)

    code, err, row = _signal_during_research(stocked, tmp_path, send)
    assert code == 128 + signal.SIGTERM, err
    assert "stopped by SIGTERM" in err.strip().splitlines()[-1], err
    assert "Traceback" not in err
    assert (row["status"], row["message"]) == ("abandoned", "terminated (SIGTERM)"), err
    assert row["finished_at"] is not None


def test_ctrl_c_during_research_stops_the_workers_and_records_the_run_interrupted(
        stocked, tmp_path):
    """Ctrl-C at a terminal reaches the whole process group: the command and its research
    workers. The workers leave the stop to the command (no traceback of theirs), the command
    stops them, and the run is recorded abandoned, ``interrupted (Ctrl-C)``, exit 130."""
    code, err, row = _signal_during_research(
        stocked, tmp_path, lambda pid: os.killpg(pid, signal.SIGINT))
    assert code == 130, err
    assert "interrupted (Ctrl-C)" in err.strip().splitlines()[-1], err
    assert "Traceback" not in err, err
    assert "KeyboardInterrupt" not in err, err
    assert (row["status"], row["message"]) == ("abandoned", "interrupted (Ctrl-C)"), err
