"""What entries does when tables or scoring tell it something changed (neither imports entries):
mail the players, once the change is committed (a seating in a worker's transaction, or rolled
back, tells nobody). Each receiver only registers the mail for after the commit
(entries/services/notices.py decides who is told, once)."""

from typing import Any

from django.db import transaction

from entries.services import notices
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
