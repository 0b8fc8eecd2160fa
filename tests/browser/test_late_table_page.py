"""The stage's page when every table is full and late players wait, on a phone and a tablet at
100% and 200% text, in English and Spanish: both choices are offered (above the maximum, or a new
table), the new table's form fits without scrolling sideways, and ticking the waiting players
seats them at a new table whose card link and seats show at once."""

import os
from pathlib import Path

import pytest

from tables.models import Seat
from tests import factories
from tests.browser.conftest import PHONE, at_text_sizes, overflows_sideways, sign_in
from tests.scoring.helpers import play, seat_tables

pytestmark = pytest.mark.browser

TABLET = {"width": 820, "height": 1180}
SHOTS = Path(os.environ.get("ROUNDHOUSE_SHOTS", "/tmp/roundhouse-shots"))
LONG = "Consuelo Ibáñez de la Fuente y Villaseñor"


@pytest.fixture
def full(transactional_db):
    """Two full tables of 4 (the stage's most) with round 1 confirmed; three late players wait."""
    stage = factories.StageFactory(status="seated", rounds=4, table_size_min=3, table_size_max=4)
    tables = seat_tables(stage, [[f"{LONG} {t}{s}" for s in range(4)] for t in "AB"])
    for players in tables:
        play(stage, players, 1, [0, 5, 9, 12])
    waiting = [
        factories.PlayerFactory(tournament=stage.tournament, number=n, name=f"{LONG} {n}")
        for n in (21, 22, 23)
    ]
    organiser = factories.StaffFactory(tournament=stage.tournament, role="organiser").user
    return stage, waiting, organiser


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["phone", "tablet"])
def test_both_choices_fit_and_a_new_table_is_seated(new_page, full, locale, viewport):
    stage, waiting, organiser = full
    english = locale == "en-US"
    page = new_page(viewport, locale=locale)
    url = f"/t/{stage.tournament.slug}/manage/stages/{stage.order}/"
    sign_in(page, organiser.username, next_path=url)
    new_table = page.locator("#new-table")
    for size in at_text_sizes(page):
        assert page.locator("#tables-full").is_visible()
        assert new_table.is_visible()
        assert not overflows_sideways(page), f"the stage's page scrolls sideways at {size}"
        SHOTS.mkdir(parents=True, exist_ok=True)
        name = f"late-table-{viewport['width']}-{locale}-{size.rstrip('%')}.png"
        page.locator("section[aria-labelledby=late-h]").screenshot(path=str(SHOTS / name))
    heading = "Seat them at a new table" if english else "Sentarlos en una mesa nueva"
    assert new_table.locator("h3").inner_text() == heading
    assert page.locator("#id_from_round").input_value() == "2"
    for player in waiting:
        new_table.get_by_label(f"#{player.number} {player.name}").check()
    new_table.locator("button[type=submit]").click()
    page.wait_for_load_state()
    done = page.locator(".message.success").inner_text()
    opened = "Table 3 is new, from round 2" if english else "La mesa 3 es nueva, desde la ronda 2"
    assert opened in done
    assert not overflows_sideways(page)
    page.screenshot(path=str(SHOTS / f"late-table-done-{viewport['width']}-{locale}.png"))
    assert page.locator(".table-card").count() == 3
    assert Seat.objects.filter(stage=stage, table__number=3, from_round=2).count() == 3
