"""Standings that follow from validated, stored moves: Vegas balances and race
ratings (daily and per-deal boards are read straight from games.Game)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class VegasBalance(models.Model):
    """The sum of the current scores of all the account's counted Vegas games, kept
    in the same transaction as every move that changes one of them."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE,
                                related_name="vegas_balance")
    balance = models.IntegerField(default=0)
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["-balance", "user"], name="leaderboards_vegas_board")]


class BalanceChange(models.Model):
    """Balance history: one row when a counted game starts and one when it ends."""

    class Reason(models.TextChoices):
        START = "start"
        END = "end"
        CLAIM = "claim"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="balance_changes")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="balance_changes")
    reason = models.CharField(max_length=8, choices=Reason.choices)
    balance = models.IntegerField(help_text="the balance after the change")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["user", "at"])]


class Rating(models.Model):
    """Glicko-2 race rating (display scale)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, primary_key=True, on_delete=models.CASCADE,
                                related_name="race_rating")
    rating = models.FloatField(default=1500.0)
    rd = models.FloatField(default=350.0)
    volatility = models.FloatField(default=0.06)
    races = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["-rating", "user"], name="leaderboards_rating_board")]


class RatingChange(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes")
    race = models.ForeignKey("races.Race", on_delete=models.CASCADE, related_name="rating_changes")
    rank = models.PositiveSmallIntegerField()
    rating_before = models.FloatField()
    rating = models.FloatField()
    rd = models.FloatField()
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["user", "at"])]
        constraints = [models.UniqueConstraint(fields=["user", "race"], name="leaderboards_rating_once")]
