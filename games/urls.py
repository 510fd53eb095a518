from django.urls import path

from games import api, hint_complete_api

urlpatterns = [
    path("games/", api.GamesView.as_view(), name="games"),
    path("games/<uuid:game_id>/", api.GameView.as_view(), name="game"),
    path("games/<uuid:game_id>/moves", api.MovesView.as_view(), name="game-moves"),
    path("games/<uuid:game_id>/undo", api.UndoView.as_view(), name="game-undo"),
    path("games/<uuid:game_id>/resign", api.ResignView.as_view(), name="game-resign"),
    path("games/<uuid:game_id>/replay", api.ReplayView.as_view(), name="game-replay"),
    path("games/<uuid:game_id>/ghost", api.GhostView.as_view(), name="game-ghost"),
    path("games/<uuid:game_id>/hint", hint_complete_api.hint_view, name="game-hint"),
    path("games/<uuid:game_id>/complete", hint_complete_api.complete_view, name="game-complete"),
]
