"""The pure parts of the Saturday benchmark (bench/saturday.py), tested without a stack in
tests/bench/test_saturday.py: the events of each size, the officials' work, the worker log's
lines, where confirmation-to-phone goes (its parts), and the markdown table.

Vocabulary as bench/hall_parts.py's; a *club night* is a small event (12-40 players), a *big*
event one of 500; a *build* is one rebuild of a stage's standings (StageStandings.built_seq)."""

import bisect
import math
import random
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hall_parts import ms, pcts, seconds

TABLE_SIZE = 4
BIG_ROUNDS = 6  # the hall's: rounds 1 and 2 confirmed before, 3 to 6 the officials'
CLUB_ROUNDS = 13  # a whole game of Mexican Train from the double 12: none runs out in a run


@dataclass(frozen=True)
class EventSpec:
    """One event of the Saturday: its players (a multiple of 4: tables of 4) and kind."""

    index: int
    players: int
    big: bool

    @property
    def tables(self) -> int:
        return self.players // TABLE_SIZE


def big_events(size: int) -> int:
    """How many 500-player events a Saturday of `size` events has: a few (one per 50 events,
    and one more), never more than a tenth."""
    return max(1, min(size // 10, size // 50 + 1))


def saturday_events(
    sizes: list[int], *, seed: int, big_players: int, club_players: tuple[int, int]
) -> list[EventSpec]:
    """The events of the largest size, ordered so that the first `n` are the Saturday of each
    size n: big_events(n) of them big, the rest club nights of club_players (min, max) players,
    a multiple of 4, with a fixed seed."""
    rng = random.Random(seed)
    largest = max(sizes)
    big_at: set[int] = set()
    for n in sorted(sizes):
        # the big events new at this size come first among its new events
        start = sizes_below(sizes, n)
        big_at.update(range(start, start + big_events(n) - len(big_at)))
    low, high = club_players
    choices = list(range(max(TABLE_SIZE, low - low % TABLE_SIZE), high + 1, TABLE_SIZE))
    return [
        EventSpec(i, big_players, True) if i in big_at else EventSpec(i, rng.choice(choices), False)
        for i in range(largest)
    ]


def sizes_below(sizes: list[int], n: int) -> int:
    """The largest size below n (0 when none): where the events new at size n begin."""
    return max((s for s in sizes if s < n), default=0)


def official_jobs(
    tables: list[tuple[int, int, list[int]]], first_round: int, rounds: int, officials: int
):
    """Each official's table-rounds: (table id, number, seats, round), round by round from
    `first_round`, the tables dealt to the officials in turn."""
    jobs: list[list[tuple]] = [[] for _ in range(officials)]
    for round_no in range(first_round, rounds + 1):
        for i, (tid, number, seats) in enumerate(tables):
            jobs[i % officials].append((tid, number, seats, round_no))
    return jobs


def club_think(tables: int, every: tuple[float, float]) -> tuple[float, float]:
    """A club night's one official enters each table's result as the table finishes: with a
    table finishing a round every `every` (min, max) seconds, the pause between two results."""
    return (every[0] / tables, every[1] / tables)


# ---- the worker's log ----------------------------------------------------------------------

# Celery's worker format: "[2026-12-03 14:13:55,830: INFO/ForkPoolWorker-1] message"
WORKER_LINE = re.compile(
    r"^\[(?P<when>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}): \w+/(?P<process>[^\]]+)\] (?P<text>.*)$"
)
ANNOUNCED = re.compile(
    r"live push: announced version (?P<version>\d+-\d+) of (?P<slug>\S+) \(drawn in "
    r"(?P<drawn>[\d.]+) s, (?P<pages>\d+) pages warmed in \S+(?: at \d+ hosts?)? in "
    r"(?P<warmed>[\d.]+) s, "
    r"announced in (?P<said>[\d.]+) s\)"
)
SUCCEEDED = re.compile(
    r"Task scoring\.tasks\.rebuild_standings\[[^\]]+\] succeeded in (?P<took>[\d.]+)s"
)


@dataclass(frozen=True)
class Announced:
    """A rebuild's task as the worker logged it (epoch seconds): when its task started and
    ended, and its announce's parts: drawing the rows, warming nginx's cache, publishing."""

    version: str
    started: float  # the task's start (its end less its run time); nan when not logged
    ended: float  # the announce's end (its log line)
    drawn: float
    warmed: float
    said: float


def log_epoch(when: str) -> float:
    """A Celery log line's time (the machine's local time, as the worker's) in epoch seconds."""
    return datetime.strptime(when, "%Y-%m-%d %H:%M:%S,%f").timestamp()


def worker_announces(text: str) -> dict[str, Announced]:
    """Each version's announce in a worker's log, with its task's start when the task's
    "succeeded in" line follows in the same process (the announce runs in the task, after the
    rebuild commits)."""
    out: dict[str, Announced] = {}
    pending: dict[str, tuple] = {}
    for line in text.splitlines():
        match = WORKER_LINE.match(line)
        if match is None:
            continue
        process, body = match["process"], match["text"]
        when = log_epoch(match["when"])
        said = ANNOUNCED.search(body)
        if said is not None:
            pending[process] = (said, when)
            out[said["version"]] = Announced(
                said["version"],
                math.nan,
                when,
                float(said["drawn"]),
                float(said["warmed"]),
                float(said["said"]),
            )
            continue
        done = SUCCEEDED.search(body)
        if done is not None and process in pending:
            said, _ = pending.pop(process)
            a = out[said["version"]]
            out[a.version] = Announced(
                a.version, when - float(done["took"]), a.ended, a.drawn, a.warmed, a.said
            )
    return out


# ---- where confirmation to phone goes --------------------------------------------------------

PARTS = (
    ("countdown and queue wait", "confirm answered -> the rebuild's task starts"),
    ("rebuild", "the task starts -> the snapshot's computed_at"),
    ("commit, who listens", "computed_at -> drawing starts"),
    ("draw the rows", "the rows drawn in each language read"),
    ("warm nginx", "the warm fetches through nginx"),
    ("publish, nchan to the phone", "the first POST to nchan -> a phone's channel hears it"),
    ("phone's wait and fetch", "heard -> the first phone's answer counting it"),
)


@dataclass(frozen=True)
class Build:
    """One build of a stage's standings, as the standings' sampler first saw it."""

    stage: int
    seq: int
    counted: int
    computed_at: float  # epoch


def builds_counting(
    builds: list[Build], acks: list[float], counted_before: int
) -> list[Build | None]:
    """For each confirmation of one stage (its answer's epoch time, in any order: answered
    order is counted order, as in hall_parts.confirmation_to_phone), the first build that
    counts it; None when no build seen did."""
    ordered = sorted(builds, key=lambda b: b.seq)
    out = []
    for k, _ in enumerate(sorted(acks), start=1):
        out.append(next((b for b in ordered if b.counted >= counted_before + k), None))
    return out


def parts_of(
    ack: float,
    build: Build | None,
    announced: Announced | None,
    heard: float | None,
    shown: float | None,
) -> dict[str, float]:
    """One confirmation's way to the phone, in seconds, each part that its figures allow
    (epoch times: ack, heard and shown converted from the load generator's clock)."""
    out: dict[str, float] = {}
    if build is None or announced is None:
        return out
    names = [name for name, _ in PARTS]
    announce_start = announced.ended - announced.drawn - announced.warmed - announced.said
    if not math.isnan(announced.started):
        out[names[0]] = announced.started - ack
        out[names[1]] = build.computed_at - announced.started
    else:
        out["confirm -> computed_at"] = build.computed_at - ack
    out[names[2]] = announce_start - build.computed_at
    out[names[3]] = announced.drawn
    out[names[4]] = announced.warmed
    if heard is not None:
        # The phones' channel is published to first: it hears before the other channels' POSTs
        # end (the announce's log line).
        out[names[5]] = heard - (announced.ended - announced.said)
        if shown is not None:
            out[names[6]] = shown - heard
    return out


def first_shown(sightings: list[tuple[float, int]], after: float, target: int) -> float | None:
    """The first sighting at or after `after` counting `target` results ((time, counted),
    sorted by time)."""
    times = [t for t, _ in sightings]
    start = bisect.bisect_left(times, after)
    return next((t for t, n in sightings[start:] if n >= target), None)


def parts_summary(parts: list[dict[str, float]]) -> dict[str, dict[str, float]]:
    """Each part's p50 / p95 / p99 (seconds) over the confirmations that have it."""
    names = [name for name, _ in PARTS] + ["confirm -> computed_at"]
    return {
        name: {**pcts([p[name] for p in parts if name in p]), "n": sum(name in p for p in parts)}
        for name in names
        if any(name in p for p in parts)
    }


# ---- the report --------------------------------------------------------------------------------


def markdown_table(runs: list[dict], groups: list[str]) -> str:
    """One column per size: the Saturday's figures (as saturday.py's JSON has them)."""
    head = "| | " + " | ".join(f"{r['events']} events" for r in runs) + " |"
    rule = "|---|" + "---|" * len(runs)

    def row(label: str, cell) -> str:
        return f"| {label} | " + " | ".join(cell(r) for r in runs) + " |"

    def p(values: dict, keys=("p50", "p95")) -> str:
        return " / ".join(seconds(values.get(k, math.nan)) for k in keys)

    rows = [
        head,
        rule,
        row(
            "events: big (500) / club nights (12-40); players",
            lambda r: f"{r['big']} / {r['events'] - r['big']}; {r['players']:,}",
        ),
        row("phones (push); web hosts", lambda r: f"{r['phones']:,}; {r['hosts']}"),
        row(
            "results confirmed /s: big / club nights",
            lambda r: f"{r['confirmed_per_s']['big']:.2f} / {r['confirmed_per_s']['club']:.2f}",
        ),
        row(
            "rebuilds /s (builds seen): big / club nights",
            lambda r: "{big:.2f} / {club:.2f}".format(**r["builds_per_s"]),
        ),
        row(
            "**club night: confirmation to phone p50 / p95** (results)",
            lambda r: (
                f"**{p(r['visible_club'])}** ({r['visible_club']['n']}"
                + (
                    f", {r['visible_club']['missed']} not seen"
                    if r["visible_club"]["missed"]
                    else ""
                )
                + ")"
            ),
        ),
        row(
            "12-player club night: p50 / p95 (results)",
            lambda r: f"{p(r['visible_12'])} ({r['visible_12']['n']})",
        ),
        row(
            "club night: to each standings phone p50 / p95",
            lambda r: p(r["visible_club_each"]),
        ),
        row(
            "big event: confirmation to phone p50 / p95 (results)",
            lambda r: f"{p(r['visible_big'])} ({r['visible_big']['n']})",
        ),
    ]
    for name, _ in PARTS:
        rows.append(
            row(
                f"club night's parts: {name} p50 / p95",
                lambda r, n=name: p(r["parts_club"].get(n, {})),
            )
        )
    rows += [
        row(
            "big event's task: rebuild / draw / warm p50",
            lambda r: " / ".join(
                seconds(r["parts_big"].get(k, {}).get("p50", math.nan))
                for k in ("rebuild", "draw the rows", "warm nginx")
            ),
        ),
        row(
            "phones p50 / p99; errors",
            lambda r: (
                f"{ms(r['phone_ms']['p50'])} / {ms(r['phone_ms']['p99'])}; "
                f"{r['phone_errors']:,} of {r['phone_requests']:,}"
            ),
        ),
        row(
            "officials p50 / p99 (requests, errors)",
            lambda r: (
                f"{ms(r['official_ms']['p50'])} / {ms(r['official_ms']['p99'])} "
                f"({r['official_requests']}, {r['official_errors']})"
            ),
        ),
        row(
            "Celery workers' CPU per confirmed result",
            lambda r: f"{r['worker_cpu_per_result_ms']:.0f} ms",
        ),
        row(
            "whole stack's CPU per confirmed result (nginx, gunicorn, workers, PostgreSQL, Redis)",
            lambda r: f"{r['stack_cpu_per_result_ms']:.0f} ms",
        ),
        row(
            "PostgreSQL connections of the stack: mean / peak (server's max_connections)",
            lambda r: (
                f"{r['pg_connections']['mean']:.1f} / {r['pg_connections']['peak']} "
                f"({r['pg_connections']['max']})"
            ),
        ),
        row(
            "stack's memory (PSS): app processes / PostgreSQL backends / Redis",
            lambda r: " / ".join(
                f"{r['memory_mb'].get(k, 0):.0f} MB" for k in ("app", "postgres", "redis")
            ),
        ),
    ]
    rows += [
        row(f"CPU: {group} (cores)", lambda r, g=group: f"{r['cores'].get(g, 0.0):.2f}")
        for group in groups
    ]
    rows.append(
        row(
            "load average (1 min) at start / end",
            lambda r: f"{r['loadavg_start'][0]:.2f} / {r['loadavg_end'][0]:.2f}",
        )
    )
    return "\n".join(rows)


def summary(values: list[float], missed: int = 0) -> dict[str, Any]:
    return {**pcts(values), "n": len(values), "missed": missed}
