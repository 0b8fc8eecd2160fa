"""Two organisers at once through the clubs' API, on PostgreSQL with two connections: the same
club address started twice (one 201, one 400 on `slug`, one club with one organiser), and one
tournament added to two clubs (one 201, one 400 naming the club that has it). The first request
is held open after it wrote, so the second meets its row for certain: it waits, then is
refused; it is never a server error."""

import threading
import time

import pytest
from django.db import connection, transaction

from clubs.models import Club, ClubOrganiser, ClubTournament
from tests import factories
from tests.conftest import client_for

pytestmark = pytest.mark.django_db(transaction=True)

HOLD = 1.0  # seconds the first request's transaction stays open after it answered


def held(send, started: threading.Event, release: threading.Event, outcome: dict):
    """`send()` in a transaction of its own connection, kept open until `release`."""

    def run() -> None:
        try:
            with transaction.atomic():
                outcome["response"] = send()
                started.set()
                release.wait(10)
        finally:
            started.set()
            connection.close()

    return threading.Thread(target=run)


def timed(send, outcome: dict):
    def run() -> None:
        try:
            outcome["response"] = send()
        except Exception as error:  # a server error, for the test to show
            outcome["error"] = error
        finally:
            connection.close()

    return threading.Thread(target=run)


def race(first_send, second_send) -> tuple:
    started, release, first, second = threading.Event(), threading.Event(), {}, {}
    holder = held(first_send, started, release, first)
    holder.start()
    assert started.wait(10) and "response" in first, first
    racer = timed(second_send, second)
    racer.start()
    time.sleep(HOLD)
    assert racer.is_alive(), f"the second request did not wait for the first: {second}"
    release.set()
    holder.join(10)
    racer.join(10)
    assert "error" not in second, second
    return first["response"], second["response"]


def test_the_same_club_address_started_twice_at_once_makes_one_club(require_postgres):
    ann, bob = factories.OrganiserAccountFactory(), factories.OrganiserAccountFactory()
    body = {"name": "Elks Dominoes", "slug": "elks"}

    first, second = race(
        lambda: client_for(ann).post("/api/v1/clubs/", body, format="json"),
        lambda: client_for(bob).post("/api/v1/clubs/", body | {"name": "Elks"}, format="json"),
    )

    assert first.status_code == 201, first.content
    assert second.status_code == 400, second.content
    assert second.json() == {"slug": ["Another club has this web address."]}
    club = Club.objects.get()
    assert (club.name, club.slug) == ("Elks Dominoes", "elks")
    assert [role.user for role in ClubOrganiser.objects.all()] == [ann]


def test_one_tournament_added_to_two_clubs_at_once_belongs_to_one(require_postgres):
    organiser = factories.OrganiserAccountFactory()
    rally = factories.TournamentFactory(name="Spring Rally", slug="spring-rally")
    factories.StaffFactory(tournament=rally, user=organiser, role="organiser")
    for name, slug in (("Elks", "elks"), ("Pine Valley", "pine-valley")):
        factories.ClubOrganiserFactory(
            club=factories.ClubFactory(name=name, slug=slug), user=organiser
        )
    body = {"tournament": "spring-rally"}

    first, second = race(
        lambda: client_for(organiser).post("/api/v1/clubs/elks/tournaments/", body),
        lambda: client_for(organiser).post("/api/v1/clubs/pine-valley/tournaments/", body),
    )

    assert first.status_code == 201, first.content
    assert second.status_code == 400, second.content
    assert second.json() == {"tournament": ["Spring Rally already belongs to Elks."]}
    assert ClubTournament.objects.get().club.slug == "elks"
