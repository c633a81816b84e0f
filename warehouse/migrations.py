"""Move old warehouses forward without loss.

Parquet parts are read with ``union_by_name``, so a column added to a schema reads as NULL in
older parts; such additive changes need no migration. Renames or type changes get a function
here, keyed by the layout version it upgrades from, that rewrites the affected parts atomically.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from affidavit.warehouse.store import Warehouse



def _to_generations(wh: Warehouse) -> None:
    """Layout 1 → 2: tables replaced whole (``origins``) move into generation folders.

    Rows that a crash inside layout 1's ``replace`` left twice are merged, newest part first.
    """
    from affidavit.warehouse.store import REPLACED_TABLES

    for name in sorted(REPLACED_TABLES):
        wh._ensure_generations(name)  # noqa: SLF001 - the warehouse's own layout step


MIGRATIONS: dict[int, Callable[[Warehouse], None]] = {1: _to_generations}
"""Upgrade functions by the layout version they upgrade from."""


def migrate(wh: Warehouse) -> list[int]:
    """Apply every migration newer than the home's recorded layout version.

    Returns:
        The versions migrated from (empty when the home is current or new).
    """
    import json

    meta_path = wh.paths.tables / "_warehouse.json"
    if not meta_path.exists():
        return []
    current = int(json.loads(meta_path.read_text(encoding="utf-8")).get("version", 1))
    done = []
    for version in sorted(MIGRATIONS):
        if version >= current:
            MIGRATIONS[version](wh)
            done.append(version)
    return done
