"""Shared test set-up."""


def pytest_configure(config):
    """Connections in the test process close after each use, as with
    ``DB_CONN_MAX_AGE=0``: the consumers' database threads (games.dbthreads) would
    otherwise keep theirs open, and PostgreSQL cannot drop the test database at the
    end while they are. Daphne subprocesses keep the production default; they are
    stopped before the database is dropped."""
    from django.conf import settings

    settings.DATABASES["default"]["CONN_MAX_AGE"] = 0
    settings.DATABASES["default"]["CONN_HEALTH_CHECKS"] = False
    # Winnable top-ups (games.winnable_pool) run only in the tests that ask for them with
    # override_settings: a background thread's committed rows would leak into other tests.
    settings.WINNABLE_POOL_LOW = 0
