"""A practice tournament's reset: its seats, results and placings removed, so that the real event
starts from it with the same players and settings."""

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils.translation import gettext as _

from scoring import standings
from scoring.models import Placing, RoundResult, StandingRow, TiebreakDecision
from tables.models import Seat, Table
from tournaments.exceptions import StateConflict
from tournaments.models import Stage, StageClock, Tournament
from tournaments.signals import stages_changed


def not_practice(tournament: Tournament) -> StateConflict:
    """The refusal of a reset of a real event."""
    return StateConflict(
        _(
            "%(name)s is not a practice tournament: its seats and results cannot be reset. "
            "Correct a result, or unseat a stage, instead."
        )
        % {"name": tournament.name}
    )


@transaction.atomic
def reset_practice(*, tournament: Tournament, by: AbstractBaseUser) -> Tournament:
    """Empty a practice tournament of its play: every seat, result, tie-break decision, standing
    and placing removed, the stages a close created (Stage.made_by_close) removed and the others
    pending again, their clocks gone. Its players (checked in or not, withdrawn or not), divisions,
    stages' settings and staff stay. StateConflict for a tournament that is not practice, and
    nothing changes. Resetting twice is harmless."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if not tournament.practice:
        raise not_practice(tournament)
    stages = Stage.objects.select_for_update().filter(tournament=tournament)
    # The stages' own rows of play first: results hold their scores, whose players are protected.
    RoundResult.objects.filter(stage__in=stages).delete()
    TiebreakDecision.objects.filter(stage__in=stages).delete()
    Placing.objects.filter(tournament=tournament).delete()
    StandingRow.objects.filter(stage__in=stages).delete()
    Seat.objects.filter(stage__in=stages).delete()
    Table.objects.filter(stage__in=stages).delete()
    StageClock.objects.filter(stage__in=stages).delete()
    Stage.objects.filter(tournament=tournament, made_by_close=True).delete()
    kept = Stage.objects.filter(tournament=tournament)
    kept.update(
        status=Stage.Status.PENDING,
        source_stage=None,
        seed=None,
        seating_report={},
        advance_problem="",
    )
    # A new snapshot of each (empty): their pages' versions move on, never back to one a copy
    # of the rehearsal was kept under.
    for stage in kept:
        standings.request_rebuild(stage)
    stages_changed.send(sender=Tournament, tournament=tournament)
    return tournament
