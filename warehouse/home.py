"""Resolve affidavit's home directory and the environment its embedded services need."""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path

DEFAULT_HOME = ".affidavit"
"""Default home, relative to the working directory (DESIGN.md, Embedded default)."""


@dataclass(frozen=True, slots=True)
class HomePaths:
    """Where everything of one affidavit home lives.

    Attributes:
        root: The home directory.
        tables: Parquet datasets, one folder per table.
        duckdb: The DuckDB file with views over the Parquet datasets.
        index: The full-text search index of the ``archive`` provider.
        reports: HTML reports and ClaimReview JSON-LD, one folder per run.
        prefect: Prefect's home (ephemeral API database, logs).
    """

    root: Path

    @property
    def tables(self) -> Path:  # noqa: D102
        return self.root / "tables"

    @property
    def duckdb(self) -> Path:  # noqa: D102
        return self.root / "warehouse.duckdb"

    @property
    def index(self) -> Path:  # noqa: D102
        return self.root / "index"

    @property
    def reports(self) -> Path:  # noqa: D102
        return self.root / "reports"

    @property
    def prefect(self) -> Path:  # noqa: D102
        return self.root / "prefect"


def resolve_home(
    home: str | os.PathLike[str] | None = None, *, environ: Mapping[str, str] | None = None
) -> HomePaths:
    """Return the home paths: ``home`` if given, else ``$AFFIDAVIT_HOME``, else ``./.affidavit``.

    Args:
        home: An explicit home directory.
        environ: Environment to read ``AFFIDAVIT_HOME`` from (default ``os.environ``).

    Returns:
        The resolved (absolute) ``HomePaths``; directories are not created here.
    """
    env = os.environ if environ is None else environ
    raw = home if home is not None else env.get("AFFIDAVIT_HOME") or DEFAULT_HOME
    return HomePaths(Path(raw).expanduser().resolve())


def ensure_home(paths: HomePaths) -> HomePaths:
    """Create the home's directories if missing and return ``paths``.

    Raises:
        OSError: When the home cannot be created (read-only file system, a file in the way).
    """
    for p in (paths.root, paths.tables, paths.index, paths.reports, paths.prefect):
        p.mkdir(parents=True, exist_ok=True)
    return paths


def prefect_environment(paths: HomePaths) -> dict[str, str]:
    """Return the environment Prefect needs to run offline in ephemeral mode under the home.

    Values: analytics off, no telemetry, ``PREFECT_HOME`` under the home, ephemeral server with
    a 120 s start-up timeout.
    """
    return {
        "PREFECT_HOME": str(paths.prefect),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "DO_NOT_TRACK": "1",
        "PREFECT_LOGGING_LEVEL": os.environ.get("PREFECT_LOGGING_LEVEL", "WARNING"),
        "PREFECT_SERVER_ALLOW_EPHEMERAL_MODE": "true",
        # the ephemeral server's 20 s default is too short on a loaded 2-core machine
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
    }


def apply_prefect_environment(
    paths: HomePaths, *, environ: MutableMapping[str, str] | None = None
) -> None:
    """Set Prefect's offline environment (see ``prefect_environment``) unless already set.

    Creates the Prefect home folder: Prefect's ephemeral server cannot create its database in a
    missing folder.
    """
    env = os.environ if environ is None else environ
    paths.prefect.mkdir(parents=True, exist_ok=True)
    for key, value in prefect_environment(paths).items():
        env.setdefault(key, value)
