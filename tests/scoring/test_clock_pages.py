"""Time called on the pages: the time left from the server's clock on the entry pages, the sheet
and the projector (right after a reload, or on a tablet back from offline); the console's Start,
Pause and Call time; "time called after round N" where the results are read. Frozen clock."""

import re
from datetime import timedelta

import pytest

from scoring import standings
from scoring.services import clock
from tables.models import Table
from tests import factories
from tests.scoring.conftest import NOON
from tests.scoring.helpers import play, seat_tables
from tournaments.models import Stage, StageClock

pytestmark = pytest.mark.django_db


@pytest.fixture
def official_client(client, official):
    client.force_login(official)
    return client


@pytest.fixture
def organiser_client(client, organiser):
    client.force_login(organiser)
    return client


def table(stage, number):
    return Table.objects.get(stage=stage, number=number)


def players_at(stage, number):
    return [seat.player for seat in table(stage, number).seats.order_by("position")]


def clock_tag(page: str) -> str:
    match = re.search(r'<p class="clock[^"]*"[^>]*>', page)
    assert match, "no clock on the page"
    return match.group(0)


def remaining(page: str) -> int:
    return int(re.search(r'data-remaining="(\d+)"', clock_tag(page)).group(1))


def text(page: str) -> str:
    return re.search(r'<strong class="clock-text">([^<]*)</strong>', page).group(1)


def entry_page(client, stage, number=1, round_no=1):
    url = f"/t/{stage.tournament.slug}/enter/{table(stage, number).pk}/{round_no}/"
    return client.get(url).content.decode()


def test_the_entry_page_shows_the_time_left_from_the_servers_clock(frozen, official_client, timed):
    clock.start_clock(timed)
    frozen.shift(timedelta(minutes=36, seconds=19))
    page = entry_page(official_client, timed)
    assert remaining(page) == 23 * 60 + 41
    assert 'data-running="1"' in clock_tag(page)
    assert text(page) == "Time left: 23:41"
    assert "scoring/clock.js" in page


def test_a_reload_after_the_tablet_was_away_shows_the_time_the_clock_ran(
    frozen, official_client, timed
):
    """The page's time comes from the server, whatever the tablet's own clock says."""
    clock.start_clock(timed)
    assert remaining(entry_page(official_client, timed)) == 3600
    frozen.shift(timedelta(minutes=25))  # offline, then reloaded
    assert remaining(entry_page(official_client, timed)) == 35 * 60


def test_paused_and_called_say_so(frozen, official_client, timed):
    clock.start_clock(timed)
    frozen.shift(timedelta(minutes=36, seconds=19))
    clock.pause_clock(timed)
    frozen.shift(timedelta(minutes=10))
    page = entry_page(official_client, timed)
    assert text(page) == "Clock paused: 23:41 left"
    assert 'data-running="0"' in clock_tag(page)
    clock.call_time(timed)
    assert text(entry_page(official_client, timed)) == "Time called"


def test_at_zero_the_pages_say_the_organiser_calls_time(frozen, official_client, timed):
    clock.start_clock(timed)
    frozen.shift(timedelta(hours=2))
    assert text(entry_page(official_client, timed)) == "Time is up: the organiser calls time"


def test_a_stage_without_a_limit_shows_no_clock(official_client, tournament):
    stage = factories.StageFactory(tournament=tournament, order=1, status="seated")
    seat_tables(stage, [["Ann", "Bob", "Cy"]])
    page = entry_page(official_client, stage)
    assert 'class="clock' not in page
    assert "scoring/clock.js" not in page


def test_the_table_list_sheet_and_projector_show_the_clock(frozen, client, official, timed):
    clock.start_clock(timed)
    frozen.shift(timedelta(minutes=5))
    slug = timed.tournament.slug
    sheet = client.get(f"/en/t/{slug}/tables/1/1/").content.decode()
    assert remaining(sheet) == 55 * 60
    screen = client.get(f"/en/t/{slug}/screen/").content.decode()
    assert remaining(screen) == 55 * 60 and "scoring/clock.js" in screen
    client.force_login(official)
    tables = client.get(f"/t/{slug}/enter/").content.decode()
    assert text(tables) == "Time left: 55:00"


def test_the_sheet_is_a_new_version_when_the_clock_changes(frozen, client, timed):
    url = f"/en/t/{timed.tournament.slug}/tables/1/1/"
    etag = client.get(url)["ETag"]
    clock.start_clock(timed)
    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 200


def test_a_sheet_paused_again_within_the_minute_is_a_new_version(frozen, client, timed):
    # A running clock's version changes by the minute (the script counts the seconds down);
    # a paused one shows its exact time left, which a pause a few seconds later changes.
    url = f"/en/t/{timed.tournament.slug}/tables/1/1/"
    clock.start_clock(timed)
    frozen.shift(timedelta(seconds=5))
    clock.pause_clock(timed)
    first = client.get(url)
    assert text(first.content.decode()) == "Clock paused: 59:55 left"
    clock.start_clock(timed)
    frozen.shift(timedelta(seconds=40))
    clock.pause_clock(timed)
    again = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200 and text(again.content.decode()) == "Clock paused: 59:15 left"


def test_after_the_call_the_entry_page_says_which_rounds_are_played(frozen, official_client, timed):
    first = players_at(timed, 1)
    play(timed, first, 1, [0, 5, 10, 15])
    clock.start_clock(timed)
    clock.call_time(timed)  # table 1 plays round 2; table 2 round 1
    assert "Time was called: round 2 is the last round at table 1." in entry_page(
        official_client, timed, 1, 2
    )
    assert "Time was called after round 2 at table 1: round 3 is not played." in entry_page(
        official_client, timed, 1, 3
    )
    tables = official_client.get(f"/t/{timed.tournament.slug}/enter/").content.decode()
    assert "R3: \u2013 not played: time called" in tables


def test_as_it_stands_the_round_in_play_is_ticked_blocked(frozen, official_client, timed):
    timed.time_rule = Stage.TimeRule.AS_STANDS
    timed.save()
    clock.start_clock(timed)
    clock.call_time(timed)
    page = entry_page(official_client, timed, 1, 1)
    assert "it is scored as it stands, as a blocked round" in page
    assert re.search(r'value="blocked"\s+checked', page)


def test_results_say_time_called_after_round_n(client, timed):
    first, second = players_at(timed, 1), players_at(timed, 2)
    for round_no in (1, 2, 3, 4):
        play(timed, first, round_no, [0, 5, 10, 15])
    play(timed, second, 1, [0, 6, 11, 16])
    clock.start_clock(timed)
    clock.call_time(timed)
    play(timed, second, 2, [0, 6, 11, 16])
    standings.rebuild_standings(stage=timed)
    slug = timed.tournament.slug
    sheet = client.get(f"/en/t/{slug}/tables/1/2/").content.decode()
    assert "Time called after round 2." in sheet
    assert "Time called after round" not in client.get(f"/en/t/{slug}/tables/1/1/").content.decode()
    home = client.get(f"/en/t/{slug}/").content.decode()
    assert "Time called: ranked on rounds 1 to 2, which every table played." in home
    assert "Table 2: time called after round 2." in home
    # Every table's rounds are in up to its last: who advances is decided, not "would advance".
    assert "Who advances is decided when every table has played every round." not in home
    player = client.get(f"/en/t/{slug}/players/{second[0].number}/").content.decode()
    assert "Table 2: time called after round 2." in player
    # Table 1's rounds 3 and 4 are final, counted for its own places but not the overall
    # ranking: never "provisional" once time is called and every table is in.
    table_one = client.get(f"/en/t/{slug}/players/{first[0].number}/").content.decode()
    assert "(counted at its table only)" in table_one and "(provisional)" not in table_one
    assert "(counted at its table only)" in home and "(provisional)" not in home
    # Time called, the total is the stage's (its tables' own later rounds are not owed).
    assert "Total after" not in home and "+ the rounds not counted yet" not in home


def test_the_console_starts_pauses_and_calls_time(frozen, organiser_client, timed):
    url = f"/t/{timed.tournament.slug}/manage/stages/1/clock/"
    page = organiser_client.get(url).content.decode()
    assert "Start the clock" in page and "Call time" not in page
    organiser_client.post(url, {"action": "start"})
    frozen.shift(timedelta(minutes=2))
    page = organiser_client.get(url).content.decode()
    assert "Pause the clock" in page and "Yes, call time in" in page
    assert remaining(page) == 58 * 60
    organiser_client.post(url, {"action": "pause"})
    assert "Resume the clock" in organiser_client.get(url).content.decode()
    # Calling time asks first: without the box ticked nothing changes.
    response = organiser_client.post(url, {"action": "call"}, follow=True)
    assert "Tick the box to confirm that time is called." in response.content.decode()
    assert StageClock.objects.get(stage=timed).called_at is None
    response = organiser_client.post(url, {"action": "call", "confirm": "on"}, follow=True)
    assert "Time is called in" in response.content.decode()
    assert StageClock.objects.get(stage=timed).called_at == NOON + timedelta(minutes=2)
    stage_page = organiser_client.get(f"/t/{timed.tournament.slug}/manage/stages/1/")
    assert "manage/stages/1/clock/" in stage_page.content.decode()


def test_a_refused_console_action_says_why_and_changes_nothing(organiser_client, timed):
    url = f"/t/{timed.tournament.slug}/manage/stages/1/clock/"
    response = organiser_client.post(url, {"action": "pause"}, follow=True)
    assert "is not running: there is nothing to pause." in response.content.decode()
    assert not StageClock.objects.filter(stage=timed, running_since__isnull=False).exists()


def test_officials_do_not_control_the_clock(official_client, timed):
    url = f"/t/{timed.tournament.slug}/manage/stages/1/clock/"
    assert official_client.post(url, {"action": "start"}).status_code == 403
    assert not StageClock.objects.filter(stage=timed, running_since__isnull=False).exists()


def test_the_bracket_says_time_was_called_at_a_playoff_level(client, tournament):
    level = factories.StageFactory(
        tournament=tournament, order=2, kind="playoff", rounds=3, status="seated",
        time_limit_minutes=30, advance_per_table=1,
    )  # fmt: skip
    seat_tables(level, [["Ann", "Bob", "Cy"], ["Eve", "Fay", "Gus"]])
    first, second = players_at(level, 1), players_at(level, 2)
    play(level, first, 1, [0, 5, 10])
    play(level, first, 2, [0, 5, 10])
    play(level, second, 1, [0, 6, 11])
    clock.start_clock(level)
    clock.call_time(level)  # each table finishes the round in play: table 1 its 3rd, 2 its 2nd
    play(level, first, 3, [0, 5, 10])
    play(level, second, 2, [0, 6, 11])
    standings.rebuild_standings(stage=level)
    page = " ".join(client.get(f"/en/t/{tournament.slug}/bracket/").content.decode().split())
    assert "Time called: ranked on rounds 1 to 2, which every table played." in page
    assert "Table 2: time called after round 2." in page and "Table 1: time called" not in page
    assert page.count("✓ advances") == 2 and "would advance" not in page
