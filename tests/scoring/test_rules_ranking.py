"""rank_players on examples: totals, places, the tie-breaks (rounds won, countback), tables
and the officials' decisions."""

import pytest

from scoring.rules import DEFAULT_TIEBREAKS, Decision, rank_players
from tests.scoring.helpers import by_id, ranks, record

# --------------------------------------------------------------------------------------------
# rank_players: examples


def test_rank_players_lowest_total_first() -> None:
    ranked = rank_players([record(1, {1: 30, 2: 5}), record(2, {1: 10, 2: 4}), record(3, {1: 50})])
    assert [row.player_id for row in ranked] == [2, 1, 3]
    assert [row.rank for row in ranked] == [1, 2, 3]
    assert [row.total for row in ranked] == [14, 35, 50]


def test_rank_players_carried_total_counts() -> None:
    ranked = by_id(rank_players([record(1, {1: 10}, carried=30), record(2, {1: 25})]))
    assert ranked[1].total == 40
    assert ranked[2].rank == 1 and ranked[1].rank == 2


def test_rank_players_reports_rounds_won_and_played() -> None:
    row = rank_players([record(1, {1: 0, 2: 12, 3: 0}, won=(1, 3))])[0]
    assert (row.total, row.rounds_won, row.rounds_played) == (12, 2, 3)


def test_rank_players_rounds_won_counts_only_rounds_with_a_score() -> None:
    # Round 4 has no confirmed result yet, so going out in it does not count.
    row = rank_players([record(1, {1: 0, 2: 12}, won=(1, 4))])[0]
    assert row.rounds_won == 1


def test_rank_players_equal_players_share_place_and_skip_the_next() -> None:
    ranked = rank_players(
        [
            record(4, {1: 20}),
            record(3, {1: 10}),
            record(2, {1: 10}),
            record(1, {1: 5}),
        ]
    )
    assert [(row.player_id, row.rank, row.tied) for row in ranked] == [
        (1, 1, False),
        (2, 2, True),
        (3, 2, True),
        (4, 4, False),
    ]


def test_rank_players_more_rounds_won_breaks_a_tie() -> None:
    ranked = by_id(rank_players([record(1, {1: 10, 2: 10}), record(2, {1: 0, 2: 20}, won=(1,))]))
    assert ranked[2].rank == 1 and ranked[1].rank == 2
    assert not ranked[1].tied and not ranked[2].tied


def test_rank_players_countback_lower_last_round_wins() -> None:
    ranked = by_id(rank_players([record(1, {1: 5, 2: 15}), record(2, {1: 15, 2: 5})]))
    assert ranked[2].rank == 1 and ranked[1].rank == 2


def test_rank_players_countback_goes_back_round_by_round() -> None:
    ranked = by_id(rank_players([record(1, {1: 5, 2: 9, 3: 6}), record(2, {1: 8, 2: 6, 3: 6})]))
    assert ranked[2].rank == 1 and ranked[1].rank == 2


@pytest.mark.parametrize(
    ("first", "second", "winner"),
    [
        # Player 2 has no round 3. Skipping it compares round 2, where 1 is better; treating the
        # missing round as 0 pips would wrongly make 2 the winner.
        ({1: 5, 2: 5, 3: 10}, {1: 10, 2: 10}, 1),
        # Skipping round 3 compares round 2, where 2 is better; treating the missing round as
        # the worst possible score would wrongly make 1 the winner.
        ({1: 5, 2: 10, 3: 5}, {1: 15, 2: 5}, 2),
    ],
)
def test_rank_players_countback_skips_a_round_one_player_has_not_played(
    first: dict[int, int], second: dict[int, int], winner: int
) -> None:
    ranked = by_id(rank_players([record(1, first), record(2, second, table=2)]))
    assert ranked[winner].rank == 1
    assert ranked[3 - winner].rank == 2


def test_rank_players_countback_compares_again_among_players_still_level() -> None:
    # All three total 16. Over rounds 1-2 (all that 3 played) 3 is worst; 1 and 2 are level
    # there, so they are compared again over the rounds they share, and 2 wins on round 3.
    ranked = rank_players(
        [
            record(1, {1: 5, 2: 5, 3: 6}),
            record(2, {1: 5, 2: 5, 3: 4}, carried=2),
            record(3, {1: 5, 2: 6}, table=2, carried=5),
        ]
    )
    assert [(row.player_id, row.total, row.rank, row.tied) for row in ranked] == [
        (2, 16, 1, False),
        (1, 16, 2, False),
        (3, 16, 3, False),
    ]


def test_rank_players_countback_keeps_a_group_level_on_every_shared_round() -> None:
    # 3 is level with 1 and with 2 over the rounds 3 played; 1 and 2 differ only on round 3,
    # which 3 did not play. No order fits all three pairs, so they share the place overall.
    records = [
        record(1, {1: 5, 2: 5, 3: 6}),
        record(2, {1: 5, 2: 5, 3: 4}, carried=2),
        record(3, {1: 5, 2: 5}, table=2, carried=6),
    ]
    ranked = by_id(rank_players(records))
    assert all(ranked[p].rank == 1 and ranked[p].tied for p in (1, 2, 3))
    # At table 1 only 1 and 2 are compared, and round 3 separates them.
    assert (ranked[2].table_rank, ranked[1].table_rank) == (1, 2)


def test_rank_players_equal_on_every_rule_stay_tied() -> None:
    ranked = rank_players([record(1, {1: 0, 2: 7}, won=(1,)), record(2, {1: 0, 2: 7}, won=(1,))])
    assert [(row.rank, row.tied, row.table_rank, row.table_tied) for row in ranked] == [
        (1, True, 1, True),
        (1, True, 1, True),
    ]


def test_rank_players_tiebreak_order_is_configurable() -> None:
    # 1 went out more often; 2 has the lower last round.
    records = [record(1, {1: 0, 2: 10}, won=(1,)), record(2, {1: 6, 2: 4})]
    assert ranks(rank_players(records)) == {1: 1, 2: 2}
    assert ranks(rank_players(records, tiebreaks=("countback", "rounds_won"))) == {2: 1, 1: 2}
    assert ranks(rank_players(records, tiebreaks=())) == {1: 1, 2: 1}


def test_rank_players_default_tiebreaks_are_rounds_won_then_countback() -> None:
    assert DEFAULT_TIEBREAKS == ("rounds_won", "countback")


def test_rank_players_unknown_rule_names_it_and_the_known_rules() -> None:
    with pytest.raises(ValueError, match="'coin_toss'") as error:
        rank_players([record(1, {1: 3})], tiebreaks=("rounds_won", "coin_toss"))
    assert "rounds_won" in str(error.value) and "countback" in str(error.value)


def test_rank_players_rejects_a_player_twice() -> None:
    with pytest.raises(ValueError, match="Player 7"):
        rank_players([record(7, {1: 3}), record(7, {1: 4})])


def test_rank_players_no_records_no_rows() -> None:
    assert rank_players([]) == []


def test_rank_players_sorted_by_rank_then_player_id() -> None:
    ranked = rank_players([record(9, {1: 5}), record(3, {1: 5}), record(5, {1: 1})])
    assert [row.player_id for row in ranked] == [5, 3, 9]


def test_rank_players_table_rank_is_within_the_table() -> None:
    ranked = by_id(
        rank_players(
            [
                record(1, {1: 10}, table=1),
                record(2, {1: 20}, table=1),
                record(3, {1: 5}, table=2),
                record(4, {1: 30}, table=2),
                record(5, {1: 15}, table=None),
            ]
        )
    )
    assert {pid: (row.rank, row.table_rank) for pid, row in ranked.items()} == {
        1: (2, 1),
        2: (4, 2),
        3: (1, 1),
        4: (5, 2),
        5: (3, None),
    }
    assert ranked[5].table is None and ranked[5].table_tied is False


def test_rank_players_tie_across_tables_is_not_a_table_tie() -> None:
    ranked = by_id(rank_players([record(1, {1: 10}, table=1), record(2, {1: 10}, table=2)]))
    assert ranked[1].tied and ranked[2].tied
    assert not ranked[1].table_tied and ranked[1].table_rank == 1


# --------------------------------------------------------------------------------------------
# rank_players: officials' decisions


def test_rank_players_decision_orders_the_exact_tied_group() -> None:
    records = [record(1, {1: 10}), record(2, {1: 10}), record(3, {1: 4})]
    ranked = by_id(rank_players(records, decisions=[Decision((2, 1), "tiebreak_round")]))
    assert [(ranked[p].rank, ranked[p].tied) for p in (3, 2, 1)] == [
        (1, False),
        (2, False),
        (3, False),
    ]
    assert [(ranked[p].table_rank, ranked[p].table_tied) for p in (3, 2, 1)] == [
        (1, False),
        (2, False),
        (3, False),
    ]


def test_rank_players_decision_naming_more_players_keeps_their_order() -> None:
    # Decided as a three-way tie; a correction has since moved player 3 clear.
    records = [record(1, {1: 10}), record(2, {1: 10}), record(3, {1: 2})]
    ranked = by_id(rank_players(records, decisions=[Decision((3, 2, 1), "draw")]))
    assert (ranked[2].rank, ranked[1].rank) == (2, 3)
    assert not ranked[1].tied


def test_rank_players_decision_naming_only_some_tied_players_leaves_the_tie() -> None:
    records = [record(1, {1: 10}), record(2, {1: 10}), record(3, {1: 10})]
    ranked = rank_players(records, decisions=[Decision((2, 1), "draw")])
    assert [(row.rank, row.tied, row.table_tied) for row in ranked] == [(1, True, True)] * 3


def test_rank_players_decision_never_overrides_the_scores() -> None:
    records = [record(1, {1: 8}), record(2, {1: 10})]
    ranked = by_id(rank_players(records, decisions=[Decision((2, 1), "draw")]))
    assert (ranked[1].rank, ranked[2].rank) == (1, 2)


def test_rank_players_latest_decision_wins() -> None:
    records = [record(1, {1: 10}), record(2, {1: 10})]
    decisions = [Decision((1, 2), "draw"), Decision((2, 1), "tiebreak_round")]
    assert ranks(rank_players(records, decisions=decisions)) == {2: 1, 1: 2}


def test_rank_players_table_decision_breaks_table_tie_inside_a_bigger_overall_tie() -> None:
    # 1 and 2 share table 1; 3 at table 2 is level with them overall.
    records = [record(1, {1: 10}), record(2, {1: 10}), record(3, {1: 10}, table=2)]
    ranked = by_id(rank_players(records, decisions=[Decision((2, 1), "tiebreak_round")]))
    assert (ranked[2].table_rank, ranked[1].table_rank) == (1, 2)
    assert not ranked[1].table_tied and not ranked[2].table_tied
    assert all(ranked[p].rank == 1 and ranked[p].tied for p in (1, 2, 3))


def test_rank_players_decision_across_tables_orders_overall_only() -> None:
    records = [record(1, {1: 10}), record(3, {1: 10}, table=2), record(2, {1: 10})]
    ranked = by_id(rank_players(records, decisions=[Decision((3, 2, 1), "draw")]))
    assert ranks(list(ranked.values())) == {3: 1, 2: 2, 1: 3}
    # At table 1 the decision names both tied players, so it orders them there too.
    assert (ranked[2].table_rank, ranked[1].table_rank, ranked[3].table_rank) == (1, 2, 1)


@pytest.mark.parametrize(
    ("order", "method", "message"),
    [
        ((1, 2), "coin_toss", "coin_toss"),
        ((1,), "draw", "at least two"),
        ((1, 2, 1), "draw", "twice"),
    ],
)
def test_decision_rejects_invalid(order: tuple[int, ...], method: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Decision(order, method)
