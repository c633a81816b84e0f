"""Parquet datasets under the home, written atomically, and DuckDB views over them.

Layout: ``<home>/tables/<table>/part-<part>.parquet``. Every table has an empty ``part-0000-empty``
file with its schema, so that views and reads work before the first row is written.
Loads are idempotent: ``append_unique`` drops rows whose key is already stored.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
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
WAREHOUSE_VERSION = 1
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


def write_parquet_atomic(table: pa.Table, path: Path) -> Path:
    """Write ``table`` to ``path`` through a temporary file in the same folder, then rename.

    A reader never sees a half-written file; a crash leaves at most a ``.tmp`` file behind.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".parquet", dir=path.parent)
    os.close(fd)
    try:
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


class Warehouse:
    """Parquet datasets and a DuckDB file under one affidavit home.

    Args:
        paths: The home (see ``affidavit.warehouse.home.resolve_home``).

    Raises:
        WarehouseError: When the home was written by a newer layout version.
    """

    def __init__(self, paths: HomePaths) -> None:
        self.paths = ensure_home(paths)
        self._init_layout()

    # -- layout ---------------------------------------------------------------------------
    def _init_layout(self) -> None:
        meta_path = self.paths.tables / "_warehouse.json"
        if meta_path.exists():
            try:
                meta = json.loads(meta_path.read_text(encoding="utf-8"))
            except json.JSONDecodeError as exc:
                raise WarehouseError(f"{meta_path} is not valid JSON: {exc}") from exc
            if int(meta.get("version", 0)) > WAREHOUSE_VERSION:
                raise WarehouseError(
                    f"{self.paths.root} was written by a newer affidavit "
                    f"(layout {meta['version']} > {WAREHOUSE_VERSION})"
                )
        from affidavit.warehouse.migrations import migrate

        migrate(self)
        for name, schema in TABLES.items():
            # the empty part carries the current columns, so a column added to a schema (an
            # additive change: older parts read it as NULL through union_by_name) is in the views
            # of an old home even before any new part is written
            empty = self.table_dir(name) / _EMPTY_PART
            if not empty.exists() or pq.read_schema(empty).names != schema.names:
                write_parquet_atomic(schema.empty_table(), empty)
        if not meta_path.exists() or json.loads(meta_path.read_text()).get(
            "version"
        ) != WAREHOUSE_VERSION:
            tmp = meta_path.with_suffix(".tmp")
            tmp.write_text(json.dumps({"version": WAREHOUSE_VERSION}), encoding="utf-8")
            os.replace(tmp, meta_path)

    def table_dir(self, name: str) -> Path:
        """Return the folder of table ``name``.

        Raises:
            WarehouseError: For a table that is not in ``affidavit.schemas.registry.TABLES``.
        """
        if name not in TABLES:
            raise WarehouseError(f"unknown table {name!r}")
        return self.paths.tables / name

    def glob(self, name: str) -> str:
        """Return the Parquet glob of table ``name``."""
        return str(self.table_dir(name) / "*.parquet")

    # -- writing --------------------------------------------------------------------------
    def write(self, name: str, table: pa.Table | pl.DataFrame, *, part: str | None = None) -> int:
        """Write rows to table ``name`` as one new part file (or replace part ``part``).

        Returns:
            Number of rows written.
        """
        t = conform(table, TABLES[name])
        if t.num_rows == 0:
            return 0
        part = part or uuid.uuid4().hex
        write_parquet_atomic(t, self.table_dir(name) / f"part-{part}.parquet")
        return t.num_rows

    def replace(self, name: str, table: pa.Table | pl.DataFrame) -> int:
        """Replace the whole content of table ``name`` by ``table`` (used for ``origins``).

        The new part is written first; old parts are removed only afterwards, so a crash leaves
        either the old content or both (and ``read`` de-duplicates by key on the newest part).
        """
        t = conform(table, TABLES[name])
        folder = self.table_dir(name)
        old = [p for p in folder.glob("part-*.parquet") if p.name != _EMPTY_PART]
        new_name = f"part-{uuid.uuid4().hex}.parquet"
        if t.num_rows:
            write_parquet_atomic(t, folder / new_name)
        for p in old:
            if p.name != new_name:
                p.unlink(missing_ok=True)
        return t.num_rows

    def existing_keys(self, name: str, key: Sequence[str] | None = None) -> set[tuple[Any, ...]]:
        """Return the set of key tuples already stored in table ``name``."""
        cols = list(key or schema_key(TABLES[name]))
        sql = load_sql("existing_keys").format(
            cols=", ".join(_ident(c) for c in cols), glob=sql_literal(self.glob(name))
        )
        with duckdb.connect() as con:
            rows = con.execute(sql).fetchall()
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
        with duckdb.connect() as con:
            tbl = con.sql(sql, params=params or None).to_arrow_table()
        if not columns:
            tbl = conform(tbl, TABLES[name])
        df = pl.from_arrow(tbl)
        assert isinstance(df, pl.DataFrame)
        return df

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] | None = None) -> pl.DataFrame:
        """Run ``sql`` (with bound ``params``) on an in-memory connection that has every view."""
        with duckdb.connect() as con:
            self.create_views(con)
            df = pl.from_arrow(con.sql(sql, params=params or None).to_arrow_table())
        assert isinstance(df, pl.DataFrame)
        return df

    def count(self, name: str) -> int:
        """Return the number of rows of table ``name``."""
        with duckdb.connect() as con:
            row = con.execute(
                f"select count(*) from read_parquet({sql_literal(self.glob(name))}, "
                "union_by_name = true)"
            ).fetchone()
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

        Raises:
            WarehouseError: When the DuckDB file is locked by another process or corrupt.
        """
        try:
            with duckdb.connect(str(self.paths.duckdb)) as con:
                self.create_views(con)
        except duckdb.Error as exc:
            raise WarehouseError(f"cannot update {self.paths.duckdb}: {exc}") from exc
        return self.paths.duckdb

    def texts(self, doc_ids: Iterable[str]) -> pl.DataFrame:
        """Return documents (doc_id, url, host, title, text, content_sha256, published_at) by id."""
        ids = sorted(set(doc_ids))
        if not ids:
            return self.read("documents", columns=_DOC_COLS, where="false")
        return self.read("documents", columns=_DOC_COLS, where="doc_id in (select unnest($ids))",
                         params={"ids": ids})


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
    write_parquet_atomic(table, path)
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
