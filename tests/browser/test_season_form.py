"""A season's form on a phone in Chromium: only the chosen ladder rule's fields show (CSS :has,
no script), the usual points are offered, and at 200% text, in English and Spanish, the form
and the players' linking page pass test_every_page_fits' measure."""

import pytest

from tests import factories
from tests.browser.conftest import PHONE, sign_in
from tests.browser.test_every_page_fits import MEASURE, set_text_size

pytestmark = pytest.mark.browser


def shown(page) -> dict[str, bool]:
    return {
        name: page.locator(f"#id_{name}").is_visible()
        for name in ("points_table", "best_n", "min_rounds")
    }


@pytest.mark.parametrize("language", ["en", "es"])
def test_season_form_shows_only_the_chosen_rules_fields_on_a_phone(
    new_page, transactional_db, language
):
    club = factories.ClubFactory(name="Lakeside Mexican Train Club", slug="lakeside")
    organiser = factories.ClubOrganiserFactory(club=club).user
    owned = factories.ClubTournamentFactory(club=club)
    factories.MemberFactory(club=club, name="Renée Peña")
    factories.PlayerFactory(tournament=owned.tournament, name="Renee Pena")
    page = new_page(PHONE, locale=language)
    sign_in(page, organiser.username, next_path=f"/clubs/{club.slug}/seasons/new/")
    assert page.locator("#id_points_table").input_value() == "10, 8, 6, 5, 4, 3, 2, 1"
    assert shown(page) == {"points_table": True, "best_n": False, "min_rounds": False}
    page.check("input[name=rule][value=best_n]")
    assert shown(page) == {"points_table": True, "best_n": True, "min_rounds": False}
    page.check("input[name=rule][value=average]")
    assert shown(page) == {"points_table": False, "best_n": False, "min_rounds": True}
    for size in ("", "200%"):
        if size:
            set_text_size(page, size)
        page.wait_for_timeout(30)
        assert page.evaluate(MEASURE) == [], size
    page.goto(f"/t/{owned.tournament.slug}/manage/members/")
    page.click("#same-names button")
    assert page.locator("#just-linked").is_visible()
    set_text_size(page, "200%")
    page.wait_for_timeout(30)
    assert page.evaluate(MEASURE) == []
