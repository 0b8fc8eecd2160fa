"""Every change of scoring's state, one module for each concern: `results` (submit, replace,
correct, confirm), `bodies` (a result's body, read and answered), `idempotency` (the
Idempotency-Key store), `paper` (the CSV upload of paper score sheets) and `tiebreaks`; the
stages' changes: `closing` (a stage's close and what follows it), `reopen` (a close undone),
`games` and `game_close` (a game seated from the game before, and closed by itself), `clock` (a
time limit's clock) and `practice` (a practice tournament's reset). The names of the result
services are importable from here; the stages' modules are imported as modules
(`from scoring.services import closing`)."""

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
