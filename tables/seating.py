"""Seating maths, no ORM: balanced tables (sizes within bounds, differing by at most one), seated
at random from a seed (households apart, few repeat pairs of former tablemates) or by rank."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.utils.translation import gettext, ngettext

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
_NO_HOUSEHOLD = -1


@dataclass(frozen=True)
class Entrant:
    id: int
    household: str = ""  # players sharing a non-empty household should not share a table
    rank: int | None = None  # qualifying rank for seeded seating (1 = best)
    # Seeded seating keeps entrants of different groups apart (a division's own playoff):
    # each group is seated at tables of its own, the groups in order of their first entrant.
    group: int | None = None


class NoBalancedSplit(ValueError):
    """The players cannot be split into tables within the bounds with sizes differing by one."""

    def __init__(
        self, message: str, suggestions: Sequence[tuple[int, int]] = (), players: int = 0
    ) -> None:
        super().__init__(message)
        self.suggestions: list[tuple[int, int]] = list(suggestions)
        self.players = players  # how many could not be split (a group's, when seated apart)


@dataclass(frozen=True)
class SeatingWarning:
    """A constraint the seating could not meet: its kind and the values that say why. str() is
    its text in the active language; stored as as_dict(), a page shows it in its reader's."""

    kind: str
    values: dict[str, Any]

    def __str__(self) -> str:
        return warning_text(self.as_dict())

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.values}


def warning_text(warning: Mapping[str, Any] | str) -> str:
    """A stored warning (SeatingWarning.as_dict()) in the active language; a report stored
    before warnings had kinds holds the text itself."""
    if isinstance(warning, str):
        return warning
    if warning["kind"] == "household_too_large":
        text = gettext(
            "Household “%(household)s” has %(players)s players but there are only %(tables)s "
            "tables, so some of them must share a table."
        )
        return text % warning
    if warning["kind"] == "repeat_pairs":
        text = ngettext(
            "%(count)s pair of previous tablemates shares a table again: Roundhouse could not "
            "separate them without seating members of a household together.",
            "%(count)s pairs of previous tablemates share a table again: Roundhouse could not "
            "separate them without seating members of a household together.",
            warning["count"],
        )
        return text % warning
    if warning["kind"] == "unranked_last":
        text = ngettext(
            "%(count)s player had no rank from the earlier stage and was seated last: %(players)s.",
            "%(count)s players had no rank from the earlier stage and were seated last: "
            "%(players)s.",
            len(warning["ids"]),
        )
        # "#12 Ana" (badge number and name) when the seating service named them, else the ids.
        players = warning.get("players") or [str(id_) for id_ in warning["ids"]]
        return text % {"count": len(warning["ids"]), "players": ", ".join(players)}
    raise ValueError(f"Unknown seating warning: {warning['kind']!r}")


def household_conflict_text(conflict: Mapping[str, Any] | str) -> str:
    """A stored household conflict ({"table": number, "household": name}) in the active
    language; a report stored before conflicts had values holds the text itself."""
    if isinstance(conflict, str):
        return conflict
    text = gettext("Table %(table)s: two or more of household “%(household)s”")
    return text % {"table": conflict["table"], "household": conflict["household"]}


@dataclass(frozen=True)
class Seating:
    tables: list[list[int]]  # player ids per table, in seat order (position 1..n)
    household_conflicts: list[tuple[int, str]]  # (table index, household) sharing a table
    repeat_pairs: int  # pairs seated together who were tablemates before
    warnings: list[SeatingWarning] = field(default_factory=list)  # every constraint not met
    seed: int | None = None


def _players(n: int) -> str:
    return f"{n} player" if n == 1 else f"{n} players"


def _balanced(n: int, size_min: int, size_max: int) -> list[int] | None:
    tables = -(-n // size_max)
    base, extra = divmod(n, tables)
    if base < size_min:
        return None
    return [base + 1] * extra + [base] * (tables - extra)


def table_sizes(n: int, *, size_min: int, size_max: int) -> list[int]:
    """Sizes of the fewest tables of at most size_max, differing by at most one, largest first.

    Raises NoBalancedSplit (with the nearest bounds that work) when no such split exists, and
    ValueError for bounds that make no sense (size_min < 1 or size_min > size_max).
    """
    if size_min < 1 or size_min > size_max:
        raise ValueError(
            f"Table size bounds {size_min} to {size_max} are invalid: "
            "the minimum must be at least 1 and at most the maximum."
        )
    if n < 0:
        raise ValueError(f"A number of players cannot be negative ({n}).")
    if n == 0:
        raise NoBalancedSplit("There are no players to seat, so no tables can be made.")
    sizes = _balanced(n, size_min, size_max)
    if sizes is not None:
        return sizes
    # Fewer tables than ceil(n / size_max) would overflow size_max, and more tables only make
    # them smaller, so the split above is the only candidate: suggest relaxing one bound.
    suggestions = [(n // -(-n // size_max), size_max)]
    for wider_max in range(size_max + 1, n + 1):
        if _balanced(n, size_min, wider_max) is not None:
            suggestions.append((size_min, wider_max))
            break
    tries = " or ".join(f"{low} to {high}" for low, high in suggestions)
    raise NoBalancedSplit(
        f"{_players(n)} cannot be split into tables of {size_min} to {size_max} players "
        f"with sizes differing by at most one. Try tables of {tries}.",
        suggestions,
        players=n,
    )


def tablemate_pairs(tables: Iterable[Sequence[int]]) -> set[tuple[int, int]]:
    """Every pair of players sharing a table, as (lower id, higher id)."""
    pairs: set[tuple[int, int]] = set()
    for table in tables:
        ids = sorted(table)
        pairs.update((a, b) for i, a in enumerate(ids) for b in ids[i + 1 :])
    return pairs


def _check_unique(entrants: Sequence[Entrant]) -> None:
    duplicates = sorted(i for i, times in Counter(e.id for e in entrants).items() if times > 1)
    if duplicates:
        raise ValueError(f"Players entered more than once: {', '.join(map(str, duplicates))}.")


def household_key(name: str) -> str:
    """A household's name as seating compares it: case and spacing do not make another one."""
    return " ".join(name.split()).casefold()


def _household_conflicts(
    tables: list[list[int]], household_of: dict[int, str]
) -> list[tuple[int, str]]:
    conflicts: list[tuple[int, str]] = []
    for index, table in enumerate(tables):
        counts: dict[str, int] = {}
        for player_id in table:
            household = household_of[player_id]
            if household:
                counts[household] = counts.get(household, 0) + 1
        conflicts.extend((index, h) for h, count in sorted(counts.items()) if count > 1)
    return conflicts


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
) -> Seating:
    """Random balanced seating, reproducible from the seed (and independent of entrant order).

    Households are kept apart whenever that is possible, which is exactly when no household has
    more members than there are tables; a larger household is spread as evenly as it can be.
    Then swaps that keep households apart reduce repeat tablemates (a local search, not optimal).
    """
    _check_unique(entrants)
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
    household = [household_index.get(household_key(e.household), _NO_HOUSEHOLD) for e in people]
    members: list[list[int]] = [[] for _ in household_names]
    for i, h in enumerate(household):
        if h != _NO_HOUSEHOLD:
            members[h].append(i)
    groups = [group for group in members if len(group) > 1]
    for group in groups:
        rng.shuffle(group)
    rng.shuffle(groups)

    table_of, free = _place_households(groups, sizes, rng)
    open_seats = [table for table in range(tables) for _ in range(free[table])]
    rng.shuffle(open_seats)
    unplaced = (i for i in range(n) if table_of[i] == -1)
    for i, table in zip(unplaced, open_seats, strict=True):
        table_of[i] = table

    seated: list[list[int]] = [[] for _ in range(tables)]
    for i, table in enumerate(table_of):
        seated[table].append(i)
    # count[t][h]: members of household h at table t (households of one never conflict).
    count: list[dict[int, int]] = [{} for _ in range(tables)]
    for i, table in enumerate(table_of):
        if household[i] != _NO_HOUSEHOLD:
            count[table][household[i]] = count[table].get(household[i], 0) + 1

    before: list[set[int]] = [set() for _ in range(n)]
    for a_id, b_id in previous_tablemates:
        a, b = index_of.get(a_id), index_of.get(b_id)
        if a is not None and b is not None and a != b:
            before[a].add(b)
            before[b].add(a)
    if any(before):
        _reduce_repeats(table_of, seated, count, household, before, rng)

    for table in seated:
        rng.shuffle(table)
    ids = [[people[i].id for i in table] for table in seated]
    repeats = sum(1 for a in range(n) for b in before[a] if a < b and table_of[a] == table_of[b])
    conflicts = _household_conflicts(
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


def _reduce_repeats(
    table_of: list[int],
    seated: list[list[int]],
    count: list[dict[int, int]],
    household: list[int],
    mates: list[set[int]],
    rng: random.Random,
) -> None:
    """Swap players between tables while that lowers (household clashes, repeat pairs)."""
    n = len(table_of)

    def repeats_at(player: int, table: int) -> int:
        return sum(1 for mate in mates[player] if table_of[mate] == table)

    def household_delta(a: int, b: int) -> int:
        # Clashes are same-household pairs at a table, so an oversized household stays evenly
        # spread too: a swap may not move one of its members to where more of them sit.
        ha, hb = household[a], household[b]
        if ha == hb:
            return 0
        ta, tb = table_of[a], table_of[b]
        delta = 0
        if ha != _NO_HOUSEHOLD:
            delta += count[tb].get(ha, 0) - (count[ta][ha] - 1)
        if hb != _NO_HOUSEHOLD:
            delta += count[ta].get(hb, 0) - (count[tb][hb] - 1)
        return delta

    def gain(a: int, b: int, a_now: int) -> int:
        """Cost change of swapping a and b (negative is better); households dominate."""
        ta, tb = table_of[a], table_of[b]
        if ta == tb:
            return 0
        clash = household_delta(a, b)
        if clash > 0:
            return 1
        known = 1 if b in mates[a] else 0
        repeat = repeats_at(a, tb) + repeats_at(b, ta) - 2 * known - a_now - repeats_at(b, tb)
        return clash * n * n + repeat

    def swap(a: int, b: int) -> None:
        ta, tb = table_of[a], table_of[b]
        seated[ta][seated[ta].index(a)] = b
        seated[tb][seated[tb].index(b)] = a
        table_of[a], table_of[b] = tb, ta
        for player, old, new in ((a, ta, tb), (b, tb, ta)):
            h = household[player]
            if h != _NO_HOUSEHOLD:
                count[old][h] -= 1
                count[new][h] = count[new].get(h, 0) + 1

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
                swap(a, partner)
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
                swap(a, b)
                break


def seat_seeded(entrants: Sequence[Entrant], *, size_min: int, size_max: int) -> Seating:
    """Playoff seating by rank in snake order, so the strongest are spread across the tables.

    Table 1 gets ranks 1, 2t, 2t+1, ...; table 2 gets 2, 2t-1, ...; seats follow rank. The last,
    partial row keeps its snake direction but skips full tables, so table sizes are exactly
    table_sizes() (larger tables first). Unranked entrants come last (by id), with a warning.
    Households do not move anyone; those sharing a table are only reported.

    Entrants of different groups are seated apart: each group at tables of its own, seeded
    within it, a group that fits at one table at a table of its size (fewer than `size_min`
    then, as a final of two).
    """
    _check_unique(entrants)
    if any(e.group is not None for e in entrants):
        return _seat_groups_apart(entrants, size_min=size_min, size_max=size_max)
    sizes = table_sizes(len(entrants), size_min=size_min, size_max=size_max)
    ranked = sorted(
        entrants, key=lambda e: (e.rank is None, e.rank if e.rank is not None else 0, e.id)
    )
    tables = len(sizes)
    seated: list[list[int]] = [[] for _ in range(tables)]
    for row_start in range(0, len(ranked), tables):
        row = ranked[row_start : row_start + tables]
        forward = (row_start // tables) % 2 == 0
        open_tables = [t for t in range(tables) if len(seated[t]) < sizes[t]]
        order = open_tables if forward else open_tables[::-1]
        for entrant, table in zip(row, order, strict=True):
            seated[table].append(entrant.id)
    unranked = [e.id for e in ranked if e.rank is None]
    warnings = []
    if unranked:
        warnings.append(SeatingWarning("unranked_last", {"ids": unranked}))
    conflicts = _household_conflicts(seated, {e.id: e.household for e in entrants})
    return Seating(seated, conflicts, 0, warnings, None)


def _seat_groups_apart(entrants: Sequence[Entrant], *, size_min: int, size_max: int) -> Seating:
    groups: dict[int | None, list[Entrant]] = {}
    for entrant in sorted(entrants, key=lambda e: (e.rank is None, e.rank or 0, e.id)):
        groups.setdefault(entrant.group, []).append(entrant)
    tables: list[list[int]] = []
    conflicts: list[tuple[int, str]] = []
    warnings: list[SeatingWarning] = []
    for group in groups.values():
        alone = [replace(e, group=None) for e in group]
        seated = seat_seeded(alone, size_min=min(size_min, max(len(alone), 2)), size_max=size_max)
        conflicts += [(index + len(tables), name) for index, name in seated.household_conflicts]
        warnings += seated.warnings
        tables += seated.tables
    return Seating(tables, conflicts, 0, warnings, None)


def late_entry_table(
    table_sizes: Mapping[int, int], *, size_max: int, avoid: Collection[int] = ()
) -> int | None:
    """Key of the smallest table with a free seat (lowest key on ties), away from the tables in
    `avoid` (where the player's household sits) while one of the others has a seat; None when
    all are full."""
    open_tables = [
        (key in avoid, size, key) for key, size in table_sizes.items() if size < size_max
    ]
    return min(open_tables)[2] if open_tables else None
