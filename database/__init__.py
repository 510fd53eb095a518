"""The service's PostgreSQL connections: a pool per process that tells a busy database
from an unreachable one at once (``database.pool``), the errors it raises, and how any
database failure is classified for the answer a client gets (``database.outage``).

The backend (``ENGINE = "database.postgresql"``) is Django's own PostgreSQL backend
with Django's psycopg pool; only the pool class differs. docs/operations.md says how to
size it."""
