"""bench_standings.py's timings: the rebuild after one corrected score or from an empty snapshot
(each prepared untimed, in a transaction of its own), the floor (a plain GROUP BY), the rebuild's
parts and a cProfile of one rebuild."""

import cProfile
import functools
import gc
import io
import pstats
import random
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any
from unittest import mock

from standings_data import MAX_PIPS, SEED

FLOOR_SQL = """
SELECT s.player_id, SUM(s.pips), COUNT(*) FILTER (WHERE s.went_out)
FROM scoring_score s JOIN scoring_roundresult r ON r.id = s.result_id
WHERE r.stage_id = %s AND r.status = 'confirmed'
GROUP BY s.player_id
"""


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
    """The GROUP BY, fetched as the rebuild fetches its rows (binary, as
    scoring.standings.records.fetch does)."""
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
    # (the module the rebuild looks the function up in, the function, what the table calls it)
    ("scoring.announce", "table_digests", "each table's results digest (what a page refetches)"),
    ("scoring.standings.records", "_seats", "seats query"),
    ("scoring.standings.rebuild", "stage_records", "scores query and the players' records"),
    ("scoring.standings.rebuild", "rank_stage", "ranking (rules.rank_players)"),
    ("scoring.standings.rebuild", "advancers", "who advances"),
    ("scoring.time_called", "called_clock", "time called?"),
    ("scoring.time_called", "results_expected", "results expected"),
    ("scoring.standings.rebuild", "snapshot_lines", "the snapshot's lines and their digests"),
    ("scoring.standings.rebuild", "write_rows", "write: read stored digests, write changed lines"),
    ("scoring.standings.rows", "_insert_rows", "write: of which the insert (COPY or INSERT)"),
)


# Parts timed inside other parts (not added again to find the rest).
NESTED_PARTS = {"seats query", "write: of which the insert (COPY or INSERT)"}


@contextmanager
def instrumented(clock: dict[str, float]) -> Iterator[None]:
    import importlib

    from django.db import connection

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
        for path, function, name in PARTS:
            module = importlib.import_module(path)
            real = getattr(module, function)
            stack.enter_context(mock.patch.object(module, function, timed(name, real)))
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
