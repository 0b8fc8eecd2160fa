"""Benchmark scoring.standings.rebuild_standings against its floor: a plain SQL GROUP BY over the
same confirmed scores, fetched into Python.

Three qualifying stages at tables of 4, every round of every table confirmed: 500 players x 4
rounds, 2,000 x 13 and 10,000 x 13. Two cases, each prepared before every timed rebuild in a
transaction of its own (not timed), then a mark_changed, so that the rebuild does its whole work:
after one corrected score (the snapshot is recomputed in full and only the lines that changed
are written: what a confirmation or a correction causes), and from an empty snapshot (every line
written: the first build, or a reseat). The timed call includes its commit. As in the Celery
workers (config/celery.py), gc.freeze() follows start-up. Then the 2,000 x 13 rebuild is broken
down: its parts timed by wrapping the functions it calls by name, and profiled with
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
    vacuum_tables()
    return stages


def vacuum_tables() -> None:
    """Fresh statistics and no dead rows, so the plans and the pages scanned are the steady ones:
    --fresh deletes 158,000 scores, and every timed rebuild deletes the lines it rewrites. Run
    before each size and case too, as autovacuum would between them (this machine's PostgreSQL
    runs with autovacuum off, and dead lines would pile up from one case to the next)."""
    from django.db import connection

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


def toggle_score(score_id: int) -> None:
    """A correction: one score's pips p become MAX_PIPS - p (twice gives the data back)."""
    from django.db.models import F

    from scoring.models import Score

    Score.objects.filter(pk=score_id).update(pips=MAX_PIPS - F("pips"))


class Scenario:
    """What happens, untimed and in its own transaction, before each timed rebuild."""

    def __init__(self, stage: Any, name: str) -> None:
        from scoring.models import Score

        self.stage, self.name, self.toggled = stage, name, []
        self.rng = random.Random(f"{SEED}-{name}-{stage.pk}")
        self.candidates = list(
            Score.objects.filter(result__stage=stage, went_out=False)
            .exclude(pips=MAX_PIPS // 2)  # would not change
            .order_by("pk")
            .values_list("pk", flat=True)[:2_000]
        )

    def before_run(self) -> None:
        from django.db import transaction

        from scoring.models import StandingRow
        from scoring.standings import mark_changed

        with transaction.atomic():
            if self.name == "correction":
                score_id = self.rng.choice(self.candidates)
                toggle_score(score_id)
                self.toggled.append(score_id)
            else:  # "empty": every line of the snapshot is written
                StandingRow.objects.filter(stage=self.stage).delete()
            mark_changed(self.stage)

    def restore(self) -> None:
        """Put the bench data back as it was built, so later runs start from the same scores."""
        from django.db import transaction

        from scoring.standings import rebuild_standings

        with transaction.atomic():
            for score_id in self.toggled:
                toggle_score(score_id)
        self.toggled = []
        mark_stale(self.stage)
        rebuild_standings(stage=self.stage)


SCENARIOS = {
    "correction": "after one corrected score (what a confirmation or a correction causes)",
    "empty": "from an empty snapshot (every line written: the first build, or a reseat)",
}


def time_rebuild(stage: Any, runs: int, scenario: str) -> tuple[list[float], list[float]]:
    """Seconds per rebuild, and of them in the garbage collector."""
    from scoring.standings import rebuild_standings

    before = Scenario(stage, scenario)
    times, in_gc = [], []
    try:
        for run in range(runs + 1):  # the first run is a warm-up, not counted
            before.before_run()
            with GcClock() as clock:
                start = time.perf_counter()
                meta = rebuild_standings(stage=stage)
                elapsed = time.perf_counter() - start
            if meta.built_seq != meta.change_seq:
                raise RuntimeError(f"the rebuild of {stage} did not run (stage not stale?)")
            if run:
                times.append(elapsed)
                in_gc.append(clock.seconds)
    finally:
        before.restore()
    return times, in_gc


def time_floor(stage: Any, runs: int) -> tuple[list[float], int]:
    """The GROUP BY, fetched as the rebuild fetches its rows (binary, scoring.standings._fetch)."""
    import psycopg
    from django.db import connection

    connection.ensure_connection()
    times, rows = [], []
    for run in range(runs + 1):
        with psycopg.Cursor(connection.connection) as cursor:
            start = time.perf_counter()
            cursor.execute(FLOOR_SQL, [stage.pk], binary=True)
            rows = cursor.fetchall()
            elapsed = time.perf_counter() - start
        if run:
            times.append(elapsed)
    return times, len(rows)


# The parts of the real rebuild, timed by wrapping the functions it calls by name.
PARTS = (
    ("standings", "_seats", "seats query"),
    ("standings", "_records", "scores query and the players' records (incl. seats)"),
    ("rules", "rank_players", "rank_players"),
    ("standings", "_advancers", "_advancers"),
    ("standings", "_lines", "the snapshot's lines and their digests"),
    ("standings", "_write_rows", "write: read stored digests, write the changed lines"),
    ("standings", "_insert_rows", "write: of which the insert (COPY or INSERT)"),
)


# Parts timed inside other parts (not added again to find the rest).
NESTED_PARTS = {"seats query", "write: of which the insert (COPY or INSERT)"}


@contextmanager
def instrumented(clock: dict[str, float]) -> Iterator[None]:
    from django.db import connection

    from scoring import rules, standings

    modules = {"standings": standings, "rules": rules}

    def timed(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                clock[name] = clock.get(name, 0.0) + time.perf_counter() - start

        return wrapper

    with ExitStack() as stack:
        for module, function, name in PARTS:
            real = getattr(modules[module], function)
            stack.enter_context(mock.patch.object(modules[module], function, timed(name, real)))
        stack.enter_context(
            mock.patch.object(connection, "commit", timed("commit", connection.commit))
        )
        yield


def time_parts(stage: Any, runs: int, scenario: str) -> dict[str, list[float]]:
    """The parts of the real rebuild, over runs (after a warm-up), in seconds."""
    from scoring.standings import rebuild_standings

    names = [name for _module, _function, name in PARTS]
    parts: dict[str, list[float]] = {name: [] for name in [*names, "commit", "other", "total"]}
    parts["garbage collector (inside the parts)"] = []
    before = Scenario(stage, scenario)
    try:
        for run in range(runs + 1):
            before.before_run()
            clock: dict[str, float] = {}
            with instrumented(clock), GcClock() as collector:
                start = time.perf_counter()
                rebuild_standings(stage=stage)
                total = time.perf_counter() - start
            if not run:
                continue
            outer = [name for name in names if name not in NESTED_PARTS] + ["commit"]
            for name in parts:
                parts[name].append(clock.get(name, 0.0))
            parts["other"][-1] = total - sum(clock.get(name, 0.0) for name in outer)
            parts["total"][-1] = total
            parts["garbage collector (inside the parts)"][-1] = collector.seconds
    finally:
        before.restore()
    return parts


def profile_rebuild(stage: Any) -> str:
    """cProfile of one rebuild after a correction: the top functions, cumulative and own time."""
    from scoring.standings import rebuild_standings

    before = Scenario(stage, "correction")
    try:
        before.before_run()
        profiler = cProfile.Profile()
        profiler.enable()
        rebuild_standings(stage=stage)
        profiler.disable()
    finally:
        before.restore()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(25)
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(15)
    return text.getvalue()


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

    # The rebuild runs in a Celery worker, which freezes its start-up objects (config/celery.py).
    gc.freeze()
    print("gc.freeze() after start-up, as the Celery workers do")

    figures: dict[tuple[str, Size], tuple[float, float, float]] = {}
    floors = {}
    for size in SIZES:
        floor_times, floor_rows = time_floor(stages[size], args.runs)
        if floor_rows != size.players:
            raise RuntimeError(f"the floor query returned {floor_rows} rows for {size.label}")
        floors[size] = median_min(floor_times)
    for scenario, description in SCENARIOS.items():
        print(f"\nrebuild {description}")
        print(f"median (min) of {args.runs} runs, after one warm-up; ms")
        print(
            f"{'size':>11} | {'rebuild':>17} | {'of which GC':>11} | {'floor (GROUP BY)':>16} | "
            "ratio"
        )
        for size in SIZES:
            vacuum_tables()
            rebuild_times, gc_times = time_rebuild(stages[size], args.runs, scenario)
            rebuild_median, rebuild_min = median_min(rebuild_times)
            gc_median = statistics.median(gc_times) * 1000
            floor_median, floor_min = floors[size]
            ratio = rebuild_median / floor_median
            figures[scenario, size] = (rebuild_median, floor_median, ratio)
            print(
                f"{size.label:>11} | {rebuild_median:7.1f} ({rebuild_min:7.1f}) | "
                f"{gc_median:11.1f} | {floor_median:6.1f} ({floor_min:6.1f}) | {ratio:5.1f}x"
            )

    print(f"(load average now {os.getloadavg()[0]:.2f}: other work on the machine skews figures)")
    print("\ntargets")
    for (scenario, size), (rebuild_median, _floor, ratio) in figures.items():
        met = "met" if ratio <= TARGET_RATIO else f"MISSED ({ratio / TARGET_RATIO:.1f}x over)"
        print(
            f"  {scenario:>10}, {size.label:>11}: within {TARGET_RATIO:.0f}x of the floor: "
            f"{ratio:.1f}x, {met}"
        )
        if size == PROFILED:
            met = (
                "met"
                if rebuild_median < TARGET_MS_2000
                else f"MISSED ({rebuild_median / TARGET_MS_2000:.1f}x over)"
            )
            print(
                f"  {scenario:>10}, {size.label:>11}: under {TARGET_MS_2000:.0f} ms: "
                f"{rebuild_median:.1f} ms, {met}"
            )

    if args.no_profile:
        return
    stage = stages[PROFILED]
    for scenario, description in SCENARIOS.items():
        print(f"\n{PROFILED.label}, {description}: the rebuild's parts, median of {args.runs}; ms")
        vacuum_tables()
        for name, times in time_parts(stage, args.runs, scenario).items():
            print(f"  {name:<60} {median_min(times)[0]:7.1f}")
    print(f"\n{PROFILED.label}: cProfile of one rebuild after a correction (the profiler inflates")
    print("Python-heavy parts)")
    print(profile_rebuild(stage))


if __name__ == "__main__":
    main()
