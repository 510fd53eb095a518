"""Races: players on the same deal at the same instant. The tables keep the names
they had when races were part of the games app (``games_race``, ``games_raceentry``):
moving the models here changed no row (races/migrations/0001_initial.py)."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from games.models import Game


class Race(models.Model):
    """Players on the same deal at the same instant. Status is stored; whether a
    started race is still counting down follows from ``starts_at``."""

    class Status(models.TextChoices):
        OPEN = "open"
        STARTED = "started"
        FINISHED = "finished"
        CANCELLED = "cancelled"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    host = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="hosted_races")
    draw = models.PositiveSmallIntegerField(default=1)
    scoring = models.CharField(max_length=8, choices=Game.Scoring.choices, default=Game.Scoring.NORMAL)
    max_players = models.PositiveSmallIntegerField(default=8)
    public = models.BooleanField(default=True)
    time_limit = models.PositiveIntegerField(default=600, help_text="seconds")
    spectator_delay = models.PositiveSmallIntegerField(default=0, help_text="moves spectators lag behind")
    rated = models.BooleanField(default=True, help_text="changes the racers' ratings")
    open_boards = models.BooleanField(default=False, help_text="unrated only: every card named live to everyone")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    code = models.CharField(max_length=20, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    starts_at = models.DateTimeField(null=True, blank=True)
    ends_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    rematch = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                                help_text="the race the same players started when every one confirmed a rematch")

    class Meta:
        db_table = "games_race"
        indexes = [models.Index(fields=["status", "public", "-created_at"])]
        constraints = [
            # Open boards name every card live: never where ratings are at stake.
            models.CheckConstraint(condition=~models.Q(rated=True, open_boards=True), name="games_race_open_unrated"),
        ]

    def __str__(self) -> str:
        return f"race {self.id} ({self.status})"


class RaceEntry(models.Model):
    race = models.ForeignKey(Race, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="race_entries")
    ready = models.BooleanField(default=False)
    joined_at = models.DateTimeField(auto_now_add=True)
    game = models.OneToOneField(Game, null=True, blank=True, on_delete=models.SET_NULL, related_name="race_entry")
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    won = models.BooleanField(default=False)
    seconds = models.FloatField(null=True, blank=True)
    foundation_count = models.PositiveSmallIntegerField(default=0)
    score = models.IntegerField(default=0)
    moves = models.PositiveIntegerField(default=0)
    rematch = models.BooleanField(default=False, help_text="asked to race the same players again")

    class Meta:
        db_table = "games_raceentry"
        constraints = [models.UniqueConstraint(fields=["race", "user"], name="games_raceentry_once")]
        ordering = ["joined_at", "id"]
