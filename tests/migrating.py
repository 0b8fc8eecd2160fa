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
    """node, and of every other app the latest migration that needs nothing of node's app after
    node: the other apps' tables as the database has them, so that the models make is given
    match it."""
    graph = MigrationExecutor(connection).loader.graph
    after_node = {
        key for key in graph.nodes if key[0] == node[0] and node in graph.forwards_plan(key)
    } - {node}
    latest: dict[str, tuple[str, str]] = {}
    for key in sorted(graph.nodes):
        if key[0] != node[0] and not after_node & set(graph.forwards_plan(key)):
            latest[key[0]] = key  # the names sort in their numbered order
    return [*latest.values(), node]
