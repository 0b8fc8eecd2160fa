"""Entering a tournament, its cap and its waitlist: a place freed before the day is offered to
the first one waiting for the tournament's hours, then passes on; an organiser enters, refuses
and moves entries by hand. Each refusal changes nothing."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from entries import rules
from entries.models import Entry
from entries.services import entering
from tests import factories
from tests.entries.helpers import enter, open_tournament
from tournaments.exceptions import StateConflict
from tournaments.models import Player

pytestmark = pytest.mark.django_db

Status = Entry.Status


def statuses(tournament) -> list[tuple[str, str, int | None]]:
    return [
        (e.name, e.status, e.waitlist_position)
        for e in tournament.entries.order_by("entered_at", "pk")
    ]


def test_an_entry_with_places_free_is_a_player_with_the_next_badge_number_and_a_code():
    tournament = open_tournament(capacity=10, entry_fee=Decimal("15.00"))
    factories.PlayerFactory(tournament=tournament, number=7, name="Desk Added")
    entry = enter(tournament, "Ana Peña", household="Peña")
    assert entry.status == Status.ENTERED
    assert entry.player.number == 8
    assert entry.player.name == "Ana Peña" and entry.player.household == "Peña"
    assert len(entry.check_in_code) == 8
    assert entry.fee_due == Decimal("15.00")


def test_a_division_fee_replaces_the_tournaments():
    tournament = open_tournament(entry_fee=Decimal("15"))
    juniors = tournament.divisions.create(name="Juniors", age_max=17, entry_fee=Decimal("5"))
    entry = enter(tournament, "Kid Lopez", age=12)
    assert entry.division == juniors and entry.player.division == juniors
    assert entry.fee_due == Decimal("5")


def test_full_entries_wait_in_the_order_they_came_numbered_from_one():
    tournament = open_tournament(capacity=2)
    for name in ["Ann A", "Bob B", "Cy C", "Di D"]:
        enter(tournament, name)
    assert statuses(tournament) == [
        ("Ann A", "entered", None),
        ("Bob B", "entered", None),
        ("Cy C", "waitlisted", 1),
        ("Di D", "waitlisted", 2),
    ]
    assert Player.objects.filter(tournament=tournament).count() == 2


def test_full_without_a_waitlist_is_refused_and_nothing_is_stored():
    tournament = open_tournament(capacity=1, waitlist=False)
    enter(tournament, "Ann A")
    with pytest.raises(StateConflict, match="is full \\(1 places\\) and keeps no waitlist"):
        enter(tournament, "Bob B")
    assert tournament.entries.count() == 1


def test_a_withdrawal_offers_the_place_to_the_first_waiting_who_takes_it():
    tournament = open_tournament(capacity=1, offer_hours=Decimal("2"))
    ann = enter(tournament, "Ann A")
    cy = enter(tournament, "Cy C")
    di = enter(tournament, "Di D")
    entering.withdraw(ann)
    cy.refresh_from_db()
    di.refresh_from_db()
    assert cy.status == Status.OFFERED and cy.waitlist_position is None
    assert (
        timedelta(hours=1, minutes=59) < cy.offer_expires_at - timezone.now() <= timedelta(hours=2)
    )
    assert (di.status, di.waitlist_position) == (Status.WAITLISTED, 1)
    ann.player.refresh_from_db()
    assert ann.player.status == Player.Status.WITHDRAWN
    # The offered place is held: a newcomer waits behind Di.
    newcomer = enter(tournament, "Ed E")
    assert (newcomer.status, newcomer.waitlist_position) == (Status.WAITLISTED, 2)
    entering.accept_offer(cy)
    cy.refresh_from_db()
    assert cy.status == Status.ENTERED and cy.player.number == 2


def test_an_offer_not_taken_in_time_expires_and_passes_to_the_next():
    tournament = open_tournament(capacity=1)
    ann = enter(tournament, "Ann A")
    cy = enter(tournament, "Cy C")
    di = enter(tournament, "Di D")
    entering.withdraw(ann)
    Entry.objects.filter(pk=cy.pk).update(offer_expires_at=timezone.now() - timedelta(seconds=1))
    entering.apply_expiry(tournament)
    cy.refresh_from_db()
    di.refresh_from_db()
    assert cy.status == Status.EXPIRED and cy.waitlist_position is None
    assert di.status == Status.OFFERED
    with pytest.raises(StateConflict, match="not taken in time"):
        entering.accept_offer(cy)


def test_no_offer_once_the_first_stage_is_seated():
    tournament = open_tournament(capacity=1, entries_close_at=None)
    ann = enter(tournament, "Ann A")
    cy = enter(tournament, "Cy C")
    factories.StageFactory(tournament=tournament, status="seated")
    entering.withdraw(ann)
    cy.refresh_from_db()
    assert cy.status == Status.WAITLISTED


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"entries_open_at": None}, "does not take entries here"),
        ({"entries_open_at": timezone.now() + timedelta(days=1)}, "open on"),
        (
            {
                "entries_open_at": timezone.now() - timedelta(days=2),
                "entries_close_at": timezone.now() - timedelta(days=1),
            },
            "closed on",
        ),
    ],
)
def test_entries_not_open_or_closed_are_refused_saying_when(fields, reason):
    tournament = open_tournament(**fields)
    with pytest.raises(StateConflict, match=reason):
        enter(tournament, "Ann A")
    assert tournament.entries.count() == 0


def test_without_a_closing_time_entries_close_when_the_first_stage_is_seated():
    tournament = open_tournament(entries_close_at=None)
    enter(tournament, "Ann A")
    factories.StageFactory(tournament=tournament, status="seated")
    with pytest.raises(StateConflict, match="closed when its first tables were seated"):
        enter(tournament, "Bob B")


def test_a_second_entry_with_the_same_name_and_email_is_refused_and_the_link_mailed_again(
    smtp_server, django_capture_on_commit_callbacks
):
    tournament = open_tournament()
    with django_capture_on_commit_callbacks(execute=True):
        enter(tournament, "Ann Smith", "ann@example.org")
    with (
        django_capture_on_commit_callbacks(execute=True),
        pytest.raises(entering.DuplicateEntry, match="already entered"),
    ):
        enter(tournament, "ann smith", "ANN@example.org")
    assert tournament.entries.count() == 1
    assert len(smtp_server.messages) == 2  # the receipt, then the same link again
    assert smtp_server.messages[1]["To"] == "ann@example.org"
    first, again = smtp_server.bodies()
    link = next(line for line in first.splitlines() if "/entry/" in line)
    assert link in again


@pytest.mark.parametrize(
    ("fields", "field", "says"),
    [
        ({"name": "  "}, "name", "Say the name"),
        ({"email": "not-an-address"}, "email", "is not an email address"),
        ({"name": "Ann\u202eA"}, "name", ""),
        ({"birth_year": 1800}, "birth_year", "is not a year of birth"),
    ],
)
def test_bad_details_are_refused_by_field_and_nothing_is_stored(fields, field, says):
    tournament = open_tournament()
    base = {"name": "Ann A", "email": "ann@example.org"}
    with pytest.raises(ValidationError) as refused:
        entering.enter(tournament=tournament, details=entering.Details(**{**base, **fields}))
    assert field in refused.value.message_dict
    assert says in " ".join(refused.value.message_dict[field])
    assert tournament.entries.count() == 0


def test_an_age_outside_every_division_is_refused_naming_the_ranges():
    tournament = open_tournament()
    tournament.divisions.create(name="50-59", age_min=50, age_max=59)
    tournament.divisions.create(name="60+", age_min=60)
    with pytest.raises(ValidationError, match=r"No division .* takes the age 30: 50-59"):
        enter(tournament, "Ann A", age=30)
    with pytest.raises(ValidationError, match="Say your age or year of birth"):
        enter(tournament, "Ann A")
    assert tournament.entries.count() == 0


def test_an_organiser_enters_refuses_and_moves_waiting_entries():
    tournament = open_tournament(capacity=1)
    organiser = factories.UserFactory()
    enter(tournament, "Ann A")
    bob, cy, di = (enter(tournament, name) for name in ["Bob B", "Cy C", "Di D"])
    entering.move(di, position=1, by=organiser)
    assert statuses(tournament)[1:] == [
        ("Bob B", "waitlisted", 2),
        ("Cy C", "waitlisted", 3),
        ("Di D", "waitlisted", 1),
    ]
    with pytest.raises(ValidationError, match="Say a place from 1 to 3"):
        entering.move(di, position=4, by=organiser)
    entering.refuse(bob, by=organiser)
    entering.admit(cy, by=organiser)  # over the cap: the organiser's choice
    assert statuses(tournament) == [
        ("Ann A", "entered", None),
        ("Bob B", "refused", None),
        ("Cy C", "entered", None),
        ("Di D", "waitlisted", 1),
    ]
    with pytest.raises(StateConflict, match="Only a waiting entry"):
        entering.refuse(cy, by=organiser)


def test_a_change_of_details_follows_to_the_player():
    tournament = open_tournament()
    entry = enter(tournament, "Ann A")
    entering.update(entry, changes={"name": "Ann Abbott", "household": "Abbott"})
    entry.player.refresh_from_db()
    assert (entry.player.name, entry.player.household) == ("Ann Abbott", "Abbott")


def test_withdrawing_twice_is_refused_saying_so():
    tournament = open_tournament()
    entry = enter(tournament, "Ann A")
    entering.withdraw(entry)
    with pytest.raises(StateConflict, match="already withdrawn"):
        entering.withdraw(entry)


def test_only_an_entered_entry_owes_its_fee():
    tournament = open_tournament(capacity=1, entry_fee=Decimal("10"))
    ann = enter(tournament, "Ann A")
    bob = enter(tournament, "Bob B")
    assert rules.owes(ann) == Decimal("10") and rules.owes(bob) == 0  # waiting: not yet
    entering.withdraw(ann)
    ann.refresh_from_db()
    assert rules.owes(ann) == 0  # withdrawn: nothing any more
