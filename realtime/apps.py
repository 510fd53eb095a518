from django.apps import AppConfig


class RealtimeConfig(AppConfig):
    """The socket tier: consumers, routing, streams, presence and the lobby. It listens
    to the services below it (realtime.listeners); nothing imports it (the import
    contract says so)."""

    name = "realtime"

    def ready(self) -> None:
        from realtime import listeners

        listeners.subscribe()
