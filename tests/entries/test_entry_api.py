"""Entries through the API: anyone enters while entries are open and manages the entry at its
private address; the organisers list and change every entry; officials and others are refused.
Mail goes through a real SMTP server."""

from decimal import Decimal

import pytest

from entries.models import Entry
from tests.entries.helpers import enter, open_tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def entering_tournament(tournament):
    from datetime import timedelta

    from django.utils import timezone

    tournament.entries_open_at = timezone.now() - timedelta(hours=1)
    tournament.capacity = 1
    tournament.entry_fee = Decimal("10")
    tournament.save()
    return tournament


def body(**fields):
    return {"name": "Ann Abbott", "email": "ann@example.org", "messages_ok": True, **fields}


def test_an_entry_is_entered_then_the_next_waits_and_each_is_mailed_its_link(
    anon, entering_tournament, smtp_server, django_capture_on_commit_callbacks
):
    url = f"/api/v1/tournaments/{entering_tournament.slug}/entries/"
    with django_capture_on_commit_callbacks(execute=True):
        first = anon.post(url, body(), format="json")
        second = anon.post(url, body(name="Bob Brown", email="bob@example.org"), format="json")
    assert first.status_code == 201, first.json()
    assert first.json()["status"] == "entered" and first.json()["number"] == 1
    assert first.json()["fee_due"] == "10.00" and first.json()["paid"] == "0.00"
    assert second.json()["status"] == "waitlisted" and second.json()["waitlist_position"] == 1
    assert [m["To"] for m in smtp_server.messages] == ["ann@example.org", "bob@example.org"]
    assert "number 1 on the waitlist" in smtp_server.bodies()[1]
    manage = first.json()["manage_url"]
    code = Entry.objects.get(name="Ann Abbott").check_in_code
    assert anon.get(manage).json()["check_in_code"] == code
    # Ann withdraws: Bob is offered the place and takes it at his own address.
    with django_capture_on_commit_callbacks(execute=True):
        assert anon.delete(manage).status_code == 204
    sent = {m["To"]: m.get_body(("plain",)).get_content() for m in smtp_server.messages[2:]}
    assert "is withdrawn" in sent["ann@example.org"]
    assert "is yours to take" in sent["bob@example.org"]
    bob = second.json()["manage_url"]
    assert anon.get(bob).json()["status"] == "offered"
    taken = anon.post(bob + "accept/")
    assert taken.status_code == 200 and taken.json()["status"] == "entered"
    assert anon.post(bob + "accept/").status_code == 409


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"name": ""}, "name"),
        ({"email": "nope"}, "email"),
        ({"messages_ok": None}, "messages_ok"),
        ({"division": "Nope"}, "division"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_a_bad_entry_is_a_400_naming_the_field_and_stores_nothing(
    anon, entering_tournament, fields, field
):
    url = f"/api/v1/tournaments/{entering_tournament.slug}/entries/"
    answer = anon.post(url, body(**fields), format="json")
    assert answer.status_code == 400 and field in answer.json()
    assert Entry.objects.count() == 0


def test_a_closed_tournament_is_a_409_that_says_so(anon, tournament):
    answer = anon.post(f"/api/v1/tournaments/{tournament.slug}/entries/", body(), format="json")
    assert answer.status_code == 409
    assert "does not take entries" in answer.json()["detail"]


def test_a_wrong_private_address_says_nothing_and_repeated_tries_are_slowed(anon, db):
    for _ in range(20):
        assert anon.get("/api/v1/entries/guess-this-key/").status_code == 404
    assert anon.get("/api/v1/entries/guess-this-key/").status_code == 429


def test_sixty_entries_a_minute_from_one_address_then_429(anon, db):
    tournament = open_tournament()
    url = f"/api/v1/tournaments/{tournament.slug}/entries/"
    for n in range(60):
        anon.post(url, body(name=f"P {n}", email=f"p{n}@example.org"), format="json")
    answer = anon.post(url, body(name="P 60", email="p60@example.org"), format="json")
    assert answer.status_code == 429
    assert tournament.entries.count() == 60


def test_only_organisers_list_and_change_entries(
    anon, as_official, as_organiser, entering_tournament
):
    ann = enter(entering_tournament, "Ann Abbott")
    bob = enter(entering_tournament, "Bob Brown")
    url = f"/api/v1/tournaments/{entering_tournament.slug}/entries/"
    assert anon.get(url).status_code in (401, 403)
    assert as_official.get(url).status_code == 403
    listed = as_organiser.get(url).json()
    assert [(e["name"], e["status"]) for e in listed] == [
        ("Ann Abbott", "entered"),
        ("Bob Brown", "waitlisted"),
    ]
    assert listed[0]["email"] == "ann@example.org"
    changed = as_organiser.patch(f"{url}{bob.pk}/", {"status": "entered"}, format="json")
    assert changed.status_code == 200 and changed.json()["status"] == "entered"
    refused = as_organiser.patch(f"{url}{ann.pk}/", {"status": "refused"}, format="json")
    assert refused.status_code == 409 and "Only a waiting entry" in refused.json()["detail"]
    assert as_official.patch(f"{url}{ann.pk}/", {"fee_due": "0"}, format="json").status_code == 403


def test_contact_details_never_reach_the_public_player_list(anon, entering_tournament):
    enter(entering_tournament, "Ann Abbott", phone="555-0100")
    players = anon.get(f"/api/v1/tournaments/{entering_tournament.slug}/players/").json()
    assert "ann@example.org" not in str(players) and "555-0100" not in str(players)
