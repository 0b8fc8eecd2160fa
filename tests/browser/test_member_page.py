"""A club member's public page in Chromium: on a phone at 100% and 200% text, in English and in
Spanish, it never scrolls sideways, the rating chart fits, every word and touch target passes
test_every_page_fits' measure, and axe-core finds nothing serious."""

import datetime
import os
from pathlib import Path

import pytest

from clubs import rating_store
from tests import factories
from tests.browser.axe import serious_violations
from tests.browser.conftest import PHONE
from tests.browser.test_every_page_fits import MEASURE, set_text_size
from tests.clubs.test_rating_store import DAY, club_event, play

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("ROUNDHOUSE_SHOTS", "")


@pytest.mark.parametrize("language", ["en", "es"])
def test_member_page_fits_a_phone_at_200_percent_text(new_page, transactional_db, language):
    club = factories.ClubFactory(name="Lakeside Mexican Train Club")
    names = ("Ann Ellison-Whitfield", "Bob Ortiz", "Cy Young", "Di Peña")
    members = [factories.MemberFactory(club=club, name=name) for name in names]
    for n in range(4):  # committed as it goes: the ratings are stored by the (eager) task
        event = club_event(club, DAY + datetime.timedelta(days=7 * n), [members], rounds=2)
        play(event, 1, 1, [0, 10 + n, 20, 30])
        play(event, 1, 2, [12, 0, 25, 30 - n])
    assert rating_store.current_ratings(club.pk)
    page = new_page(PHONE)
    page.goto(f"/{language}/c/{club.slug}/members/{members[0].pk}/")
    assert page.locator("svg[role=img]").count() == 1
    chart = page.locator(".rating-chart svg").bounding_box()
    assert chart["width"] <= PHONE["width"]
    for size in ("", "200%"):
        if size:
            set_text_size(page, size)
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            shot = Path(SHOTS) / f"member-{language}-{size or '100'}.png"
            page.screenshot(path=str(shot), full_page=True)
        problems = page.evaluate(MEASURE)
        assert problems == [], (size, problems)
    assert serious_violations(page) == []
