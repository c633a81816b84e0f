"""One Prefect test harness for the whole session (its server start costs seconds)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def prefect_harness():  # noqa: ANN201
    """Run flows against a temporary Prefect database for the whole session."""
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=120):
        yield
