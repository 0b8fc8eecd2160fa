"""A club's roster in Chromium on a phone at 200% text: each member's card wraps inside the
page (the list does not scroll sideways inside its box, no line is cut off)."""

import pytest

from tests import factories
from tests.browser.conftest import PHONE, sign_in
from tests.browser.test_every_page_fits import set_text_size

pytestmark = pytest.mark.browser


def test_roster_cards_wrap_on_a_phone_at_200_percent_text(new_page, transactional_db):
    club = factories.ClubFactory(name="Pine Valley Train Club", slug="pine-valley")
    organiser = factories.ClubOrganiserFactory(club=club).user
    factories.MemberFactory(
        club=club, name="Adelaide Brooks", member_number="PV-1001",
        household="The Brooks-Oyelaran household", email="adelaide.brooks@example.org",
    )  # fmt: skip
    page = new_page(PHONE)
    sign_in(page, organiser.username, next_path="/clubs/pine-valley/")
    set_text_size(page, "200%")
    page.wait_for_timeout(30)
    box = page.locator("#members .scroll")
    sizes = box.evaluate("(box) => [box.scrollWidth, box.clientWidth]")
    assert sizes[0] <= sizes[1], sizes
    for cell in page.locator("#members td[data-label]").all():
        right = cell.evaluate("(cell) => cell.getBoundingClientRect().right")
        assert right <= PHONE["width"], cell.inner_text()
