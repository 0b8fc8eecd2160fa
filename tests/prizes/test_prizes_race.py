"""Two organisers at once on PostgreSQL, a connection each: one saving a prize table while the
other announces it, and both announcing. Served one after the other (the tournament's row
locked): an announced table is never changed after the fact, and it is announced once."""

import threading
from decimal import Decimal

import pytest
from django.db import connection

from prizes import services
from prizes.models import PrizeEvent, PrizeTable
from tests import factories
from tournaments.exceptions import StateConflict

pytestmark = pytest.mark.django_db(transaction=True)


def at_once(*calls) -> list[object]:
    """Each call in its own thread and connection, started together: what each returned or
    raised."""
    start = threading.Barrier(len(calls))
    outcomes: list[object] = [None] * len(calls)

    def run(n: int) -> None:
        try:
            start.wait(10)
            outcomes[n] = calls[n]()
        except Exception as error:
            outcomes[n] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return outcomes


def test_a_save_racing_an_announcement_lands_before_it_or_is_refused(require_postgres):
    for attempt in range(6):
        tournament = factories.TournamentFactory()
        services.save_table(
            tournament=tournament, division=None, basis="amounts", rows=[services.Row(1, "10")]
        )
        saved, announced = at_once(
            lambda t=tournament: services.save_table(
                tournament=t, division=None, basis="amounts", rows=[services.Row(1, "99")]
            ),
            lambda t=tournament: services.announce(tournament=t, division=None),
        )
        assert isinstance(announced, PrizeTable), announced
        table = PrizeTable.objects.get(tournament=tournament)
        assert table.announced
        amount = table.prizes.get().amount
        announcement = table.events.get(action=PrizeEvent.Action.ANNOUNCED)
        if isinstance(saved, StateConflict):
            assert amount == Decimal(10), attempt  # announced first: the change refused
        else:
            assert isinstance(saved, PrizeTable), saved
            assert amount == Decimal(99), attempt  # saved first: announced with it
        assert announcement.rows[0]["amount"] == f"{amount:.2f}"


def test_two_organisers_announcing_at_once_announce_once(require_postgres):
    tournament = factories.TournamentFactory()
    services.save_table(
        tournament=tournament, division=None, basis="amounts", rows=[services.Row(1, "10")]
    )
    outcomes = at_once(
        lambda: services.announce(tournament=tournament, division=None),
        lambda: services.announce(tournament=tournament, division=None),
    )
    assert sum(isinstance(o, PrizeTable) for o in outcomes) == 1, outcomes
    refused = next(o for o in outcomes if not isinstance(o, PrizeTable))
    assert isinstance(refused, StateConflict) and "were announced" in str(refused)
    assert PrizeEvent.objects.filter(action="announced").count() == 1
