"""What the services refuse, and how the API and the pages say it: one table for both.

The services raise Django's ValidationError (the input is wrong), StateConflict (the state forbids
it: a closed stage, a tournament that is over) and the round-result refusals of scoring.exceptions;
none of them knows HTTP. The API's error handler (config.api) and the pages read their status and
their text here."""

from django.core.exceptions import ValidationError

from scoring.exceptions import KeyReused, VersionChanged, VersionRequired
from tournaments.exceptions import StateConflict

STATUS: dict[type[Exception], int] = {
    ValidationError: 400,
    StateConflict: 409,
    VersionChanged: 412,  # Precondition Failed: the If-Match names an older version
    KeyReused: 422,  # the Idempotency-Key was used before, with another request
    VersionRequired: 428,  # Precondition Required: replacing needs If-Match
}
REFUSALS = tuple(STATUS)


def refusal_status(error: Exception) -> int:
    """The HTTP status of a refusal (a class or subclass of one in STATUS)."""
    return next(status for kind, status in STATUS.items() if isinstance(error, kind))


def refusal_text(error: Exception) -> str:
    """A refusal said in one line, for a page's message."""
    if isinstance(error, ValidationError):
        return " ".join(error.messages)
    return str(error)
