"""The entrants' pages through Django's test client: the form enters or puts on the waitlist
and opens the entry's page; the page takes an offer, changes details, withdraws after asking,
and stops the mail; a wrong address is a 404 that says nothing."""

import pytest
from django.test import Client

from entries.models import Entry
from tests.entries.helpers import enter, open_tournament

pytestmark = pytest.mark.django_db


def form(**fields):
    return {"name": "Ann Abbott", "email": "ann@example.org", "messages_ok": "on", **fields}


def test_the_form_enters_and_opens_the_entrys_page_with_its_code():
    tournament = open_tournament(capacity=5)
    client = Client()
    page = client.get(f"/en/t/{tournament.slug}/register/")
    assert page.status_code == 200 and "5 places left of 5." in page.content.decode()
    answer = client.post(f"/en/t/{tournament.slug}/register/", form(), follow=True)
    entry = Entry.objects.get()
    text = answer.content.decode()
    assert "Your entry is in." in text and entry.check_in_code in text
    assert answer.redirect_chain[-1][0].endswith(f"/entry/{entry.manage_key}/")


def test_a_bad_form_says_what_is_wrong_beside_the_field_and_stores_nothing():
    tournament = open_tournament()
    answer = Client().post(f"/en/t/{tournament.slug}/register/", form(email="nope"))
    assert answer.status_code == 400
    assert "Enter a valid email address." in answer.content.decode()
    assert Entry.objects.count() == 0


def test_closed_entries_say_so_and_show_no_form():
    tournament = open_tournament(entries_open_at=None)
    page = Client().get(f"/es/t/{tournament.slug}/register/")
    assert page.status_code == 200
    assert (
        "does not take entries here" in page.content.decode()
        or "no acepta" in page.content.decode()
    )
    assert 'class="panel stack entry-form"' not in page.content.decode()


def test_withdrawing_asks_first_then_offers_the_place_to_the_first_waiting():
    tournament = open_tournament(capacity=1)
    ann = enter(tournament, "Ann Abbott")
    bob = enter(tournament, "Bob Brown")
    client = Client()
    url = f"/en/t/{tournament.slug}/entry/{ann.manage_key}/withdraw/"
    assert "Withdraw your entry?" in client.get(url).content.decode()
    ann.refresh_from_db()
    assert ann.status == "entered"  # asking changed nothing
    client.post(url)
    ann.refresh_from_db()
    bob.refresh_from_db()
    assert (ann.status, bob.status) == ("withdrawn", "offered")
    page = client.get(f"/en/t/{tournament.slug}/entry/{bob.manage_key}/")
    assert "Take the place" in page.content.decode()
    client.post(f"/en/t/{tournament.slug}/entry/{bob.manage_key}/", {"action": "accept"})
    bob.refresh_from_db()
    assert bob.status == "entered"


def test_the_entry_page_changes_details_and_a_bad_email_is_refused_beside_it():
    tournament = open_tournament()
    ann = enter(tournament, "Ann Abbott")
    url = f"/en/t/{tournament.slug}/entry/{ann.manage_key}/"
    bad = Client().post(url, {"action": "change", "name": "Ann", "email": "nope"})
    assert bad.status_code == 400
    ann.refresh_from_db()
    assert ann.name == "Ann Abbott"
    Client().post(url, {"action": "change", "name": "Ann Abbot-Smith", "email": ann.email})
    ann.refresh_from_db()
    ann.player.refresh_from_db()
    assert ann.name == ann.player.name == "Ann Abbot-Smith"


def test_stopping_the_mail_asks_on_the_page_and_a_one_click_post_stops_it():
    tournament = open_tournament()
    ann = enter(tournament, "Ann Abbott", messages_ok=True)
    url = f"/en/t/{tournament.slug}/entry/{ann.manage_key}/stop-mail/"
    Client().get(url)
    ann.refresh_from_db()
    assert ann.messages_ok  # a mail client opening the link changes nothing
    Client(enforce_csrf_checks=True).post(url, {"List-Unsubscribe": "One-Click"})
    ann.refresh_from_db()
    assert not ann.messages_ok


def test_a_wrong_address_is_a_404_saying_nothing_and_many_are_slowed():
    tournament = open_tournament()
    enter(tournament, "Ann Abbott")
    client = Client()
    for _ in range(20):
        page = client.get(f"/en/t/{tournament.slug}/entry/nothing-here/")
        assert page.status_code == 404 and "Ann" not in page.content.decode()
    assert client.get(f"/en/t/{tournament.slug}/entry/nothing-here/").status_code == 429
