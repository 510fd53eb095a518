"""Games and their append-only move log. Postgres is the source of truth: a move is
acknowledged only once its Move row has committed."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from django.conf import settings
from django.db import models

from engine import DealCode, from_bytes, replay
from engine import Game as EngineGame


#: Move-log actions the engine applies; the others (resign, timeout) only end a game.
ENGINE_ACTIONS = frozenset({"draw", "recycle", "undo", "move"})


class Game(models.Model):
    class Status(models.TextChoices):
        LIVE = "live"
        WON = "won"
        RESIGNED = "resigned"
        TIMED_OUT = "timed_out"  # a race's clock ran out
        ABANDONED = "abandoned"  # left without a move for GAME_ABANDON_HOURS (games.services.abandon_idle)

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
    race = models.ForeignKey("races.Race", null=True, blank=True, on_delete=models.CASCADE, related_name="games")
    daily = models.ForeignKey("DailyDeal", null=True, blank=True, on_delete=models.PROTECT, related_name="games")
    practice = models.BooleanField(default=False, help_text="a later attempt at a daily deal: on no board")
    ghost_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                                 help_text="a ghost race: the finished game on this deal replayed beside this one")
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
    # Races are fair by what each racer has seen (games.viewer_policy): kept with the
    # game, in the move's transaction, so it needs no query per event.
    cards_seen = models.BigIntegerField(default=0, help_text="52 bits: the cards ever face up in this game")
    state = models.BinaryField(help_text="engine state with undo history (engine.serial)")
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    last_move_at = models.DateTimeField(null=True, blank=True, help_text="the last event, or the creation (the "
                                        "lobby lists games played lately; one left for long is abandoned)")
    seconds = models.FloatField(null=True, blank=True, help_text="first action to the end")
    # Standings sort keys, higher is better (see standing_keys): kept up to date with
    # every move so that a board page is one index scan.
    board_won = models.SmallIntegerField(default=0)
    board_primary = models.IntegerField(default=0)
    board_secondary = models.BigIntegerField(default=0)
    board_tertiary = models.IntegerField(default=0)
    # When a finished result joins its deal's board: at once, or once its competition
    # is over (the day of a ranked daily attempt; a race, set when it finishes).
    visible_from = models.DateTimeField(null=True, blank=True)

    BOARD_ORDER = ("-board_won", "-board_primary", "-board_secondary", "-board_tertiary", "created_at")

    class Meta:
        indexes = [
            models.Index(fields=["owner", "-created_at"]),
            models.Index(fields=["status", "public", "-created_at"]),
            models.Index(fields=["last_move_at"], condition=models.Q(status="live"), name="games_live_by_last_move"),
            # Board pages: the filter, the order and the id in one index, so that the
            # count and the walk to any offset read the index alone (PostgreSQL).
            models.Index(fields=["daily", "practice", "-board_won", "-board_primary", "-board_secondary",
                                 "-board_tertiary", "created_at"], include=["id"], name="games_daily_board"),
            models.Index(fields=["deal_number", "draw", "scoring", "-board_won", "-board_primary",
                                 "-board_secondary", "-board_tertiary", "created_at"],
                         include=["visible_from", "id"], name="games_deal_board",
                         condition=models.Q(visible_from__isnull=False, owner__isnull=False, practice=False)),
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
        """Whether the whole deal may be shown: once the game is over and so is its
        competition (a racer who resigns must not see the deal the others still play;
        nor may a finished daily attempt show the deal before the day ends)."""
        if self.is_live:
            return False
        if self.race_id is not None and self.race.status != self.race.Status.FINISHED:
            return False
        return self.daily_id is None or self.daily.is_over

    @property
    def daily_secret(self) -> bool:
        """A daily attempt is shown to nobody but its player while the day lasts:
        watching the leader would give the deal away."""
        return self.daily_id is not None and not self.daily.is_over

    @property
    def counts_for_balance(self) -> bool:
        """A ranked Vegas game of an account counts toward its Vegas balance."""
        return self.scoring == self.Scoring.VEGAS and self.kind == self.Kind.RANKED and self.owner_id is not None

    def update_standing(self) -> None:
        """Winners by score (higher), then time (shorter), then moves (fewer); the
        others by cards on foundations, then score."""
        if self.status == self.Status.WON:
            millis = round((self.seconds or 0) * 1000)
            self.board_won, self.board_primary = 1, self.score
            self.board_secondary, self.board_tertiary = -millis, -self.moves
        else:
            self.board_won, self.board_primary = 0, self.foundation_count
            self.board_secondary, self.board_tertiary = self.score, 0

    def result_visible_from(self, now: Any) -> Any:
        """When this game's result, now over, may join its deal's board."""
        if self.race_id is not None:
            return None  # set for all of a race's games when the race finishes
        if self.daily_id is not None and self.kind == self.Kind.RANKED and not self.practice:
            day_after = dt.datetime.combine(self.daily.date + dt.timedelta(days=1), dt.time(), tzinfo=dt.timezone.utc)
            return max(now, day_after)
        return now

    @property
    def code_visible(self) -> bool:
        """A ranked deal's code recreates it, so it stays secret until it is over."""
        return self.kind == self.Kind.CASUAL or self.reveals_everything

    def engine(self) -> EngineGame:
        return from_bytes(bytes(self.state), code=DealCode.parse(self.code))

    def engine_after(self, seq: int) -> EngineGame:
        """The board as it was after event ``seq``, replayed from the move log
        (resignations and time-outs are events but not engine moves)."""
        actions = Move.objects.filter(game=self, seq__lte=seq).order_by("seq").values_list("action", flat=True)
        return replay(self.code, [a for a in actions if a["type"] in ENGINE_ACTIONS], ranked=self.ranked_undo)

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
    cards_seen = models.BigIntegerField(default=0, help_text="the game's cards_seen after this event")
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


class DailyDeal(models.Model):
    """The deal of the day (UTC) for one draw mode, Normal scoring. Its number comes
    from a server secret and the date, so nobody can compute it in advance; its code
    is shown once the day is over."""

    date = models.DateField()
    draw = models.PositiveSmallIntegerField()
    deal_number = models.BigIntegerField()
    code = models.CharField(max_length=20)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["date", "draw"], name="games_dailydeal_once")]

    def __str__(self) -> str:
        return f"daily {self.date} D{self.draw}"

    @property
    def is_over(self) -> bool:
        from django.utils import timezone

        return self.date < timezone.now().date()


class SolvedDeal(models.Model):
    """A deal the solver has examined from its opening position: the pool of
    proven-winnable deals is its wins (``klondike pool`` and the background top-up of
    ``games.winnable_pool`` fill it). A win is handed out once, to a winnable game or
    as a daily deal: ``handed_out_at`` marks it taken; the wins without it are the stock."""

    class Result(models.TextChoices):
        WIN = "win"
        LOSE = "lose"
        UNKNOWN = "unknown"

    draw = models.PositiveSmallIntegerField()
    scoring = models.CharField(max_length=8, choices=Game.Scoring.choices)
    deal_number = models.BigIntegerField()
    result = models.CharField(max_length=8, choices=Result.choices)
    nodes = models.BigIntegerField(default=0)
    seconds = models.FloatField(default=0.0)
    created_at = models.DateTimeField(auto_now_add=True)
    handed_out_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["draw", "scoring", "deal_number"], name="games_solveddeal_once")]
        indexes = [
            models.Index(fields=["draw", "scoring", "result", "deal_number"]),
            # The stock, oldest first: taking a deal and counting the stock read only this.
            models.Index(fields=["draw", "scoring", "id"], name="games_solveddeal_stock",
                         condition=models.Q(result="win", handed_out_at__isnull=True)),
        ]
