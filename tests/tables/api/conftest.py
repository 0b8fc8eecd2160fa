"""The stage of the tables API tests (tables of 3 or 4) and the calls they share."""

import pytest

from tests import factories
from tournaments.models import Player


@pytest.fixture
def stage(tournament):
    return factories.StageFactory(tournament=tournament, table_size_min=3, table_size_max=4)


def add_players(tournament, count: int, **fields) -> list[Player]:
    return [
        factories.PlayerFactory(tournament=tournament, number=n, **fields)
        for n in range(1, count + 1)
    ]


def seat(client, stage, **body):
    return client.post(f"/api/v1/stages/{stage.pk}/seat/", body, format="json")


def late(client, stage, player_id, **body):
    return client.post(
        f"/api/v1/stages/{stage.pk}/late-players/", {"player": player_id, **body}, format="json"
    )
