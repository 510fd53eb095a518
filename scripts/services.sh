#!/usr/bin/env bash
# Ensure local PostgreSQL (127.0.0.1:5432, role postgres) and Redis
# (127.0.0.1:6379) are running.  Starts them if installed but down; exits 1
# with an install hint if either is missing.
set -euo pipefail

PG_HOST=127.0.0.1
PG_PORT=5432
REDIS_HOST=127.0.0.1
REDIS_PORT=6379
WAIT_SECONDS=30

die() { echo "services: $*" >&2; exit 1; }

wait_for() { # wait_for <description> <command...>
    local what=$1; shift
    local i
    for ((i = 0; i < WAIT_SECONDS; i++)); do
        if "$@" >/dev/null 2>&1; then
            return 0
        fi
        sleep 1
    done
    die "$what did not become ready within ${WAIT_SECONDS}s"
}

# --- PostgreSQL ------------------------------------------------------------
if ! command -v pg_isready >/dev/null 2>&1; then
    die "PostgreSQL is not installed: apt-get install postgresql"
fi
if pg_isready -q -h "$PG_HOST" -p "$PG_PORT"; then
    echo "services: PostgreSQL is up on $PG_HOST:$PG_PORT"
else
    command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ] \
        || die "PostgreSQL is not running and pg_ctlcluster is missing: apt-get install postgresql (or start your server on $PG_HOST:$PG_PORT)"
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    [ -n "$version" ] || die "PostgreSQL is not installed (no cluster in /etc/postgresql): apt-get install postgresql"
    echo "services: starting PostgreSQL $version/main"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start
    wait_for "PostgreSQL" pg_isready -q -h "$PG_HOST" -p "$PG_PORT"
    echo "services: PostgreSQL is up on $PG_HOST:$PG_PORT"
fi
if command -v psql >/dev/null 2>&1; then
    psql -h "$PG_HOST" -p "$PG_PORT" -U postgres -d postgres -Atqc 'SELECT 1' >/dev/null \
        || die "cannot connect to PostgreSQL as role 'postgres' on $PG_HOST:$PG_PORT (check pg_hba.conf / credentials)"
fi

# --- Redis -----------------------------------------------------------------
if ! command -v redis-cli >/dev/null 2>&1 && ! command -v redis-server >/dev/null 2>&1; then
    die "Redis is not installed: apt-get install redis-server"
fi
redis_ping() { redis-cli -h "$REDIS_HOST" -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG; }
if command -v redis-cli >/dev/null 2>&1 && redis_ping; then
    echo "services: Redis is up on $REDIS_HOST:$REDIS_PORT"
else
    command -v redis-server >/dev/null 2>&1 \
        || die "Redis is not running and redis-server is missing: apt-get install redis-server"
    command -v redis-cli >/dev/null 2>&1 \
        || die "redis-cli is missing (needed to check Redis): apt-get install redis-tools"
    echo "services: starting redis-server"
    redis-server --daemonize yes --bind "$REDIS_HOST" --port "$REDIS_PORT" --save "" --appendonly no >/dev/null
    wait_for "Redis" redis_ping
    echo "services: Redis is up on $REDIS_HOST:$REDIS_PORT"
fi
