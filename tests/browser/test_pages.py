"""Pages stay usable with the text enlarged to 200%, on a phone and a tablet, and read without
JavaScript."""

import pytest

from tests import factories
from tests.browser.conftest import PHONE, TABLET, overflows_sideways, sign_in
from tests.scoring.helpers import play_stage, seat_tables

pytestmark = pytest.mark.browser


@pytest.fixture
def event(transactional_db):
    stage = factories.StageFactory(status="seated", rounds=3, order=1, table_size_max=4)
    seat_tables(
        stage,
        [
            ["Margaret Ellison-Whitfield", "Bob Ortiz", "Consuelo Ibáñez", "Di Lee"],
            ["Ed Hughes", "Flo Ng", "Gus Hall"],
        ],
    )
    play_stage(stage)
    official = factories.StaffFactory(tournament=stage.tournament, role="official").user
    return stage.tournament, official


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["phone", "tablet"])
def test_text_at_200_percent_does_not_break_the_layout(new_page, event, viewport):
    tournament, official = event
    page = new_page(viewport)
    sign_in(page, official.username, next_path=f"/t/{tournament.slug}/enter/")
    paths = [
        f"/t/{tournament.slug}/",
        f"/t/{tournament.slug}/players/1/",
        f"/t/{tournament.slug}/tables/1/1/",
        f"/t/{tournament.slug}/enter/",
        f"/t/{tournament.slug}/bracket/",
        "/accounts/login/",
    ]
    for path in paths:
        page.goto(path)
        page.evaluate("() => { document.documentElement.style.fontSize = '200%'; }")
        page.wait_for_timeout(50)
        assert not overflows_sideways(page), f"{path} scrolls sideways at 200% text"


def test_public_pages_read_without_javascript(browser, live_server, event):
    tournament, _ = event
    context = browser.new_context(java_script_enabled=False, base_url=live_server.url)
    try:
        page = context.new_page()
        page.goto(f"/t/{tournament.slug}/")
        assert "Margaret Ellison-Whitfield" in page.inner_text("main")
        assert "7 of 7" not in page.inner_text("main")  # 2 tables x 3 rounds
        assert "6 of 6 results in." in page.inner_text("main")
        page.goto(f"/t/{tournament.slug}/players/3/")
        assert "Consuelo Ibáñez" in page.inner_text("h1")
    finally:
        context.close()
