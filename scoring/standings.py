"""Live standings: a snapshot of each stage's ranking, recomputed from confirmed results.

A change that affects the standings (a confirmation, a correction, a seating change, a tie-break
decision) bumps the stage's change_seq in PostgreSQL in the same transaction, and asks a worker
to rebuild after the commit. A rebuild recomputes everything (never increments) and records the
change it includes in built_seq; a stage whose change_seq is ahead is stale and is rebuilt again,
by the next task or by the sweeper. The public pages read the snapshot: from Redis when it is
there and current, from PostgreSQL otherwise.
"""

import json
import logging
from collections import defaultdict
from contextlib import nullcontext
from typing import Any, NamedTuple

from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import F, Sum
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


def _try_lock(stage_id: int) -> bool:
    """One rebuild of a stage at a time (PostgreSQL advisory lock, released at commit)."""
    if connection.vendor != "postgresql":
        return True  # SQLite runs one writing transaction at a time anyway
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [7_312_001, stage_id])
        return bool(cursor.fetchone()[0])


def tie_message(flag: dict[str, Any]) -> str:
    """What an unresolved tie asks of the officials, in the active language."""
    names = flag["names"][0]
    for name in flag["names"][1:]:
        names = _("%(names)s and %(name)s") % {"names": names, "name": name}
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


def _seats(stage: Stage) -> dict[int, SeatFacts]:
    # order_by() drops Seat.Meta.ordering, whose joins and sort nobody here needs.
    rows = (
        Seat.objects.filter(stage=stage)
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


def _records(
    stage: Stage,
) -> tuple[list[rules.PlayerRecord], dict[int, SeatFacts], int, set[int | None]]:
    """The players' records, their seats, the results counted, and the tables that finished."""
    seats = _seats(stage)
    late_tables = {seat.table_id for seat in seats.values() if seat.from_round > 1}
    scores: dict[int, dict[int, int]] = defaultdict(dict)
    won: dict[int, set[int]] = defaultdict(set)
    table_rounds: dict[int, set[int]] = defaultdict(set)
    # The rounds of a table with a late entry, whose missed rounds the stage's rule fills.
    late_rounds: dict[int, dict[int, dict[int, int]]] = defaultdict(lambda: defaultdict(dict))
    confirmed = (
        Score.objects.filter(result__stage=stage, result__status=RoundResult.Status.CONFIRMED)
        .order_by()  # Score.Meta.ordering would add five joins and a sort of every row
        .values_list("player_id", "result__round_no", "pips", "went_out", "result__table_id")
    )
    for player_id, round_no, pips, went_out, table_id in confirmed:
        scores[player_id][round_no] = pips
        if went_out:
            won[player_id].add(round_no)
        table_rounds[table_id].add(round_no)
        if table_id in late_tables:
            late_rounds[table_id][round_no][player_id] = pips
    carried: dict[int, int] = {}
    if stage.carry_forward:
        earlier = (
            Score.objects.filter(
                result__stage__tournament_id=stage.tournament_id,
                result__stage__order__lt=stage.order,
                result__stage__kind=Stage.Kind.QUALIFYING,
                result__status=RoundResult.Status.CONFIRMED,
            )
            .order_by()
            .values("player_id")
            .annotate(total=Sum("pips"))
            .values_list("player_id", "total")
        )
        carried = dict(earlier)
    records = []
    no_wins: frozenset[int] = frozenset()
    for player_id, seat in seats.items():
        own = scores.get(player_id, {})
        if seat.from_round > 1:  # a late entry: the rule fills the rounds played before
            missed = rules.missed_round_scores(
                table_rounds=dict(late_rounds[seat.table_id]),
                from_round=seat.from_round,
                rule=stage.late_entry_rule,
            )
            own = {**missed, **own}
        records.append(
            rules.PlayerRecord(
                player_id=player_id,
                table=seat.table_number,
                scores=own,
                went_out=frozenset(won[player_id]) if player_id in won else no_wins,
                carried=carried.get(player_id, 0),
            )
        )
    counted = sum(len(rounds) for rounds in table_rounds.values())
    numbers = {seat.table_id: seat.table_number for seat in seats.values()}
    finished = {
        numbers.get(table_id)
        for table_id, rounds in table_rounds.items()
        if len(rounds) >= stage.rounds
    }
    return records, seats, counted, finished


def _advancers(
    stage: Stage,
    ranked: list[rules.Ranked],
    seats: dict[int, SeatFacts],
    finished: set[int | None],
) -> tuple[set[int], list[dict[str, Any]]]:
    """Who advances (the top K eligible at each table, then W wildcards), and the unresolved
    ties that decide it at tables that have played every round (an official must decide)."""
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
        advancing.update(r.player_id for r in others[: stage.wildcards])
    return advancing, flags


# The snapshot's columns after stage and player, in the order of the tuples _rows builds.
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
Row = tuple[Any, ...]  # (player_id, *ROW_FIELDS), the scores as JSON text


def _rows(
    ranked: list[rules.Ranked],
    records: list[rules.PlayerRecord],
    seats: dict[int, SeatFacts],
    advancing: set[int],
) -> dict[int, Row]:
    by_player = {record.player_id: record for record in records}
    rows = {}
    for row in ranked:
        record = by_player[row.player_id]
        rows[row.player_id] = (
            row.player_id,
            row.rank,
            row.table,
            row.table_rank,
            row.total,
            record.carried,
            row.rounds_won,
            row.rounds_played,
            json.dumps({str(n): record.scores[n] for n in sorted(record.scores)}),
            row.tied,
            row.table_tied,
            row.player_id in advancing,
            _note(seats[row.player_id]),
        )
    return rows


def _write_rows(stage: Stage, rows: dict[int, Row]) -> int:
    """Make the stored snapshot equal rows, writing only the players whose line changed (after
    one result, most lines are as they were). Returns how many lines were written or removed."""
    quote = connection.ops.quote_name
    columns = ", ".join(quote(name) for name in ("player_id", *ROW_FIELDS))
    table = quote(StandingRow._meta.db_table)
    # The stored lines as the database gives them, the scores as JSON text, not decoded: Django
    # writes them with json.dumps and jsonb prints them the same way for these keys ("1" to "9"
    # sort before "10" in both), so equal lines compare equal. Were the text ever to differ, a
    # line would merely be written again.
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns} FROM {table} WHERE stage_id = %s", [stage.pk])
        stored = {row[0]: row for row in cursor.fetchall()}
    changed = [row for player_id, row in rows.items() if stored.get(player_id) != row]
    gone = [player_id for player_id in stored if player_id not in rows]
    stale = gone + [row[0] for row in changed if row[0] in stored]
    if stale:
        StandingRow.objects.filter(stage=stage, player_id__in=stale).delete()
    if changed:
        _insert_rows(stage, changed)
    return len(changed) + len(gone)


# From this many lines, PostgreSQL gets them by COPY; fewer (a typical correction) or SQLite (the
# embedded default, a few hundred players at most) by one INSERT.
COPY_FROM_ROWS = 100


def _insert_rows(stage: Stage, rows: list[Row]) -> None:
    if connection.vendor == "postgresql" and len(rows) >= COPY_FROM_ROWS:
        _copy_rows(stage, rows)
    else:
        lines = [dict(zip(ROW_FIELDS, row[1:], strict=True)) for row in rows]
        StandingRow.objects.bulk_create(
            StandingRow(
                stage=stage, player_id=row[0], **{**line, "scores": json.loads(line["scores"])}
            )
            for row, line in zip(rows, lines, strict=True)
        )


def _copy_rows(stage: Stage, rows: list[Row]) -> None:
    """PostgreSQL's COPY: a fraction of bulk_create's cost for thousands of rows."""
    quote = connection.ops.quote_name
    columns = ", ".join(quote(name) for name in ("stage_id", "player_id", *ROW_FIELDS))
    sql = f"COPY {quote(StandingRow._meta.db_table)} ({columns}) FROM STDIN"
    with connection.cursor() as cursor:
        # Logged like any query when queries are (DEBUG, the tests' query counts).
        logged = cursor.debug_sql(sql) if connection.queries_logged else nullcontext()
        with logged, cursor.cursor.copy(sql) as copy:
            for row in rows:
                copy.write_row((stage.pk, *row))


@transaction.atomic
def rebuild_standings(*, stage: Stage) -> StageStandings:
    """Recompute the stage's snapshot from confirmed results, in a fixed number of queries.

    Safe to run twice and in parallel: a concurrent rebuild raises RebuildBusy (try again), and
    a rebuild that finds the snapshot current does nothing. Killed midway, it leaves the
    previous snapshot intact (one transaction).
    """
    if not _try_lock(stage.pk):
        raise RebuildBusy(stage.pk)
    StageStandings.objects.bulk_create([StageStandings(stage=stage)], ignore_conflicts=True)
    meta = StageStandings.objects.get(stage=stage)
    seq = meta.change_seq
    if meta.built_seq >= seq and meta.computed_at is not None:
        return meta  # current already: a coalesced request
    stage = Stage.objects.select_related("tournament").get(pk=stage.pk)
    records, seats, counted, finished = _records(stage)
    decisions = [
        rules.Decision(order=tuple(d.order), method=d.method)
        for d in TiebreakDecision.objects.filter(stage=stage).order_by("at")
    ]
    ranked = rules.rank_players(
        records, tiebreaks=stage.tournament.tiebreak_rules, decisions=decisions
    )
    advancing, flags = _advancers(stage, ranked, seats, finished)
    _write_rows(stage, _rows(ranked, records, seats, advancing))
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


@transaction.atomic
def record_tiebreak(
    *, stage: Stage, table_id: int | None, order: list[int], method: str, note: str, by
) -> TiebreakDecision:
    """Record how an official broke a tie the rules cannot break; the standings honour it."""
    from django.core.exceptions import ValidationError

    from tournaments.services import StateConflict

    if stage.status == Stage.Status.CLOSED:
        raise StateConflict(
            _("%(stage)s is closed: its standings can no longer change.") % {"stage": stage.name}
        )
    errors: dict[str, list[str]] = {}
    if method not in TiebreakDecision.Method.values:
        errors["method"] = [_("Choose tiebreak_round or draw.")]
    if len(order) < 2 or len(set(order)) != len(order):
        errors["order"] = [_("List each tied player once, best first: at least two players.")]
    table = stage.tables.filter(pk=table_id).first() if table_id is not None else None
    if table_id is not None and table is None:
        errors["table"] = [_("%(stage)s has no such table.") % {"stage": stage.name}]
    if errors:
        raise ValidationError(errors)
    records, seats, _counted, _finished = _records(stage)
    ranked = {
        r.player_id: r
        for r in rules.rank_players(records, tiebreaks=stage.tournament.tiebreak_rules)
    }
    unknown = [p for p in order if p not in ranked or (table and seats[p].table_id != table.pk)]
    if unknown:
        message = (
            _("Players %(players)s are not seated at table %(table)s.")
            if table
            else _("Players %(players)s are not seated at %(stage)s.")
        )
        where = {"players": unknown, "table": table.number if table else None, "stage": stage.name}
        raise ValidationError({"order": [message % where]})
    if table is not None:
        places = {(ranked[p].table_rank, ranked[p].table_tied) for p in order}
    else:
        places = {(ranked[p].rank, ranked[p].tied) for p in order}
    if len(places) != 1 or not next(iter(places))[1]:
        raise ValidationError(
            {"order": [_("These players are not tied: the rules already separate them.")]}
        )
    decision = TiebreakDecision.objects.create(
        stage=stage, table=table, order=order, method=method, note=note[:500], by=by
    )
    request_rebuild(stage)
    return decision
