"""What a seat's phone may do to a round, and a round disputed until an official settles it.

At a table whose players report (tables/reporting.py), any seat enters a round as an official
would, and it counts once another seat (or an official) confirms it: the seat that entered a
version never confirms it, from any phone. Any seat or official may dispute a submitted or
confirmed round with a note: it then counts nowhere (the standings read confirmed rounds only)
and the officials' board lists it, until an official confirms it as it stands or corrects it
(a correction goes back to be confirmed as any other).
"""

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from scoring import standings
from scoring.exceptions import NoResult
from scoring.models import RoundResult, RoundResultVersion
from scoring.services.bodies import scores_of
from scoring.services.history import RequestMeta, record_version
from tables import reporting
from tables.models import Table
from tournaments.exceptions import StateConflict
from tournaments.services.stage_changes import closed_message, lock_stage
from tournaments.text import unprintable_messages

NOTE_LENGTH = 500


def check_seat_replaces(existing: RoundResult | None, *, by: AbstractBaseUser) -> None:
    """A seat enters a round new or replaces one not yet confirmed; a confirmed or disputed
    round is the officials' to change (StateConflict saying what the seat can do instead)."""
    if existing is None or reporting.claim_of(by) is None:
        return
    if existing.status == RoundResult.Status.DISPUTED:
        raise StateConflict(
            _(
                "Round %(round)s at table %(table)s is disputed: an official corrects or "
                "confirms it. Ask at the desk."
            )
            % {"round": existing.round_no, "table": existing.table.number}
        )
    if existing.status == RoundResult.Status.CONFIRMED:
        raise StateConflict(
            _(
                "Round %(round)s at table %(table)s is confirmed: if it is wrong, dispute it "
                "and an official will correct it."
            )
            % {"round": existing.round_no, "table": existing.table.number}
        )


def check_seat_confirms(result: RoundResult, *, by: AbstractBaseUser) -> None:
    """A seat confirms a round another seat or an official entered, never its own entry nor a
    disputed round (StateConflict). Officials confirm as before (results._confirm)."""
    claim = reporting.claim_of(by)
    if claim is None:
        return
    if result.status == RoundResult.Status.DISPUTED:
        raise StateConflict(
            _(
                "Round %(round)s at table %(table)s is disputed: only an official can confirm "
                "it now."
            )
            % {"round": result.round_no, "table": result.table.number}
        )
    entered = reporting.seat_of(result.submitted_by_id)
    if entered is not None and entered.pk == claim.seat_id:
        raise StateConflict(
            _(
                "You entered round %(round)s yourself: another player at table %(table)s "
                "confirms it, on their phone or on this one with their own seat."
            )
            % {"round": result.round_no, "table": result.table.number}
        )


def clean_note(note: object) -> str:
    """The dispute's note: what is wrong, in words (required, at most NOTE_LENGTH characters)."""
    if not isinstance(note, str) or not note.strip():
        raise ValidationError(
            {"note": [_("Say what is wrong with this round, for the official who settles it.")]}
        )
    note = note.strip()
    if len(note) > NOTE_LENGTH:
        raise ValidationError(
            {"note": [_("Say it in at most %(count)s characters.") % {"count": NOTE_LENGTH}]}
        )
    if problems := unprintable_messages(note):
        raise ValidationError({"note": problems})
    return note


@transaction.atomic
def dispute_round(
    *,
    table: Table,
    round_no: int,
    by: AbstractBaseUser,
    note: object,
    meta: RequestMeta = RequestMeta(),
) -> RoundResult:
    """Flag the table's round as wrong: it counts nowhere until an official settles it. Disputing
    a disputed round again changes nothing. NoResult when the round has no result; StateConflict
    once the stage is closed (an organiser's correction then)."""
    note = clean_note(note)
    stage = lock_stage(table.stage_id)
    try:
        result = (
            RoundResult.objects.select_for_update(of=("self",))
            .select_related("table", "submitted_by")
            .get(table=table, round_no=round_no)
        )
    except RoundResult.DoesNotExist:
        raise NoResult from None
    result.stage = stage
    if stage.status == stage.Status.CLOSED:
        raise StateConflict(closed_message(stage, "results"))
    if result.status == RoundResult.Status.DISPUTED:
        return result
    was_confirmed = result.status == RoundResult.Status.CONFIRMED
    result.status, result.confirmed_by = RoundResult.Status.DISPUTED, None
    result.version += 1
    result.save(update_fields=["status", "confirmed_by", "version", "updated_at"])
    record_version(
        result,
        scores=scores_of(result),
        action=RoundResultVersion.Action.DISPUTED,
        by=by,
        meta=meta,
        reason=note,
    )
    if was_confirmed:  # it counted: the standings drop it
        standings.request_rebuild(stage, results=True)
    return result
