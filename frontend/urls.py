"""Pages of the web app. Each page is a static shell; its ES module fetches what it
shows from the API and the WebSockets (public views only: no deal data in HTML)."""

from django.urls import path

from engine.game import VEGAS_START, VEGAS_TO_FOUNDATION
from frontend import views

app_name = "frontend"

urlpatterns = [
    # The Vegas note names the engine's figures rather than repeat them: the integers, which
    # the template writes in the page's language (the `dollars` filter: -$52, or -52 $).
    path("", views.page("home", vegas_start=VEGAS_START, vegas_per_card=VEGAS_TO_FOUNDATION), name="home"),
    path("games/<uuid:game_id>/", views.page("game"), name="game"),
    path("watch/<uuid:game_id>/", views.page("game", watch=True), name="watch"),
    path("replays/<uuid:game_id>/", views.page("replay"), name="replay"),
    path("races/<uuid:race_id>/", views.page("race"), name="race"),
    path("races/<uuid:race_id>/replay/", views.page("race_replay"), name="race-replay"),
    path("deals/<str:code>/", views.page("deal"), name="deal"),
    path("challenges/<uuid:challenge_id>/", views.page("challenge"), name="challenge"),
    path("leaderboards/", views.page("leaderboards", vegas_start=VEGAS_START, vegas_per_card=VEGAS_TO_FOUNDATION),
         name="leaderboards"),
    path("players/<str:username>/", views.page("profile"), name="profile"),
    path("rules/", views.page("rules"), name="rules"),
    path("signup/", views.page("signup"), name="signup"),
    path("login/", views.page("login"), name="login"),
    path("account/", views.page("account"), name="account"),
    path("forgot/", views.page("forgot"), name="forgot"),
    # The link's secrets are in the fragment (#uid=…&token=…), read by the page's script.
    path("reset/", views.page("reset"), name="reset"),
    path("verify-email/", views.page("verify_email"), name="verify-email"),
]
