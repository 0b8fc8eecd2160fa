"""A game seated from the game before, read on a phone at 200% text: the player's page says
where they sit and where they came from, the projector lists where everyone sits; neither
scrolls sideways, in English or Spanish."""

import pytest

from scoring.services import closing
from tables.models import Seat
from tests import factories
from tests.browser.conftest import PHONE, overflows_sideways
from tests.scoring.helpers import play_stage, seat_tables

pytestmark = pytest.mark.browser


@pytest.fixture
def moved(transactional_db):
    """Game 1 at three tables of four with long names, closed; game 2 seated by the move."""
    game1 = factories.StageFactory(
        name="Game 1", status="seated", rounds=2, order=1, table_size_min=3, table_size_max=4
    )
    names = [[f"Consuelo {t}{s} Ibáñez de la Fuente" for s in range(4)] for t in range(3)]
    seat_tables(game1, names)
    factories.StageFactory(
        tournament=game1.tournament,
        name="Game 2",
        order=2,
        rounds=2,
        table_size_min=3,
        table_size_max=4,
        carry_forward=True,
        movement="move",
        move_count=1,
    )
    play_stage(game1)
    closing.close_stage(stage=game1, by=None)
    return game1.tournament


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_where_to_sit_fits_a_phone_at_200_percent(new_page, moved, locale):
    seat = Seat.objects.get(stage__order=2, player__number=5)  # table 2's best: moved up
    page = new_page(PHONE, locale=locale)
    page.goto(f"/t/{moved.slug}/players/5/")
    page.evaluate("() => { document.documentElement.style.fontSize = '200%'; }")
    assert not overflows_sideways(page), "the player's page scrolls sideways"
    line = page.locator(".seat-line").first.inner_text()  # game 2's, the latest first
    assert seat.table.number == 1
    assert line.startswith("Game 2: ") and line.split()[-1].startswith("2")  # from table 2
    page.goto(f"/t/{moved.slug}/screen/")
    page.evaluate("() => { document.documentElement.style.fontSize = '200%'; }")
    assert not overflows_sideways(page), "the projector scrolls sideways"
    assert page.locator(".screen-table td.name").count() == 12
