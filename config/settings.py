"""Django settings for the Klondike service.

One module, configured entirely from environment variables through the small
typed helpers below.  Every helper raises ``ImproperlyConfigured`` with a
message naming the variable and the accepted values, so a bad deployment fails
at import time instead of misbehaving later.

Helpers take an optional ``environ`` mapping (defaults to ``os.environ``) so
they can be unit-tested without touching the process environment.

Variables
---------
SECRET_KEY      required unless DEBUG is true (then a fixed dev key is used)
DEBUG           bool, default false
ALLOWED_HOSTS   comma-separated, default "127.0.0.1,localhost"
CSRF_TRUSTED_ORIGINS  comma-separated, default empty
DATABASE_URL    postgres://user:pass@host:port/name or sqlite:///path;
                unset -> SQLite file db.sqlite3 at the project root
DB_POOL_MIN_SIZE, DB_POOL_MAX_SIZE  PostgreSQL connections per process, default 2 and 10
DB_POOL_TIMEOUT float seconds a request waits for a pooled connection (then 503), default 3
DB_CONNECT_TIMEOUT int seconds one connect attempt may take, default 3
DB_THREADS      int, threads per process for WebSocket database calls, default 2
HTTP_THREADS    int, HTTP requests a process runs at once, default 4 (the others wait
                their turn up to DB_POOL_TIMEOUT, then 503 database_busy)
CHANNEL_LAYER   pubsub (default) | lists: which channels_redis layer REDIS_URL uses
REDIS_URL       redis://host:port/db; unset -> in-memory channel layer
REDIS_CACHE_URL redis://host:port/db for the cache (throttles); default REDIS_URL
TRUSTED_PROXIES the proxies in front that may vouch for the client's address:
                a count ("1") or networks ("10.0.0.0/8,127.0.0.1"); default none
LOBBY_IDLE_SECONDS  int, a live game without a move for this long leaves the lobby's lists,
                default 300
GAME_ABANDON_HOURS  float, a live game without a move for this long is marked abandoned,
                default 24
MATCH_WAVE_SECONDS  float, how often a process with sockets waiting for a quick match
                runs a matchmaking wave, default 0.5
ACCESS_LOG      bool, default false: one log line per request and socket (klondike.access)
LOG_FORMAT      json | text: the log lines' form; default json, text with DEBUG
DRAIN_SECONDS   float, default 10: the longest a web process drains on SIGTERM (config/serve.py)
SOLVER_BROKER_URL redis://host:port/db: solver jobs go to Celery workers on it; unset, they run
                in a process pool inside each web process (make run)
SOLVER_QUEUE    int, solver jobs queued or running per process, default 4
THROTTLE_SOLVER, THROTTLE_SOLVER_ADDRESS  hints and Completes per player / per address
WINNABLE_POOL_LOW, WINNABLE_POOL_HIGH  the stock of winnable deals per mode: top-up marks
HTTPS           bool, default false: TLS is in front (secure cookies, HSTS, http redirected)
HSTS_SECONDS    int, default one year with HTTPS, else 0
HSTS_PRELOAD    bool, default false
THROTTLE_SOCKET_TICKET, THROTTLE_TOKENS  socket tickets and token creations per client
TOKEN_LAST_USED_EVERY  int seconds between writes of a token's last use, default 300
SOCKET_TICKET_SECONDS  int, how long a socket ticket is good for, default 30
SESSION_SEEN_EVERY  int seconds between writes of a session's last-seen time, default 300
EMAIL_HOST, EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD, EMAIL_USE_TLS  SMTP for the
                service's mail; EMAIL_HOST unset -> mail is printed on the console
DEFAULT_FROM_EMAIL  the sender, default "Klondike <no-reply@klondike.localhost>"
SITE_URL        the origin links in mail use (e.g. https://klondike.example); default: the
                address the request came to
PASSWORD_RESET_TIMEOUT  int seconds a reset link works, default 3600
EMAIL_VERIFY_SECONDS  int seconds an email verification link works, default 3 days
THROTTLE_PASSWORD_RESET  reset requests per client address, default 5/hour
USERNAME_RESERVED_DAYS  int, days a deleted account's name stays reserved, default 30
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

from config.client_address import TrustedProxies
from telemetry.logs import keep_context_on_records

BASE_DIR = Path(__file__).resolve().parent.parent

_MISSING = object()
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


# ---------------------------------------------------------------------------
# Typed environment helpers
# ---------------------------------------------------------------------------


def _raw(name: str, environ: Mapping[str, str] | None) -> str | None:
    """Return the stripped value of ``name`` or None if unset/empty."""
    env = os.environ if environ is None else environ
    value = env.get(name)
    if value is None:
        return None
    value = value.strip()
    return value or None


def env_str(name: str, default=_MISSING, *, environ: Mapping[str, str] | None = None) -> str:
    value = _raw(name, environ)
    if value is None:
        if default is _MISSING:
            raise ImproperlyConfigured(f"Environment variable {name} is required but not set.")
        return default
    return value


def env_bool(name: str, default=_MISSING, *, environ: Mapping[str, str] | None = None) -> bool:
    value = _raw(name, environ)
    if value is None:
        if default is _MISSING:
            raise ImproperlyConfigured(f"Environment variable {name} is required but not set.")
        return default
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(
        f"Environment variable {name}={value!r} is not a boolean; "
        f"use one of {sorted(_TRUE)} or {sorted(_FALSE)}."
    )


def env_int(name: str, default=_MISSING, *, environ: Mapping[str, str] | None = None) -> int:
    value = _raw(name, environ)
    if value is None:
        if default is _MISSING:
            raise ImproperlyConfigured(f"Environment variable {name} is required but not set.")
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(
            f"Environment variable {name}={value!r} is not an integer."
        ) from None


def env_float(name: str, default=_MISSING, *, environ: Mapping[str, str] | None = None) -> float:
    value = _raw(name, environ)
    if value is None:
        if default is _MISSING:
            raise ImproperlyConfigured(f"Environment variable {name} is required but not set.")
        return default
    try:
        return float(value)
    except ValueError:
        raise ImproperlyConfigured(f"Environment variable {name}={value!r} is not a number.") from None


def env_list(name: str, default=_MISSING, *, environ: Mapping[str, str] | None = None) -> list[str]:
    """Comma-separated list; blank items are dropped. ``default`` may be a str or list."""
    value = _raw(name, environ)
    if value is None:
        if default is _MISSING:
            raise ImproperlyConfigured(f"Environment variable {name} is required but not set.")
        if isinstance(default, str):
            value = default
        else:
            return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


_RATE_PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def env_rate(name: str, default=_MISSING, *, environ: Mapping[str, str] | None = None) -> str:
    """A rate limit in DRF's form, ``20/min``: a positive count, then s, m, h or d
    (``sec``, ``minute``, ``hour``, ``day`` too: the first letter counts)."""
    value = env_str(name, default, environ=environ)
    count, _, period = value.partition("/")
    if not (count.isdigit() and int(count) > 0 and period[:1] in _RATE_PERIODS):
        raise ImproperlyConfigured(
            f"Environment variable {name}={value!r} is not a rate; use a count per s, min, hour or day, e.g. 20/min."
        )
    return value


# ---------------------------------------------------------------------------
# DATABASE_URL / REDIS_URL
# ---------------------------------------------------------------------------

_POSTGRES_SCHEMES = {"postgres", "postgresql", "pgsql"}
# Django's PostgreSQL backend with a pool that tells busy from unreachable (database/).
POSTGRES_ENGINE = "database.postgresql"


def parse_database_url(url: str, *, base_dir: Path = BASE_DIR) -> dict:
    """Turn a DATABASE_URL into a Django ``DATABASES['default']`` dict.

    Supported:
      postgres://user:pass@host:port/name[?sslmode=require&...]
      sqlite:///relative/path.sqlite3   (relative to the project root)
      sqlite:////absolute/path.sqlite3
      sqlite:///:memory:
    """
    if url.startswith("sqlite:"):
        if not url.startswith("sqlite:///"):
            raise ImproperlyConfigured(
                f"DATABASE_URL {url!r}: SQLite URLs must look like sqlite:///path "
                "(three slashes; four for an absolute path)."
            )
        path = url[len("sqlite:///"):]
        if not path:
            raise ImproperlyConfigured(f"DATABASE_URL {url!r}: missing SQLite file path.")
        if path != ":memory:" and not os.path.isabs(path):
            path = str(base_dir / path)
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": path}

    parts = urlsplit(url)
    if parts.scheme not in _POSTGRES_SCHEMES:
        raise ImproperlyConfigured(
            f"DATABASE_URL scheme {parts.scheme!r} is not supported; "
            "use postgres://user:pass@host:port/name or sqlite:///path."
        )
    name = unquote(parts.path.lstrip("/"))
    if not name:
        raise ImproperlyConfigured(f"DATABASE_URL {url!r}: missing database name.")
    try:
        port = parts.port
    except ValueError:
        raise ImproperlyConfigured(f"DATABASE_URL {url!r}: port is not a valid number.") from None
    config = {
        "ENGINE": POSTGRES_ENGINE,
        "NAME": name,
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": unquote(parts.hostname or ""),
        "PORT": str(port) if port else "",
    }
    options = dict(parse_qsl(parts.query))
    if options:
        config["OPTIONS"] = options
    return config


def pool_options(*, environ: Mapping[str, str] | None = None) -> dict:
    """Django's psycopg pool per process (database/pool.py): at most DB_POOL_MAX_SIZE
    connections, so a deployment holds at most that times its processes; a request
    waits DB_POOL_TIMEOUT seconds for one, then gets 503 database_busy."""
    min_size = env_int("DB_POOL_MIN_SIZE", 2, environ=environ)
    max_size = env_int("DB_POOL_MAX_SIZE", 10, environ=environ)
    timeout = env_float("DB_POOL_TIMEOUT", 3.0, environ=environ)
    connect_timeout = env_int("DB_CONNECT_TIMEOUT", 3, environ=environ)
    if not 0 <= min_size <= max_size or max_size < 1:
        raise ImproperlyConfigured(
            f"DB_POOL_MIN_SIZE={min_size} and DB_POOL_MAX_SIZE={max_size}: need 0 <= min <= max and max >= 1."
        )
    if timeout <= 0 or connect_timeout < 1:
        raise ImproperlyConfigured(
            f"DB_POOL_TIMEOUT={timeout} must be above 0 and DB_CONNECT_TIMEOUT={connect_timeout} at least 1."
        )
    return {
        "pool": {"min_size": min_size, "max_size": max_size, "timeout": timeout},
        # libpq's bound on one connect attempt: an unreachable host is told in seconds.
        "connect_timeout": connect_timeout,
    }


def database_config(*, environ: Mapping[str, str] | None = None, base_dir: Path = BASE_DIR) -> dict:
    url = _raw("DATABASE_URL", environ)
    if url is None:
        config = {"ENGINE": "django.db.backends.sqlite3", "NAME": str(base_dir / "db.sqlite3")}
    else:
        config = parse_database_url(url, base_dir=base_dir)
    if _raw("DB_CONN_MAX_AGE", environ) not in (None, "0"):
        raise ImproperlyConfigured(
            "DB_CONN_MAX_AGE is no longer read: under ASGI every request runs in a thread of its own, "
            "and persistent connections pile up per thread. PostgreSQL connections come from a pool "
            "per process instead; size it with DB_POOL_MAX_SIZE (docs/operations.md)."
        )
    config["CONN_MAX_AGE"] = 0
    if config["ENGINE"] == POSTGRES_ENGINE:
        config["OPTIONS"] = {**pool_options(environ=environ), **config.get("OPTIONS", {})}
        # Checked before a pooled connection is handed out (database/pool.py does it).
        config["CONN_HEALTH_CHECKS"] = True
    test_name = _raw("TEST_DATABASE_NAME", environ)
    if test_name:
        # Lets concurrent test runs on one server use their own test databases.
        config["TEST"] = {"NAME": test_name}
    return config


# Threads per process for the consumers' database calls (realtime.database_threads); each
# takes a connection from the process's pool for the length of one call.
# More threads contend for the GIL with the event loop: 2 measured best
# (bench/realtime.py, docs/performance.md).
DB_THREADS = env_int("DB_THREADS", 2)

# The lobby lists games being played (a move in the last LOBBY_IDLE_SECONDS); a game left
# for GAME_ABANDON_HOURS is over: abandoned (games.services.abandon_idle).
LOBBY_IDLE_SECONDS = env_int("LOBBY_IDLE_SECONDS", 300)
GAME_ABANDON_HOURS = env_float("GAME_ABANDON_HOURS", 24.0)

# Quick match (realtime.matchmaker): players who queue within one wave race together;
# two compatible players wait at most about one wave.
MATCH_WAVE_SECONDS = env_float("MATCH_WAVE_SECONDS", 0.5)

# Table memory each solver process keeps between searches instead of faulting fresh
# memory in again (solver/_core.c, "Table memory"); 0 keeps none.
SOLVER_TABLE_CACHE_MB = env_int("SOLVER_TABLE_CACHE_MB", 1536)

# Hints and Complete (games/solver_jobs.py): at most SOLVER_QUEUE solver jobs queued or
# running per process (2 workers × 2), beyond that 503 solver_busy; per player and per
# client address rates (games/solver_throttle.py), beyond them 429 throttled.
SOLVER_QUEUE = env_int("SOLVER_QUEUE", 4)
THROTTLE_SOLVER = env_rate("THROTTLE_SOLVER", "20/min")
THROTTLE_SOLVER_ADDRESS = env_rate("THROTTLE_SOLVER_ADDRESS", "60/min")
# The stock of proven-winnable deals per mode (games/winnable_pool.py): below LOW a
# background top-up solves fresh deals until HIGH.
WINNABLE_POOL_LOW = env_int("WINNABLE_POOL_LOW", 20)
WINNABLE_POOL_HIGH = env_int("WINNABLE_POOL_HIGH", 50)
# Solver jobs on Celery workers (games/solver_jobs.py, games/tasks.py) when a broker is
# set; without one, a process pool inside each web process runs them (make run).
SOLVER_BROKER_URL = _raw("SOLVER_BROKER_URL", None)
SOLVER_JOB_QUEUE = "solver"
CELERY_BROKER_URL = SOLVER_BROKER_URL or "memory://"
CELERY_TASK_DEFAULT_QUEUE = SOLVER_JOB_QUEUE
CELERY_TASK_IGNORE_RESULT = True  # answers go back on a Redis list of their own (solver_jobs)
# A job is acknowledged once done: a job whose worker dies is given to another (tasks.py
# counts the tries), and a worker takes one job per free process, never a backlog.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_TIMEOUT = 2
# A job whose whole worker was killed is handed out again after this (Redis transport).
# It must exceed the longest job (Complete's budget and the hard limit's grace, 13 s),
# or a job still running would be handed out twice. Checked every 2 s.
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env_int("SOLVER_REDELIVER_SECONDS", 20),
                                   "unacked_restore_interval": 2, "unacked_restore_throttle": 1}
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
if SOLVER_QUEUE < 1:
    raise ImproperlyConfigured(f"SOLVER_QUEUE={SOLVER_QUEUE} must be at least 1.")
if not 0 <= WINNABLE_POOL_LOW <= WINNABLE_POOL_HIGH:
    raise ImproperlyConfigured(
        f"WINNABLE_POOL_LOW={WINNABLE_POOL_LOW} and WINNABLE_POOL_HIGH={WINNABLE_POOL_HIGH}: "
        "need 0 <= WINNABLE_POOL_LOW <= WINNABLE_POOL_HIGH."
    )

CHANNEL_LAYER_CAPACITY = 1000
CHANNEL_LAYER_EXPIRY = 60  # seconds a message may sit unread in Redis


CHANNEL_LAYER_KINDS = {
    "pubsub": "channels_redis.pubsub.RedisPubSubChannelLayer",
    "lists": "channels_redis.core.RedisChannelLayer",
}


def channel_layers_config(*, environ: Mapping[str, str] | None = None) -> dict:
    """The channel layer: in memory without REDIS_URL; with it, Redis pub/sub by
    default (a group message is published once and fanned out in each process, not
    queued once per member; bench/realtime.py measured the difference), or the
    list-based layer (``CHANNEL_LAYER=lists``) with a sized capacity. Neither is
    relied on for delivery: sequence numbers and Postgres fill any gap."""
    url = _raw("REDIS_URL", environ)
    if url is None:
        return {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    scheme = urlsplit(url).scheme
    if scheme not in {"redis", "rediss", "unix"}:
        raise ImproperlyConfigured(
            f"REDIS_URL scheme {scheme!r} is not supported; use redis://host:port/db."
        )
    kind = env_str("CHANNEL_LAYER", "pubsub", environ=environ)
    if kind not in CHANNEL_LAYER_KINDS:
        raise ImproperlyConfigured(f"CHANNEL_LAYER must be one of {', '.join(CHANNEL_LAYER_KINDS)}, not {kind!r}.")
    config: dict = {"hosts": [url]}
    if kind == "lists":
        config.update(capacity=CHANNEL_LAYER_CAPACITY, expiry=CHANNEL_LAYER_EXPIRY)
    return {"default": {"BACKEND": CHANNEL_LAYER_KINDS[kind], "CONFIG": config}}


def cache_config(*, environ: Mapping[str, str] | None = None) -> dict:
    """Redis when REDIS_CACHE_URL or REDIS_URL is set (throttles must be shared by
    every process), otherwise the per-process memory cache. A separate database
    number for the cache keeps a cache flush away from the channel layer."""
    url = _raw("REDIS_CACHE_URL", environ) or _raw("REDIS_URL", environ)
    if url is None:
        return {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    return {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url,
                        "KEY_PREFIX": "klondike"}}


def secret_key(debug: bool, *, environ: Mapping[str, str] | None = None) -> str:
    if debug:
        return env_str("SECRET_KEY", "django-insecure-dev-only-key-do-not-use-in-production", environ=environ)
    value = _raw("SECRET_KEY", environ)
    if value is None:
        raise ImproperlyConfigured(
            "SECRET_KEY must be set when DEBUG is false (set DEBUG=true for local development)."
        )
    return value


# ---------------------------------------------------------------------------
# Settings
# ---------------------------------------------------------------------------

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = secret_key(DEBUG)
# Who may say who the client is (config.client_address): unset, the socket's peer.
TRUSTED_PROXIES = env_str("TRUSTED_PROXIES", "")
TrustedProxies.parse(TRUSTED_PROXIES)  # a bad value fails at start-up, naming the variable
ACCESS_LOG = env_bool("ACCESS_LOG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "knox",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "django_otp.plugins.otp_static",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "csp",
    "games",
    "races",
    "realtime",
    "accounts",
    "leaderboards",
    "matchmaking",
    "frontend",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.security_headers.ContentSecurityPolicyMiddleware",
    # Outside the rest, so it sees their error pages too; inside the two above, so its
    # answers get their headers (api/error_middleware.py).
    "api.error_middleware.JsonApiErrorsMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After the session, before Common (Django's order): the language of the request.
    "django.middleware.locale.LocaleMiddleware",
    "api.error_middleware.CommonMiddleware",  # Django's, without slash redirects under /api/
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.SessionSeenMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, so its process_exception is asked first: a database outage is a 503.
    "database.middleware.DatabaseOutageMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

DATABASES = {"default": database_config()}
# HTTP requests a process runs at once, each on a thread of its own with its database
# connection (config/http_handler.py): fewer threads contend less for the GIL. The
# others wait their turn on the event loop, as long as a request may wait for a pooled
# connection. HTTP_THREADS + DB_THREADS should not exceed DB_POOL_MAX_SIZE.
HTTP_THREADS = env_int("HTTP_THREADS", 4)
HTTP_WAIT_TIMEOUT = env_float("DB_POOL_TIMEOUT", 3.0)
if HTTP_THREADS < 1 or HTTP_WAIT_TIMEOUT <= 0:
    raise ImproperlyConfigured(f"HTTP_THREADS={HTTP_THREADS} must be at least 1 and DB_POOL_TIMEOUT above 0.")
REDIS_URL = _raw("REDIS_URL", None)
CHANNEL_LAYERS = channel_layers_config()
CACHES = cache_config()

AUTH_USER_MODEL = "accounts.User"

# The daily deals are derived from this secret and the date (leaderboards.services).
DAILY_SECRET = env_str("DAILY_SECRET", "") or None

PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: an anonymous API call then gets 401 with WWW-Authenticate.
        "accounts.authentication.AccessTokenAuthentication",
        "accounts.authentication.SessionAuthenticationWithGuestCsrf",
    ],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "api.schema.ErrorDocumentingSchema",
    "EXCEPTION_HANDLER": "api.error_responses.exception_handler",
    # Throttles key on REMOTE_ADDR, which config.client_address has already resolved
    # from TRUSTED_PROXIES; DRF must not read X-Forwarded-For itself.
    "NUM_PROXIES": 0,
    "DEFAULT_THROTTLE_RATES": {
        "login": env_str("THROTTLE_LOGIN", "10/min"),
        "signup": env_str("THROTTLE_SIGNUP", "20/hour"),
        "socket_ticket": env_str("THROTTLE_SOCKET_TICKET", "60/min"),
        "tokens": env_str("THROTTLE_TOKENS", "30/hour"),
        "password_change": env_str("THROTTLE_PASSWORD_CHANGE", "10/hour"),
        "password_reset": env_str("THROTTLE_PASSWORD_RESET", "5/hour"),
        "password_reset_confirm": env_str("THROTTLE_PASSWORD_RESET_CONFIRM", "20/hour"),
        "email_verification": env_str("THROTTLE_EMAIL_VERIFICATION", "5/hour"),
        "export": env_str("THROTTLE_EXPORT", "10/hour"),
        "account_address": env_str("THROTTLE_ACCOUNT_ADDRESS", "120/hour"),
    },
}

# Personal access tokens (accounts.tokens): django-rest-knox with its custom token
# model, stored as SHA-512 digests; the secret starts "kl_" (secret scanners can find it).
KNOX_TOKEN_MODEL = "accounts.AccessToken"
# Two-factor sign-in (accounts.two_factor): the name authenticator apps show.
OTP_TOTP_ISSUER = "Klondike"
# Knox's own migrations create its default token table even when the model is swapped
# (its migrations predate the swap): with the model swapped that table is never used.
MIGRATION_MODULES = {"knox": None}
REST_KNOX = {"TOKEN_PREFIX": "kl_", "AUTH_HEADER_PREFIX": "Token", "TOKEN_TTL": None}
# A token's last use is written at most this often (seconds), not once per request.
TOKEN_LAST_USED_EVERY = env_int("TOKEN_LAST_USED_EVERY", 300)
# A socket ticket (for clients that cannot set headers) is good for one handshake within
# this many seconds.
SOCKET_TICKET_SECONDS = env_int("SOCKET_TICKET_SECONDS", 30)
# Mail (accounts.mail): SMTP when EMAIL_HOST is set, else printed on the console (make run).
EMAIL_HOST = env_str("EMAIL_HOST", "")
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", bool(EMAIL_HOST))
EMAIL_TIMEOUT = 10
EMAIL_BACKEND = ("django.core.mail.backends.smtp.EmailBackend" if EMAIL_HOST
                 else "django.core.mail.backends.console.EmailBackend")
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Klondike <no-reply@klondike.localhost>")
# The address links in mail start with; unset: the address the request came to.
SITE_URL = env_str("SITE_URL", "").rstrip("/")
# A password-reset link works once, for this long (Django's reset tokens).
PASSWORD_RESET_TIMEOUT = env_int("PASSWORD_RESET_TIMEOUT", 3600)
EMAIL_VERIFY_SECONDS = env_int("EMAIL_VERIFY_SECONDS", 3 * 24 * 3600)
# A deleted account's name is free for a new account after this many days.
USERNAME_RESERVED_DAYS = env_int("USERNAME_RESERVED_DAYS", 30)
# A signed-in session's last-seen time in its owner's list is written at most this often.
SESSION_SEEN_EVERY = env_int("SESSION_SEEN_EVERY", 300)

SPECTACULAR_SETTINGS = {
    "TITLE": "Klondike API",
    "DESCRIPTION": "Server-validated Klondike solitaire. Errors are {\"error\": code, \"detail\": sentence}.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}

# English by default; Italian and Spanish, the languages of the rule texts (docs/i18n.md).
# The language is the cookie's (set by the switcher, and from the account at sign-in),
# else the browser's Accept-Language.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("it", "Italiano"), ("es", "Español")]
LOCALE_PATHS = [BASE_DIR / "locale"]
LANGUAGE_COOKIE_NAME = "language"
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = "UTC"
USE_I18N = True
# Numbers in pages follow the language (1,234 / 1.234).
USE_THOUSAND_SEPARATOR = True
USE_TZ = True

STATIC_URL = "static/"
# Serve static files straight from the apps (no collectstatic) in development and
# tests; production images run collectstatic.
WHITENOISE_USE_FINDERS = env_bool("WHITENOISE_USE_FINDERS", DEBUG)
WHITENOISE_AUTOREFRESH = WHITENOISE_USE_FINDERS
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"


# ---------------------------------------------------------------------------
# TLS and security headers
# ---------------------------------------------------------------------------

# HTTPS=true says TLS is in front of the service: cookies travel over https only,
# browsers are told to use nothing else (HSTS) and plain http is redirected, except
# /healthz (probes on the private port). Django knows a request came over https from
# the ASGI scope's scheme (set from X-Forwarded-Proto by the trusted-proxy middleware
# only), so SECURE_PROXY_SSL_HEADER stays unset.
HTTPS = env_bool("HTTPS", False)
SECURE_SSL_REDIRECT = HTTPS
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
LANGUAGE_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = env_int("HSTS_SECONDS", 365 * 24 * 3600 if HTTPS else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
# Preloading binds every browser for months and is undone only slowly: the operator's
# choice. Django's deploy check warns while it is off (W021); off is the decision here.
SECURE_HSTS_PRELOAD = env_bool("HSTS_PRELOAD", False)
SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The boards' covering indexes carry non-key columns (INCLUDE) for PostgreSQL's
    # index-only scans; SQLite, the embedded default of make run, ignores them.
    SILENCED_SYSTEM_CHECKS.append("models.W040")

SESSION_COOKIE_HTTPONLY = True
# The csrftoken cookie stays readable: the web app sends its value in X-CSRFToken.
SECURE_CONTENT_TYPE_NOSNIFF = True
# Same-origin requests keep their Referer (Django's CSRF check over https reads it);
# other sites get none (game and race addresses carry their ids).
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# No inline script or style anywhere (the Swagger UI included: its split view loads its
# set-up script from a URL). connect-src also gets this host's ws:/wss: origin per
# request (config.security_headers).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}

# The longest a web process drains on SIGTERM before it exits (config/serve.py).
DRAIN_SECONDS = env_float("DRAIN_SECONDS", 10.0)
keep_context_on_records()  # every log line names its request and game (telemetry.logs)
LOG_FORMAT = env_str("LOG_FORMAT", "text" if DEBUG else "json")
if LOG_FORMAT not in ("json", "text"):
    raise ImproperlyConfigured(f"LOG_FORMAT must be json or text, not {LOG_FORMAT!r}.")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "telemetry.logs.JsonFormatter"},
                   "text": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": LOG_FORMAT}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "django": {"handlers": ["console"], "level": "WARNING", "propagate": False},
        "klondike.access": {"handlers": ["console"], "level": "INFO" if ACCESS_LOG else "WARNING",
                            "propagate": False},
    },
}
