"""Tests for the environment helpers in config.settings.

The helpers are called directly with explicit ``environ`` mappings; nothing
here reloads the settings module or mutates os.environ.
"""

import asyncio
import os
import uuid
from importlib.metadata import version
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from config import settings as s


# --- scalar helpers ----------------------------------------------------------


@pytest.mark.parametrize(
    "raw, expected",
    [("true", True), ("TRUE", True), ("1", True), ("yes", True), ("on", True),
     ("false", False), ("0", False), ("No", False), ("off", False), (" true ", True)],
)
def test_env_bool_accepts_known_spellings(raw, expected):
    assert s.env_bool("DEBUG", False, environ={"DEBUG": raw}) is expected


def test_env_bool_rejects_garbage_with_clear_message():
    with pytest.raises(ImproperlyConfigured) as exc:
        s.env_bool("DEBUG", False, environ={"DEBUG": "maybe"})
    message = str(exc.value)
    assert "DEBUG" in message
    assert "'maybe'" in message
    assert "boolean" in message


def test_env_bool_default_when_unset_or_empty():
    assert s.env_bool("DEBUG", False, environ={}) is False
    assert s.env_bool("DEBUG", True, environ={"DEBUG": ""}) is True


def test_required_variable_missing_raises():
    with pytest.raises(ImproperlyConfigured, match="FOO is required"):
        s.env_str("FOO", environ={})


def test_env_int():
    assert s.env_int("N", 3, environ={}) == 3
    assert s.env_int("N", 3, environ={"N": "42"}) == 42
    with pytest.raises(ImproperlyConfigured, match=r"N='4x2' is not an integer"):
        s.env_int("N", 3, environ={"N": "4x2"})


def test_env_list():
    assert s.env_list("H", "127.0.0.1,localhost", environ={}) == ["127.0.0.1", "localhost"]
    assert s.env_list("H", [], environ={}) == []
    assert s.env_list("H", [], environ={"H": " a.example , ,b.example,"}) == ["a.example", "b.example"]


def test_secret_key_required_without_debug():
    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY must be set"):
        s.secret_key(False, environ={})
    assert s.secret_key(False, environ={"SECRET_KEY": "abc"}) == "abc"
    assert s.secret_key(True, environ={})  # fixed dev key allowed


# --- DATABASE_URL --------------------------------------------------------------


def test_postgres_url_parsed_into_django_dict():
    cfg = s.parse_database_url("postgres://alice:p%40ss@db.example:6543/klondike")
    assert cfg == {
        "ENGINE": "database.postgresql",
        "NAME": "klondike",
        "USER": "alice",
        "PASSWORD": "p@ss",
        "HOST": "db.example",
        "PORT": "6543",
    }


def test_postgres_url_minimal_and_options():
    cfg = s.parse_database_url("postgresql://postgres@127.0.0.1/klondike?sslmode=require")
    assert cfg["ENGINE"] == "database.postgresql"
    assert (cfg["USER"], cfg["PASSWORD"], cfg["HOST"], cfg["PORT"]) == ("postgres", "", "127.0.0.1", "")
    assert cfg["OPTIONS"] == {"sslmode": "require"}


@pytest.mark.parametrize(
    "url",
    ["mysql://u@h/db", "postgres://u@h/", "postgres://u@h:notaport/db", "sqlite://relative.db"],
)
def test_bad_database_urls_raise(url):
    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL"):
        s.parse_database_url(url)


def test_sqlite_urls(tmp_path):
    rel = s.parse_database_url("sqlite:///data/dev.sqlite3", base_dir=tmp_path)
    assert rel == {"ENGINE": "django.db.backends.sqlite3", "NAME": str(tmp_path / "data/dev.sqlite3")}
    absolute = s.parse_database_url("sqlite:////var/tmp/x.sqlite3", base_dir=tmp_path)
    assert absolute["NAME"] == "/var/tmp/x.sqlite3"
    assert s.parse_database_url("sqlite:///:memory:")["NAME"] == ":memory:"


def test_database_unset_is_sqlite_file_at_project_root():
    cfg = s.database_config(environ={})
    assert cfg["ENGINE"] == "django.db.backends.sqlite3"
    assert Path(cfg["NAME"]) == Path(s.BASE_DIR) / "db.sqlite3"
    assert Path(s.BASE_DIR, "manage.py").exists()
    assert cfg["CONN_MAX_AGE"] == 0


def test_postgres_connections_come_from_a_pool_per_process():
    cfg = s.database_config(environ={"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/klondike?sslmode=require"})
    assert cfg["NAME"] == "klondike"
    assert cfg["CONN_MAX_AGE"] == 0  # persistent connections are off under ASGI
    assert cfg["CONN_HEALTH_CHECKS"] is True
    assert cfg["OPTIONS"] == {"pool": {"min_size": 2, "max_size": 10, "timeout": 3.0},
                              "connect_timeout": 3, "sslmode": "require"}


def test_pool_size_and_timeouts_from_env():
    cfg = s.database_config(environ={
        "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/klondike", "DB_POOL_MIN_SIZE": "0",
        "DB_POOL_MAX_SIZE": "4", "DB_POOL_TIMEOUT": "0.5", "DB_CONNECT_TIMEOUT": "1",
    })
    assert cfg["OPTIONS"] == {"pool": {"min_size": 0, "max_size": 4, "timeout": 0.5}, "connect_timeout": 1}


@pytest.mark.parametrize("environ, message", [
    ({"DB_POOL_MIN_SIZE": "5", "DB_POOL_MAX_SIZE": "4"}, "DB_POOL_MIN_SIZE"),
    ({"DB_POOL_MAX_SIZE": "0"}, "DB_POOL_MIN_SIZE"),
    ({"DB_POOL_TIMEOUT": "0"}, "DB_POOL_TIMEOUT"),
    ({"DB_POOL_TIMEOUT": "soon"}, "DB_POOL_TIMEOUT"),
    ({"DB_CONNECT_TIMEOUT": "0"}, "DB_CONNECT_TIMEOUT"),
    ({"DB_CONN_MAX_AGE": "300"}, "DB_CONN_MAX_AGE is no longer read"),
])
def test_bad_pool_settings_raise(environ, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        s.database_config(environ={"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/klondike", **environ})


# --- REDIS_URL -----------------------------------------------------------------


def test_redis_url_gives_the_pubsub_layer_by_default():
    layers = s.channel_layers_config(environ={"REDIS_URL": "redis://127.0.0.1:6379/0"})
    assert layers["default"] == {"BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
                                 "CONFIG": {"hosts": ["redis://127.0.0.1:6379/0"]}}


def test_lists_layer_has_a_sized_capacity():
    layers = s.channel_layers_config(environ={"REDIS_URL": "redis://127.0.0.1:6379/0", "CHANNEL_LAYER": "lists"})
    default = layers["default"]
    assert default["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    assert default["CONFIG"]["hosts"] == ["redis://127.0.0.1:6379/0"]
    assert default["CONFIG"]["capacity"] == 1000
    assert default["CONFIG"]["expiry"] > 0


def test_unknown_channel_layer_raises():
    with pytest.raises(ImproperlyConfigured, match="CHANNEL_LAYER"):
        s.channel_layers_config(environ={"REDIS_URL": "redis://127.0.0.1:6379/0", "CHANNEL_LAYER": "kafka"})


def test_redis_unset_gives_in_memory_layer():
    assert s.channel_layers_config(environ={}) == {
        "default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}
    }


def test_bad_redis_url_raises():
    with pytest.raises(ImproperlyConfigured, match="REDIS_URL"):
        s.channel_layers_config(environ={"REDIS_URL": "http://127.0.0.1:6379"})


def test_installed_redis_py_is_below_8():
    # redis-py 8 breaks channels_redis; pyproject pins redis<8.
    major = int(version("redis").split(".")[0])
    assert major < 8, f"redis-py {version('redis')} installed; channels_redis needs <8"


REAL_REDIS = {"REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")}
LAYER_KINDS = pytest.mark.parametrize("kind", ["pubsub", "lists"])


async def close_layer(layer) -> None:
    if hasattr(layer, "close_pools"):
        await layer.close_pools()  # the lists layer
    else:
        await layer.flush()  # the pub/sub layer: unsubscribes and closes its connections


@LAYER_KINDS
def test_channels_redis_round_trip(kind):
    """Send and receive through a real Redis using the layer built by the settings helper."""
    layer_cfg = s.channel_layers_config(environ={**REAL_REDIS, "CHANNEL_LAYER": kind})["default"]
    assert layer_cfg["BACKEND"] == s.CHANNEL_LAYER_KINDS[kind]
    backend = import_string(layer_cfg["BACKEND"])
    payload = {"type": "test.message", "nonce": uuid.uuid4().hex}

    async def round_trip():
        layer = backend(**layer_cfg["CONFIG"])
        try:
            channel = await layer.new_channel()
            await layer.send(channel, payload)
            return await asyncio.wait_for(layer.receive(channel), timeout=5)
        finally:
            await close_layer(layer)

    assert asyncio.run(round_trip()) == payload


@LAYER_KINDS
def test_channels_redis_blocking_receive_outlives_a_socket_timeout(kind):
    """redis-py 8's 5 s socket timeout killed channels_redis' blocking read: a receive
    that waits longer than that must still get its message."""
    layer_cfg = s.channel_layers_config(environ={**REAL_REDIS, "CHANNEL_LAYER": kind})["default"]
    backend = import_string(layer_cfg["BACKEND"])
    payload = {"type": "test.late", "nonce": uuid.uuid4().hex}

    async def late_round_trip():
        receiver, sender = backend(**layer_cfg["CONFIG"]), backend(**layer_cfg["CONFIG"])
        try:
            channel = await receiver.new_channel()

            async def send_late():
                await asyncio.sleep(6.5)
                await sender.send(channel, payload)

            task = asyncio.ensure_future(send_late())
            message = await asyncio.wait_for(receiver.receive(channel), timeout=15)
            await task
            return message
        finally:
            await close_layer(receiver)
            await close_layer(sender)

    assert asyncio.run(late_round_trip()) == payload


def test_the_embedded_default_starts_without_warnings(tmp_path):
    """make run on SQLite: migrate prints no system-check warning (the boards' covering
    indexes are PostgreSQL's; W040 is silenced for SQLite only)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "REDIS_CACHE_URL")}
    env.update(DEBUG="true", DATABASE_URL=f"sqlite:///{tmp_path / 'run.sqlite3'}")
    result = subprocess.run([sys.executable, "manage.py", "migrate", "--noinput"], cwd=root, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    output = result.stdout + result.stderr
    assert "Applying games." in output and "WARNINGS" not in output and "W040" not in output, output
