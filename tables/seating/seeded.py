"""Seeded seating: playoff tables dealt by rank in snake order, so the strongest are spread out,
each group (a division playing its own playoff) at tables of its own."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from tables.seating.outcome import (
    Entrant,
    Seating,
    SeatingWarning,
    check_unique,
    household_conflicts,
)
from tables.seating.sizes import table_sizes


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
    check_unique(entrants)
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
    conflicts = household_conflicts(seated, {e.id: e.household for e in entrants})
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
