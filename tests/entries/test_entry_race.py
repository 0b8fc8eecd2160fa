"""Forty entries at the same moment for the last ten places, on PostgreSQL with a connection
each: exactly ten entered, thirty waiting numbered 1..30 in the order they were served."""

import threading

import pytest
from django.db import connection

from entries.models import Entry
from tests.entries.helpers import enter, open_tournament
from tournaments.models import Player

pytestmark = pytest.mark.django_db(transaction=True)


def test_forty_at_once_for_ten_places_enter_ten_and_number_thirty_waiting(require_postgres):
    tournament = open_tournament(capacity=10)
    start = threading.Barrier(40)
    errors: list[Exception] = []

    def one(n: int) -> None:
        try:
            start.wait(10)
            enter(tournament, f"Player {n:02d}", f"p{n}@example.org")
        except Exception as error:
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=one, args=(n,)) for n in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert errors == []
    entries = Entry.objects.filter(tournament=tournament)
    assert entries.filter(status="entered").count() == 10
    assert Player.objects.filter(tournament=tournament).count() == 10
    waiting = entries.filter(status="waitlisted").order_by("waitlist_position")
    assert [e.waitlist_position for e in waiting] == list(range(1, 31))
    # Served in order: each waiting entry came after every entered one, and after those ahead.
    entered_last = max(e.entered_at for e in entries.filter(status="entered"))
    times = [e.entered_at for e in waiting]
    assert times == sorted(times) and times[0] >= entered_last
    numbers = sorted(Player.objects.filter(tournament=tournament).values_list("number", flat=True))
    assert numbers == list(range(1, 11))
