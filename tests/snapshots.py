"""Data that takes long to build (the demo: a minute of services, standings rebuilds and ratings
run on commit), built once per test process and put back for each test that needs it.

`restored(name, build)` runs `build()` the first time, in the test that asks first, on the
committed database (its on-commit jobs run, as they do for the test that built it itself), and
keeps a copy of every row it made and what it returned. Each later call puts those rows back,
as they were (the same ids, timestamps and versions, written raw as loaddata writes them), in a
fraction of a second, and returns the same value. The test that asks must start on an empty
database, as every transactional test does (the demo's tests, the browser tests). Cached pages
and standings are keyed by ids, which the rows put back have again: this worker's cache keys
are cleared, as if the data were new.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.db import connection, transaction
from django.db.models import Model
from django.db.models.sql import InsertQuery
from django.test import override_settings

from tests.conftest import FAST_HASHERS

# Rows every database has after migrate and flush (post_migrate makes them again, with new
# ids): never copied. Nothing copied may refer to them (checked: NOT_COPYABLE).
MADE_BY_MIGRATE = {"contenttypes.ContentType", "auth.Permission"}
NOT_COPYABLE = {"admin.LogEntry", "auth.Group_permissions", "auth.User_user_permissions"}


@dataclass
class Snapshot:
    rows: dict[type[Model], list[tuple]]
    value: Any


_snapshots: dict[str, Snapshot] = {}


def tables() -> list[type[Model]]:
    return [
        model
        for model in apps.get_models(include_auto_created=True)
        if model._meta.managed
        and not model._meta.proxy
        and model._meta.label not in MADE_BY_MIGRATE
    ]


def columns(model: type[Model]) -> list:
    return [f for f in model._meta.concrete_fields if not getattr(f, "generated", False)]


def rows_of(model: type[Model]) -> list[tuple]:
    names = [f.attname for f in columns(model)]
    return list(model._base_manager.order_by("pk").values_list(*names))


def restored(name: str, build: Callable[[], Any]) -> Any:
    """The database as `build()` left it (see the module's docstring), and what it returned."""
    if connection.in_atomic_block:
        raise AssertionError(f"{name}: needs the committed database (a transactional test)")
    filled = [m._meta.label for m in tables() if m._base_manager.exists()]
    if filled:
        raise AssertionError(f"{name}: the database is not empty: {filled}")
    snapshot = _snapshots.get(name)
    if snapshot is None:
        # The suite's fast hasher (tests/conftest.py), whoever asks first: the logins made here
        # are checked later by tests that have it.
        with override_settings(PASSWORD_HASHERS=FAST_HASHERS):
            value = build()
        made = {model: rows_of(model) for model in tables()}
        made = {model: rows for model, rows in made.items() if rows}
        kept = {model._meta.label for model in made} & NOT_COPYABLE
        if kept:
            raise AssertionError(f"{name}: rows that refer to migrate's rows: {sorted(kept)}")
        _snapshots[name] = Snapshot(rows=made, value=value)
        return value
    with transaction.atomic():  # foreign keys are checked at the commit: any order will do
        for model, rows in snapshot.rows.items():
            insert(model, rows)
        sequences_past(list(snapshot.rows))
    from tests.conftest import clear_cache

    clear_cache()
    return snapshot.value


def insert(model: type[Model], rows: list[tuple]) -> None:
    fields = columns(model)
    names = [f.attname for f in fields]
    objects = [model(**dict(zip(names, row, strict=True))) for row in rows]
    size = connection.ops.bulk_batch_size(fields, objects) or len(objects)
    for start in range(0, len(objects), size):
        query = InsertQuery(model)
        query.insert_values(fields, objects[start : start + size], raw=True)
        query.get_compiler(connection=connection).execute_sql()


def sequences_past(models: list[type[Model]]) -> None:
    """PostgreSQL's sequences beyond the ids put back (a test with reset_sequences may have
    started them again from 1), never back: ids stay new to the cache. (SQLite's AUTOINCREMENT
    follows the largest id by itself.)"""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        for model in models:
            pk = model._meta.pk
            if not pk.get_internal_type().endswith("AutoField"):
                continue
            table, column = model._meta.db_table, pk.column
            quoted = connection.ops.quote_name
            cursor.execute(
                "SELECT setval(pg_get_serial_sequence(%s, %s), GREATEST("
                f"nextval(pg_get_serial_sequence(%s, %s)), "
                f"(SELECT COALESCE(MAX({quoted(column)}), 0) + 1 FROM {quoted(table)})), false)",
                [quoted(table), column, quoted(table), column],
            )


def demo_command() -> None:
    """The demo as `manage.py load_demo` (make run) leaves it: the tournaments and the club."""
    from io import StringIO

    from django.core.management import call_command

    restored("load_demo", lambda: call_command("load_demo", stdout=StringIO()))


def demo_tournaments():
    """The demo's tournaments alone, as scoring.demo.load_demo() leaves them: its value."""
    from scoring.demo import load_demo

    return restored("scoring.demo.load_demo", load_demo)
