"""What entries does when tables, scoring or tournaments tell it something changed (none imports
entries): mail the players, once the change is committed (a seating in a worker's transaction,
or rolled back, tells nobody), and offer the places a tournament's change freed. The mail
receivers only register the mail for after the commit (entries/services/notices.py decides who
is told, once)."""

from typing import Any

from django.db import transaction

from entries.services import entering, notices
from tournaments.models import Stage, Tournament


def seats_to_tell(sender: Any, *, stage: Stage, **kwargs: Any) -> None:
    """seating_changed: tell the players of the stage their new seats (a seat told once)."""
    stage_id = stage.pk
    transaction.on_commit(lambda: notices.tell_seats(stage_id), robust=True)


def results_to_tell(sender: Any, *, tournament: Tournament, **kwargs: Any) -> None:
    """placings_decided (sent after the commit): tell the placed players their place (nothing
    when the placings were taken away by a reopen)."""
    tournament_id = tournament.pk
    transaction.on_commit(lambda: notices.tell_results(tournament_id), robust=True)


def entries_settings_changed(sender: Any, *, tournament: Tournament, **kwargs: Any) -> None:
    """tournament_changed (its cap raised, its entries' times or waitlist, say): the places it
    freed are offered to the waitlist at once, and offers that ran out pass on, as each entry's
    write does. Runs in the sender's transaction; the offers are mailed after its commit."""
    entering.apply_expiry(tournament)
