"""Who advances from a stage's ranked tables, and the unresolved ties that decide it.

Each table's top `per_table` eligible players advance, then the best `wildcards` of the others
overall. A tie that straddles a line (the last place that advances at a table, or the last
wildcard) holds everyone in it back until an official records a decision; it is flagged once
the tables concerned have played every round (mid-stage, a tie is just the score so far). A
final (one table that decides the placings) sends nobody on: its ties for the places it is
played for are flagged instead. Pure: ranked rows in, player ids out (docs/DESIGN.md)."""

from collections import defaultdict
from collections.abc import Sequence, Set
from typing import NamedTuple

from scoring.rules.ranking import Ranked

# The places the final is played for (a Samboree's playoff decides first and second place).
FINAL_PLACES_DECIDED = 2


class Tie(NamedTuple):
    """An unresolved tie an official must decide."""

    table: int | None  # the table's number; None for the last wildcard, overall
    players: tuple[int, ...]  # everyone sharing the place
    place: int  # the table rank (or, for a wildcard, the overall rank) they share
    final: bool = False  # a tie for a place the final is played for


def advancement(
    ranked: Sequence[Ranked],
    *,
    eligible: Set[int],
    per_table: int,
    wildcards: int = 0,
    finished: Set[int | None],
    tables: Set[int],
) -> tuple[frozenset[int], list[Tie]]:
    """Who advances and the ties that decide it.

    ranked: the stage's rows as rank_players gives them (by rank, then player id). eligible: the
    players who may advance (not withdrawn; not a late entry under the "no_advance" rule).
    finished: the numbers of the tables that have played every round; tables: every table's
    number."""
    if per_table < 1:
        raise ValueError("per_table must be 1 or more")
    by_table: dict[int | None, list[Ranked]] = defaultdict(list)
    for row in sorted(ranked, key=lambda r: (r.table_rank or 0, r.player_id)):
        if row.player_id in eligible:
            by_table[row.table].append(row)
    advancing: set[int] = set()
    ties: list[Tie] = []
    for table, rows in by_table.items():
        if len(rows) <= per_table:
            advancing.update(r.player_id for r in rows)
            continue
        line = rows[per_table - 1].table_rank  # the rank of the last place that advances
        if rows[per_table].table_rank == line:  # a tie straddles the line: nobody in it yet
            advancing.update(r.player_id for r in rows if r.table_rank < line)
            if table in finished:
                tied = tuple(r.player_id for r in rows if r.table_rank == line)
                ties.append(Tie(table, tied, line))
        else:
            advancing.update(r.player_id for r in rows[:per_table])
    if wildcards:
        others = [r for r in ranked if r.player_id not in advancing and r.player_id in eligible]
        chosen = others[:wildcards]
        if len(others) > wildcards and others[wildcards].rank == chosen[-1].rank:
            # A tie straddles the last wildcard: nobody in it takes one yet.
            line = chosen[-1].rank
            advancing.update(r.player_id for r in chosen if r.rank < line)
            if tables <= finished:
                # Everyone sharing the place, so that one decision orders the whole tie.
                ties.append(Tie(None, tuple(r.player_id for r in ranked if r.rank == line), line))
        else:
            advancing.update(r.player_id for r in chosen)
    return frozenset(advancing), ties


def final_ties(
    ranked: Sequence[Ranked],
    *,
    active: Set[int],
    finished: Set[int | None],
    places: int = FINAL_PLACES_DECIDED,
) -> list[Tie]:
    """The final's unresolved ties for the places it is played for, once it has played every
    round, among the players still in it (`active`). Ties further down share their place, as
    everywhere (docs/DESIGN.md)."""
    tied: dict[tuple[int, int], list[int]] = defaultdict(list)
    for row in ranked:
        if row.table_tied and row.table in finished and row.player_id in active:
            tied[row.table, row.table_rank].append(row.player_id)
    return [
        Tie(table, tuple(sorted(players)), place, final=True)
        for (table, place), players in sorted(tied.items())
        if place <= places
    ]
