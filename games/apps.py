from django.apps import AppConfig


class GamesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "games"

    def ready(self) -> None:
        from games import domain_events
        from telemetry import metrics

        # Moves per second for the operators: every committed event, whatever sent it.
        domain_events.subscribe(domain_events.MoveApplied, lambda event: metrics.MOVES.inc(),
                                when=domain_events.AFTER_COMMIT)
