import random
from collections import defaultdict
from decimal import Decimal
from itertools import groupby

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.rules import (
    BLOCKED_WENT_OUT,
    DEFAULT_TIEBREAKS,
    NOBODY_WENT_OUT,
    PIPS_MESSAGE,
    WENT_OUT_MESSAGE,
    WENT_OUT_SCORES_ZERO,
    Decision,
    PlayerRecord,
    Ranked,
    ScoreLine,
    advancement_ties,
    missed_round_scores,
    parse_pips,
    rank_players,
    validate_round,
)
from tournaments.presets import max_round_total, total_pips

# --------------------------------------------------------------------------------------------
# Helpers and strategies


def record(
    player_id: int,
    scores: dict[int, int],
    *,
    table: int | None = 1,
    won: tuple[int, ...] = (),
    carried: int = 0,
) -> PlayerRecord:
    return PlayerRecord(player_id, table, scores, frozenset(won), carried)


def by_id(ranked: list[Ranked]) -> dict[int, Ranked]:
    return {row.player_id: row for row in ranked}


def ranks(ranked: list[Ranked]) -> dict[int, int]:
    return {row.player_id: row.rank for row in ranked}


ROUNDS = (1, 2, 3, 4)


@st.composite
def player_records(draw: st.DrawFn, *, same_rounds: bool = False) -> list[PlayerRecord]:
    # Small pips and few rounds so that ties, and ties that survive the tie-breaks, are common.
    ids = draw(st.lists(st.integers(1, 80), unique=True, max_size=14))
    played_by_all = draw(st.sets(st.sampled_from(ROUNDS))) if same_rounds else None
    records = []
    for player_id in ids:
        played = played_by_all if same_rounds else draw(st.sets(st.sampled_from(ROUNDS)))
        scores = {round_no: draw(st.integers(0, 3)) for round_no in sorted(played)}
        won = draw(st.sets(st.sampled_from(ROUNDS)))
        table = draw(st.one_of(st.none(), st.integers(1, 3)))
        carried = draw(st.sampled_from((0, 0, 0, 1, 2)))
        records.append(PlayerRecord(player_id, table, scores, frozenset(won), carried))
    return records


def tied_groups(ranked: list[Ranked], *, per_table: bool) -> list[list[int]]:
    groups: dict[tuple[int | None, int | None], list[int]] = defaultdict(list)
    for row in ranked:
        if per_table and row.table is not None:
            groups[row.table, row.table_rank].append(row.player_id)
        elif not per_table:
            groups[None, row.rank].append(row.player_id)
    return [ids for ids in groups.values() if len(ids) > 1]


def assert_competition_ranking(places: list[int], tied: list[bool]) -> None:
    places_sorted = sorted(places)
    for i, place in enumerate(places_sorted):
        assert place == i + 1 or (i > 0 and place == places_sorted[i - 1])
    for place, is_tied in zip(places, tied, strict=True):
        assert is_tied == (places.count(place) > 1)


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


# --------------------------------------------------------------------------------------------
# rank_players: properties


@given(player_records())
def test_rank_players_ranks_are_a_competition_ranking(records: list[PlayerRecord]) -> None:
    ranked = rank_players(records)
    assert sorted(row.player_id for row in ranked) == sorted(r.player_id for r in records)
    assert ranked == sorted(ranked, key=lambda row: (row.rank, row.player_id))
    assert_competition_ranking([row.rank for row in ranked], [row.tied for row in ranked])
    tables = defaultdict(list)
    for row in ranked:
        if row.table is None:
            assert row.table_rank is None and not row.table_tied
        else:
            tables[row.table].append(row)
    for rows in tables.values():
        assert_competition_ranking([r.table_rank for r in rows], [r.table_tied for r in rows])


@given(player_records())
def test_rank_players_lower_total_always_ranks_strictly_better(records: list[PlayerRecord]) -> None:
    ranked = rank_players(records)
    for a in ranked:
        for b in ranked:
            if a.total < b.total:
                assert a.rank < b.rank
                if a.table is not None and a.table == b.table:
                    assert a.table_rank is not None and b.table_rank is not None
                    assert a.table_rank < b.table_rank


@given(player_records(), st.randoms(use_true_random=False))
def test_rank_players_input_order_does_not_matter(
    records: list[PlayerRecord], rng: random.Random
) -> None:
    decisions = (
        [Decision(tuple(r.player_id for r in records[:3]), "draw")] if len(records) > 1 else []
    )
    shuffled = list(records)
    rng.shuffle(shuffled)
    assert rank_players(shuffled, decisions=decisions) == rank_players(records, decisions=decisions)


@given(player_records(same_rounds=True))
def test_rank_players_matches_pairwise_rules_when_everyone_played_the_same_rounds(
    records: list[PlayerRecord],
) -> None:
    def key(r: PlayerRecord) -> tuple[int, int, list[int]]:
        won = len([n for n in r.went_out if n in r.scores])
        return (
            sum(r.scores.values()) + r.carried,
            -won,
            [r.scores[n] for n in sorted(r.scores)[::-1]],
        )

    ranked = by_id(rank_players(records))
    for r in records:
        assert ranked[r.player_id].rank == 1 + sum(key(other) < key(r) for other in records)
        if r.table is not None:
            at_table = [other for other in records if other.table == r.table]
            expected = 1 + sum(key(other) < key(r) for other in at_table)
            assert ranked[r.player_id].table_rank == expected


@given(player_records())
def test_rank_players_two_level_players_follow_countback_over_shared_rounds(
    records: list[PlayerRecord],
) -> None:
    ranked = by_id(rank_players(records))
    for a in records:
        for b in records:
            row_a, row_b = ranked[a.player_id], ranked[b.player_id]
            if (row_a.total, row_a.rounds_won) != (row_b.total, row_b.rounds_won):
                continue
            level = [
                r
                for r in records
                if (ranked[r.player_id].total, ranked[r.player_id].rounds_won)
                == (row_a.total, row_a.rounds_won)
            ]
            if len(level) != 2:  # with more players level, their common rounds decide
                continue
            shared = sorted(set(a.scores) & set(b.scores), reverse=True)
            countback_a = [a.scores[n] for n in shared]
            countback_b = [b.scores[n] for n in shared]
            assert (row_a.rank < row_b.rank) == (countback_a < countback_b)
            assert (row_a.rank == row_b.rank) == (countback_a == countback_b)


@given(player_records(), st.randoms(use_true_random=False))
def test_rank_players_decisions_remove_the_overall_ties_they_cover(
    records: list[PlayerRecord], rng: random.Random
) -> None:
    before = by_id(rank_players(records))
    decisions = []
    for group in tied_groups(list(before.values()), per_table=False):
        rng.shuffle(group)
        decisions.append(Decision(tuple(group), rng.choice(("draw", "tiebreak_round"))))
    after = by_id(rank_players(records, decisions=decisions))
    assert not any(row.tied for row in after.values())
    for decision in decisions:
        first = before[decision.order[0]].rank
        assert [after[p].rank for p in decision.order] == list(
            range(first, first + len(decision.order))
        )


@given(player_records(), st.randoms(use_true_random=False))
def test_rank_players_decisions_remove_the_table_ties_they_cover(
    records: list[PlayerRecord], rng: random.Random
) -> None:
    before = by_id(rank_players(records))
    decisions = []
    for group in tied_groups(list(before.values()), per_table=True):
        rng.shuffle(group)
        decisions.append(Decision(tuple(group), "tiebreak_round"))
    after = by_id(rank_players(records, decisions=decisions))
    assert not any(row.table_tied for row in after.values())
    for decision in decisions:
        first = before[decision.order[0]].table_rank
        assert first is not None
        expected = list(range(first, first + len(decision.order)))
        assert [after[p].table_rank for p in decision.order] == expected


def reference_ranking(
    records: list[PlayerRecord], tiebreaks: tuple[str, ...], decisions: list[Decision]
) -> dict[int, tuple[int, bool, int | None, bool]]:
    """The ranking rules restated as plainly as possible, as an oracle for rank_players (which is
    written for speed): player id -> (rank, tied, table rank, table tied)."""

    def key(name: str, group: list[PlayerRecord]) -> object:
        if name == "rounds_won":
            return lambda r: -r.rounds_won
        shared = sorted(set.intersection(*(set(r.scores) for r in group)), reverse=True)
        return lambda r: [r.scores[n] for n in shared]

    def level(group: list[PlayerRecord], names: tuple[str, ...]) -> list[list[PlayerRecord]]:
        # Split by the first rule again and again; a part it cannot split goes on to the next.
        if len(group) < 2 or not names:
            return [group]
        by = key(names[0], group)
        parts = [list(run) for _, run in groupby(sorted(group, key=by), key=by)]
        if len(parts) == 1:
            return level(group, names[1:])
        return [final for part in parts for final in level(part, names)]

    def decided(group: list[PlayerRecord]) -> list[list[PlayerRecord]]:
        ids = {r.player_id for r in group}
        for decision in reversed(decisions):
            if len(group) > 1 and ids <= set(decision.order):
                return [[r] for r in sorted(group, key=lambda r: decision.order.index(r.player_id))]
        return [group]

    def places(group: list[PlayerRecord]) -> dict[int, tuple[int, bool]]:
        by_total = [
            list(run)
            for _, run in groupby(sorted(group, key=lambda r: r.total), key=lambda r: r.total)
        ]
        placed, place = {}, 1
        for part in by_total:
            for final in (d for lev in level(part, tiebreaks) for d in decided(lev)):
                placed.update({r.player_id: (place, len(final) > 1) for r in final})
                place += len(final)
        return placed

    overall = places(records)
    at_table: dict[int, tuple[int, bool]] = {}
    for table in {r.table for r in records if r.table is not None}:
        at_table.update(places([r for r in records if r.table == table]))
    return {
        pid: (rank, tied, *at_table.get(pid, (None, False)))
        for pid, (rank, tied) in overall.items()
    }


@st.composite
def decisions_for(draw: st.DrawFn, records: list[PlayerRecord]) -> list[Decision]:
    ids = [r.player_id for r in records]
    if len(ids) < 2:
        return []
    orders = st.lists(st.sampled_from(ids), min_size=2, max_size=len(ids), unique=True)
    methods = st.sampled_from(("draw", "tiebreak_round"))
    return [Decision(tuple(draw(orders)), draw(methods)) for _ in range(draw(st.integers(0, 4)))]


@st.composite
def level_records(draw: st.DrawFn) -> list[PlayerRecord]:
    """Players who are often level on total and rounds won yet have played different rounds, the
    case where countback compares a group again over the rounds its parts share."""
    patterns = ((1, 2, 3, 4), (1, 2, 3), (2, 3, 4), (1, 2, 4))
    records = []
    for player_id in draw(st.lists(st.integers(1, 40), unique=True, min_size=2, max_size=10)):
        played = draw(st.sampled_from(patterns))
        scores = {n: draw(st.integers(0, 2)) for n in played}
        won = draw(st.sets(st.sampled_from(ROUNDS), max_size=1))
        table = draw(st.sampled_from((None, 1, 2)))
        records.append(PlayerRecord(player_id, table, scores, frozenset(won)))
    return records


@settings(max_examples=300)
@given(
    st.one_of(player_records(), level_records()),
    st.sampled_from(
        [(), ("rounds_won",), ("countback",), DEFAULT_TIEBREAKS, ("countback", "rounds_won")]
    ),
    st.data(),
)
def test_rank_players_agrees_with_the_rules_restated_plainly(
    records: list[PlayerRecord], tiebreaks: tuple[str, ...], data: st.DataObject
) -> None:
    decisions = data.draw(decisions_for(records))
    ranked = rank_players(records, tiebreaks=tiebreaks, decisions=decisions)
    got = {r.player_id: (r.rank, r.tied, r.table_rank, r.table_tied) for r in ranked}
    assert got == reference_ranking(records, tiebreaks, decisions)
    assert [(r.rank, r.player_id) for r in ranked] == sorted((r.rank, r.player_id) for r in ranked)


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


# --------------------------------------------------------------------------------------------
# total_pips, max_round_total, parse_pips


@pytest.mark.parametrize(
    ("domino_set", "pips"), [(6, 168), (9, 495), (12, 1092), (15, 2040), (18, 3420)]
)
def test_total_pips_of_each_set(domino_set: int, pips: int) -> None:
    assert total_pips(domino_set) == pips


@given(st.integers(0, 30))
def test_total_pips_counts_every_tile(domino_set: int) -> None:
    tiles = [(a, b) for a in range(domino_set + 1) for b in range(a, domino_set + 1)]
    assert total_pips(domino_set) == sum(a + b for a, b in tiles)


@pytest.mark.parametrize(
    ("domino_set", "engine", "limit"), [(12, 12, 1068), (12, 0, 1092), (6, 6, 156), (9, 5, 485)]
)
def test_max_round_total_leaves_out_the_engine(domino_set: int, engine: int, limit: int) -> None:
    assert max_round_total(domino_set, engine) == limit


@pytest.mark.parametrize(("domino_set", "engine"), [(12, 13), (12, -1), (-1, -1)])
def test_max_round_total_rejects_an_engine_not_in_the_set(domino_set: int, engine: int) -> None:
    with pytest.raises(ValueError, match=r"[Nn]o "):
        max_round_total(domino_set, engine)


@pytest.mark.parametrize(
    ("raw", "pips"),
    [(0, 0), (42, 42), ("42", 42), (" 7 ", 7), ("007", 7), (12.0, 12), (Decimal("9"), 9)],
)
def test_parse_pips_accepts_whole_numbers(raw: object, pips: int) -> None:
    assert parse_pips(raw) == pips


INVALID_PIPS = [
    True,
    False,
    None,
    "",
    "   ",
    -1,
    "-3",
    "+3",
    1.5,
    "1.5",
    "12.0",
    "abc",
    "1,000",
    "٣",  # an Arabic-Indic digit: not something a keypad sends
    float("nan"),
    float("inf"),
    Decimal("2.5"),
    [3],
]


@pytest.mark.parametrize("raw", INVALID_PIPS)
def test_parse_pips_rejects_anything_but_a_whole_number(raw: object) -> None:
    assert parse_pips(raw) is None


@given(st.integers(min_value=0))
def test_parse_pips_round_trips_digit_strings(n: int) -> None:
    assert parse_pips(n) == n and parse_pips(str(n)) == n


@given(st.integers(max_value=-1))
def test_parse_pips_rejects_negative_numbers(n: int) -> None:
    assert parse_pips(n) is None and parse_pips(str(n)) is None


# --------------------------------------------------------------------------------------------
# validate_round

SEATED = {1: "Ann Smith", 2: "Bob Jones", 3: "Cy Young"}


def check(
    lines: list[ScoreLine], *, blocked: bool = False, engine: int = 12
) -> dict[str, list[str]]:
    return validate_round(seated=SEATED, lines=lines, blocked=blocked, domino_set=12, engine=engine)


def good_lines() -> list[ScoreLine]:
    return [ScoreLine(1, 0, went_out=True), ScoreLine(2, "42"), ScoreLine(3, 17)]


def test_validate_round_accepts_a_valid_round() -> None:
    assert check(good_lines()) == {}


def test_validate_round_accepts_a_blocked_round_with_a_zero_score() -> None:
    lines = [ScoreLine(1, 0), ScoreLine(2, 5), ScoreLine(3, 9)]
    assert check(lines, blocked=True) == {}


def test_validate_round_names_an_unknown_player() -> None:
    errors = check([*good_lines(), ScoreLine(99, 4)])
    assert errors == {"scores.99": ["Player 99 is not seated at this table"]}


def test_validate_round_names_a_player_listed_twice() -> None:
    errors = check([*good_lines(), ScoreLine(2, 42)])
    assert errors == {"scores.2": ["Bob Jones is listed twice"]}


def test_validate_round_counts_a_player_listed_three_times() -> None:
    errors = check([*good_lines(), ScoreLine(3, 17), ScoreLine(3, 17)])
    assert errors == {"scores.3": ["Cy Young is listed three times"]}


def test_validate_round_names_a_missing_player() -> None:
    errors = check([ScoreLine(1, 0, went_out=True), ScoreLine(3, 17)])
    assert errors == {"scores.2": ["No score for Bob Jones"]}


def test_validate_round_reports_every_missing_player() -> None:
    errors = check([])
    assert errors["scores.1"] == ["No score for Ann Smith"]
    assert errors["scores.2"] == ["No score for Bob Jones"]
    assert errors["scores.3"] == ["No score for Cy Young"]


@pytest.mark.parametrize("raw", INVALID_PIPS)
def test_validate_round_rejects_pips_that_are_not_a_whole_number(raw: object) -> None:
    lines = [ScoreLine(1, 0, went_out=True), ScoreLine(2, raw), ScoreLine(3, 17)]
    assert check(lines) == {"scores.2": [PIPS_MESSAGE]}


def test_validate_round_pips_message_wording() -> None:
    assert PIPS_MESSAGE == "Enter a whole number of pips, 0 or more"


@pytest.mark.parametrize(
    ("went_out", "message"),
    [
        ({1, 2}, "Two players are marked as went out: only one player can go out in a round"),
        ({1, 2, 3}, "Three players are marked as went out: only one player can go out in a round"),
    ],
)
def test_validate_round_only_one_player_goes_out(went_out: set[int], message: str) -> None:
    lines = [ScoreLine(pid, 0, went_out=pid in went_out) for pid in SEATED]
    assert check(lines) == {"scores": [message]}


def test_validate_round_counts_went_out_in_words_up_to_twelve() -> None:
    seated = {pid: f"Player {pid}" for pid in range(1, 13)}
    lines = [ScoreLine(pid, 0, went_out=True) for pid in seated]
    errors = validate_round(seated=seated, lines=lines, blocked=False, domino_set=12, engine=3)
    assert errors == {
        "scores": ["Twelve players are marked as went out: only one player can go out in a round"]
    }


def test_validate_round_needs_someone_to_go_out_unless_blocked() -> None:
    lines = [ScoreLine(1, 3), ScoreLine(2, 42), ScoreLine(3, 17)]
    assert check(lines) == {
        "non_field_errors": [
            "Nobody is marked as went out: mark the player who went out, or mark the round as "
            "blocked"
        ]
    }
    assert check(lines)["non_field_errors"][0] == NOBODY_WENT_OUT


def test_validate_round_player_who_went_out_scores_zero() -> None:
    lines = [ScoreLine(1, 5, went_out=True), ScoreLine(2, 42), ScoreLine(3, 17)]
    assert check(lines) == {"scores.1": ["A player who went out scores 0"]}
    assert WENT_OUT_SCORES_ZERO == "A player who went out scores 0"


def test_validate_round_blocked_round_has_nobody_out() -> None:
    assert check(good_lines(), blocked=True) == {
        "blocked": ["The round was blocked, so nobody can be marked as went out"]
    }
    assert BLOCKED_WENT_OUT == "The round was blocked, so nobody can be marked as went out"


def test_validate_round_went_out_must_be_yes_or_no() -> None:
    lines = [ScoreLine(1, 0, went_out="yes"), ScoreLine(2, 42), ScoreLine(3, 17)]  # type: ignore[arg-type]
    errors = check(lines)
    assert errors["scores.1"] == [WENT_OUT_MESSAGE]


def test_validate_round_total_over_what_the_set_holds() -> None:
    lines = [ScoreLine(1, 0, went_out=True), ScoreLine(2, 600), ScoreLine(3, 500)]
    assert check(lines) == {
        "scores": [
            "Total 1,100 is more than a double-12 set holds in a round with the 12 engine (1,068)"
        ]
    }


def test_validate_round_total_at_the_limit_is_accepted() -> None:
    lines = [ScoreLine(1, 0, went_out=True), ScoreLine(2, 568), ScoreLine(3, 500)]
    assert check(lines) == {}
    lines = [ScoreLine(1, 0, went_out=True), ScoreLine(2, 569), ScoreLine(3, 500)]
    assert "scores" in check(lines)


def test_validate_round_limit_depends_on_the_engine() -> None:
    lines = [ScoreLine(1, 0, went_out=True), ScoreLine(2, 590), ScoreLine(3, 500)]
    assert check(lines, engine=0) == {}
    assert check(lines, engine=11) == {
        "scores": [
            "Total 1,090 is more than a double-12 set holds in a round with the 11 engine (1,070)"
        ]
    }


def test_validate_round_one_score_over_what_the_set_holds() -> None:
    lines = [ScoreLine(1, 0, went_out=True), ScoreLine(2, 1100), ScoreLine(3, 5)]
    assert check(lines) == {
        "scores.2": [
            "Bob Jones's 1,100 is more than a double-12 set holds in a round with the 12 engine "
            "(1,068)"
        ]
    }


def test_validate_round_reports_several_problems_at_once() -> None:
    lines = [ScoreLine(1, "x"), ScoreLine(99, 3), ScoreLine(3, 4, went_out=True)]
    assert check(lines, blocked=True) == {
        "scores.99": ["Player 99 is not seated at this table"],
        "scores.2": ["No score for Bob Jones"],
        "scores.1": [PIPS_MESSAGE],
        "blocked": [BLOCKED_WENT_OUT],
    }


@st.composite
def valid_rounds(draw: st.DrawFn) -> tuple[dict[int, str], list[ScoreLine], bool, int, int]:
    domino_set = draw(st.sampled_from((6, 9, 12, 15, 18)))
    engine = draw(st.integers(0, domino_set))
    ids = draw(st.lists(st.integers(1, 10_000), min_size=2, max_size=8, unique=True))
    seated = {pid: f"Player {pid}" for pid in ids}
    limit = max_round_total(domino_set, engine)
    budget = draw(st.integers(0, limit))
    pips = [draw(st.integers(0, budget // len(ids))) for _ in ids]
    blocked = draw(st.booleans())
    out = None if blocked else draw(st.integers(0, len(ids) - 1))
    if out is not None:
        pips[out] = 0
    lines = [
        ScoreLine(pid, draw(st.sampled_from((n, str(n)))), went_out=i == out)
        for i, (pid, n) in enumerate(zip(ids, pips, strict=True))
    ]
    draw(st.randoms(use_true_random=False)).shuffle(lines)
    return seated, lines, blocked, domino_set, engine


@given(valid_rounds())
def test_validate_round_accepts_every_valid_round(
    case: tuple[dict[int, str], list[ScoreLine], bool, int, int],
) -> None:
    seated, lines, blocked, domino_set, engine = case
    errors = validate_round(
        seated=seated, lines=lines, blocked=blocked, domino_set=domino_set, engine=engine
    )
    assert errors == {}


@given(valid_rounds(), st.sampled_from(INVALID_PIPS), st.data())
def test_validate_round_pins_bad_pips_on_that_player(
    case: tuple[dict[int, str], list[ScoreLine], bool, int, int], raw: object, data: st.DataObject
) -> None:
    seated, lines, blocked, domino_set, engine = case
    i = data.draw(st.integers(0, len(lines) - 1))
    bad = lines[i]
    lines[i] = ScoreLine(bad.player_id, raw, bad.went_out)
    errors = validate_round(
        seated=seated, lines=lines, blocked=blocked, domino_set=domino_set, engine=engine
    )
    assert errors == {f"scores.{bad.player_id}": [PIPS_MESSAGE]}


# --------------------------------------------------------------------------------------------
# missed_round_scores


def test_missed_round_scores_table_high_takes_the_worst_score_of_each_missed_round() -> None:
    table = {1: {1: 0, 2: 35, 3: 12}, 2: {1: 40, 2: 0, 3: 9}, 3: {1: 5, 2: 7, 3: 0, 4: 0}}
    assert missed_round_scores(table_rounds=table, from_round=3, rule="table_high") == {
        1: 35,
        2: 40,
    }


@pytest.mark.parametrize("rule", ["zero", "no_advance"])
def test_missed_round_scores_zero_rules_score_nothing(rule: str) -> None:
    table = {1: {1: 0, 2: 35}, 2: {1: 40, 2: 0}}
    assert missed_round_scores(table_rounds=table, from_round=3, rule=rule) == {1: 0, 2: 0}


def test_missed_round_scores_only_rounds_before_the_player_sat_down() -> None:
    table = {1: {1: 0, 2: 35}, 2: {1: 40, 2: 0}}
    assert missed_round_scores(table_rounds=table, from_round=1, rule="table_high") == {}
    assert missed_round_scores(table_rounds=table, from_round=2, rule="table_high") == {1: 35}


def test_missed_round_scores_unknown_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="Unknown late entry rule 'average'"):
        missed_round_scores(table_rounds={}, from_round=2, rule="average")
