"""rules.progress: mid-stage, the ranking counts the rounds every table has confirmed, so nobody
stands above another for having played fewer rounds; with every round in, it is the final rule."""

from hypothesis import given
from hypothesis import strategies as st

from scoring.rules import PlayerRecord, counting_through, rank_players, ranked_through

ROUNDS = 4


def test_the_last_round_every_table_has_confirmed_with_every_round_before_it():
    assert ranked_through({1: {1, 2, 3}, 2: {1, 2}}, [1, 2], ROUNDS) == 2
    assert ranked_through({1: {1, 2, 3}, 2: {2, 3}}, [1, 2], ROUNDS) == 0  # round 1 missing
    assert ranked_through({1: {1, 2}}, [1, 2], ROUNDS) == 0  # table 2 has reported nothing
    assert ranked_through({1: {1, 2, 3, 4}, 2: {1, 2, 3, 4}}, [1, 2], ROUNDS) == ROUNDS


def test_a_record_counts_only_the_rounds_the_ranking_counts():
    record = PlayerRecord(7, 1, {1: 5, 2: 0, 3: 9}, frozenset({2, 3}), carried=4, missed=2)
    counted = counting_through(record, 2, missed_rounds={1, 2})
    assert (counted.scores, counted.went_out, counted.total) == ({1: 5, 2: 0}, {2}, 9)
    assert (counted.rounds_won, counted.missed) == (1, 2)
    assert counting_through(record, 3) is record  # nothing beyond: the record itself


@st.composite
def stages(draw):
    """Tables of players who each scored in the rounds their table has confirmed (tables report
    at their own pace, in order), with small pips so that ties are common."""
    tables = draw(st.integers(1, 4))
    reported = {t: draw(st.integers(0, ROUNDS)) for t in range(1, tables + 1)}
    records, player_id = [], 0
    for table, done in reported.items():
        for _ in range(draw(st.integers(2, 4))):
            player_id += 1
            scores = {r: draw(st.integers(0, 4)) for r in range(1, done + 1)}
            won = frozenset(r for r in scores if scores[r] == 0)
            records.append(PlayerRecord(player_id, table, scores, won))
    table_rounds = {t: set(range(1, done + 1)) for t, done in reported.items()}
    return records, table_rounds


@given(stages())
def test_nobody_stands_above_another_for_having_played_fewer_rounds(stage):
    records, table_rounds = stage
    through = ranked_through(table_rounds, table_rounds, ROUNDS)
    ranked = rank_players([counting_through(r, through) for r in records])
    assert {row.rounds_played for row in ranked} <= {through}  # like with like, everyone
    by_id = {r.player_id: r for r in records}
    for row in ranked:  # and each counts exactly its rounds 1 to `through`
        assert row.total == sum(p for r, p in by_id[row.player_id].scores.items() if r <= through)


@given(stages())
def test_with_every_round_in_the_ranking_is_the_final_rules(stage):
    records, table_rounds = stage
    complete = {t: set(range(1, ROUNDS + 1)) for t in table_rounds}
    full = [
        PlayerRecord(r.player_id, r.table, {n: r.scores.get(n, 3) for n in range(1, ROUNDS + 1)})
        for r in records
    ]
    through = ranked_through(complete, complete, ROUNDS)
    assert through == ROUNDS
    assert rank_players([counting_through(r, through) for r in full]) == rank_players(full)
