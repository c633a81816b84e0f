"""Read-only queries for the commands that only read, importing DuckDB alone.

``affidavit recall`` and ``affidavit verdicts`` are SQL lookups: their cost is Python's imports.
This module answers them from the views stored in ``warehouse.duckdb`` (opened read-only), so
neither Polars nor pyarrow is imported. When the file is missing or another process holds it, the
caller falls back to ``affidavit.warehouse.store.Warehouse.query`` (views built in memory).
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from typing import Any

import duckdb

from affidavit.warehouse.home import HomePaths


def sql_text(name: str) -> str:
    """Return the text of ``warehouse/sql/<name>.sql``."""
    return resources.files("affidavit.warehouse").joinpath("sql", f"{name}.sql").read_text(
        encoding="utf-8")


def query_views(paths: HomePaths, sql: str, params: Mapping[str, Any] | None = None
                ) -> list[dict[str, Any]] | None:
    """Run ``sql`` on the home's DuckDB file, opened read-only; return its rows as dicts.

    Args:
        paths: The home.
        sql: A query over the stored views (``verdicts_latest`` …), with ``$name`` placeholders.
        params: Values bound to the placeholders.

    Returns:
        One dict per row, or None when the file is missing, locked by a writer, lacks a view
        the query needs, or its views read another place (the home was moved or copied and no
        writer has re-pointed them yet); the caller then builds the views in memory.
    """
    if paths.url or not paths.duckdb.exists():  # object storage: its views need fsspec
        return None
    if not _views_point_here(paths):  # a moved or copied home: its views read the old place
        return None
    try:
        with duckdb.connect(str(paths.duckdb), read_only=True) as con:
            cur = con.execute(sql, dict(params or {}))
            names = [d[0] for d in cur.description or []]
            return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]
    except duckdb.Error:
        return None


def _views_point_here(paths: HomePaths) -> bool:
    """Whether the stored views read this home's tables (``views_root`` in ``_warehouse.json``).

    The views hold absolute paths; the writer that made them records the home they read.
    """
    import json

    try:
        meta = json.loads((paths.tables / "_warehouse.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(meta, dict) and meta.get("views_root") == paths.spec
