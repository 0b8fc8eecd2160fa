"""The names a stage's late-entry rule and a tournament's tie-break rules are stored under: the
one list of them, for the models (choices and constraints) and for scoring.rules alike. Nothing
but Django's enums here, so that the pure rules can import it without the ORM's models."""

from django.db.models.enums import TextChoices
from django.utils.translation import gettext_lazy as _


class LateEntryRule(TextChoices):
    """What a late entry scores for the rounds their table played before they sat down
    (scoring.rules.missed_round_scores)."""

    TABLE_HIGH = "table_high", _("Highest score at the table for each missed round")
    ZERO = "zero", _("Zero for each missed round")
    NO_ADVANCE = "no_advance", _("Missed rounds score nothing, and the player cannot advance")


class Tiebreak(TextChoices):
    """The tie-break rules a tournament orders in Tournament.tiebreak_rules, after the total
    (what each does: scoring.rules.TIEBREAK_RULES)."""

    ROUNDS_WON = "rounds_won", _("Most rounds won")
    COUNTBACK = "countback", _("Countback from the last round")


class Follows(TextChoices):
    """What follows a stage once it closes (StageQuerySet.what_follows): everyone plays the later
    qualifying stage (nobody advances), the placings are decided (a final, or a stage that
    places everyone by total), or its advancers are seated at the next playoff level."""

    QUALIFYING = "qualifying"
    PLACINGS = "placings"
    PLAYOFF = "playoff"


# A new tournament's order: most rounds won, then countback from the last round (docs/DESIGN.md).
DEFAULT_TIEBREAKS = (Tiebreak.ROUNDS_WON.value, Tiebreak.COUNTBACK.value)
