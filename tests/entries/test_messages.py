"""The organisers' messages: sent to a group through the API or the console's Messages page
(which asks first how many it reaches), only to entries that agreed to mail, listed with every
system message and their counts; failures shown and tried again."""

import pytest

from entries.models import Delivery, Entry, Message
from entries.services import entering
from tests import factories
from tests.conftest import client_for
from tests.entries.helpers import enter, open_tournament
from tournaments.models import Player

pytestmark = pytest.mark.django_db


@pytest.fixture
def event(db):
    """Three entered (one checked in, one who will not get mail), one offered, two waiting."""
    tournament = open_tournament(capacity=4)
    ann = enter(tournament, "Ann A", messages_ok=True)
    bob = enter(tournament, "Bob B", messages_ok=True)
    cy = enter(tournament, "Cy C", messages_ok=False)
    dot = enter(tournament, "Dot D", messages_ok=True)
    eve = enter(tournament, "Eve E", messages_ok=True)  # waiting 1
    fay = enter(tournament, "Fay F", messages_ok=True)  # waiting 2
    entering.withdraw(dot)  # Eve is offered the place
    Player.objects.filter(pk=ann.player_id).update(status=Player.Status.CHECKED_IN)
    organiser = factories.UserFactory()
    tournament.staff.create(user=organiser, role="organiser")
    official = factories.UserFactory()
    tournament.staff.create(user=official, role="official")
    Message.objects.all().delete()  # the entries' own mail, not this test's
    return tournament, organiser, official, {e.name: e for e in (ann, bob, cy, dot, eve, fay)}


@pytest.mark.parametrize(
    "to, reached",
    [
        ("entrants", {"Ann A", "Bob B", "Eve E"}),
        ("waitlist", {"Fay F"}),
        ("players", {"Ann A", "Bob B"}),
        ("not_checked_in", {"Bob B"}),
    ],
)
def test_a_message_reaches_its_group_of_those_who_agreed_to_mail(
    event, to, reached, smtp_server, django_capture_on_commit_callbacks
):
    tournament, organiser, _official, entries = event
    assert entries["Eve E"].__class__.objects.get(pk=entries["Eve E"].pk).status == "offered"
    api = client_for(organiser)
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            f"/api/v1/tournaments/{tournament.slug}/messages/",
            {"to": to, "subject": "Parking", "body": "Park behind the hall."},
            format="json",
        )
    assert response.status_code == 202, response.json()
    answer = response.json()
    assert (answer["kind"], answer["to"], answer["recipients"]) == ("organiser", to, len(reached))
    assert answer["pending"] == len(reached) and answer["failed"] == 0
    assert {m["To"] for m in smtp_server.messages} == {entries[n].email for n in reached}
    mail = smtp_server.messages[0]
    assert mail["Subject"] == "Parking" and "Park behind the hall." in mail.get_body().get_content()
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    listed = api.get(f"/api/v1/tournaments/{tournament.slug}/messages/").json()
    assert listed[0]["id"] == answer["id"] and listed[0]["sent"] == len(reached)


@pytest.mark.parametrize(
    "body, field, says",
    [
        ({"to": "everyone", "subject": "S", "body": "B"}, "to", "is not a valid choice"),
        ({"to": "players", "subject": "", "body": "B"}, "subject", "may not be blank"),
        ({"to": "players", "subject": "S"}, "body", "required"),
        ({"to": "players", "subject": "S" * 201, "body": "B"}, "subject", "no more than 200"),
        ({"to": "players", "subject": "S", "body": "B" * 5001}, "body", "no more than 5000"),
        ({"to": "players", "subject": "S", "body": "B", "cc": "x"}, "cc", "Unknown field"),
    ],
)
def test_a_bad_message_is_a_400_naming_the_field_and_nothing_is_stored(event, body, field, says):
    tournament, organiser, _official, _entries = event
    response = client_for(organiser).post(
        f"/api/v1/tournaments/{tournament.slug}/messages/", body, format="json"
    )
    assert response.status_code == 400
    assert says in " ".join(response.json()[field])
    assert not Message.objects.exists()


def test_a_group_that_reaches_nobody_is_refused(event):
    tournament, organiser, _official, _entries = event
    Entry.objects.filter(status="waitlisted").update(messages_ok=False)
    response = client_for(organiser).post(
        f"/api/v1/tournaments/{tournament.slug}/messages/",
        {"to": "waitlist", "subject": "S", "body": "B"},
        format="json",
    )
    assert response.status_code == 400
    assert "would reach nobody" in response.json()["to"][0]
    assert not Message.objects.exists()


def test_officials_and_strangers_may_not_send_nor_list(event, anon):
    tournament, _organiser, official, _entries = event
    url = f"/api/v1/tournaments/{tournament.slug}/messages/"
    body = {"to": "players", "subject": "S", "body": "B"}
    assert client_for(official).post(url, body, format="json").status_code == 403
    assert client_for(official).get(url).status_code == 403
    assert client_for(factories.UserFactory()).get(url).status_code == 403
    assert anon.post(url, body, format="json").status_code in (401, 403)
    assert not Message.objects.exists()


def test_the_console_page_asks_how_many_first_then_sends_and_lists_failures_to_retry(
    event, client, smtp_server, django_capture_on_commit_callbacks
):
    tournament, organiser, official, entries = event
    client.force_login(organiser)
    url = f"/t/{tournament.slug}/manage/messages/"
    page = client.get(url).content.decode()
    assert "Every player (2)" in page and "Everyone waiting (1)" in page
    asked = client.post(url, {"to": "players", "subject": "Lunch", "body": "At noon."})
    assert asked.status_code == 200
    assert "Send to 2 people?" in asked.content.decode()
    assert not Message.objects.exists()  # asked, not sent
    with django_capture_on_commit_callbacks(execute=True):
        sent = client.post(
            url, {"to": "players", "subject": "Lunch", "body": "At noon.", "confirm": "yes"},
            follow=True,
        )  # fmt: skip
    assert "is going to 2 people" in sent.content.decode()
    assert len(smtp_server.messages) == 2
    # A delivery that failed shows who and why, and is tried again from the page.
    message = Message.objects.get()
    Delivery.objects.filter(message=message, entry=entries["Bob B"]).update(
        status="failed", attempts=12, last_error="550 mailbox unavailable"
    )
    page = client.get(url).content.decode()
    assert "550 mailbox unavailable" in page and "bob@example.org" in page
    smtp_server.messages.clear()
    with django_capture_on_commit_callbacks(execute=True):
        retried = client.post(f"{url}{message.pk}/retry/", follow=True)
    assert "tried again: 1 address" in retried.content.decode()
    assert [m["To"] for m in smtp_server.messages] == ["bob@example.org"]
    assert Delivery.objects.get(message=message, entry=entries["Bob B"]).status == "sent"
    # "Change it" gives the form back as written; a group that reaches nobody is said beside
    # its field before anything is asked.
    changed = client.post(
        url, {"to": "players", "subject": "Lunch", "body": "At noon.", "confirm": "no"}
    ).content.decode()
    assert "Send to 2 people?" not in changed and 'value="Lunch"' in changed
    Entry.objects.filter(status="waitlisted").update(messages_ok=False)
    nobody = client.post(url, {"to": "waitlist", "subject": "S", "body": "B"})
    assert nobody.status_code == 400 and "would reach nobody" in nobody.content.decode()
    # A bad form is said beside its field; an official may not open the page.
    bad = client.post(url, {"to": "players", "subject": "", "body": "x"})
    assert bad.status_code == 400 and "This field is required" in bad.content.decode()
    client.force_login(official)
    assert client.get(url).status_code == 403


def test_the_list_has_the_system_messages_newest_first(event, smtp_server):
    tournament, organiser, _official, entries = event
    entering.withdraw(entries["Bob B"])
    listed = client_for(organiser).get(f"/api/v1/tournaments/{tournament.slug}/messages/").json()
    assert {m["kind"] for m in listed[:2]} == {"offer", "withdrawn"}
    assert [m["created_at"] for m in listed] == sorted(
        (m["created_at"] for m in listed), reverse=True
    )
    assert all({"recipients", "pending", "failed", "sent"} <= set(m) for m in listed)
