"""Shared fixtures: offline Prefect settings, the shared data folder, a warehouse on tmp_path."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

# Prefect must run offline, without analytics, under a throwaway home: set before it is imported.
_PREFECT_HOME = tempfile.mkdtemp(prefix="affidavit-prefect-")
atexit.register(shutil.rmtree, _PREFECT_HOME, ignore_errors=True)
os.environ.setdefault("PREFECT_HOME", _PREFECT_HOME)
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "120")

# Property tests have no per-example time limit: on a loaded machine (CI shares its cores) one
# slow example is not a failure; speed is measured by the benchmarks, not asserted.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("affidavit", deadline=None)
_hypothesis_settings.load_profile("affidavit")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SHARED_DATA = SHARED / "data"
SHARED_BENCH = SHARED / "bench"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Return ``../shared/data``, or skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"real data folder {SHARED_DATA} is absent (it sits beside the repository)")
    return SHARED_DATA


@pytest.fixture
def warehouse(tmp_path: Path):  # noqa: ANN201
    """A fresh warehouse under ``tmp_path``."""
    from affidavit.warehouse.home import resolve_home
    from affidavit.warehouse.store import Warehouse

    return Warehouse(resolve_home(tmp_path / "home"))


@pytest.fixture(scope="session")
def prefect_harness():  # noqa: ANN201
    """Run flows against one temporary Prefect database for the whole session.

    Its server start costs seconds, and more on a loaded machine: hence the 120 s allowance.
    """
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield
