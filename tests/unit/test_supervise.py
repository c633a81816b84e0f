"""Ctrl-C on a supervised command whose work does not stop by itself."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the supervisor is Linux only (prctl)")

SCRIPT = """
import signal, sys, time
from affidavit.flows import supervise
supervise._INTERRUPT_GRACE_S = {grace}

def command():
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # like a flow waiting on a server gone away
    if {ignore_term}:  # like Prefect's exit, delivering its events to a server gone away
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    open({ready!r}, "w").close()
    time.sleep(120)

supervise.run_supervised(command)
"""


def _start(tmp_path: Path, grace: int, *, ignore_term: bool = False
           ) -> tuple[subprocess.Popen, Path]:
    ready = tmp_path / "ready"
    script = tmp_path / "cmd.py"
    script.write_text(SCRIPT.format(grace=grace, ready=str(ready), ignore_term=ignore_term),
                      encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "AFFIDAVIT_SUPERVISED"}
    proc = subprocess.Popen([sys.executable, str(script)], env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    while not ready.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the command did not start"
        time.sleep(0.05)
    return proc, ready


@pytest.mark.parametrize(("presses", "ignore_term"), [(1, False), (2, False), (1, True)])
def test_ctrl_c_stops_a_command_that_does_not_stop_by_itself(tmp_path, presses, ignore_term):
    """Ctrl-C, then SIGTERM after the grace (or a second Ctrl-C), then SIGKILL if need be."""
    proc, _ = _start(tmp_path, grace=1, ignore_term=ignore_term)
    try:
        for _ in range(presses):
            os.killpg(proc.pid, signal.SIGINT)  # what the terminal sends on Ctrl-C
            time.sleep(0.2)
        # the command alone would run 120 s: ending within the wait is the escalation working
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130
    assert "interrupted (Ctrl-C)" in err


def test_sigterm_stops_a_command_that_ignores_it(tmp_path):
    """``timeout`` or systemd send SIGTERM to the command: it is killed after the grace."""
    proc, _ = _start(tmp_path, grace=1, ignore_term=True)
    try:
        os.kill(proc.pid, signal.SIGTERM)  # to the supervisor, as `timeout` sends it
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 128 + signal.SIGTERM
    assert "stopped by SIGTERM" in err


EARLY_TERM_SCRIPT = """
import os, signal, time
from affidavit.flows import supervise
supervise._STOP_GRACE_S = 1
fork = os.fork

def fork_then_term():
    pid = fork()
    if pid:  # the supervisor, before its handlers are in place: as if `timeout` fired now
        os.kill(os.getpid(), signal.SIGTERM)
    return pid

os.fork = fork_then_term

def command():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    time.sleep(120)

supervise.run_supervised(command)
"""


def test_sigterm_right_after_the_start_is_not_lost(tmp_path):
    # it killed the supervisor by default (exit -15) and left the command running, holding
    # the terminal's pipes: a flaky hang of the test above on a loaded machine
    script = tmp_path / "cmd.py"
    script.write_text(EARLY_TERM_SCRIPT, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "AFFIDAVIT_SUPERVISED"}
    proc = subprocess.Popen([sys.executable, str(script)], env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert "stopped by SIGTERM" in err


CTRL_C_SCRIPT = """
import signal, sys, time
from affidavit.flows import supervise
supervise._INTERRUPT_GRACE_S = 30  # the command ends by itself well before (a loaded machine too)

def command():
    supervise.note_interrupts()  # as the CLI does
    handler = signal.getsignal(signal.SIGINT)
    seen = []  # a list, not an Event: the handler may run again inside itself (no lock)

    def noting(signum, frame):
        seen.append(signum)
        handler(signum, frame)

    signal.signal(signal.SIGINT, noting)
    if {completed}:
        supervise.note_run_completed()  # the run is recorded completed, its outputs written
    try:
        open({ready!r}, "w").close()
        # work (or printing the summary) until the Ctrl-C has reached this process: what it
        # does then is under test, not how soon the test sent it (bounded, for a Ctrl-C lost)
        deadline = time.monotonic() + {work_s}
        while not seen and time.monotonic() < deadline:
            time.sleep(0.01)
        if {start_another}:
            supervise.note_run_started()
        print("summary")
    except KeyboardInterrupt:
        for _ in range(10):  # cleaning up: a repeat of the same Ctrl-C must not cut this short
            time.sleep(0.1)
        open({ready!r} + ".cleaned", "w").close()
        sys.exit(130)

supervise.run_supervised(command)
"""

_WORK_S = 60
"""Upper bound of the command's work in ``CTRL_C_SCRIPT`` (seconds): reached only when the
Ctrl-C never reaches the command, which the test then reports."""


def _ctrl_c(tmp_path: Path, *, to_group: bool, completed: bool = False,
            start_another: bool = False) -> tuple[int, str, str]:
    """Run ``CTRL_C_SCRIPT`` supervised, send SIGINT once it is ready; return (code, out, err)."""
    ready = tmp_path / "ready"
    script = tmp_path / "cmd.py"
    script.write_text(CTRL_C_SCRIPT.format(ready=str(ready), completed=completed,
                                           start_another=start_another, work_s=_WORK_S),
                      encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "AFFIDAVIT_SUPERVISED"}
    proc = subprocess.Popen([sys.executable, str(script)], env=env, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while not ready.exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the command did not start"
            time.sleep(0.05)
        if to_group:
            os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the terminal sends it to both
        else:
            os.kill(proc.pid, signal.SIGINT)  # ``kill -INT <pid>``: the supervisor alone
        out, err = proc.communicate(timeout=2 * _WORK_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    return proc.returncode, out, err


@pytest.mark.parametrize("to_group", [False, True])
def test_ctrl_c_reaches_the_command_once_however_it_is_sent(tmp_path, to_group):
    """``kill -INT`` of the supervisor stops the command as Ctrl-C does (not by SIGTERM after
    the grace), and the terminal's Ctrl-C plus the one passed on are one interrupt."""
    code, out, err = _ctrl_c(tmp_path, to_group=to_group)
    assert code == 130
    assert (tmp_path / "ready.cleaned").exists()  # it cleaned up: not stopped by SIGTERM
    assert "summary" not in out
    assert err.strip().splitlines() == ["error: interrupted (Ctrl-C); what was written before "
                                        "stays"]


@pytest.mark.parametrize("to_group", [False, True])
def test_ctrl_c_after_the_run_completed_leaves_the_command_its_outcome(tmp_path, to_group):
    code, out, err = _ctrl_c(tmp_path, to_group=to_group, completed=True)
    assert (code, out.strip(), err) == (0, "summary", "")


def test_ctrl_c_after_a_completed_run_stops_the_next_one_before_it_starts(tmp_path):
    code, out, err = _ctrl_c(tmp_path, to_group=True, completed=True, start_another=True)
    assert code == 130
    assert "summary" not in out
    assert "interrupted (Ctrl-C)" in err


class _EventNotingNesting:
    """An Event whose ``set`` lets a repeat Ctrl-C arrive inside it, as a signal can."""

    def __init__(self, repeat) -> None:  # noqa: ANN001
        self.flag = False
        self.depth = 0
        self.reentered = False
        self.repeat = repeat

    def is_set(self) -> bool:
        return self.flag

    def set(self) -> None:
        if self.depth:
            self.reentered = True  # threading.Event.set would wait here on its own lock
        self.depth += 1
        try:
            if self.repeat is not None:
                repeat, self.repeat = self.repeat, None
                repeat()
            self.flag = True
        finally:
            self.depth -= 1


def test_a_ctrl_c_arriving_while_the_first_is_handled_is_one_interrupt(monkeypatch):
    from affidavit.flows import supervise

    monkeypatch.setenv("AFFIDAVIT_SUPERVISED", "1")
    before = signal.getsignal(signal.SIGINT)
    monkeypatch.setattr(supervise, "quiet_logs", lambda: None)
    # this process's own state, whatever tests before left in it: no run recorded completed
    monkeypatch.setattr(supervise, "_WORK_DONE", threading.Event())
    monkeypatch.setattr(supervise, "_LATE_INTERRUPT", threading.Event())
    try:
        supervise.note_interrupts()
        handler = signal.getsignal(signal.SIGINT)
        event = _EventNotingNesting(lambda: handler(signal.SIGINT, None))
        monkeypatch.setattr(supervise, "INTERRUPTED", event)
        with pytest.raises(KeyboardInterrupt):
            handler(signal.SIGINT, None)
    finally:
        signal.signal(signal.SIGINT, before)
    assert event.flag
    assert not event.reentered  # the repeat returned at once: no second set() inside the first
