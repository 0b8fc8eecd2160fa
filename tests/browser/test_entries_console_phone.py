"""The console's Entries section on an organiser's phone (390x844), at 100% and 200% text: the
tab marked, the settings, the entry link and its code, the counts and the list in view without
a sideways scroll; a waiting entry moved down from the list, and one refused from its page after
ticking the box, each said done with how to undo it.

With ROUNDHOUSE_GUIDE_SHOTS=<dir> it saves the pictures of docs/guide/taking-entries.md there
(entries-section-phone.png, entries-list-phone.png, entries-refuse-phone.png)."""

import io
import os
from decimal import Decimal
from pathlib import Path

import pytest

from entries.models import Entry
from tests import factories
from tests.browser.conftest import PHONE, at_text_sizes, overflows_sideways, sign_in
from tests.entries.helpers import enter, open_tournament

pytestmark = pytest.mark.browser
GUIDE_SHOTS = os.environ.get("ROUNDHOUSE_GUIDE_SHOTS", "")


def guide_shot(page, name: str, at: str) -> None:
    """The visible part of the page, `at` scrolled to its top, as the guides' pictures are
    saved (docs/guide/screenshots.py: at most 256 colours)."""
    if not GUIDE_SHOTS:
        return
    page.locator(at).first.evaluate("el => el.scrollIntoView({block: 'start'})")
    png = page.screenshot()
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=256)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    (Path(GUIDE_SHOTS) / f"{name}.png").write_bytes(buffer.getvalue())


@pytest.fixture
def taking_entries(transactional_db):
    tournament = open_tournament(capacity=1, entry_fee=Decimal("12.00"), currency="EUR")
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    for name in ["Ann Abbott", "Bob Brown", "Cy Cole", "Maria de los Ángeles Fernández"]:
        enter(tournament, name)
    return tournament, organiser


def test_the_entries_section_on_a_phone(new_page, taking_entries):
    tournament, organiser = taking_entries
    base = f"/t/{tournament.slug}/manage/entries/"
    page = new_page(PHONE)
    sign_in(page, organiser.username, next_path=base)
    guide_shot(page, "entries-section-phone", "#entries-h")
    guide_shot(page, "entries-list-phone", "#entry-counts")
    for size in at_text_sizes(page):
        where = f"{size}"
        assert not overflows_sideways(page), where
        current = page.locator('.console-tabs [aria-current="page"]')
        assert current.inner_text() == "Entries", where
        assert (
            "1 entered, 0 offered a place, 3 waiting." in page.locator("#entry-counts").inner_text()
        )
        assert page.locator("#entry-link .qr svg").is_visible(), where
        link = page.locator("#id_entry_link").input_value()
        assert link.endswith(f"/en/t/{tournament.slug}/register/"), where
        rows = page.locator("table.entries tbody tr")
        assert rows.count() == 4, where
        for i in range(rows.count()):  # each row within the screen's width
            box = rows.nth(i).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 1, where
    page.evaluate("() => { document.documentElement.style.fontSize = '200%'; }")
    page.get_by_role("button", name="Move Bob Brown down").click()
    page.wait_for_url(f"**{base}*")
    assert "Bob Brown is now number 2 on the waitlist (from 1)." in page.inner_text("main")
    cy = Entry.objects.get(name="Cy Cole")
    assert cy.waitlist_position == 1
    page.get_by_role("link", name="Open Cy Cole…").click()
    page.locator("#refuse summary").click()
    guide_shot(page, "entries-refuse-phone", "#refuse")
    page.get_by_role("button", name="Refuse the entry").click()  # the box not ticked: not sent
    cy.refresh_from_db()
    assert cy.status == Entry.Status.WAITLISTED
    page.get_by_label("Yes, refuse Cy Cole").check()
    page.get_by_role("button", name="Refuse the entry").click()
    page.wait_for_url(f"**{base}")
    assert "To undo, open it and enter them by hand." in page.inner_text("main")
    assert not overflows_sideways(page)
    cy.refresh_from_db()
    assert cy.status == Entry.Status.REFUSED
