"""Data migrations tested on the data they were written for: made at the state before, then
migrated forward."""

from collections.abc import Callable
from typing import Any

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrated(before: list[tuple[str, str]], after: list[tuple[str, str]], make: Callable) -> Any:
    """Migrate to `before`, call make(apps) with the models as they were there, migrate to
    `after`, and return what make returned. The database is left at the latest migrations,
    whatever happens."""
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    try:
        made = make(executor.loader.project_state(before).apps)
        executor.loader.build_graph()
        executor.migrate(after)
    finally:
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())
    return made


def every_app_at(node: tuple[str, str]) -> list[tuple[str, str]]:
    """The latest migration of every app but node's, and node: the other apps' tables as the
    database has them, so that the models make is given match it."""
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    return [leaf for leaf in leaves if leaf[0] != node[0]] + [node]
