"""Fewer repeat tablemates: a local search swapping players between tables while that lowers
(household clashes, repeat pairs), within budgets so that a big field stays fast."""

from __future__ import annotations

import random

from tables.seating.swaps import Arrangement

# Swap proposals tried per player who still sits with a previous tablemate, per pass. Most tables
# hold none of a player's few previous tablemates, so a handful of random partners almost always
# contains an improving swap; the cap keeps 10,000 players well under a second.
_SWAP_TRIES = 32
_SWAP_PASSES = 12
# Exhaustive partner scans (one proposal each) spent on the last stubborn repeats, and a cap on
# all previous-tablemate lookups, so a field where repeats cannot be avoided (or huge tables
# with long tablemate lists) never turns into O(n^2) work: the search stops when either runs out
# (3 million lookups took about 0.25 s on the 2-core benchmark machine).
_SCAN_BUDGET = 60_000
_LOOKUP_BUDGET = 3_000_000


def reduce_repeats(arrangement: Arrangement, rng: random.Random) -> None:
    """Swap players between tables while that lowers (household clashes, repeat pairs)."""
    table_of, mates = arrangement.table_of, arrangement.mates
    repeats_at = arrangement.repeats_at
    n = len(table_of)

    def gain(a: int, b: int, a_now: int) -> int:
        """Cost change of swapping a and b (negative is better); households dominate."""
        ta, tb = table_of[a], table_of[b]
        if ta == tb:
            return 0
        clash = arrangement.household_delta(a, b)
        if clash > 0:
            return 1
        known = 1 if b in mates[a] else 0
        repeat = repeats_at(a, tb) + repeats_at(b, ta) - 2 * known - a_now - repeats_at(b, tb)
        return clash * n * n + repeat

    listed = sum(len(m) for m in mates)
    lookups = 0

    def stuck() -> list[int]:
        nonlocal lookups
        lookups += listed
        if lookups > _LOOKUP_BUDGET:
            return []
        return [p for p in range(n) if mates[p] and repeats_at(p, table_of[p])]

    for _ in range(_SWAP_PASSES):
        improved = False
        for a in stuck():
            if lookups > _LOOKUP_BUDGET:
                return
            a_now = repeats_at(a, table_of[a])
            if not a_now:
                continue
            best, partner = 0, -1
            for _ in range(_SWAP_TRIES):
                b = rng.randrange(n)
                lookups += 2 * (len(mates[a]) + len(mates[b]))
                change = gain(a, b, a_now)
                if change < best:
                    best, partner = change, b
            if partner >= 0:
                arrangement.swap(a, partner)
                improved = True
        if not improved:
            break

    scans = 0
    for a in stuck():
        a_now = repeats_at(a, table_of[a])
        if not a_now:
            continue
        start = rng.randrange(n)
        for step in range(n):
            b = (start + step) % n
            scans += 1
            lookups += 2 * (len(mates[a]) + len(mates[b]))
            if scans > _SCAN_BUDGET or lookups > _LOOKUP_BUDGET:
                return
            if gain(a, b, a_now) < 0:
                arrangement.swap(a, b)
                break
