"""Vegas balances, race ratings and the boards built from them (the days' deals come
from games.daily_deals). The boards listen to the games' and races' events
(leaderboards/apps.py): a balance changes in the same transaction as the move that
changes it."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.core.cache import cache
from django.db.models import F, Q
from django.utils import timezone

from engine import DealCode
from engine.game import VEGAS_START
from games import domain_events
from games.models import DailyDeal, Game
from races.models import Race
from leaderboards import glicko2
from leaderboards.domain_events import BoardChanged
from leaderboards.models import BalanceChange, Rating, RatingChange, VegasBalance

BOARD_PAGE = 20
# What a standings row shows: a board page reads no engine state.
STANDING_COLUMNS = ("id", "owner__username", "status", "score", "seconds", "moves", "foundation_count",
                    "board_won", "board_primary", "board_secondary", "board_tertiary", "created_at")


# -- live boards --------------------------------------------------------------------

def board_changed(board: str) -> None:
    domain_events.emit(BoardChanged(board))


def daily_board_name(daily: DailyDeal) -> str:
    return f"daily.{daily.date.isoformat()}.{daily.draw}"


# -- Vegas balance ------------------------------------------------------------------

def _balance_row(user_id: int) -> VegasBalance:
    VegasBalance.objects.get_or_create(user_id=user_id)
    return VegasBalance.objects.select_for_update().get(user_id=user_id)


def game_started(game: Game) -> None:
    """Debit the opening −$52 of a counted Vegas game."""
    if not game.counts_for_balance:
        return
    row = _balance_row(game.owner_id)
    row.balance += game.score
    row.games += 1
    row.save(update_fields=["balance", "games", "updated_at"])
    BalanceChange.objects.create(user_id=game.owner_id, game=game, reason=BalanceChange.Reason.START,
                                 balance=row.balance)
    board_changed("vegas")


def held_until_race_ends(game: Game) -> bool:
    """A race game's Vegas winnings join the public balance when its race ends: a
    balance that moved with each foundation card would show a racer's progress to
    everyone, ahead of the race's spectator delay (games.viewer_policy)."""
    return game.race_id is not None


def score_changed(game: Game, delta: int) -> None:
    """Apply a move's score change to the balance, in the move's transaction."""
    if not game.counts_for_balance or held_until_race_ends(game):
        return
    if delta:
        VegasBalance.objects.filter(user_id=game.owner_id).update(balance=F("balance") + delta,
                                                                  updated_at=timezone.now())
        board_changed("vegas")
    if not game.is_live:
        balance = VegasBalance.objects.get(user_id=game.owner_id).balance
        BalanceChange.objects.create(user_id=game.owner_id, game=game, reason=BalanceChange.Reason.END,
                                     balance=balance)


def forget_account(user_id: int) -> None:
    """A deleted account leaves the Vegas and race-rating boards, with its own history
    of them; other players' results and changes stay as they are."""
    VegasBalance.objects.filter(user_id=user_id).delete()
    BalanceChange.objects.filter(user_id=user_id).delete()
    Rating.objects.filter(user_id=user_id).delete()
    RatingChange.objects.filter(user_id=user_id).delete()
    board_changed("vegas")
    board_changed("races")


def games_claimed(user_id: int, games: list[Game]) -> None:
    """Guest Vegas games now owned by an account join its balance."""
    counted = [g for g in games if g.counts_for_balance]
    if not counted:
        return
    row = _balance_row(user_id)
    for game in counted:
        row.balance += game.score
        row.games += 1
        BalanceChange.objects.create(user_id=user_id, game=game, reason=BalanceChange.Reason.CLAIM,
                                     balance=row.balance)
    row.save(update_fields=["balance", "games", "updated_at"])
    board_changed("vegas")


def standings_changed(game: Game) -> None:
    """Tell the live boards that may show this game."""
    if game.daily_id is not None and not game.practice and game.owner_id is not None:
        board_changed(daily_board_name(game.daily))


def settle_race(race: Race, games: list[Game]) -> None:
    """The race is over: each counted game's winnings since its opening debit join its
    owner's balance, in the transaction that finishes the race."""
    counted = sorted((g for g in games if g.counts_for_balance), key=lambda g: g.owner_id)
    for game in counted:  # in account order: the balance rows are locked in a fixed order
        row = _balance_row(game.owner_id)
        row.balance += game.score - VEGAS_START
        row.save(update_fields=["balance", "updated_at"])
        BalanceChange.objects.create(user_id=game.owner_id, game=game, reason=BalanceChange.Reason.END,
                                     balance=row.balance)
    if counted:
        board_changed("vegas")


def held_winnings(user_id: int) -> int:
    """What the account's games in running races have won so far (its own view)."""
    live = Game.objects.filter(owner_id=user_id, race__status=Race.Status.STARTED, scoring=Game.Scoring.VEGAS,
                               kind=Game.Kind.RANKED).values_list("score", flat=True)
    return sum(score - VEGAS_START for score in live)


# -- race ratings -------------------------------------------------------------------

def rate_race(race: Race) -> None:
    """Glicko-2 update of every racer once a race has finished (pairwise results)."""
    entries = [e for e in race.entries.select_related("user").order_by("rank") if e.rank is not None]
    if len(entries) < 2 or RatingChange.objects.filter(race=race).exists():
        return
    rows = []
    for entry in entries:
        Rating.objects.get_or_create(user_id=entry.user_id)
        rows.append(Rating.objects.select_for_update().get(user_id=entry.user_id))
    before = [glicko2.Player(r.rating, r.rd, r.volatility) for r in rows]
    pairwise = glicko2.race_results([e.rank for e in entries])
    for entry, row, player, results in zip(entries, rows, before, pairwise):
        new = glicko2.update(player, [(before[j], score) for j, score in results])
        RatingChange.objects.create(user_id=entry.user_id, race=race, rank=entry.rank,
                                    rating_before=row.rating, rating=new.rating, rd=new.rd)
        row.rating, row.rd, row.volatility, row.races = new.rating, new.rd, new.volatility, row.races + 1
        row.save(update_fields=["rating", "rd", "volatility", "races", "updated_at"])
    board_changed("races")


# -- boards ---------------------------------------------------------------------------

EXACT_COUNT_LIMIT = 10_000   # boards up to this size are counted exactly on every request
COUNT_CACHE_SECONDS = 60     # larger ones at most once a minute per board


def board_count(key: str, queryset: Any) -> int:
    """The number of entries on a board. A bounded count (an index-only scan of at
    most ``EXACT_COUNT_LIMIT + 1`` entries) is exact for all but the largest boards;
    those are counted in full at most once a minute, in the shared cache, because a
    full count of a board with tens of thousands of entries costs more than the page."""
    ids = queryset.order_by().values("pk")
    bounded = ids[:EXACT_COUNT_LIMIT + 1].count()
    if bounded <= EXACT_COUNT_LIMIT:
        return bounded
    return cache.get_or_set(f"board-count:{key}", ids.count, COUNT_CACHE_SECONDS)


def page(key: str, queryset: Any, offset: int, limit: int, **related: Any) -> tuple[int, list[Any]]:
    """A board's size and one page of it. The page's primary keys come from the board's
    index alone (walking it to ``offset`` touches no table rows), then only those rows
    are read."""
    keys = list(queryset.values_list("pk", flat=True)[offset:offset + limit])
    rows = queryset.model.objects.filter(pk__in=keys)
    if related.get("select_related"):
        rows = rows.select_related(*related["select_related"])
    if related.get("only"):
        rows = rows.only(*related["only"])
    by_key = {row.pk: row for row in rows}
    return board_count(key, queryset), [by_key[k] for k in keys if k in by_key]


def standing_rows(games: list[Game], offset: int) -> list[dict[str, Any]]:
    return [
        {"rank": offset + i + 1, "player": g.owner.username, "status": g.status, "score": g.score,
         "seconds": g.seconds, "moves": g.moves, "foundation_count": g.foundation_count, "game": str(g.id)}
        for i, g in enumerate(games)
    ]


STANDING_PAGE = {"select_related": ("owner",), "only": STANDING_COLUMNS}


def daily_board(date: dt.date, draw: int, offset: int = 0, limit: int = BOARD_PAGE) -> dict[str, Any]:
    daily = DailyDeal.objects.filter(date=date, draw=draw).first()
    if daily is None:
        return {"date": date, "draw": draw, "code": None, "count": 0, "results": []}
    # Ranked attempts always have an owner (guests only practise): the filter is the
    # board index's prefix.
    games = Game.objects.filter(daily=daily, practice=False).order_by(*Game.BOARD_ORDER)
    count, rows = page(f"daily:{daily.pk}", games, offset, limit, **STANDING_PAGE)
    return {"date": date, "draw": draw, "code": daily.code if daily.is_over else None, "count": count,
            "results": standing_rows(rows, offset)}


def deal_board(code: DealCode, offset: int = 0, limit: int = BOARD_PAGE) -> dict[str, Any]:
    """The best finished results on one deal whose competition (a race, the day of a
    daily deal) is over: the conditions of the board's partial index."""
    games = (Game.objects.filter(deal_number=code.number, draw=code.draw, scoring=code.scoring.value,
                                 visible_from__isnull=False, owner__isnull=False, practice=False,
                                 visible_from__lte=timezone.now())
             .order_by(*Game.BOARD_ORDER))
    count, rows = page(f"deal:{code.number}:{code.draw}:{code.scoring.value}", games, offset, limit,
                       **STANDING_PAGE)
    return {"code": str(code), "scoring": code.scoring.value, "count": count, "results": standing_rows(rows, offset)}


def vegas_board(offset: int = 0, limit: int = BOARD_PAGE) -> dict[str, Any]:
    rows = VegasBalance.objects.order_by("-balance", "user_id")
    count, balances = page("vegas", rows, offset, limit, select_related=("user",))
    return {"count": count, "results": [
        {"rank": offset + i + 1, "player": b.user.username, "balance": b.balance, "games": b.games}
        for i, b in enumerate(balances)]}


def vegas_rank(user_id: int, *, own: bool = False) -> dict[str, Any]:
    """An account's rank, balance and history; ``own``: asked by the account itself,
    whose balance includes what its running races hold back from the board."""
    row = VegasBalance.objects.filter(user_id=user_id).first()
    balance = row.balance if row else 0
    # The same order as the board: balance, then account id on a tie.
    ahead = Q(balance__gt=balance) | Q(balance=balance, user_id__lt=user_id)
    rank = VegasBalance.objects.filter(ahead).count() + 1 if row else None
    history = [{"at": c.at, "balance": c.balance}
               for c in BalanceChange.objects.filter(user_id=user_id).order_by("-at")[:500]][::-1]
    shown = balance + held_winnings(user_id) if own and row else balance
    return {"rank": rank, "balance": shown, "games": row.games if row else 0, "history": history}


def race_board(offset: int = 0, limit: int = BOARD_PAGE) -> dict[str, Any]:
    rows = Rating.objects.filter(races__gt=0).order_by("-rating", "user_id")
    count, ratings = page("races", rows, offset, limit, select_related=("user",))
    return {"count": count, "results": [
        {"rank": offset + i + 1, "player": r.user.username, "rating": round(r.rating, 1), "rd": round(r.rd, 1),
         "races": r.races} for i, r in enumerate(ratings)]}


def visible_results(games: Any) -> Any:
    """Finished games whose results everyone may see: not those of a race still
    running (a racer who has won would be known to have won before the race's
    spectator delay shows it)."""
    return games.exclude(race__status=Race.Status.STARTED)


def player_stats(user: Any) -> dict[str, Any]:
    """Per mode: games played to an end, wins, win rate (over those), current and best
    streak, best time, best score, and games abandoned (counted apart)."""
    finished = (visible_results(Game.objects.filter(owner=user).exclude(status=Game.Status.LIVE))
                .order_by("finished_at").values_list("draw", "scoring", "status", "seconds", "score", "finished_at"))
    modes: dict[tuple[int, str], dict[str, Any]] = {}
    history = []
    for draw, scoring, status, seconds, score, finished_at in finished:
        mode = modes.setdefault((draw, scoring), {
            "draw": draw, "scoring": scoring, "games": 0, "wins": 0, "win_rate": 0.0, "current_streak": 0,
            "best_streak": 0, "best_seconds": None, "best_score": None, "abandoned": 0})
        if status == Game.Status.ABANDONED:
            mode["abandoned"] += 1  # shown, but neither a loss nor a streak breaker: nobody played it out
            continue
        won = status == Game.Status.WON
        mode["games"] += 1
        mode["wins"] += won
        mode["current_streak"] = mode["current_streak"] + 1 if won else 0
        mode["best_streak"] = max(mode["best_streak"], mode["current_streak"])
        if won and seconds is not None:
            mode["best_seconds"] = seconds if mode["best_seconds"] is None else min(mode["best_seconds"], seconds)
        mode["best_score"] = score if mode["best_score"] is None else max(mode["best_score"], score)
        history.append({"at": finished_at, "score": score, "draw": draw, "scoring": scoring, "won": won})
    for mode in modes.values():
        mode["win_rate"] = round(mode["wins"] / mode["games"], 4) if mode["games"] else 0.0
    ratings = [{"at": c.at, "rating": round(c.rating, 1)}
               for c in RatingChange.objects.filter(user=user).order_by("at")[:500]]
    return {
        "player": user.username,
        "modes": sorted(modes.values(), key=lambda m: (m["draw"], m["scoring"])),
        "score_history": history[-200:],
        "balance_history": vegas_rank(user.pk)["history"],
        "rating_history": ratings,
    }
