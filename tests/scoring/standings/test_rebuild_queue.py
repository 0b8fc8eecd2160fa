"""Small stages' rebuilds on a queue of their own (settings.STANDINGS_SMALL_QUEUE): a club
night's result never waits behind a 500-player event's rebuild (docs/PERFORMANCE.md,
"Saturday")."""

import pytest

from scoring.standings.requests import rebuild_queue
from tests import factories


def seated(stage, players: int) -> None:
    for n in range(players // 4):
        table = factories.TableFactory(stage=stage, number=n + 1)
        for position in range(1, 5):
            factories.SeatFactory(table=table, position=position)


@pytest.fixture
def stage(db):
    return factories.StageFactory(table_size_min=4, table_size_max=4)


def test_a_stage_of_few_players_rebuilds_on_the_small_queue(stage, settings):
    settings.STANDINGS_SMALL_QUEUE = "roundhouse-small"
    settings.STANDINGS_SMALL_PLAYERS = 8
    seated(stage, 8)
    assert rebuild_queue(stage.pk) == "roundhouse-small"


def test_a_stage_of_more_players_rebuilds_on_the_default_queue(stage, settings):
    settings.STANDINGS_SMALL_QUEUE = "roundhouse-small"
    settings.STANDINGS_SMALL_PLAYERS = 8
    seated(stage, 12)
    assert rebuild_queue(stage.pk) is None


def test_without_a_small_queue_every_rebuild_is_on_the_default_queue(stage, settings):
    settings.STANDINGS_SMALL_QUEUE = ""
    seated(stage, 4)
    assert rebuild_queue(stage.pk) is None
