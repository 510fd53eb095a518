"""Production settings from a real environment (subprocesses, nothing overridden): with
the environment the README documents, `manage.py check --deploy` reports nothing;
HTTPS=true turns on secure cookies, HSTS and the redirect (not for /healthz)."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import urllib.error
import urllib.request
from typing import Any

import pytest

from tests.realtime_helpers import ROOT, Daphne, database_url

TLS_WARNINGS = {"security.W004", "security.W008", "security.W012", "security.W016"}


def production_env(**changes: str) -> dict[str, str]:
    """The README's production environment, and nothing from this process's settings."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "false",
        "HTTPS": "true",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "example.com",
        "CSRF_TRUSTED_ORIGINS": "https://example.com",
        "DATABASE_URL": "postgres://klondike@db.example.com:5432/klondike",
        "REDIS_URL": "redis://redis.example.com:6379/0",
    }
    env.update(changes)
    return {name: value for name, value in env.items() if value != ""}


def manage(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=120)


def deploy_check(env: dict[str, str]) -> tuple[int, str]:
    result = manage(env, "check", "--deploy", "--fail-level", "WARNING")
    return result.returncode, result.stdout + result.stderr


def settings_of(env: dict[str, str], *names: str) -> dict[str, Any]:
    code = ("import json; from django.conf import settings; "
            f"print(json.dumps({{name: getattr(settings, name) for name in {list(names)!r}}}))")
    result = manage(env, "shell", "-c", code)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_the_deploy_check_reports_nothing_in_production():
    code, output = deploy_check(production_env())
    assert code == 0, output
    assert "System check identified no issues" in output, output


def test_without_https_the_deploy_check_names_only_the_tls_warnings():
    """HTTPS=true is part of the production environment: without TLS in front, Django
    rightly warns about HSTS, the redirect and the two cookies, and about nothing else."""
    code, output = deploy_check(production_env(HTTPS="false"))
    assert code != 0
    assert set(re.findall(r"\((security\.W\d+)\)", output)) == TLS_WARNINGS, output


def test_https_turns_on_secure_cookies_hsts_and_the_redirect():
    names = ("SECURE_SSL_REDIRECT", "SESSION_COOKIE_SECURE", "CSRF_COOKIE_SECURE", "SECURE_HSTS_SECONDS",
             "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD", "SESSION_COOKIE_HTTPONLY",
             "SECURE_PROXY_SSL_HEADER", "SILENCED_SYSTEM_CHECKS")
    assert settings_of(production_env(), *names) == {
        "SECURE_SSL_REDIRECT": True, "SESSION_COOKIE_SECURE": True, "CSRF_COOKIE_SECURE": True,
        "SECURE_HSTS_SECONDS": 31536000, "SECURE_HSTS_INCLUDE_SUBDOMAINS": True, "SECURE_HSTS_PRELOAD": False,
        "SESSION_COOKIE_HTTPONLY": True, "SECURE_PROXY_SSL_HEADER": None,
        # Preloading is left to the operator; its reminder (W021) is silenced while it is off.
        "SILENCED_SYSTEM_CHECKS": ["security.W021"],
    }
    assert settings_of(production_env(HTTPS="false"), *names[:5]) == dict.fromkeys(names[:5], False) | {
        "SECURE_HSTS_SECONDS": 0}
    chosen = settings_of(production_env(HSTS_SECONDS="600", HSTS_PRELOAD="true"),
                         "SECURE_HSTS_SECONDS", "SECURE_HSTS_PRELOAD", "SILENCED_SYSTEM_CHECKS")
    assert chosen == {"SECURE_HSTS_SECONDS": 600, "SECURE_HSTS_PRELOAD": True, "SILENCED_SYSTEM_CHECKS": []}
    assert deploy_check(production_env(HSTS_PRELOAD="true"))[0] == 0


def test_a_bad_https_value_is_a_configuration_error():
    result = manage(production_env(HTTPS="maybe"), "check")
    assert result.returncode != 0 and "HTTPS='maybe' is not a boolean" in result.stderr


@pytest.mark.django_db(transaction=True)
def test_daphne_with_https_redirects_plain_http_but_not_the_health_probe():
    from django.db import connection

    server = Daphne(database_url(connection.settings_dict), os.environ.get("REDIS_URL", ""), HTTPS="true")
    try:
        server.wait_ready()  # /healthz answers over plain http
        opener = urllib.request.build_opener(NoRedirect)
        with pytest.raises(urllib.error.HTTPError) as redirected:
            opener.open(f"{server.http}/api/lobby", timeout=5)
        assert redirected.value.code == 301
        assert redirected.value.headers["Location"] == f"https://127.0.0.1:{server.port}/api/lobby"
    finally:
        server.stop()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None
