"""Smoke tests of the wired-up project: URLs, database backend, hashers."""

import os

import pytest
from django.conf import settings
from django.contrib.auth.hashers import make_password
from django.db import connection


def test_healthz_returns_json(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_database_backend_matches_database_url():
    expected = "postgresql" if os.environ.get("DATABASE_URL", "").startswith("postgres") else "sqlite"
    assert connection.vendor == expected
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def test_argon2_is_the_default_hasher():
    assert settings.PASSWORD_HASHERS[0].endswith("Argon2PasswordHasher")
    assert make_password("correct horse battery staple").startswith("argon2$")


def test_asgi_application_imports():
    from config.asgi import application

    assert set(application.app.app.application_mapping) == {"http", "websocket"}
