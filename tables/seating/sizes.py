"""Table sizes: the fewest tables within the bounds, sizes differing by at most one, and the
table a late entry joins."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence


class NoBalancedSplit(ValueError):
    """The players cannot be split into tables within the bounds with sizes differing by one."""

    def __init__(
        self, message: str, suggestions: Sequence[tuple[int, int]] = (), players: int = 0
    ) -> None:
        super().__init__(message)
        self.suggestions: list[tuple[int, int]] = list(suggestions)
        self.players = players  # how many could not be split (a group's, when seated apart)


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
