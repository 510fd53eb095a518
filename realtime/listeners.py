"""The news the socket tier sends, heard from the domain events of the rooms below
(games, races, leaderboards) once their transactions commit: nothing below imports
this room, and none of them knows there are sockets.

Each move's event goes to its game's group (the player's other tabs, spectators)
and, in a race, to the race's group (the opponents' boards); the lobby hears of
games that start and end and of races that change; a board's watchers hear that it
may have moved; the sockets of a revoked token or a signed-out session are closed. The mover's cards seen ride with a move's event, for each
connection's fair-race rendering (games.viewer_policy.RaceKnowledge); they are
never sent to a client.
"""

from __future__ import annotations

import json
from typing import Any

from accounts.domain_events import SessionEnded, TokenRevoked
from games import domain_events
from games.domain_events import GameStarted, MoveApplied
from leaderboards.domain_events import BoardChanged
from matchmaking.domain_events import ChallengesChanged, MatchMade
from races.domain_events import RaceChanged
from realtime import publishing


def move_applied(event: MoveApplied) -> None:
    game, move = event.game, event.move
    seen = {"seen": move.cards_seen, "live": not event.ended_the_game}
    # Encoded once here, not once per watching connection: most connections send the
    # text as it is (realtime.streams.GameStream.next_in_line).
    publishing.send_group(publishing.game_group(game.id),
                          {"type": "game.event", "seq": move.seq, "text": json.dumps(event.wire), **seen})
    if event.ended_the_game or move.seq == 1:
        lobby_changed()
    if game.race_id is not None:
        publishing.send_group(publishing.race_group(game.race_id), {"type": "racer.event", "event": event.wire, **seen})


def game_started(event: GameStarted) -> None:
    # A race's games are news of their race (race_changed).
    if event.game.race_id is None:
        lobby_changed()


def race_changed(event: RaceChanged) -> None:
    publishing.send_group(publishing.race_group(event.race_id), {"type": "race.changed", "finished": event.finished})
    lobby_changed()


def board_changed(event: BoardChanged) -> None:
    publishing.send_group(publishing.board_group(event.board), {"type": "board.changed"})


def token_revoked(event: TokenRevoked) -> None:
    publishing.send_group(publishing.token_group(event.digest), {"type": "auth.revoked"})


def session_ended(event: SessionEnded) -> None:
    publishing.send_group(publishing.session_group(event.digest), {"type": "auth.signed_out"})


def match_made(event: MatchMade) -> None:
    for user_id in event.user_ids:
        publishing.send_group(publishing.player_group(user_id), {"type": "match.found", "race": event.race_id})


def challenges_changed(event: ChallengesChanged) -> None:
    for user_id in event.user_ids:
        publishing.send_group(publishing.player_group(user_id),
                              {"type": "challenges.changed", "challenge": event.challenge_id, "race": event.race_id})


def lobby_changed() -> None:
    publishing.send_group(publishing.LOBBY_GROUP, {"type": "lobby.changed"})


HANDLERS: dict[type, Any] = {
    MoveApplied: move_applied,
    GameStarted: game_started,
    RaceChanged: race_changed,
    BoardChanged: board_changed,
    TokenRevoked: token_revoked,
    SessionEnded: session_ended,
    MatchMade: match_made,
    ChallengesChanged: challenges_changed,
}


def subscribe() -> None:
    for event_type, handler in HANDLERS.items():
        domain_events.subscribe(event_type, handler, when=domain_events.PUBLISH)
