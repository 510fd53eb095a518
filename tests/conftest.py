"""Shared test set-up."""

from __future__ import annotations

import os
from typing import Any

import pytest


def pytest_configure(config):
    """Settings every test shares."""
    from django.conf import settings

    # Winnable top-ups (games.winnable_pool) run only in the tests that ask for them with
    # override_settings: a background thread's committed rows would leak into other tests.
    settings.WINNABLE_POOL_LOW = 0


@pytest.fixture(scope="module")
def daphne_env(django_db_setup: Any) -> tuple[str, str]:
    """The test database's URL and Redis's, for real Daphne processes
    (tests/realtime_helpers.py, ``Daphne``)."""
    from django.db import connection

    from tests.realtime_helpers import database_url

    redis_url = os.environ.get("REDIS_URL")
    assert redis_url, "these tests need Redis: run them with make test (REDIS_URL)"
    return database_url(connection.settings_dict), redis_url


@pytest.fixture(scope="module")
def daphne_pool(daphne_env: tuple[str, str]):
    """Two Daphne processes shared by the module's tests, stopped at its end."""
    from tests.realtime_helpers import start_daphnes

    pool = start_daphnes(2, *daphne_env)
    yield pool
    for server in pool:
        server.stop()
