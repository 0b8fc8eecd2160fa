"""Benchmark tables.seating.seat_random: 10,000 players at tables of 4 to 8, about 30% of them
in households of 2 or 3, for a first stage and for a second stage avoiding first-stage tablemates.

Run from the project root: .venv/bin/python bench/bench_seating.py
"""

import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

# Run as a script from bench/, so the project root is not on sys.path by default.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tables.seating import Entrant, Seating, seat_random, tablemate_pairs

PLAYERS = 10_000
SIZE_MIN, SIZE_MAX = 4, 8
RUNS = 7


def field(players: int, *, seed: int) -> list[Entrant]:
    """Players 1..players; about 30% of them in households of 2 or 3."""
    rng = random.Random(seed)
    entrants: list[Entrant] = []
    while len(entrants) < players:
        player_id = len(entrants) + 1
        # Household starts per player so that ~30% of players end up in one (mean size 2.5).
        if rng.random() < 0.3 / (2.5 - 0.3 * 1.5) and players - len(entrants) >= 3:
            size = rng.choice((2, 3))
            entrants += [Entrant(player_id + k, f"h{player_id}") for k in range(size)]
        else:
            entrants.append(Entrant(player_id))
    return entrants


def timed(runs: int, seat: Callable[[int], Seating]) -> tuple[float, Seating]:
    times: list[float] = []
    for run in range(runs):
        start = time.perf_counter()
        seating = seat(run)
        times.append(time.perf_counter() - start)
    return statistics.median(times), seating  # the last run's seating, for its statistics


def main() -> None:
    entrants = field(PLAYERS, seed=2024)
    in_households = sum(1 for e in entrants if e.household)
    print(
        f"python {platform.python_version()} on {platform.machine()}, "
        f"{os.cpu_count()} cores ({platform.processor() or platform.platform()})"
    )
    print(
        f"{PLAYERS} players at tables of {SIZE_MIN}-{SIZE_MAX}, "
        f"{in_households / PLAYERS:.0%} in households of 2-3; median of {RUNS} runs"
    )

    first_time, first = timed(
        RUNS, lambda run: seat_random(entrants, size_min=SIZE_MIN, size_max=SIZE_MAX, seed=run)
    )
    print(
        f"first stage:  {first_time * 1000:7.1f} ms  "
        f"({len(first.tables)} tables, {len(first.household_conflicts)} household conflicts)"
    )

    previous = tablemate_pairs(first.tables)
    second_time, second = timed(
        RUNS,
        lambda run: seat_random(
            entrants,
            size_min=SIZE_MIN,
            size_max=SIZE_MAX,
            seed=1000 + run,
            previous_tablemates=previous,
        ),
    )
    shuffled = [e.id for e in entrants]
    random.Random(1000).shuffle(shuffled)
    sizes = [len(table) for table in second.tables]
    starts = [sum(sizes[:k]) for k in range(len(sizes))]
    plain = tablemate_pairs(shuffled[s : s + n] for s, n in zip(starts, sizes, strict=True))
    print(
        f"second stage: {second_time * 1000:7.1f} ms  "
        f"({len(previous)} previous pairs; {second.repeat_pairs} repeat pairs, "
        f"a plain shuffle repeats {len(plain & previous)}; "
        f"{len(second.household_conflicts)} household conflicts)"
    )


if __name__ == "__main__":
    main()
