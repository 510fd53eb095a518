from django.urls import path

from races import api

urlpatterns = [
    path("races/", api.RacesView.as_view(), name="races"),
    path("races/<uuid:race_id>/", api.RaceView.as_view(), name="race"),
    path("races/<uuid:race_id>/join", api.JoinView.as_view(), name="race-join"),
    path("races/<uuid:race_id>/leave", api.LeaveView.as_view(), name="race-leave"),
    path("races/<uuid:race_id>/ready", api.ReadyView.as_view(), name="race-ready"),
    path("races/<uuid:race_id>/rematch", api.RematchView.as_view(), name="race-rematch"),
    path("races/<uuid:race_id>/resign", api.RaceResignView.as_view(), name="race-resign"),
]
