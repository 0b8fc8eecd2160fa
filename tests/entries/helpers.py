"""A tournament taking entries, and entries sent as an entrant would."""

from datetime import timedelta

from django.utils import timezone

from entries.services import entering
from tests import factories


def open_tournament(**fields):
    """A tournament whose entries opened an hour ago and close in a week."""
    now = timezone.now()
    defaults = {
        "entries_open_at": now - timedelta(hours=1),
        "entries_close_at": now + timedelta(days=7),
    }
    return factories.TournamentFactory(**{**defaults, **fields})


def enter(tournament, name: str, email: str | None = None, **fields):
    details = entering.Details(
        name=name, email=email or f"{name.split()[0].lower()}@example.org", **fields
    )
    return entering.enter(tournament=tournament, details=details, origin="http://testserver")
