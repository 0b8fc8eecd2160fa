"""Live standings: a snapshot of each stage's ranking, recomputed from confirmed results.

A change that affects the standings (a confirmation, a correction, a seating change, a tie-break
decision) bumps the stage's change_seq in PostgreSQL in the same transaction, and asks a worker
to rebuild after the commit. A rebuild recomputes everything (never increments) and records the
change it includes in built_seq; a stage whose change_seq is ahead is stale and is rebuilt again,
by the next task or by the sweeper. The public pages read the snapshot: from Redis when it is
there and current, from PostgreSQL otherwise.
"""

import gc
import json
import logging
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any, NamedTuple

import psycopg
from django.conf import settings
from django.core.cache import cache
from django.db import OperationalError, connection, transaction
from django.db.models import Count, F, QuerySet, Sum
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from scoring import rules
from scoring.models import RoundResult, Score, StageStandings, StandingRow, TiebreakDecision
from tables.models import Seat
from tournaments.models import Player, Stage

logger = logging.getLogger(__name__)

CACHE_SECONDS = 300


def cache_key(stage_id: int) -> str:
    return f"standings:{stage_id}"


def pending_key(stage_id: int) -> str:
    return f"standings-pending:{stage_id}"


def mark_changed(stage: Stage) -> None:
    """Record, in this transaction, that the stage's standings are owed a rebuild."""
    updated = StageStandings.objects.filter(stage=stage).update(
        change_seq=F("change_seq") + 1, changed_at=timezone.now()
    )
    if not updated:
        StageStandings.objects.bulk_create([StageStandings(stage=stage)], ignore_conflicts=True)


def request_rebuild(stage: Stage) -> None:
    """Mark the stage stale now and send a rebuild after the commit; never fails the caller."""
    mark_changed(stage)
    stage_id = stage.pk
    transaction.on_commit(lambda: send_rebuild(stage_id))


def send_rebuild(stage_id: int) -> None:
    """Send one rebuild for a burst of changes; a Redis or broker failure is left to the sweeper."""
    from scoring import tasks  # the tasks module imports this one

    try:
        if not cache.add(pending_key(stage_id), 1, timeout=30):
            return  # a rebuild is queued and has not started: it will include this change
    except Exception:  # the cache is down: send anyway
        logger.warning("standings: cache unavailable, sending rebuild of stage %s", stage_id)
    try:
        tasks.rebuild_standings.apply_async(kwargs={"stage_id": stage_id}, countdown=0.2)
    except Exception:
        # Redis or the broker is down: the result is safe in PostgreSQL and the stage is marked
        # stale there; the beat sweeper sends the rebuild when the broker is back.
        logger.warning("standings: could not send the rebuild of stage %s", stage_id, exc_info=True)


REBUILD_LOCK = 7_312_001  # the advisory lock's first key; the stage's id is the second
REBUILD_WAIT_SECONDS = 5.0


def wait_for_rebuild(stage_id: int) -> None:
    """Take the stage's rebuild lock for the rest of this transaction, waiting up to
    REBUILD_WAIT_SECONDS for a rebuild in progress to finish; RebuildBusy after that.

    For what must rebuild the standings itself and cannot be told "try again" for a rebuild
    that lasts tens of milliseconds (closing a stage). Call it before taking any row lock: the
    rebuild it waits for must not be waiting for this transaction."""
    if connection.vendor != "postgresql":
        return  # SQLite runs one writing transaction at a time anyway
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_setting('lock_timeout'), set_config('lock_timeout', %s, true)",
            [f"{int(REBUILD_WAIT_SECONDS * 1000)}ms"],
        )
        previous = cursor.fetchone()[0]
        try:
            with transaction.atomic():  # a savepoint: timed out, the transaction goes on
                cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [REBUILD_LOCK, stage_id])
        except OperationalError as error:  # lock_timeout
            raise RebuildBusy(stage_id) from error
        finally:
            cursor.execute("SELECT set_config('lock_timeout', %s, true)", [previous])


def _try_lock(stage_id: int, *, asynchronous_commit: bool) -> bool:
    """One rebuild of a stage at a time (PostgreSQL advisory lock, released at commit).

    With asynchronous_commit (when the rebuild is a transaction of its own, as in a worker), its
    commit does not wait for the WAL to reach the disk (synchronous_commit off, for this
    transaction only): the snapshot is derived from results that are already durable, and it is
    written with the built_seq it includes. Lost in a crash, both are lost together, so the stage
    is still stale and is rebuilt; meanwhile the commit is quicker, and leaves the disk to the
    officials' results. Inside a caller's transaction (closing a stage, seating the next level)
    the setting would cover the caller's own writes too, so it is left alone."""
    if connection.vendor != "postgresql":
        return True  # SQLite runs one writing transaction at a time anyway
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_try_advisory_xact_lock(%s, %s), set_config('synchronous_commit', %s, true)",
            [REBUILD_LOCK, stage_id, "off" if asynchronous_commit else "on"],
        )
        return bool(cursor.fetchone()[0])


def tie_message(flag: dict[str, Any]) -> str:
    """What an unresolved tie asks of the officials, in the active language."""
    names = flag["names"][0]
    for name in flag["names"][1:]:
        names = _("%(names)s and %(name)s") % {"names": names, "name": name}
    if flag["table"] is None:
        return _(
            "%(names)s are tied for place %(place)s overall, which decides the last wildcard. "
            "Record a tie-break decision."
        ) % {"names": names, "place": flag["place"]}
    if flag.get("final"):
        if flag["place"] == 1:
            message = _(
                "Table %(table)s: %(names)s are tied for first place in the final, which decides "
                "the winner. Record a tie-break decision."
            )
        else:
            message = _(
                "Table %(table)s: %(names)s are tied for second place in the final. Record a "
                "tie-break decision."
            )
        return message % {"table": flag["table"], "names": names}
    return _(
        "Table %(table)s: %(names)s are tied for place %(place)s, which decides who advances. "
        "Record a tie-break decision."
    ) % {"table": flag["table"], "names": names, "place": flag["place"]}


class RebuildBusy(Exception):
    """Another rebuild of the stage is running; try again shortly."""


class SeatFacts(NamedTuple):
    """What the standings need of a seat: read as plain values, no model instances."""

    player_id: int
    table_id: int
    table_number: int
    from_round: int
    withdrawn: bool
    name: str


def _logged(cursor: Any, sql: str, params: Any = None) -> Any:
    """Log a query that bypasses Django's cursor like any other when queries are logged (DEBUG,
    the tests' query counts)."""
    return cursor.debug_sql(sql, params) if connection.queries_logged else nullcontext()


def _fetch(queryset: QuerySet) -> list[tuple]:
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
            _logged(cursor, sql, params),
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
    rows = _fetch(
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


def stage_records(
    stage: Stage,
) -> tuple[list[rules.PlayerRecord], dict[int, SeatFacts], int, set[int | None]]:
    """The players' records, their seats, the results counted, and the tables that finished."""
    seats = _seats(stage)
    confirmed = Score.objects.filter(
        result__stage=stage, result__status=RoundResult.Status.CONFIRMED
    ).order_by()  # Score.Meta.ordering would add five joins and a sort of every row
    rows = _fetch(confirmed.values_list("player_id", "result__round_no", "pips", "went_out"))
    # The loop over every score is the rebuild's busiest: one dict write per score.
    scores: dict[int, dict[int, int]] = defaultdict(dict)
    won: dict[int, set[int]] = defaultdict(set)
    for player_id, round_no, pips, went_out in rows:
        scores[player_id][round_no] = pips
        if went_out:
            won[player_id].add(round_no)
    table_rounds = dict(
        _fetch(
            RoundResult.objects.filter(stage=stage, status=RoundResult.Status.CONFIRMED)
            .order_by()
            .values("table_id")
            # One result per table and round (a unique constraint): COUNT(*) is the rounds, and
            # hashes where COUNT(DISTINCT) sorts (2 ms of 4 at 2,000 x 13).
            .annotate(rounds=Count("*"))
            .values_list("table_id", "rounds")
        )
    )
    late_rounds = _late_table_rounds(stage, confirmed, seats)
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
    counted = sum(table_rounds.values())
    numbers = {seat.table_id: seat.table_number for seat in seats.values()}
    finished = {
        numbers.get(table_id) for table_id, rounds in table_rounds.items() if rounds >= stage.rounds
    }
    return records, seats, counted, finished


def _late_table_rounds(
    stage: Stage, confirmed: QuerySet, seats: dict[int, SeatFacts]
) -> dict[int, dict[int, dict[int, int]]]:
    """table -> round_no -> {player: pips} of the tables with a late entry, whose missed rounds
    the stage's rule fills (none, and no query, at most stages)."""
    late_tables = {seat.table_id for seat in seats.values() if seat.from_round > 1}
    if not late_tables:
        return {}
    rows = _fetch(
        confirmed.filter(result__table_id__in=late_tables).values_list(
            "result__table_id", "result__round_no", "player_id", "pips"
        )
    )
    late: dict[int, dict[int, dict[int, int]]] = defaultdict(lambda: defaultdict(dict))
    for table_id, round_no, player_id, pips in rows:
        late[table_id][round_no][player_id] = pips
    return {table_id: dict(rounds) for table_id, rounds in late.items()}


def _advancers(
    stage: Stage,
    ranked: list[rules.Ranked],
    seats: dict[int, SeatFacts],
    finished: set[int | None],
) -> tuple[set[int], list[dict[str, Any]]]:
    """Who advances (the top K eligible at each table, then W wildcards), and the unresolved
    ties that decide it at tables that have played every round (an official must decide).

    A stage that sends nobody on has no advancers: the final (one table), whose ties for first
    and second place are flagged because they decide the winners (_final_ties), and a
    qualifying stage that another qualifying stage follows (everyone plays that one), where no
    tie decides anything."""
    tables = len({seat.table_number for seat in seats.values()})
    follows = Stage.objects.what_follows(stage, tables=tables)
    if follows == "qualifying":
        return set(), []
    if follows == "placings":
        return set(), _final_ties(ranked, seats, finished)
    return _table_advancers(stage, ranked, seats, finished)


# The places the final is played for (a Samboree's playoff decides first and second place).
FINAL_PLACES_DECIDED = 2


def _final_ties(
    ranked: list[rules.Ranked], seats: dict[int, SeatFacts], finished: set[int | None]
) -> list[dict[str, Any]]:
    """The final's unresolved ties for first or second place, once it has played every round.
    Ties further down share their place, as everywhere (DESIGN.md)."""
    tied: dict[tuple[int, int], list[int]] = defaultdict(list)
    for row in ranked:
        if row.table_tied and row.table in finished and not seats[row.player_id].withdrawn:
            tied[row.table, row.table_rank].append(row.player_id)
    return [
        {"table": table, "players": sorted(players), "place": place, "final": True}
        for (table, place), players in sorted(tied.items())
        if place <= FINAL_PLACES_DECIDED
    ]


def _table_advancers(
    stage: Stage,
    ranked: list[rules.Ranked],
    seats: dict[int, SeatFacts],
    finished: set[int | None],
) -> tuple[set[int], list[dict[str, Any]]]:
    late_excluded = stage.late_entry_rule == Stage.LateEntryRule.NO_ADVANCE

    def eligible(player_id: int) -> bool:
        seat = seats[player_id]
        return not seat.withdrawn and not (late_excluded and seat.from_round > 1)

    by_table: dict[int | None, list[rules.Ranked]] = defaultdict(list)
    for row in sorted(ranked, key=lambda r: (r.table_rank or 0, r.player_id)):
        if eligible(row.player_id):
            by_table[row.table].append(row)
    advancing: set[int] = set()
    flags = []
    k = stage.advance_per_table
    for table, rows in by_table.items():
        if len(rows) <= k:
            advancing.update(r.player_id for r in rows)
            continue
        line = rows[k - 1].table_rank  # the rank of the last place that advances
        if rows[k].table_rank == line:  # a tie straddles the line: nobody in it advances yet
            tied = [r.player_id for r in rows if r.table_rank == line]
            advancing.update(r.player_id for r in rows if r.table_rank < line)
            if table in finished:  # mid-stage, a tie is just the score so far
                flags.append({"table": table, "players": tied, "place": line})
        else:
            advancing.update(r.player_id for r in rows[:k])
    if stage.wildcards:
        others = [r for r in ranked if r.player_id not in advancing and eligible(r.player_id)]
        chosen = others[: stage.wildcards]
        if len(others) > stage.wildcards and others[stage.wildcards].rank == chosen[-1].rank:
            # A tie straddles the last wildcard: nobody in it takes one yet.
            line = chosen[-1].rank
            advancing.update(r.player_id for r in chosen if r.rank < line)
            tables = {seat.table_number for seat in seats.values()}
            if tables <= finished:  # mid-stage, a tie is just the score so far
                # Everyone sharing the place, so that one decision orders the whole tie.
                tied = [r.player_id for r in ranked if r.rank == line]
                flags.append({"table": None, "players": tied, "place": line})
        else:
            advancing.update(r.player_id for r in chosen)
    return advancing, flags


# The snapshot's columns after stage and player, in the order of the lines _lines builds.
ROW_FIELDS = (
    "rank",
    "table_number",
    "table_rank",
    "total",
    "carried",
    "rounds_won",
    "rounds_played",
    "scores",
    "tied",
    "table_tied",
    "advances",
    "note",
)
Line = tuple[Any, ...]  # (player_id, *ROW_FIELDS), the scores as {round_no: pips}


def _digest(line: Line, seat: SeatFacts) -> int:
    """A line's values hashed, stored with it: a rebuild compares digests instead of reading every
    line back. Python's hash of ints, tuples and frozensets is the same in every process (unlike a
    string's, or None's before 3.12: the note and a missing table go in as the seat facts and -1).
    A Python release that hashed tuples differently would only make one rebuild rewrite every line.
    """
    _, rank, table, table_rank, *counts, scores, tied, table_tied, advances, _ = line
    flags = (tied, table_tied, advances, seat.withdrawn, seat.from_round)
    return hash(
        (
            rank,
            -1 if table is None else table,
            -1 if table_rank is None else table_rank,
            *counts,
            frozenset(scores.items()),
            *flags,
        )
    )


def _lines(
    ranked: list[rules.Ranked],
    records: list[rules.PlayerRecord],
    seats: dict[int, SeatFacts],
    advancing: set[int],
) -> dict[int, tuple[int, Line]]:
    """Each player's line of the snapshot, with its digest."""
    by_player = {record.player_id: record for record in records}
    lines = {}
    for row in ranked:
        record, seat = by_player[row.player_id], seats[row.player_id]
        line = (
            row.player_id,
            row.rank,
            row.table,
            row.table_rank,
            row.total,
            record.carried,
            row.rounds_won,
            row.rounds_played,
            record.scores,
            row.tied,
            row.table_tied,
            row.player_id in advancing,
            _note(seat),
        )
        lines[row.player_id] = (_digest(line, seat), line)
    return lines


def _write_rows(stage: Stage, lines: dict[int, tuple[int, Line]]) -> int:
    """Make the stored snapshot equal lines, writing only the players whose line changed (after
    one result, most lines are as they were). Returns how many lines were written or removed."""
    stored = dict(
        _fetch(
            StandingRow.objects.filter(stage=stage).order_by().values_list("player_id", "digest")
        )
    )
    changed = [
        (digest, line)
        for player_id, (digest, line) in lines.items()
        if stored.get(player_id) != digest
    ]
    gone = [player_id for player_id in stored if player_id not in lines]
    written = len(changed) + len(gone)
    # PostgreSQL updates a changed line in place, in one statement: an inserted line has its
    # foreign keys checked at the commit, an updated one not (after one correction at 2,000 x 13,
    # deleting and inserting 330 lines took 13 ms and 4 more at the commit). SQLite, the
    # embedded default, replaces it.
    rewritten = [(digest, line) for digest, line in changed if line[0] in stored]
    new = [(digest, line) for digest, line in changed if line[0] not in stored]
    if rewritten and connection.vendor != "postgresql":
        gone, new, rewritten = gone + [line[0] for _, line in rewritten], rewritten + new, []
    if gone:
        StandingRow.objects.filter(stage=stage, player_id__in=gone).delete()
    if rewritten:
        _update_rows(stage, rewritten)
    if new:
        _insert_rows(stage, new)
    return written


def _update_rows(stage: Stage, lines: list[tuple[int, Line]]) -> None:
    """One UPDATE for every changed line, the values sent as one JSON document (json.dumps is
    C; psycopg's array dumpers are Python) and read back as the table's own row type."""
    quote = connection.ops.quote_name
    table = quote(StandingRow._meta.db_table)
    names = ("digest", *ROW_FIELDS)
    sets = ", ".join(f"{quote(name)} = v.{quote(name)}" for name in names)
    sql = (
        f"UPDATE {table} AS r SET {sets} FROM json_populate_recordset(NULL::{table}, %s) AS v "
        "WHERE r.stage_id = %s AND r.player_id = v.player_id"
    )
    document = [
        {"player_id": player_id, "digest": digest, **_stored_fields(values)}
        for digest, (player_id, *values) in lines
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, [json.dumps(document), stage.pk])


# From this many lines, PostgreSQL gets them by COPY (bulk_create of a few dozen lines already
# costs more); fewer, or SQLite (the embedded default, a few hundred players at most), by one
# INSERT.
COPY_FROM_ROWS = 10


def _stored_scores(scores: dict[int, int]) -> dict[str, int]:
    return {str(round_no): scores[round_no] for round_no in sorted(scores)}


def _stored_fields(values: list[Any]) -> dict[str, Any]:
    """A line's values after its player, as StandingRow's fields."""
    fields = dict(zip(ROW_FIELDS, values, strict=True))
    fields["scores"] = _stored_scores(fields["scores"])
    return fields


def _insert_rows(stage: Stage, lines: list[tuple[int, Line]]) -> None:
    if connection.vendor == "postgresql" and len(lines) >= COPY_FROM_ROWS:
        _copy_rows(stage, lines)
        return
    StandingRow.objects.bulk_create(
        StandingRow(stage=stage, player_id=player_id, digest=digest, **_stored_fields(values))
        for digest, (player_id, *values) in lines
    )


SCORES_AT = 1 + ROW_FIELDS.index("scores")


def _copy_rows(stage: Stage, lines: list[tuple[int, Line]]) -> None:
    """PostgreSQL's COPY: a fraction of bulk_create's cost for thousands of rows."""
    quote = connection.ops.quote_name
    columns = ", ".join(quote(name) for name in ("stage_id", "digest", "player_id", *ROW_FIELDS))
    sql = f"COPY {quote(StandingRow._meta.db_table)} ({columns}) FROM STDIN"
    with connection.cursor() as cursor, _logged(cursor, sql), cursor.cursor.copy(sql) as copy:
        for digest, line in lines:
            scores = json.dumps(_stored_scores(line[SCORES_AT]))
            copy.write_row((stage.pk, digest, *line[:SCORES_AT], scores, *line[SCORES_AT + 1 :]))


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The rebuild makes tens of thousands of short-lived dicts and tuples, freed by reference
    counting; the cyclic garbage collector would walk the live ones again and again meanwhile
    (8 ms of a 2,000 x 13 rebuild). It is paused for the rebuild and resumes as before."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@_collector_paused()
def rebuild_standings(*, stage: Stage) -> StageStandings:
    """Recompute the stage's snapshot from confirmed results, in a fixed number of queries.

    Safe to run twice and in parallel: a concurrent rebuild raises RebuildBusy (try again), and
    a rebuild that finds the snapshot current does nothing. Killed midway, it leaves the
    previous snapshot intact (one transaction).
    """
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        return _rebuild(stage, asynchronous_commit=outermost)


def _rebuild(stage: Stage, *, asynchronous_commit: bool) -> StageStandings:
    if not _try_lock(stage.pk, asynchronous_commit=asynchronous_commit):
        raise RebuildBusy(stage.pk)
    meta = StageStandings.objects.filter(stage=stage).first()
    if meta is None:  # never built nor changed; another process may be creating it too
        StageStandings.objects.bulk_create([StageStandings(stage=stage)], ignore_conflicts=True)
        meta = StageStandings.objects.get(stage=stage)
    seq = meta.change_seq
    if meta.built_seq >= seq and meta.computed_at is not None:
        return meta  # current already: a coalesced request
    stage = Stage.objects.select_related("tournament").get(pk=stage.pk)
    records, seats, counted, finished = stage_records(stage)
    decisions = [
        rules.Decision(order=tuple(d.order), method=d.method)
        for d in TiebreakDecision.objects.filter(stage=stage).order_by("at")
    ]
    ranked = rank_stage(stage, records, seats, decisions)
    advancing, flags = _advancers(stage, ranked, seats, finished)
    _write_rows(stage, _lines(ranked, records, seats, advancing))
    flags = [{**flag, "names": [seats[p].name for p in flag["players"]]} for flag in flags]
    # The snapshot is shared by every reader, and a rebuild runs in whoever's request or in a
    # worker: store the message in the site's language; pages show tie_message in their own.
    with translation.override(settings.LANGUAGE_CODE):
        meta.flags = [{**flag, "message": tie_message(flag)} for flag in flags]
    meta.built_seq = seq
    meta.computed_at = timezone.now()
    meta.results_counted = counted
    meta.results_expected = stage.tables.count() * stage.rounds
    meta.rebuilds = F("rebuilds") + 1
    # Never write change_seq back: a change committed meanwhile must keep the stage stale.
    meta.save(
        update_fields=[
            "built_seq",
            "computed_at",
            "results_counted",
            "results_expected",
            "rebuilds",
            "flags",
        ]
    )
    meta.refresh_from_db(fields=["rebuilds", "change_seq"])
    transaction.on_commit(lambda: _forget_cached(stage.pk))
    return meta


def rank_stage(
    stage: Stage,
    records: list[rules.PlayerRecord],
    seats: dict[int, SeatFacts],
    decisions: list[rules.Decision] | tuple = (),
) -> list[rules.Ranked]:
    """The stage's active players ranked (DESIGN.md), then those who withdrew, ranked among
    themselves after every active player, overall and at their table: a player who left after
    one good round takes nobody's place."""
    tiebreaks = stage.tournament.tiebreak_rules
    active = [r for r in records if not seats[r.player_id].withdrawn]
    if len(active) == len(records):
        return rules.rank_players(records, tiebreaks=tiebreaks, decisions=decisions)
    ranked = rules.rank_players(active, tiebreaks=tiebreaks, decisions=decisions)
    at_table = Counter(row.table for row in ranked)
    withdrawn = [r for r in records if seats[r.player_id].withdrawn]
    after = [
        row._replace(
            rank=row.rank + len(active),
            table_rank=None if row.table_rank is None else row.table_rank + at_table[row.table],
        )
        for row in rules.rank_players(withdrawn, tiebreaks=tiebreaks)
    ]
    return ranked + after


def _note(seat: SeatFacts) -> str:
    # Stored in English, like every snapshot value; scoring.public translates it for the page.
    if seat.withdrawn:
        return "withdrawn"
    if seat.from_round > 1:
        return f"joined in round {seat.from_round}"
    return ""


def note_text(note: str) -> str:
    """A stored note (see _note) in the active language."""
    if note == "withdrawn":
        return _("withdrawn")
    if note.startswith("joined in round ") and note[16:].isdigit():
        return _("joined in round %(round)s") % {"round": note[16:]}
    return note


def _forget_cached(stage_id: int) -> None:
    try:
        cache.delete(cache_key(stage_id))
    except Exception:  # Redis down: the version check below never serves the old payload
        logger.warning("standings: cache unavailable after rebuilding stage %s", stage_id)


def standings_meta(stage: Stage) -> StageStandings:
    """The snapshot's header; a stage never built is built now (its seating just happened)."""
    meta = StageStandings.objects.filter(stage=stage).first()
    if meta is None or meta.computed_at is None:
        try:
            meta = rebuild_standings(stage=stage)
        except RebuildBusy:
            meta = StageStandings.objects.get(stage=stage)
    return meta


def standings_payload(stage: Stage, meta: StageStandings) -> dict[str, Any]:
    """The API's standings document, from Redis when current there, else from PostgreSQL."""
    key = cache_key(stage.pk)
    try:
        cached = cache.get(key)
    except Exception:
        cached = None
    if cached is not None and cached.get("built_seq") == meta.built_seq:
        return cached["payload"]
    rows = (
        StandingRow.objects.filter(stage=stage)
        .select_related("player")
        .order_by("rank", "player__number")
    )
    payload = {
        "stage": stage.pk,
        "computed_at": meta.computed_at.isoformat() if meta.computed_at else None,
        "results_counted": meta.results_counted,
        "results_expected": meta.results_expected,
        "stale": meta.stale,
        "flags": meta.flags,
        "rows": [
            {
                "rank": row.rank,
                "player": {
                    "id": row.player_id,
                    "number": row.player.number,
                    "name": row.player.name,
                },
                "table": row.table_number,
                "table_rank": row.table_rank,
                "total": row.total,
                "carried": row.carried,
                "rounds_won": row.rounds_won,
                "rounds_played": row.rounds_played,
                "scores": row.scores,
                "tied": row.tied,
                "advances": row.advances,
                "note": row.note,
            }
            for row in rows
        ],
    }
    try:
        cache.set(key, {"built_seq": meta.built_seq, "payload": payload}, timeout=CACHE_SECONDS)
    except Exception:
        logger.warning("standings: cache unavailable, served stage %s from PostgreSQL", stage.pk)
    return payload


def stale_stage_ids() -> list[int]:
    return list(
        StageStandings.objects.filter(built_seq__lt=F("change_seq")).values_list(
            "stage_id", flat=True
        )
    )
