from django.urls import path

from matchmaking import api

urlpatterns = [
    path("matchmaking/", api.QueueView.as_view(), name="matchmaking"),
    path("challenges/", api.ChallengesView.as_view(), name="challenges"),
    path("challenges/<uuid:challenge_id>/", api.ChallengeView.as_view(), name="challenge"),
    path("challenges/<uuid:challenge_id>/accept",
         api.challenge_action("accept", "Accept a challenge: the race starts at once").as_view(),
         name="challenge-accept"),
    path("challenges/<uuid:challenge_id>/decline",
         api.challenge_action("declined", "Decline a challenge sent to you").as_view(), name="challenge-decline"),
    path("challenges/<uuid:challenge_id>/cancel",
         api.challenge_action("cancelled", "Cancel your challenge").as_view(), name="challenge-cancel"),
]
