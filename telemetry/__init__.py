"""What the service tells its operators: Prometheus metrics (telemetry.metrics) and
structured JSON logs with a request id (telemetry.logs). Pure bookkeeping: every room
may import it, it imports none of them."""
