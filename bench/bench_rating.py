"""Benchmark clubs.rating: a club's synthetic ten-year history (500 members, 500 events,
150,000 table-rounds) rated from nothing, one new event's update, and a correction in the middle
of the history replayed from its event.

Run from the project root: .venv/bin/python bench/bench_rating.py [--profile]
"""

import argparse
import cProfile
import datetime
import math
import os
import platform
import pstats
import random
import resource
import statistics
import sys
import time
import tracemalloc
from importlib.metadata import version
from pathlib import Path

# Run as a script from bench/, so the project root is not on sys.path by default.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from clubs.rating import (
    MODEL,
    PROVISIONAL_ROUNDS,
    RoundKey,
    TableRound,
    rate,
    rating_of,
    recompute_from,
    update,
)

MEMBERS = 500
EVENTS = 500
ROUNDS_PER_EVENT = 300  # table-rounds: 500 x 300 = 150,000
# Table sizes: mostly 4, some 3, and 5 to 8.
SIZES, SIZE_WEIGHTS = (3, 4, 5, 6, 7, 8), (10, 70, 10, 4, 3, 3)
SEED = 2026
FIRST_EVENT = datetime.date(2016, 1, 9)


def club_history(events: int, *, seed: int) -> tuple[list[TableRound], random.Random, list[float]]:
    """A week apart, events of 80 to 120 members (the regulars come more often) playing rounds
    until the event has its 300 table-rounds; in each round at a table one player goes out
    (0 pips, likelier the stronger) and the others keep 1 to 150 pips (fewer the stronger)."""
    rng = random.Random(seed)
    skill = [rng.gauss(0.0, 1.0) for _ in range(MEMBERS + 1)]
    activity = [rng.uniform(0.2, 1.0) for _ in range(MEMBERS + 1)]
    history = [
        table_round
        for event in range(1, events + 1)
        for table_round in _event(event, rng, skill, activity)
    ]
    return history, rng, skill


def _event(
    event: int, rng: random.Random, skill: list[float], activity: list[float]
) -> list[TableRound]:
    date = FIRST_EVENT + datetime.timedelta(days=7 * (event - 1))
    attendees = _weighted_sample(
        rng, list(range(1, MEMBERS + 1)), activity[1:], rng.randint(80, 120)
    )
    rounds: list[TableRound] = []
    round_no = 0
    while len(rounds) < ROUNDS_PER_EVENT:
        round_no += 1
        rng.shuffle(attendees)
        seat = 0
        for table_no, size in enumerate(_table_sizes(rng, len(attendees)), start=1):
            if len(rounds) == ROUNDS_PER_EVENT:
                break
            players = attendees[seat : seat + size]
            seat += size
            out = rng.choices(players, weights=[math.exp(skill[m]) for m in players])[0]
            results = tuple(
                (m, 0 if m == out else max(1, min(150, int(rng.gauss(60 - 15 * skill[m], 30)))))
                for m in players
            )
            rounds.append(TableRound(RoundKey(date, event, 1, round_no, table_no), results))
    return rounds


def _table_sizes(rng: random.Random, players: int) -> list[int]:
    sizes: list[int] = []
    left = players
    while left:
        size = min(rng.choices(SIZES, weights=SIZE_WEIGHTS)[0], left)
        rest = left - size
        if rest in (1, 2):  # no table of 1 or 2: grow this table, or leave a table of 3
            size = size + rest if size + rest <= 8 else size - (3 - rest)
        sizes.append(size)
        left -= size
    return sizes


def _weighted_sample(
    rng: random.Random, items: list[int], weights: list[float], k: int
) -> list[int]:
    # Efraimidis-Spirakis: the k largest u^(1/w).
    keyed = sorted(items, key=lambda i: rng.random() ** (1 / weights[i - 1]), reverse=True)
    return keyed[:k]


def timed(function, runs: int):
    times, result = [], None
    for _ in range(runs):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return times, result


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def newcomer_sigmas(rounds: int) -> list[float]:
    """A new member's sigma round by round at 4-player tables of settled members (sigma 2)."""
    rng = random.Random(SEED)
    newcomer = MODEL.rating()
    sigmas = []
    for _ in range(rounds):
        others = [MODEL.rating(mu=rng.gauss(25, 3), sigma=2.0) for _ in range(3)]
        ranks = [1, 2, 3, 4]
        rng.shuffle(ranks)
        rated = MODEL.rate([[newcomer], *([o] for o in others)], ranks=ranks)
        newcomer = rated[0][0]
        sigmas.append(newcomer.sigma)
    return sigmas


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--profile", action="store_true", help="profile the full recompute")
    args = parser.parse_args()

    print(
        f"python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} cores ({platform.processor() or platform.platform()}), "
        f"openskill {version('openskill')}, load average {load()}"
    )
    start = time.perf_counter()
    history, rng, skill = club_history(EVENTS, seed=SEED)
    sizes = [len(r.results) for r in history]
    members = {m for r in history for m, _ in r.results}
    print(
        f"history: {len(history):,} table-rounds, {len(members)} members, {EVENTS} events; "
        f"tables of 4: {sizes.count(4) / len(sizes):.0%}, "
        f"3: {sizes.count(3) / len(sizes):.0%}, 5-8: {sum(s > 4 for s in sizes) / len(sizes):.0%} "
        f"(built in {time.perf_counter() - start:.1f} s)"
    )

    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(rate, history)
        pstats.Stats(profile).sort_stats("tottime").print_stats(15)
        return

    times, state = timed(lambda: rate(history), 3)
    full = statistics.median(times)
    per_round = full / len(history) * 1e6
    print(
        f"full recompute: median {full:.2f} s of 3 (min {min(times):.2f}, max {max(times):.2f}; "
        f"{per_round:.0f} µs a table-round); target < 60 s"
    )

    tracemalloc.start()
    rate(history)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    points = sum(len(s) for s in state.series.values())
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"peak memory of the recompute (tracemalloc): {peak / 2**20:.0f} MiB; the state: "
        f"{len(state)} members, {points:,} series points (a point per member per event); "
        f"max RSS of the process {rss_mib:.0f} MiB"
    )

    new_event = _event(EVENTS + 1, rng, skill, [1.0] * (MEMBERS + 1))
    times, _ = timed(lambda: update(state, new_event), 7)
    print(
        f"one new event's update ({len(new_event)} table-rounds): "
        f"median {statistics.median(times) * 1000:.0f} ms "
        f"(max {max(times) * 1000:.0f} ms) of 7; target < 1 s"
    )

    # A correction in the middle: the first table of event 250 had its winner's pips wrong.
    index = next(i for i, r in enumerate(history) if r.key.event_id == EVENTS // 2)
    wrong = history[index]
    winner = wrong.results[0][0]
    fixed = TableRound(wrong.key, tuple((m, 151 if m == winner else p) for m, p in wrong.results))
    corrected = [*history[:index], fixed, *history[index + 1 :]]
    times, replayed = timed(lambda: recompute_from(state, corrected, wrong.key), 3)
    replayed_rounds = len(history) - index
    print(
        f"correction at event {EVENTS // 2} replayed from its start "
        f"({replayed_rounds:,} table-rounds): "
        f"median {statistics.median(times):.2f} s of 3"
    )
    assert replayed == rate(corrected), "the replay differs from a full recompute"
    assert rating_of(replayed, winner) != rating_of(state, winner)
    print("check: the replay equals a full recompute of the corrected history, float for float")

    sigmas = newcomer_sigmas(60)
    print(
        "a newcomer's sigma at 4-player tables after rounds "
        + ", ".join(f"{n}: {sigmas[n - 1]:.2f}" for n in (1, 5, 13, PROVISIONAL_ROUNDS, 40, 60))
        + f" (prior {MODEL.sigma:.2f})"
    )
    ordinals = sorted(r.ordinal for r in state.current().values())
    print(
        f"ordinals (40 * (mu - 3 sigma)) after ten years: min {ordinals[0]:.0f}, median "
        f"{statistics.median(ordinals):.0f}, max {ordinals[-1]:.0f}; load average {load()}"
    )


if __name__ == "__main__":
    main()
