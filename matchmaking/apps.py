from django.apps import AppConfig


class MatchmakingConfig(AppConfig):
    name = "matchmaking"
    default_auto_field = "django.db.models.BigAutoField"
