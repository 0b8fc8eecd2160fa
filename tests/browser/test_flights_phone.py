"""The flights on an organiser's phone, at 100% and 200% text, in English and Spanish: the
divisions' page with its flights, the split and the organiser's list, without a sideways scroll
of the page; the list's fields a finger's size and, at 100%, the list without a scroll of its
own."""

import pytest

from tests import factories
from tests.browser.conftest import PHONE, at_text_sizes, overflows_sideways, sign_in
from tournaments import services

pytestmark = pytest.mark.browser

HEADING = {"en-US": "Flights", "es-ES": "Grupos"}


@pytest.fixture
def flighted(transactional_db):
    tournament = factories.TournamentFactory()
    names = ["Bartholomew Featherstonehaugh", "María José Peña", "Ann Lee", "Bob Jones",
             "Cy Young", "Di Prince"]  # fmt: skip
    players = [
        factories.PlayerFactory(tournament=tournament, number=n, name=name)
        for n, name in enumerate(names, start=101)
    ]
    services.assign_flights(
        tournament=tournament, flights={p.pk: "A" if i < 3 else "B" for i, p in enumerate(players)}
    )
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    return tournament, organiser


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_the_flights_fit_a_phone(new_page, flighted, locale):
    tournament, organiser = flighted
    page = new_page(PHONE, locale=locale)
    path = f"/t/{tournament.slug}/manage/divisions/"
    sign_in(page, organiser.username, next_path=path)
    assert page.locator("#flights-h").inner_text() == HEADING[locale]
    page.click("#flights-list summary")
    for size in at_text_sizes(page):
        where = f"{locale} {size}"
        assert not overflows_sideways(page), where
        field = page.locator("#flights-list input[type=text]").first
        assert field.is_visible(), where
        assert field.bounding_box()["height"] >= 48, where
        if size == "100%":
            box = page.locator("#flights-list .scroll")
            assert box.evaluate("(e) => e.scrollWidth <= e.clientWidth + 1"), where
