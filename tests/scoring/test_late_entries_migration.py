"""Stages with a late entry have their standings rebuilt once, so that rounds_played counts
only the rounds played there (a missed round filled by the stage's rule used to count)."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = ("scoring", "0005_standing_row_digest")
AFTER = ("scoring", "0006_late_entries_rounds_played")


def every_app_at(executor, node: tuple[str, str]) -> list[tuple[str, str]]:
    """The latest migration of every app but node's, and node: the other apps' tables as the
    database has them, so that the state used here matches it."""
    leaves = executor.loader.graph.leaf_nodes()
    return [leaf for leaf in leaves if leaf[0] != node[0]] + [node]


@pytest.mark.django_db(transaction=True)
def test_stages_with_a_late_entry_are_marked_for_a_rebuild():
    executor = MigrationExecutor(connection)
    before = every_app_at(executor, BEFORE)
    executor.migrate(before)
    try:
        apps = executor.loader.project_state(before).apps
        tournament = apps.get_model("tournaments", "Tournament").objects.create(
            name="Old event", slug="old-event", domino_set=12
        )
        stage_model = apps.get_model("tournaments", "Stage")
        late, plain = (
            stage_model.objects.create(
                tournament=tournament,
                order=order,
                name=name,
                rounds=4,
                starting_double=12,
                domino_set=12,
                table_size_min=2,
                table_size_max=8,
                advance_per_table=1,
                advance_problem="",
            )
            for order, name in ((1, "With a late entry"), (2, "Without"))
        )
        player = apps.get_model("tournaments", "Player").objects.create(
            tournament=tournament, number=1, name="Eve"
        )
        table = apps.get_model("tables", "Table").objects.create(stage=late, number=1)
        apps.get_model("tables", "Seat").objects.create(
            stage=late, table=table, player=player, position=1, from_round=2
        )
        standings = apps.get_model("scoring", "StageStandings")
        for stage in (late, plain):
            standings.objects.create(stage=stage, change_seq=3, built_seq=3)
        executor.loader.build_graph()
        executor.migrate([AFTER])
    finally:
        executor.loader.build_graph()
        executor.migrate(executor.loader.graph.leaf_nodes())

    from scoring.standings import stale_stage_ids

    assert stale_stage_ids() == [late.pk]
