"""Accounts: Django's user with usernames unique regardless of case."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from django.db.models.functions import Lower


class CaseInsensitiveUserManager(UserManager):
    def get_by_natural_key(self, username: str) -> "User":
        # Log-in finds "Alice" when the account is "alice".
        return self.get(username__iexact=username)


class User(AbstractUser):
    objects = CaseInsensitiveUserManager()

    class Meta:
        constraints = [
            models.UniqueConstraint(Lower("username"), name="accounts_user_username_ci_unique"),
        ]

    def __str__(self) -> str:
        return self.username
