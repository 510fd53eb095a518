"""The HTTP API's conventions, shared by every room's REST views: the one error a
service refuses with (``ServiceError``), the one error shape ``{"error", "detail"}``
for every answer under /api/, strict JSON input and paging, and the OpenAPI schema
that says both. Below every app, it imports nothing of the service."""
