"""Tables that move between games, no ORM: after each game the k best of every table move up a
table and the k worst down (table 1 is the top table), every table keeping its size.

At the top table the k best stay (there is nowhere higher), at the bottom table the k worst. A
player who withdrew between games is not seated, a late entry sits at the emptiest table (the
bottom one when all are equal); the tables then even out within the stage's table sizes, each
short table taking a player from the nearest table with one to spare: its weakest when that
table is higher, its strongest when lower.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from django.utils.translation import ngettext


class NoRoom(ValueError):
    """The players left cannot be seated at the game's tables within the stage's table sizes."""


@dataclass(frozen=True)
class Moved:
    """The next game's tables (player ids, table 1 first) and the table each player came from
    (None for a late entry)."""

    tables: list[list[int]]
    from_table: dict[int, int | None]


def move_tables(
    tables: Sequence[Sequence[int]],
    *,
    k: int,
    size_min: int,
    size_max: int,
    leaving: Collection[int] = (),
    joining: Sequence[int] = (),
) -> Moved:
    """The next game's tables from the last game's: `tables` holds each table's players best
    first (table 1 the top table); `leaving` are players not seated again (withdrawn), `joining`
    players seated for the first time. A table smaller than 2k (after withdrawals) moves half of
    itself each way. Raises NoRoom when the players do not fit the tables within the sizes."""
    if k < 1:
        raise ValueError(f"At least one player moves each way, not {k}.")
    ranked = [[p for p in table if p not in leaving] for table in tables]
    seen = [p for table in ranked for p in table] + list(joining)
    if len(seen) != len(set(seen)):
        raise ValueError("A player is at two tables, or joins a table they sit at.")
    count = len(ranked)
    strength: dict[int, tuple[int, int]] = {}  # the last game's (table, place): lower is stronger
    moved: list[list[int]] = [[] for _ in ranked]
    for index, table in enumerate(ranked):
        strength.update((p, (index, place)) for place, p in enumerate(table))
        each_way = min(k, len(table) // 2)
        best, rest = table[:each_way], table[each_way:]
        worst, middle = rest[len(rest) - each_way :], rest[: len(rest) - each_way]
        moved[max(index - 1, 0)].extend(best)
        moved[index].extend(middle)
        moved[min(index + 1, count - 1)].extend(worst)
    total = len(seen)
    base, extra = divmod(total, count) if count else (0, 0)
    if not count or base < size_min or base + (extra > 0) > size_max:
        raise NoRoom(_no_room_message(total, count, size_min, size_max))
    for player in joining:  # the emptiest table, the lowest of equals
        emptiest = min(range(count), key=lambda t: (len(moved[t]), -t))
        moved[emptiest].append(player)
        strength[player] = (count, len(strength))
    _even_out(moved, strength, base, extra)
    return Moved(
        [sorted(table, key=strength.__getitem__) for table in moved],
        {p: (place[0] + 1 if place[0] < count else None) for p, place in strength.items()},
    )


def _even_out(
    moved: list[list[int]], strength: dict[int, tuple[int, int]], base: int, extra: int
) -> None:
    """Tables within one of each other: the `extra` largest tables (the higher of equals) keep
    base + 1, the others base; a short table takes from the nearest table over its share."""
    order = sorted(range(len(moved)), key=lambda t: (-len(moved[t]), t))
    share = {t: base + (rank < extra) for rank, t in enumerate(order)}
    for table in range(len(moved)):
        while len(moved[table]) < share[table]:
            donor = min(
                (t for t in range(len(moved)) if len(moved[t]) > share[t]),
                key=lambda t: (abs(t - table), t),
            )
            pick = max if donor < table else min  # down: their weakest; up: their strongest
            player = pick(moved[donor], key=strength.__getitem__)
            moved[donor].remove(player)
            moved[table].append(player)


def _no_room_message(players: int, tables: int, size_min: int, size_max: int) -> str:
    return ngettext(
        "%(count)s player cannot be seated at the %(tables)s tables of the game before with "
        "tables of %(min)s to %(max)s players: seat this game by hand, or change its table "
        "sizes.",
        "%(count)s players cannot be seated at the %(tables)s tables of the game before with "
        "tables of %(min)s to %(max)s players: seat this game by hand, or change its table "
        "sizes.",
        players,
    ) % {"count": players, "tables": tables, "min": size_min, "max": size_max}
