"""The matchmaking queue and challenges: how players find each other for a race."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from games.models import Game
from races.models import Race


class QueueTicket(models.Model):
    """A player waiting for a quick match. One per player (never in two queues);
    ``race`` is set when the wave that matched them commits, and the row stays so a
    player who missed the news finds their race. ``seen_at`` is renewed while the
    player's socket is open: a ticket whose process died is dropped."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="queue_ticket")
    draw = models.PositiveSmallIntegerField()
    scoring = models.CharField(max_length=8, choices=Game.Scoring.choices)
    rating = models.FloatField(help_text="the player's race rating when they queued")
    queued_at = models.DateTimeField()
    seen_at = models.DateTimeField()
    race = models.ForeignKey(Race, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    matched_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["draw", "scoring", "queued_at"], condition=models.Q(race=None),
                                name="matchmaking_waiting")]

    def __str__(self) -> str:
        return f"ticket {self.user_id} ({'matched' if self.race_id else 'waiting'})"


class Challenge(models.Model):
    """An invitation to race: to a named player, or (``challenged`` empty) a link
    anyone signed in may accept. Pending until accepted, declined, cancelled or
    ``expires_at``."""

    class Status(models.TextChoices):
        PENDING = "pending"
        ACCEPTED = "accepted"
        DECLINED = "declined"
        CANCELLED = "cancelled"
        EXPIRED = "expired"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    challenger = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="challenges_sent")
    challenged = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE,
                                   related_name="challenges_received")
    draw = models.PositiveSmallIntegerField(default=1)
    scoring = models.CharField(max_length=8, choices=Game.Scoring.choices, default=Game.Scoring.NORMAL)
    rated = models.BooleanField(default=True)
    time_limit = models.PositiveIntegerField(default=600, help_text="seconds")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    answered_at = models.DateTimeField(null=True, blank=True)
    race = models.ForeignKey(Race, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        indexes = [models.Index(fields=["challenged", "status"]), models.Index(fields=["challenger", "status"])]

    def __str__(self) -> str:
        return f"challenge {self.id} ({self.status})"
