"""The benchmarks' own database: created on the server of ``BENCH_DATABASE_URL``
(default ``postgres://postgres@127.0.0.1:5432``), migrated, and dropped by the script."""

from __future__ import annotations

import os


def server_url() -> str:
    return os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432").rstrip("/")


def admin(statement: str) -> None:
    """One statement on the server's ``postgres`` database (CREATE / DROP DATABASE)."""
    import psycopg

    with psycopg.connect(f"{server_url()}/postgres", autocommit=True) as connection:
        connection.execute(statement)


def setup_django(db_name: str, *, redis_cache: bool = True) -> None:
    """Django on ``db_name``, migrated, in production mode, without the channel layer
    (nothing a benchmark times publishes). ``redis_cache=False`` also keeps the cache in
    the process."""
    os.environ["DATABASE_URL"] = f"{server_url()}/{db_name}"
    os.environ.pop("REDIS_URL", None)
    if not redis_cache:
        os.environ.pop("REDIS_CACHE_URL", None)
    os.environ.setdefault("SECRET_KEY", "bench-only-secret-key")
    os.environ["DEBUG"] = "false"
    os.environ["ALLOWED_HOSTS"] = "testserver,127.0.0.1,localhost"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
