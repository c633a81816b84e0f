"""Leave no process behind: a small supervisor around each ``affidavit`` command.

Prefect's ephemeral mode starts its API server as a child process and stops it from an
``atexit`` hook. A main process killed outright (SIGKILL, the kernel's OOM killer) runs no
hook, so that server was left running for good. :func:`run_supervised` forks before any
Prefect import: the parent only waits, as a *child subreaper* (Linux ``prctl``), so every
process the command started and left behind is re-parented to it; when the command ends, in any
way, it terminates them. The parent is a few MB, so the OOM killer picks the command, not it.
Where ``prctl`` is not available (not Linux) the command runs unsupervised, as before.
"""

from __future__ import annotations

import ctypes
import logging
import mmap
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = [
    "INTERRUPTED", "holding_stop_signals", "note_interrupts", "note_run_completed",
    "note_run_started", "note_stop_signal", "quiet_logs", "retry_unless_interrupted",
    "run_supervised", "stop_signal", "watching_for_stop",
]

_PR_SET_CHILD_SUBREAPER = 36
"""``prctl`` option number (linux/prctl.h)."""

_ENV_FLAG = "AFFIDAVIT_SUPERVISED"
_STOP_GRACE_S = 5.0
"""Seconds a left-behind process gets after SIGTERM before SIGKILL (as Prefect's own stop)."""

_INTERRUPT_GRACE_S = 10
"""Seconds the command gets after Ctrl-C to stop by itself before the supervisor sends it
SIGTERM (a second Ctrl-C sends it at once). Ctrl-C also stops Prefect's local server, and a
command whose server is gone can wait on it for good. Convention: twice Prefect's own stop."""

EXIT_INTERRUPTED = 130
"""Exit status after Ctrl-C (128 + SIGINT, as shells report it)."""


INTERRUPTED = threading.Event()
"""Set when this process got Ctrl-C (:func:`note_interrupts`): no batch is retried after it,
and the run is recorded abandoned."""

_WORK_DONE = threading.Event()
"""Set from the moment the command's run is recorded completed until another run starts
(:func:`note_run_completed`, :func:`note_run_started`): a Ctrl-C then stops nothing."""

_LATE_INTERRUPT = threading.Event()
"""Set by a Ctrl-C that came while :data:`_WORK_DONE` was set."""

_STOP_SIGNAL = mmap.mmap(-1, 1)
"""The number of the stop signal (SIGTERM) the supervisor passed on to the command, 0 before.

Anonymous shared memory: made before the fork, the supervisor and the command see the same
byte. The supervisor writes it before it sends the signal, so the command knows it was stopped
whatever error the stop surfaces as: Prefect owns the command's SIGTERM handler during a flow
run (``TerminationSignal``) and its own errors on the way out (a task it crashed, a server it
can no longer reach) can replace that exception before the run is recorded."""


def note_stop_signal(signum: int) -> None:
    """Record that ``signum`` (a stop signal such as SIGTERM) was sent to the command."""
    _STOP_SIGNAL[0] = signum


def stop_signal() -> int | None:
    """Return the stop signal the supervisor passed on to this command, or None.

    None too when the command runs unsupervised (:func:`run_supervised`).
    """
    return _STOP_SIGNAL[0] or None


_STOP_POLL_S = 0.05
"""Seconds between the stop watcher's looks at :data:`_STOP_SIGNAL` (a byte in memory)."""


@contextmanager
def watching_for_stop(on_stop: Callable[[int], None]) -> Iterator[None]:
    """Call ``on_stop(signum)`` from a daemon thread once a stop signal is passed on.

    While the block runs, a thread looks at :func:`stop_signal` every :data:`_STOP_POLL_S`
    seconds and calls ``on_stop`` once with the signal's number. The command's main thread
    learns of the stop only where Prefect's handler raises ``TerminationSignal``, and the
    way out from there (a task engine reporting its crash to the API, threads winding down)
    can outlast the supervisor's grace (:data:`_STOP_GRACE_S`) on a loaded machine: what must
    be recorded of the stop is recorded from here instead. An error ``on_stop`` raises is
    logged at DEBUG (the main thread's own record of the stop follows). Unsupervised (no
    stop signal is ever passed on) no thread is started.
    """
    if not os.environ.get(_ENV_FLAG):
        yield
        return
    done = threading.Event()

    def watch() -> None:
        while not done.wait(_STOP_POLL_S):
            if (signum := stop_signal()) is not None:
                try:
                    on_stop(signum)
                except Exception:  # noqa: BLE001 - the main thread records it after
                    logging.getLogger(__name__).debug("recording the stop failed",
                                                      exc_info=True)
                return

    thread = threading.Thread(target=watch, name="affidavit-stop-watch", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()


@contextmanager
def holding_stop_signals() -> Iterator[None]:
    """Ignore SIGTERM while the block runs (main thread only; elsewhere a no-op).

    For recording the end of a run being stopped: a stop sent to the process group (systemd,
    ``kill -- -PGID``) reaches the command twice, from the sender and passed on by the
    supervisor, and the repeat (Prefect raises ``TerminationSignal`` for it) must not cut the
    recording short. The handler in place before is restored after the block.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def note_interrupts() -> None:
    """Record Ctrl-C before Python raises ``KeyboardInterrupt`` for it (main thread only).

    Prefect's task runner catches the interrupt in the batch that was running and, unless told,
    retries the failed batches while the interrupt also stopped its local server (measured:
    a 200-claim run then took 215 s to end). The handler sets :data:`INTERRUPTED` (read by
    :func:`retry_unless_interrupted`), turns this process's logging off up to ERROR
    (:func:`quiet_logs`: Prefect's event service logs each event it can no longer deliver, at
    length), and raises
    ``KeyboardInterrupt`` as Python's own handler does.

    Under the supervisor (:func:`run_supervised`) a Ctrl-C reaches this process twice, from
    the terminal and passed on by the supervisor (which alone gets a ``kill -INT`` of its
    process id): the repeats are ignored here, and a second press is the supervisor's to
    act on (SIGTERM). A Ctrl-C that comes once the command's run is recorded completed
    (:func:`note_run_completed`) raises nothing: the command prints its summary and exits as
    it would have; a run the command starts after it is not started
    (:func:`note_run_started`).
    """
    supervised = bool(os.environ.get(_ENV_FLAG))
    handling = [False]  # a plain flag: read and set without a lock

    def on_sigint(signum: int, frame: object) -> None:
        if handling[0]:
            # a repeat arriving while this handler runs (the terminal's Ctrl-C and the one
            # passed on, back to back): Python runs it inside this call, where Event.set()
            # may hold its lock, which the nested call would then wait on for ever
            return
        handling[0] = True
        try:
            if _WORK_DONE.is_set():
                _LATE_INTERRUPT.set()
                return
            if INTERRUPTED.is_set() and supervised:
                return
            INTERRUPTED.set()
            quiet_logs()
            signal.default_int_handler(signum, frame)
        finally:
            handling[0] = False

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, on_sigint)


def note_run_started() -> None:
    """Say that the command starts a run: Ctrl-C stops it again.

    Raises:
        KeyboardInterrupt: When Ctrl-C came after the command's previous run was completed
            (:func:`note_run_completed`): the run is not started.
    """
    _WORK_DONE.clear()
    if _LATE_INTERRUPT.is_set():
        INTERRUPTED.set()
        quiet_logs()
        raise KeyboardInterrupt


def note_run_completed() -> None:
    """Say that the command's run is recorded completed: a Ctrl-C from now on stops nothing."""
    _WORK_DONE.set()


def quiet_logs() -> None:
    """Turn this process's logging off up to ERROR, Prefect's internal loggers included.

    Prefect's internal loggers (``prefect._internal``) ignore ``logging.disable`` (they read
    their own level setting) and have handlers of their own: every handler is raised to
    CRITICAL too. For a process that is ending; its own messages go to the console.
    """
    logging.disable(logging.ERROR)
    loggers = [logging.getLogger(), *(
        lg for lg in list(logging.root.manager.loggerDict.values())
        if isinstance(lg, logging.Logger))]
    for lg in loggers:
        for handler in lg.handlers:
            handler.setLevel(logging.CRITICAL)


def retry_unless_interrupted(task: object, task_run: object, state: object) -> bool:
    """Prefect ``retry_condition_fn`` of the batch tasks: retry unless Ctrl-C or SIGTERM came."""
    return not INTERRUPTED.is_set() and stop_signal() is None


def _set_subreaper() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _children(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (from ``/proc``)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # the command name is in parentheses and may hold spaces: split after the last ')'
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 1 and fields[1] == str(pid):
            out.append(int(entry.name))
    return out


def _reap_orphans() -> int:
    """Terminate (then kill) every process re-parented to this one; return how many."""
    me = os.getpid()
    left = _children(me)
    for pid in left:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + _STOP_GRACE_S
    while time.monotonic() < deadline:
        _reap_zombies()
        if not _children(me):
            return len(left)
        time.sleep(0.05)
    for pid in _children(me):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    time.sleep(0.05)
    _reap_zombies()
    return len(left)


def _reap_zombies() -> None:
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def run_supervised(command: Callable[[], None]) -> None:
    """Run ``command`` in a forked child and exit with its status, reaping what it left.

    The exit status is the child's; a child killed by signal N exits ``128 + N`` after one line
    on stderr. SIGTERM and SIGHUP sent to the supervisor are passed on to the command; after a
    SIGTERM the command gets :data:`_STOP_GRACE_S` seconds, then SIGKILL (exit 143). SIGINT
    (Ctrl-C) reaches both from the terminal: the command gets :data:`_INTERRUPT_GRACE_S`
    seconds to stop by itself, then (or at a second Ctrl-C) SIGTERM, and :data:`_STOP_GRACE_S`
    seconds after that SIGKILL; an interrupted command exits 130. What it wrote before stays
    (parts are written whole, then renamed). The first Ctrl-C is also passed on to the command,
    so that ``kill -INT`` of the supervisor's process id stops it as Ctrl-C does (the command
    ignores the repeat, :func:`note_interrupts`). A command that exits by itself with another
    status than 130 after a Ctrl-C had done its work before it (:func:`note_run_completed`):
    its status is kept, and nothing is said. A SIGTERM passed on is recorded first
    (:func:`stop_signal`); a command it stopped exits 143 and the supervisor says so in one line.

    Args:
        command: The command's entry (runs in the child).
    """
    if os.environ.get(_ENV_FLAG) or not hasattr(os, "fork") or not _set_subreaper():
        command()
        return
    os.environ[_ENV_FLAG] = "1"
    sys.stdout.flush()
    sys.stderr.flush()
    # The signals wait, blocked, until the supervisor's handlers are in place: a SIGTERM sent
    # just after the start (``timeout``) would otherwise kill the supervisor by default and
    # leave the command running with no one to stop it.
    caught = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGALRM}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, caught)
    pid = os.fork()
    if pid == 0:  # the command: exits the normal way, so Prefect's atexit hooks run
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        command()
        return
    interrupted = False

    def forward(signum: int, _frame: object) -> None:
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass

    terminated = False

    def terminate() -> None:
        # SIGTERM, then SIGKILL after the grace: a command whose Prefect server is gone can
        # spend minutes at exit delivering its events to it
        nonlocal terminated
        if terminated:
            forward(signal.SIGKILL, None)
            return
        terminated = True
        forward(signal.SIGTERM, None)
        signal.alarm(int(_STOP_GRACE_S))

    def on_interrupt(_signum: int, _frame: object) -> None:
        nonlocal interrupted
        if interrupted:  # a second Ctrl-C: stop now
            terminate()
            return
        interrupted = True
        forward(signal.SIGINT, None)  # a ``kill -INT`` reaches the supervisor alone
        signal.alarm(_INTERRUPT_GRACE_S)

    stopped = False  # a SIGTERM was passed on (``timeout``, systemd, ``docker stop``)

    def on_term(_signum: int, _frame: object) -> None:
        nonlocal stopped
        stopped = True
        note_stop_signal(signal.SIGTERM)  # before the command gets it (stop_signal)
        terminate()  # SIGTERM now, SIGKILL after the grace if it is still running

    signal.signal(signal.SIGINT, on_interrupt)
    signal.signal(signal.SIGALRM, lambda _s, _f: terminate())
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGHUP, forward)
    signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # a signal that came meanwhile: now
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    signal.alarm(0)
    n_left = _reap_orphans()
    if interrupted and os.WIFEXITED(status) and os.WEXITSTATUS(status) != EXIT_INTERRUPTED:
        # the command ended by itself, not stopped: Ctrl-C came after its work was done
        sys.exit(os.WEXITSTATUS(status))
    if interrupted:
        extra = f"; {n_left} process(es) it started were stopped" if n_left else ""
        print(f"error: interrupted (Ctrl-C){extra}; what was written before stays",
              file=sys.stderr)
        sys.exit(EXIT_INTERRUPTED)
    if stopped and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
        # killed by this supervisor after the grace: report the SIGTERM it was given
        extra = f"; {n_left} process(es) it started were stopped" if n_left else ""
        print(f"error: stopped by SIGTERM (killed {int(_STOP_GRACE_S)} s later){extra}; what "
              "was written before stays", file=sys.stderr)
        sys.exit(128 + signal.SIGTERM)
    if stopped and ((os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM)
                    or (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 128 + signal.SIGTERM)):
        # stopped by the SIGTERM passed on: by Prefect's re-raise of it, or an exit saying so
        extra = f"; {n_left} process(es) it started were stopped" if n_left else ""
        print(f"error: stopped by SIGTERM{extra}; what was written before stays",
              file=sys.stderr)
        sys.exit(128 + signal.SIGTERM)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else sig
        hint = " (out of memory?)" if sig == signal.SIGKILL else ""
        extra = f"; {n_left} process(es) it started were stopped" if n_left else ""
        print(f"error: the command was killed by {name}{hint}{extra}", file=sys.stderr)
        sys.exit(128 + sig)
    sys.exit(os.WEXITSTATUS(status))
