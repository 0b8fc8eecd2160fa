"""Stages named by the product before names had kinds get their kind, and read in the reader's
language from then on; names an organiser typed stay as typed."""

import pytest
from django.utils import translation

from tests.migrating import every_app_at, migrated

BEFORE = ("tournaments", "0011_stage_name_key")
AFTER = ("tournaments", "0012_stage_name_key_fill")

# name -> its kind once migrated ("" for a typed name)
NAMES = {
    "Qualifying": "qualifying",
    "Clasificatoria": "qualifying",  # made by a preset for a Spanish creator
    "Eliminatoria": "playoff",
    "Game": "game",
    "Partida": "game",
    "Final": "final",
    "Final (2)": "final#2",  # the worker's second final when the organiser had taken "Final"
    "Playoff level 2": "playoff_level:2",
    "Eliminatoria, nivel 3": "playoff_level:3",
    "Eliminatoria, nivel 3 (2)": "playoff_level:3#2",
    "Morning round": "",
    "qualifying": "",  # not as the product wrote it
    "Final (1)": "",  # no product name is a first copy
    "Playoff level 0": "",
}


def old_stages(apps):
    tournament = apps.get_model("tournaments", "Tournament").objects.create(
        name="Old event", slug="old-event", domino_set=12
    )
    stage_model = apps.get_model("tournaments", "Stage")
    return {
        name: stage_model.objects.create(
            tournament=tournament, order=order, name=name, domino_set=12, rounds=4,
            starting_double=12, table_size_min=2, table_size_max=4,
        ).pk
        for order, name in enumerate(NAMES, start=1)
    }  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_names_the_product_wrote_get_their_kind_and_typed_ones_stay():
    made = migrated(every_app_at(BEFORE), every_app_at(AFTER), old_stages)

    from tournaments.models import Stage

    stages = {name: Stage.objects.get(pk=pk) for name, pk in made.items()}
    assert {name: stage.name_key for name, stage in stages.items()} == NAMES
    with translation.override("en"):
        assert stages["Clasificatoria"].display_name == "Qualifying"
        assert stages["Eliminatoria, nivel 3 (2)"].display_name == "Playoff level 3 (2)"
    with translation.override("es"):
        assert stages["Qualifying"].display_name == "Clasificatoria"
        assert stages["Morning round"].display_name == "Morning round"
        assert stages["qualifying"].display_name == "qualifying"
