"""Benchmark the club ratings through the database (issue #26): clubs.rating_store.rate_club, what
the Celery task runs, on bench_rating.py's synthetic ten-year history (500 members, 500 events,
150,000 table-rounds) stored as real rows (bench/rating_db_data.py).

It measures, with the machine's load average before and after each case and the process's peak
RSS during it (VmHWM, reset before each case through /proc/self/clear_refs):
  a. rate_club from nothing (no RatingPoint), split into its parts (the rating_store functions
     it calls, timed by wrapping them by name, and the commit);
  b. one new event appended (a 501st tournament of 300 table-rounds, written untimed) and
     rate_club(tournament_id=new): the first run, then the median of --runs;
  c. a correction in the middle: one score of an event in year 5 changed (the table's second
     drops to last), then rate_club(tournament_id=that event);
  d. after b and after c, the stored points equal a full recompute of the club's history as it
     is then, float for float (the bench fails loudly if not).
Before measuring it checks that load_history() returns the generator's history, table-round for
table-round, then frees the generator's objects and freezes the garbage collector (gc.freeze()),
as the Celery workers do after start-up (config/celery.py). A case over its target (a: 60 s,
b: 1 s) is run again under cProfile and its top functions printed (--profile: always).
Then it writes its figures into docs/PERFORMANCE.md, the "Through the database" part of the
"Ratings (issue #26)" section (--no-docs to leave the file alone).

PostgreSQL only, in a database of its own: it creates the database if missing and migrates it,
and refuses a database that holds clubs or tournaments, unless --reuse, which reuses the club of
an earlier run (the setup, about 30 s, is then skipped). A run's changes (the 501st event,
the corrected score) are undone at its end. DJANGO_DEBUG defaults to 0, as in production.

Run from the project root:
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/roundhouse_bench \
        .venv/bin/python bench/bench_rating_db.py [--reuse] [--runs 5] [--profile] [--no-docs]
"""

import argparse
import cProfile
import datetime
import functools
import gc
import io
import os
import platform
import pstats
import resource
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from importlib.metadata import version
from pathlib import Path
from typing import Any
from unittest import mock

# Sets up sys.path (the project root), DJANGO_SETTINGS_MODULE and DJANGO_DEBUG=0 on import.
from bench_standings import machine
from rating_db_data import (
    CORRECTED_PIPS,
    EVENTS,
    NEW_EVENT_SLUG,
    BenchClub,
    build_events,
    correction_of,
    history,
    in_database_ids,
    prepare,
    restore,
    score,
    vacuum,
)
from rating_db_report import EVENT_TARGET, FULL_TARGET, Case, summary, write_docs
from standings_data import create_database_if_missing
from standings_timing import GcClock

# rate_club's parts: the rating_store functions it calls (module globals, so patched by name).
PARTS = {
    "_lock": "lock",
    "club_events": "load",
    "tournament_event": "load",
    "load_state": "load",
    "load_history": "load",
    "rate": "rate",
    "recompute_from": "rate",
    "_save": "save",
}


# ---- the database and the process -----------------------------------------------------------


def database() -> None:
    """Exit unless DATABASE_URL names PostgreSQL; create the database if missing."""
    import environ

    url = os.environ.get("DATABASE_URL", "")
    if not url:
        sys.exit(
            "bench_rating_db: DATABASE_URL is not set; this benchmark runs on PostgreSQL only, "
            "e.g.\n  DATABASE_URL=postgres://postgres@127.0.0.1:5432/roundhouse_bench "
            ".venv/bin/python bench/bench_rating_db.py"
        )
    db = environ.Env.db_url_config(url)
    if "postgresql" not in db["ENGINE"]:
        sys.exit(f"bench_rating_db: DATABASE_URL uses {db['ENGINE']}, not PostgreSQL.")
    create_database_if_missing(db)


def refuse_other_data() -> None:
    from clubs.models import Club
    from tournaments.models import Tournament

    clubs, tournaments = Club.objects.count(), Tournament.objects.count()
    if clubs or tournaments:
        sys.exit(
            f"bench_rating_db: the database already holds data (clubs: {clubs}, tournaments: "
            f"{tournaments}). Use an empty database of its own, or --reuse to reuse the club of an "
            "earlier run of this bench (other data is then left alone)."
        )


def reset_peak_rss() -> bool:
    """Reset the process's VmHWM (Linux 4.0+); False if it cannot be."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def rss_mib(field: str = "VmRSS") -> float:
    """The process's RSS now (VmRSS) or its peak since the last reset (VmHWM), MiB; the
    process's ru_maxrss where /proc cannot tell."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ---- measuring ------------------------------------------------------------------------------


@contextmanager
def parts_clock(clock: dict[str, float]) -> Iterator[None]:
    """Time rate_club's parts by wrapping the rating_store functions it calls, and the commit."""
    from django.db import connection

    from clubs import rating_store

    def timed(part: str, func: Callable[..., Any]) -> Callable[..., Any]:
        name = func.__name__

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                took = time.perf_counter() - start
                clock[part] = clock.get(part, 0.0) + took
                if part != name:  # the function's own time too, for the console's detail
                    clock[name] = clock.get(name, 0.0) + took

        return wrapper

    with ExitStack() as stack:
        for function, part in PARTS.items():
            real = getattr(rating_store, function)
            stack.enter_context(mock.patch.object(rating_store, function, timed(part, real)))
        stack.enter_context(
            mock.patch.object(connection, "commit", timed("commit", connection.commit))
        )
        yield


def measure(case: Case, run: Callable[[], Any], *, runs: int = 1) -> Any:
    """Time `run` `runs` times; the first run's parts, GC time, peak RSS and load are kept."""
    from clubs.rating_store import RatingRun

    result: RatingRun | None = None
    case.load_before = os.getloadavg()[0]
    case.rss_before_mib = rss_mib()
    reset_peak_rss()
    for index in range(runs):
        clock: dict[str, float] = {}
        with parts_clock(clock), GcClock() as collector:
            start = time.perf_counter()
            outcome = run()
            took = time.perf_counter() - start
        case.times.append(took)
        if index == 0:
            result = outcome
            case.peak_rss_mib = rss_mib("VmHWM")
            case.parts = {
                part: clock.get(part, 0.0) for part in ("lock", "load", "rate", "save", "commit")
            }
            case.parts["other"] = took - sum(case.parts.values())
            case.detail = {name: t for name, t in clock.items() if name in PARTS}
            case.gc_seconds = collector.seconds
    case.load_after = os.getloadavg()[0]
    assert result is not None
    case.points = result.points  # case.rounds: the caller's, from rated_rounds()
    return result


def rated_rounds(club_id: int, since: tuple[datetime.date, int] | None) -> int:
    """How many table-rounds a run from `since` rates (untimed; for the report)."""
    from clubs.rating_store import club_events, load_history

    return len(load_history(club_id, club_events(club_id), since))


def full_recompute_check(club_id: int, label: str) -> None:
    """d. The stored points equal a full recompute of the club's history now, float for float;
    SystemExit (the bench fails) if not."""
    from clubs.rating import rate
    from clubs.rating_store import club_events, load_history, load_state

    start = time.perf_counter()
    stored = load_state(club_id)
    full = rate(load_history(club_id, club_events(club_id)))
    if stored.series != full.series or stored.last_key != full.last_key:
        differ = [
            m
            for m in set(stored.series) | set(full.series)
            if stored.series.get(m) != full.series.get(m)
        ]
        sys.exit(
            f"bench_rating_db: FAILED: after {label}, the stored points of {len(differ)} members "
            f"differ from a full recompute (e.g. member {sorted(differ)[:5]}); last keys "
            f"{stored.last_key} and {full.last_key}."
        )
    points = sum(len(s) for s in stored.series.values())
    print(
        f"  check (d): after {label}, the {points:,} stored points equal a full recompute, "
        f"float for float ({time.perf_counter() - start:.1f} s)"
    )


def profile(run: Callable[[], Any], label: str) -> str:
    profiler = cProfile.Profile()
    profiler.runcall(run)
    text = io.StringIO()
    print(f"\ncProfile of {label} (the profiler inflates Python-heavy parts)", file=text)
    pstats.Stats(profiler, stream=text).sort_stats("cumulative").print_stats(20)
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(15)
    return text.getvalue()


def delete_points(club_id: int) -> None:
    from clubs.models import RatingPoint

    RatingPoint.objects.filter(member__club_id=club_id).delete()
    vacuum("clubs_ratingpoint")


# ---- the run --------------------------------------------------------------------------------


def run_cases(bench: BenchClub, new_rounds: list, args: argparse.Namespace) -> dict[str, Case]:
    from django.db import transaction

    from clubs.models import RatingPoint
    from clubs.rating_store import load_state, rate_club, tournament_event

    club = bench.club_id
    cases: dict[str, Case] = {}

    # a. From nothing.
    delete_points(club)
    full = cases["a"] = Case("a. from nothing")
    run = measure(full, lambda: rate_club(club_id=club))
    full.rounds = rated_rounds(club, None)
    assert run.since is None and RatingPoint.objects.filter(member__club_id=club).exists()
    print(full.describe())
    vacuum("clubs_ratingpoint")  # as autovacuum would after 50,000 new rows

    # b. A new event.
    start = time.perf_counter()
    with transaction.atomic():
        build_events(bench, new_rounds, {EVENTS + 1: NEW_EVENT_SLUG})
    vacuum("scoring_roundresult", "scoring_score", "tournaments_player", "clubs_playerlink")
    new_id = bench.tournament_pk[EVENTS + 1]
    print(f"  (the 501st event written in {time.perf_counter() - start:.1f} s, untimed)")
    event = cases["b"] = Case("b. one new event")
    run = measure(event, lambda: rate_club(club_id=club, tournament_id=new_id), runs=args.runs)
    event.rounds = rated_rounds(club, run.since)
    if run.since != tournament_event(new_id):
        sys.exit(f"bench_rating_db: FAILED: the new event's run rated from {run.since}")
    print(event.describe())
    full_recompute_check(club, "the new event")

    # c. A correction in year 5.
    correction = args.correction
    before = load_state(club)
    corrected_id = bench.tournament_pk[correction.event]
    with transaction.atomic():
        if score(bench, correction).update(pips=CORRECTED_PIPS) != 1:
            sys.exit("bench_rating_db: FAILED: the score to correct is not there")
    middle = cases["c"] = Case(f"c. a correction at event {correction.event} of {EVENTS + 1}")
    run = measure(middle, lambda: rate_club(club_id=club, tournament_id=corrected_id))
    middle.rounds = rated_rounds(club, run.since)
    if run.since != tournament_event(corrected_id):
        sys.exit(f"bench_rating_db: FAILED: the correction's run rated from {run.since}")
    print(middle.describe())
    if load_state(club).series == before.series:
        sys.exit("bench_rating_db: FAILED: the correction changed no rating")
    full_recompute_check(club, "the correction")

    missed = {
        "a": full.first > FULL_TARGET,
        "b": statistics.median(event.times) > EVENT_TARGET,
    }
    if args.profile or missed["a"]:
        delete_points(club)
        print(profile(lambda: rate_club(club_id=club), "a. from nothing"))
    if args.profile or missed["b"]:
        print(profile(lambda: rate_club(club_id=club, tournament_id=new_id), "b. the new event"))
    return cases


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reuse", action="store_true", help="reuse an earlier run's club")
    parser.add_argument("--runs", type=int, default=5, help="runs of case b (default 5)")
    parser.add_argument("--profile", action="store_true", help="profile cases a and b")
    parser.add_argument("--no-docs", action="store_true", help="leave docs/PERFORMANCE.md alone")
    args = parser.parse_args(argv)

    database()
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from clubs.rating_store import club_events, load_history

    if connection.vendor != "postgresql":  # settings could ignore DATABASE_URL
        sys.exit(f"bench_rating_db: the database is {connection.vendor}, not PostgreSQL.")
    call_command("migrate", verbosity=0)
    if not args.reuse:
        refuse_other_data()
    print(f"{machine()}; openskill {version('openskill')}")
    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        server = (
            f"Python {platform.python_version()}, {os.cpu_count()} cores, "
            f"PostgreSQL {cursor.fetchone()[0].split()[0]} on the same machine"
        )

    start = time.perf_counter()
    rounds, new_rounds = history()
    print(f"history: {len(rounds):,} table-rounds generated in {time.perf_counter() - start:.1f} s")
    args.correction = correction_of(rounds)
    bench = prepare(rounds, args.reuse)
    restore(bench, args.correction)  # an earlier run stopped before its end
    start = time.perf_counter()
    if load_history(bench.club_id, club_events(bench.club_id)) != in_database_ids(rounds, bench):
        sys.exit("bench_rating_db: FAILED: load_history does not return the generator's history")
    print(
        "check: load_history returns the generator's history, table-round for table-round "
        f"({time.perf_counter() - start:.1f} s)"
    )
    sizes = {
        "players": len({(r.key.event_id, m) for r in rounds for m, _ in r.results}),
        "results": len(rounds),
        "scores": sum(len(r.results) for r in rounds),
        "corrected event": args.correction.event,
    }
    del rounds
    gc.collect()
    gc.freeze()  # as the Celery workers do after start-up (config/celery.py)
    print("gc.freeze() after setup, as the Celery workers do")

    try:
        cases = run_cases(bench, new_rounds, args)
    finally:
        restore(bench, args.correction)
    print(
        f"process peak RSS (ru_maxrss, the whole run with setup): "
        f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB; "
        f"load average now {os.getloadavg()[0]:.2f}"
    )
    part = summary(cases, sizes, datetime.date.today().isoformat(), server)
    print("\n" + part)
    if not args.no_docs:
        write_docs(part)


if __name__ == "__main__":
    main()
