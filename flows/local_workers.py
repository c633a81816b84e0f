"""How many local worker processes: ``--workers`` or ``$AFFIDAVIT_WORKERS``, else every core.

Light imports only: the CLI checks ``$AFFIDAVIT_WORKERS`` with this before Prefect starts, so a
bad value is one line in a second, not an error after Prefect's start-up.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = ["WORKERS_ENV", "WORKERS_PER_CORE", "check_workers", "default_workers", "max_workers",
           "parse_workers", "usable_cores"]

WORKERS_ENV = "AFFIDAVIT_WORKERS"
"""Environment variable naming the local worker processes of the research and audit batches."""

WORKERS_PER_CORE = 4
"""Most worker processes per core this process may run on (``--workers``, ``$AFFIDAVIT_WORKERS``).

A research batch is CPU work (the lexical judge, the archive's BM25 index) except while it waits
on web search or an LLM endpoint; more processes than cores keep the cores busy through those
waits, and four a core covers batches that wait three quarters of their time. Past that the
processes only queue for the cores, and each is a fresh interpreter that imports the research
stage (about 140 MB resident, measured on the 2-core machine of the tests), so a mistyped
``--workers 100000`` would start as many processes as there are batches (or, with
``--dask local``, that many Dask workers). A choice, not a measurement of a best value: the
default (every core) is what the fan-out benchmark measures."""


def usable_cores() -> int:
    """Return the cores this process may run on (its CPU affinity; else the machine's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def max_workers(cores: int | None = None) -> int:
    """Return the most worker processes accepted: :data:`WORKERS_PER_CORE` per core.

    Args:
        cores: The cores to count (default :func:`usable_cores`).

    >>> max_workers(2)
    8
    """
    return WORKERS_PER_CORE * (cores if cores is not None else usable_cores())


def check_workers(n: int, *, given: str = WORKERS_ENV, cores: int | None = None) -> int:
    """Refuse a number of worker processes below 1 or above :func:`max_workers`; return it.

    Args:
        n: The number asked for.
        given: Where it was given, for the message (``--workers``, ``AFFIDAVIT_WORKERS``).
        cores: The cores to count (default :func:`usable_cores`).

    Raises:
        ValueError: For ``n`` < 1, or ``n`` over :data:`WORKERS_PER_CORE` per core.

    >>> check_workers(8, cores=2)
    8
    >>> try:
    ...     check_workers(100000, given="--workers", cores=2)
    ... except ValueError as exc:
    ...     print(str(exc).split(" (leave")[0])
    --workers must be at most 8 (4 per core, 2 cores here), got 100000
    """
    unset = "leave it out" if given.startswith("-") else "unset it"
    if n < 1:
        raise ValueError(f"{given} must be at least 1, got {n} ({unset} for every core)")
    cores = cores if cores is not None else usable_cores()
    bound = max_workers(cores)
    if n > bound:
        raise ValueError(f"{given} must be at most {bound} ({WORKERS_PER_CORE} per core, "
                         f"{cores} core{'s' if cores != 1 else ''} here), got {n} ({unset} "
                         "for every core)")
    return n


def parse_workers(raw: str | None, *, cores: int | None = None) -> int | None:
    """Read a ``$AFFIDAVIT_WORKERS`` value: a whole number from 1 to :func:`max_workers`.

    Surrounding blanks are ignored; an empty value is unset (None).

    Args:
        raw: The variable's value (None: unset).
        cores: The cores to count (default :func:`usable_cores`).

    Raises:
        ValueError: For a value that is not a whole number, is below 1, or is over
            :data:`WORKERS_PER_CORE` per core (:func:`check_workers`).

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
    return check_workers(n, given=WORKERS_ENV, cores=cores)


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
    return usable_cores()
