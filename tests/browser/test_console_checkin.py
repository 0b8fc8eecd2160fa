"""The console on a phone at the check-in desk: a name typed, the answer beside the box and in
the player's row with no reload; no sideways scroll at 100% or 200% text, in both languages. The
screenshots README.md shows are written to docs/screenshots/."""

from pathlib import Path

import pytest
from django.conf import settings
from playwright.sync_api import expect

from tests import factories
from tests.browser.conftest import PHONE, overflows_sideways, sign_in

pytestmark = pytest.mark.browser

SHOTS = Path(settings.BASE_DIR) / "docs" / "screenshots"


@pytest.fixture
def desk(transactional_db):
    tournament = factories.TournamentFactory(name="Harbour Samboree", slug="harbour")
    factories.StageFactory(tournament=tournament, order=1, name="Qualifying")
    names = ["Margaret Ellison-Whitfield", "Harold Schmidt", "Consuelo Ibáñez", "Ann Baker"]
    for number, name in enumerate(names, 1):
        factories.PlayerFactory(tournament=tournament, number=number, name=name)
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    return tournament, organiser


@pytest.mark.parametrize("text", ["100", "200"])
@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_check_in_at_the_desk_on_a_phone(new_page, desk, text, locale):
    tournament, organiser = desk
    page = new_page(PHONE, locale=locale)
    sign_in(page, organiser.username, next_path="/t/harbour/manage/")
    if text == "200":
        page.evaluate("() => { document.documentElement.style.fontSize = '200%'; }")
    page.evaluate("() => { window.stillTheSamePage = true; }")
    page.fill("#id_find", "harold")
    page.click(".check-in-find button[type=submit]")
    page.wait_for_selector("#check-in-said")
    said = page.inner_text("#check-in-said")
    assert "#2 Harold Schmidt" in said
    assert page.evaluate("() => window.stillTheSamePage") is True  # no reload
    row = page.inner_text(f"#player-{tournament.players.get(number=2).pk}")
    assert "#2 Harold Schmidt" in row  # the answer beside the player too
    assert tournament.players.get(number=2).status == "checked_in"
    assert not overflows_sideways(page)
    # The Check in box is the first thing under the tabs: no scrolling to reach it.
    assert page.locator("#id_find").bounding_box()["y"] < PHONE["height"]
    name = f"console-phone-{locale[:2]}" if text == "200" else f"console-phone-100-{locale[:2]}"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.fixture
def queue_at_the_desk(transactional_db, require_postgres):
    """A tournament of 40 players, none checked in, and its organiser."""
    tournament = factories.TournamentFactory(name="Harbour Samboree", slug="harbour")
    factories.StageFactory(tournament=tournament, order=1, name="Qualifying")
    for number in range(1, 41):
        factories.PlayerFactory(tournament=tournament, number=number, name=f"Player {number}")
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    return tournament, organiser


def test_check_in_at_a_scanners_speed_checks_in_every_badge_in_order(new_page, queue_at_the_desk):
    tournament, organiser = queue_at_the_desk
    page = new_page(PHONE)
    sign_in(page, organiser.username, next_path="/t/harbour/manage/")
    page.focus("#id_find")
    # A scanner: 40 badge numbers, each followed by Enter, with no pause between keys.
    page.keyboard.type("".join(f"{number}\n" for number in range(1, 41)))
    page.wait_for_function(
        "() => document.querySelectorAll('#check-in-earlier li').length === 39", timeout=60_000
    )
    expect(page.locator("#check-in-said")).to_contain_text("#40 Player 40 is checked in.")
    earlier = page.locator("#check-in-earlier li").all_inner_texts()
    assert earlier == [f"Done: #{n} Player {n} is checked in." for n in range(39, 0, -1)]
    assert tournament.players.filter(status="checked_in").count() == 40
    assert page.input_value("#id_find") == ""  # ready for the next scan
