"""What a close makes, a reopen unmakes: the next stage's seats (a stage the close created goes
with them) and the placings. Reopened only while nothing was entered in what the close made, so
that nothing a person entered is ever dropped to undo a step; the close that follows seats the
next stage again and says who moved (note_who_moved).
"""

from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext as _

from scoring import signals, standings
from scoring.models import Placing
from scoring.services import games
from tables.models import Seat
from tables.services import clear_seating
from tournaments.exceptions import StateConflict
from tournaments.models import Stage, Tournament
from tournaments.permissions import is_organiser
from tournaments.services.stage_changes import (
    check_reopenable,
    closed_message,
    lock_later_stages,
    lock_stage,
)
from tournaments.signals import stages_changed


@dataclass
class Undone:
    """What reopening a closed stage undoes, for the page that asks first."""

    stage: Stage
    following: Stage | None = None  # the stage its close seated
    removed: bool = False  # that stage was made by the close: it goes
    tables: int = 0  # the following stage's tables, whose cards are printed
    placings: int = 0
    refusal: str = ""  # why it cannot be undone (a later stage has results), or ""
    later: list[Stage] = field(default_factory=list)


def _made_by(stage: Stage) -> Stage | None:
    return Stage.objects.filter(source_stage=stage).first()


def _removable(following: Stage) -> bool:
    """A stage the close created is removed, unless the organiser added one after it since."""
    return (
        following.made_by_close
        and not Stage.objects.filter(
            tournament_id=following.tournament_id, order__gt=following.order
        ).exists()
    )


def what_reopening_undoes(stage: Stage, *, correction: bool = False) -> Undone:
    """What reopening the closed `stage` would undo now (read without locks, for the page)."""
    undone = Undone(stage=stage)
    try:
        check_reopenable(stage, correction=correction)
    except StateConflict as refusal:
        undone.refusal = str(refusal)
    following = _made_by(stage)
    if following is not None:
        undone.following = following
        undone.removed = _removable(following)
        undone.tables = following.tables.count()
    undone.placings = Placing.objects.filter(tournament_id=stage.tournament_id).count()
    return undone


def reopen_locked(stage: Stage) -> Stage:
    """Reopen the closed `stage`, whose lock the caller holds `alone`: refused (StateConflict)
    while a later stage has a result; the stage its close seated loses its seats (removed when
    the close made it) and the placings go. The pages follow after the commit."""
    tournament = Tournament.objects.select_for_update().get(pk=stage.tournament_id)
    lock_later_stages(stage)  # no result entered, nor a stage seated, while this undoes them
    check_reopenable(stage)
    following = _made_by(stage)
    if following is not None:
        stage.undone_next_seats = {
            str(player): table
            for player, table in Seat.objects.filter(stage=following).values_list(
                "player_id", "table__number"
            )
        }
        if _removable(following):
            following.delete()  # its tables, seats and standings go with it
        else:
            clear_seating(following)
    placed = Placing.objects.filter(tournament=tournament).delete()[0]
    stage.status, stage.advance_problem = Stage.Status.SEATED, ""
    stage.save(update_fields=["status", "advance_problem", "undone_next_seats"])
    if placed:  # a club's season ladder drops the event until it is placed again
        transaction.on_commit(
            lambda: signals.placings_decided.send(sender=Placing, tournament=tournament),
            robust=True,
        )
    stages_changed.send(sender=Stage, tournament=tournament)  # what follows, on every page
    standings.request_rebuild(stage)
    return stage


@transaction.atomic
def reopen_stage(*, stage: Stage, by: AbstractBaseUser) -> Stage:
    """Reopen the tournament's last closed stage (reopen_locked); reopening a seated stage is
    harmless. A game whose next game is seated from it stays open until an organiser closes it,
    or a correction of its results is confirmed (the sweeper leaves it alone: REOPENED)."""
    stage = lock_stage(stage.pk, alone=True)
    if stage.status == Stage.Status.SEATED:
        return stage
    if stage.status == Stage.Status.PENDING:
        raise StateConflict(
            _("%(stage)s is not seated yet: there is nothing to reopen.")
            % {"stage": stage.display_name}
        )
    stage = reopen_locked(stage)
    if games.next_game(stage) is None:
        return stage
    # Kept, in the site's language as the console reads it, as the reason the sweeper does not
    # close it again by itself (scoring.services.game_close).
    with translation.override(settings.LANGUAGE_CODE):
        stage.advance_problem = _(
            "%(stage)s was reopened by an organiser: close it again when it is ready."
        ) % {"stage": stage.display_name}
    stage.save(update_fields=["advance_problem"])
    return stage


def check_correction(stage: Stage, *, by: AbstractBaseUser) -> None:
    """StateConflict unless `by` may correct a result of the closed `stage` now: an organiser,
    while no later stage has a result."""
    if not is_organiser(by, stage.tournament):
        raise StateConflict(closed_message(stage, "results"))
    check_reopenable(stage, correction=True)


def note_who_moved(source: Stage, seated: Stage) -> None:
    """After the close of a reopened `source` seated `seated` again: keep in its seating report
    who sits elsewhere than before the reopen (the stage page says it), and forget the old
    seats."""
    if not source.undone_next_seats:
        return
    before = {int(player): table for player, table in source.undone_next_seats.items()}
    Stage.objects.filter(pk=source.pk).update(undone_next_seats={})
    after = dict(Seat.objects.filter(stage=seated).values_list("player_id", "table__number"))
    moved = [
        {"player": player, "was": before.get(player), "now": after.get(player)}
        for player in sorted(set(before) | set(after))
        if before.get(player) != after.get(player)
    ]
    report = {**seated.seating_report, "seated_again": True, "moved": moved}
    Stage.objects.filter(pk=seated.pk).update(seating_report=report)
    seated.seating_report = report
