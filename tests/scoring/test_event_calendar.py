"""`/t/<slug>/event.ics` (scoring/event_calendar.py): the tournament's days as all-day events of
an iCalendar file, read back here by the same library a calendar program's would be."""

from datetime import date

import icalendar
import pytest
from django.test import Client

from tests import factories

pytestmark = pytest.mark.django_db


def calendar_of(response) -> icalendar.Calendar:
    assert response.status_code == 200
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    return icalendar.Calendar.from_ical(response.content)


@pytest.fixture
def rally(db):
    return factories.TournamentFactory(
        name="Spring Rally, Peñasco",
        slug="spring-rally",
        starts_on=date(2027, 3, 5),
        ends_on=date(2027, 3, 7),
        venue="Lakeside RV Park; Hall B",
        description="Bring your own dominoes.",
        time_zone="America/Chicago",
    )


def test_one_all_day_event_for_each_day_with_the_venue_and_the_page(rally):
    response = Client().get("/en/t/spring-rally/event.ics")
    calendar = calendar_of(response)
    assert response["Content-Disposition"] == 'attachment; filename="spring-rally.ics"'
    assert calendar["X-WR-TIMEZONE"] == "America/Chicago"
    events = calendar.walk("VEVENT")
    assert [(e.decoded("DTSTART"), e.decoded("DTEND")) for e in events] == [
        (date(2027, 3, 5), date(2027, 3, 6)),  # dates, not times: all day, in any zone
        (date(2027, 3, 6), date(2027, 3, 7)),
        (date(2027, 3, 7), date(2027, 3, 8)),
    ]
    assert [str(e["SUMMARY"]) for e in events] == [
        "Spring Rally, Peñasco, day 1 of 3",
        "Spring Rally, Peñasco, day 2 of 3",
        "Spring Rally, Peñasco, day 3 of 3",
    ]
    first = events[0]
    assert str(first["LOCATION"]) == "Lakeside RV Park; Hall B"  # escaped and read back whole
    assert str(first["URL"]) == "http://testserver/en/t/spring-rally/"
    assert str(first["DESCRIPTION"]) == (
        "Bring your own dominoes.\n\nhttp://testserver/en/t/spring-rally/"
    )
    uids = [str(e["UID"]) for e in events]
    assert len(set(uids)) == 3 and all(uid.endswith("@testserver") for uid in uids)


def test_the_uids_stay_when_the_days_move_and_the_file_in_spanish(rally):
    before = calendar_of(Client().get("/en/t/spring-rally/event.ics")).walk("VEVENT")
    rally.starts_on, rally.ends_on = date(2027, 4, 2), date(2027, 4, 3)
    rally.save()
    after = calendar_of(Client().get("/es/t/spring-rally/event.ics")).walk("VEVENT")
    assert [str(e["UID"]) for e in after] == [str(e["UID"]) for e in before[:2]]
    assert str(after[1]["SUMMARY"]) == "Spring Rally, Peñasco, día 2 de 2"
    assert after[0].decoded("DTSTART") == date(2027, 4, 2)


def test_a_one_day_event_is_named_as_the_tournament_and_a_practice_says_so(db):
    factories.TournamentFactory(slug="club-night", name="Club night", starts_on=date(2027, 1, 8))
    events = calendar_of(Client().get("/en/t/club-night/event.ics")).walk("VEVENT")
    assert [(str(e["SUMMARY"]), e.decoded("DTSTART")) for e in events] == [
        ("Club night", date(2027, 1, 8))
    ]
    assert "LOCATION" not in events[0]  # no venue given: none said
    factories.TournamentFactory(
        slug="rehearsal", name="Rehearsal", starts_on=date(2027, 1, 8), practice=True
    )
    response = Client().get("/en/t/rehearsal/event.ics")
    assert str(calendar_of(response).walk("VEVENT")[0]["SUMMARY"]) == "Practice: Rehearsal"
    assert response["Content-Disposition"] == 'attachment; filename="practice-rehearsal.ics"'


def test_a_tournament_without_days_is_404_saying_why(db):
    factories.TournamentFactory(slug="someday", name="Someday Open")
    response = Client().get("/en/t/someday/event.ics")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    assert "Someday Open has no dates yet" in response.content.decode()
    # And nothing links to it: the standings page offers no calendar.
    assert "event.ics" not in Client().get("/en/t/someday/").content.decode()


def test_an_unchanged_file_is_a_304_and_a_changed_venue_a_new_version(rally):
    visitor = Client()
    first = visitor.get("/en/t/spring-rally/event.ics")
    etag = first["ETag"]
    assert "public" in first["Cache-Control"]
    assert visitor.get("/en/t/spring-rally/event.ics", HTTP_IF_NONE_MATCH=etag).status_code == 304
    rally.venue = "Hall C"
    rally.save()
    moved = visitor.get("/en/t/spring-rally/event.ics", HTTP_IF_NONE_MATCH=etag)
    assert moved.status_code == 200 and moved["ETag"] != etag
    assert str(calendar_of(moved).walk("VEVENT")[0]["LOCATION"]) == "Hall C"


def test_the_standings_and_how_it_works_link_to_the_calendar(rally):
    for path in ("", "how-it-works/"):
        html = Client().get(f"/en/t/spring-rally/{path}").content.decode()
        assert 'href="/en/t/spring-rally/event.ics"' in html, path
        assert "Add to calendar" in html, path
