"""What the services refuse, and how the API and the pages say it: one table for every app.

The services raise Django's ValidationError (the input is wrong) or a Refused that names its kind
(tournaments.exceptions: a StateConflict when the state forbids it; scoring.exceptions: a version
or an Idempotency-Key the request got wrong); none of them knows HTTP. The API's error handler
(config.api) and the pages read the status and the text here."""

from django.core.exceptions import ValidationError

STATUS = {
    "conflict": 409,
    "version-changed": 412,  # Precondition Failed: the If-Match names an older version
    "key-reused": 422,  # the Idempotency-Key was used before, with another request
    "version-required": 428,  # Precondition Required: replacing needs If-Match
    "unusual-unchecked": 400,  # scores to check first, for a sender that asked (handling=strict)
}


def refusal_status(error: Exception) -> int:
    """The HTTP status of a refusal: 400 for a wrong input, else its kind's (409 by default)."""
    if isinstance(error, ValidationError):
        return 400
    return STATUS.get(getattr(error, "kind", ""), 409)


def refusal_text(error: Exception) -> str:
    """A refusal said in one line, for a page's message."""
    if isinstance(error, ValidationError):
        return " ".join(error.messages)
    return str(error)
