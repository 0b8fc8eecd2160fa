"""Thirty tablets send one round at once, on real PostgreSQL: one result, one score per player."""

import threading
from collections import Counter

import pytest
from django.db import connection

from scoring.models import IdempotencyRecord, RoundResult, RoundResultVersion, Score
from tests import factories
from tests.conftest import client_for
from tests.scoring.conftest import round_body

PARALLEL = 30


@pytest.fixture
def seated_table(transactional_db, require_postgres):
    stage = factories.StageFactory(rounds=4, starting_double=12)
    table = factories.TableFactory(stage=stage, number=1)
    players = []
    for position in range(1, 5):
        player = factories.PlayerFactory(tournament=stage.tournament, number=position)
        factories.SeatFactory(table=table, player=player, position=position)
        players.append(player)
    official = factories.StaffFactory(tournament=stage.tournament, role="official").user
    return table, players, official


def send_together(table, official, body, keys: list[str]) -> list:
    barrier = threading.Barrier(len(keys))
    responses: list = [None] * len(keys)

    def send(index: int, key: str) -> None:
        client = client_for(official)
        try:
            barrier.wait()
            responses[index] = client.put(
                f"/api/v1/tables/{table.pk}/rounds/1/", body, format="json",
                HTTP_IDEMPOTENCY_KEY=key,
            )  # fmt: skip
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(i, k)) for i, k in enumerate(keys)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return responses


def test_thirty_retries_with_the_same_key_make_one_result(seated_table):
    table, players, official = seated_table
    body = round_body(players)
    responses = send_together(table, official, body, ["tablet-7-round-1"] * PARALLEL)
    assert Counter(r.status_code for r in responses) == {201: PARALLEL}
    assert len({r["ETag"] for r in responses}) == 1
    assert RoundResult.objects.count() == 1
    assert Score.objects.count() == 4
    assert Counter(Score.objects.values_list("player_id", flat=True)) == {p.pk: 1 for p in players}
    assert RoundResultVersion.objects.count() == 1
    assert IdempotencyRecord.objects.count() == 1


def test_thirty_different_keys_make_one_result_and_the_rest_are_told_to_reload(seated_table):
    table, players, official = seated_table
    body = round_body(players)
    responses = send_together(table, official, body, [f"tablet-{i}" for i in range(PARALLEL)])
    statuses = Counter(r.status_code for r in responses)
    assert statuses[201] == 1
    assert statuses[428] == PARALLEL - 1  # a result exists now: replacing it needs If-Match
    assert RoundResult.objects.count() == 1
    assert Counter(Score.objects.values_list("player_id", flat=True)) == {p.pk: 1 for p in players}
    assert RoundResultVersion.objects.count() == 1
