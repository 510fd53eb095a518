"""A PostgreSQL server of a test's own, to stop and start in the middle of play: never
the shared server that the rest of the suite (and the machine) uses.

initdb in a temporary folder on a free port, run as the ``postgres`` user (initdb
refuses root), from Debian's ``/usr/lib/postgresql/<version>/bin``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Iterator

import pytest

from tests.realtime_helpers import ROOT, Daphne, free_port

DATABASE = "klondike"
POOL_MAX = 4  # each Daphne's pool (DB_POOL_MAX_SIZE) unless a test says otherwise


def postgres_bin() -> Path:
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if not versions:
        raise RuntimeError("PostgreSQL's server programs are not installed (/usr/lib/postgresql/<version>/bin)")
    return versions[-1].parent


class PrivatePostgres:
    def __init__(self, max_connections: int = 100) -> None:
        self.bin = postgres_bin()
        self.port = free_port()
        self.dir = Path(tempfile.mkdtemp(prefix="klondike-pg-"))
        self.data = self.dir / "data"
        self.log = self.dir / "server.log"
        self.max_connections = max_connections
        as_root = os.geteuid() == 0
        if as_root:
            shutil.chown(self.dir, "postgres", "postgres")
        self.prefix = ["runuser", "-u", "postgres", "--"] if as_root else []
        self.run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync")

    def run(self, program: str, *args: str) -> None:
        subprocess.run([*self.prefix, str(self.bin / program), *args], check=True, capture_output=True, timeout=60)

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{DATABASE}"

    def start(self) -> None:
        options = (f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 "
                   f"-c max_connections={self.max_connections} -c fsync=off")
        self.run("pg_ctl", "start", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "30", "-o", options)

    def stop(self) -> None:
        """Fast shutdown: every session is ended at once, as in a crash or a restart."""
        self.run("pg_ctl", "stop", "-D", str(self.data), "-m", "fast", "-w", "-t", "30")

    def create(self, env: dict[str, str]) -> None:
        """The project's database, migrated."""
        self.run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", DATABASE)
        manage(env, "migrate", "--noinput")

    def connect(self) -> Any:
        import psycopg

        return psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname={DATABASE}", autocommit=True)

    def backends(self, conn: Any = None) -> int:
        """Client connections to the project's database now, other than ``conn``'s.
        A watcher sampling often passes its one connection: a fresh connection per
        sample would count the previous sample's, still exiting, as a client."""
        if conn is None:
            with self.connect() as own:
                return self.backends(own)
        return conn.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                            (DATABASE,)).fetchone()[0]

    def stored_moves(self, game_id: str) -> list[int]:
        """The seqs of the game's Move rows, in order."""
        with self.connect() as conn:
            return [row[0] for row in conn.execute("SELECT seq FROM games_move WHERE game_id = %s ORDER BY seq",
                                                   (game_id,))]

    def destroy(self) -> None:
        subprocess.run([*self.prefix, str(self.bin / "pg_ctl"), "stop", "-D", str(self.data), "-m", "immediate"],
                       capture_output=True, timeout=60)
        shutil.rmtree(self.dir, ignore_errors=True)


def manage(env: dict[str, str], *args: str) -> str:
    """``manage.py`` against the private server; its output."""
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


MAKE_PLAYERS = """
import json
from django.contrib.auth import get_user_model
from accounts.tokens import issue
tokens = []
for i in range({count}):
    user = get_user_model().objects.create_user("{prefix}%d" % i)
    tokens.append(issue(user, name="test", scope="play", expires_in_days=1)[1])
print(json.dumps(tokens))
"""


class Stack:
    """The private Postgres, the tokens of its players, and Daphnes on it."""

    def __init__(self, postgres: PrivatePostgres, env: dict[str, str]) -> None:
        self.postgres, self.env = postgres, env
        self.made = 0

    def players(self, count: int) -> list[str]:
        prefix = f"p{self.made}x"
        self.made += 1
        output = manage(self.env, "shell", "--no-imports", "-c", MAKE_PLAYERS.format(count=count, prefix=prefix))
        return json.loads(output.strip().splitlines()[-1])

    def daphne(self, **settings: str) -> Daphne:
        server = Daphne(self.postgres.url, self.env["REDIS_URL"], **{"DB_POOL_MAX_SIZE": str(POOL_MAX), **settings})
        server.wait_ready()
        return server


@pytest.fixture(scope="module")
def stack(django_db_setup: Any) -> Iterator[Stack]:
    """A private Postgres, migrated, for the test module: import this fixture."""
    postgres = PrivatePostgres(max_connections=60)
    try:
        postgres.start()
        env = {**os.environ, "DATABASE_URL": postgres.url, "DJANGO_SETTINGS_MODULE": "config.settings",
               "SECRET_KEY": os.environ.get("SECRET_KEY") or "insecure-test-only-key"}
        postgres.create(env)
        yield Stack(postgres, env)
    finally:
        postgres.destroy()
