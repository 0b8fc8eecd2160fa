"""One entry for several of a rally's events: an entry in each chosen event with the chapter
named, the player's schedule; every bad choice said beside its field, and nothing entered."""

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone, translation

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


def checkbox(text: str, event) -> str:
    """The event's checkbox and its label, as the page has them."""
    found = re.search(rf'<input type="checkbox" name="events" value="{event.pk}"[^>]*>[^<]*', text)
    assert found, event
    return found[0]


def test_an_event_that_takes_no_entries_now_is_shown_disabled_and_a_full_one_says_waitlist():
    past = timezone.now() - timedelta(minutes=5)
    made, (samboree, ladies, beginners), _organiser = rally(
        **{
            "Ladies' Game": {"entries_close_at": past},
            "Beginners' Game": {"capacity": 0, "waitlist": True},
        }
    )
    text = Client().get(f"/en/rallies/{made.slug}/enter/").content.decode()
    assert "disabled" in checkbox(text, ladies) and "Entries closed" in checkbox(text, ladies)
    assert "disabled" not in checkbox(text, beginners)
    assert "Full: you would be on its waitlist" in checkbox(text, beginners)
    assert "disabled" not in checkbox(text, samboree)
    assert "Entries closed" not in checkbox(text, samboree)
    assert "Full" not in checkbox(text, samboree)
    assert 'name="name"' in text
    spanish = Client().get(f"/es/rallies/{made.slug}/enter/").content.decode()
    assert "Inscripciones cerradas" in checkbox(spanish, ladies)


def test_a_full_event_without_a_waitlist_is_shown_disabled_and_marked_full():
    made, (samboree, _ladies, beginners), _organiser = rally(
        **{"Beginners' Game": {"capacity": 0, "waitlist": False}}
    )
    text = Client().get(f"/en/rallies/{made.slug}/enter/").content.decode()
    assert "disabled" in checkbox(text, beginners) and "· Full" in checkbox(text, beginners)
    assert "disabled" not in checkbox(text, samboree)


def test_with_no_event_taking_entries_the_page_says_so_first_and_asks_for_no_name():
    past = timezone.now() - timedelta(minutes=5)
    closed = {"entries_close_at": past}
    made, _events, _organiser = rally(
        **{name: closed for name in ("Spring Samboree", "Ladies' Game", "Beginners' Game")}
    )
    text = Client().get(f"/en/rallies/{made.slug}/enter/").content.decode()
    assert "None of the rally's events takes entries now." in text
    assert 'name="name"' not in text and 'name="email"' not in text
    spanish = Client().get(f"/es/rallies/{made.slug}/enter/").content.decode()
    assert "Ningún evento del encuentro admite inscripciones ahora." in spanish


def test_a_clash_is_said_at_the_top_of_the_page_before_the_forms_fields():
    made, (samboree, ladies, _beginners), _organiser = rally()
    answer = Client().post(f"/en/rallies/{made.slug}/enter/", form([samboree, ladies]))
    text = answer.content.decode()
    summary = text.index('id="entry-errors"')
    assert summary < text.index('class="lead"')  # first under the heading, in the first view
    assert summary < text.index('name="events"') and summary < text.index('name="name"')
    top = text[summary : text.index('name="events"')]
    assert "Nothing was entered:" in top and "are played at the same time" in top
    assert 'href="#id_events"' in top


def test_one_event_entered_is_said_in_the_singular_and_a_waitlist_place_is_named():
    made, (samboree, _ladies, beginners), _organiser = rally(
        **{"Beginners' Game": {"capacity": 0, "waitlist": True}}
    )
    client = Client()
    text = client.post(
        f"/en/rallies/{made.slug}/enter/", form([samboree, beginners]), follow=True
    ).content.decode()
    assert "You are entered in 1 event; on the waitlist for Beginners&#x27; Game." in text
    assert "1 events" not in text
    spanish = client.post(
        f"/es/rallies/{made.slug}/enter/",
        form([samboree], name="Bea Bravo", email="bea@example.org"),
        follow=True,
    ).content.decode()
    assert "Está inscrito en 1 evento." in spanish and "1 eventos" not in spanish
