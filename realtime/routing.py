from django.urls import path, re_path

from realtime import consumers
from realtime.board_consumer import BoardConsumer
from realtime.player_consumer import PlayerConsumer

websocket_urlpatterns = [
    path("ws/games/<uuid:game_id>/", consumers.GameConsumer.as_asgi()),
    path("ws/races/<uuid:race_id>/", consumers.RaceConsumer.as_asgi()),
    path("ws/lobby/", consumers.LobbyConsumer.as_asgi()),
    path("ws/leaderboards/", BoardConsumer.as_asgi()),
    path("ws/me/", PlayerConsumer.as_asgi()),
    re_path(r"", consumers.NotFoundConsumer.as_asgi()),
]
