"""What tables does when tournaments tells it something (tournaments/signals.py), and when a
seat's phone signs out."""

from tables import reporting
from tables.models import SeatClaim
from tournaments.models import Stage


def reporting_changed(sender: type[Stage], stage: Stage, **kwargs) -> None:
    """Who enters the stage's rounds changed: the seats' phones follow at once."""
    reporting.stage_reporting_changed(stage)


def seat_left(sender, request, user, **kwargs) -> None:
    """ "Leave this seat": the phone's claim ends with its session (its token with it), so that
    a phone left on the table reaches nothing."""
    if user is not None and reporting.claim_of(user) is not None:
        reporting.end_claims(SeatClaim.objects.filter(user=user))
