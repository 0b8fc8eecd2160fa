"""Live standings with a real worker (and beat), real Redis and PostgreSQL, through failures."""

import time

import psycopg
from django.db import connection

from scoring.models import RoundResult, Score, StageStandings, StandingRow
from tables.models import Seat, Table
from tests import factories
from tests.conftest import client_for
from tests.integration.conftest import worker_database_url
from tournaments.models import Player


def wait_for(predicate, timeout: float) -> float | None:
    """Seconds until the predicate held, or None when it never did."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if predicate():
            return time.monotonic() - started
        time.sleep(0.05)
    return None


def seated_stage(tables: int):
    """A seated stage of `tables` tables of 4; round results submitted, waiting for confirmation."""
    stage = factories.StageFactory(rounds=4, status="seated", table_size_min=4, table_size_max=4)
    official = factories.StaffFactory(tournament=stage.tournament, role="official").user
    players = Player.objects.bulk_create(
        Player(tournament=stage.tournament, number=n + 1, name=f"Player {n + 1}")
        for n in range(tables * 4)
    )
    table_rows = Table.objects.bulk_create(Table(stage=stage, number=n + 1) for n in range(tables))
    Seat.objects.bulk_create(
        Seat(stage=stage, table=table_rows[i // 4], player=p, position=i % 4 + 1)
        for i, p in enumerate(players)
    )
    return stage, official, players, table_rows


def submit(stage, table, players, round_no, official) -> RoundResult:
    """A submitted round: seat 1 goes out, seat k scores round_no * k."""
    result = RoundResult.objects.create(
        stage=stage,
        table=table,
        round_no=round_no,
        engine=stage.engine(round_no),
        submitted_by=official,
    )
    seated = players[(table.number - 1) * 4 : table.number * 4]
    Score.objects.bulk_create(
        Score(result=result, player=p, pips=round_no * k, went_out=k == 0)
        for k, p in enumerate(seated)
    )
    return result


def standings_of(client, stage) -> dict:
    return client.get(f"/api/v1/stages/{stage.pk}/standings/").json()


def total_of(body: dict, number: int) -> int | None:
    return next((r["total"] for r in body["rows"] if r["player"]["number"] == number), None)


def test_a_confirmed_result_is_in_the_api_standings_within_2_seconds(standings_stack):
    stage, official, players, tables = seated_stage(3)
    anon = client_for(None)
    assert standings_of(anon, stage)["results_counted"] == 0
    submit(stage, tables[1], players, 1, official)
    confirmed = client_for(official).post(f"/api/v1/tables/{tables[1].pk}/rounds/1/confirm/")
    assert confirmed.status_code == 200
    seconds = wait_for(lambda: standings_of(anon, stage)["results_counted"] == 1, timeout=10)
    assert seconds is not None, standings_stack[0].logs()
    assert seconds < 2
    # Table 2, seat 4 scored 1 x 3, shown at once; counted once every table has reported round 1.
    row = next(r for r in standings_of(anon, stage)["rows"] if r["player"]["number"] == 8)
    assert (row["scores"], row["total"]) == ({"1": 3}, 0)


def test_a_burst_of_200_confirmations_gives_right_standings_with_far_fewer_rebuilds(
    standings_stack,
):
    stage, official, players, tables = seated_stage(50)
    for table in tables:
        for round_no in range(1, 5):
            submit(stage, table, players, round_no, official)
    tablet = client_for(official)
    for table in tables:
        for round_no in range(1, 5):
            response = tablet.post(f"/api/v1/tables/{table.pk}/rounds/{round_no}/confirm/")
            assert response.status_code == 200
    anon = client_for(None)
    done = wait_for(lambda: standings_of(anon, stage)["results_counted"] == 200, timeout=30)
    assert done is not None, standings_stack[0].logs()
    assert wait_for(lambda: not StageStandings.objects.get(stage=stage).stale, timeout=10)
    body = standings_of(anon, stage)
    # seat k of every table scored k x (1 + 2 + 3 + 4) = 10k
    assert {r["total"] for r in body["rows"]} == {0, 10, 20, 30}
    assert total_of(body, 200) == 30 and total_of(body, 197) == 0
    rebuilds = StageStandings.objects.get(stage=stage).rebuilds
    assert rebuilds <= 40, f"{rebuilds} rebuilds for 200 confirmations"


def test_a_worker_killed_mid_rebuild_leaves_the_old_snapshot_and_the_rebuild_is_redone(
    standings_stack,
):
    worker, _ = standings_stack
    stage, official, players, tables = seated_stage(2)
    anon = client_for(None)
    tablet = client_for(official)
    submit(stage, tables[0], players, 1, official)
    tablet.post(f"/api/v1/tables/{tables[0].pk}/rounds/1/confirm/")
    assert wait_for(lambda: standings_of(anon, stage)["results_counted"] == 1, timeout=10)
    before = list(StandingRow.objects.filter(stage=stage).values_list("player_id", "total"))

    # Hold the snapshot's rows, so that the next rebuild stops halfway, at its write. The block
    # closes the connection whatever happens: left open, it would hang the database's teardown.
    url = worker_database_url().replace("postgres://", "postgresql://")
    with psycopg.connect(url) as blocker:
        blocker.execute("SELECT id FROM scoring_standingrow WHERE stage_id = %s FOR UPDATE",
                        [stage.pk])  # fmt: skip
        submit(stage, tables[1], players, 1, official)
        tablet.post(f"/api/v1/tables/{tables[1].pk}/rounds/1/confirm/")

        def rebuild_waiting() -> bool:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                    "AND query LIKE %s",
                    ['UPDATE "scoring_standingrow"%'],  # the changed lines, updated in place
                )
                return cursor.fetchone()[0] > 0

        assert wait_for(rebuild_waiting, timeout=15), worker.logs()
        worker.processes[0].kill()  # SIGKILL in the middle of the rebuild
        worker.processes[0].wait()
        blocker.rollback()
    time.sleep(0.5)
    after = list(StandingRow.objects.filter(stage=stage).values_list("player_id", "total"))
    assert after == before  # the killed rebuild changed nothing
    assert StageStandings.objects.get(stage=stage).stale

    worker.beat = False  # no sweeper: the task itself comes back (acks late, visibility timeout)
    worker.start(index=1)
    redone = wait_for(lambda: standings_of(anon, stage)["results_counted"] == 2, timeout=30)
    assert redone is not None, worker.logs()
    assert not StageStandings.objects.get(stage=stage).stale


def test_redis_stopped_during_confirmations_then_restarted(standings_stack):
    worker, redis = standings_stack
    stage, official, players, tables = seated_stage(6)
    for table in tables:
        submit(stage, table, players, 1, official)
    anon, tablet = client_for(None), client_for(official)
    assert standings_of(anon, stage)["results_counted"] == 0

    redis.stop()
    for table in tables:
        started = time.monotonic()
        response = tablet.post(f"/api/v1/tables/{table.pk}/rounds/1/confirm/")
        assert response.status_code == 200
        assert time.monotonic() - started < 3
    assert RoundResult.objects.filter(stage=stage, status="confirmed").count() == 6
    during = anon.get(f"/api/v1/stages/{stage.pk}/standings/")
    assert during.status_code == 200  # read from PostgreSQL
    assert StageStandings.objects.get(stage=stage).stale

    redis.start()
    caught_up = wait_for(lambda: standings_of(anon, stage)["results_counted"] == 6, timeout=60)
    assert caught_up is not None, worker.logs()
    body = standings_of(anon, stage)
    assert {r["total"] for r in body["rows"]} == {0, 1, 2, 3}
    assert not StageStandings.objects.get(stage=stage).stale
