"""An experiment, not part of Roundhouse: how fast can a standings rebuild be at all here?

A stripped rebuild, the fastest design this session could build, timed against the real
rebuild and the floor in one run on the bench data of bench_standings.py. It does LESS than the
real rebuild (no tie-break decisions, no late entries, countback only when every player has
played the same rounds, advancement without ties or wildcards, no flags, no names), so its
time is a lower bound for any rebuild of this shape, not a replacement:

- 4 statements and the commit: (1) the lock, the header, the stage's settings and its table
  count in one row; (2) the seats and (3) the confirmed scores, each packed by PostgreSQL into
  one bytea (string_agg of int4send...) and read by NumPy without a Python object per row;
  (4) the stored digests, also packed; then one statement (a data-modifying CTE) updates the
  changed lines and the header.
- NumPy: a players x rounds matrix, totals and rounds won by bincount, the ranking and the
  table ranking by lexsort (total, rounds won, countback from the last round), ranks and ties
  from the sorted keys, a digest per line by FNV over its columns.

Two more columns time no rebuild at all, only database work that any rebuild of this storage
does before it computes anything: "I/O only" is the lean rebuild's statements with nothing
computed (the lines it wrote, prepared before the clock starts), and "bare" is less again: the
scores read, the same number of lines written (three columns each), the asynchronous commit.

Needs NumPy, which is no dependency of the project:
    python3 -m pip install --target /tmp/np numpy   # NUMPY_PATH names another place
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/roundhouse_bench \
        .venv/bin/python bench/experiments/lean_rebuild.py [--runs 15]
(after bench/bench_standings.py has built the data).
"""

import argparse
import functools
import gc
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.append(os.environ.get("NUMPY_PATH", "/tmp/np"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "0")

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402
import psycopg  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.db.models import F  # noqa: E402

from scoring.models import Score  # noqa: E402
from scoring.standings import mark_changed, rebuild_standings  # noqa: E402
from tournaments.models import Stage  # noqa: E402

HEADER = """SELECT pg_try_advisory_xact_lock(7312001, st.id::int4),
 set_config('synchronous_commit', 'off', true),
 ss.change_seq, st.rounds, st.advance_per_table,
 (SELECT count(*) FROM tables_table WHERE stage_id = st.id)
FROM tournaments_stage st JOIN scoring_stagestandings ss ON ss.stage_id = st.id
WHERE st.id = %s"""
SEATS = """SELECT string_agg(int4send(se.player_id::int4) || int4send(tb.number::int4)
 || int2send(se.from_round::int2) || boolsend(p.status = 'withdrawn'), ''::bytea)
FROM tables_seat se JOIN tables_table tb ON tb.id = se.table_id
JOIN tournaments_player p ON p.id = se.player_id
WHERE se.stage_id = %s AND tb.stage_id = %s AND p.tournament_id = %s"""
SEAT = np.dtype([("player", ">i4"), ("table", ">i4"), ("from", ">i2"), ("withdrawn", "?")])
SCORES = """SELECT string_agg(int4send(s.player_id::int4) || int2send(r.round_no::int2)
 || int2send(s.pips::int2) || boolsend(s.went_out), ''::bytea)
FROM scoring_score s JOIN scoring_roundresult r ON r.id = s.result_id
WHERE r.stage_id = %s AND r.status = 'confirmed'"""
SCORE = np.dtype([("player", ">i4"), ("round", ">i2"), ("pips", ">i2"), ("out", "?")])
DIGESTS = """SELECT string_agg(int4send(player_id::int4) || int8send(digest), ''::bytea)
FROM scoring_standingrow WHERE stage_id = %s"""
DIGEST = np.dtype([("player", ">i4"), ("digest", ">i8")])
WRITE = """WITH v AS (SELECT * FROM json_populate_recordset(NULL::scoring_standingrow, %s)),
u AS (UPDATE scoring_standingrow r SET digest = v.digest, rank = v.rank,
 table_number = v.table_number, table_rank = v.table_rank, total = v.total,
 rounds_won = v.rounds_won, rounds_played = v.rounds_played, scores = v.scores, tied = v.tied,
 table_tied = v.table_tied, advances = v.advances
 FROM v WHERE r.stage_id = %s AND r.player_id = v.player_id RETURNING 1)
UPDATE scoring_stagestandings SET built_seq = %s, computed_at = now(), results_counted = %s,
 results_expected = %s, rebuilds = rebuilds + 1
WHERE stage_id = %s RETURNING (SELECT count(*) FROM u)"""
FLOOR = """SELECT s.player_id, SUM(s.pips), COUNT(*) FILTER (WHERE s.went_out)
FROM scoring_score s JOIN scoring_roundresult r ON r.id = s.result_id
WHERE r.stage_id = %s AND r.status = 'confirmed' GROUP BY s.player_id"""
FNV_OFFSET, FNV_PRIME = np.uint64(1469598103934665603), np.uint64(1099511628211)


def packed(cursor, sql, params, dtype):
    cursor.execute(sql, params, binary=True)
    value = cursor.fetchone()[0]
    return np.frombuffer(value, dtype=dtype) if value else np.zeros(0, dtype)


def ranks(keys, P):
    """Standard competition ranks and ties of lexsorted keys (the last key sorts first)."""
    order = np.lexsort(keys)
    ordered = np.stack([key[order] for key in keys[::-1]])
    new = np.ones(P, bool)
    new[1:] = (ordered[:, 1:] != ordered[:, :-1]).any(axis=0)
    starts = np.flatnonzero(new)
    group = np.cumsum(new) - 1
    size = np.diff(np.append(starts, P))[group]
    return order, starts[group], size > 1, ordered


def lean_rebuild(stage):
    with transaction.atomic(), psycopg.Cursor(connection.connection) as c:
        c.execute(HEADER, [stage.pk], binary=True)
        locked, _, change_seq, rounds, per_table, tables_count = c.fetchone()
        assert locked
        seats = packed(c, SEATS, [stage.pk, stage.pk, stage.tournament_id], SEAT)
        scores = packed(c, SCORES, [stage.pk], SCORE)
        stored = packed(c, DIGESTS, [stage.pk], DIGEST)

        seats = seats[np.argsort(seats["player"], kind="stable")]
        players = seats["player"].astype(np.int64)
        P = len(players)
        row = np.searchsorted(players, scores["player"])
        col = scores["round"].astype(np.int64) - 1
        R = int(col.max()) + 1 if len(col) else 0
        pips = np.zeros((P, R), np.int64)
        pips[row, col] = scores["pips"]
        played = np.zeros((P, R), bool)
        played[row, col] = True
        won = np.bincount(row, weights=scores["out"], minlength=P).astype(np.int64)
        total = pips.sum(axis=1)
        n_played = played.sum(axis=1)
        if not (played == played[:1]).all():
            raise NotImplementedError("players who played different rounds")
        keys = [pips[:, r] for r in range(R)] + [-won, total]  # countback, rounds won, total
        order, rank_sorted, tied_sorted, _ = ranks(keys, P)
        rank = np.empty(P, np.int64)
        rank[order] = rank_sorted + 1
        tied = np.empty(P, bool)
        tied[order] = tied_sorted
        tables = seats["table"].astype(np.int64)
        order, place, tied_sorted, ordered = ranks([*keys, tables], P)
        new_table = np.ones(P, bool)
        new_table[1:] = ordered[0, 1:] != ordered[0, :-1]
        table_start = np.maximum.accumulate(np.where(new_table, np.arange(P), 0))
        table_rank = np.empty(P, np.int64)
        table_rank[order] = place - table_start + 1
        table_tied = np.empty(P, bool)
        table_tied[order] = tied_sorted
        advances = table_rank <= per_table
        digest = np.full(P, FNV_OFFSET, np.uint64)
        columns = [rank, tables, table_rank, total, won, n_played, tied, table_tied, advances]
        with np.errstate(over="ignore"):
            for column in [*columns, seats["withdrawn"], seats["from"], *pips.T, *played.T]:
                digest = (digest ^ column.astype(np.uint64)) * FNV_PRIME
        digest = digest.view(np.int64)
        by_player = np.argsort(stored["player"])
        stored_players, stored_digests = stored["player"][by_player], stored["digest"][by_player]
        at = np.minimum(np.searchsorted(stored_players, players), max(len(stored_players) - 1, 0))
        same = (stored_players[at] == players) & (stored_digests[at] == digest)
        changed = np.flatnonzero(~same).tolist()
        document = [
            {
                "player_id": int(players[i]),
                "digest": int(digest[i]),
                "rank": int(rank[i]),
                "table_number": int(tables[i]),
                "table_rank": int(table_rank[i]),
                "total": int(total[i]),
                "rounds_won": int(won[i]),
                "rounds_played": int(n_played[i]),
                "scores": {str(r + 1): int(pips[i, r]) for r in range(R) if played[i, r]},
                "tied": bool(tied[i]),
                "table_tied": bool(table_tied[i]),
                "advances": bool(advances[i]),
            }
            for i in changed
        ]
        counted = len(np.unique(tables[row] * 64 + col))
        c.execute(
            WRITE,
            [json.dumps(document), stage.pk, change_seq, counted, tables_count * rounds, stage.pk],
        )
        c.fetchone()
    return len(changed)


def io_only(stage, document):
    """The lean rebuild's database work and nothing else: the same header and lock, the same
    packed reads of the seats, scores and digests, and the same write of as many lines as it
    wrote (their stored values, prepared before the clock starts), then the commit. No ranking,
    no digests, no JSON encoding: what any rebuild that writes pays here before it computes."""
    with transaction.atomic(), psycopg.Cursor(connection.connection) as c:
        c.execute(HEADER, [stage.pk], binary=True)
        locked, _, change_seq, rounds, _, tables_count = c.fetchone()
        assert locked
        packed(c, SEATS, [stage.pk, stage.pk, stage.tournament_id], SEAT)
        packed(c, SCORES, [stage.pk], SCORE)
        packed(c, DIGESTS, [stage.pk], DIGEST)
        c.execute(WRITE, [document, stage.pk, change_seq, 0, tables_count * rounds, stage.pk])
        c.fetchone()
    return 0


def bare_io(stage, document):
    """Less than io_only: the scores read and the lines written (only their rank, scores and
    digest), with the asynchronous commit. No lock, no header, no seats, no digests read."""
    with transaction.atomic(), psycopg.Cursor(connection.connection) as c:
        c.execute("SELECT set_config('synchronous_commit', 'off', true)")
        packed(c, SCORES, [stage.pk], SCORE)
        c.execute(
            "UPDATE scoring_standingrow r SET rank = v.rank, scores = v.scores, digest = v.digest"
            " FROM json_populate_recordset(NULL::scoring_standingrow, %s) v"
            " WHERE r.stage_id = %s AND r.player_id = v.player_id",
            [document, stage.pk],
        )
    return 0


def stored_document(stage, lines):
    """JSON of the first `lines` stored lines of the stage, as the lean rebuild sends them."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT json_agg(r) FROM (SELECT * FROM scoring_standingrow WHERE stage_id = %s"
            " ORDER BY player_id LIMIT %s) r",
            [stage.pk, lines],
        )
        return json.dumps(cursor.fetchone()[0])


def vacuum():
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE scoring_standingrow")
        cursor.execute("VACUUM ANALYZE scoring_stagestandings")


def timed(stage, runs, rebuild):
    """Median ms of rebuilds after one corrected score each, as bench_standings.py's correction
    case (a random score of the stage, p pips becoming 90 - p); the scores are put back after."""
    candidates = list(
        Score.objects.filter(result__stage=stage, went_out=False)
        .exclude(pips=45)
        .order_by("pk")
        .values_list("pk", flat=True)[:2_000]
    )
    rng = random.Random(f"lean-{stage.pk}")
    toggled, times, written = [], [], []
    for run in range(runs + 2):  # two warm-ups
        score_id = rng.choice(candidates)
        with transaction.atomic():
            Score.objects.filter(pk=score_id).update(pips=90 - F("pips"))
            mark_changed(stage)
        toggled.append(score_id)
        start = time.perf_counter()
        result = rebuild(stage)
        if run >= 2:
            times.append((time.perf_counter() - start) * 1000)
            written.append(result if isinstance(result, int) else 0)
    with transaction.atomic():
        for score_id in toggled:
            Score.objects.filter(pk=score_id).update(pips=90 - F("pips"))
        mark_changed(stage)
    return statistics.median(times), statistics.median(written)


def floor(stage, runs):
    times = []
    for _ in range(runs + 1):
        start = time.perf_counter()
        with psycopg.Cursor(connection.connection) as c:
            c.execute(FLOOR, [stage.pk], binary=True)
            c.fetchall()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times[1:])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    if connection.vendor != "postgresql" or "bench" not in connection.settings_dict["NAME"]:
        sys.exit("lean_rebuild: DATABASE_URL must name bench_standings.py's PostgreSQL database")
    gc.freeze()
    print(f"load average {os.getloadavg()[0]:.2f}; median of {args.runs}, ms")
    print(
        f"{'size':>11} | {'rebuild':>8} | {'lean':>7} | {'I/O only':>8} | {'bare':>5}"
        f" | {'floor':>6} | lean / floor | I/O only / floor | bare / floor"
    )
    sizes = (("500x4", "500 x 4"), ("2000x13", "2,000 x 13"), ("10000x13", "10,000 x 13"))
    for slug, label in sizes:
        stage = Stage.objects.get(tournament__slug=f"bench-standings-{slug}", order=1)
        vacuum()
        real, _ = timed(stage, args.runs, lambda s: rebuild_standings(stage=s))
        vacuum()
        lean, lines = timed(stage, args.runs, lean_rebuild)
        vacuum()
        rebuild_standings(stage=stage)  # the real snapshot back
        document = stored_document(stage, int(lines))
        vacuum()
        io, _ = timed(stage, args.runs, functools.partial(io_only, document=document))
        bare, _ = timed(stage, args.runs, functools.partial(bare_io, document=document))
        low = floor(stage, args.runs)
        vacuum()
        rebuild_standings(stage=stage)  # the real snapshot back
        print(
            f"{label:>11} | {real:8.1f} | {lean:7.1f} | {io:8.1f} | {bare:5.1f} | {low:6.1f}"
            f" | {lean / low:11.1f}x | {io / low:15.1f}x | {bare / low:11.1f}x"
            f" | {lines:.0f} lines written"
        )
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
