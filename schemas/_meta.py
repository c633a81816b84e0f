"""Helpers to attach grain, key and version metadata to a pyarrow schema."""

from __future__ import annotations

import pyarrow as pa

UTC_TS = pa.timestamp("us", tz="UTC")
"""Timestamp type of every ``*_at`` column: microseconds, UTC."""


def table_schema(
    fields: list[pa.Field], *, name: str, grain: str, key: tuple[str, ...], version: int
) -> pa.Schema:
    """Build a schema whose metadata states the table name, grain, key and version.

    Args:
        fields: The columns.
        name: Table name, e.g. ``"documents"``.
        grain: One sentence, e.g. ``"one row per distinct document version"``.
        key: Column names forming the key.
        version: Schema version; bump on any change and add a migration in ``warehouse``.

    Returns:
        A ``pa.Schema`` with metadata keys ``name``, ``grain``, ``key`` (comma separated) and
        ``version``.

    Raises:
        ValueError: When a key column is not among the fields.
    """
    names = {f.name for f in fields}
    missing = [k for k in key if k not in names]
    if missing:
        raise ValueError(f"key columns {missing} are not fields of {name}")
    return pa.schema(
        fields,
        metadata={
            "name": name,
            "grain": grain,
            "key": ",".join(key),
            "version": str(version),
        },
    )


def schema_key(schema: pa.Schema) -> tuple[str, ...]:
    """Return the key columns stored in a schema's metadata."""
    return tuple((schema.metadata or {}).get(b"key", b"").decode().split(","))
