"""Parquet datasets under the home, written atomically, and DuckDB views over them.

Layout (version 2): ``<home>/tables/<table>/part-<part>.parquet``; a table replaced whole
(``origins``) keeps generations ``<table>/gen-<n>/part-data.parquet`` (one file, possibly of no
rows) and reads the one its ``current`` symbolic link names. Every other table has an empty
``part-0000-empty.parquet`` with its schema, so that views and reads work before the first row.
Parts are written in ``<home>/tables/_staging`` as ``.tmp`` files (no reader's glob matches
them), fsynced and renamed into place; what a killed writer left there is swept on open.
Loads are idempotent: ``append_unique`` drops rows whose key is already stored.

A home on object storage (``s3://bucket/home``, ``HomePaths.url``) keeps the same layout under
``<url>/tables`` through fsspec (``s3fs``; credentials and endpoint from the usual ``AWS_*``
variables): a part is one object put whole, and a replaced table's ``current`` pointer is a small
``CURRENT`` object naming its generation (object stores have no symbolic links). DuckDB reads
them through the fsspec file system registered on each connection (no ``httpfs`` needed).

Why Parquet files and not a table format (Delta Lake): DuckDB reads Parquet globs natively, so
the views in ``warehouse.duckdb`` are plain SQL any DuckDB client can run; its delta extension
cannot be installed offline, so a Delta table would have to be read through pyarrow datasets
outside those views. Appends are single-file renames (atomic already) and only ``origins`` is
rewritten whole, which one generation pointer makes atomic.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from collections.abc import Iterable, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

from affidavit.schemas._meta import schema_key
from affidavit.schemas.registry import TABLES
from affidavit.warehouse.home import HomePaths, ensure_home

_IDENT = re.compile(r"^[a-z_][a-z0-9_]*$")
_EMPTY_PART = "part-0000-empty.parquet"
_META = "_warehouse.json"
_CURRENT = "current"
_GENERATION_PART = "part-data.parquet"
_POINTER = "CURRENT"
"""A replaced table's pointer object on object storage: the name of its current generation."""
REPLACED_TABLES = frozenset({"origins", "feeds", "passage_furniture"})
"""Tables rewritten whole by ``Warehouse.replace``; they are stored as generations."""
WAREHOUSE_VERSION = 2
"""Layout version of a home; stored in ``<home>/tables/_warehouse.json`` and checked on open."""


class WarehouseError(RuntimeError):
    """A warehouse cannot be opened or written (newer layout, corrupt file, bad table name)."""


def load_sql(name: str) -> str:
    """Return the text of ``warehouse/sql/<name>.sql``."""
    sql_dir = resources.files("affidavit.warehouse").joinpath("sql")
    return sql_dir.joinpath(f"{name}.sql").read_text(encoding="utf-8")


def sql_literal(value: str) -> str:
    """Quote a string as a SQL literal (single quotes doubled).

    DuckDB cannot bind parameters inside ``create view``; paths are quoted with this instead.

    >>> sql_literal("it's")
    "'it''s'"
    """
    return "'" + value.replace("'", "''") + "'"


def _ident(name: str) -> str:
    if not _IDENT.match(name):
        raise WarehouseError(f"not a plain identifier: {name!r}")
    return name


def conform(table: pa.Table | pl.DataFrame, schema: pa.Schema) -> pa.Table:
    """Return ``table`` with exactly ``schema``'s columns, in order, cast to its types.

    Missing nullable columns are filled with nulls; extra columns are dropped.

    Raises:
        WarehouseError: When a non-nullable column is missing or holds nulls.
    """
    if isinstance(table, pl.DataFrame):
        table = table.to_arrow()
    n = table.num_rows
    arrays = []
    for field in schema:
        if field.name in table.column_names:
            col = table.column(field.name)
            if col.type != field.type:
                col = col.cast(field.type)
        else:
            if not field.nullable:
                raise WarehouseError(f"column {field.name!r} is required by {schema.metadata}")
            col = pa.nulls(n, field.type)
        if not field.nullable and col.null_count:
            raise WarehouseError(f"column {field.name!r} holds {col.null_count} nulls")
        arrays.append(col)
    return pa.Table.from_arrays(arrays, schema=schema)


STAGING_DIR = "_staging"
"""Folder (under ``<home>/tables``) where parts are written before their rename into place.

It sits outside every table folder and its files end in ``.tmp``, so no reader's ``*.parquet``
glob (DuckDB's globs match dot-files) can ever see a half-written part."""

_TMP_SUFFIX = ".tmp"


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def fsync_dir(folder: Path) -> None:
    """Flush a folder's entries (a rename into it) to disk; a no-op where it cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def staging_path(staging: Path) -> Path:
    """Return a new temporary file name in ``staging``: ``<pid>-<random>.tmp``.

    The writer's process id lets :func:`sweep_staging` tell an abandoned file (its writer is
    dead) from one being written right now by another process.
    """
    staging.mkdir(parents=True, exist_ok=True)
    return staging / f"{os.getpid()}-{uuid.uuid4().hex}{_TMP_SUFFIX}"


PLAIN_COLUMNS: dict[str, tuple[str, ...]] = {
    "passage_packed": ("word_hashes", "ngram_hashes", "sentence_words", "quoted_words"),
}
"""Columns written with neither compression nor dictionary encoding, by table.

The packed lists of ``passage_packed``: an update scans every n-gram hash (random 64-bit
values: zstd does not shrink them, it only costs time to try) and reads the rest of a few
documents, which in uncompressed pages are skipped without being decoded (zstd pages are
decompressed whole: 0.35 s for the word hashes of 100k documents of ~3 KB, against 0.07 s
uncompressed, measured on 2 cores). Uncompressed, the word hashes take ~2.4x the disk.
"""


PLAIN_ROW_GROUP = 4096
"""Rows per Parquet row group of a table with ``PLAIN_COLUMNS``: ~15 MB of each column at
~3 KB a document, what a reader taking a batch at a time holds (one row group of a whole run's
rows would be read at once: 3.8 GB of n-gram hashes at 1M documents)."""


def parquet_options(table: pa.Table) -> dict[str, Any]:
    """Keyword arguments of ``pq.write_table`` for a conformed table (``PLAIN_COLUMNS``).

    zstd for every column, but those of ``PLAIN_COLUMNS`` for the table its schema names,
    whose rows go in row groups of ``PLAIN_ROW_GROUP``.
    """
    name = (table.schema.metadata or {}).get(b"name", b"").decode()
    plain = PLAIN_COLUMNS.get(name)
    if not plain:
        return {"compression": "zstd"}
    cols = table.schema.names
    return {
        "compression": {c: "none" if c in plain else "zstd" for c in cols},
        "use_dictionary": [c for c in cols if c not in plain],
        "row_group_size": PLAIN_ROW_GROUP,
    }


def _part_columns(path: Path) -> list[str] | None:
    """The column names of a local Parquet part, or None when it is missing or not Parquet."""
    try:
        return pq.read_schema(path).names
    except (OSError, pa.ArrowException):
        return None


def write_parquet_atomic(table: pa.Table, path: Path, *, staging: Path | None = None) -> Path:
    """Write ``table`` to ``path`` crash-safely: staged, fsynced, renamed, folder fsynced.

    The bytes go to a ``.tmp`` file in ``staging`` (on the same file system, so the rename is
    atomic), which is fsynced before ``os.replace`` moves it into place; the target folder is
    fsynced after. A reader sees the old file or the whole new
    one, never a part of it; a crash leaves at most a ``.tmp`` file in the staging folder, swept
    when the home is next opened. The part gets mode ``0o666 & ~umask`` (0644 under the usual
    umask 022), like any file the user creates, not ``mkstemp``'s 0600.

    Args:
        table: Rows to write (zstd-compressed Parquet, but ``PLAIN_COLUMNS``).
        path: Final path of the part.
        staging: Folder of temporary files; default ``path.parent.parent / "_staging"``.

    Returns:
        ``path``.

    Raises:
        OSError: When the disk is full or the folder is not writable (the temporary file is
            removed first).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = staging_path(staging if staging is not None else path.parent.parent / STAGING_DIR)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb") as fh:
            pq.write_table(table, fh, **parquet_options(table))
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)
    return path


def write_text_atomic(text: str, path: Path, *, staging: Path | None = None) -> Path:
    """Write a small text file (JSON, a pointer) as :func:`write_parquet_atomic` writes parts."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = staging_path(staging if staging is not None else path.parent)
    try:
        with tmp.open("w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)
    return path


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_path(p: Path) -> int:
    """Remove a file or a folder; return 1 when it was removed, 0 when that failed."""
    try:
        if p.is_dir():
            shutil.rmtree(p, ignore_errors=True)
        else:
            p.unlink(missing_ok=True)
    except OSError:
        return 0
    return 1


def sweep_staging(tables: Path) -> int:
    """Remove temporary files left by writers that died (kill, crash, full disk).

    Swept: ``<tables>/_staging/<pid>-*.tmp`` whose process is gone, and the ``.tmp-*.parquet``
    files that layout 1 wrote inside table folders (which DuckDB's globs read as parts), and
    unfinished generation folders (``.tmp-gen-*``) of replaced tables.

    Returns:
        Number of files or folders removed.
    """
    n = 0
    staging = tables / STAGING_DIR
    if staging.is_dir():
        for p in staging.iterdir():
            pid_s = p.name.split("-", 1)[0]
            if pid_s.isdigit() and _pid_alive(int(pid_s)):
                continue
            n += _remove_path(p)
    if tables.is_dir():
        for folder in tables.iterdir():
            if not folder.is_dir() or folder.name == STAGING_DIR:
                continue
            for p in folder.glob(".tmp-*"):
                n += _remove_path(p)
    return n


class Warehouse:
    """Parquet datasets and a DuckDB file under one affidavit home.

    Args:
        paths: The home (see ``affidavit.warehouse.home.resolve_home``).

    Raises:
        WarehouseError: When the home was written by a newer layout version, or its object
            store cannot be used (one line naming the home and the ``AWS_*`` variables to set,
            see ``affidavit.warehouse.object_store``).
    """

    def __init__(self, paths: HomePaths) -> None:
        self.paths = ensure_home(paths)
        self.staging = self.paths.tables / STAGING_DIR
        self.n_swept = 0
        self.fs = object_store(paths.url) if paths.url else None
        try:
            self._init_layout()
        except Exception as exc:
            from affidavit.warehouse.object_store import object_store_error_message

            message = object_store_error_message(exc, paths.url) if paths.url else None
            if message is None:
                raise
            raise WarehouseError(message) from exc

    # -- layout ---------------------------------------------------------------------------
    def _read_meta(self) -> dict[str, Any]:
        if self.fs is not None:
            url = f"{self.paths.tables_url}/{_META}"
            if not self.fs.exists(url):
                return {}
            raw = self.fs.cat_file(url).decode("utf-8", "replace")
            meta_path: Any = url
        else:
            meta_path = self.paths.tables / _META
            if not meta_path.exists():
                return {}
            raw = meta_path.read_text(encoding="utf-8")
        try:
            meta = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise WarehouseError(f"{meta_path} is not valid JSON: {exc}") from exc
        if not isinstance(meta, dict):
            raise WarehouseError(f"{meta_path} is not a JSON object")
        return meta

    def _write_meta(self, meta: dict[str, Any]) -> None:
        text = json.dumps(meta, sort_keys=True)
        if self.fs is not None:
            self.fs.pipe_file(f"{self.paths.tables_url}/{_META}", text.encode("utf-8"))
            return
        write_text_atomic(text, self.paths.tables / _META, staging=self.staging)

    def _init_layout(self) -> None:
        meta = self._read_meta()
        if int(meta.get("version", 0)) > WAREHOUSE_VERSION:
            raise WarehouseError(
                f"{self.paths.spec} was written by a newer affidavit "
                f"(layout {meta['version']} > {WAREHOUSE_VERSION})"
            )
        self.n_swept = sweep_staging(self.paths.tables)
        if self.fs is None:  # a home on object storage starts at the current layout
            from affidavit.warehouse.migrations import migrate

            migrate(self)
        for name, schema in TABLES.items():
            if name in REPLACED_TABLES:
                if self.fs is not None:
                    if not self.fs.exists(f"{self._url(name)}/{_POINTER}"):
                        self.replace(name, schema.empty_table())
                else:
                    self._ensure_generations(name)
                continue
            # the empty part carries the current columns, so a column added to a schema (an
            # additive change: older parts read it as NULL through union_by_name) is in the views
            # of an old home even before any new part is written
            if self.fs is not None:
                url = f"{self._url(name)}/{_EMPTY_PART}"
                if not self.fs.exists(url) or _remote_schema(self.fs, url).names != schema.names:
                    _put_parquet(self.fs, schema.empty_table(), url)
                continue
            empty = self.table_dir(name) / _EMPTY_PART
            if _part_columns(empty) != schema.names:  # missing, older or damaged: no row lost
                write_parquet_atomic(schema.empty_table(), empty, staging=self.staging)
        meta = self._read_meta()
        if meta.get("version") != WAREHOUSE_VERSION:
            meta["version"] = WAREHOUSE_VERSION
            self._write_meta(meta)
        # views hold absolute paths: a home that was moved or copied gets them re-pointed here
        if self.paths.duckdb.exists() and meta.get("views_root") != self.paths.spec:
            try:
                self.sync_duckdb()
            except WarehouseError:
                pass  # a reader holds the file: the next command that can, re-points them

    def table_dir(self, name: str) -> Path:
        """Return the folder of table ``name``.

        Raises:
            WarehouseError: For a table that is not in ``affidavit.schemas.registry.TABLES``.
        """
        if name not in TABLES:
            raise WarehouseError(f"unknown table {name!r}")
        return self.paths.tables / name

    def data_dir(self, name: str) -> Path:
        """Return the folder holding table ``name``'s parts now.

        For a table replaced whole (:data:`REPLACED_TABLES`) this is its current generation
        (``<table>/current``, resolved); for the others the table folder.
        """
        folder = self.table_dir(name)
        current = folder / _CURRENT
        if current.is_symlink() or current.is_dir():
            return current.resolve()
        return folder

    def _url(self, name: str) -> str:
        """Return the URL of table ``name``'s folder on object storage."""
        self.table_dir(name)  # checks the name
        return f"{self.paths.tables_url}/{name}"

    def _connect(self, database: str = ":memory:") -> duckdb.DuckDBPyConnection:
        """Open a DuckDB connection that can read the tables (object storage through fsspec)."""
        con = duckdb.connect(database)
        if self.fs is not None:
            con.register_filesystem(self.fs)
        return con

    def glob(self, name: str) -> str:
        """Return the Parquet glob of table ``name``.

        A replaced table is read through its ``current`` pointer (a relative symbolic link to
        the current generation; on object storage the generation the ``CURRENT`` object names),
        so a view never sees two generations at once.
        """
        if self.fs is not None:
            url = self._url(name)
            if name in REPLACED_TABLES:
                gen = self.fs.cat_file(f"{url}/{_POINTER}").decode("utf-8").strip()
                return f"{url}/{gen}/*.parquet"
            return f"{url}/*.parquet"
        folder = self.table_dir(name)
        current = folder / _CURRENT
        if current.is_symlink() or current.is_dir():
            return str(current / "*.parquet")
        return str(folder / "*.parquet")

    # -- generations (tables replaced whole) -----------------------------------------------
    def _generations(self, name: str) -> list[Path]:
        folder = self.table_dir(name)
        gens = [p for p in folder.glob("gen-*") if p.is_dir() and p.name[4:].isdigit()]
        return sorted(gens, key=lambda p: int(p.name[4:]))

    def _ensure_generations(self, name: str) -> None:
        """Give table ``name`` the generation layout, carrying over rows of layout 1.

        Layout 1 kept a replaced table's parts in its folder; a crash inside ``replace`` could
        leave two parts with the same keys. They are merged here, newest part first per key,
        into a first generation; the old parts are removed only after the pointer is set.
        """
        folder = self.table_dir(name)
        folder.mkdir(parents=True, exist_ok=True)
        current = folder / _CURRENT
        loose = sorted((p for p in folder.glob("*.parquet") if p.is_file()),
                       key=lambda p: p.stat().st_mtime, reverse=True)
        if not (current.is_symlink() or current.is_dir()):
            data = [p for p in loose if p.name != _EMPTY_PART]
            table = TABLES[name].empty_table()
            if data:
                tables = [conform(pq.read_table(p), TABLES[name]) for p in data]
                df = pl.from_arrow(pa.concat_tables(tables))
                assert isinstance(df, pl.DataFrame)
                df = df.unique(subset=list(schema_key(TABLES[name])), keep="first",
                               maintain_order=True)
                table = df.to_arrow()
            self.replace(name, table)
        elif not current.exists():
            # the pointer names a generation that is gone: fall back to the newest one left
            gens = self._generations(name)
            if gens:
                self._switch_pointer(folder, gens[-1].name)
            else:
                current.unlink()
                self.replace(name, TABLES[name].empty_table())
        for p in loose:  # layout-1 parts, now carried into a generation
            p.unlink(missing_ok=True)

    def _switch_pointer(self, folder: Path, gen_name: str) -> None:
        link = staging_path(self.staging)
        os.symlink(gen_name, link)
        os.replace(link, folder / _CURRENT)
        fsync_dir(folder)

    # -- writing --------------------------------------------------------------------------
    def write(self, name: str, table: pa.Table | pl.DataFrame, *, part: str | None = None) -> int:
        """Write rows to table ``name`` as one new part file (or replace part ``part``).

        Returns:
            Number of rows written.

        Raises:
            WarehouseError: When the rows do not fit the table's schema.
            OSError: When the disk is full or not writable (nothing partial is left visible).
        """
        t = conform(table, TABLES[name])
        if t.num_rows == 0:
            return 0
        part = part or uuid.uuid4().hex
        if self.fs is not None:
            folder = self.glob(name).rsplit("/", 1)[0]
            _put_parquet(self.fs, t, f"{folder}/part-{part}.parquet")
            return t.num_rows
        write_parquet_atomic(t, self.data_dir(name) / f"part-{part}.parquet",
                             staging=self.staging)
        return t.num_rows

    def replace(self, name: str, table: pa.Table | pl.DataFrame) -> int:
        """Replace the whole content of table ``name`` by ``table`` atomically (``origins``).

        The rows are written as a new generation folder (staged, then renamed into the table
        folder as ``gen-<n>``), then the ``current`` pointer (a relative symbolic link) is
        switched with one ``os.replace``. Each generation is one file of one fixed name, so a
        reader sees the old generation or the new one, never both and never neither, even when
        the switch happens between its listing and its reading; a crash at any point leaves the
        old content current. The previous generation is kept (a reader may hold it open);
        older ones are removed.

        Returns:
            Number of rows written.
        """
        t = conform(table, TABLES[name])
        if self.fs is not None:
            return self._replace_remote(name, t)
        folder = self.table_dir(name)
        folder.mkdir(parents=True, exist_ok=True)
        stage = staging_path(self.staging)
        stage.mkdir()
        try:
            # one file of one fixed name per generation, even with no rows: a reader that
            # listed ``current/part-data.parquet`` before a switch opens the same name after
            # it, and reads one generation whole, never a name that is gone
            write_parquet_atomic(t, stage / _GENERATION_PART, staging=self.staging)
            gens = self._generations(name)
            gen_name = f"gen-{(int(gens[-1].name[4:]) + 1) if gens else 1:06d}"
            os.rename(stage, folder / gen_name)
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)
            raise
        fsync_dir(folder)
        previous = (folder / _CURRENT).resolve().name if (folder / _CURRENT).exists() else None
        self._switch_pointer(folder, gen_name)
        for old in self._generations(name):
            if old.name not in (gen_name, previous):
                shutil.rmtree(old, ignore_errors=True)
        return t.num_rows

    def _replace_remote(self, name: str, t: pa.Table) -> int:
        """``replace`` on object storage: a new generation, then its ``CURRENT`` pointer."""
        assert self.fs is not None
        url = self._url(name)
        gens = sorted(int(p.rsplit("/", 1)[1][4:]) for p in self.fs.glob(f"{url}/gen-*")
                      if p.rsplit("/", 1)[1][4:].isdigit())
        gen_name = f"gen-{(gens[-1] + 1) if gens else 1:06d}"
        _put_parquet(self.fs, t, f"{url}/{gen_name}/{_GENERATION_PART}")
        pointer = f"{url}/{_POINTER}"
        previous = (self.fs.cat_file(pointer).decode("utf-8").strip()
                    if self.fs.exists(pointer) else None)
        self.fs.pipe_file(pointer, gen_name.encode("utf-8"))
        for g in gens:
            if f"gen-{g:06d}" not in (gen_name, previous):
                self.fs.rm(f"{url}/gen-{g:06d}", recursive=True)
        return t.num_rows

    def existing_keys(self, name: str, key: Sequence[str] | None = None) -> set[tuple[Any, ...]]:
        """Return the set of key tuples already stored in table ``name``."""
        cols = list(key or schema_key(TABLES[name]))
        sql = load_sql("existing_keys").format(
            cols=", ".join(_ident(c) for c in cols), glob=sql_literal(self.glob(name))
        )
        with self._connect() as con:
            rows = _run(lambda: con.execute(sql).fetchall(), name)
        return {tuple(r) for r in rows}

    def append_unique(
        self, name: str, table: pa.Table | pl.DataFrame, *, key: Sequence[str] | None = None
    ) -> int:
        """Append only the rows whose key is not stored yet (and the first of in-batch repeats).

        This makes loads idempotent: the same input twice adds no rows.

        Returns:
            Number of rows added.
        """
        return self.append_new(name, table, key=key).height

    def append_new(
        self,
        name: str,
        table: pa.Table | pl.DataFrame,
        *,
        key: Sequence[str] | None = None,
        known: set[tuple[Any, ...]] | None = None,
    ) -> pl.DataFrame:
        """Like ``append_unique``, but return the rows actually added (as Polars).

        Args:
            name: Table name.
            table: Rows to add.
            key: Key columns (default: the schema's key).
            known: The key tuples already stored, kept by a caller that appends many batches
                (read once with ``existing_keys``); it is updated with the added keys. Without
                it the stored keys are read for every call.
        """
        schema = TABLES[name]
        cols = list(key or schema_key(schema))
        t = conform(table, schema)
        df = pl.from_arrow(t)
        assert isinstance(df, pl.DataFrame)
        df = df.unique(subset=cols, keep="first", maintain_order=True)
        existing = known if known is not None else self.existing_keys(name, cols)
        if existing:
            keys = list(zip(*(df[c].to_list() for c in cols), strict=True))
            mask = pl.Series([k not in existing for k in keys], dtype=pl.Boolean)
            df = df.filter(mask)
        self.write(name, df)
        if known is not None:
            known.update(zip(*(df[c].to_list() for c in cols), strict=True))
        return df

    # -- reading --------------------------------------------------------------------------
    def read(
        self,
        name: str,
        *,
        columns: Sequence[str] | None = None,
        where: str | None = None,
        params: Sequence[Any] | dict[str, Any] | None = None,
    ) -> pl.DataFrame:
        """Read table ``name`` (optionally some columns and a parameterised filter) as Polars.

        Args:
            name: Table name.
            columns: Column names (plain identifiers), default all.
            where: A SQL boolean expression with ``?`` or ``$name`` placeholders.
            params: Values bound to the placeholders.
        """
        cols = ", ".join(_ident(c) for c in columns) if columns else "*"
        glob = sql_literal(self.glob(name))
        sql = f"select {cols} from read_parquet({glob}, union_by_name = true)"
        if where:
            sql += f" where {where}"
        with self._connect() as con:
            tbl = _run(lambda: con.sql(sql, params=params or None).to_arrow_table(), name)
        if not columns:
            tbl = conform(tbl, TABLES[name])
        df = pl.from_arrow(tbl)
        assert isinstance(df, pl.DataFrame)
        return df

    def scan(self, name: str) -> pl.LazyFrame:
        """Return a lazy Polars scan of table ``name``, for a large table read only where needed.

        Raises:
            WarehouseError: For a table that is not in ``affidavit.schemas.registry.TABLES``.
        """
        if self.fs is not None:
            import pyarrow.dataset as ds
            from pyarrow.fs import FSSpecHandler, PyFileSystem

            files = sorted(self.fs.glob(self.glob(name)))
            return pl.scan_pyarrow_dataset(ds.dataset(
                files, format="parquet", filesystem=PyFileSystem(FSSpecHandler(self.fs)),
                schema=TABLES[name]))
        return pl.scan_parquet(self.glob(name))

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] | None = None) -> pl.DataFrame:
        """Run ``sql`` (with bound ``params``) on an in-memory connection that has every view."""
        with self._connect() as con:
            _run(lambda: self.create_views(con), "a view")
            df = pl.from_arrow(_run(lambda: con.sql(sql, params=params or None).to_arrow_table(),
                                    "a view"))
        assert isinstance(df, pl.DataFrame)
        return df

    def count(self, name: str) -> int:
        """Return the number of rows of table ``name``."""
        with self._connect() as con:
            row = _run(lambda: con.execute(
                f"select count(*) from read_parquet({sql_literal(self.glob(name))}, "
                "union_by_name = true)"
            ).fetchone(), name)
        return int(row[0]) if row else 0

    # -- DuckDB ---------------------------------------------------------------------------
    def create_views(self, con: duckdb.DuckDBPyConnection) -> None:
        """Create a view per table over its Parquet dataset, and the derived views."""
        template = load_sql("view_table")
        for name in TABLES:
            con.execute(template.format(name=_ident(name), glob=sql_literal(self.glob(name))))
        for derived in ("view_verdicts_latest", "view_evidence", "view_feed_status",
                        "view_fetch_outcomes"):
            con.execute(load_sql(derived))

    def sync_duckdb(self) -> Path:
        """Create or refresh ``warehouse.duckdb`` with its views; return its path.

        The views hold the absolute paths of the Parquet datasets (DuckDB resolves relative
        paths against the working directory, not the file); the home's root is recorded, and a
        home opened at another place (moved, copied, restored) gets its views re-pointed.

        Raises:
            WarehouseError: When the DuckDB file is locked by another process or corrupt.
        """
        try:
            with self._connect(str(self.paths.duckdb)) as con:
                self.create_views(con)
        except duckdb.Error as exc:
            raise WarehouseError(f"cannot update {self.paths.duckdb}: {exc}") from exc
        meta = self._read_meta()
        if meta.get("views_root") != self.paths.spec:
            meta["views_root"] = self.paths.spec
            self._write_meta(meta)
        return self.paths.duckdb

    def texts(self, doc_ids: Iterable[str]) -> pl.DataFrame:
        """Return documents (doc_id, url, host, title, text, content_sha256, published_at) by id."""
        ids = sorted(set(doc_ids))
        if not ids:
            return self.read("documents", columns=_DOC_COLS, where="false")
        return self.read("documents", columns=_DOC_COLS, where="doc_id in (select unnest($ids))",
                         params={"ids": ids})


def count_stored_rows(paths: HomePaths, name: str) -> int | None:
    """Count the rows of a local home's table from its Parquet footers, writing nothing.

    For a check made before a command starts (no lock, no DuckDB, nothing created): a home
    that does not exist, or a table without parts, holds 0 rows; the empty
    ``part-0000-empty.parquet`` every table has counts 0 as any part of no rows does.

    Args:
        paths: The home (``affidavit.warehouse.home.resolve_home``).
        name: A table appended to by parts (not one of :data:`REPLACED_TABLES`).

    Returns:
        The number of rows, or None when it cannot be told without opening the warehouse: a
        home on object storage, a layout other than this version's, or a part that cannot be
        read (the command then finds out as it runs).
    """
    if paths.url or name in REPLACED_TABLES:
        return None
    folder = paths.tables / name
    if not paths.tables.is_dir() or not folder.is_dir():
        return 0
    meta = paths.tables / _META
    try:
        if meta.exists() and int(json.loads(meta.read_text(encoding="utf-8"))
                                 .get("version", 1)) != WAREHOUSE_VERSION:
            return None
        return sum(pq.read_metadata(part).num_rows for part in folder.glob("*.parquet"))
    except (OSError, ValueError, AttributeError, pa.ArrowException):
        return None


def object_store(url: str) -> Any:
    """Return the fsspec file system of a home URL (``s3://…`` through ``s3fs``).

    Credentials, region and endpoint come from the usual ``AWS_*`` environment variables
    (``AWS_ENDPOINT_URL`` for a store other than AWS).

    Raises:
        WarehouseError: When the file system's package is not installed.
    """
    import fsspec

    scheme = url.split("://", 1)[0]
    try:
        # no listing cache: parts written by other processes (batches, workers) must be seen
        return fsspec.filesystem(scheme, use_listings_cache=False)
    except ImportError as exc:
        raise WarehouseError(f"a {scheme}:// home needs {exc.name or 's3fs'} installed "
                             "(pip install 'affidavit[s3]')") from exc


def _put_parquet(fs: Any, table: pa.Table, url: str) -> None:
    """Write one Parquet object whole (an object store shows it complete or not at all)."""
    buf = pa.BufferOutputStream()
    pq.write_table(table, buf, **parquet_options(table))
    fs.pipe_file(url, buf.getvalue().to_pybytes())


def _remote_schema(fs: Any, url: str) -> pa.Schema:
    with fs.open(url, "rb") as fh:
        return pq.read_schema(fh)


def _run(call: Any, name: str) -> Any:
    """Run a DuckDB read; a damaged part becomes one :class:`WarehouseError` line."""
    try:
        return call()
    except (duckdb.IOException, duckdb.InvalidInputException) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise WarehouseError(f"cannot read table {name}: {first} (a damaged or foreign file in "
                             "the home: move it out of the table's folder and run again)"
                             ) from exc


_DOC_COLS = [
    "doc_id", "url", "canonical_url", "host", "title", "text", "content_sha256", "published_at",
    "wayback_first_seen", "source_kind", "is_snippet_only",
]


def save_weights(wh: Warehouse, name: str, key: str, weights: dict[str, float]) -> Path:
    """Persist a term → weight mapping (e.g. corpus IDF) under ``<home>/cache/<name>-<key>``.

    Older files of the same ``name`` are removed after the new one is in place.
    """
    folder = wh.paths.root / "cache"
    path = folder / f"{_ident(name)}-{re.sub(r'[^0-9A-Za-z_-]', '_', key)}.parquet"
    table = pa.table({"term": list(weights), "weight": list(weights.values())})
    write_parquet_atomic(table, path, staging=wh.staging)
    for old in folder.glob(f"{name}-*.parquet"):
        if old != path:
            old.unlink(missing_ok=True)
    return path


def load_weights(wh: Warehouse, name: str, key: str) -> dict[str, float] | None:
    """Return the mapping saved by ``save_weights`` for (name, key), or None when absent."""
    path = wh.paths.root / "cache" / (
        f"{_ident(name)}-{re.sub(r'[^0-9A-Za-z_-]', '_', key)}.parquet")
    if not path.exists():
        return None
    t = pq.read_table(path)
    return dict(zip(t.column("term").to_pylist(), t.column("weight").to_pylist(), strict=True))
