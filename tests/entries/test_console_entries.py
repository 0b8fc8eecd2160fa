"""The console's Entries section through the organiser's pages: the entries in order with their
status, place, fee due and paid, and each action by hand (enter, refuse, move, withdraw, change
details), which asks first where it could be a mistake, says how to undo it, and shows in the
entry's history; a refusal changes nothing."""

from decimal import Decimal

import pytest

from entries.models import Entry, Payment
from tests import factories
from tests.entries.helpers import enter, open_tournament
from tournaments.models import Player

pytestmark = pytest.mark.django_db
Status = Entry.Status


@pytest.fixture
def event(client):
    """A tournament of 2 places with a fee: Ann and Bob entered, Cy, Di and Ed waiting; its
    organiser signed in."""
    tournament = open_tournament(capacity=2, entry_fee=Decimal("10.00"), currency="EUR")
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    names = ["Ann Abbott", "Bob Brown", "Cy Cole", "Di Dunn", "Ed Eaton"]
    entries = {name.split()[0]: enter(tournament, name) for name in names}
    Payment.objects.create(entry=entries["Ann"], amount=Decimal("10.00"), method="cash")
    client.force_login(organiser)
    client.tournament, client.entries, client.organiser = tournament, entries, organiser
    return client


def section(client) -> str:
    return client.get(f"/t/{client.tournament.slug}/manage/entries/").content.decode()


def fresh(entry) -> Entry:
    return Entry.objects.get(pk=entry.pk)


def act(client, entry, action: str, follow=True, **data):
    path = f"/t/{client.tournament.slug}/manage/entries/{entry.pk}/{action}/"
    return client.post(path, data, follow=follow)


def said(answer) -> str:
    return answer.content.decode().replace("&#x27;", "'").replace("&quot;", '"')


def test_the_section_lists_the_entries_in_order_with_counts_link_and_fees(event):
    page = section(event)
    assert "2 entered, 0 offered a place, 3 waiting." in page
    assert "0 places left of 2." in page
    assert f"/en/t/{event.tournament.slug}/register/" in page and "<svg" in page  # link, QR
    rows = page.split("<tbody>", 1)[1].split("</tbody>", 1)[0].split("<tr")[1:]
    names = [row.split("</a>", 1)[0].rsplit(">", 1)[1] for row in rows]
    assert names == ["#1 Ann Abbott", "#2 Bob Brown", "Cy Cole", "Di Dunn", "Ed Eaton"]
    assert "Entered" in rows[0] and "10.00 EUR" in rows[0] and "owed" not in rows[0]
    assert "10.00 owed" in rows[1]
    assert "Waiting" in rows[2] and 'data-label="Waitlist">1<' in rows[2]


def test_a_waiting_entry_moves_down_and_up_from_the_list_and_to_a_place(event):
    cy, di, ed = (event.entries[n] for n in ("Cy", "Di", "Ed"))
    answer = event.post(
        f"/t/{event.tournament.slug}/manage/entries/{cy.pk}/move/",
        {"to": "down", "back": "list"},
        follow=True,
    )
    assert "Cy Cole is now number 2 on the waitlist (from 1)." in said(answer)
    assert [fresh(e).waitlist_position for e in (cy, di, ed)] == [2, 1, 3]
    event.post(f"/t/{event.tournament.slug}/manage/entries/{ed.pk}/move/", {"position": "1"})
    assert [fresh(e).waitlist_position for e in (cy, di, ed)] == [3, 2, 1]
    event.post(f"/t/{event.tournament.slug}/manage/entries/{cy.pk}/move/", {"to": "up"})
    assert [fresh(e).waitlist_position for e in (cy, di, ed)] == [2, 3, 1]
    history = event.get(f"/t/{event.tournament.slug}/manage/entries/{cy.pk}/").content.decode()
    assert "Place on the waitlist: 1 → 2" in history
    assert event.organiser.username in history


def test_a_place_off_the_waitlist_is_refused_beside_the_field_and_nothing_moves(event):
    cy = event.entries["Cy"]
    answer = event.post(
        f"/t/{event.tournament.slug}/manage/entries/{cy.pk}/move/", {"position": "9"}
    )
    assert answer.status_code == 400
    assert "Say a place from 1 to 3." in said(answer)
    assert fresh(cy).waitlist_position == 1
    entered = event.post(
        f"/t/{event.tournament.slug}/manage/entries/{event.entries['Ann'].pk}/move/",
        {"to": "up"},
        follow=True,
    )
    assert "only a waiting entry has a place to move" in said(entered)
    assert fresh(event.entries["Ann"]).status == Status.ENTERED


def test_entering_by_hand_makes_a_player_over_the_cap_and_says_how_to_undo(event):
    di = event.entries["Di"]
    answer = act(event, di, "admit")
    assert "Entered Di Dunn by hand as #3. Changed your mind? Withdraw the entry" in said(answer)
    di = fresh(di)
    assert di.status == Status.ENTERED and di.player.number == 3 and di.check_in_code
    assert [fresh(event.entries[n]).waitlist_position for n in ("Cy", "Ed")] == [1, 2]
    again = act(event, di, "admit")
    assert "Di Dunn is already entered." in said(again)
    assert Player.objects.filter(tournament=event.tournament).count() == 3


def test_refusing_asks_first_then_says_how_to_undo(event):
    cy = event.entries["Cy"]
    unasked = act(event, cy, "refuse")
    assert "Tick the box to confirm: nothing was changed." in said(unasked)
    assert fresh(cy).status == Status.WAITLISTED
    page = event.get(f"/t/{event.tournament.slug}/manage/entries/{cy.pk}/").content.decode()
    assert "Yes, refuse Cy Cole" in page
    answer = act(event, cy, "refuse", confirm="on")
    assert "Refused the entry of Cy Cole. To undo, open it and enter them by hand." in said(answer)
    assert fresh(cy).status == Status.REFUSED
    assert [fresh(event.entries[n]).waitlist_position for n in ("Di", "Ed")] == [1, 2]
    # The undo it names: a refused entry can be entered by hand.
    act(event, cy, "admit")
    assert fresh(cy).status == Status.ENTERED


def test_withdrawing_asks_first_offers_the_place_and_says_to_reinstate(event):
    bob, cy = event.entries["Bob"], event.entries["Cy"]
    assert fresh(bob).status == Status.ENTERED
    act(event, bob, "withdraw")
    assert fresh(bob).status == Status.ENTERED  # not ticked: nothing changed
    answer = act(event, bob, "withdraw", confirm="on")
    assert "Withdrew Bob Brown. To undo, reinstate their player on the players list" in said(answer)
    assert fresh(bob).status == Status.WITHDRAWN
    assert fresh(bob).player.status == Player.Status.WITHDRAWN
    assert fresh(cy).status == Status.OFFERED  # the freed place, offered at once
    page = event.get(f"/t/{event.tournament.slug}/manage/entries/{bob.pk}/").content.decode()
    assert "reinstate their player on the players list" in page
    assert "Enter by hand" not in page  # a withdrawn entry comes back through its player


def test_changing_the_details_changes_the_player_and_a_bad_email_changes_nothing(event):
    ann = event.entries["Ann"]
    path = f"/t/{event.tournament.slug}/manage/entries/{ann.pk}/"
    details = {"name": "Ann Abbot-Lee", "email": "ann@example.org", "fee_due": "5.00"}
    answer = event.post(path, details, follow=True)
    assert "Saved the entry of Ann Abbott." in said(answer)
    ann = fresh(ann)
    assert ann.name == ann.player.name == "Ann Abbot-Lee" and ann.fee_due == Decimal("5.00")
    assert "Name: Ann Abbott → Ann Abbot-Lee" in said(event.get(path))
    refused = event.post(path, {**details, "email": "not-an-address"})
    assert refused.status_code == 400 and "Enter a valid email address." in said(refused)
    assert fresh(ann).email == "ann@example.org"
    taken = event.post(path, {**details, "name": "Bob Brown", "email": "bob@example.org"})
    assert taken.status_code == 409 and "Bob Brown has another entry" in said(taken)
    assert fresh(ann).name == "Ann Abbot-Lee"


def test_officials_get_403_on_every_entries_page_and_action(event, client):
    official = factories.StaffFactory(tournament=event.tournament, role="official").user
    client.force_login(official)
    cy = event.entries["Cy"]
    base = f"/t/{event.tournament.slug}/manage/entries/"
    assert client.get(base).status_code == 403
    assert client.get(f"{base}{cy.pk}/").status_code == 403
    for action in ("admit", "refuse", "withdraw", "move"):
        assert (
            client.post(f"{base}{cy.pk}/{action}/", {"confirm": "on", "to": "down"}).status_code
            == 403
        )
    assert fresh(cy).status == Status.WAITLISTED and fresh(cy).waitlist_position == 1


def test_an_entry_of_another_tournament_is_a_404(event):
    other = open_tournament()
    stranger = enter(other, "Zed Zane")
    base = f"/t/{event.tournament.slug}/manage/entries/"
    assert event.get(f"{base}{stranger.pk}/").status_code == 404
    assert event.post(f"{base}{stranger.pk}/refuse/", {"confirm": "on"}).status_code == 404
    assert fresh(stranger).status == Status.ENTERED
