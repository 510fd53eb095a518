"""Games and their append-only move log. Postgres is the source of truth: a move is
acknowledged only once its Move row has committed."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from games.engine import DealCode, from_bytes
from games.engine import Game as EngineGame


class Game(models.Model):
    class Status(models.TextChoices):
        LIVE = "live"
        WON = "won"
        RESIGNED = "resigned"

    class Scoring(models.TextChoices):
        NORMAL = "normal"
        VEGAS = "vegas"

    class Kind(models.TextChoices):
        CASUAL = "casual"   # the player's own game: any deal, code shown
        RANKED = "ranked"   # counts somewhere (Vegas balance, daily, race): code withheld until over

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="games"
    )
    # A guest's games belong to a random key kept in their browser session.
    guest_key = models.CharField(max_length=64, blank=True, default="", db_index=True)
    code = models.CharField(max_length=20)
    deal_number = models.BigIntegerField()
    draw = models.PositiveSmallIntegerField()
    scoring = models.CharField(max_length=8, choices=Scoring.choices)
    kind = models.CharField(max_length=8, choices=Kind.choices, default=Kind.CASUAL)
    ranked_undo = models.BooleanField(default=False)
    public = models.BooleanField(default=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.LIVE)
    score = models.IntegerField()
    moves = models.PositiveIntegerField(default=0)
    foundation_count = models.PositiveSmallIntegerField(default=0)
    seq = models.PositiveIntegerField(default=0, help_text="sequence number of the last event")
    state = models.BinaryField(help_text="engine state with undo history (games.engine.serial)")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["owner", "-created_at"]),
            models.Index(fields=["status", "public", "-created_at"]),
        ]
        constraints = [
            models.CheckConstraint(condition=models.Q(draw__in=[1, 3]), name="games_game_draw_1_or_3"),
        ]

    def __str__(self) -> str:
        return f"{self.id} ({self.status})"

    @property
    def is_live(self) -> bool:
        return self.status == self.Status.LIVE

    @property
    def reveals_everything(self) -> bool:
        """Whether the whole deal may be shown: once the game is over (and, later,
        its competition)."""
        return not self.is_live

    @property
    def code_visible(self) -> bool:
        """A ranked deal's code recreates it, so it stays secret until it is over."""
        return self.kind == self.Kind.CASUAL or self.reveals_everything

    def engine(self) -> EngineGame:
        return from_bytes(bytes(self.state), code=DealCode.parse(self.code))

    def elapsed_seconds(self) -> float | None:
        if self.started_at is None:
            return None
        end = self.finished_at
        if end is None:
            from django.utils import timezone

            end = timezone.now()
        return (end - self.started_at).total_seconds()


class Move(models.Model):
    """One accepted action (or a resignation), in order. Never updated or deleted."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="log")
    seq = models.PositiveIntegerField()
    submitted = models.JSONField(help_text="the move as the client sent it (for idempotent retries)")
    action = models.JSONField(help_text="the canonical move applied, or {'type': 'resign'}")
    flipped = models.CharField(max_length=2, blank=True, default="")
    score = models.IntegerField()
    moves = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="games_move_game_seq_unique"),
        ]
        ordering = ["game", "seq"]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} {self.action}"
