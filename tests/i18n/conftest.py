"""English and Spanish: a seated table of four to read pages about, and how to ask in Spanish."""

import pytest

from tests import factories

SPANISH = {"HTTP_ACCEPT_LANGUAGE": "es"}


@pytest.fixture
def table(tournament):
    """Table 1 of a seated four-round stage from double-12: Ann, Bob, Cy and Di."""
    stage = factories.StageFactory(tournament=tournament, order=1, status="seated")
    table = factories.TableFactory(stage=stage, number=1)
    for position, name in enumerate(["Ann", "Bob", "Cy", "Di"], start=1):
        player = factories.PlayerFactory(tournament=tournament, number=position, name=name)
        factories.SeatFactory(table=table, player=player, position=position)
    return table


@pytest.fixture
def players(table):
    return [seat.player for seat in table.seats.order_by("position")]


def page(client, url: str, **headers) -> str:
    response = client.get(url, **headers)
    assert response.status_code == 200, url
    return response.content.decode()
