"""Resolve affidavit's home directory and the environment its embedded services need."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_HOME = ".affidavit"
"""Default home, relative to the working directory (DESIGN.md, Embedded default)."""

OBJECT_STORE_SCHEMES = frozenset({"s3"})
"""URL schemes a home may use for its tables (through fsspec; ``s3`` needs ``s3fs``)."""

DEFAULT_WORK_DIR = "~/.cache/affidavit"
"""Local folder under which a home on object storage keeps its local files (``AFFIDAVIT_WORK_DIR``
overrides it): the DuckDB file, the search index, reports, Prefect's home and the locks."""


@dataclass(frozen=True, slots=True)
class HomePaths:
    """Where everything of one affidavit home lives.

    Attributes:
        root: The home directory (for a home on object storage, its local working folder).
        url: For a home on object storage, its URL (``s3://bucket/home``); None for a folder.
        tables: Parquet datasets, one folder per table (local homes).
        tables_url: Where the Parquet datasets are: ``<url>/tables``, or the local folder.
        spec: The home as ``resolve_home`` takes it again (its URL, or its folder).
        duckdb: The DuckDB file with views over the Parquet datasets.
        index: The full-text search index of the ``archive`` provider.
        reports: HTML reports and ClaimReview JSON-LD, one folder per run.
        prefect: Prefect's home (ephemeral API database, logs).
    """

    root: Path
    url: str | None = None

    @property
    def tables(self) -> Path:  # noqa: D102
        return self.root / "tables"

    @property
    def tables_url(self) -> str:  # noqa: D102
        return f"{self.url}/tables" if self.url else str(self.tables)

    @property
    def spec(self) -> str:  # noqa: D102
        return self.url or str(self.root)

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
        The resolved (absolute) ``HomePaths``; directories are not created here. For an
        ``s3://bucket/home`` URL the tables live there and the local files under
        ``$AFFIDAVIT_WORK_DIR/s3/bucket/home`` (default ``~/.cache/affidavit/…``).

    Raises:
        ValueError: For a URL of another scheme (``gs://…``, ``file://…`` …), see
            ``check_home_url``.
    """
    env = os.environ if environ is None else environ
    raw = os.fspath(home if home is not None else env.get("AFFIDAVIT_HOME") or DEFAULT_HOME)
    scheme = check_home_url(raw)
    if scheme is None:
        return HomePaths(Path(raw).expanduser().resolve())
    rest = raw.strip().split("://", 1)[1].strip("/")
    if not rest:
        raise ValueError(f"unsupported home {raw!r}: name a bucket ({scheme}://bucket/home)")
    work = Path(env.get("AFFIDAVIT_WORK_DIR") or DEFAULT_WORK_DIR).expanduser().resolve()
    return HomePaths(work / scheme / rest, url=f"{scheme}://{rest}")


_URL_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


def check_home_url(raw: str) -> str | None:
    """Return the object-store scheme of a home URL, None for a folder; refuse other URLs.

    Without this, ``AFFIDAVIT_HOME=gs://bucket/home`` would silently write a local folder named
    ``gs:``.

    Args:
        raw: The home as given.

    Returns:
        ``"s3"`` for an ``s3://`` URL (``OBJECT_STORE_SCHEMES``), None for a local folder.

    Raises:
        ValueError: When ``raw`` starts with another URL scheme (``scheme://``).

    >>> check_home_url("/srv/affidavit"), check_home_url("s3://bucket/home")
    (None, 's3')
    >>> try:
    ...     check_home_url("gs://bucket/home")
    ... except ValueError as exc:
    ...     print(str(exc)[:40])
    unsupported home 'gs://bucket/home': aff
    """
    m = _URL_SCHEME.match(raw.strip())
    if not m:
        return None
    scheme = m.group(1).lower()
    if scheme not in OBJECT_STORE_SCHEMES:
        raise ValueError(
            f"unsupported home {raw!r}: affidavit's home is a local folder or an "
            f"{' / '.join(sorted(OBJECT_STORE_SCHEMES))}:// URL (scheme {scheme!r} is not "
            "supported); mount the storage and point AFFIDAVIT_HOME at the mount"
        )
    return scheme


def ensure_home(paths: HomePaths) -> HomePaths:
    """Create the home's directories if missing and return ``paths``.

    Raises:
        OSError: When the home cannot be created (read-only file system, a file in the way).
    """
    for p in (paths.root, paths.tables, paths.index, paths.reports, paths.prefect):
        p.mkdir(parents=True, exist_ok=True)
    return paths


def configured_prefect_api(environ: Mapping[str, str] | None = None) -> str | None:
    """Return the Prefect API the user configured, or None when Prefect would run ephemeral.

    Looks where Prefect itself looks, without importing it: ``PREFECT_API_URL`` in the
    environment, then the active profile (``PREFECT_PROFILE`` or the ``active`` key) of
    ``$PREFECT_PROFILES_PATH`` (default ``$PREFECT_HOME/profiles.toml``, ``~/.prefect``), which is
    where ``prefect config set PREFECT_API_URL=…`` writes.

    Args:
        environ: Environment (default ``os.environ``).

    Returns:
        The API URL, or None.
    """
    import tomllib

    env = os.environ if environ is None else environ
    if env.get("PREFECT_API_URL"):
        return env["PREFECT_API_URL"]
    prefect_home = Path(env.get("PREFECT_HOME") or "~/.prefect").expanduser()
    path = Path(env.get("PREFECT_PROFILES_PATH") or prefect_home / "profiles.toml").expanduser()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None
    name = env.get("PREFECT_PROFILE") or data.get("active") or "ephemeral"
    profile = (data.get("profiles") or {}).get(name) or {}
    url = profile.get("PREFECT_API_URL")
    return str(url) if url else None


def prefect_environment(
    paths: HomePaths, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """Return the environment Prefect needs, respecting a Prefect API the user configured.

    Logs go to the API from level INFO (each run's summary), to the terminal from WARNING. With
    an API configured (``PREFECT_API_URL`` or the active profile, see
    ``configured_prefect_api``) only that and analytics are set: Prefect's home and profile stay
    the user's. Without one, Prefect runs offline in ephemeral mode with ``PREFECT_HOME`` under
    the affidavit home and a 120 s server start-up timeout (the 20 s default is too short on a
    loaded 2-core machine).
    """
    env = os.environ if environ is None else environ
    out = {
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "DO_NOT_TRACK": "1",
        # INFO reaches the flow runs' logs in the API (each run's summary); the terminal shows
        # warnings only
        "PREFECT_LOGGING_LEVEL": env.get("PREFECT_LOGGING_LEVEL", "INFO"),
        "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": env.get(
            "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL", "WARNING"),
    }
    if configured_prefect_api(env):
        return out
    return {
        **out,
        "PREFECT_HOME": str(paths.prefect),
        "PREFECT_SERVER_ALLOW_EPHEMERAL_MODE": "true",
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "120",
    }


def apply_prefect_environment(
    paths: HomePaths, *, environ: MutableMapping[str, str] | None = None
) -> None:
    """Set Prefect's environment (see ``prefect_environment``) unless already set.

    In ephemeral mode, creates the Prefect home folder: Prefect's ephemeral server cannot
    create its database in a missing folder.
    """
    env = os.environ if environ is None else environ
    values = prefect_environment(paths, env)
    if "PREFECT_HOME" in values:
        paths.prefect.mkdir(parents=True, exist_ok=True)
    for key, value in values.items():
        env.setdefault(key, value)


_HOME_LOCKS: dict[Path, list[Any]] = {}
"""Per process: lock file → [open file, hold count] (``flock`` locks are per open file)."""


@contextmanager
def home_lock(
    root: Path, *, name: str = ".lock", on_wait: Callable[[Path], None] | None = None
) -> Iterator[None]:
    """Hold the home's writer lock (``<root>/.lock``, an exclusive ``flock``) for the block.

    One writer per home: two commands, or two deployment runs, on one home would race on the
    warehouse's check-then-write loads and on the lineage. A second writer waits for the first.
    Re-entrant within a process (a flow called by a command that already holds it).

    Args:
        root: The home folder (created if missing).
        name: The lock file's name in ``root`` (``.lock``: the writer lock).
        on_wait: Called once when another process holds the lock, before waiting.

    Raises:
        OSError: When the lock file cannot be created.
    """
    import fcntl

    path = root / name
    held = _HOME_LOCKS.get(path)
    if held is None:
        root.mkdir(parents=True, exist_ok=True)
        fh = path.open("a")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait(root)
            fcntl.flock(fh, fcntl.LOCK_EX)
        held = _HOME_LOCKS[path] = [fh, 0]
    held[1] += 1
    try:
        yield
    finally:
        held[1] -= 1
        if held[1] == 0:
            _HOME_LOCKS.pop(path, None)
            held[0].close()  # closing the file releases the flock
