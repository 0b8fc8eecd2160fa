"""The standings of a large stage on a phone, at 100% and 200% text, in English and Spanish:
the page links fit without a sideways scroll, each is a large target, the next page is a link
at the end of the rows, and a page of rows stays on its rows when it refreshes itself."""

import os
import re
from pathlib import Path

import pytest

from scoring import standings_html
from tests import factories
from tests.browser.conftest import PHONE, at_text_sizes, overflows_sideways
from tests.scoring.helpers import play_stage, seat_tables

pytestmark = pytest.mark.browser

# With ROUNDHOUSE_SCREENSHOTS=<dir>, a full-page PNG of each language and text size there.
SHOTS = os.environ.get("ROUNDHOUSE_SCREENSHOTS", "")
# What a refresh does: the part fetched again at its own address (its hx-get) and swapped in.
REFRESH = """() => htmx.ajax("GET", document.querySelector("#standings").getAttribute("hx-get"),
  {source: "#standings", target: "#standings"})"""
NEXT = {"en-US": "Next: places 51 to 100", "es-ES": "Siguientes: puestos del 51 al 100"}


@pytest.fixture
def large(transactional_db, monkeypatch):
    """104 players at 26 tables of 4, both rounds played: three pages of rows, as pages of 50
    (100 as built: the same paging with a field a third the size)."""
    monkeypatch.setattr(standings_html, "ROWS_PER_PAGE", 50)
    stage = factories.StageFactory(status="seated", rounds=2, order=1)
    seat_tables(stage, [[f"Player {t:02d}-{s}" for s in range(4)] for t in range(26)])
    play_stage(stage, score_of=lambda seat, round_no: (seat.table.number * 7 + seat.position) % 31)
    return stage


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_a_phone_pages_through_the_standings(new_page, large, locale):
    slug = large.tournament.slug
    page = new_page(PHONE, locale=locale)
    page.goto(f"/t/{slug}/")
    rows = page.locator("table.standings tbody tr")
    assert rows.count() == 50
    for size in at_text_sizes(page):
        where = f"{locale} {size}"
        assert not overflows_sideways(page), where
        links = page.locator(".rows-switch a")
        assert links.count() == 4, where
        for i in range(4):
            box = links.nth(i).bounding_box()
            assert box["height"] >= 44 and box["x"] + box["width"] <= PHONE["width"], where
        if SHOTS:
            shot = Path(SHOTS) / f"standings-pages-phone-{locale}-{size.rstrip('%')}.png"
            page.screenshot(path=str(shot), full_page=True)
    page.evaluate("() => { document.documentElement.style.fontSize = ''; }")
    page.get_by_role("link", name=re.compile(NEXT[locale])).click()
    page.wait_for_url(re.compile(r"\?page=2#standings$"))
    assert rows.count() == 50
    first = rows.first.locator("td").nth(1).inner_text()
    current = page.locator(".rows-switch a[aria-current=page]")
    assert current.inner_text().endswith("51\N{EN DASH}100")
    # Its own refresh (htmx's, as every 5 s or after a new version) keeps it on these rows.
    with page.expect_response(lambda r: "page=2" in r.url and r.status == 200):
        page.evaluate(REFRESH)
    page.wait_for_function("() => !document.querySelector('#standings.htmx-swapping')")
    assert rows.count() == 50
    assert rows.first.locator("td").nth(1).inner_text() == first
    assert current.inner_text().endswith("51\N{EN DASH}100")
