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
import gc
import os
import platform
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script from bench/, so the project root is not on sys.path by default.
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Production runs with DEBUG off; with it on, Django records every query, which costs time.
os.environ.setdefault("DJANGO_DEBUG", "0")

from standings_data import (  # noqa: E402
    PROFILED,
    SIZES,
    Size,
    create_database_if_missing,
    database_settings,
    prepare_data,
    vacuum_tables,
)
from standings_timing import (  # noqa: E402
    SCENARIOS,
    median_min,
    profile_rebuild,
    time_floor,
    time_parts,
    time_rebuild,
)

TARGET_RATIO = 3.0
TARGET_MS_2000 = 100.0


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
