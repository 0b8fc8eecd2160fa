"""live.js with live push: a table's page fetches at the version its table changed in, a moment
(up to SPREAD_MS) after the message, and a version heard during that moment joins the wait: one
fetch at the newest version, even when the newest message no longer names the table (its change
is in that version too). The channel is a stand-in EventSource the test speaks through; the
pages, their parts and the fetches are the real ones."""

import re
import time
from pathlib import Path

import pytest

from tables.models import Table
from tests import factories
from tests.browser.conftest import PHONE
from tests.scoring.helpers import play_stage, seat_tables

pytestmark = pytest.mark.browser

# The page's own wait before it fetches (up to SPREAD_MS), as live.js says it.
LIVE_JS = Path(__file__).resolve().parents[2] / "tournaments/static/roundhouse/live.js"
SPREAD_MS = int(re.search(r"var SPREAD_MS = (\d+);", LIVE_JS.read_text())[1])
SETTLED_MS = SPREAD_MS + 700  # more than the page's wait and its fetch

# Before the page's scripts: EventSource is a stand-in whose messages the test sends
# (window.__say("<version> <tables>")), opened at once as nginx's would be.
FAKE_CHANNEL = """
window.__sources = [];
window.EventSource = function (url) {
  this.url = url;
  window.__sources.push(this);
  var self = this;
  setTimeout(function () { if (self.onopen) self.onopen(); }, 0);
};
window.EventSource.prototype.close = function () {};
window.__say = function (data) {
  window.__sources.forEach(function (s) { if (s.onmessage) s.onmessage({ data: data }); });
};
"""


@pytest.fixture
def seated(transactional_db, settings):
    # Versions are announced (to a port where nothing listens: the announcement fails and is
    # logged; the pages' parts then name their tournament and listen).
    settings.LIVE_PUBLISH_URL = "http://127.0.0.1:9/_live/publish/"
    stage = factories.StageFactory(status="seated", rounds=3, order=1, table_size_max=4)
    seat_tables(stage, [["Ann A", "Bob B", "Cy C", "Di D"], ["Ed E", "Flo F", "Gus G", "Hal H"]])
    play_stage(stage)
    first, second = Table.objects.filter(stage=stage).order_by("number")
    return stage.tournament, first, second


def open_sheet(new_page, tournament, table):
    page = new_page(PHONE)
    page.add_init_script(FAKE_CHANNEL)
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.goto(f"/en/t/{tournament.slug}/tables/1/{table.number}/")
    page.wait_for_function("() => window.__sources.length === 1")
    assert page.locator("#sheet[data-live-slug]").count() == 1
    # The channel of the page's language: the worker warms a version only in those listened in.
    assert page.evaluate("() => window.__sources[0].url") == f"/live/{tournament.slug}/en/"
    return page, asked


def versioned(asked: list[str]) -> list[str]:
    return [re.search(r"[?&]v=([^&]+)", url)[1] for url in asked if "v=" in url]


def test_a_version_heard_while_waiting_joins_the_fetch_at_the_newest(new_page, seated):
    tournament, first, second = seated
    page, asked = open_sheet(new_page, tournament, first)
    # The first table changed in version 1-50; 1-51, heard at once, names only the second.
    page.evaluate(f"() => {{ __say('1-50 {first.pk}'); __say('1-51 {second.pk}'); }}")
    page.wait_for_timeout(SETTLED_MS)
    assert versioned(asked) == ["1-51"]  # one fetch, at the newest version


def test_a_table_not_named_is_not_fetched_and_each_message_fetches_once(new_page, seated):
    tournament, first, second = seated
    page, asked = open_sheet(new_page, tournament, first)
    page.evaluate(f"() => __say('1-60 {second.pk}')")
    page.wait_for_timeout(SETTLED_MS)
    assert versioned(asked) == []  # its table did not change
    page.evaluate(f"() => __say('1-61 {first.pk},{second.pk}')")
    page.evaluate(f"() => __say('1-61 {first.pk},{second.pk}')")  # the same version again
    page.wait_for_timeout(SETTLED_MS)
    assert versioned(asked) == ["1-61"]
    page.evaluate("() => __say('1-62')")  # no tables named: every part fetches
    page.wait_for_timeout(SETTLED_MS)
    assert versioned(asked) == ["1-61", "1-62"]


def test_a_page_in_spanish_listens_on_the_spanish_channel(new_page, seated):
    tournament, first, _ = seated
    page = new_page(PHONE)
    page.add_init_script(FAKE_CHANNEL)
    page.goto(f"/es/t/{tournament.slug}/tables/1/{first.number}/")
    page.wait_for_function("() => window.__sources.length === 1")
    assert page.evaluate("() => window.__sources[0].url") == f"/live/{tournament.slug}/es/"


def test_a_fetch_the_origin_turned_away_as_late_is_made_again_after_the_wait_it_names(
    new_page, seated
):
    tournament, first, _ = seated
    page, _ = open_sheet(new_page, tournament, first)
    answers: list[tuple[str, int]] = []
    page.on("response", lambda r: answers.append((r.url, r.status)) if "v=" in r.url else None)

    def late_once(route):
        # The first fetch at the version arrives as if it had waited 10 s behind others
        # (nginx's X-Request-Start): the origin turns it away (config/queue_limit.py).
        if not answers:
            late = f"t={time.time() - 10:.3f}"
            route.continue_(headers={**route.request.headers, "x-request-start": late})
        else:
            route.continue_()

    page.route(re.compile(r".*[?&]v=.*"), late_once)
    page.evaluate(f"() => __say('1-70 {first.pk}')")
    page.wait_for_timeout(SETTLED_MS + 300)
    assert [(versioned([url]), status) for url, status in answers] == [(["1-70"], 503)]
    assert page.locator("#sheet").is_visible()  # the page keeps what it showed
    # Asked again after Retry-After (3 s) and a moment of its own (up to SPREAD_MS), once.
    page.wait_for_timeout(3000 + SPREAD_MS)
    assert [(versioned([url]), status) for url, status in answers] == [
        (["1-70"], 503),
        (["1-70"], 200),
    ]
    page.wait_for_timeout(1000)
    assert len(answers) == 2  # answered: not asked again
