"""The progress board on an organiser's phone, at 100% and 200% text, in English and Spanish, on
its own page and in the console's Progress tab: every table's latest round in view without a
sideways scroll, a key that says the symbols in words, each round a link, "Table 10" on one line."""

import pytest

from tests import factories
from tests.browser.conftest import PHONE, at_text_sizes, overflows_sideways, sign_in
from tests.scoring.helpers import play, seat_tables

pytestmark = pytest.mark.browser

KEY = {"en-US": "confirmed", "es-ES": "confirmada"}

# Each round's box on the board: its link, its round's number and where it ends on the right.
BOXES = """() => [...document.querySelectorAll(".board td > .chip")].map((e) => ({
  link: e.tagName === "A" && !!e.getAttribute("href"),
  right: e.getBoundingClientRect().right,
  round: e.querySelector(".chip-round").innerText,
}))"""


@pytest.fixture
def half_played(transactional_db):
    """Ten tables of three, four rounds: 1 and 2 confirmed, 3 to check at table 1."""
    stage = factories.StageFactory(status="seated", rounds=4, order=1, table_size_max=3)
    tables = seat_tables(stage, [[f"P{t}{s}" for s in range(3)] for t in range(10)])
    for players in tables:
        for round_no in (1, 2):
            play(stage, players, round_no, [0, 5, 10])
    play(stage, tables[0], 3, [0, 5, 10], status="submitted")
    organiser = factories.StaffFactory(tournament=stage.tournament, role="organiser").user
    return stage, organiser


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_the_progress_board_shows_every_round_on_a_phone(new_page, half_played, locale):
    stage, organiser = half_played
    slug = stage.tournament.slug
    page = new_page(PHONE, locale=locale)
    sign_in(page, organiser.username, next_path=f"/t/{slug}/manage/")
    for path in (f"/t/{slug}/manage/stages/1/progress/", f"/t/{slug}/manage/progress/"):
        page.goto(path)
        page.wait_for_selector(".board a.chip")  # the console's tab loads it
        for size in at_text_sizes(page):
            where = f"{path} {locale} {size}"
            assert not overflows_sideways(page), where
            box = page.locator(".progress .scroll")
            assert box.evaluate("(e) => e.scrollWidth <= e.clientWidth + 1"), where
            boxes = page.evaluate(BOXES)
            assert len(boxes) == 40, where
            assert all(b["link"] for b in boxes), f"{where}: a round that is not a link"
            assert [b["round"] for b in boxes[:4]] == ["1", "2", "3", "4"], where
            off = [b for b in boxes if b["right"] > PHONE["width"]]
            assert not off, f"{where}: {len(off)} rounds off the screen's right"
            key = page.locator(".board-key")
            assert key.is_visible() and KEY[locale] in key.inner_text(), where
            names = page.locator(".board th[scope=row] .nowrap")
            assert names.count() == 10
            assert names.nth(9).evaluate("(e) => e.getClientRects().length") == 1, where
