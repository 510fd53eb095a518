"""docker-compose.yml runs the production-like stack, the topology of `make stack`:
nginx (TLS, the one public port) in front of three draining web processes, solver
workers, migrations, Postgres and Redis, each started once what it needs is healthy."""

import os
import shutil
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def test_compose_file_describes_the_stack():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    webs = ("web1", "web2", "web3")
    assert {"postgres", "redis", "migrate", "certs", "proxy", "worker", *webs} == set(services)
    assert services["migrate"]["command"][-2:] == ["migrate", "--noinput"]
    for web in webs:
        service = services[web]
        assert service["command"][:3] == ["python", "-m", "config.serve"]
        assert service["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
        assert service["depends_on"]["postgres"]["condition"] == "service_healthy"
        assert "/readyz" in " ".join(service["healthcheck"]["test"])
        assert "ports" not in service, "only the proxy is reachable from outside"
        env = service["environment"]
        assert env["DATABASE_URL"].startswith("postgres://") and env["REDIS_URL"].startswith("redis://")
        assert env["SOLVER_BROKER_URL"].startswith("redis://") and env["TRUSTED_PROXIES"] == "1"
        assert "?" in env["SECRET_KEY"], "the secret comes from the environment, never from the file"
    worker = services["worker"]
    assert worker["command"][:5] == ["celery", "-A", "config", "worker", "-Q"] and worker["deploy"]["replicas"] >= 2
    proxy = services["proxy"]
    assert proxy["image"].startswith("nginx:") and proxy["ports"] == ["8443:8443"]
    assert all(proxy["depends_on"][web]["condition"] == "service_healthy" for web in webs)
    assert proxy["depends_on"]["certs"]["condition"] == "service_completed_successfully"
    upstreams = proxy["environment"]["KLONDIKE_UPSTREAMS"]
    assert all(f"server {web}:8000" in upstreams for web in webs)
    template = "./deploy/nginx/klondike.conf.template:/etc/nginx/templates/default.conf.template:ro"
    assert template in proxy["volumes"]


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
