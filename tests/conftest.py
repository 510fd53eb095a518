"""Shared test set-up."""


def pytest_configure(config):
    """Settings every test shares."""
    from django.conf import settings

    # Winnable top-ups (games.winnable_pool) run only in the tests that ask for them with
    # override_settings: a background thread's committed rows would leak into other tests.
    settings.WINNABLE_POOL_LOW = 0
