"""What the services refuse, without saying how a page or the API says it.

Every refusal but a wrong input (Django's ValidationError) is a Refused, and names its `kind`;
config/refusals.py says what each kind is on the web and in the API, for every app."""


class Refused(Exception):
    """A request a service refuses for a reason other than its input; the message says why."""

    kind = "refused"


class StateConflict(Refused):
    """The request is valid but the current state forbids it; the message says what to do."""

    kind = "conflict"


class PreviewOutdated(StateConflict):
    """What a preview showed is no longer what applying it would do: the state changed since."""
