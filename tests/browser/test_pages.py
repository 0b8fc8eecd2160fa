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
        f"/t/{tournament.slug}/how-it-works/",
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


PROJECTORS = {"720p": (1280, 720), "1080p": (1920, 1080), "4:3": (1024, 768), "wxga": (1366, 768)}


@pytest.fixture
def hall(transactional_db):
    """36 players, some with long names, every round confirmed."""
    stage = factories.StageFactory(status="seated", rounds=2, order=1, table_size_max=3)
    long = "Margaret Ellison-Whitfield-Papadopoulos"
    seat_tables(stage, [[f"{long} {t}{s}" for s in range(3)] for t in range(12)])
    play_stage(stage)
    return stage.tournament


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
@pytest.mark.parametrize("size", PROJECTORS.values(), ids=PROJECTORS.keys())
def test_a_projector_page_fits_the_screen_unscrolled(new_page, hall, size, locale):
    width, height = size
    page = new_page({"width": width, "height": height}, locale=locale)
    page.goto(f"/t/{hall.slug}/screen/")
    assert page.locator(".screen-table td.name").count() == 30  # a page: two columns of 15
    assert not overflows_sideways(page)
    crowded = page.evaluate(
        "() => [...document.querySelectorAll('.screen-table th')]"
        ".filter(th => th.scrollWidth > th.clientWidth).map(th => th.innerText)"
    )
    assert not crowded, f"headings wider than their column: {crowded}"
    bottom = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('main *')]"
        ".map(e => e.getBoundingClientRect().bottom))"
    )
    assert bottom <= height, f"the page ends at {bottom}px on a {height}px screen"
    rows_end = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('.screen-table tr')]"
        ".map(e => e.getBoundingClientRect().bottom))"
    )
    assert rows_end >= 0.8 * height, f"the rows end at {rows_end}px: the screen's foot is empty"
    smallest = page.evaluate(
        "() => Math.min(...[...document.querySelectorAll('.screen-table td')]"
        ".map(e => parseFloat(getComputedStyle(e).fontSize)))"
    )
    assert smallest >= 18  # readable across a hall
