"""rules.advancement and rules.final_ties: who goes on from ranked tables, and the ties that
decide it (the one copy; the standings' rebuild uses it)."""

from collections import defaultdict

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.rules import Decision, PlayerRecord, Ranked, Tie, advancement, final_ties, rank_players
from tests.scoring.helpers import player_records, record


def rows(*spec: tuple[int, int, int]) -> list[Ranked]:
    """(player_id, table, table_rank) -> Ranked rows, ranked overall by table rank then id."""
    ordered = sorted(spec, key=lambda s: (s[2], s[0]))
    ranks = {pid: 1 + sum(1 for other in spec if other[2] < rank) for pid, _, rank in ordered}
    return [
        Ranked(pid, table, ranks[pid], rank, 0, 0, 0, False, False) for pid, table, rank in ordered
    ]


def everyone(ranked: list[Ranked]) -> set[int]:
    return {row.player_id for row in ranked}


def advance(ranked: list[Ranked], **settings) -> tuple[frozenset[int], list[Tie]]:
    tables = {row.table for row in ranked}
    settings.setdefault("eligible", everyone(ranked))
    settings.setdefault("finished", tables)
    return advancement(ranked, tables=tables, **settings)


def test_the_top_of_each_table_advances() -> None:
    ranked = rows((1, 1, 1), (2, 1, 2), (3, 1, 3), (4, 2, 2), (5, 2, 1))
    assert advance(ranked, per_table=1) == ({1, 5}, [])
    assert advance(ranked, per_table=2) == ({1, 2, 4, 5}, [])


def test_a_tie_across_the_line_holds_everyone_in_it_back_and_is_flagged() -> None:
    ranked = rows((1, 1, 1), (2, 1, 1), (3, 1, 3), (4, 2, 1), (5, 2, 2))
    advancing, ties = advance(ranked, per_table=1)
    assert advancing == {4}
    assert ties == [Tie(1, (1, 2), 1)]


def test_a_tie_below_or_inside_the_line_decides_nothing() -> None:
    ranked = rows((1, 1, 1), (2, 1, 2), (3, 1, 2), (4, 1, 4))
    assert advance(ranked, per_table=1) == ({1}, [])
    assert advance(ranked, per_table=2) == ({1}, [Tie(1, (2, 3), 2)])
    assert advance(ranked, per_table=3) == ({1, 2, 3}, [])


def test_mid_stage_a_tie_is_just_the_score_so_far() -> None:
    ranked = rows((1, 1, 1), (2, 1, 1), (3, 2, 1))
    advancing, ties = advance(ranked, per_table=1, finished={2})
    assert advancing == {3} and ties == []


def test_who_may_not_advance_gives_their_place_to_the_next() -> None:
    ranked = rows((1, 1, 1), (2, 1, 2), (3, 1, 3))
    assert advance(ranked, per_table=1, eligible={2, 3}) == ({2}, [])


def test_wildcards_go_to_the_best_of_the_others_overall() -> None:
    ranked = rows((1, 1, 1), (2, 1, 2), (3, 2, 1), (4, 2, 3))
    assert advance(ranked, per_table=1, wildcards=1) == ({1, 2, 3}, [])


def test_a_tie_for_the_last_wildcard_is_flagged_once_every_table_has_finished() -> None:
    ranked = rows((1, 1, 1), (2, 1, 2), (3, 2, 1), (4, 2, 2))
    assert advance(ranked, per_table=1, wildcards=1) == ({1, 3}, [Tie(None, (2, 4), 3)])
    assert advance(ranked, per_table=1, wildcards=1, finished={1}) == ({1, 3}, [])


def test_a_decision_breaks_the_tie_it_orders() -> None:
    records = [record(1, {1: 5}), record(2, {1: 5}), record(3, {1: 0}, table=2, won=(1,))]
    advancing, ties = advance(rank_players(records), per_table=1)
    assert advancing == {3} and ties == [Tie(1, (1, 2), 1)]
    decided = rank_players(records, decisions=[Decision((2, 1), "tiebreak_round")])
    assert advance(decided, per_table=1) == ({2, 3}, [])


def test_a_table_sends_at_least_one() -> None:
    with pytest.raises(ValueError, match="per_table"):
        advancement([], eligible=set(), per_table=0, finished=set(), tables=set())


def test_the_finals_ties_for_first_and_second_are_flagged_and_further_down_share_their_place():
    ranked = [
        Ranked(1, 1, 1, 1, 0, 0, 0, True, True),
        Ranked(2, 1, 1, 1, 0, 0, 0, True, True),
        Ranked(3, 1, 3, 3, 5, 0, 0, True, True),
        Ranked(4, 1, 3, 3, 5, 0, 0, True, True),
    ]
    assert final_ties(ranked, active={1, 2, 3, 4}, finished={1}) == [Tie(1, (1, 2), 1, True)]
    assert final_ties(ranked, active={1, 2, 3, 4}, finished=set()) == []
    assert final_ties(ranked, active={1, 3, 4}, finished={1}) == [Tie(1, (1,), 1, True)]


# ---- properties, over rankings with many ties ------------------------------------------------


@st.composite
def stages(draw: st.DrawFn) -> dict:
    records = [r for r in draw(player_records()) if r.table is not None]
    ranked = rank_players(records)
    tables = {row.table for row in ranked}
    ids = sorted(everyone(ranked))
    return {
        "ranked": ranked,
        "eligible": set(draw(st.sets(st.sampled_from(ids)))) if ids else set(),
        "per_table": draw(st.integers(1, 3)),
        "wildcards": draw(st.integers(0, 3)),
        "finished": set(draw(st.sets(st.sampled_from(sorted(tables))))) if tables else set(),
        "tables": tables,
    }


def at_table(stage: dict) -> dict[int, list[Ranked]]:
    """Each table's eligible rows, best first."""
    found: dict[int, list[Ranked]] = defaultdict(list)
    for row in sorted(stage["ranked"], key=lambda r: (r.table_rank, r.player_id)):
        if row.player_id in stage["eligible"]:
            found[row.table].append(row)
    return found


@given(stages())
def test_only_eligible_players_advance_and_never_more_than_the_places(stage: dict) -> None:
    advancing, _ = advancement(**stage)
    assert advancing <= stage["eligible"]
    assert len(advancing) <= stage["per_table"] * len(stage["tables"]) + stage["wildcards"]


@given(stages())
def test_without_a_tie_across_its_line_a_table_sends_its_best(stage: dict) -> None:
    advancing, ties = advancement(**stage)
    k = stage["per_table"]
    for table, rows_here in at_table(stage).items():
        straddles = len(rows_here) > k and rows_here[k].table_rank == rows_here[k - 1].table_rank
        if not straddles:
            assert {r.player_id for r in rows_here[:k]} <= advancing
        else:
            line = rows_here[k - 1].table_rank
            held = {r.player_id for r in rows_here if r.table_rank == line}
            assert {r.player_id for r in rows_here if r.table_rank < line} <= advancing
            flagged = [tie for tie in ties if tie.table == table]
            if table in stage["finished"]:
                assert flagged == [Tie(table, tuple(sorted(held)), line)]
            else:
                assert flagged == []


@given(stages())
def test_every_flagged_tie_shares_one_place_and_holds_its_players_back(stage: dict) -> None:
    advancing, ties = advancement(**stage)
    rank_of = {row.player_id: row for row in stage["ranked"]}
    for tie in ties:
        assert len(tie.players) >= 2
        if tie.table is None:  # the last wildcard: only once every table has finished
            assert stage["tables"] <= stage["finished"]
            assert {rank_of[p].rank for p in tie.players} == {tie.place}
        else:
            assert tie.table in stage["finished"]
            assert {rank_of[p].table_rank for p in tie.players} == {tie.place}
            if not stage["wildcards"]:  # (a wildcard may still take a player held back here)
                assert not set(tie.players) & advancing


@given(stages())
def test_a_ranking_without_ties_fills_every_place_it_can(stage: dict) -> None:
    ranked = stage["ranked"]
    if any(row.table_tied or row.tied for row in ranked):
        return
    advancing, ties = advancement(**stage)
    assert ties == []
    table_places = sum(min(stage["per_table"], len(r)) for r in at_table(stage).values())
    others = len(stage["eligible"]) - table_places
    assert len(advancing) == table_places + min(stage["wildcards"], others)


@given(stages())
def test_a_decision_that_orders_a_flagged_table_tie_resolves_it(stage: dict) -> None:
    _, ties = advancement(**stage)
    table_ties = [tie for tie in ties if tie.table is not None]
    if not table_ties:
        return
    tie = table_ties[0]
    records = [
        PlayerRecord(r.player_id, r.table, {1: r.total}, frozenset()) for r in stage["ranked"]
    ]
    # Re-ranked from totals alone, with a decision ordering the tied players: they no longer share
    # their table's place, so this tie is not flagged again.
    decided = rank_players(records, tiebreaks=(), decisions=[Decision(tie.players, "draw")])
    again = advancement(**{**stage, "ranked": decided})[1]
    assert all(set(other.players) != set(tie.players) for other in again)
