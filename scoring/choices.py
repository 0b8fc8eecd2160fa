"""The names a tie-break decision's method is stored under: the one list of them, for the model
(choices and constraint) and for scoring.rules alike. Nothing but Django's enums here, so that
the pure rules can import it without the ORM's models."""

from django.db.models.enums import TextChoices
from django.utils.translation import gettext_lazy as _


class DecisionMethod(TextChoices):
    """How an official broke a tie the rules cannot break (TiebreakDecision.method)."""

    TIEBREAK_ROUND = "tiebreak_round", _("Tie-break round")
    DRAW = "draw", _("Drawing lots")
