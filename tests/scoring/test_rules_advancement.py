"""advancement_ties: the ties that decide who goes on from a table."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.rules import Decision, PlayerRecord, Ranked, advancement_ties, rank_players
from tests.scoring.helpers import player_records, record

# --------------------------------------------------------------------------------------------
# advancement_ties


def rows(*spec: tuple[int, int | None, int]) -> list[Ranked]:
    """(player_id, table, table_rank) -> Ranked rows; the other fields do not matter here."""
    return [
        Ranked(pid, table, 1, rank if table is not None else None, 0, 0, 0, False, False)
        for pid, table, rank in spec
    ]


def test_advancement_ties_shared_table_win() -> None:
    ranked = rows((1, 1, 1), (2, 1, 1), (3, 1, 3), (4, 2, 1), (5, 2, 2))
    assert advancement_ties(ranked, per_table=1) == {1: [1, 2]}


def test_advancement_ties_tie_below_the_line_does_not_matter() -> None:
    ranked = rows((1, 1, 1), (2, 1, 2), (3, 1, 2), (4, 1, 4))
    assert advancement_ties(ranked, per_table=1) == {}
    assert advancement_ties(ranked, per_table=2) == {1: [2, 3]}
    assert advancement_ties(ranked, per_table=3) == {}


def test_advancement_ties_tie_inside_the_line_does_not_matter() -> None:
    ranked = rows((1, 1, 1), (2, 1, 1), (3, 1, 3))
    assert advancement_ties(ranked, per_table=2) == {}


def test_advancement_ties_ignores_unseated_players() -> None:
    assert advancement_ties(rows((1, None, 0), (2, None, 0)), per_table=1) == {}


def test_advancement_ties_from_ranked_players() -> None:
    records = [record(1, {1: 5}), record(2, {1: 5}), record(3, {1: 0}, table=2, won=(1,))]
    assert advancement_ties(rank_players(records), per_table=1) == {1: [1, 2]}
    decided = rank_players(records, decisions=[Decision((1, 2), "tiebreak_round")])
    assert advancement_ties(decided, per_table=1) == {}


def test_advancement_ties_rejects_negative_per_table() -> None:
    with pytest.raises(ValueError, match="per_table"):
        advancement_ties([], per_table=-1)


@given(player_records(), st.integers(0, 5))
def test_advancement_ties_flags_tables_that_cannot_pick_exactly_per_table(
    records: list[PlayerRecord], per_table: int
) -> None:
    ranked = rank_players(records)
    ties = advancement_ties(ranked, per_table=per_table)
    tables = {row.table for row in ranked if row.table is not None}
    assert set(ties) <= tables
    for table in tables:
        inside = [row for row in ranked if row.table == table and row.table_rank <= per_table]
        assert (table in ties) == (len(inside) > per_table)
        if table in ties:
            last = max(row.table_rank for row in inside)
            assert ties[table] == sorted(row.player_id for row in inside if row.table_rank == last)
