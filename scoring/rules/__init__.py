"""Pure scoring rules: no ORM, records in and plain values out (vocabulary as in DESIGN.md).

- `ranking`: the ranking and its tie-break rules (most rounds won, countback, decisions);
- `advancement`: who advances from ranked tables, wildcards, and the ties that decide it;
- `late_entries`: what a late entry scores for the rounds they missed;
- `progress`: like with like mid-stage, the ranking counts the rounds every table has confirmed;
- `validation`: the validation of one round result.

The names other modules use are importable from here."""

from scoring.rules.advancement import FINAL_PLACES_DECIDED, Tie, advancement, final_ties
from scoring.rules.late_entries import missed_round_scores
from scoring.rules.progress import counting_through, ranked_through
from scoring.rules.ranking import (
    DEFAULT_TIEBREAKS,
    TIEBREAK_RULES,
    Decision,
    PlayerRecord,
    Ranked,
    TiebreakRule,
    rank_players,
)
from scoring.rules.validation import (
    BLOCKED_WENT_OUT,
    NOBODY_WENT_OUT,
    PIPS_MESSAGE,
    WENT_OUT_MESSAGE,
    WENT_OUT_SCORES_ZERO,
    ScoreLine,
    parse_pips,
    validate_round,
)

__all__ = [
    "BLOCKED_WENT_OUT",
    "DEFAULT_TIEBREAKS",
    "FINAL_PLACES_DECIDED",
    "NOBODY_WENT_OUT",
    "PIPS_MESSAGE",
    "TIEBREAK_RULES",
    "WENT_OUT_MESSAGE",
    "WENT_OUT_SCORES_ZERO",
    "Decision",
    "PlayerRecord",
    "Ranked",
    "ScoreLine",
    "Tie",
    "TiebreakRule",
    "advancement",
    "counting_through",
    "final_ties",
    "missed_round_scores",
    "parse_pips",
    "rank_players",
    "ranked_through",
    "validate_round",
]
