"""Accounts: Django's user with usernames unique regardless of case, and the personal
access tokens of API clients."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from django.db.models.functions import Lower
from knox.models import AbstractAuthToken


class CaseInsensitiveUserManager(UserManager):
    def get_by_natural_key(self, username: str) -> "User":
        # Log-in finds "Alice" when the account is "alice".
        return self.get(username__iexact=username)


class User(AbstractUser):
    objects = CaseInsensitiveUserManager()
    # The address's owner followed the link mailed to it: only then can a forgotten
    # password be reset through it (accounts.passwords).
    email_verified = models.BooleanField(default=False)
    # Set when the account was deleted: its row stays, anonymised, so that other
    # players' races and boards keep their results (accounts.deletion).
    deleted_at = models.DateTimeField(null=True, blank=True)
    # The language chosen with the switcher, or the one the account was made in ("" for
    # older accounts: each browser's). Sign-in puts it in the language cookie of the new
    # device; emails are written in it.
    language = models.CharField(max_length=8, blank=True, default="", choices=settings.LANGUAGES)

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("username"), name="accounts_user_username_ci_unique"),
        ]

    def __str__(self) -> str:
        return self.username


class ReservedUsername(models.Model):
    """A deleted account's name, not to be taken by a new account before ``free_from``
    (so that nobody can pose as the player who left)."""

    name = models.CharField(max_length=150, unique=True)  # lower case
    free_from = models.DateTimeField()


class AccessToken(AbstractAuthToken):
    """A personal access token for API clients (django-rest-knox's custom token model):
    only its SHA-512 digest is stored, and the first characters of the secret
    (``token_key``, e.g. ``kl_3fa9c2b1d0e4``) name it in lists. Browsers never get one:
    they use their session."""

    class Scope(models.TextChoices):
        READ = "read", "read: your own private data"
        PLAY = "play", "play: moves, races and your own games"

    name = models.CharField(max_length=60)
    scope = models.CharField(max_length=8, choices=Scope.choices)
    # A token from before tokens were hashed (hashed in place by the migration).
    legacy = models.BooleanField(default=False)
    # Recorded at most every TOKEN_LAST_USED_EVERY, not a write per request.
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.token_key}… ({self.name}, {self.scope})"


class UserSession(models.Model):
    """A signed-in browser session, kept beside Django's session store (which keeps no
    per-user list) so that its owner can see where they are signed in and sign any of
    them out. ``id`` names it in the API; the session key never leaves the server."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="signed_in_sessions")
    session_key = models.CharField(max_length=40, unique=True)
    user_agent = models.CharField(max_length=300, blank=True)
    ip = models.GenericIPAddressField(null=True, blank=True)
    signed_in_at = models.DateTimeField(auto_now_add=True)
    # Written at most every SESSION_SEEN_EVERY seconds (accounts.middleware).
    last_seen_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-last_seen_at"]
