"""The phones at one table send at once, on PostgreSQL with a connection each: two seats entering
the same new round make one result (the other is told to reload it), two seats confirming it
confirm it once, and wrong claims sent together from one address are all counted."""

import threading
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
import time_machine
from django.db import connection
from rest_framework.test import APIClient

from scoring.models import RoundResult, RoundResultVersion
from tables.models import CODE_ALPHABET, SeatClaim
from tests import factories
from tests.scoring.conftest import round_body
from tests.scoring.helpers import seat_tables

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def table_of_phones(require_postgres):
    """A table of a stage whose players report: Ann, Bob and Cy, each with their seat's phone."""
    stage = factories.StageFactory(rounds=4, status="seated", reporting="players")
    (players,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    table = stage.tables.get()
    phones = []
    for player in players:
        answer = APIClient().post(
            f"/api/v1/table-codes/{table.code}/seats/", {"number": player.number}, format="json"
        )
        assert answer.status_code == 201
        phone = APIClient()
        phone.credentials(HTTP_AUTHORIZATION=f"Token {answer.json()['token']}")
        phones.append(phone)
    return table, players, phones


def together(calls: list[Callable]) -> list:
    """Each call in a thread of its own (its own connection), released at once."""
    barrier = threading.Barrier(len(calls))
    answers: list = [None] * len(calls)

    def run(index: int) -> None:
        try:
            barrier.wait()
            answers[index] = calls[index]()
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return answers


def test_two_seats_entering_the_same_new_round_at_once_make_one_result(table_of_phones):
    table, players, (ann, bob, _cy) = table_of_phones
    url = f"/api/v1/tables/{table.pk}/rounds/1/"
    answers = together(
        [
            lambda: ann.put(url, round_body(players, pips=(0, 5, 9)), format="json"),
            lambda: bob.put(url, round_body(players, pips=(0, 6, 9)), format="json"),
        ]
    )
    assert Counter(answer.status_code for answer in answers) == {201: 1, 428: 1}
    assert RoundResult.objects.count() == 1
    assert RoundResultVersion.objects.count() == 1


def test_two_seats_confirming_at_once_confirm_the_round_once(table_of_phones):
    table, players, (ann, bob, cy) = table_of_phones
    url = f"/api/v1/tables/{table.pk}/rounds/1/"
    assert ann.put(url, round_body(players, pips=(0, 5, 9)), format="json").status_code == 201
    answers = together([lambda: bob.post(f"{url}confirm/"), lambda: cy.post(f"{url}confirm/")])
    assert [answer.status_code for answer in answers] == [200, 200]
    assert {answer.json()["status"] for answer in answers} == {"confirmed"}
    result = RoundResult.objects.get()
    assert result.status == "confirmed"
    assert result.versions.filter(action="confirmed").count() == 1


def test_eleven_wrong_claims_sent_at_once_from_one_address_meet_the_limit(table_of_phones):
    """Counted in minutes: the clock starts the burst at the start of one, so all of it is in."""
    table, *_ = table_of_phones
    minute = time_machine.travel(datetime(2026, 5, 9, 12, 0, 1, tzinfo=UTC), tick=True)
    minute.start()
    wrong = "".join(CODE_ALPHABET[0] if c != CODE_ALPHABET[0] else CODE_ALPHABET[1]
                    for c in table.code)  # fmt: skip
    claims = [
        lambda: APIClient().post(f"/api/v1/table-codes/{wrong}/seats/", {"number": 1})
        for _ in range(11)
    ]
    answers = together(claims)
    assert Counter(answer.status_code for answer in answers) == {404: 10, 429: 1}
    right = APIClient().post(f"/api/v1/table-codes/{table.code}/seats/", {"number": 1})
    assert right.status_code == 429 and int(right["Retry-After"]) >= 1
    minute.stop()
    assert SeatClaim.objects.count() == 3  # the three phones' claims only
