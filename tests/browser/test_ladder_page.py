"""A season's public ladder in Chromium: on a phone at 100% and 200% text, in English and in
Spanish, it never scrolls sideways, every word and touch target passes test_every_page_fits'
measure, and axe-core finds nothing serious."""

import os
from pathlib import Path

import pytest

from clubs.models import Season
from tests import factories
from tests.browser.axe import serious_violations
from tests.browser.conftest import PHONE
from tests.browser.test_every_page_fits import MEASURE, set_text_size
from tests.clubs.test_ladder_pages import club_night, decide

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("ROUNDHOUSE_SHOTS", "")


@pytest.mark.parametrize("language", ["en", "es"])
def test_ladder_page_fits_a_phone_at_200_percent_text(new_page, transactional_db, language):
    club = factories.ClubFactory(name="Lakeside Mexican Train Club", slug="lakeside")
    season = Season.objects.create(
        club=club, name="Autumn 2026", slug="autumn", rule="best_n", best_n=1,
        points_table=[10, 8, 6, 5],
    )  # fmt: skip
    names = ("Ann Ellison-Whitfield", "Bob Ortiz", "Cy Young", "Di Peña")
    ann, bob, cy, di = (factories.MemberFactory(club=club, name=name) for name in names)
    decide(club_night(club, season, [ann, bob, cy, di], day=1))
    decide(club_night(club, season, [bob, ann, di, cy], day=8))
    page = new_page(PHONE)
    page.goto(f"/{language}/c/{club.slug}/seasons/{season.slug}/")
    assert page.locator("table.ladder tbody tr").count() == 4
    for size in ("", "200%"):
        if size:
            set_text_size(page, size)
        if SHOTS:
            Path(SHOTS).mkdir(parents=True, exist_ok=True)
            shot = Path(SHOTS) / f"ladder-{language}-{size or '100'}.png"
            page.screenshot(path=str(shot), full_page=True)
        page.wait_for_timeout(30)
        problems = page.evaluate(MEASURE)
        assert problems == [], (size, problems)
    assert serious_violations(page) == []
    page.goto(f"/{language}/c/{club.slug}/")
    set_text_size(page, "200%")
    assert page.evaluate(MEASURE) == []
    assert serious_violations(page) == []
