from django.apps import AppConfig


class RealtimeConfig(AppConfig):
    """The socket tier: consumers, routing, streams, presence and the lobby. It listens
    to the services below it; nothing imports it (the import contract says so)."""

    name = "realtime"
