"""A table opened for late players from round S: like with like counts it from S (it holds
nobody back for rounds it never had), and its players' missed rounds score a usual table's
high (rules.progress.ranked_through's first_rounds, rules.typical_table_high)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.rules import missed_round_scores, ranked_through, typical_table_high

ROUNDS = 5


def test_a_table_that_joins_at_round_3_does_not_hold_everyone_at_round_0():
    table_rounds = {1: {1, 2, 3}, 2: {1, 2}, 3: set()}
    assert ranked_through(table_rounds, [1, 2, 3], ROUNDS, {3: 3}) == 2
    table_rounds[3] = {3}
    table_rounds[2].add(3)
    assert ranked_through(table_rounds, [1, 2, 3], ROUNDS, {3: 3}) == 3
    # Once the others are past its first round, it is a table like any other.
    table_rounds[1].add(4)
    table_rounds[2].add(4)
    assert ranked_through(table_rounds, [1, 2, 3], ROUNDS, {3: 3}) == 3


@st.composite
def stages(draw):
    """Tables reporting in order; some opened late, from a round after 1."""
    tables = draw(st.integers(1, 5))
    first = {t: draw(st.integers(1, ROUNDS)) for t in range(1, tables + 1)}
    done = {t: draw(st.integers(first[t] - 1, ROUNDS)) for t in first}
    table_rounds = {t: set(range(first[t], done[t] + 1)) for t in first}
    return table_rounds, first, done


@given(stages())
def test_each_table_counts_from_its_first_round(stage):
    table_rounds, first, done = stage
    through = ranked_through(table_rounds, table_rounds, ROUNDS, first)
    # The last round every table has (by playing it or by joining after it).
    assert through == min(done.values())


@given(stages())
def test_tables_from_round_1_rank_as_before(stage):
    table_rounds, first, _ = stage
    from_start = {t: rounds for t, rounds in table_rounds.items() if first[t] == 1}
    assert ranked_through(from_start, from_start, ROUNDS, {t: 1 for t in from_start}) == (
        ranked_through(from_start, from_start, ROUNDS)
    )


@given(stages())
def test_a_late_table_never_ranks_a_round_past_what_every_table_played(stage):
    table_rounds, first, _ = stage
    through = ranked_through(table_rounds, table_rounds, ROUNDS, first)
    for table, rounds in table_rounds.items():
        assert all(r in rounds or r < first[table] for r in range(1, through + 1))


@given(st.lists(st.integers(0, 400), min_size=1, max_size=40))
def test_a_missed_round_scores_a_usual_tables_high_never_less(highs):
    typical = typical_table_high(highs)
    assert min(highs) <= typical <= max(highs)
    assert typical * len(highs) >= sum(highs) > (typical - 1) * len(highs)


def test_a_round_nobody_played_has_no_typical_high():
    with pytest.raises(ValueError):
        typical_table_high([])


def test_the_late_tables_players_score_the_typical_high_under_table_high_zero_under_zero():
    rounds = {1: {0: typical_table_high([30, 41])}, 2: {0: typical_table_high([10, 13])}}
    assert missed_round_scores(table_rounds=rounds, from_round=3, rule="table_high") == {
        1: 36,
        2: 12,
    }
    assert missed_round_scores(table_rounds=rounds, from_round=3, rule="zero") == {1: 0, 2: 0}
