"""A rally on a phone (390x844) and a tablet (820x1180), at 100% and 200% text, in English and
Spanish: the chapter standings, the entry form, the projector and the organisers' page in view
without a sideways scroll; the standings refresh themselves when an event is decided."""

import pytest

from scoring.models import Placing
from tests.browser.conftest import PHONE, at_text_sizes, overflows_sideways, sign_in
from tests.rallies.helpers import rally

pytestmark = pytest.mark.browser
TABLET = {"width": 820, "height": 1180}


@pytest.fixture
def spring(transactional_db):
    return rally()


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["phone", "tablet"])
def test_the_rally_pages_fit_at_large_text_in_both_languages(new_page, spring, viewport):
    made, _events, organiser = spring
    page = new_page(viewport)
    for lang in ("en", "es"):
        for path in ("", "enter/", "screen/"):
            page.goto(f"/{lang}/rallies/{made.slug}/{path}")
            for size in at_text_sizes(page):
                assert not overflows_sideways(page), (lang, path, size)
    sign_in(page, organiser.username, next_path=f"/rallies/{made.slug}/manage/")
    for size in at_text_sizes(page):
        assert not overflows_sideways(page), ("manage", size)


def test_the_standings_refresh_themselves_when_an_events_placings_come(new_page, spring):
    made, (samboree, *_rest), _organiser = spring
    page = new_page(PHONE)
    page.goto(f"/en/rallies/{made.slug}/enter/")
    page.check(f"input[name=events][value='{samboree.pk}']")
    page.select_option("select[name=chapter]", "Wanderers")
    page.fill("input[name=name]", "Ann Abbott")
    page.fill("input[name=email]", "ann@example.org")
    page.click("main button[type=submit]")
    page.wait_for_url("**/schedule/**")
    page.goto(f"/en/rallies/{made.slug}/")
    assert "0" in page.locator(".rally-standings tbody tr").first.inner_text()
    player = samboree.tournament.players.get()
    stage = samboree.tournament.stages.get()
    Placing.objects.create(tournament=samboree.tournament, player=player, place=1, stage=stage)
    # The part polls every 15 s: the new version is drawn without a reload.
    page.wait_for_function(
        "() => document.querySelector('.rally-standings tbody tr').innerText.includes('10')",
        timeout=40_000,
    )
    assert "Wanderers" in page.locator(".rally-standings tbody tr").first.inner_text()


FULL_HD = {"width": 1920, "height": 1080}
# Whether any cell of the projector's tables hides part of its text (cut by an ellipsis or
# its column), or a table scrolls inside its box (its last column out of sight).
CUT = """() => [...document.querySelectorAll('.screen-table')].some(table =>
  table.scrollWidth > table.clientWidth + 1
  || table.getBoundingClientRect().right > document.documentElement.clientWidth + 1
  || [...table.querySelectorAll('td, th')].some(cell => cell.scrollWidth > cell.clientWidth + 1))"""


def test_the_projector_shows_each_event_name_and_the_points_whole(new_page, spring):
    made, events, _organiser = spring
    for event in events:  # names as long as a real rally's
        event.tournament.name = f"Desert Sands {event.tournament.name}"
        event.tournament.save(update_fields=["name"])
    for viewport in (FULL_HD, PHONE):
        page = new_page(viewport)
        for lang in ("en", "es"):
            page.goto(f"/{lang}/rallies/{made.slug}/screen/")
            assert "Desert Sands Spring Samboree" in page.locator(".screen-table").last.inner_text()
            for size in at_text_sizes(page):
                assert not page.evaluate(CUT), (viewport, lang, size)
                assert not overflows_sideways(page), (viewport, lang, size)
        page.close()
