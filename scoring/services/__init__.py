"""Every change of round results and tie-break decisions, one module for each concern:
`results` (submit, replace, correct, confirm), `bodies` (a result's body, read and answered),
`idempotency` (the Idempotency-Key store), `paper` (the CSV upload of paper score sheets) and
`tiebreaks`. The names other modules use are importable from here."""

from scoring.services.bodies import result_body, warnings_body
from scoring.services.paper import import_scores
from scoring.services.results import (
    Outcome,
    RequestMeta,
    confirm_round_result,
    confirm_table_round,
    seated_for_round,
    submit_round_result,
)
from scoring.services.tiebreaks import record_tiebreak

__all__ = [
    "Outcome",
    "RequestMeta",
    "confirm_round_result",
    "confirm_table_round",
    "import_scores",
    "record_tiebreak",
    "result_body",
    "seated_for_round",
    "submit_round_result",
    "warnings_body",
]
