"""The stage's clock on a tablet: it counts down by the page's own timer (not the device's wall
clock), and asks the server again when the network comes back."""

import re

import pytest
from playwright.sync_api import expect

from scoring.services import clock
from tests.browser.conftest import PHONE, TABLET, sign_in

pytestmark = pytest.mark.browser


@pytest.fixture
def timed(seated):
    tournament, table, _players, official = seated
    stage = table.stage
    stage.time_limit_minutes = 60
    stage.save()
    clock.start_clock(stage)
    return tournament, table, official


def test_the_clock_counts_down_and_takes_the_servers_time_back_online(new_page, timed):
    tournament, table, official = timed
    page = new_page(TABLET)
    page.clock.install()  # the page's timers and its wall clock, moved by the test
    sign_in(page, official.username, next_path=f"/t/{tournament.slug}/enter/{table.pk}/1/")
    text = page.locator("p.clock .clock-text")
    expect(text).to_have_text(re.compile(r"Time left: (59:5\d|1:00:00)"))
    # The tablet's wall clock jumps a day (a wrong device clock): the countdown does not care.
    page.clock.set_system_time(page.evaluate("Date.now()") + 86_400_000)
    page.clock.run_for(30_000)
    expect(text).to_have_text(re.compile(r"Time left: 59:[23]\d"))
    # Paused on the server while the tablet was away: back online, the page says so.
    clock.pause_clock(table.stage)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    expect(text).to_have_text(re.compile(r"Clock paused: 59:\d\d left"))


def test_the_clock_fits_a_phone_at_200_percent_text(new_page, timed):
    tournament, table, official = timed
    page = new_page(PHONE)
    sign_in(page, official.username, next_path=f"/t/{tournament.slug}/enter/{table.pk}/1/")
    page.evaluate("document.documentElement.style.fontSize = '200%'")
    box = page.locator("p.clock").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 1
    assert not page.evaluate(
        "() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1"
    )
