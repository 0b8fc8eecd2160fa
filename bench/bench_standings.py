"""Benchmark scoring.standings.rebuild_standings against its floor: a plain SQL GROUP BY over the
same confirmed scores, fetched into Python.

Three qualifying stages at tables of 4, every round of every table confirmed: 500 players x 4
rounds, 2,000 x 13 and 10,000 x 13. Each timed rebuild follows a mark_changed (one UPDATE, in its
own transaction, not timed), so it does the full work; the timed call includes its commit.
Then the 2,000 x 13 rebuild is broken down: its parts timed by wrapping what the real function
calls (its helpers, the queries, the delete, the bulk insert, the commit), and profiled with
cProfile. DJANGO_DEBUG defaults to 0 here, as in production (with DEBUG on, Django records every
query). The machine's load average is printed: other work on it skews the figures.

PostgreSQL only (the figures mean nothing on SQLite), and only a database whose name contains
"bench": the script creates the database if it is missing, migrates it, and writes 12,500
players into it. Data is reused from an earlier run when it is complete (the same seed builds
the same data); --fresh deletes the bench tournaments and builds them again.

Run from the project root:
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/roundhouse_bench \
        .venv/bin/python bench/bench_standings.py [--runs 7] [--fresh] [--no-profile]
"""

import argparse
import cProfile
import functools
import gc
import inspect
import io
import os
import platform
import pstats
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
# Run as a script from bench/, so the project root is not on sys.path by default.
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Production runs with DEBUG off; with it on, Django records every query, which costs time.
os.environ.setdefault("DJANGO_DEBUG", "0")

import dj_database_url  # noqa: E402

SEED = 2024
TABLE_SIZE = 4
MAX_PIPS = 90
FLOOR_SQL = """
SELECT s.player_id, SUM(s.pips), COUNT(*) FILTER (WHERE s.went_out)
FROM scoring_score s JOIN scoring_roundresult r ON r.id = s.result_id
WHERE r.stage_id = %s AND r.status = 'confirmed'
GROUP BY s.player_id
"""
TARGET_RATIO = 3.0
TARGET_MS_2000 = 100.0


@dataclass(frozen=True)
class Size:
    players: int
    rounds: int

    @property
    def label(self) -> str:
        return f"{self.players:,} x {self.rounds}"

    @property
    def slug(self) -> str:
        return f"bench-standings-{self.players}x{self.rounds}"


SIZES = (Size(500, 4), Size(2_000, 13), Size(10_000, 13))
PROFILED = Size(2_000, 13)


# --------------------------------------------------------------------------------------------
# The database


def database_settings() -> dict[str, Any]:
    """The DATABASE_URL settings; exits unless it names a PostgreSQL bench database."""
    url = os.environ.get("DATABASE_URL", "")
    if not url:
        sys.exit(
            "bench_standings: DATABASE_URL is not set. "
            "This benchmark runs on PostgreSQL only, e.g.\n"
            "  DATABASE_URL=postgres://postgres@127.0.0.1:5432/roundhouse_bench "
            ".venv/bin/python bench/bench_standings.py"
        )
    db = dj_database_url.parse(url)
    if "postgresql" not in db["ENGINE"]:
        sys.exit(
            f"bench_standings: DATABASE_URL uses {db['ENGINE']}, not PostgreSQL. "
            "This benchmark runs on PostgreSQL only: its figures mean nothing elsewhere."
        )
    if "bench" not in db["NAME"]:
        sys.exit(
            f"bench_standings: refusing to write 12,500 benchmark players into {db['NAME']!r}: "
            "use a database whose name contains 'bench', e.g. roundhouse_bench."
        )
    return db


def create_database_if_missing(db: dict[str, Any]) -> None:
    import psycopg

    params = {
        "host": db.get("HOST") or None,
        "port": db.get("PORT") or None,
        "user": db.get("USER") or None,
        "password": db.get("PASSWORD") or None,
    }
    with psycopg.connect(dbname="postgres", autocommit=True, **params) as conn:
        if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [db["NAME"]]).fetchone():
            return
        print(f"creating database {db['NAME']}")
        if shutil.which("createdb"):
            command = ["createdb"]
            for flag, key in (("-h", "host"), ("-p", "port"), ("-U", "user")):
                if params[key]:
                    command += [flag, str(params[key])]
            env = {
                **os.environ,
                **({"PGPASSWORD": params["password"]} if params["password"] else {}),
            }
            subprocess.run([*command, db["NAME"]], check=True, env=env)
        else:
            conn.execute(f'CREATE DATABASE "{db["NAME"]}"')


# --------------------------------------------------------------------------------------------
# The data


def stage_is_complete(stage: Any, size: Size) -> bool:
    from scoring.models import RoundResult, Score
    from tables.models import Seat

    tables = size.players // TABLE_SIZE
    return (
        Seat.objects.filter(stage=stage).count() == size.players
        and RoundResult.objects.filter(stage=stage, status=RoundResult.Status.CONFIRMED).count()
        == tables * size.rounds
        and Score.objects.filter(result__stage=stage).count() == size.players * size.rounds
    )


def delete_tournament(tournament: Any) -> None:
    """Delete a bench tournament: scores and seats first, as they protect their players."""
    from django.db import transaction

    from scoring.models import RoundResult, Score, StandingRow
    from tables.models import Seat

    with transaction.atomic():
        Score.objects.filter(result__stage__tournament=tournament).delete()
        StandingRow.objects.filter(stage__tournament=tournament).delete()
        RoundResult.objects.filter(stage__tournament=tournament).delete()
        Seat.objects.filter(stage__tournament=tournament).delete()
        tournament.delete()


def build_stage(size: Size, official: Any) -> Any:
    """One tournament with one qualifying stage of the size, every round confirmed (seeded)."""
    from django.db import transaction

    from scoring.models import RoundResult, Score
    from tables.models import Seat, Table
    from tournaments.models import Player, Stage, Tournament

    rng = random.Random(f"{SEED}-{size.players}-{size.rounds}")
    batch = 5_000
    with transaction.atomic():
        tournament = Tournament.objects.create(
            name=f"Bench standings {size.label}", slug=size.slug, domino_set=12
        )
        stage = Stage.objects.create(
            tournament=tournament,
            order=1,
            name="Qualifying",
            kind=Stage.Kind.QUALIFYING,
            status=Stage.Status.SEATED,
            domino_set=12,
            rounds=size.rounds,
            starting_double=12,
            table_size_min=TABLE_SIZE,
            table_size_max=TABLE_SIZE,
        )
        players = Player.objects.bulk_create(
            [
                Player(
                    tournament=tournament,
                    number=n,
                    name=f"Player {n}",
                    status=Player.Status.CHECKED_IN,
                )
                for n in range(1, size.players + 1)
            ],
            batch_size=batch,
        )
        tables = Table.objects.bulk_create(
            [Table(stage=stage, number=n) for n in range(1, size.players // TABLE_SIZE + 1)],
            batch_size=batch,
        )
        order = list(players)
        rng.shuffle(order)
        at_table = {
            table.pk: order[k * TABLE_SIZE : (k + 1) * TABLE_SIZE] for k, table in enumerate(tables)
        }
        Seat.objects.bulk_create(
            [
                Seat(stage=stage, table=table, player=player, position=position)
                for table in tables
                for position, player in enumerate(at_table[table.pk], start=1)
            ],
            batch_size=batch,
        )
        results = RoundResult.objects.bulk_create(
            [
                RoundResult(
                    stage=stage,
                    table=table,
                    round_no=round_no,
                    engine=stage.engine(round_no),
                    status=RoundResult.Status.CONFIRMED,
                    submitted_by=official,
                    confirmed_by=official,
                )
                for table in tables
                for round_no in range(1, size.rounds + 1)
            ],
            batch_size=batch,
        )
        scores = []
        for result in results:
            winner = rng.randrange(TABLE_SIZE)
            for seat_index, player in enumerate(at_table[result.table_id]):
                went_out = seat_index == winner
                pips = 0 if went_out else rng.randint(0, MAX_PIPS)
                scores.append(Score(result=result, player=player, pips=pips, went_out=went_out))
        Score.objects.bulk_create(scores, batch_size=batch)
    return stage


def prepare_data(fresh: bool) -> dict[Size, Any]:
    from django.contrib.auth import get_user_model
    from django.db import connection

    from tournaments.models import Stage, Tournament

    official, _ = get_user_model().objects.get_or_create(username="bench-official")
    stages = {}
    for size in SIZES:
        tournament = Tournament.objects.filter(slug=size.slug).first()
        stage = Stage.objects.filter(tournament=tournament, order=1).first() if tournament else None
        if stage is not None and not fresh and stage_is_complete(stage, size):
            print(f"{size.label:>11}: reusing the data of an earlier run")
            stages[size] = stage
            continue
        if tournament is not None:
            delete_tournament(tournament)
        start = time.perf_counter()
        stages[size] = build_stage(size, official)
        print(f"{size.label:>11}: built in {time.perf_counter() - start:.1f} s")
    # Fresh statistics and no dead rows (--fresh deletes 158,000 scores), so the plans and the
    # pages scanned are the steady ones.
    with connection.cursor() as cursor:
        for table in (
            "scoring_score",
            "scoring_roundresult",
            "tables_seat",
            "tables_table",
            "tournaments_player",
            "scoring_standingrow",
            "scoring_stagestandings",
        ):
            cursor.execute(f"VACUUM ANALYZE {table}")
    return stages


# --------------------------------------------------------------------------------------------
# Timing


def median_min(times: list[float]) -> tuple[float, float]:
    return statistics.median(times) * 1000, min(times) * 1000


def mark_stale(stage: Any) -> None:
    from django.db import transaction

    from scoring.standings import mark_changed

    with transaction.atomic():
        mark_changed(stage)


class GcClock:
    """Time spent in the cyclic garbage collector while it is on (gc.callbacks)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.collections = 0
        self._started = 0.0
        self._on = False

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if not self._on:
            return
        if phase == "start":
            self._started = time.perf_counter()
        else:
            self.seconds += time.perf_counter() - self._started
            self.collections += 1

    def __enter__(self) -> "GcClock":
        self.seconds, self.collections, self._on = 0.0, 0, True
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        self._on = False
        gc.callbacks.remove(self._callback)


def time_rebuild(stage: Any, runs: int) -> tuple[list[float], list[float]]:
    """Seconds per rebuild, and of them in the garbage collector."""
    from scoring.standings import rebuild_standings

    times, in_gc = [], []
    for run in range(runs + 1):  # the first run is a warm-up, not counted
        mark_stale(stage)
        with GcClock() as clock:
            start = time.perf_counter()
            meta = rebuild_standings(stage=stage)
            elapsed = time.perf_counter() - start
        if meta.built_seq != meta.change_seq:
            raise RuntimeError(f"the rebuild of {stage} did not run (stage not stale?)")
        if run:
            times.append(elapsed)
            in_gc.append(clock.seconds)
    return times, in_gc


def time_floor(stage: Any, runs: int) -> tuple[list[float], int]:
    from django.db import connection

    times, rows = [], []
    for run in range(runs + 1):
        with connection.cursor() as cursor:
            start = time.perf_counter()
            cursor.execute(FLOOR_SQL, [stage.pk])
            rows = cursor.fetchall()
            elapsed = time.perf_counter() - start
        if run:
            times.append(elapsed)
    return times, len(rows)


STEP_NAMES = (
    "seats query: SQL (server + driver)",
    "seats query: Seat, Table, Player instances",
    "scores query: SQL (server + driver, chunked fetches)",
    "Python rows in _records (ORM tuples, records, rounds)",
    "rank_players",
    "_advancers",
    "bulk delete",
    "bulk insert: StandingRow objects",
    "bulk insert: bulk_create's field values, JSON",
    "bulk insert: the INSERT (array adaptation + server)",
    "commit (deferred FK checks, WAL flush)",
    "other (lock, meta, stage, decisions, meta save)",
    "total (instrumented)",
    "garbage collector, spread over the parts above",
)


@contextmanager
def instrumented(clock: dict[str, float]) -> Iterator[None]:
    """Time the parts of the real rebuild_standings by wrapping what it calls, so the breakdown
    follows the function as it changes. Parts it no longer calls stay at 0."""
    from django.db import connection
    from django.db.models.query import QuerySet
    from django.db.models.sql.compiler import SQLCompiler

    from scoring import rules, standings
    from scoring.models import Score, StandingRow
    from tables.models import Seat

    def add(name: str, seconds: float) -> None:
        clock[name] = clock.get(name, 0.0) + seconds

    def timed(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                add(name, time.perf_counter() - start)

        return wrapper

    sql_of = {Seat: STEP_NAMES[0], Score: STEP_NAMES[2]}
    execute_sql, fetch_all = SQLCompiler.execute_sql, QuerySet._fetch_all
    delete, bulk_create = QuerySet.delete, QuerySet.bulk_create

    def chunks(name: str, result: Iterator[Any]) -> Iterator[Any]:
        while True:
            start = time.perf_counter()
            chunk = next(result, None)
            add(name, time.perf_counter() - start)
            if chunk is None:
                return
            yield chunk

    def timed_execute_sql(self: Any, *args: Any, **kwargs: Any) -> Any:
        name = sql_of.get(self.query.model)
        if name is None:
            return execute_sql(self, *args, **kwargs)
        start = time.perf_counter()
        result = execute_sql(self, *args, **kwargs)
        add(name, time.perf_counter() - start)
        return chunks(name, result) if inspect.isgenerator(result) else result

    def timed_fetch_all(self: Any) -> None:
        if self.model is not Seat or self._result_cache is not None:
            return fetch_all(self)
        start = time.perf_counter()
        fetch_all(self)
        add("seats query, all", time.perf_counter() - start)

    def timed_delete(self: Any) -> Any:
        if self.model is not StandingRow:
            return delete(self)
        return timed(STEP_NAMES[6], delete)(self)

    def timed_bulk_create(self: Any, objs: Any, *args: Any, **kwargs: Any) -> Any:
        if self.model is not StandingRow:
            return bulk_create(self, objs, *args, **kwargs)
        objs = timed(STEP_NAMES[7], list)(objs)  # the rebuild passes a generator
        return timed("bulk_create, all", bulk_create)(self, objs, *args, **kwargs)

    def timed_insert(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        if not sql.startswith('INSERT INTO "scoring_standingrow"'):
            return execute(sql, params, many, context)
        return timed(STEP_NAMES[9], execute)(sql, params, many, context)

    with ExitStack() as stack:
        patch = stack.enter_context
        patch(mock.patch.object(SQLCompiler, "execute_sql", timed_execute_sql))
        patch(mock.patch.object(QuerySet, "_fetch_all", timed_fetch_all))
        patch(mock.patch.object(QuerySet, "delete", timed_delete))
        patch(mock.patch.object(QuerySet, "bulk_create", timed_bulk_create))
        patch(mock.patch.object(connection, "commit", timed(STEP_NAMES[10], connection.commit)))
        for module, name, step in (
            (standings, "_records", "_records, all"),
            (rules, "rank_players", STEP_NAMES[4]),
            (standings, "_advancers", STEP_NAMES[5]),
        ):
            if hasattr(module, name):
                patch(mock.patch.object(module, name, timed(step, getattr(module, name))))
        patch(connection.execute_wrapper(timed_insert))
        yield


def time_steps(stage: Any, runs: int) -> dict[str, list[float]]:
    """The parts of the real rebuild, median over runs (after a warm-up), in seconds."""
    from scoring.standings import rebuild_standings

    steps: dict[str, list[float]] = {name: [] for name in STEP_NAMES}
    for run in range(runs + 1):
        mark_stale(stage)
        clock: dict[str, float] = {}
        with instrumented(clock), GcClock() as collector:
            start = time.perf_counter()
            rebuild_standings(stage=stage)
            total = time.perf_counter() - start
        if not run:
            continue  # the warm-up
        parts = dict.fromkeys(STEP_NAMES, 0.0)
        parts.update((name, seconds) for name, seconds in clock.items() if name in parts)
        parts[STEP_NAMES[1]] = clock.get("seats query, all", 0.0) - parts[STEP_NAMES[0]]
        parts[STEP_NAMES[3]] = (
            clock.get("_records, all", 0.0)
            - clock.get("seats query, all", 0.0)
            - parts[STEP_NAMES[2]]
        )
        parts[STEP_NAMES[8]] = clock.get("bulk_create, all", 0.0) - parts[STEP_NAMES[9]]
        parts[STEP_NAMES[11]] = total - sum(parts[name] for name in STEP_NAMES[:11])
        parts[STEP_NAMES[12]] = total
        parts[STEP_NAMES[13]] = collector.seconds
        for name, seconds in parts.items():
            steps[name].append(seconds)
    return steps


# --------------------------------------------------------------------------------------------
# Profile


def profile_rebuild(stage: Any) -> tuple[dict[str, float], str]:
    """cProfile one rebuild; returns the time per part (ms, under the profiler) and the top lines.

    Parts are cumulative times of the functions rebuild_standings calls, so the garbage
    collector's pauses count in whichever part was allocating when they struck."""
    from scoring.standings import rebuild_standings

    mark_stale(stage)
    profiler = cProfile.Profile()
    profiler.enable()
    rebuild_standings(stage=stage)
    profiler.disable()
    raw: dict[tuple[str, int, str], Any] = pstats.Stats(profiler).stats  # type: ignore[attr-defined]

    def funcs(filename_end: str, name: str) -> list[tuple[str, int, str]]:
        found = [k for k in raw if k[0].endswith(filename_end) and k[2] == name]
        if not found:
            raise LookupError(f"{name} in {filename_end} is not in the profile")
        return found

    def cumulative(filename_end: str, name: str) -> float:
        return sum(raw[k][3] for k in funcs(filename_end, name)) * 1000

    def called_from(callee: tuple[str, str], caller: tuple[str, str]) -> float:
        """Cumulative time of callee in its calls from caller (any function of those names)."""
        return 1000 * sum(
            raw[k][4].get(c, (0, 0, 0, 0))[3] for k in funcs(*callee) for c in funcs(*caller)
        )

    standings, query = "scoring/standings.py", "django/db/models/query.py"
    total = max(v[3] for v in raw.values()) * 1000  # the outermost call: rebuild + its commit
    records = cumulative(standings, "_records")
    # A comprehension's first iterable is evaluated by the enclosing function: _records iterates
    # the seats queryset (__iter__ runs the query and builds every instance), and next() on the
    # scores iterator (_iterator) fetches the rows chunk by chunk.
    seats = called_from((query, "__iter__"), (standings, "_records"))
    scores = called_from((query, "_iterator"), (standings, "_records"))
    insert = cumulative(query, "bulk_create")
    objects = called_from((standings, "<genexpr>"), (query, "bulk_create"))
    parts = {
        "seats query (Seat, Table, Player instances)": seats,
        "scores query, rows fetched (iterator)": scores,
        "Python rows: records, tables' rounds": records - seats - scores,
        "rank_players": cumulative("scoring/rules.py", "rank_players"),
        "_advancers": cumulative(standings, "_advancers"),
        "bulk delete": called_from((query, "delete"), (standings, "rebuild_standings")),
        "bulk insert: StandingRow objects": objects,
        "bulk insert: bulk_create (values, JSON, INSERT)": insert - objects,
        "commit (deferred FK checks, WAL flush)": cumulative(
            "django/db/backends/base/base.py", "commit"
        ),
    }
    parts["other (lock, meta, stage, decisions, meta save)"] = total - sum(parts.values())
    parts["total (under the profiler)"] = total
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(30)
    by_own = io.StringIO()
    pstats.Stats(profiler, stream=by_own).sort_stats("tottime").print_stats(20)
    return parts, text.getvalue() + by_own.getvalue()


# --------------------------------------------------------------------------------------------


def machine() -> str:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        server = cursor.fetchone()[0]
    import django

    return (
        f"load average {os.getloadavg()[0]:.2f}; "
        f"python {platform.python_version()} on {platform.machine()}, {os.cpu_count()} cores "
        f"({platform.processor() or platform.platform()}); PostgreSQL {server} on "
        f"{connection.settings_dict['HOST'] or 'a local socket'}; Django {django.get_version()}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="timed runs per size (default 7)")
    parser.add_argument("--fresh", action="store_true", help="delete and rebuild the bench data")
    parser.add_argument(
        "--no-profile", action="store_true", help="skip the step timing and profile"
    )
    args = parser.parse_args(argv)

    db = database_settings()
    create_database_if_missing(db)
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    if connection.vendor != "postgresql":  # settings could ignore DATABASE_URL
        sys.exit(f"bench_standings: the database is {connection.vendor}, not PostgreSQL.")
    call_command("migrate", verbosity=0)
    print(machine())
    stages = prepare_data(args.fresh)

    print(f"\nmedian (min) of {args.runs} runs, after one warm-up; ms")
    print(
        f"{'size':>11} | {'rebuild':>17} | {'of which GC':>11} | {'floor (GROUP BY)':>16} | ratio"
    )
    figures = {}
    for size in SIZES:
        rebuild_times, gc_times = time_rebuild(stages[size], args.runs)
        rebuild_median, rebuild_min = median_min(rebuild_times)
        gc_median = statistics.median(gc_times) * 1000
        floor_times, floor_rows = time_floor(stages[size], args.runs)
        floor_median, floor_min = median_min(floor_times)
        if floor_rows != size.players:
            raise RuntimeError(f"the floor query returned {floor_rows} rows for {size.label}")
        ratio = rebuild_median / floor_median
        figures[size] = (rebuild_median, floor_median, ratio)
        print(
            f"{size.label:>11} | {rebuild_median:7.1f} ({rebuild_min:7.1f}) | {gc_median:11.1f} | "
            f"{floor_median:6.1f} ({floor_min:6.1f}) | {ratio:5.1f}x"
        )

    print(f"(load average now {os.getloadavg()[0]:.2f}: other work on the machine skews figures)")
    print("\ntargets")
    for size, (_rebuild, _floor, ratio) in figures.items():
        met = "met" if ratio <= TARGET_RATIO else f"MISSED ({ratio / TARGET_RATIO:.1f}x over)"
        print(f"  {size.label:>11}: within {TARGET_RATIO:.0f}x of the floor: {ratio:.1f}x, {met}")
    rebuild_median = figures[PROFILED][0]
    met = (
        "met"
        if rebuild_median < TARGET_MS_2000
        else f"MISSED ({rebuild_median / TARGET_MS_2000:.1f}x over)"
    )
    print(f"  {PROFILED.label}: under {TARGET_MS_2000:.0f} ms: {rebuild_median:.1f} ms, {met}")

    if args.no_profile:
        return
    stage = stages[PROFILED]
    print(f"\n{PROFILED.label}: the rebuild's parts (instrumented), median of {args.runs}; ms")
    steps = time_steps(stage, args.runs)
    for name, times in steps.items():
        print(f"  {name:<56} {median_min(times)[0]:7.1f}")
    print(f"\n{PROFILED.label}: cProfile of one rebuild (the profiler inflates Python-heavy parts)")
    parts, top = profile_rebuild(stage)
    total = parts["total (under the profiler)"]
    for name, ms in parts.items():
        print(f"  {name:<56} {ms:7.1f} ms  {ms / total:4.0%}")
    print()
    print(top)


if __name__ == "__main__":
    main()
