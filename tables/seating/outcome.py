"""What seating works with and gives back: the entrants, the seating, the constraints it could not
meet (as data, said in the reader's language), and the household and tablemate checks."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext, ngettext


@dataclass(frozen=True)
class Entrant:
    id: int
    household: str = ""  # players sharing a non-empty household should not share a table
    rank: int | None = None  # qualifying rank for seeded seating (1 = best)
    # Seeded seating keeps entrants of different groups apart (a division's own playoff):
    # each group is seated at tables of its own, the groups in order of their first entrant.
    group: int | None = None


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
    if warning["kind"] == "ratings_unavailable":
        return gettext(
            "Seating by rating was chosen, but no club owns the tournament any more: the players "
            "were seated without ratings."
        )
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


def tablemate_pairs(tables: Iterable[Sequence[int]]) -> set[tuple[int, int]]:
    """Every pair of players sharing a table, as (lower id, higher id)."""
    pairs: set[tuple[int, int]] = set()
    for table in tables:
        ids = sorted(table)
        pairs.update((a, b) for i, a in enumerate(ids) for b in ids[i + 1 :])
    return pairs


def check_unique(entrants: Sequence[Entrant]) -> None:
    duplicates = sorted(i for i, times in Counter(e.id for e in entrants).items() if times > 1)
    if duplicates:
        raise ValueError(f"Players entered more than once: {', '.join(map(str, duplicates))}.")


def household_key(name: str) -> str:
    """A household's name as seating compares it: case and spacing do not make another one."""
    return " ".join(name.split()).casefold()


def household_conflicts(
    tables: list[list[int]], household_of: dict[int, str]
) -> list[tuple[int, str]]:
    """(table index, household) for each household with two or more members at a table."""
    conflicts: list[tuple[int, str]] = []
    for index, table in enumerate(tables):
        counts: dict[str, int] = {}
        for player_id in table:
            household = household_of[player_id]
            if household:
                counts[household] = counts.get(household, 0) + 1
        conflicts.extend((index, h) for h, count in sorted(counts.items()) if count > 1)
    return conflicts
