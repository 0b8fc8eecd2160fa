"""The desk's Check in box answered 40 times at once, on PostgreSQL with a connection a request:
every badge is checked in, once, with one entry in its player's history."""

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection
from django.test import Client

from tests import factories
from tournaments.models import PlayerChange

pytestmark = pytest.mark.django_db(transaction=True)


def test_check_in_of_40_badges_in_parallel_checks_in_every_one_once(require_postgres):
    tournament = factories.TournamentFactory(slug="harbour")
    factories.StageFactory(tournament=tournament, order=1)
    players = [
        factories.PlayerFactory(tournament=tournament, number=number) for number in range(1, 41)
    ]
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user

    def scan(number: int) -> tuple[int, str]:
        try:
            client = Client(HTTP_HX_REQUEST="true")
            client.force_login(organiser)
            response = client.post("/t/harbour/manage/players/check-in/", {"find": str(number)})
            return response.status_code, response.content.decode()
        finally:
            connection.close()  # this thread's own connection

    with ThreadPoolExecutor(max_workers=40) as pool:
        answers = list(pool.map(scan, range(1, 41)))
    for number, (status, page) in enumerate(answers, start=1):
        assert status == 200
        assert f"#{number} " in page and "is checked in." in page, page
    for player in players:
        player.refresh_from_db()
        assert player.status == "checked_in"
        entries = player.history.filter(history_change_reason=PlayerChange.CHECKED_IN)
        assert entries.count() == 1
