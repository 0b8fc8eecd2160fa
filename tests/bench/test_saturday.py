"""The pure parts of the Saturday benchmark (bench/saturday_parts.py): the events of each size,
the officials' work, the worker's log, where confirmation to phone goes, the table. No stack:
the benchmark itself runs by hand (bench/saturday.py)."""

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import saturday_parts as parts

SIZES = [50, 100, 200]


def test_each_size_is_the_first_events_with_a_few_big_ones():
    events = parts.saturday_events(SIZES, seed=1, big_players=500, club_players=(12, 40))
    assert len(events) == 200
    assert [sum(e.big for e in events[:n]) for n in SIZES] == [2, 3, 5]
    clubs = [e for e in events if not e.big]
    assert all(12 <= e.players <= 40 and e.players % 4 == 0 for e in clubs)
    assert all(e.players == 500 for e in events if e.big)
    assert {e.players for e in clubs} >= {12, 40}  # the whole range is drawn
    again = parts.saturday_events(SIZES, seed=1, big_players=500, club_players=(12, 40))
    assert again == events


def test_a_club_nights_official_enters_every_table_round_by_round():
    tables = [(10, 1, [1, 2, 3, 4]), (11, 2, [5, 6, 7, 8])]
    (jobs,) = parts.official_jobs(tables, 1, 3, 1)
    assert [(tid, rnd) for tid, _, _, rnd in jobs] == [
        (10, 1),
        (11, 1),
        (10, 2),
        (11, 2),
        (10, 3),
        (11, 3),
    ]
    two = parts.official_jobs(tables, 3, 3, 2)
    assert [[(tid, rnd) for tid, _, _, rnd in j] for j in two] == [[(10, 3)], [(11, 3)]]
    # a table finishing every 120-360 s: at 3 tables, a result every 40-120 s
    assert parts.club_think(3, (120.0, 360.0)) == (40.0, 120.0)


WORKER_LOG = """\
[2026-12-03 14:30:01,100: INFO/MainProcess] Task scoring.tasks.rebuild_standings[a1] received
[2026-12-03 14:30:01,500: INFO/ForkPoolWorker-1] live push: announced version 7-3 of club-7 \
(drawn in 0.050 s, 1 pages warmed in en in 0.080 s, announced in 0.010 s)
[2026-12-03 14:30:01,510: INFO/ForkPoolWorker-1] Task scoring.tasks.rebuild_standings[a1] \
succeeded in 0.3s: None
[2026-12-03 14:30:02,000: INFO/ForkPoolWorker-1] live push: announced version 8-1 of club-8 \
(drawn in 0.020 s, 1 pages warmed in en at 2 hosts in 0.030 s, announced in 0.005 s)
"""


def test_the_workers_log_gives_each_announce_and_its_tasks_start():
    announces = parts.worker_announces(WORKER_LOG)
    assert set(announces) == {"7-3", "8-1"}
    a = announces["7-3"]
    end = parts.log_epoch("2026-12-03 14:30:01,500")
    assert a.ended == end and (a.drawn, a.warmed, a.said) == (0.05, 0.08, 0.01)
    assert math.isclose(a.started, parts.log_epoch("2026-12-03 14:30:01,510") - 0.3)
    assert math.isnan(announces["8-1"].started)  # its task's end is not in the slice
    assert announces["8-1"].warmed == 0.03  # warmed at several hosts (STACK_HOSTS=2)


def test_a_confirmation_is_counted_by_the_first_build_with_its_count():
    builds = [parts.Build(7, 2, 4, 10.0), parts.Build(7, 3, 6, 11.0), parts.Build(7, 4, 7, 12.0)]
    found = parts.builds_counting(builds, [9.5, 9.6, 10.5, 13.0], counted_before=4)
    assert [b.seq if b else None for b in found] == [3, 3, 4, None]


def test_the_parts_add_up_to_confirmation_to_phone():
    build = parts.Build(7, 3, 6, 100.40)
    announced = parts.Announced("7-3", 100.25, 100.70, 0.05, 0.10, 0.05)
    got = parts.parts_of(100.0, build, announced, heard=100.66, shown=101.10)
    assert math.isclose(sum(got.values()), 1.10)
    assert math.isclose(got["countdown and queue wait"], 0.25)
    assert math.isclose(got["rebuild"], 0.15)
    assert math.isclose(got["publish, nchan to the phone"], 0.01)
    assert math.isclose(got["phone's wait and fetch"], 0.44)
    assert parts.parts_of(100.0, build, None, 1.0, 2.0) == {}


def test_first_shown_waits_for_the_count_after_the_answer():
    sightings = [(1.0, 5), (2.0, 5), (2.5, 6), (3.0, 7)]
    assert parts.first_shown(sightings, 1.5, 6) == 2.5
    assert parts.first_shown(sightings, 2.6, 6) == 3.0
    assert parts.first_shown(sightings, 0.0, 8) is None


def test_the_table_has_a_column_per_size_and_the_parts():
    run = {
        "events": 50,
        "big": 2,
        "players": 2260,
        "phones": 2260,
        "hosts": 1,
        "confirmed_per_s": {"big": 0.6, "club": 1.2},
        "builds_per_s": {"big": 0.5, "club": 1.1},
        "visible_club": parts.summary([0.5, 0.7, 1.2], 1),
        "visible_12": parts.summary([0.6]),
        "visible_club_each": parts.summary([0.9]),
        "visible_big": parts.summary([0.4]),
        "parts_club": parts.parts_summary([{"rebuild": 0.1, "warm nginx": 0.2}]),
        "parts_big": parts.parts_summary([{"rebuild": 0.3}]),
        "phone_ms": {"p50": 1.0, "p99": 40.0},
        "phone_errors": 0,
        "phone_requests": 1000,
        "official_ms": {"p50": 20.0, "p99": 90.0},
        "official_requests": 300,
        "official_errors": 0,
        "worker_cpu_per_result_ms": 60.0,
        "stack_cpu_per_result_ms": 200.0,
        "pg_connections": {"mean": 12.0, "peak": 15, "max": 100},
        "memory_mb": {"app": 700.0, "postgres": 50.0, "redis": 8.0},
        "cores": {"nginx": 0.1},
        "loadavg_start": [1.0, 1.0, 1.0],
        "loadavg_end": [2.0, 1.0, 1.0],
    }
    table = parts.markdown_table([run], ["nginx"])
    lines = table.splitlines()
    assert lines[0] == "| | 50 events |"
    assert (
        "| **club night: confirmation to phone p50 / p95** (results) "
        "| **0.70 s / 1.20 s** (3, 1 not seen) |" in lines
    )
    assert "| club night's parts: rebuild p50 / p95 | 0.10 s / 0.10 s |" in lines
    assert "| club night's parts: draw the rows p50 / p95 | - / - |" in lines
    assert "| CPU: nginx (cores) | 0.10 |" in lines
    assert lines[-1] == "| load average (1 min) at start / end | 1.00 / 2.00 |"
