"""Crash safety of the warehouse: staging, sweeping, generations, modes, moved homes, runs."""

from __future__ import annotations

import os
import shutil
import stat
from datetime import UTC, datetime

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from affidavit.schemas.registry import TABLES
from affidavit.warehouse.home import resolve_home
from affidavit.warehouse.store import STAGING_DIR, Warehouse


def _origins(ids: list[str], origin: str = "a") -> pl.DataFrame:
    return pl.DataFrame({"doc_id": ids, "origin_doc_id": [origin] * len(ids),
                         "lineage_id": [origin] * len(ids), "in_cycle": [False] * len(ids)})


def _docs(ids: list[str]) -> pl.DataFrame:
    return pl.DataFrame({"doc_id": ids, "content_sha256": [f"h{i}" for i in ids],
                         "source_kind": ["user"] * len(ids),
                         "is_snippet_only": [False] * len(ids),
                         "text": [f"text {i}" for i in ids]})


def test_parts_are_0644_and_no_temporary_file_is_left(warehouse):
    old = os.umask(0o022)
    try:
        warehouse.write("documents", _docs(["a"]))
    finally:
        os.umask(old)
    parts = [p for p in warehouse.table_dir("documents").glob("*.parquet")
             if "empty" not in p.name]
    assert len(parts) == 1
    assert stat.S_IMODE(parts[0].stat().st_mode) == 0o644
    assert not list(warehouse.staging.iterdir())


def test_a_failed_write_leaves_nothing_a_reader_can_see(warehouse, monkeypatch):
    def boom(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pq, "write_table", boom)
    with pytest.raises(OSError, match="No space"):
        warehouse.write("documents", _docs(["a"]))
    monkeypatch.undo()
    assert warehouse.count("documents") == 0
    assert not list(warehouse.staging.iterdir())


def test_temporaries_of_dead_writers_are_swept_and_never_read(tmp_path):
    paths = resolve_home(tmp_path / "home")
    wh = Warehouse(paths)
    wh.write("documents", _docs(["a"]))
    # a writer killed mid-write (pid 0x7fffffff cannot exist) and layout 1's dot-file part
    dead = wh.staging / f"{2**31 - 1}-deadbeef.tmp"
    dead.write_bytes(b"PAR1 half a file")
    legacy = wh.table_dir("documents") / ".tmp-abcd.parquet"
    legacy.write_bytes(b"")
    live = wh.staging / f"{os.getpid()}-live.tmp"
    live.write_bytes(b"being written")
    wh2 = Warehouse(paths)
    assert wh2.n_swept == 2
    assert not dead.exists()
    assert not legacy.exists()
    assert live.exists()
    assert wh2.count("documents") == 1


def test_staged_files_never_match_a_table_glob(warehouse):
    assert (warehouse.paths.tables / STAGING_DIR) == warehouse.staging
    stray = warehouse.staging / f"{os.getpid()}-x.tmp"
    stray.parent.mkdir(exist_ok=True)
    stray.write_bytes(b"not parquet")
    with duckdb.connect() as con:
        for name in TABLES:
            files = con.execute("select file from glob(?)", [warehouse.glob(name)]).fetchall()
            assert all(not f[0].endswith(".tmp") for f in files)
    assert warehouse.count("documents") == 0


def test_replace_switches_generations_atomically(warehouse):
    warehouse.replace("origins", _origins(["a", "b"]))
    warehouse.replace("origins", _origins(["a"]))
    warehouse.replace("origins", _origins(["c", "d", "e"], origin="c"))
    folder = warehouse.table_dir("origins")
    assert (folder / "current").is_symlink()
    assert not os.path.isabs(os.readlink(folder / "current"))
    gens = sorted(p.name for p in folder.glob("gen-*"))
    assert len(gens) == 2  # the current one and the previous (a reader may still list it)
    assert sorted(warehouse.read("origins")["doc_id"].to_list()) == ["c", "d", "e"]


def test_a_crash_before_the_pointer_switch_keeps_the_old_content(warehouse, monkeypatch):
    warehouse.replace("origins", _origins(["a", "b"]))

    def killed(*a, **k):
        raise KeyboardInterrupt  # stands for a kill between the generation and the pointer

    monkeypatch.setattr(Warehouse, "_switch_pointer", killed)
    with pytest.raises(KeyboardInterrupt):
        warehouse.replace("origins", _origins(["x"]))
    monkeypatch.undo()
    wh = Warehouse(warehouse.paths)
    assert sorted(wh.read("origins")["doc_id"].to_list()) == ["a", "b"]
    wh.replace("origins", _origins(["y"]))
    assert wh.read("origins")["doc_id"].to_list() == ["y"]


def test_layout_1_home_is_migrated_and_duplicates_merged(tmp_path):
    """A layout-1 home where a crash inside replace left two parts with the same keys."""
    root = tmp_path / "old"
    folder = root / "tables" / "origins"
    folder.mkdir(parents=True)
    (root / "tables" / "_warehouse.json").write_text('{"version": 1}')
    schema = TABLES["origins"]
    older = pa.Table.from_pylist([{"doc_id": "a", "origin_doc_id": "old", "lineage_id": "old",
                                   "in_cycle": False}], schema=schema)
    newer = pa.Table.from_pylist([{"doc_id": "a", "origin_doc_id": "new", "lineage_id": "new",
                                   "in_cycle": False},
                                  {"doc_id": "b", "origin_doc_id": "new", "lineage_id": "new",
                                   "in_cycle": False}], schema=schema)
    pq.write_table(older, folder / "part-1.parquet")
    os.utime(folder / "part-1.parquet", (1_000_000, 1_000_000))
    pq.write_table(newer, folder / "part-2.parquet")
    pq.write_table(schema.empty_table(), folder / "part-0000-empty.parquet")
    wh = Warehouse(resolve_home(root))
    got = dict(wh.read("origins").select("doc_id", "origin_doc_id").iter_rows())
    assert got == {"a": "new", "b": "new"}
    assert not list(folder.glob("*.parquet"))


def test_views_follow_a_moved_home(tmp_path):
    wh = Warehouse(resolve_home(tmp_path / "first"))
    wh.write("documents", _docs(["a"]))
    wh.replace("origins", _origins(["a"]))
    wh.sync_duckdb()
    shutil.copytree(tmp_path / "first", tmp_path / "second", symlinks=True)
    shutil.rmtree(tmp_path / "first")
    moved = Warehouse(resolve_home(tmp_path / "second"))
    moved.write("documents", _docs(["b"]))
    with duckdb.connect(str(moved.paths.duckdb), read_only=True) as con:
        assert con.execute("select count(*) from documents").fetchone() == (2,)
        assert con.execute("select count(*) from origins").fetchone() == (1,)


def _run_row(run_id: str, status: str) -> dict:
    return {"run_id": run_id, "flow": "factcheck", "status": status,
            "started_at": datetime(2026, 1, 1, tzinfo=UTC)}


def _verdict(run_id: str, status: str, day: int) -> dict:
    return {"run_id": run_id, "claim_id": "k", "claim_text": "c", "status": status,
            "confidence": 0.5, "supporting_origins": 1, "refuting_origins": 0,
            "supporting_publishers": 1, "refuting_publishers": 0, "sources_total": 1,
            "n_admitted": 1, "n_rejected": 0, "judge": "lexical", "mode": "standard",
            "decided_at": datetime(2026, 1, day, tzinfo=UTC)}


def test_dead_runs_are_abandoned_and_their_rows_kept_out_of_views(warehouse):
    from affidavit.warehouse.runs import RunLock, close_out_abandoned_runs

    for rid, st in (("done", "completed"), ("dead", "running"), ("live", "running")):
        warehouse.write("runs", pl.DataFrame([_run_row(rid, st)]), part=f"run-{rid}")
    lock = RunLock(warehouse, "live").acquire()
    warehouse.write("verdicts", pl.DataFrame([_verdict("done", "PARTIAL", 1),
                                              _verdict("dead", "SUPPORTED", 2)]))
    judgment = {"claim_id": "k", "doc_id": "d", "judge": "lexical", "stance": "SUPPORTS",
                "side": "confirm", "judged_at": datetime(2026, 1, 2, tzinfo=UTC),
                "relevance": 1.0, "quote": "q", "anchor": "EXACT", "is_admitted": True}
    warehouse.write("judgments", pl.DataFrame([{**judgment, "run_id": "done"},
                                               {**judgment, "run_id": "dead"}]))
    closed = close_out_abandoned_runs(warehouse, now=datetime(2026, 1, 3, tzinfo=UTC))
    lock.release()
    assert closed == ["dead"]
    runs = dict(warehouse.read("runs").select("run_id", "status").iter_rows())
    assert runs == {"done": "completed", "dead": "abandoned", "live": "running"}
    latest = warehouse.query("select run_id, status from verdicts_latest").rows()
    assert latest == [("done", "PARTIAL")]
    assert warehouse.query("select run_id from evidence").rows() == [("done",)]


def test_a_reader_never_fails_while_parts_and_generations_are_written(warehouse):
    """Reader race: counts through DuckDB globs while another thread appends and replaces."""
    import threading

    errors: list[str] = []
    stop = threading.Event()
    globs = {t: warehouse.glob(t) for t in ("documents", "origins")}
    n_queries = 0

    def read() -> None:
        nonlocal n_queries
        with duckdb.connect() as con:
            while not stop.is_set():
                for t, g in globs.items():
                    try:
                        con.execute("select count(*) from read_parquet(?, union_by_name = true)",
                                    [g]).fetchone()
                        n_queries += 1
                    except duckdb.Error as exc:
                        errors.append(f"{t}: {exc}")

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        big = [f"d{i}" for i in range(2000)]
        for i in range(40):
            warehouse.write("documents", _docs([f"{i}-{j}" for j in range(200)]))
            warehouse.replace("origins", _origins(big[: 100 + 40 * i]))
    finally:
        stop.set()
        reader.join(timeout=30)
    assert errors == [], errors[:3]
    assert n_queries > 20
    assert warehouse.count("documents") == 40 * 200
    assert warehouse.count("origins") == 100 + 40 * 39


def _handler_levels() -> dict:
    import logging

    loggers = [logging.getLogger(), *(lg for lg in logging.root.manager.loggerDict.values()
                                      if isinstance(lg, logging.Logger))]
    return {h: h.level for lg in loggers for h in lg.handlers}


def _restore_logs(levels: dict) -> None:
    import logging

    logging.disable(logging.NOTSET)
    for handler, level in levels.items():
        handler.setLevel(level)


def _termination(signum: int) -> BaseException:
    from prefect.exceptions import TerminationSignal

    return TerminationSignal(signum)


@pytest.mark.parametrize(("exc", "status", "message"), [
    (KeyboardInterrupt(), "abandoned", "interrupted (Ctrl-C)"),
    (_termination(15), "abandoned", "terminated (SIGTERM)"),  # timeout, systemd, docker stop
    (_termination(1), "abandoned", "terminated (SIGHUP)"),
    (RuntimeError("disk on fire"), "failed", "RuntimeError: disk on fire"),
])
def test_a_run_stopped_by_ctrl_c_is_recorded_abandoned_at_once(tmp_path, exc, status, message):

    from affidavit.flows.context import writing_run

    home = tmp_path / "home"
    levels = _handler_levels()
    try:
        with pytest.raises(type(exc)), writing_run(str(home), "factcheck", {}) as (wh, run):
            raise exc
    finally:
        _restore_logs(levels)  # (an interrupt quiets the process's logs)
    [row] = wh.read("runs").to_dicts()
    assert row["status"] == status
    assert row["finished_at"] is not None
    assert message in (row.get("message") or "")
    # the home's DuckDB file is made as the run starts: its views show the stopped run
    with duckdb.connect(str(wh.paths.duckdb), read_only=True) as con:
        assert con.sql("select status from runs").fetchall() == [(status,)]


def test_after_ctrl_c_batches_are_not_retried_and_the_run_is_abandoned(tmp_path):

    from affidavit.flows import context, supervise

    assert supervise.retry_unless_interrupted(None, None, None)
    levels = _handler_levels()
    try:
        supervise.INTERRUPTED.set()  # as the SIGINT handler note_interrupts installs does
        assert not supervise.retry_unless_interrupted(None, None, None)
        # a batch failure after the interrupt (here Prefect's stop on SIGTERM) abandons the run
        with pytest.raises(RuntimeError), context.writing_run(
                str(tmp_path / "home"), "factcheck", {}) as (wh, run):
            raise RuntimeError("cannot schedule new futures after shutdown")
        [row] = wh.read("runs").to_dicts()
        assert (row["status"], row["message"]) == ("abandoned", "interrupted (Ctrl-C)")
        # the SIGTERM the supervisor sends after Ctrl-C's grace is part of that stop
        from prefect.exceptions import TerminationSignal

        with pytest.raises(TerminationSignal), context.writing_run(
                str(tmp_path / "home2"), "factcheck", {}) as (wh2, run):
            raise _termination(15)
        [row] = wh2.read("runs").to_dicts()
        assert (row["status"], row["message"]) == ("abandoned", "interrupted (Ctrl-C)")
    finally:
        supervise.INTERRUPTED.clear()
        _restore_logs(levels)


@pytest.mark.parametrize(("exc", "status", "message"), [
    (KeyboardInterrupt(), "abandoned", "interrupted (Ctrl-C)"),
    (_termination(15), "abandoned", "terminated (SIGTERM)"),
    (RuntimeError("disk on fire"), "failed", "RuntimeError: disk on fire"),
])
def test_an_audit_stopped_by_ctrl_c_is_recorded_abandoned_not_failed(tmp_path, monkeypatch, exc,
                                                                      status, message):
    from affidavit.flows import audit

    def stopped(*_a: object, **_k: object) -> None:
        raise exc

    monkeypatch.setattr(audit, "_execute", stopped)
    answer = tmp_path / "answer.txt"
    answer.write_text("The bridge opened in 1932.")
    evidence = tmp_path / "tool.txt"
    evidence.write_text("The bridge opened in 1932 after six years of work.")
    levels = _handler_levels()
    try:
        with pytest.raises(type(exc)):
            audit.audit_answer.fn(str(answer), [str(evidence)], home=str(tmp_path / "home"))
    finally:
        _restore_logs(levels)
    from affidavit.flows.context import open_warehouse

    [row] = open_warehouse(str(tmp_path / "home")).read("runs").to_dicts()
    assert (row["status"], row["message"]) == (status, message)


def _raised_while_stopping() -> BaseException:
    """Prefect's own error raised while its ``TerminationSignal`` unwound (its context)."""
    try:
        try:
            raise _termination(15)
        except BaseException:  # noqa: BLE001 - as Prefect's task engine does on its way out
            raise RuntimeError("cannot schedule new futures after shutdown")  # noqa: B904
    except RuntimeError as exc:
        return exc


@pytest.mark.parametrize("how", ["supervisor_passed_it_on", "error_replaced_it"])
def test_an_error_on_the_way_out_of_a_sigterm_is_recorded_terminated_not_failed(tmp_path, how):
    from affidavit.flows import context, supervise

    exc = _raised_while_stopping() if how == "error_replaced_it" else RuntimeError(
        "cannot schedule new futures after shutdown")
    levels = _handler_levels()
    try:
        if how == "supervisor_passed_it_on":
            supervise.note_stop_signal(15)  # as the supervisor does before it sends SIGTERM
            assert not supervise.retry_unless_interrupted(None, None, None)  # no batch retried
        with pytest.raises(RuntimeError), context.writing_run(
                str(tmp_path / "home"), "factcheck", {}) as (wh, _run):
            raise exc
    finally:
        supervise.note_stop_signal(0)
        _restore_logs(levels)
    [row] = wh.read("runs").to_dicts()
    assert (row["status"], row["message"]) == ("abandoned", "terminated (SIGTERM)")


def test_a_repeated_sigterm_does_not_cut_the_recording_of_a_stop_short():
    import os
    import signal

    from affidavit.flows.supervise import holding_stop_signals

    got: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda signum, _f: got.append(signum))
    try:
        with holding_stop_signals():
            os.kill(os.getpid(), signal.SIGTERM)  # the repeat, from the process group's sender
            for _ in range(100):  # a handler would have run by now (between bytecodes)
                pass
        assert got == []
        os.kill(os.getpid(), signal.SIGTERM)  # the handler is back after the block
        for _ in range(100):
            pass
        assert got == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, previous)


def test_a_repeated_sigterm_before_the_hold_still_leaves_the_run_recorded(tmp_path, monkeypatch):
    from affidavit.flows import context

    levels = _handler_levels()
    repeats = [_termination(15)]  # the process group's SIGTERM, passed on again by the supervisor
    quiet = context.quiet_logs

    def quiet_then_repeat() -> None:
        quiet()
        if repeats:
            raise repeats.pop()

    monkeypatch.setattr(context, "quiet_logs", quiet_then_repeat)
    try:
        with pytest.raises(type(_termination(15))), context.writing_run(
                str(tmp_path / "home"), "factcheck", {}) as (wh, _run):
            raise _termination(15)
    finally:
        _restore_logs(levels)
    assert repeats == []  # the repeat came
    [row] = wh.read("runs").to_dicts()
    assert (row["status"], row["message"]) == ("abandoned", "terminated (SIGTERM)")


def test_a_stop_passed_on_is_recorded_before_the_main_thread_unwinds(tmp_path, monkeypatch):
    """The supervisor notes a SIGTERM before it passes it on: the run is recorded abandoned
    from the stop watcher while the main thread is still busy (on a loaded machine its way out
    can outlast the grace before SIGKILL, which would leave the run ``running``)."""
    import signal
    import time

    from affidavit.flows import context, supervise

    monkeypatch.setenv("AFFIDAVIT_SUPERVISED", "1")
    try:
        with context.writing_run(str(tmp_path / "home"), "factcheck", {}) as (wh, run):
            assert wh.read("runs").to_dicts()[0]["status"] == "running"
            supervise.note_stop_signal(signal.SIGTERM)
            deadline = time.monotonic() + 30
            while run.status is not context.RunStatus.ABANDONED:  # the block goes on
                assert time.monotonic() < deadline, "the stop was never recorded"
                time.sleep(0.01)
            [row] = wh.read("runs").to_dicts()
            assert (row["status"], row["message"]) == ("abandoned", "terminated (SIGTERM)")
            assert row["finished_at"] is not None
            run.record_stop(signal.SIGTERM)  # a second record changes nothing
    finally:
        supervise.note_stop_signal(0)
    # a run that ended by itself is not rewritten by a stop that comes after
    with context.writing_run(str(tmp_path / "home2"), "factcheck", {}) as (wh2, run2):
        run2.finish(context.RunStatus.COMPLETED, "done")
        run2.record_stop(signal.SIGTERM)
    [row] = wh2.read("runs").to_dicts()
    assert (row["status"], row["message"]) == ("completed", "done")
