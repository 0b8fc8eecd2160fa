"""Storing the snapshot's rows: each player's line, written only where it changed."""

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from django.db import connection

from scoring import rules
from scoring.models import StandingRow
from scoring.standings.records import SeatFacts, fetch, logged
from scoring.standings.text import note
from tournaments.models import Stage

ROW_FIELDS = (
    "rank",
    "table_number",
    "table_rank",
    "total",
    "carried",
    "rounds_won",
    "rounds_played",
    "rounds_counted",
    "scores",
    "tied",
    "table_tied",
    "advances",
    "note",
    "tiebreaks",
)
# (player_id, *ROW_FIELDS), the scores as {round_no: pips}, the tie-breaks as rules.Separation
Line = tuple[Any, ...]


def line_digest(line: Line, seat: SeatFacts) -> int:
    """A line's values hashed, stored with it: a rebuild compares digests instead of reading every
    line back, and a player's page names its version by it (scoring.views.player). It must be
    the same in every process (each Celery worker is one). Python's hash of ints, tuples and
    frozensets of them is; a string's is salted per process, and None's was its address before
    3.12: a missing table goes in as -1, the note as the seat facts it is written from, and the
    tie-breaks (their rules and sides are words) as a digest of their text. (Hashed as they were,
    two workers taking turns rewrote every tied player's line, and each such page became a new
    version for the phones, unchanged.) A Python release that hashed tuples differently would
    only make one rebuild rewrite every line."""
    _, rank, table, table_rank, *counts, scores, tied, table_tied, advances, _, tiebreaks = line
    flags = (tied, table_tied, advances, seat.withdrawn, seat.from_round, _stable(tiebreaks))
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


def _stable(tiebreaks: Sequence[Any]) -> int:
    """The tie-breaks in an int that every process computes alike (most lines have none)."""
    if not tiebreaks:
        return 0
    digest = hashlib.blake2b(repr(tuple(tiebreaks)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def snapshot_lines(
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
            len(record.scores) - record.missed,  # every confirmed round played
            row.rounds_played,  # of them, what the ranking counts (ranked through)
            record.scores,
            row.tied,
            row.table_tied,
            row.player_id in advancing,
            note(seat),
            row.separations,
        )
        lines[row.player_id] = (line_digest(line, seat), line)
    return lines


def write_rows(stage: Stage, lines: dict[int, tuple[int, Line]]) -> int:
    """Make the stored snapshot equal lines, writing only the players whose line changed (after
    one result, most lines are as they were). Returns how many lines were written or removed."""
    stored = dict(
        fetch(StandingRow.objects.filter(stage=stage).order_by().values_list("player_id", "digest"))
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
    fields["tiebreaks"] = _stored_tiebreaks(fields["tiebreaks"])
    return fields


def _stored_tiebreaks(separations: tuple[rules.Separation, ...]) -> list[dict[str, Any]]:
    return [separation.as_dict() for separation in separations]


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
    with connection.cursor() as cursor, logged(cursor, sql), cursor.cursor.copy(sql) as copy:
        for digest, line in lines:
            scores = json.dumps(_stored_scores(line[SCORES_AT]))
            tiebreaks = json.dumps(_stored_tiebreaks(line[-1]))
            copy.write_row(
                (stage.pk, digest, *line[:SCORES_AT], scores, *line[SCORES_AT + 1 : -1], tiebreaks)
            )
