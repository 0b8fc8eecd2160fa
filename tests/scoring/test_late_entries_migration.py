"""Stages with a late entry have their standings rebuilt once, so that rounds_played counts
only the rounds played there (a missed round filled by the stage's rule used to count)."""

import pytest

from tests.migrating import every_app_at, migrated

BEFORE = ("scoring", "0005_standing_row_digest")
AFTER = ("scoring", "0006_late_entries_rounds_played")


def two_stages(apps):
    """A stage with a late entry and one without, their standings current; the first."""
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
    return late


@pytest.mark.django_db(transaction=True)
def test_stages_with_a_late_entry_are_marked_for_a_rebuild():
    late = migrated(every_app_at(BEFORE), [AFTER], two_stages)

    from scoring.standings import stale_stage_ids

    assert stale_stage_ids() == [late.pk]
