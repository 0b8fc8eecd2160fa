"""One entry for several of a rally's events: an entry in each chosen event with the chapter
named, the player's schedule; every bad choice said beside its field, and nothing entered."""

from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.utils import translation

from entries.models import Entry
from rallies.forms import event_when
from rallies.models import RallyEntry, RallyEvent
from tests.rallies.helpers import rally

pytestmark = pytest.mark.django_db


def form(events, **fields):
    return {
        "events": [str(e.pk) for e in events],
        "chapter": "Roadrunners",
        "name": "Ann Abbott",
        "email": "ann@example.org",
        **fields,
    }


def test_the_one_form_enters_each_chosen_event_with_the_chapter_and_opens_the_schedule():
    made, (samboree, _ladies, beginners), _organiser = rally()
    client = Client()
    page = client.get(f"/en/rallies/{made.slug}/enter/")
    assert page.status_code == 200 and "Ladies&#x27; Game" in page.content.decode()
    answer = client.post(
        f"/en/rallies/{made.slug}/enter/", form([samboree, beginners]), follow=True
    )
    entries = Entry.objects.order_by("tournament__name")
    assert [(e.tournament.name, e.chapter, e.status) for e in entries] == [
        ("Beginners' Game", "Roadrunners", "entered"),
        ("Spring Samboree", "Roadrunners", "entered"),
    ]
    rally_entry = RallyEntry.objects.get()
    assert set(rally_entry.entries.all()) == set(entries)
    assert answer.redirect_chain[-1][0].endswith(f"/schedule/{rally_entry.manage_key}/")
    text = answer.content.decode()
    assert "You are entered in 2 events." in text and "you play for Roadrunners" in text
    # In time order, each with its entry's own page, and where to sit to come.
    assert text.index("Spring Samboree") < text.index("Beginners&#x27; Game")
    for entry in entries:
        assert f"/entry/{entry.manage_key}/" in text
    assert "Your table is shown here as soon as the tables are seated." in text


def test_no_chapter_enters_as_a_guest():
    made, (samboree, *_rest), _organiser = rally()
    Client().post(f"/en/rallies/{made.slug}/enter/", form([samboree], chapter=""))
    assert Entry.objects.get().chapter == ""
    assert RallyEntry.objects.get().chapter is None


def test_events_played_at_the_same_time_are_refused_and_nothing_is_entered():
    made, (samboree, ladies, beginners), _organiser = rally()
    answer = Client().post(f"/en/rallies/{made.slug}/enter/", form([samboree, ladies, beginners]))
    assert answer.status_code == 400
    text = answer.content.decode()
    assert "Spring Samboree" in text and "are played at the same time: choose one of them." in text
    assert Entry.objects.count() == 0 and RallyEntry.objects.count() == 0


def test_an_unknown_chapter_is_refused_and_nothing_is_entered():
    made, (samboree, *_rest), _organiser = rally()
    answer = Client().post(
        f"/en/rallies/{made.slug}/enter/", form([samboree], chapter="Tumbleweeds")
    )
    assert answer.status_code == 400
    assert (
        "Tumbleweeds is not a chapter of Spring Rally: choose one of Roadrunners, Wanderers, or "
        "no chapter." in answer.content.decode()
    )
    assert Entry.objects.count() == 0


def test_no_event_chosen_or_another_rallys_event_is_refused():
    made, _events, _organiser = rally()
    client = Client()
    answer = client.post(f"/en/rallies/{made.slug}/enter/", form([]))
    assert answer.status_code == 400
    assert "Choose at least one of the rally&#x27;s events to enter." in answer.content.decode()
    answer = client.post(f"/en/rallies/{made.slug}/enter/", {**form([]), "events": ["999999"]})
    assert "Choose only the rally&#x27;s own events." in answer.content.decode()
    assert Entry.objects.count() == 0


def test_an_event_that_cannot_take_the_entry_undoes_the_others_and_says_which():
    made, (samboree, _ladies, beginners), _organiser = rally(
        **{"Beginners' Game": {"capacity": 0, "waitlist": False}}
    )
    answer = Client().post(f"/en/rallies/{made.slug}/enter/", form([samboree, beginners]))
    assert answer.status_code == 409
    assert "Beginners&#x27; Game: Beginners&#x27; Game is full" in answer.content.decode()
    assert Entry.objects.count() == 0 and RallyEntry.objects.count() == 0


def test_a_second_entry_with_the_same_name_and_email_is_refused_and_enters_nothing_more():
    made, (samboree, _ladies, beginners), _organiser = rally()
    client = Client()
    client.post(f"/en/rallies/{made.slug}/enter/", form([samboree]))
    answer = client.post(f"/en/rallies/{made.slug}/enter/", form([beginners, samboree]))
    assert answer.status_code == 409
    assert "has already entered Spring Samboree" in answer.content.decode()
    assert Entry.objects.count() == 1 and RallyEntry.objects.count() == 1


def test_a_wrong_schedule_address_is_a_404_that_says_nothing():
    made, _events, _organiser = rally()
    assert Client().get(f"/en/rallies/{made.slug}/schedule/not-a-key/").status_code == 404


def test_an_event_past_midnight_says_the_day_it_ends():
    start = datetime(2026, 6, 5, 22, 0, tzinfo=UTC)
    with translation.override("en"):
        same_day = event_when(RallyEvent(starts_at=start, ends_at=start + timedelta(hours=1)))
        next_day = event_when(RallyEvent(starts_at=start, ends_at=start + timedelta(hours=3)))
    assert same_day.count("2026") == 1 and next_day.count("2026") == 2
