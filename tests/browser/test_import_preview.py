"""A corrected players list on a phone and a tablet: chosen as an update on the console, its
changes shown first and readable without sideways scrolling at 100% and 200% text, in both
languages; then applied."""

import pytest

from tests import factories
from tests.browser.conftest import PHONE, at_text_sizes, overflows_sideways, sign_in

pytestmark = pytest.mark.browser

TABLET = {"width": 820, "height": 1180}

CORRECTED = (
    "number,name,household,club\n"
    "1,Margaret Ellison-Whitfield,Ellison-Whitfield,Harbour Domino Club\n"
    "2,Harold Schmidt,,Lakeside\n"
    "3,Consuelo Ibáñez,Ibáñez,\n"
    "5,Bartholomew Okonkwo-Fitzgerald,,Harbour Domino Club\n"
)


@pytest.fixture
def desk(transactional_db):
    tournament = factories.TournamentFactory(name="Harbour Samboree", slug="harbour")
    entered = [("Margret Elison", "Elison"), ("Harold Schmidt", ""), ("Consuelo Ibanez", "")]
    for number, (name, household) in enumerate(entered, 1):
        factories.PlayerFactory(
            tournament=tournament, number=number, name=name, household=household
        )
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    return tournament, organiser


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["phone", "tablet"])
@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_a_corrected_list_is_previewed_then_applied(new_page, desk, viewport, locale, tmp_path):
    tournament, organiser = desk
    page = new_page(viewport, locale=locale)
    sign_in(page, organiser.username, next_path="/t/harbour/manage/")
    page.click("#add-players summary")
    page.set_input_files(
        "#id_file",
        {"name": "corrected.csv", "mimeType": "text/csv", "buffer": CORRECTED.encode()},
    )
    page.check("input[name=mode][value=update]")
    shot = f"{'phone' if viewport == PHONE else 'tablet'}-{locale[:2]}"
    page.locator("form[action$='/players/import/']").screenshot(
        path=str(tmp_path / f"import-form-{shot}.png")
    )
    page.click("form[action$='/players/import/'] button[type=submit]")
    page.wait_for_url("**/players/import/preview/")
    counts = page.inner_text("#import-counts")
    english = locale.startswith("en")
    assert counts == (
        "1 player will be added, 3 changed, 0 unchanged."
        if english
        else "Se añadirá 1 jugador, 3 con cambios, 0 sin cambios."
    )
    for size in at_text_sizes(page):
        assert not overflows_sideways(page), size
        page.screenshot(
            path=str(tmp_path / f"import-preview-{shot}-{size[:-1]}.png"), full_page=True
        )
    assert tournament.players.get(number=1).name == "Margret Elison"  # nothing saved yet
    page.click("button[name=apply]")
    page.wait_for_url("**/t/harbour/manage/")
    said = page.inner_text(".messages")
    assert ("Corrected: 3." if english else "Corregidos: 3.") in said
    assert tournament.players.get(number=1).name == "Margaret Ellison-Whitfield"
    assert tournament.players.get(number=5).club == "Harbour Domino Club"
