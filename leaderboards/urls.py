from django.urls import path

from leaderboards import api

urlpatterns = [
    path("daily", api.DailyView.as_view(), name="daily"),
    path("leaderboards/daily", api.DailyBoardView.as_view(), name="board-daily"),
    path("leaderboards/deals/<str:code>", api.DealBoardView.as_view(), name="board-deal"),
    path("leaderboards/vegas", api.VegasBoardView.as_view(), name="board-vegas"),
    path("leaderboards/vegas/me", api.VegasMeView.as_view(), name="board-vegas-me"),
    path("leaderboards/races", api.RaceBoardView.as_view(), name="board-races"),
    path("players/<str:username>/stats", api.StatsView.as_view(), name="player-stats"),
]
