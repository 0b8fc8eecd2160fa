"""Reading a stage's seats and confirmed scores as plain values, in a fixed number of queries
(PostgreSQL sends them in binary)."""

from collections import defaultdict
from contextlib import nullcontext
from typing import Any, NamedTuple

import psycopg
from django.db import connection
from django.db.models import F, QuerySet, Sum

from scoring import rules, time_called
from scoring.models import RoundResult, Score, StandingRow
from tables.models import Seat
from tournaments.models import Player, Stage


class SeatFacts(NamedTuple):
    """What the standings need of a seat: read as plain values, no model instances."""

    player_id: int
    table_id: int
    table_number: int
    from_round: int
    withdrawn: bool
    name: str


def logged(cursor: Any, sql: str, params: Any = None) -> Any:
    """Log a query that bypasses Django's cursor like any other when queries are logged (DEBUG,
    the tests' query counts)."""
    return cursor.debug_sql(sql, params) if connection.queries_logged else nullcontext()


def fetch(queryset: QuerySet) -> list[tuple]:
    """A values_list queryset's rows, fetched in one go. PostgreSQL sends them in binary, so
    numbers arrive as numbers instead of text to parse: a third off reading 26,000 scores."""
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        if connection.vendor != "postgresql":
            cursor.execute(sql, params)
            return cursor.fetchall()
        # Django's psycopg cursors bind on the client, which has no binary results; a plain
        # psycopg cursor on the same connection (and transaction) has. Its errors are Django's
        # (a worker retries OperationalError; a broken connection is not reused), and it
        # prepares nothing on the server (which a transaction-mode pooler would not keep).
        with (
            logged(cursor, sql, params),
            connection.wrap_database_errors,
            psycopg.Cursor(connection.connection) as binary,
        ):
            binary.execute(sql, params, binary=True, prepare=False)
            return binary.fetchall()


def _seats(stage: Stage) -> dict[int, SeatFacts]:
    # order_by() drops Seat.Meta.ordering, whose joins and sort nobody here needs. The stage's
    # tables and the tournament's players are named too, as the services keep them: PostgreSQL
    # then reads them by index instead of hashing every table and player in the database
    # (2.3 ms instead of 6.3 for 2,000 seats among 12,500 players).
    rows = fetch(
        Seat.objects.filter(
            stage=stage, table__stage=stage, player__tournament_id=stage.tournament_id
        )
        .order_by()
        .values_list(
            "player_id", "table_id", "table__number", "from_round", "player__status", "player__name"
        )
    )
    return {
        player_id: SeatFacts(
            player_id, table_id, number, from_round, status == Player.Status.WITHDRAWN, name
        )
        for player_id, table_id, number, from_round, status, name in rows
    }


class StageRecords(NamedTuple):
    """What a rebuild reads of a stage."""

    records: list[rules.PlayerRecord]  # every confirmed round (the tables' own ranking)
    seats: dict[int, SeatFacts]
    counted: int  # results confirmed
    finished: set[int | None]  # the numbers of the tables that have played every round
    through: int  # the rounds every table has confirmed (rules.ranked_through)
    counting: list[rules.PlayerRecord]  # the records as the ranking counts them: to `through`


def stage_records(stage: Stage) -> StageRecords:
    """The players' records, their seats, the results counted, the tables that finished, and
    what the ranking counts: like with like mid-stage (rules.progress)."""
    seats = _seats(stage)
    confirmed = Score.objects.filter(
        result__stage=stage, result__status=RoundResult.Status.CONFIRMED
    ).order_by()  # Score.Meta.ordering would add five joins and a sort of every row
    rows = fetch(confirmed.values_list("player_id", "result__round_no", "pips", "went_out"))
    # The loop over every score is the rebuild's busiest: one dict write per score.
    scores: dict[int, dict[int, int]] = defaultdict(dict)
    won: dict[int, set[int]] = defaultdict(set)
    for player_id, round_no, pips, went_out in rows:
        scores[player_id][round_no] = pips
        if went_out:
            won[player_id].add(round_no)
    # Which rounds each table has confirmed, and the late-entry tables' scores, from the same
    # rows as the scores: one read, so that a confirmation committed meanwhile is counted in
    # all of them or in none (a second query could count it in the results and not the scores).
    # Every player who plays a confirmed round has a score in it.
    table_rounds = _table_rounds(scores, seats)
    late_rounds = _late_table_rounds(scores, seats)
    # A table opened for late players after round 1 (tables.services.add_late_table) has no
    # rounds before its first: its players' missed rounds are filled from a usual table's high.
    first_rounds = table_first_rounds(seats.values())
    if first_rounds:
        late_rounds = _with_rounds_before_opening(late_rounds, scores, seats, first_rounds)
    carried: dict[int, int] = {}
    if stage.carry_forward:
        # Each earlier qualifying stage's own total, from its snapshot: with the rounds a late
        # entry missed filled in by that stage's rule, as its standings counted them.
        earlier = (
            StandingRow.objects.filter(
                stage__tournament_id=stage.tournament_id,
                stage__order__lt=stage.order,
                stage__kind=Stage.Kind.QUALIFYING,
            )
            .order_by()
            .values("player_id")
            .annotate(total=Sum(F("total") - F("carried")))
            .values_list("player_id", "total")
        )
        carried = dict(earlier)
    records = []
    missed_of: dict[int, set[int]] = {}
    no_wins: frozenset[int] = frozenset()
    for player_id, seat in seats.items():
        own = scores.get(player_id, {})
        missed = {}
        if seat.from_round > 1:  # a late entry: the rule fills the rounds played before
            missed = rules.missed_round_scores(
                table_rounds=late_rounds.get(seat.table_id, {}),
                from_round=seat.from_round,
                rule=stage.late_entry_rule,
            )
            own = {**missed, **own}
            missed_of[player_id] = set(missed)
        records.append(
            rules.PlayerRecord(
                player_id,
                seat.table_number,
                own,
                frozenset(won[player_id]) if player_id in won else no_wins,
                carried.get(player_id, 0),
                len(missed),
            )
        )
    counted = sum(len(rounds) for rounds in table_rounds.values())
    numbers = {seat.table_id: seat.table_number for seat in seats.values()}
    # Once time is called, each table plays to its own last round, and the ranking counts the
    # rounds every table played: the fewest (scoring.services.clock).
    last = time_called.last_rounds(stage) or {}
    finished = {
        numbers.get(table_id)
        for table_id, rounds in table_rounds.items()
        if len(rounds) + first_rounds.get(table_id, 1) - 1
        >= last.get(numbers.get(table_id), stage.rounds)
    }
    tables = {seat.table_id for seat in seats.values()}
    through = rules.ranked_through(
        table_rounds, tables, time_called.rounds_every_table_plays(stage), first_rounds
    )
    counting = (
        records
        if through >= stage.rounds
        else [
            rules.counting_through(r, through, missed_rounds=missed_of.get(r.player_id, set()))
            for r in records
        ]
    )
    return StageRecords(records, seats, counted, finished, through, counting)


def _table_rounds(
    scores: dict[int, dict[int, int]], seats: dict[int, SeatFacts]
) -> dict[int, set[int]]:
    """table -> the rounds it has confirmed: those its players have scores in."""
    rounds: dict[int, set[int]] = defaultdict(set)
    for player_id, own in scores.items():
        if (seat := seats.get(player_id)) is not None:
            rounds[seat.table_id].update(own)
    return rounds


def _late_table_rounds(
    scores: dict[int, dict[int, int]], seats: dict[int, SeatFacts]
) -> dict[int, dict[int, dict[int, int]]]:
    """table -> round_no -> {player: pips} of the tables with a late entry, whose missed rounds
    the stage's rule fills (none at most stages)."""
    late_tables = {seat.table_id for seat in seats.values() if seat.from_round > 1}
    late: dict[int, dict[int, dict[int, int]]] = defaultdict(lambda: defaultdict(dict))
    for player_id, seat in seats.items():
        if seat.table_id in late_tables:
            for round_no, pips in scores.get(player_id, {}).items():
                late[seat.table_id][round_no][player_id] = pips
    return {table_id: dict(rounds) for table_id, rounds in late.items()}


def table_first_rounds(seats: Any) -> dict[int, int]:
    """table id -> its first round, for the tables opened for late players after round 1: the
    earliest round any of its seats plays (a table seated with the stage has a seat from 1)."""
    first: dict[int, int] = {}
    for seat in seats:
        first[seat.table_id] = min(first.get(seat.table_id, seat.from_round), seat.from_round)
    return {table_id: n for table_id, n in first.items() if n > 1}


def _with_rounds_before_opening(
    late: dict[int, dict[int, dict[int, int]]],
    scores: dict[int, dict[int, int]],
    seats: dict[int, SeatFacts],
    first_rounds: dict[int, int],
) -> dict[int, dict[int, dict[int, int]]]:
    """The late tables' rounds, with each round before a late-opened table's first as one
    score, the typical table high of that round (rules.typical_table_high): what the stage's
    rule then fills its players' missed rounds from, as a late entry's from their table's."""
    highs: dict[int, dict[int, int]] = defaultdict(dict)  # round -> table -> highest score
    for player_id, own in scores.items():
        if (seat := seats.get(player_id)) is None or seat.table_id in first_rounds:
            continue
        for round_no, pips in own.items():
            at = highs[round_no]
            at[seat.table_id] = max(at.get(seat.table_id, pips), pips)
    filled = dict(late)
    for table_id, first in first_rounds.items():
        rounds = dict(filled.get(table_id, {}))
        for round_no in range(1, first):
            if highs.get(round_no):
                rounds[round_no] = {0: rules.typical_table_high(highs[round_no].values())}
        filled[table_id] = rounds
    return filled
