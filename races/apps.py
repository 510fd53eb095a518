from django.apps import AppConfig


class RacesConfig(AppConfig):
    name = "races"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from races import listeners

        listeners.subscribe()
