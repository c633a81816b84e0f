"""SIGKILL a real ``affidavit backfill`` and a real ``affidavit run`` at several points.

The rerun after the kills must leave every table equal to a clean run's, and a reader querying
the Parquet datasets all along must never fail (no half-written part, no missing generation).
Kill points are taken from what the home shows (a part appears, a generation appears), not from
timers or hooks in the code. One Prefect server (the session harness) serves every command, and
each command is forked from one interpreter that imported the command line once
(``tests/integration/command_forks.py``), so each command costs its own work, not a server start
or the imports.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import polars as pl
import pytest

from tests.integration.command_forks import ForkedCommand

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="uses SIGKILL")

AFFIDAVIT = [sys.executable, "-m", "affidavit.flows.cli"]
_WORDS = ("harbour council budget river bridge tonnes percent minister report survey grain "
          "export copper freight rail clinic water energy price school court ruling vote "
          "island coast forest mine union strike wage tax levy port fleet cargo ferry").split()


def _corpus(folder: Path, *, n_files: int = 3, per_file: int = 60, seed: int = 7) -> list[Path]:
    """Write ``n_files`` JSONL dumps of stories and their syndicated copies (lineage edges)."""
    rng = random.Random(seed)
    files = []
    for f in range(n_files):
        path = folder / f"dump-{f}.jsonl"
        body = ""
        with path.open("w", encoding="utf-8") as fh:
            for i in range(per_file):
                if i % 3 and body:  # a copy of the previous story, lightly edited
                    text = body.replace(" the ", " a ", 1) + " Copied by another desk."
                else:
                    sents = []
                    for _ in range(6):
                        words = rng.choices(_WORDS, k=14)
                        sents.append(f"The {' '.join(words)} rose {rng.randint(2, 99)} percent.")
                    text = body = " ".join(sents)
                fh.write(json.dumps({"id": f"{f}-{i}",
                                     "url": f"https://n{i % 4}.example.com/{f}/{i}",
                                     "title": f"Story {f}-{i}", "text": text,
                                     "published_at": f"2024-03-{1 + i % 28:02d}"}) + "\n")
        files.append(path)
    return files


@pytest.fixture(scope="module")
def env(prefect_harness, tmp_path_factory):  # noqa: ANN001, ANN201
    from prefect.settings import PREFECT_API_URL

    e = {k: v for k, v in os.environ.items() if not k.startswith("AFFIDAVIT_")}
    e["PREFECT_API_URL"] = str(PREFECT_API_URL.value())
    e["AFFIDAVIT_SUPERVISED"] = "1"  # the test kills the command itself
    return e


@pytest.fixture
def forks(env, tmp_path):  # noqa: ANN001, ANN201
    """Start ``affidavit`` commands, each a process of its own, with ``env``."""
    from tests.integration.command_forks import CommandForks

    folder = tmp_path / "commands"
    folder.mkdir()
    server = CommandForks(env, folder)
    try:
        yield server
    finally:
        server.close()


def _cmd(args: list[str], home: Path, forks) -> ForkedCommand:  # noqa: ANN001
    return forks.start([*args, "--home", str(home)])


def _finish(proc: ForkedCommand, timeout: float = 240) -> None:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, (out[-2000:], err[-2000:])


def _since(probe, reached):  # noqa: ANN001, ANN202
    """A kill point measured from now: ``reached(state now, state then)`` on ``probe()``.

    A point is read against the home as it was when the command started, so a state left by an
    earlier killed command (a part or generation it wrote) never fires a kill the moment the
    next command forks, before it has done anything.
    """
    before = probe()
    return lambda: reached(probe(), before)


def _kill_when(proc: ForkedCommand, seen, timeout: float = 240) -> bool:
    """SIGKILL ``proc`` as soon as ``seen()`` is true; return whether it was still running."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            proc.communicate()
            return False
        if seen():
            proc.send_signal(signal.SIGKILL)
            proc.communicate()
            return proc.returncode == -signal.SIGKILL  # not when it exited just before
        time.sleep(0.002)
    proc.kill()
    raise AssertionError("kill point never reached")


def _parts(home: Path, table: str) -> int:
    folder = home / "tables" / table
    return len([p for p in folder.glob("part-*.parquet") if "empty" not in p.name])


def _generations(home: Path, table: str) -> int:
    return len(list((home / "tables" / table).glob("gen-*")))


class Reader(threading.Thread):
    """Query every table of a home in a loop; record any failure."""

    TABLES = ("documents", "signatures", "lineage_edges", "origins", "claims", "judgments",
              "verdicts", "runs", "queries")

    def __init__(self, home: Path) -> None:
        super().__init__(daemon=True)
        self.home = home
        self.stop = threading.Event()
        self.errors: list[str] = []
        self.n_queries = 0

    def _glob(self, table: str) -> str:
        folder = self.home / "tables" / table
        if (folder / "current").exists():
            return str(folder / "current" / "*.parquet")
        return str(folder / "*.parquet")

    def run(self) -> None:
        while not self.stop.is_set():
            if not (self.home / "tables" / "runs").exists():
                time.sleep(0.01)
                continue
            with duckdb.connect() as con:
                for t in self.TABLES:
                    try:
                        con.execute("select count(*) from read_parquet(?, union_by_name = true)",
                                    [self._glob(t)]).fetchone()
                        self.n_queries += 1
                    except duckdb.Error as exc:
                        self.errors.append(f"{t}: {exc}")


def _tables(home: Path) -> dict[str, pl.DataFrame]:
    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import Warehouse

    wh = Warehouse(resolve_home(home))
    out = {
        "documents": wh.read("documents").drop("ingest_run_id").sort("doc_id"),
        "signatures": wh.read("signatures").sort("doc_id"),
        "lineage_edges": wh.read("lineage_edges").sort("parent_doc_id", "child_doc_id", "kind"),
        "origins": wh.read("origins").sort("doc_id"),
    }
    if wh.count("verdicts"):
        out["verdicts_latest"] = wh.query(
            "select * exclude (run_id, decided_at, expires_at) from verdicts_latest "
            "order by claim_id")
        out["evidence"] = wh.query(
            "select * exclude (run_id) from evidence order by claim_id, doc_id, judge")
        out["claims"] = wh.query("select claim_id, text from claims order by claim_id")
    return out


def _assert_same(a: dict[str, pl.DataFrame], b: dict[str, pl.DataFrame]) -> None:
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].equals(b[name]), f"{name}: {a[name].shape} vs {b[name].shape}"


def test_killed_backfill_and_run_rerun_to_a_clean_runs_tables(forks, tmp_path):
    files = [str(p) for p in _corpus(tmp_path)]
    claims = tmp_path / "claims.jsonl"
    with claims.open("w") as fh:
        for text in ("The harbour council budget rose 12 percent in March.",
                     "Copper freight prices rose 40 percent.",
                     "The river bridge survey was copied by another desk."):
            fh.write(json.dumps({"claim": text}) + "\n")
    run_args = ["run", "--claims", str(claims), "--mode", "quick"]

    clean, killed = tmp_path / "clean", tmp_path / "killed"
    # the clean run in this process (the same flows the commands call), the killed ones as
    # real commands
    from affidavit.flows.backfill import backfill_archive
    from affidavit.flows.factcheck import factcheck

    backfill_archive(files, home=str(clean))
    factcheck(claims_path=str(claims), mode="quick", home=str(clean))

    reader = Reader(killed)
    reader.start()
    try:
        def more(table: str):  # noqa: ANN202
            return _since(lambda: _parts(killed, table), lambda now, then: now > then)

        points = [
            ("ingest: a document part written, more to come", lambda: more("documents")),
            ("lineage: edges written, origins not yet replaced", lambda: more("lineage_edges")),
            ("origins: a new generation switched in, signatures not yet written",
             lambda: _since(lambda: (_generations(killed, "origins"), _parts(killed, "signatures")),
                            lambda now, then: now[0] > then[0] and now[1] == 0)),
        ]
        def kills(points, args: list[str]) -> list[str]:  # noqa: ANN001
            """Start ``args`` once per point and kill it there; the points reached."""
            reached = []
            for point, seen_from_now in points:
                seen = seen_from_now()  # read before the command starts
                if _kill_when(_cmd(args, killed, forks), seen):
                    reached.append(point)
            return reached

        hits = kills(points, ["backfill", *files])
        _finish(_cmd(["backfill", *files], killed, forks))
        run_points = [
            ("research: judgments written, verdicts not yet", lambda: more("judgments")),
            ("decided: verdicts written, run not yet closed", lambda: more("verdicts")),
        ]
        hits += kills(run_points, run_args)
        _finish(_cmd(run_args, killed, forks))
    finally:
        reader.stop.set()
        reader.join(timeout=30)
    assert len(hits) >= 3, f"too few kill points reached: {hits}"
    assert reader.errors == [], reader.errors[:5]
    assert reader.n_queries > 50
    _assert_same(_tables(clean), _tables(killed))
    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import Warehouse

    runs = Warehouse(resolve_home(killed)).read("runs")
    statuses = runs["status"].to_list()
    assert "running" not in statuses
    # a kill can land after a command closed its run row (its teardown): such a run stays
    # completed, so each kill leaves at most one abandoned run and the reruns complete
    assert 1 <= statuses.count("abandoned") <= len(hits)
    assert statuses.count("completed") >= 2


def _children(pid: int) -> list[int]:
    from affidavit.flows.supervise import _children as children

    return children(pid)


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def test_a_killed_command_leaves_no_prefect_server_behind(tmp_path):
    """The main process dies by SIGKILL (as under the OOM killer) once its server is up."""
    e = {k: v for k, v in os.environ.items()
         if not k.startswith(("AFFIDAVIT_", "PREFECT_API_URL"))}
    e["PREFECT_HOME"] = str(tmp_path / "prefect")
    files = [str(p) for p in _corpus(tmp_path, n_files=1, per_file=30)]
    proc = subprocess.Popen([*AFFIDAVIT, "backfill", *files, "--home", str(tmp_path / "h")],
                            env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    server = command = None
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and server is None and proc.poll() is None:
        for c in _children(proc.pid):
            for g in _children(c):
                if "uvicorn" in _cmdline(g):
                    command, server = c, g
        time.sleep(0.05)
    if server is None:
        proc.kill()
        pytest.skip("the command ended before its Prefect server was seen")
    os.kill(command, signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGKILL
    assert "killed by SIGKILL" in err
    assert not Path(f"/proc/{server}").exists() or "uvicorn" not in _cmdline(server)


def test_the_ephemeral_server_gets_a_port_outside_prefects_random_range(monkeypatch):
    """Two commands starting at once must not draw the same port from Prefect's 8000-8999."""
    from prefect.server.api.server import SubprocessASGIServer

    from affidavit.flows.context import pin_ephemeral_server_port

    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.setattr(SubprocessASGIServer, "_instances", {})
    port = pin_ephemeral_server_port()
    assert port is not None
    assert not 8000 <= port < 9000
    assert SubprocessASGIServer().port == port  # the instance Prefect's clients start
    assert pin_ephemeral_server_port() is None  # set once
