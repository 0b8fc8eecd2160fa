"""What the round-result services refuse for the request's own sake, beside the rules'
ValidationError and the stage's StateConflict. They say what happened, not how a page or the API
answers it: the API's error handler (config/api.py) and the pages (config/refusals.py) each say
it in their own terms."""

from typing import Any


class VersionRequired(Exception):
    """The round already has a result: replacing it needs the version it replaces (If-Match)."""


class VersionChanged(Exception):
    """The version named is no longer the current one; `current` is the result as it is now."""

    def __init__(self, message: str, current: Any) -> None:
        super().__init__(message)
        self.current = current


class KeyReused(Exception):
    """The Idempotency-Key was used before, with another request."""
