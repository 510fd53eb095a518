"""The production topology on this machine, without Docker: nginx (TLS, one public
port, least connections) in front of N web processes (config.serve: Daphne with a
graceful drain), Celery solver workers, and the local PostgreSQL and Redis.

    python -m deploy.stack up            # make stack: runs until Ctrl-C, then stops cleanly
    python -m deploy.stack down          # make stack-stop, from another terminal
    python -m deploy.stack restart-web   # make stack-restart: a rolling restart

The tests start the same Stack on free ports (tests/stack_helpers.py)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import shutil
import signal
import ssl
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from string import Template
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = ROOT / "deploy" / "nginx" / "klondike.conf.template"
PYTHON = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable
STOP_SECONDS = 30.0
# nginx keeps a process that refused a connection out of rotation this long; a rolling
# restart waits as long after each process is back, so two are never out at once.
FAIL_TIMEOUT_SECONDS = 3


@dataclass
class StackConfig:
    run_dir: Path = ROOT / ".stack"
    port: int = 8443
    web_ports: list[int] = field(default_factory=lambda: [8101, 8102, 8103])
    workers: int = 2
    worker_concurrency: int = 1
    # nginx closes a socket quiet for this long; clients ping every 20 s.
    socket_idle_seconds: int = 75
    database_url: str = "postgres://postgres@127.0.0.1:5432/klondike_stack"
    redis_url: str = "redis://127.0.0.1:6379/3"          # the channel layer
    cache_url: str = "redis://127.0.0.1:6379/4"          # throttles, tickets, locks
    broker_url: str = "redis://127.0.0.1:6379/5"         # solver jobs
    extra_env: dict[str, str] = field(default_factory=dict)
    worker_args: list[str] = field(default_factory=list)  # more `celery worker` options

    @property
    def origin(self) -> str:
        return f"https://localhost:{self.port}"


class Stack:
    def __init__(self, config: StackConfig) -> None:
        self.config = config
        self.run_dir = config.run_dir
        self.logs = self.run_dir / "logs"
        self.webs: dict[int, subprocess.Popen] = {}
        self.workers: dict[int, subprocess.Popen] = {}
        self.nginx: subprocess.Popen | None = None

    # -- set-up ------------------------------------------------------------------

    def env(self) -> dict[str, str]:
        c = self.config
        hosts = "localhost,127.0.0.1"
        return {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "PYTHONUNBUFFERED": "1",
                "DATABASE_URL": c.database_url, "REDIS_URL": c.redis_url, "REDIS_CACHE_URL": c.cache_url,
                "SOLVER_BROKER_URL": c.broker_url, "SECRET_KEY": self.secret_key(), "DEBUG": "false",
                "HTTPS": "true", "TRUSTED_PROXIES": "1", "ALLOWED_HOSTS": hosts,
                "CSRF_TRUSTED_ORIGINS": f"https://localhost:{c.port},https://127.0.0.1:{c.port}",
                "ACCESS_LOG": "true", "LOG_FORMAT": "json", "WHITENOISE_USE_FINDERS": "true",
                **c.extra_env}

    def secret_key(self) -> str:
        """This stack's own, made once and kept in the run folder (never in the repository)."""
        path = self.run_dir / "secret_key"
        if not path.exists():
            path.write_text(secrets.token_urlsafe(50))
            path.chmod(0o600)
        return path.read_text().strip()

    def prepare(self) -> None:
        for folder in (self.run_dir, self.logs, self.run_dir / "tls", self.run_dir / "nginx-tmp",
                       self.run_dir / "nginx-cache"):
            folder.mkdir(parents=True, exist_ok=True)
        if os.geteuid() == 0:  # nginx's workers run as nobody: they write the cache and temp files
            self.run_dir.chmod(0o755)
            for folder in (self.run_dir / "nginx-tmp", self.run_dir / "nginx-cache"):
                shutil.chown(folder, "nobody", "nogroup")
        self.make_certificate()
        self.write_nginx_conf()

    def make_certificate(self) -> None:
        """A self-signed certificate for localhost (docs/operations.md says how to use a real one)."""
        from deploy.certificate import make_certificate

        make_certificate(self.run_dir / "tls")

    def write_nginx_conf(self) -> None:
        upstreams = "\n    ".join(f"server 127.0.0.1:{port} max_fails=1 fail_timeout={FAIL_TIMEOUT_SECONDS}s;"
                                   for port in self.config.web_ports)
        site = Template(TEMPLATE.read_text()).safe_substitute(
            KLONDIKE_UPSTREAMS=upstreams, KLONDIKE_PORT=str(self.config.port),
            KLONDIKE_TLS_CERT=str(self.run_dir / "tls" / "cert.pem"),
            KLONDIKE_TLS_KEY=str(self.run_dir / "tls" / "key.pem"),
            KLONDIKE_CACHE_DIR=str(self.run_dir / "nginx-cache"),
            KLONDIKE_ACCESS_LOG=str(self.logs / "nginx-access.log"),
            KLONDIKE_SOCKET_IDLE_SECONDS=str(self.config.socket_idle_seconds))
        (self.run_dir / "klondike.conf").write_text(site)
        tmp = self.run_dir / "nginx-tmp"
        (self.run_dir / "nginx.conf").write_text(f"""\
daemon off;
worker_processes 2;
pid {self.run_dir / 'nginx.pid'};
error_log {self.logs / 'nginx-error.log'} warn;
events {{ worker_connections 4096; }}
http {{
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {self.run_dir / 'klondike.conf'};
}}
""")

    def migrate(self) -> None:
        ensure_database(self.config.database_url)
        subprocess.run([PYTHON, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=self.env(), check=True,
                       stdout=subprocess.DEVNULL)

    # -- processes ---------------------------------------------------------------

    def _spawn(self, name: str, command: list[str]) -> subprocess.Popen:
        log = open(self.logs / f"{name}.log", "ab")
        return subprocess.Popen(command, cwd=ROOT, env=self.env(), stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)

    def start_web(self, index: int) -> None:
        port = self.config.web_ports[index]
        self.webs[index] = self._spawn(f"web{index + 1}", [
            PYTHON, "-m", "config.serve", "-b", "127.0.0.1", "-p", str(port), "--access-log", os.devnull,
            "config.asgi:application"])

    def start_worker(self, index: int) -> None:
        self.workers[index] = self._spawn(f"worker{index + 1}", [
            PYTHON, "-m", "celery", "-A", "config", "worker", "-Q", "solver", "-n", f"solver{index + 1}@%h",
            "--concurrency", str(self.config.worker_concurrency), "--prefetch-multiplier", "1",
            "--without-gossip", "--without-mingle", "--loglevel", "INFO", *self.config.worker_args])

    def start_nginx(self) -> None:
        self.nginx = self._spawn("nginx", [shutil.which("nginx") or "/usr/sbin/nginx", "-c", str(self.run_dir / "nginx.conf"), "-p", str(self.run_dir)])

    def wait_web_ready(self, index: int, timeout: float = 60.0) -> None:
        url = f"http://127.0.0.1:{self.config.web_ports[index]}/readyz"
        wait_until(lambda: http_ok(url), timeout, f"web{index + 1} /readyz", self.webs[index], self.logs)

    def wait_proxy_ready(self, timeout: float = 30.0) -> None:
        wait_until(lambda: http_ok(f"{self.config.origin}/readyz"), timeout, "nginx", self.nginx, self.logs)

    def wait_workers_ready(self, timeout: float = 60.0) -> None:
        """Every worker answers Celery's ping."""
        names = {f"solver{i + 1}" for i in self.workers}

        def all_answer() -> bool:
            done = subprocess.run([PYTHON, "-m", "celery", "-A", "config", "inspect", "ping", "--timeout", "1",
                                   "--json"], cwd=ROOT, env=self.env(), capture_output=True, text=True)
            return all(name in done.stdout for name in names)

        wait_until(all_answer, timeout, "solver workers", None, self.logs)

    def up(self) -> None:
        self.prepare()
        self.migrate()
        for index in range(len(self.config.web_ports)):
            self.start_web(index)
        for index in range(self.config.workers):
            self.start_worker(index)
        for index in range(len(self.config.web_ports)):
            self.wait_web_ready(index)
        self.start_nginx()
        self.wait_proxy_ready()
        self.write_pids()

    def write_pids(self) -> None:
        pids = {"web": [p.pid for p in self.webs.values()], "worker": [p.pid for p in self.workers.values()],
                "nginx": [self.nginx.pid] if self.nginx else []}
        (self.run_dir / "pids.json").write_text(json.dumps(pids))

    def stop_web(self, index: int, *, kill: bool = False, timeout: float = STOP_SECONDS) -> int | None:
        """SIGTERM (a drain) or SIGKILL; the exit status."""
        process = self.webs[index]
        stop_process(process, signal.SIGKILL if kill else signal.SIGTERM, timeout)
        return process.returncode

    def restart_web(self, index: int) -> int | None:
        """Drain, stop and start one web process; its exit status."""
        status = self.stop_web(index)
        self.start_web(index)
        self.wait_web_ready(index)
        self.write_pids()
        return status

    def rolling_restart(self) -> list[int | None]:
        """Each web process in turn; the exit statuses (0: drained)."""
        statuses = []
        for index in range(len(self.config.web_ports)):
            statuses.append(self.restart_web(index))
            time.sleep(FAIL_TIMEOUT_SECONDS + 1)
        return statuses

    def kill_worker(self, index: int) -> None:
        """SIGKILL to the worker and its pool processes: a machine gone."""
        process = self.workers[index]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(10)

    def down(self) -> None:
        if self.nginx is not None:
            stop_process(self.nginx, signal.SIGQUIT, STOP_SECONDS)  # nginx: finish requests, then exit
        for process in [*self.webs.values(), *self.workers.values()]:
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
        for process in [*self.webs.values(), *self.workers.values()]:
            stop_process(process, signal.SIGTERM, STOP_SECONDS)
        with contextlib.suppress(FileNotFoundError):
            (self.run_dir / "pids.json").unlink()


# -- helpers ---------------------------------------------------------------------------

def stop_process(process: subprocess.Popen, signum: int, timeout: float) -> None:
    if process.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signum)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(10)


_insecure = ssl.create_default_context()
_insecure.check_hostname = False
_insecure.verify_mode = ssl.CERT_NONE  # our own self-signed certificate


def http_ok(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2, context=_insecure) as response:
            return response.status == 200
    except OSError:
        return False


def wait_until(ready: Any, timeout: float, what: str, process: subprocess.Popen | None, logs: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"{what}: the process exited ({process.returncode}); see {logs}")
        if ready():
            return
        time.sleep(0.1)
    raise RuntimeError(f"{what} was not ready within {timeout:.0f}s; see {logs}")


def ensure_database(url: str) -> None:
    """Create the stack's database on the local server if it is not there yet."""
    from urllib.parse import urlsplit

    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    admin = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
            conn.execute(f'CREATE DATABASE "{name}"')


def _signal_pids(run_dir: Path, signum: int) -> None:
    pids = json.loads((run_dir / "pids.json").read_text())
    for pid in [*pids.get("nginx", []), *pids.get("web", []), *pids.get("worker", [])]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signum)


def config_from_environment(args: argparse.Namespace) -> StackConfig:
    """The defaults of `make stack`, each changeable from the environment (the tests
    run it on free ports, in a folder and a database of their own)."""
    environ = os.environ
    ports = environ.get("STACK_WEB_PORTS")
    web_ports = [int(p) for p in ports.split(",")] if ports else [8101 + i for i in range(args.web)]
    redis = environ.get("STACK_REDIS_URL", "redis://127.0.0.1:6379").rstrip("/")
    dbs = [int(d) for d in environ.get("STACK_REDIS_DBS", "3,4,5").split(",")]
    return StackConfig(run_dir=Path(environ.get("STACK_RUN_DIR", ROOT / ".stack")), port=args.port,
                       web_ports=web_ports, workers=args.workers,
                       database_url=environ.get("STACK_DATABASE_URL", StackConfig.database_url),
                       redis_url=f"{redis}/{dbs[0]}", cache_url=f"{redis}/{dbs[1]}", broker_url=f"{redis}/{dbs[2]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["up", "down", "restart-web"])
    parser.add_argument("--port", type=int, default=int(os.environ.get("STACK_PORT", 8443)))
    parser.add_argument("--web", type=int, default=int(os.environ.get("STACK_WEB", 3)))
    parser.add_argument("--workers", type=int, default=int(os.environ.get("STACK_WORKERS", 2)))
    args = parser.parse_args()
    config = config_from_environment(args)
    if args.command == "up":
        return run_up(config)
    # The running `up` hears SIGTERM (stop everything, in order) or SIGHUP (rolling restart).
    pid_file = config.run_dir / "up.pid"
    if not pid_file.exists():
        sys.exit(f"stack: not running (no {pid_file})")
    os.kill(int(pid_file.read_text()), signal.SIGTERM if args.command == "down" else signal.SIGHUP)


def run_up(config: StackConfig) -> None:
    stack = Stack(config)
    stopping = {"now": False, "restart": False}

    def on_stop(signum: int, frame: Any) -> None:
        stopping["now"] = True

    def on_restart(signum: int, frame: Any) -> None:
        stopping["restart"] = True

    signal.signal(signal.SIGINT, on_stop)
    signal.signal(signal.SIGTERM, on_stop)
    signal.signal(signal.SIGHUP, on_restart)
    config.run_dir.mkdir(parents=True, exist_ok=True)
    (config.run_dir / "up.pid").write_text(str(os.getpid()))
    try:
        stack.up()
        print(f"stack: Klondike on {config.origin} (self-signed certificate: {config.run_dir}/tls/cert.pem)\n"
              f"stack: {len(config.web_ports)} web processes, {config.workers} solver workers; logs in "
              f"{stack.logs}\nstack: Ctrl-C or `make stack-stop` stops it; `make stack-restart` restarts "
              "the web processes one at a time", flush=True)
        while not stopping["now"]:
            if stopping["restart"]:
                stopping["restart"] = False
                print("stack: rolling restart of the web processes", flush=True)
                stack.rolling_restart()
                print("stack: rolling restart done", flush=True)
            for name, process in [*(("web", p) for p in stack.webs.values()),
                                  *(("worker", p) for p in stack.workers.values()), ("nginx", stack.nginx)]:
                if process is not None and process.poll() is not None:
                    print(f"stack: a {name} process exited ({process.returncode}); see {stack.logs}", flush=True)
                    stopping["now"] = True
            time.sleep(0.2)
    finally:
        print("stack: stopping (web processes drain first)", flush=True)
        stack.down()
        with contextlib.suppress(FileNotFoundError):
            (config.run_dir / "up.pid").unlink()
        print("stack: stopped", flush=True)


if __name__ == "__main__":
    main()
