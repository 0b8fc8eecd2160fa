"""The late-entry, tie-break and decision names have one source, the model choices
(tournaments.choices, scoring.choices): the models' fields and constraints and the pure rules
read them from there."""

import subprocess
import sys

import pytest
from django.conf import settings

from scoring import rules
from scoring.choices import DecisionMethod
from scoring.models import TiebreakDecision
from tournaments.choices import DEFAULT_TIEBREAKS, LateEntryRule, Tiebreak
from tournaments.models import Stage, Tournament


def checked_values(model, name: str) -> list[str]:
    """The values a model's CheckConstraint `name` allows (a single `field__in` condition)."""
    (constraint,) = [c for c in model._meta.constraints if c.name == name]
    ((_, values),) = constraint.condition.children
    return values


def test_the_models_choose_and_check_the_names_of_the_choices_modules() -> None:
    assert Stage.LateEntryRule is LateEntryRule
    assert Stage._meta.get_field("late_entry_rule").choices == LateEntryRule.choices
    assert checked_values(Stage, "tournaments_stage_late_entry_rule_known") == LateEntryRule.values
    assert TiebreakDecision.Method is DecisionMethod
    assert TiebreakDecision._meta.get_field("method").choices == DecisionMethod.choices
    assert (
        checked_values(TiebreakDecision, "scoring_tiebreakdecision_method_known")
        == DecisionMethod.values
    )


def test_every_tiebreak_name_has_a_rule_and_a_new_tournament_orders_the_default() -> None:
    assert set(rules.TIEBREAK_RULES) == set(Tiebreak.values)
    assert rules.DEFAULT_TIEBREAKS == DEFAULT_TIEBREAKS == ("rounds_won", "countback")
    assert Tournament().tiebreak_rules == list(DEFAULT_TIEBREAKS)


def test_the_rules_take_every_decision_method_and_late_entry_rule_and_no_other() -> None:
    for method in DecisionMethod.values:
        assert rules.Decision((1, 2), method).method == method
    for rule in LateEntryRule.values:
        assert rules.missed_round_scores(table_rounds={1: {1: 5}}, from_round=2, rule=rule)
    with pytest.raises(ValueError, match="tiebreak_round, draw"):
        rules.Decision((1, 2), "coin_toss")
    with pytest.raises(ValueError, match="table_high, zero, no_advance"):
        rules.missed_round_scores(table_rounds={}, from_round=1, rule="half")


def test_the_rules_import_the_choices_without_any_app_models() -> None:
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, scoring.rules; print(' '.join(sorted(sys.modules)))",
        ],
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert {"scoring.choices", "tournaments.choices"} <= set(loaded)
    assert not [name for name in loaded if name.endswith(".models") and "django" not in name]
