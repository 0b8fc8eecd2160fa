"""Random seating from a seed: households apart, few repeat tablemates, and, when the players'
strengths are given, tables balanced by strength (tables.seating.balance)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence

from tables.seating.balance import break_up_strongest, deal_by_strength, improve_balance
from tables.seating.outcome import (
    Entrant,
    Seating,
    SeatingWarning,
    check_unique,
    household_conflicts,
    household_key,
)
from tables.seating.repeats import reduce_repeats
from tables.seating.sizes import table_sizes
from tables.seating.swaps import NO_HOUSEHOLD, Arrangement


def _place_households(
    groups: list[list[int]], sizes: list[int], rng: random.Random
) -> tuple[list[int], list[int]]:
    """Give each household member a table: every member of a household at a different table
    while it has no more members than there are tables, otherwise spread as evenly as possible.

    Each member goes to a table with the most free seats left (random among equals). Free seats
    start within one of each other and taking one seat from each of the k fullest-free tables
    keeps them so; hence, while players remain, at least min(tables, players left) tables have a
    free seat, which is enough for any household of at most that many members.
    Returns (table per placed player index, free seats per table).
    """
    free = list(sizes)
    tables = len(sizes)
    buckets: list[list[int]] = [[] for _ in range(max(sizes) + 1)]
    slot = [0] * tables
    for table, seats in enumerate(free):
        slot[table] = len(buckets[seats])
        buckets[seats].append(table)

    def take(table: int) -> None:
        bucket = buckets[free[table]]
        last = bucket.pop()
        if last != table:
            bucket[slot[table]] = last
            slot[last] = slot[table]

    def put(table: int) -> None:
        slot[table] = len(buckets[free[table]])
        buckets[free[table]].append(table)

    placed: dict[int, int] = {}
    top = max(sizes)
    for members in groups:
        remaining = members
        while remaining:
            # One table per member, up to one member per table in this sweep.
            sweep, remaining = remaining[:tables], remaining[tables:]
            chosen: list[int] = []
            for player in sweep:
                while top > 0 and not buckets[top]:
                    top -= 1
                bucket = buckets[top]
                table = bucket[rng.randrange(len(bucket))]
                take(table)
                chosen.append(table)
                placed[player] = table
            for table in chosen:
                free[table] -= 1
                put(table)
    return [placed.get(i, -1) for i in range(sum(sizes))], free


def seat_random(
    entrants: Sequence[Entrant],
    *,
    size_min: int,
    size_max: int,
    seed: int,
    previous_tablemates: Iterable[tuple[int, int]] = (),
    strengths: Mapping[int, float] | None = None,
) -> Seating:
    """Random balanced seating, reproducible from the seed (and independent of entrant order).

    Households are kept apart whenever that is possible, which is exactly when no household has
    more members than there are tables; a larger household is spread as evenly as it can be.
    Then swaps that keep households apart reduce repeat tablemates (a local search, not optimal).

    With `strengths` (every entrant's, higher is stronger) the tables are balanced by strength
    too: the players outside households are dealt strongest first in snake order instead of at
    random, and swaps that add no household clash nor repeat pair then narrow the spread of the
    tables' means; a table of all the strongest is never left for the sake of a repeat pair.
    Without, the seating is exactly what it was before strengths existed.
    """
    check_unique(entrants)
    missing = sorted(e.id for e in entrants if strengths is not None and e.id not in strengths)
    if missing:
        raise ValueError(f"No strength for players {', '.join(map(str, missing))}.")
    sizes = table_sizes(len(entrants), size_min=size_min, size_max=size_max)
    rng = random.Random(seed)
    people = sorted(entrants, key=lambda e: e.id)
    n, tables = len(people), len(sizes)
    index_of = {e.id: i for i, e in enumerate(people)}

    # "Smith", "smith" and "Smith " are one household, shown as its first member spells it.
    spelled: dict[str, str] = {}
    for e in people:
        if household_key(e.household):
            spelled.setdefault(household_key(e.household), e.household.strip())
    household_names = [spelled[key] for key in sorted(spelled)]
    household_index = {key: h for h, key in enumerate(sorted(spelled))}
    household = [household_index.get(household_key(e.household), NO_HOUSEHOLD) for e in people]
    members: list[list[int]] = [[] for _ in household_names]
    for i, h in enumerate(household):
        if h != NO_HOUSEHOLD:
            members[h].append(i)
    groups = [group for group in members if len(group) > 1]
    for group in groups:
        rng.shuffle(group)
    rng.shuffle(groups)

    table_of, free = _place_households(groups, sizes, rng)
    strength = [float(strengths[e.id]) for e in people] if strengths is not None else []
    if strengths is not None:
        deal_by_strength(table_of, free, strength, rng)
    else:
        open_seats = [table for table in range(tables) for _ in range(free[table])]
        rng.shuffle(open_seats)
        unplaced = (i for i in range(n) if table_of[i] == -1)
        for i, table in zip(unplaced, open_seats, strict=True):
            table_of[i] = table

    before: list[set[int]] = [set() for _ in range(n)]
    for a_id, b_id in previous_tablemates:
        a, b = index_of.get(a_id), index_of.get(b_id)
        if a is not None and b is not None and a != b:
            before[a].add(b)
            before[b].add(a)
    arrangement = Arrangement.of(table_of, tables, household, before)
    if any(before):
        reduce_repeats(arrangement, rng)
    if strengths is not None:
        improve_balance(arrangement, strength)
        break_up_strongest(arrangement, strength)

    seated = arrangement.seated
    for table in seated:
        rng.shuffle(table)
    ids = [[people[i].id for i in table] for table in seated]
    repeats = arrangement.repeat_pairs()
    conflicts = household_conflicts(
        ids, {e.id: spelled.get(household_key(e.household), "") for e in people}
    )

    warnings = [
        SeatingWarning(
            "household_too_large",
            {"household": name, "players": len(members[h]), "tables": tables},
        )
        for h, name in enumerate(household_names)
        if len(members[h]) > tables
    ]
    if repeats:
        warnings.append(SeatingWarning("repeat_pairs", {"count": repeats}))
    return Seating(ids, conflicts, repeats, warnings, seed)
