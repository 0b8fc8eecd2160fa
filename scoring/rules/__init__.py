"""Pure scoring rules: no ORM, records in and plain values out (vocabulary as in docs/DESIGN.md).

- `ranking`: the ranking and its tie-break rules (most rounds won, countback, decisions);
- `advancement`: who advances from ranked tables, wildcards, and the ties that decide it;
- `late_entries`: what a late entry scores for the rounds they missed;
- `progress`: like with like mid-stage, the ranking counts the rounds every table has confirmed;
- `validation`: the validation of one round result;
- `plausibility`: the scores a deal makes unusual, asked about and flagged, never refused.

The names other modules use are importable from here."""

from scoring.rules.advancement import FINAL_PLACES_DECIDED, Tie, advancement, final_ties
from scoring.rules.late_entries import missed_round_scores, typical_table_high
from scoring.rules.plausibility import (
    PipsWarning,
    flag_message,
    tiles_dealt,
    unusual_scores,
    warning_message,
)
from scoring.rules.progress import counting_through, decided, ranked_through
from scoring.rules.ranking import (
    DEFAULT_TIEBREAKS,
    TIEBREAK_RULES,
    Decision,
    PlayerRecord,
    Ranked,
    Separation,
    TiebreakRule,
    rank_players,
)
from scoring.rules.validation import (
    BLOCKED_WENT_OUT,
    MISSING_PIPS,
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
    "MISSING_PIPS",
    "NOBODY_WENT_OUT",
    "PIPS_MESSAGE",
    "TIEBREAK_RULES",
    "WENT_OUT_MESSAGE",
    "WENT_OUT_SCORES_ZERO",
    "Decision",
    "PipsWarning",
    "PlayerRecord",
    "Ranked",
    "ScoreLine",
    "Separation",
    "Tie",
    "TiebreakRule",
    "advancement",
    "counting_through",
    "decided",
    "final_ties",
    "flag_message",
    "missed_round_scores",
    "parse_pips",
    "rank_players",
    "ranked_through",
    "tiles_dealt",
    "typical_table_high",
    "unusual_scores",
    "validate_round",
    "warning_message",
]
