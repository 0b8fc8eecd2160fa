"""rank_players' properties (Hypothesis), and its agreement with the rules restated plainly."""

import random
from collections import defaultdict
from itertools import groupby

from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.choices import DecisionMethod
from scoring.rules import DEFAULT_TIEBREAKS, Decision, PlayerRecord, Ranked, rank_players
from tests.scoring.helpers import ROUNDS, by_id, player_records


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
        decisions.append(Decision(tuple(group), rng.choice(DecisionMethod.values)))
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
    methods = st.sampled_from(DecisionMethod.values)
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
