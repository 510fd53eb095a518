from django.urls import path

from realtime import api

urlpatterns = [
    path("lobby", api.LobbyView.as_view(), name="lobby"),
]
