"""docker-compose.yml runs the production-like stack: Postgres, Redis, migrations on
start, and two Daphne processes sharing them."""

import os
import shutil
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_compose_file_describes_the_stack():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert {"postgres", "redis", "migrate", "web1", "web2"} <= set(services)
    assert services["migrate"]["command"][-2:] == ["migrate", "--noinput"]
    for web in ("web1", "web2"):
        assert services[web]["command"][0] == "daphne"
        assert services[web]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        env = services[web]["environment"]
        assert env["DATABASE_URL"].startswith("postgres://") and env["REDIS_URL"].startswith("redis://")
        assert "?" in env["SECRET_KEY"], "the secret comes from the environment, never from the file"
    assert {p for web in ("web1", "web2") for p in services[web]["ports"]} == {"8001:8000", "8002:8000"}


def test_compose_config_validates_with_the_installed_client():
    """`docker compose config` (v2 plugin) or `docker-compose config` (v1): whichever
    client this machine has validates the file; no engine is needed."""
    if shutil.which("docker") and subprocess.run(["docker", "compose", "version"], capture_output=True).returncode == 0:
        command = ["docker", "compose", "config", "--quiet"]
    else:
        assert shutil.which("docker-compose"), "no compose client: apt-get install docker-compose"
        command = ["docker-compose", "config", "--quiet"]
    result = subprocess.run(command, cwd=ROOT, env={**os.environ, "SECRET_KEY": "x"},
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    missing = subprocess.run(command, cwd=ROOT, env={k: v for k, v in os.environ.items() if k != "SECRET_KEY"},
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode != 0 and "SECRET_KEY" in missing.stderr
