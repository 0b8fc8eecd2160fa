"""The standings' rebuild: after a correction, run twice, by the sweeper, with the cache down,
in a bounded number of queries, rewriting only the lines that changed."""

import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.db import DataError, connection, transaction
from django.test.utils import CaptureQueriesContext

from scoring import standings, tasks
from scoring.models import RoundResult, Score, StageStandings, StandingRow
from scoring.standings import ROW_FIELDS
from tables.models import Seat, Table
from tests import factories
from tests.conftest import client_for
from tests.scoring.helpers import play, seat_tables
from tests.scoring.standings.conftest import rows
from tournaments.models import Player, Stage

# Committed transactions, so that the rebuild sent on commit runs (inline: no broker in tests).
pytestmark = pytest.mark.django_db(transaction=True)


def test_correcting_a_confirmed_result_rebuilds_the_standings(anon, as_official, stage):
    (table,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    result = play(stage, table, 1, [0, 25, 40])
    assert rows(anon, stage)[1]["total"] == 25
    body = {
        "reason": "Bob had 52",
        "scores": [
            {"player": p.pk, "pips": v, "went_out": v == 0}
            for p, v in zip(table, [0, 52, 40], strict=True)
        ],
    }
    put = as_official.put(
        f"/api/v1/tables/{result.table_id}/rounds/1/",
        body,
        format="json",
        HTTP_IF_MATCH=result.etag,
    )
    assert put.status_code == 200
    assert [r["total"] for r in rows(anon, stage)] == [0, 0, 0]  # the round awaits confirmation
    confirmed = as_official.post(f"/api/v1/tables/{result.table_id}/rounds/1/confirm/")
    assert confirmed.status_code == 200
    assert [(r["player"]["name"], r["total"]) for r in rows(anon, stage)] == [
        ("Ann", 0),
        ("Cy", 40),
        ("Bob", 52),
    ]


def test_rebuild_twice_does_nothing_the_second_time(stage):
    (table,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, table, 1, [0, 25, 40])
    first = standings.rebuild_standings(stage=stage)
    again = standings.rebuild_standings(stage=stage)
    assert again.rebuilds == first.rebuilds
    assert again.computed_at == first.computed_at


def test_sweeper_rebuilds_a_stage_whose_rebuild_was_lost(stage):
    (table,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, table, 1, [0, 25, 40])
    standings.rebuild_standings(stage=stage)
    standings.mark_changed(stage)  # a change whose task never reached the broker
    assert StageStandings.objects.get(stage=stage).stale
    assert tasks.sweep_stale_standings() == 1
    assert not StageStandings.objects.get(stage=stage).stale


def test_standings_are_served_from_postgresql_when_the_cache_is_down(anon, stage, take_cache_down):
    (table,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    play(stage, table, 1, [0, 25, 40])
    take_cache_down()
    response = anon.get(f"/api/v1/stages/{stage.pk}/standings/")
    assert response.status_code == 200
    assert [r["total"] for r in response.json()["rows"]] == [0, 25, 40]


def test_confirming_works_when_the_cache_is_down(as_official, stage, take_cache_down):
    (table,) = seat_tables(stage, [["Ann", "Bob", "Cy"]])
    result = play(stage, table, 1, [0, 25, 40], status="submitted")
    take_cache_down()
    response = as_official.post(f"/api/v1/tables/{result.table_id}/rounds/1/confirm/")
    assert response.status_code == 200
    result.refresh_from_db()
    assert result.status == "confirmed"


def build_stage(tournament, players: int) -> Stage:
    stage = factories.StageFactory(
        tournament=tournament, rounds=4, status="seated", table_size_min=4, table_size_max=4
    )
    entrants = Player.objects.bulk_create(
        Player(tournament=tournament, number=10_000 * stage.order + n, name=f"P{n}")
        for n in range(players)
    )
    tables = Table.objects.bulk_create(
        Table(stage=stage, number=n + 1) for n in range(players // 4)
    )
    Seat.objects.bulk_create(
        Seat(stage=stage, table=tables[i // 4], player=p, position=i % 4 + 1)
        for i, p in enumerate(entrants)
    )
    official = factories.UserFactory()
    results = RoundResult.objects.bulk_create(
        RoundResult(
            stage=stage,
            table=t,
            round_no=n,
            engine=stage.engine(n),
            status="confirmed",
            submitted_by=official,
            confirmed_by=official,
        )
        for t in tables
        for n in range(1, 5)
    )
    Score.objects.bulk_create(
        Score(
            result=r,
            player=entrants[(r.table.number - 1) * 4 + i],
            pips=0 if i == 0 else 7 * i,
            went_out=i == 0,
        )
        for r in results
        for i in range(4)
    )
    return stage


def queries_to_rebuild_and_serve(stage) -> tuple[int, int]:
    standings.mark_changed(stage)
    with CaptureQueriesContext(connection) as rebuild:
        standings.rebuild_standings(stage=stage)
    client = client_for(None)
    with CaptureQueriesContext(connection) as serve:
        assert client.get(f"/api/v1/stages/{stage.pk}/standings/").status_code == 200
    return len(rebuild), len(serve)


def test_rebuild_and_serve_take_as_many_queries_for_2000_players_as_for_12(
    tournament, require_postgres
):
    small = queries_to_rebuild_and_serve(build_stage(tournament, 12))
    large = queries_to_rebuild_and_serve(build_stage(tournament, 2000))
    assert small == large
    assert small[1] <= 4


def snapshot(stage) -> dict[int, tuple]:
    return {
        row[0]: row[1:]
        for row in StandingRow.objects.filter(stage=stage).values_list(
            "player_id", *standings.ROW_FIELDS
        )
    }


def row_versions(stage) -> dict[int, object]:
    """Each stored line's row version: it changes when the line is written. PostgreSQL updates a
    changed line in place (its xmin changes); SQLite replaces it (its id changes)."""
    version = "xmin::text" if connection.vendor == "postgresql" else "id"
    return dict(
        StandingRow.objects.filter(stage=stage)
        .order_by()
        .extra(select={"version": version})
        .values_list("player_id", "version")
    )


@pytest.mark.parametrize("copy_from_rows", [1, 10_000], ids=["copy", "insert"])
def test_a_rebuild_rewrites_only_the_lines_that_changed_and_equals_a_fresh_build(
    stage, monkeypatch, copy_from_rows
):
    # PostgreSQL takes large writes by COPY, small ones by INSERT: both must store the same lines.
    monkeypatch.setattr(standings.rows, "COPY_FROM_ROWS", copy_from_rows)
    tables = seat_tables(stage, [["A1", "A2", "A3", "A4"], ["B1", "B2", "B3"], ["C1", "C2"]])
    for round_no in (1, 2):
        play(stage, tables[0], round_no, [0, 10, 20, 30])
        play(stage, tables[1], round_no, [5, 0, 40])
    late = play(stage, tables[2], 1, [0, 12])
    play(stage, tables[2], 2, [0, 0])  # every table through round 2: the ranking counts both
    versions_before = row_versions(stage)
    assert len(versions_before) == 9

    # A correction at table C changes C2's line only (nobody's rank moves).
    Score.objects.filter(result=late, player=tables[2][1]).update(pips=13)
    standings.request_rebuild(stage)
    after = snapshot(stage)
    assert after[tables[2][1].pk][ROW_FIELDS.index("total")] == 13
    versions_after = row_versions(stage)
    rewritten = {p for p in versions_after if versions_after[p] != versions_before[p]}
    assert rewritten == {tables[2][1].pk}

    # A1 (first overall) withdraws: A1 goes below every active player, everyone else moves up a
    # place, A2 advances in A1's place. Exactly the lines whose values changed are rewritten.
    Player.objects.filter(pk=tables[0][0].pk).update(status="withdrawn")
    standings.request_rebuild(stage)
    before, after = after, snapshot(stage)
    assert after[tables[0][0].pk][ROW_FIELDS.index("note")] == "withdrawn"
    assert after[tables[0][1].pk][ROW_FIELDS.index("advances")] is True
    changed = {p for p in after if after[p] != before[p]}
    versions = row_versions(stage)
    rewritten = {p for p in versions if versions[p] != versions_after[p]}
    assert rewritten == changed and {tables[0][0].pk, tables[0][1].pk} <= changed

    # Pips moved from one round to another leave the total as it was; the line is still new.
    Score.objects.filter(player=tables[1][2], result__round_no=1).update(pips=30)
    Score.objects.filter(player=tables[1][2], result__round_no=2).update(pips=50)
    standings.request_rebuild(stage)
    moved = snapshot(stage)[tables[1][2].pk]
    assert moved[ROW_FIELDS.index("scores")] == {"1": 30, "2": 50}
    assert moved[ROW_FIELDS.index("total")] == after[tables[1][2].pk][ROW_FIELDS.index("total")]

    # In one rebuild, a line goes (someone unseated), one comes (a late entry at table C), and
    # one changes (a corrected score); what is stored equals a build from nothing.
    Seat.objects.filter(player=tables[1][2]).delete()
    late_player = factories.PlayerFactory(tournament=stage.tournament, number=99, name="Late")
    table_c = Seat.objects.get(player=tables[2][0]).table
    factories.SeatFactory(table=table_c, player=late_player, position=3, from_round=2)
    Score.objects.filter(result=late, player=tables[2][1]).update(pips=14)
    standings.request_rebuild(stage)
    kept = snapshot(stage)
    assert tables[1][2].pk not in kept and late_player.pk in kept and len(kept) == 9
    assert kept[tables[2][1].pk][ROW_FIELDS.index("total")] == 14
    StandingRow.objects.filter(stage=stage).delete()
    standings.request_rebuild(stage)
    assert snapshot(stage) == kept


def test_a_rebuild_inside_a_callers_transaction_leaves_its_commit_synchronous(
    stage, require_postgres
):
    # Closing a stage or seating the next level rebuilds inside its own transaction: their
    # writes must reach the disk before the organiser is told they are done.
    seat_tables(stage, [["A1", "A2", "A3", "A4"]])
    standings.mark_changed(stage)
    with transaction.atomic():
        standings.rebuild_standings(stage=stage)
        with connection.cursor() as cursor:
            cursor.execute("SHOW synchronous_commit")
            assert cursor.fetchone()[0] == "on"


def test_a_failed_read_of_the_rebuild_raises_djangos_error(stage, require_postgres):
    # A worker retries django.db.OperationalError; a driver's own error would not be retried.
    broken = Seat.objects.filter(stage=stage).extra(where=["1 / 0 = 1"]).values_list("pk")
    with pytest.raises(DataError), transaction.atomic():
        standings.records.fetch(broken)


def test_a_line_written_without_a_digest_gets_zero_and_is_rewritten(stage):
    # During a rolling deploy, a process of the previous release writes lines without a digest.
    tables = seat_tables(stage, [["A1", "A2"]])
    play(stage, tables[0], 1, [0, 12])
    line = StandingRow.objects.get(player=tables[0][1])
    StandingRow.objects.filter(pk=line.pk).delete()
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            f"INSERT INTO {quote(StandingRow._meta.db_table)} (stage_id, player_id, rank, "
            "total, carried, rounds_won, rounds_played, scores, tied, table_tied, advances, note)"
            " VALUES (%s, %s, 9, 99, 0, 0, 1, '{}', false, false, false, '')",
            [stage.pk, tables[0][1].pk],
        )
    assert StandingRow.objects.get(player=tables[0][1]).digest == 0
    standings.request_rebuild(stage)
    rewritten = StandingRow.objects.get(player=tables[0][1])
    assert (rewritten.rank, rewritten.total, rewritten.scores) == (2, 12, {"1": 12})
    assert rewritten.digest != 0


DIGEST_IN_A_PROCESS = """
import django
django.setup()
from scoring.rules import Separation
from scoring.standings.records import SeatFacts
from scoring.standings.rows import line_digest
tiebreaks = (Separation("overall", "ahead", (31, 32), "countback", 4, 9, 3, None),)
line = (7, 5, None, 2, 40, 0, 1, 3, {1: 12, 2: 0, 3: 28}, True, False, False, "", tiebreaks)
print(line_digest(line, SeatFacts(7, 70, 3, 1, False, "Ann")))
"""


def test_a_lines_digest_is_the_same_in_every_worker_process():
    # Each Celery worker is a process of its own; a rebuild compares the digests the last one
    # stored, and a player's page is versioned by its line's. Python's hash() of a tie-break
    # (strings, None) differed from one process to the next: two workers taking turns rewrote
    # every tied player's line, and each such page was a new version for the phones, unchanged.
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings"}
    digests = {
        subprocess.run(
            [sys.executable, "-c", DIGEST_IN_A_PROCESS], env={**env, "PYTHONHASHSEED": seed},
            capture_output=True, text=True, check=True, cwd=settings.BASE_DIR,
        ).stdout.strip()
        for seed in ("1", "2", "random")
    }  # fmt: skip
    assert len(digests) == 1 and int(digests.pop()) not in (0, -1)
