"""Every write to a game goes through this module, each in one short transaction:
lock the game row, validate with the engine, append a Move row with the next
sequence number, update the game. Nothing is acknowledged before it commits."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from engine import DealCode, DealCodeError, Move as EngineMove, MoveError, Scoring
from engine import Game as EngineGame
from engine import card_name, to_bytes
from engine.views import face_up_mask, hidden_cards, visible_cards
from games import daily_deals, domain_events, ghosts, move_statements, winnable_pool, wire_format
from api.errors import ServiceError
from games.models import DailyDeal, Game, Move
from games.viewer_policy import Actor


# "This game is over": a whole sentence for each way a game ends, for the translators.
GAME_OVER = {
    # Translators: the player won the game.
    "won": gettext_noop("this game is over (won)"),
    # Translators: the player gave up the game.
    "resigned": gettext_noop("this game is over (resigned)"),
    # Translators: a race's clock ran out before the player finished.
    "timed_out": gettext_noop("this game is over (timed_out)"),
    # Translators: nobody moved in the game for a long time.
    "abandoned": gettext_noop("this game is over (abandoned)"),
}


def game_over_detail(status: str) -> str:
    """``this game is over (won)``, in the reader's language."""
    if status in GAME_OVER:
        return _(GAME_OVER[status])
    return _("this game is over (%(status)s)") % {"status": status}


def create_game(actor: Actor, *, code: str | None = None, draw: int = 1, scoring: str = "normal",
                public: bool = True, daily: bool = False, winnable: bool = False, ghost: Any = None) -> Game:
    """A new game: the daily deal, a given deal code, or a random deal.

    A random Vegas deal counts toward the owner's Vegas balance, so it is ranked:
    the ranked undo policy applies and its code stays secret until the game ends.
    A chosen code is casual practice (its deal may be known in advance). An account's
    first attempt at a daily deal is its ranked one; later attempts are practice. A
    ghost race (``ghost``: a finished game's id) is a casual game on that game's deal,
    raced against its recorded moves (games.ghosts)."""
    if actor.user_id is None and not actor.guest_key:
        raise ServiceError("not_authenticated", _("log in or accept the session cookie to play"), 401)
    day, practice, ghost_of = None, False, None
    if ghost is not None:
        ghost_of = ghosts.recorded(ghost, actor)
        code = ghost_of.code
    if daily:
        day = daily_deals.daily_deal(daily_deals.today(), draw)
        deal = DealCode(day.deal_number, draw)
        kind = Game.Kind.RANKED
    elif code is not None:
        try:
            deal = DealCode.parse(code)
        except DealCodeError as exc:
            raise ServiceError(exc.code, exc.detail) from None
        kind = Game.Kind.CASUAL
    else:
        deal = DealCode.random(draw, Scoring(scoring))
        kind = Game.Kind.RANKED if deal.scoring is Scoring.VEGAS else Game.Kind.CASUAL
    with transaction.atomic():
        if winnable and code is None and not daily:
            # From the stock, never a search: the game commits with the deal's mark.
            deal = winnable_pool.take(draw, scoring)
        if day is not None:
            # Lock the day's row: of two first attempts at once, one is the ranked one.
            DailyDeal.objects.select_for_update().filter(pk=day.pk).first()
            practice = actor.user_id is None or Game.objects.filter(owner_id=actor.user_id, daily=day).exists()
        ranked = kind == Game.Kind.RANKED and not practice
        engine = EngineGame.new(deal, ranked=ranked)
        game = Game(
            owner_id=actor.user_id,
            guest_key="" if actor.user_id is not None else actor.guest_key,
            code=str(deal), deal_number=deal.number, draw=deal.draw, scoring=deal.scoring.value,
            kind=kind, ranked_undo=ranked, public=public, score=engine.score, daily=day, practice=practice,
            state=to_bytes(engine, history=True), cards_seen=face_up_mask(engine), last_move_at=timezone.now(),
            ghost_of=ghost_of,
        )
        game.update_standing()
        game.save(force_insert=True)
        domain_events.emit(domain_events.GameStarted(game))
    return game


def move_result(game: Game, move: Move, engine: EngineGame | None = None) -> dict[str, Any]:
    """The acknowledgement of an accepted action, as every client receives it."""
    return {
        "game": str(game.id),
        "seq": move.seq,
        "move": move.action,
        "flipped": move.flipped or None,
        "score": move.score,
        "moves": move.moves,
        "at": move.created_at.isoformat(),
        "status": game.status,
        "view": wire_format.view_of(game, engine or game.engine()),
    }


def board_after(game: Game, seq: int) -> EngineGame | None:
    """The board as it was after event ``seq``, for the first result of a retried
    move; ``None`` if an undo has since turned one of the cards that result names
    face down again (nothing hidden may leave the server)."""
    current = game.engine()
    if seq == game.seq:
        return current
    then = game.engine_after(seq)
    if game.reveals_everything or not (visible_cards(then) & hidden_cards(current)):
        return then
    return None


def _locked_game(game_id: UUID | str, actor: Actor) -> Game:
    # No joins: most games have neither race nor daily deal (either loads lazily).
    try:
        game = move_statements.select_for_update(Game, UUID(str(game_id)))
    except ValueError:
        game = None
    if game is None:
        raise ServiceError("not_found", _("there is no such game"), 404)
    if not actor.owns(game):
        raise ServiceError("not_your_game", _("only the game's player can play it"), 403)
    return game


def _previous_result(game: Game, seq: int, submitted: dict[str, Any]) -> dict[str, Any]:
    """A retry of an already applied move gets the first result; anything else that
    does not follow the last event is a conflict."""
    if 1 <= seq <= game.seq:
        earlier = Move.objects.get(game=game, seq=seq)
        board = board_after(game, seq) if earlier.submitted == submitted else None
        if board is not None:
            return move_result(game, earlier, board)
    raise ServiceError(
        "seq_conflict",
        # Translators: "seq" is the request's field (kept as it is): the number of the event sent.
        _("the game is at event %(seq)s: send seq %(next)s after refreshing")
        % {"seq": game.seq, "next": game.seq + 1},
        409,
        seq=game.seq,
    )


def check_seq(seq: Any) -> None:
    """Every caller (REST, sockets, races, scripts) gets ``bad_seq`` for a seq that is
    not a positive integer, never a TypeError from comparing it."""
    if type(seq) is not int or seq < 1:
        # Translators: "seq" is the request's field (kept as it is).
        raise ServiceError("bad_seq", _("seq must be a positive integer: the last event number you saw, plus one"))


def submit_move(game_id: UUID | str, actor: Actor, data: Any, seq: Any) -> dict[str, Any]:
    """Apply one move in the engine's wire format as event number ``seq``."""
    try:
        move = EngineMove.from_json(data)
    except MoveError as exc:
        raise ServiceError(exc.code, exc.detail) from None
    check_seq(seq)
    submitted = move.to_json()
    try:
        return _apply_move(game_id, actor, move, submitted, seq)
    except ServiceError as exc:
        # After the rollback: a race whose clock ran out finishes (races/listeners.py).
        domain_events.emit(domain_events.MoveRefused(game_id, exc.code))
        raise


def _apply_move(game_id: UUID | str, actor: Actor, move: EngineMove, submitted: dict[str, Any],
                seq: int) -> dict[str, Any]:
    with transaction.atomic():
        game = _locked_game(game_id, actor)
        if seq != game.seq + 1:
            return _previous_result(game, seq, submitted)
        if not game.is_live:
            raise ServiceError("game_over", game_over_detail(game.status), 409, seq=game.seq)
        domain_events.emit(domain_events.MoveChecked(game))
        engine = game.engine()
        try:
            outcome = engine.apply(move)
        except MoveError as exc:
            raise ServiceError(exc.code, exc.detail, 422) from None
        now = timezone.now()
        row = Move(
            game=game, seq=seq, submitted=submitted, action=outcome.move.to_json(),
            flipped=card_name(outcome.flipped) if outcome.flipped is not None else "",
            score=outcome.score, moves=outcome.moves, created_at=now,
        )
        old_score = game.score
        game.seq = seq
        game.state = to_bytes(engine, history=True)
        game.score, game.moves, game.foundation_count = engine.score, engine.moves, engine.foundation_count
        game.started_at = game.started_at or now
        if engine.won:
            game.status = Game.Status.WON
        save_progress(game, row, engine, old_score, now, last=True)
    return move_result(game, row, engine)


MOVE_FIELDS = ("game", "seq", "submitted", "action", "flipped", "score", "moves", "created_at", "cards_seen")
PROGRESS_FIELDS = ("seq", "state", "score", "moves", "foundation_count", "cards_seen", "started_at", "last_move_at", "status",
                   "finished_at", "seconds", "board_won", "board_primary", "board_secondary", "board_tertiary", "visible_from")


def save_progress(game: Game, row: Move, engine: EngineGame, old_score: int, now: Any, *,
                  last: bool = False) -> None:
    """Store an event (``row``, not saved yet) and the game after it, in the event's
    transaction: the Vegas balance, the Move row, the game's row with its standings,
    and the event published once the transaction commits. ``last``: the caller's
    atomic block ends right after this, so the final write may carry its ``COMMIT``."""
    # What this player has seen, for fair races (games.viewer_policy): with the event.
    game.cards_seen |= face_up_mask(engine)
    row.cards_seen = game.cards_seen
    game.last_move_at = now
    if not game.is_live:
        game.finished_at = now
        game.seconds = (now - (game.started_at or now)).total_seconds()
        game.visible_from = game.result_visible_from(now)
    game.update_standing()
    wire = wire_format.event_of(game, row, wire_format.view_of(game, engine))
    # The boards' balance moves with the score in this transaction; the sockets and
    # the race hear of it once it commits.
    domain_events.emit(domain_events.MoveApplied(game, row, game.score - old_score, wire))
    # Nothing reads the Move row's id; the insert and the update are one statement.
    move_statements.insert_then_update(row, MOVE_FIELDS, game, PROGRESS_FIELDS, last=last)


def resign(game_id: UUID | str, actor: Actor, seq: Any = None) -> dict[str, Any]:
    """Give up a live game. The resignation is an event of the game's stream;
    ``seq`` (optional) makes a retry safe, as for a move."""
    if seq is not None:
        check_seq(seq)
    with transaction.atomic():
        game = _locked_game(game_id, actor)
        if seq is not None and seq != game.seq + 1:
            return _previous_result(game, seq, {"type": "resign"})
        if not game.is_live:
            raise ServiceError("game_over", game_over_detail(game.status), 409, seq=game.seq)
        domain_events.emit(domain_events.MoveChecked(game))
        game.seq += 1
        row = Move(
            game=game, seq=game.seq, submitted={"type": "resign"}, action={"type": "resign"},
            score=game.score, moves=game.moves, created_at=timezone.now(),
        )
        game.status = Game.Status.RESIGNED
        engine = game.engine()
        save_progress(game, row, engine, game.score, timezone.now(), last=True)
    return move_result(game, row, engine)


ABANDON_BATCH = 200


def abandon_idle(now: Any = None) -> int:
    """Mark abandoned the live games nobody has moved in for ``GAME_ABANDON_HOURS`` (not
    race games: a race's clock ends them). Each gets an ``abandon`` event like a
    resignation, so its watchers and the boards hear of it; a Vegas game keeps what it
    paid. Games another transaction holds are left for the next sweep. How many."""
    now = now or timezone.now()
    cutoff = now - timedelta(hours=settings.GAME_ABANDON_HOURS)
    idle = list(Game.objects.filter(status=Game.Status.LIVE, last_move_at__lt=cutoff, race=None)
                .values_list("pk", flat=True)[:ABANDON_BATCH])
    done = 0
    for game_id in idle:
        with transaction.atomic():
            game = (Game.objects.select_for_update(skip_locked=True)
                    .filter(pk=game_id, status=Game.Status.LIVE, last_move_at__lt=cutoff).first())
            if game is None:
                continue
            game.seq += 1
            row = Move(game=game, seq=game.seq, submitted={"type": "abandon"}, action={"type": "abandon"},
                       score=game.score, moves=game.moves, created_at=now)
            game.status = Game.Status.ABANDONED
            save_progress(game, row, game.engine(), game.score, now, last=True)
            done += 1
    return done


def claim_guest_games(guest_key: str, user_id: int) -> int:
    """A guest who signs up or logs in keeps the games of their browser session."""
    if not guest_key:
        return 0
    with transaction.atomic():
        games = list(Game.objects.select_for_update().filter(owner=None, guest_key=guest_key))
        Game.objects.filter(pk__in=[g.pk for g in games]).update(owner_id=user_id, guest_key="")
        for game in games:
            game.owner_id = user_id
        domain_events.emit(domain_events.GamesClaimed(user_id, games))
    return len(games)
