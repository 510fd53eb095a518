"""The migration to hashed tokens (accounts 0002): a database with DRF's plain-text
tokens in it (the authtoken_token table of the service before) keeps every owner's
token working, now stored as a digest, listed as a legacy token of scope play that its
owner can revoke; the plain-text table is gone.

The old table is made as rest_framework.authtoken made it (that app is no longer
installed), with the schema taken back to accounts 0001."""

from __future__ import annotations

import binascii
import datetime as dt
import hashlib
import os

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.utils import timezone

from accounts.models import AccessToken

BEFORE = [("accounts", "0001_initial")]
OLD_TABLE = """CREATE TABLE authtoken_token (
    key varchar(40) NOT NULL PRIMARY KEY,
    created timestamp with time zone NOT NULL,
    user_id bigint NOT NULL UNIQUE REFERENCES accounts_user (id) DEFERRABLE INITIALLY DEFERRED)"""


def migrate(targets: list[tuple[str, str]]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


def latest() -> list[tuple[str, str]]:
    """Every app's last migration: the database as the service runs it today."""
    return MigrationExecutor(connection).loader.graph.leaf_nodes()


def tables() -> set[str]:
    return set(connection.introspection.table_names())


@pytest.mark.django_db(transaction=True)
def test_plain_text_tokens_are_hashed_in_place_and_go_on_working_until_revoked():
    users = [get_user_model().objects.create_user(f"old{i}", "", "an old pass 1234") for i in range(3)]
    today = latest()
    migrate(BEFORE)
    try:
        assert "accounts_accesstoken" not in tables()
        made = timezone.now() - dt.timedelta(days=400)
        keys = {user.username: binascii.hexlify(os.urandom(20)).decode() for user in users}
        with connection.cursor() as cursor:
            cursor.execute(OLD_TABLE)
            for user in users:
                cursor.execute("INSERT INTO authtoken_token (key, created, user_id) VALUES (%s, %s, %s)",
                               [keys[user.username], made, user.pk])
    finally:
        migrate(today)

    assert "authtoken_token" not in tables()
    migrated = {token.user.username: token for token in AccessToken.objects.select_related("user")}
    assert set(migrated) == set(keys)
    for username, key in keys.items():
        token = migrated[username]
        assert token.digest == hashlib.sha512(key.encode()).hexdigest() and token.token_key == key[:15]
        assert (token.name, token.scope, token.legacy) == ("Legacy token", "play", True)
        assert token.created == made
        assert dt.timedelta(days=29) < token.expiry - timezone.now() <= dt.timedelta(days=30)
    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM accounts_accesstoken")
        stored = " ".join(str(value) for row in cursor.fetchall() for value in row)
    assert not any(key in stored for key in keys.values())

    # The old key still opens the account, and its owner sees it listed and revokes it.
    old = Client(HTTP_AUTHORIZATION=f"Token {keys['old0']}")
    assert old.get("/api/accounts/me").json()["username"] == "old0"
    assert old.post("/api/games/", {"draw": 1}, content_type="application/json").status_code == 201
    owner = Client()
    owner.force_login(users[0])
    listed = owner.get("/api/accounts/tokens").json()
    assert [(t["id"], t["legacy"], t["scope"]) for t in listed] == [(keys["old0"][:15], True, "play")]
    assert owner.delete(f"/api/accounts/tokens/{listed[0]['id']}").status_code == 204
    assert old.get("/api/accounts/me").status_code == 401
    assert Client(HTTP_AUTHORIZATION=f"Token {keys['old1']}").get("/api/accounts/me").status_code == 200
