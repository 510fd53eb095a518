"""How the boards follow the games and the races (games.domain_events): a counted
Vegas game's balance moves with its score in the move's own transaction, a finished
race settles its winnings and rates its racers in the transaction that finishes it,
and the live boards hear of every change that may move them."""

from __future__ import annotations

from games import domain_events
from leaderboards import services
from races.domain_events import RaceFinished


def game_started(event: domain_events.GameStarted) -> None:
    services.game_started(event.game)
    services.standings_changed(event.game)


def move_applied(event: domain_events.MoveApplied) -> None:
    services.score_changed(event.game, event.score_change)
    services.standings_changed(event.game)


def games_claimed(event: domain_events.GamesClaimed) -> None:
    services.games_claimed(event.user_id, event.games)


def race_finished(event: RaceFinished) -> None:
    services.settle_race(event.race, event.games)
    if event.race.rated:
        services.rate_race(event.race)


def subscribe() -> None:
    now = domain_events.IN_TRANSACTION
    domain_events.subscribe(domain_events.GameStarted, game_started, when=now)
    domain_events.subscribe(domain_events.MoveApplied, move_applied, when=now)
    domain_events.subscribe(domain_events.GamesClaimed, games_claimed, when=now)
    domain_events.subscribe(RaceFinished, race_finished, when=now)
