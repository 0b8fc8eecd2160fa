"""What the services refuse, without saying how a page or the API says it."""


class StateConflict(Exception):
    """The request is valid but the current state forbids it; the message says what to do."""
