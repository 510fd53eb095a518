"""How races follow their games (games.domain_events): the clock refuses moves
outside the race's running time, and the race finishes when its last game ends or
its clock has run out."""

from __future__ import annotations

from games import domain_events
from games.models import Game
from races import services


def check_clock(event: domain_events.MoveChecked) -> None:
    services.check_clock(event.game)


def finish_when_time_is_up(event: domain_events.MoveRefused) -> None:
    if event.code == "race_over":
        race_id = Game.objects.filter(pk=event.game_id).values_list("race_id", flat=True).first()
        if race_id is not None:
            services.finish_race(race_id)


def finish_when_the_last_game_ends(event: domain_events.MoveApplied) -> None:
    if event.game.race_id is not None and event.ended_the_game:
        services.finish_race(event.game.race_id)


def subscribe() -> None:
    domain_events.subscribe(domain_events.MoveChecked, check_clock, when=domain_events.IN_TRANSACTION)
    domain_events.subscribe(domain_events.MoveRefused, finish_when_time_is_up, when=domain_events.AFTER_COMMIT)
    domain_events.subscribe(domain_events.MoveApplied, finish_when_the_last_game_ends,
                            when=domain_events.AFTER_COMMIT)
