"""How a tie-break placed players on the same total (rank_players' `separations`): on examples,
each rule says what it compared; and on random stages (Hypothesis), what each one says is true of
the records, and every place a tie-break decided is explained on both sides."""

from itertools import pairwise

from hypothesis import given
from hypothesis import strategies as st

from scoring.rules import Decision, PlayerRecord, Separation, rank_players
from tests.scoring.helpers import by_id, player_records, record


def separations(ranked, player_id: int) -> list[Separation]:
    return list(by_id(ranked)[player_id].separations)


def test_no_explanation_where_totals_differ() -> None:
    ranked = rank_players([record(1, {1: 10}), record(2, {1: 20})])
    assert all(row.separations == () for row in ranked)


def test_rounds_won_says_the_count_on_both_sides() -> None:
    ranked = rank_players(
        [record(1, {1: 0, 2: 30, 3: 0}, won=(1, 3)), record(2, {1: 10, 2: 0, 3: 20}, won=(2,))]
    )
    assert separations(ranked, 1) == [Separation("overall", "ahead", (2,), "rounds_won", 2, 1)]
    assert separations(ranked, 2) == [Separation("overall", "behind", (1,), "rounds_won", 1, 2)]


def test_countback_says_the_round_and_both_scores() -> None:
    # Same total, same rounds won (none); round 3 is equal, round 2 decides: 8 against 14.
    ranked = rank_players([record(1, {1: 22, 2: 14, 3: 5}), record(2, {1: 28, 2: 8, 3: 5})])
    assert separations(ranked, 2) == [
        Separation("overall", "ahead", (1,), "countback", 8, 14, round=2)
    ]
    assert separations(ranked, 1) == [
        Separation("overall", "behind", (2,), "countback", 14, 8, round=2)
    ]


def test_decision_says_the_method() -> None:
    level = [record(1, {1: 10, 2: 10}), record(2, {1: 10, 2: 10})]
    ranked = rank_players(level, decisions=[Decision((2, 1), "tiebreak_round")])
    assert separations(ranked, 2) == [
        Separation("overall", "ahead", (1,), "decision", method="tiebreak_round")
    ]
    assert separations(ranked, 1)[0].side == "behind"


def test_unbroken_tie_has_no_explanation_between_the_tied() -> None:
    ranked = rank_players([record(1, {1: 10, 2: 10}), record(2, {1: 10, 2: 10})])
    assert all(row.tied and row.separations == () for row in ranked)


def test_group_split_from_a_tie_names_everyone_on_the_other_side() -> None:
    # 1 won a round; 2 and 3 did not and stay tied: 1 is ahead of both, each is behind 1.
    ranked = rank_players(
        [record(1, {1: 0, 2: 20}, won=(1,)), record(2, {1: 10, 2: 10}), record(3, {1: 10, 2: 10})]
    )
    assert separations(ranked, 1) == [Separation("overall", "ahead", (2, 3), "rounds_won", 1, 0)]
    assert separations(ranked, 3) == [Separation("overall", "behind", (1,), "rounds_won", 0, 1)]


def test_countback_of_a_group_names_the_round_the_group_compared() -> None:
    # Three level on 30 and no rounds won. Player 3 has not played round 3, so the group compares
    # rounds 2 and 1: player 3 is best in round 2 (5 against 10). Players 1 and 2 are level in
    # round 2, so round 1 places them: 14 against 16. Compared alone, the two would have gone by
    # round 3 (4 against 6) the other way: the explanation says what the ranking compared.
    ranked = rank_players(
        [
            record(1, {1: 16, 2: 10, 3: 4}),
            record(2, {1: 14, 2: 10, 3: 6}),
            record(3, {1: 25, 2: 5}),
        ]
    )
    assert [row.player_id for row in ranked] == [3, 2, 1]
    assert separations(ranked, 3) == [
        Separation("overall", "ahead", (2,), "countback", 5, 10, round=2)
    ]
    assert separations(ranked, 2)[1] == Separation("overall", "ahead", (1,), "countback", 14, 16, 1)


def test_a_table_order_that_differs_from_the_overall_one_is_explained_too() -> None:
    # Overall, 2 (table 2) sits between 1 and 3 (table 1), all on 20: at table 1, 1 is ahead of 3.
    ranked = rank_players(
        [
            record(1, {1: 0, 2: 20}, won=(1, 2), table=1),
            record(2, {1: 0, 2: 20}, won=(1,), table=2),
            record(3, {1: 20, 2: 0}, table=1),
        ]
    )
    assert separations(ranked, 1) == [
        Separation("overall", "ahead", (2,), "rounds_won", 2, 1),
        Separation("table", "ahead", (3,), "rounds_won", 2, 0),
    ]


# --------------------------------------------------------------------------------------------
# Properties


def _said_true(separation: Separation, me: PlayerRecord, them: PlayerRecord) -> bool:
    better = separation.side == "ahead"
    if separation.rule == "rounds_won":
        return (me.rounds_won, them.rounds_won) == (separation.mine, separation.theirs) and (
            (me.rounds_won > them.rounds_won) == better
        )
    if separation.rule == "countback":
        n = separation.round
        return (me.scores[n], them.scores[n]) == (separation.mine, separation.theirs) and (
            (me.scores[n] < them.scores[n]) == better
        )
    return separation.rule == "decision"


@given(player_records(), st.booleans())
def test_every_explanation_is_true_of_the_records(records: list[PlayerRecord], decide) -> None:
    decisions = []
    if decide:  # the officials order every level group the rules left
        first = rank_players(records)
        for rank in {row.rank for row in first if row.tied}:
            tied = tuple(row.player_id for row in first if row.rank == rank)
            decisions.append(Decision(tied[::-1], "draw"))
    ranked = rank_players(records, decisions=decisions)
    records_by_id = {r.player_id: r for r in records}
    rows = by_id(ranked)
    for row in ranked:
        for separation in row.separations:
            for other in separation.players:
                assert rows[other].total == row.total
                if separation.scope == "overall":
                    assert (row.rank < rows[other].rank) == (separation.side == "ahead")
                else:
                    assert rows[other].table == row.table
                assert _said_true(separation, records_by_id[row.player_id], records_by_id[other])
                mirror = rows[other].separations
                assert any(row.player_id in s.players and s.side != separation.side for s in mirror)


@given(player_records())
def test_every_place_a_tie_break_decided_is_explained(records: list[PlayerRecord]) -> None:
    ranked = rank_players(records)
    for above, below in pairwise(ranked):
        if above.total == below.total and above.rank != below.rank:
            assert any(
                below.player_id in s.players and s.side == "ahead" for s in above.separations
            )
            assert any(
                above.player_id in s.players and s.side == "behind" for s in below.separations
            )
