"""Tables balanced by strength (a club rating, higher is stronger): the players seating places
freely are dealt by strength in snake order, then swaps between tables narrow the spread of the
tables' mean strengths, never at the cost of a household clash or a repeat tablemate.

The *spread* measured is sum over tables of size x (table mean - everyone's mean)^2: zero when
every table is as strong on average, and largest when the strongest all sit together.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from tables.seating.swaps import Arrangement

# Pair evaluations the polishing may spend (a pair of tables of 8 is 64): enough to reach a
# local optimum for a club's field of a few hundred; a field of thousands stops here, already
# close after the snake deal.
_BALANCE_BUDGET = 400_000


def deal_by_strength(
    table_of: list[int], free: list[int], strength: Sequence[float], rng: random.Random
) -> None:
    """Seat every player without a table yet (-1) at the tables' free seats, strongest first in
    snake order over the tables (a random order of them, so that table 1 is not always the one
    that gets the strongest); equal strengths in a random order. Free seats differ by at most one
    between tables (seating placed households so), so the snake leaves no table short."""
    unplaced = [i for i, table in enumerate(table_of) if table == -1]
    tie = {i: rng.random() for i in unplaced}
    unplaced.sort(key=lambda i: (-strength[i], tie[i]))
    order = list(range(len(free)))
    rng.shuffle(order)
    free = list(free)
    forward, dealt = True, 0
    while dealt < len(unplaced):
        row = [t for t in order if free[t] > 0]
        for table in row if forward else reversed(row):
            if dealt == len(unplaced):
                break
            table_of[unplaced[dealt]] = table
            free[table] -= 1
            dealt += 1
        forward = not forward


def spread(tables: Sequence[Sequence[float]]) -> float:
    """Sum over tables of size x (table mean - overall mean)^2, for the strengths at each table."""
    everyone = [s for table in tables for s in table]
    if not everyone:
        return 0.0
    mean = sum(everyone) / len(everyone)
    return sum(len(t) * (sum(t) / len(t) - mean) ** 2 for t in tables if t)


def improve_balance(arrangement: Arrangement, strength: Sequence[float]) -> None:
    """Swap players between tables while that narrows the spread of table means without adding
    a household clash or a repeat pair. Deterministic: no random choice is made here.

    Only a stronger player at a table of higher mean for a weaker one at a table of lower mean
    can narrow it; for each such pair of tables, the best allowed swap is made. It stops when no
    pair of tables has one (a local optimum) or the budget is spent."""
    seated, n = arrangement.seated, len(arrangement.table_of)
    if n == 0 or len(seated) < 2:
        return
    mean = sum(strength) / n
    sums = [sum(strength[i] for i in table) for table in seated]
    scale = max(1.0, max(abs(s) for s in strength)) ** 2
    tolerance = 1e-9 * scale  # float noise is no improvement: it would swap back and forth

    def delta(a: int, b: int, ta: int, tb: int) -> float:
        """Spread change if a (at ta) and b (at tb) swapped."""
        moved = strength[a] - strength[b]
        na, nb = len(seated[ta]), len(seated[tb])
        old = (sums[ta] - na * mean) ** 2 / na + (sums[tb] - nb * mean) ** 2 / nb
        new = (sums[ta] - moved - na * mean) ** 2 / na + (sums[tb] + moved - nb * mean) ** 2 / nb
        return new - old

    evaluations = 0
    improved = True
    while evaluations < _BALANCE_BUDGET:
        if not improved:
            # No swap of two narrows it: a cycle of three tables may (households hold pairs).
            cycled, spent = _narrow_by_cycle(arrangement, strength, sums, mean, tolerance)
            evaluations += spent
            if not cycled:
                return
        improved = False
        order = sorted(range(len(seated)), key=lambda t: (-sums[t] / len(seated[t]), t))
        for high in order:
            for low in reversed(order):
                if sums[low] / len(seated[low]) >= sums[high] / len(seated[high]):
                    break  # every table left is as strong on average: no swap narrows it
                best, pair = -tolerance, None
                for a in seated[high]:
                    for b in seated[low]:
                        if strength[a] <= strength[b]:
                            continue
                        change = delta(a, b, high, low)
                        if (
                            change < best
                            and arrangement.household_delta(a, b) <= 0
                            and arrangement.repeat_delta(a, b) <= 0
                        ):
                            best, pair = change, (a, b)
                evaluations += len(seated[high]) * len(seated[low])
                if pair is not None:
                    a, b = pair
                    moved = strength[a] - strength[b]
                    sums[high] -= moved
                    sums[low] += moved
                    arrangement.swap(a, b)
                    improved = True
                    break  # on to the next strong table, with this one's new mean
                if evaluations >= _BALANCE_BUDGET:
                    return


def _narrow_by_cycle(
    arrangement: Arrangement,
    strength: Sequence[float],
    sums: list[float],
    mean: float,
    tolerance: float,
) -> tuple[bool, int]:
    """Where a swap of two would narrow the spread but a household clash or a repeat pair forbids
    it (a at table h for b at table x), look for a third player c at another table y to make it
    a cycle: a to x, b to y, c to h. Make the best allowed cycle that narrows the spread, for the
    first forbidden swap (best first) that has one. Returns (moved, evaluations)."""
    seated = arrangement.seated
    tables = len(seated)
    if tables < 3:
        return False, 0

    def deviation(t: int, total: float) -> float:
        return (total - len(seated[t]) * mean) ** 2 / len(seated[t])

    evaluations = 0
    forbidden: list[tuple[float, int, int, int, int]] = []
    for h, x in itertools.permutations(range(tables), 2):
        if evaluations >= _BALANCE_BUDGET:
            break  # a big field: the swaps came close enough
        if sums[h] / len(seated[h]) <= sums[x] / len(seated[x]):
            continue  # only a stronger table giving a stronger player narrows it
        evaluations += len(seated[h]) * len(seated[x])
        old = deviation(h, sums[h]) + deviation(x, sums[x])
        for a in seated[h]:
            for b in seated[x]:
                moved = strength[a] - strength[b]
                change = deviation(h, sums[h] - moved) + deviation(x, sums[x] + moved) - old
                if change < -tolerance:  # forbidden: the swaps search made every allowed one
                    forbidden.append((change, a, b, h, x))
    forbidden.sort()
    for _change, a, b, h, x in forbidden:
        if evaluations >= _BALANCE_BUDGET:
            break
        best, cycle = -tolerance, None
        for y in range(tables):
            if y in (h, x):
                continue
            evaluations += len(seated[y])
            old = deviation(h, sums[h]) + deviation(x, sums[x]) + deviation(y, sums[y])
            for c in seated[y]:
                new = (
                    deviation(h, sums[h] - strength[a] + strength[c])
                    + deviation(x, sums[x] - strength[b] + strength[a])
                    + deviation(y, sums[y] - strength[c] + strength[b])
                )
                if new - old < best and _allowed_cycle(arrangement, a, b, c):
                    best, cycle = new - old, (c, y)
        if cycle is not None:
            c, y = cycle
            sums[h] += strength[c] - strength[a]
            sums[x] += strength[a] - strength[b]
            sums[y] += strength[b] - strength[c]
            arrangement.swap(a, b)  # a to x, b to h
            arrangement.swap(b, c)  # b on to y, c to h
            return True, evaluations
    return False, evaluations


def _allowed_cycle(arrangement: Arrangement, a: int, b: int, c: int) -> bool:
    """Whether a to b's table, b to c's and c to a's adds no household clash nor repeat pair: the
    cycle is two swaps (a with b, then b with c), measured one after the other."""
    households = arrangement.household_delta(a, b)
    repeats = arrangement.repeat_delta(a, b)
    arrangement.swap(a, b)
    households += arrangement.household_delta(b, c)
    repeats += arrangement.repeat_delta(b, c)
    arrangement.swap(a, b)
    return households <= 0 and repeats <= 0


def break_up_strongest(arrangement: Arrangement, strength: Sequence[float]) -> None:
    """If one table of two or more still seats the strongest players of all (each stronger than
    everyone elsewhere: repeat tablemates held the polishing back), swap one of them out: the
    swap adding no household clash, then the fewest repeat pairs, then the smallest difference
    of strength (the weakest of them for the strongest of the rest).

    Such a swap always exists: for a player elsewhere whose housemate sits at that table, the
    two housemates swap; otherwise any of the table's players whose household has no one at that
    player's table swaps with them, and if every one of them has, with that housemate.
    """
    seated, table_of, n = arrangement.seated, arrangement.table_of, len(arrangement.table_of)
    if len(seated) < 2 or n == 0:
        return
    # Only the table of the strongest player can seat the strongest of all.
    ranked = sorted(range(n), key=lambda i: -strength[i])
    table = table_of[ranked[0]]
    players = seated[table]
    size = len(players)
    if size < 2 or size >= n or set(players) != set(ranked[:size]):
        return
    if strength[ranked[size - 1]] <= strength[ranked[size]]:
        return  # tied with a player elsewhere: not each stronger than everyone else
    candidates = [
        (arrangement.repeat_delta(a, b), strength[a] - strength[b], a, b)
        for a in players
        for b in range(n)
        if table_of[b] != table and arrangement.household_delta(a, b) <= 0
    ]
    if candidates:
        _repeats, _gap, a, b = min(candidates)
        arrangement.swap(a, b)
