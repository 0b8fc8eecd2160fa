"""What the round-result services refuse for the request's own sake, beside the rules'
ValidationError and the stage's StateConflict. They say what happened, not how a page or the API
answers it: config/refusals.py says that for each `kind`, for the API's error handler and the
pages alike."""

from typing import Any

from tournaments.exceptions import Refused


class VersionRequired(Refused):
    """The round already has a result: replacing it needs the version it replaces (If-Match)."""

    kind = "version-required"


class VersionChanged(Refused):
    """The version named is no longer the current one; `current` is the result as it is now."""

    kind = "version-changed"

    def __init__(self, message: str, current: Any) -> None:
        super().__init__(message)
        self.current = current


class KeyReused(Refused):
    """The Idempotency-Key was used before, with another request."""

    kind = "key-reused"


class UnusualScores(Refused):
    """Scores the deal makes unusual (scoring.rules.plausibility), not yet checked by the
    official, from a sender that asked to be told before they are stored (the entry page:
    `Prefer: handling=strict`). `warnings` are the rules' PipsWarning; `names` player id -> name;
    `errors` the body's other problems, said with them (the ValidationError's messages by key)."""

    kind = "unusual-unchecked"

    def __init__(
        self,
        message: str,
        warnings: list,
        names: dict[int, str],
        errors: dict[str, list[str]] | None = None,
    ) -> None:
        super().__init__(message)
        self.warnings = warnings
        self.names = names
        self.errors = errors or {}


class NoResult(Exception):
    """The table has no result for the round: nothing to confirm (the API answers its 404)."""
