"""How many local worker processes: ``--workers`` or ``$AFFIDAVIT_WORKERS``, else every core.

Light imports only: the CLI checks ``$AFFIDAVIT_WORKERS`` with this before Prefect starts, so a
bad value is one line in a second, not an error after Prefect's start-up.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["WORKERS_ENV", "default_workers", "parse_workers"]

WORKERS_ENV = "AFFIDAVIT_WORKERS"
"""Environment variable naming the local worker processes of the research and audit batches."""


def parse_workers(raw: str | None) -> int | None:
    """Read a ``$AFFIDAVIT_WORKERS`` value: a whole number of at least 1, or None when unset.

    Surrounding blanks are ignored; an empty value is unset.

    Raises:
        ValueError: For a value that is not a whole number, or is below 1.

    >>> parse_workers(" 4 "), parse_workers(""), parse_workers(None)
    (4, None, None)
    >>> parse_workers("0")
    Traceback (most recent call last):
    ...
    ValueError: AFFIDAVIT_WORKERS must be at least 1, got 0 (unset it for every core)
    """
    if raw is None or not raw.strip():
        return None
    try:
        n = int(raw.strip())
    except ValueError:
        raise ValueError(f"{WORKERS_ENV} must be a whole number of processes, got {raw!r} "
                         "(unset it for every core)") from None
    if n < 1:
        raise ValueError(f"{WORKERS_ENV} must be at least 1, got {n} (unset it for every core)")
    return n


def default_workers(env: Mapping[str, str] | None = None) -> int:
    """Return the number of local worker processes: ``$AFFIDAVIT_WORKERS``, else every core.

    Args:
        env: The environment to read (default ``os.environ``).

    Raises:
        ValueError: For a bad ``$AFFIDAVIT_WORKERS`` (:func:`parse_workers`).
    """
    n = parse_workers((os.environ if env is None else env).get(WORKERS_ENV))
    if n is not None:
        return n
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
