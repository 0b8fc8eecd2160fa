"""missed_round_scores: what a late entry scores for the rounds before they sat down."""

import pytest

from scoring.rules import missed_round_scores

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
