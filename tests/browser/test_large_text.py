"""The entry page and a table's score sheet at 200% text on a phone and a tablet, and the
projector filling its screen (WCAG 1.4.4 and 1.4.10): no sideways scroll, no name broken inside
a word, touch targets of at least 48 px, and the projector's rows using the screen's height.

Text at 200% is what a tablet's or phone's "larger text" setting does: the root font size
doubled. With ROUNDHOUSE_SCREENSHOTS=<dir> (docs/screenshots for README.md's pictures), the
entry page at 200% and the sheet on a phone are saved there (entry-200-tablet-es.png).
"""

import os
from pathlib import Path

import pytest
from django.test import Client
from playwright.sync_api import expect

from tests import factories
from tests.browser.conftest import PHONE, overflows_sideways, sign_in
from tests.scoring.helpers import close, play, play_stage, qualifying_with_tables, seat_tables
from tournaments.models import Stage

pytestmark = pytest.mark.browser

TABLET = {"width": 820, "height": 1180}
SIZES = {"phone": PHONE, "tablet": TABLET}
SHOTS = os.environ.get("ROUNDHOUSE_SCREENSHOTS", "")
NAMES = ["Margaret Ellison-Whitfield", "Harold Schmidt", "Consuelo Ibáñez de la Fuente", "Veronika"]

# Each word of the text inside the elements, split where a line may break (a space or a
# hyphen): the words laid out on more than one line (broken inside themselves).
BROKEN_WORDS = """(selector) => {
  const broken = [];
  for (const element of document.querySelectorAll(selector)) {
    if (!element.getClientRects().length) continue;  // not shown
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const match of node.data.matchAll(/[^\\s\\-\\u2010]+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index);
        range.setEnd(node, match.index + match[0].length);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(match[0]);
      }
    }
  }
  return broken;
}"""

# The entry page's controls, shown, smaller than a thumb (48 CSS px either way).
SMALL_TARGETS = """() => [...document.querySelectorAll(
    "main input:not([type=hidden]):not([type=radio]):not([type=checkbox]), main button, "
    + "main .went-out, main .unusual-check, main .round-nav a")]
  .filter((e) => e.getClientRects().length)
  .map((e) => [e.id || e.className || e.innerText, e.getBoundingClientRect()])
  .filter(([, r]) => r.width < 47.5 || r.height < 47.5)
  .map(([name, r]) => `${name} ${Math.round(r.width)}x${Math.round(r.height)}`)"""


def larger_text(page) -> None:
    page.evaluate("() => { document.documentElement.style.fontSize = '200%'; }")
    page.wait_for_timeout(50)


def shoot(page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


@pytest.fixture
def table_of_long_names(transactional_db):
    """A table of four with long names, round 1 confirmed, round 2 to enter."""
    stage = factories.StageFactory(status="seated", rounds=4, order=1, table_size_max=4)
    (players,) = seat_tables(stage, [NAMES])
    play(stage, players, 1, [0, 12, 30, 7])
    official = factories.StaffFactory(tournament=stage.tournament, role="official").user
    return stage, official


@pytest.mark.parametrize("text", ["100", "200"])
@pytest.mark.parametrize("size", SIZES, ids=SIZES.keys())
@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_the_entry_page_reflows_with_large_text(new_page, table_of_long_names, size, text, locale):
    stage, official = table_of_long_names
    table = stage.tables.get()
    page = new_page(SIZES[size], locale=locale)
    sign_in(page, official.username, next_path=f"/t/{stage.tournament.slug}/enter/{table.pk}/2/")
    if text == "200":
        larger_text(page)
    assert not overflows_sideways(page), "the entry page scrolls sideways"
    broken = page.evaluate(BROKEN_WORDS, ".player-name, .went-out, .entry h1, .engine")
    assert not broken, f"words broken inside themselves: {broken}"
    assert not page.evaluate(SMALL_TARGETS), "controls smaller than 48 px"
    # Each pips field still beside or under its own name, wide enough for three digits.
    for name in NAMES:
        row = page.locator(".player-row", has_text=name)
        assert row.locator("input.pips").bounding_box()["width"] >= 90
    if text == "200" and (size, locale) in {("tablet", "en-US"), ("tablet", "es-ES")}:
        shoot(page, f"entry-200-tablet-{locale[:2]}")
    if text == "200" and (size, locale) == ("phone", "en-US"):
        shoot(page, "entry-200-phone-en")


@pytest.mark.parametrize("text", ["100", "200"])
@pytest.mark.parametrize("size", SIZES, ids=SIZES.keys())
@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_a_tables_score_sheet_reads_without_sideways_scroll(
    new_page, table_of_long_names, size, text, locale
):
    stage, _ = table_of_long_names
    page = new_page(SIZES[size], locale=locale)
    page.goto(f"/t/{stage.tournament.slug}/tables/1/1/")
    if text == "200":
        larger_text(page)
    assert not overflows_sideways(page), "the sheet's page scrolls sideways"
    scrolling = page.evaluate(
        "() => [...document.querySelectorAll('#sheet *')].filter((e) => e.getClientRects().length"
        " && !e.closest('.visually-hidden') && e.scrollWidth > e.clientWidth + 1"
        " && getComputedStyle(e).overflowX !== 'visible')"
        ".map((e) => e.className || e.tagName)"
    )
    assert not scrolling, f"parts of the sheet scroll sideways: {scrolling}"
    shown = page.locator("#sheet").inner_text()
    for name in NAMES:  # every player, the fourth too, in full
        assert name in shown
    # Players across on a tablet at ordinary size; one card per player where they do not fit,
    # each with its own round's pips and total (seat 3 scored 30 in round 1).
    across = size == "tablet" and text == "100"
    assert page.locator("table.sheet").is_visible() == across
    assert page.locator(".sheet-players").is_visible() != across
    if not across:
        for name, pips in [("Harold", "12"), ("Consuelo", "30")]:
            card = page.locator(".sheet-players > li", has_text=name)
            assert card.locator(".sheet-rounds li strong").all_inner_texts() == [pips]
            assert card.locator(".sheet-total strong").inner_text() == pips
    broken = page.evaluate(BROKEN_WORDS, "#sheet a, #sheet h3, #sheet th")
    assert not broken, f"words broken inside themselves: {broken}"
    if size == "phone" and text == "100":
        shoot(page, f"sheet-phone-{locale[:2]}")


PROJECTORS = {"1080p": (1920, 1080), "4k": (3840, 2160), "4:3": (1024, 768)}


@pytest.fixture
def hall(transactional_db):
    """36 players, every round confirmed, the stage not closed."""
    stage = factories.StageFactory(status="seated", rounds=2, order=1, table_size_max=3)
    seat_tables(stage, [[f"Player {t}{s} Ellison-Whitfield" for s in range(3)] for t in range(12)])
    play_stage(stage)
    return stage.tournament


@pytest.mark.parametrize("size", PROJECTORS.values(), ids=PROJECTORS.keys())
def test_the_projectors_rows_fill_the_screen(new_page, hall, size):
    width, height = size
    page = new_page({"width": width, "height": height})
    page.goto(f"/t/{hall.slug}/screen/")
    assert page.locator(".screen-table td.name").count() == 30
    bottom = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('main *')]"
        ".map(e => e.getBoundingClientRect().bottom))"
    )
    assert bottom <= height, f"the page ends at {bottom}px on a {height}px screen"
    tables_end = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('.screen-table')]"
        ".map(e => e.getBoundingClientRect().bottom))"
    )
    assert tables_end >= 0.85 * height, f"the rows end at {tables_end}px of {height}px"
    name_size = page.evaluate(
        "() => parseFloat(getComputedStyle(document.querySelector('.screen-table td')).fontSize)"
    )
    assert name_size >= height / 40, f"{name_size}px text on a {height}px screen"
    assert page.locator("#newest-h").count() == 1  # still playing: "Newest results"


@pytest.fixture
def finished(transactional_db):
    """Qualifying of nine at three tables, then the final of its winners, both closed."""
    tournament = factories.TournamentFactory()
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    client = Client()
    client.force_login(organiser)
    stage = qualifying_with_tables(tournament, [3] * 3)
    play_stage(stage)
    assert close(client, stage).status_code == 202
    final = Stage.objects.get(source_stage=stage)
    play_stage(final)
    assert close(client, final).status_code == 202
    return tournament


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
@pytest.mark.parametrize("size", [(1920, 1080), (1024, 768)], ids=["1080p", "4:3"])
def test_the_finished_events_projector_shows_the_podium_and_final_standings_only(
    new_page, finished, size, locale
):
    width, height = size
    page = new_page({"width": width, "height": height}, locale=locale)
    page.goto(f"/t/{finished.slug}/screen/")
    main = page.inner_text("main")
    assert page.locator(".podium .placings li").count() == 3
    assert page.locator(".screen-table td.name").count() == 3  # the final's table
    assert page.locator("#newest-h").count() == 0  # "Newest results"
    assert "results in" not in main and "resultados recibidos" not in main  # none to come
    bottom = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('main *')]"
        ".map(e => e.getBoundingClientRect().bottom))"
    )
    assert bottom <= height
    crowded = page.evaluate(
        "() => [...document.querySelectorAll('.screen-table th')]"
        ".filter(th => th.scrollWidth > th.clientWidth).map(th => th.innerText)"
    )
    assert not crowded, f"headings wider than their column: {crowded}"


@pytest.mark.parametrize("size", SIZES, ids=SIZES.keys())
@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_a_round_opened_offline_says_it_is_the_tablets_copy_at_200_percent_text(
    new_page, table_of_long_names, size, locale
):
    stage, official = table_of_long_names
    table = stage.tables.get()
    page = new_page(SIZES[size], locale=locale)
    sign_in(page, official.username, next_path=f"/t/{stage.tournament.slug}/enter/{table.pk}/2/")
    expect(page.locator("nav.round-nav")).to_have_attribute("data-kept", "4")
    page.context.set_offline(True)
    page.locator("nav.round-nav a").nth(2).click()  # round 3
    page.wait_for_url(f"**/enter/{table.pk}/3/")
    larger_text(page)
    notice = page.locator("#offline-copy")
    expect(notice).to_be_visible()
    words = {"en-US": "Offline: this is the copy", "es-ES": "Sin conexión: esta es la copia"}
    expect(notice).to_contain_text(words[locale])
    expect(notice).to_be_in_viewport()  # said where the page opens, above the form
    assert not overflows_sideways(page), "the page scrolls sideways"
    broken = page.evaluate(BROKEN_WORDS, "#offline-copy, .entry h1")
    assert not broken, f"words broken inside themselves: {broken}"
    shoot(page, f"entry-offline-copy-200-{size}-{locale[:2]}")


@pytest.mark.parametrize("size", SIZES, ids=SIZES.keys())
@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_all_tables_opened_offline_says_it_is_the_tablets_copy_at_200_percent_text(
    new_page, table_of_long_names, size, locale
):
    stage, official = table_of_long_names
    table = stage.tables.get()
    page = new_page(SIZES[size], locale=locale)
    sign_in(page, official.username, next_path=f"/t/{stage.tournament.slug}/enter/{table.pk}/2/")
    expect(page.locator("html")).to_have_attribute("data-kept-done", "1", timeout=20_000)
    page.context.set_offline(True)
    menu = page.locator("details.menu summary")
    if menu.is_visible():
        menu.click()  # a phone's Menu holds All tables
    page.locator(".site-nav a").first.click()  # All tables
    page.wait_for_url(f"**/t/{stage.tournament.slug}/enter/")
    larger_text(page)
    notice = page.locator("#offline-copy")
    expect(notice).to_be_visible()
    # A phone's Menu closes as the copy opens, as it does when a page opens.
    assert page.evaluate("() => document.querySelector('details.menu').open") is False
    words = {"en-US": "copy of this list", "es-ES": "copia de esta lista"}
    expect(notice).to_contain_text(words[locale])
    expect(notice).to_be_in_viewport()  # said where the page opens, above the tables
    assert not overflows_sideways(page), "the page scrolls sideways"
    broken = page.evaluate(BROKEN_WORDS, "#offline-copy, h1")
    assert not broken, f"words broken inside themselves: {broken}"
    shoot(page, f"enter-home-offline-copy-200-{size}-{locale[:2]}")
