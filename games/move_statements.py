"""The three statements of a move, built once from the models instead of by the ORM
on every call.

A move locks its game row, inserts a Move row and updates the game. Through the
ORM, compiling those queries cost more CPU than everything else in the move
together (bench/realtime.py; docs/performance.md), and a Daphne process runs every
move of its connections. Here the SQL text is built once per model and database
from the models' own metadata, and values go through each field's own
``get_db_prep_save`` and database converters, exactly as the ORM would pass them:
the same rows, on any backend (tests/games/test_move_statements.py compares both paths). On
PostgreSQL the insert and the update go as one statement, with server-side binding,
prepared once per connection.

A move's transaction used to cost four round trips to PostgreSQL (``BEGIN``, the
lock, the write, ``COMMIT``); under load each one waits for the GIL on its way back
to a thread that shares it with the event loop, and that wait is the tail of the
real-time latency. When the move's transaction is the outermost one, ``BEGIN`` goes
with the lock and ``COMMIT`` with the write, each pair as one simple query: two
round trips (docs/performance.md).
"""

from __future__ import annotations

from functools import cache
from typing import Any, Sequence

from django.db import connections
from django.db.models import Model


def _execute(connection: Any, sql: str, params: Sequence[Any]) -> Any:
    """Run one statement; returns the cursor. On PostgreSQL with server-side binding
    and a statement prepared once per connection: Django's default client-side binding
    quotes every parameter into the SQL text (the game state's bytes as hex, on every
    move) and PostgreSQL parses and plans each statement again."""
    if connection.vendor == "postgresql":
        import psycopg

        connection.ensure_connection()
        cursor = psycopg.Cursor(connection.connection)
        cursor.execute(sql, params, prepare=True)
        return cursor
    cursor = connection.cursor()
    cursor.execute(sql, params)
    return cursor


@cache
def _select_for_update_sql(model: type[Model], vendor: str, alias: str) -> tuple[str, list[str], list[Any]]:
    connection = connections[alias]
    quote = connection.ops.quote_name
    fields = list(model._meta.concrete_fields)
    table = model._meta.db_table
    columns = ", ".join(quote(f.column) for f in fields)
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    sql = f"SELECT {columns} FROM {quote(table)} WHERE {quote(model._meta.pk.column)} = %s{lock}"
    converters = []
    for field in fields:
        col = field.get_col(table)
        converters.append(connection.ops.get_db_converters(col) + field.get_db_converters(connection))
    return sql, [f.attname for f in fields], converters


def _owns_transaction(connection: Any) -> bool:
    """True when the current atomic block is the outermost one on PostgreSQL and
    Django has not sent anything in it yet: its ``BEGIN`` may then go with the
    first statement, and its ``COMMIT`` with the last (never inside a test's or a
    caller's enclosing transaction)."""
    if connection.vendor != "postgresql" or len(connection.atomic_blocks) != 1 or connection.savepoint_ids:
        return False
    import psycopg

    raw = connection.connection
    return raw is not None and raw.isolation_level is None and \
        raw.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE


def _execute_begin(connection: Any, sql: str, params: Sequence[Any]) -> Any:
    """``BEGIN`` and ``sql`` as one simple query. psycopg is put in autocommit so that
    it sends no ``BEGIN`` of its own; it still sends ``COMMIT``/``ROLLBACK`` when
    Django ends the block, because it goes by the server's transaction status."""
    import psycopg

    raw = connection.connection
    raw.autocommit = True
    cursor = psycopg.ClientCursor(raw)
    cursor.execute("BEGIN; " + sql, params)
    cursor.nextset()
    return cursor


def select_for_update(model: type[Model], pk: Any, using: str = "default") -> Model | None:
    """``model.objects.select_for_update().filter(pk=pk).first()``; ``pk`` must
    already be valid for the field (a bad value would abort the transaction). As
    the first statement of an outermost transaction on PostgreSQL, it carries the
    transaction's ``BEGIN``."""
    connection = connections[using]
    connection.ensure_connection()
    sql, attnames, converters = _select_for_update_sql(model, connection.vendor, using)
    params = [model._meta.pk.get_db_prep_value(pk, connection)]
    execute = _execute_begin if _owns_transaction(connection) else _execute
    with execute(connection, sql, params) as cursor:
        row = cursor.fetchone()
    if row is None:
        return None
    values = list(row)
    for i, field_converters in enumerate(converters):
        for convert in field_converters:
            values[i] = convert(values[i], None, connection)
    return model.from_db(using, attnames, values)


def params_of(instance: Model, names: Sequence[str], connection: Any) -> list[Any]:
    meta = instance._meta
    return [meta.get_field(name).get_db_prep_save(getattr(instance, meta.get_field(name).attname), connection)
            for name in names]


@cache
def _insert_sql(model: type[Model], names: tuple[str, ...], returning: bool, vendor: str, alias: str) -> str:
    connection = connections[alias]
    quote = connection.ops.quote_name
    fields = [model._meta.get_field(name) for name in names]
    sql = (f"INSERT INTO {quote(model._meta.db_table)} ({', '.join(quote(f.column) for f in fields)}) "
           f"VALUES ({', '.join(['%s'] * len(fields))})")
    if returning and connection.features.can_return_columns_from_insert:
        sql += f" RETURNING {quote(model._meta.pk.column)}"
    return sql


def insert(instance: Model, names: Sequence[str], using: str = "default", *, returning: bool = True) -> None:
    """Insert ``instance`` with the fields ``names``; with ``returning``, set its
    primary key (an auto-incremented one), which costs a round trip in a pipeline.
    Defaults such as ``auto_now_add`` are the caller's."""
    connection = connections[using]
    model = type(instance)
    sql = _insert_sql(model, tuple(names), returning, connection.vendor, using)
    with _execute(connection, sql, params_of(instance, names, connection)) as cursor:
        if returning:
            can_return = connection.features.can_return_columns_from_insert
            instance.pk = cursor.fetchone()[0] if can_return else cursor.lastrowid
    instance._state.adding = False
    instance._state.db = using


@cache
def _update_sql(model: type[Model], names: tuple[str, ...], vendor: str, alias: str) -> str:
    connection = connections[alias]
    quote = connection.ops.quote_name
    fields = [model._meta.get_field(name) for name in names]
    assignments = ", ".join(f"{quote(f.column)} = %s" for f in fields)
    return f"UPDATE {quote(model._meta.db_table)} SET {assignments} WHERE {quote(model._meta.pk.column)} = %s"


def update(instance: Model, names: Sequence[str], using: str = "default") -> None:
    """``instance.save(update_fields=names)`` for a row known to exist."""
    connection = connections[using]
    model = type(instance)
    sql = _update_sql(model, tuple(names), connection.vendor, using)
    params = params_of(instance, names, connection)
    params.append(model._meta.pk.get_db_prep_value(instance.pk, connection))
    with _execute(connection, sql, params):
        pass



@cache
def _insert_then_update_sql(inserted: type[Model], insert_names: tuple[str, ...], updated: type[Model],
                            update_names: tuple[str, ...], vendor: str, alias: str) -> str:
    insert = _insert_sql(inserted, insert_names, False, vendor, alias)
    return f"WITH inserted AS ({insert}) {_update_sql(updated, update_names, vendor, alias)}"


def _began_here(connection: Any) -> bool:
    """The outermost transaction was opened by :func:`_execute_begin`."""
    if connection.vendor != "postgresql" or len(connection.atomic_blocks) != 1 or connection.savepoint_ids:
        return False
    import psycopg

    raw = connection.connection
    return raw.autocommit and raw.pgconn.transaction_status == psycopg.pq.TransactionStatus.INTRANS


def insert_then_update(new: Model, insert_names: Sequence[str], changed: Model, update_names: Sequence[str],
                       using: str = "default", *, last: bool = False) -> None:
    """``insert(new, insert_names, returning=False)`` then ``update(changed,
    update_names)``: on PostgreSQL as one statement (a data-modifying ``WITH``), one
    round trip fewer for every move; elsewhere as two.

    ``last`` says that nothing else is written or raised before the atomic block
    ends: if :func:`select_for_update` opened the transaction, the statement then
    carries its ``COMMIT`` too, and Django's own commit finds nothing left to do
    (its ``on_commit`` callbacks still run)."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        insert(new, insert_names, using, returning=False)
        update(changed, update_names, using)
        return
    sql = _insert_then_update_sql(type(new), tuple(insert_names), type(changed), tuple(update_names),
                                  connection.vendor, using)
    params = params_of(new, insert_names, connection) + params_of(changed, update_names, connection)
    params.append(changed._meta.pk.get_db_prep_value(changed.pk, connection))
    if last and _began_here(connection):
        import psycopg

        with psycopg.ClientCursor(connection.connection) as cursor:
            cursor.execute(sql + "; COMMIT", params)
    else:
        with _execute(connection, sql, params):
            pass
    new._state.adding = False
    new._state.db = using
