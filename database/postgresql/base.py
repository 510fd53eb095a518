"""Django's PostgreSQL backend with :class:`database.pool.GatedConnectionPool` as
its pool: the same ``OPTIONS["pool"]`` settings, the same connection set-up."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from django.db.backends.postgresql import base

from database.pool import GatedConnectionPool


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self) -> GatedConnectionPool | None:
        pool_options = self.settings_dict["OPTIONS"].get("pool")
        if self.alias == base.NO_DB_ALIAS or not pool_options:
            return None
        if self.alias not in self._connection_pools:
            if self.settings_dict.get("CONN_MAX_AGE", 0) != 0:
                raise ImproperlyConfigured("Pooling doesn't support persistent connections.")
            connect_kwargs = self.get_connection_params()
            # Django sets autocommit itself once the connection is handed out.
            connect_kwargs["autocommit"] = True
            pool = GatedConnectionPool(
                kwargs=connect_kwargs,
                open=False,  # opened by the first request, not at start-up
                configure=self._configure_connection,
                **({} if pool_options is True else pool_options),
            )
            # Threads that race here build a pool each; the first one kept wins.
            self._connection_pools.setdefault(self.alias, pool)
        return self._connection_pools[self.alias]
