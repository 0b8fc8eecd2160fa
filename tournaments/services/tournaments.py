"""Creating a tournament and changing its details."""

from dataclasses import asdict
from datetime import date
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from tournaments.exceptions import StateConflict
from tournaments.models import Division, Staff, StaffEvent, Stage, Tournament
from tournaments.presets import PRESETS, get_preset
from tournaments.services.divisions import set_division_playoffs
from tournaments.services.stage_changes import create_stage
from tournaments.signals import tournament_changed
from tournaments.text import check_printable


@transaction.atomic
def create_tournament(
    *,
    name: str,
    slug: str,
    domino_set: int,
    preset: str,
    by: AbstractBaseUser,
    with_stages: bool = False,
    division_playoffs: str = Tournament.DivisionPlayoffs.SHARED,
    listed: bool = True,
    practice: bool = False,
    **details: Any,
) -> Tournament:
    """Create a tournament; its creator becomes its organiser. `details`: starts_on, ends_on,
    venue, description, time_zone and the ENTRY_FIELDS (update_details checks them alike);
    `division_playoffs`:
    whether its divisions share the playoffs (the default) or play their own; `listed` and
    `practice` as update_visibility sets them."""
    check_printable(name=name)
    chosen = PRESETS.get(preset)
    if chosen is not None and domino_set not in chosen.deals:
        sets = ", ".join(str(Tournament.DominoSet(n).label) for n in chosen.sets())
        label = Tournament.Preset(chosen.key).label  # in the reader's language
        message = _("The %(preset)s preset deals only with %(sets)s, not double-%(set)s.")
        raise ValidationError(
            {"domino_set": [message % {"preset": label, "sets": sets, "set": domino_set}]}
        )
    try:
        get_preset(preset).deal(domino_set)
    except ValueError as error:
        raise ValidationError({"domino_set": [str(error)]}) from None
    if Tournament.objects.filter(slug=slug).exists():
        raise ValidationError({"slug": [_taken(slug)]})
    tournament = Tournament(
        name=name,
        slug=slug,
        domino_set=domino_set,
        preset=preset,
        division_playoffs=division_playoffs,
        listed=listed,
        practice=practice,
    )
    _set_details(tournament, details)
    try:
        with transaction.atomic():  # a savepoint: another create may take the address first
            tournament.save()
    except IntegrityError:
        if not Tournament.objects.filter(slug=slug).exists():
            raise
        raise ValidationError({"slug": [_taken(slug)]}) from None
    Staff.objects.create(
        tournament=tournament,
        user=by,
        role=Staff.Role.ORGANISER,
        joined_via=Staff.Joined.CREATED,
        last_seen_at=timezone.now(),  # creating it is their activity
    )
    StaffEvent.objects.create(
        tournament=tournament,
        action=StaffEvent.Action.CREATED,
        actor=by,
        actor_name=by.get_username(),
        subject_name=by.get_username(),
        role=Staff.Role.ORGANISER,
    )
    if with_stages:
        # Stages that fit the set: from its highest double, the preset's rounds for it, tables
        # within its deal (Preset.stages_for); named by a key, said in the reader's language.
        for settings in get_preset(preset).stages_for(domino_set):
            create_stage(tournament=tournament, **asdict(settings))
        # Its divisions (the age categories of senior games), named as the event names them.
        Division.objects.bulk_create(
            Division(tournament=tournament, order=order, **asdict(division))
            for order, division in enumerate(get_preset(preset).divisions, start=1)
        )
    return tournament


def _taken(slug: str) -> str:
    return _("The address %(slug)s is taken: choose another.") % {"slug": repr(slug)}


DETAIL_FIELDS = ("starts_on", "ends_on", "venue", "description", "time_zone")
# How the tournament takes entries before the day (the entries app reads them): when, how many,
# the waitlist's offers, and the fee.
ENTRY_FIELDS = (
    "entries_open_at",
    "entries_close_at",
    "capacity",
    "waitlist",
    "offer_hours",
    "entry_fee",
    "currency",
)


def check_tiebreak_rules_open(tournament: Tournament) -> None:
    """The tie-break rules rank every stage of the event; a closed stage's ranks, and who advanced
    from it, stand as they were decided: StateConflict once a stage has closed."""
    if tournament.stages.filter(status=Stage.Status.CLOSED).exists():
        raise StateConflict(
            _(
                "A stage has closed: its ranks and who advanced were decided by these tie-break "
                "rules, which can no longer change."
            )
        )


def check_days(starts_on: date | None, ends_on: date | None) -> None:
    """The last day is not before the first (said on the last day's field)."""
    if starts_on and ends_on and ends_on < starts_on:
        raise ValidationError({"ends_on": [_("The last day is before the first day.")]})


def _set_details(tournament: Tournament, details: dict[str, Any]) -> None:
    """Set a tournament's dates, venue, description and time zone, checked as the model checks
    them (a day range the right way round, a known zone, printable text)."""
    unknown = set(details) - set(DETAIL_FIELDS) - set(ENTRY_FIELDS)
    if unknown:
        raise TypeError(f"not a tournament detail: {sorted(unknown)}")
    for field, value in details.items():
        setattr(tournament, field, value)
    check_printable(venue=tournament.venue)
    check_days(tournament.starts_on, tournament.ends_on)
    check_entries(tournament)
    checked = (*DETAIL_FIELDS, *ENTRY_FIELDS)
    tournament.full_clean(  # the fields' own checks: a known zone, lengths, the entries' limits
        exclude=[f.name for f in Tournament._meta.fields if f.name not in checked],
        validate_unique=False,
        validate_constraints=False,  # the ones on the days and entry times are said above
    )


def check_entries(tournament: Tournament) -> None:
    """The entries' settings that the fields alone do not check, each said on its field: entries
    close after they open; no negative places, fee or offer hours; a currency of three capitals
    (the fields' validators say it too, but a bare number of the API's reaches here first)."""
    errors: dict[str, list[str]] = {}
    opens, closes = tournament.entries_open_at, tournament.entries_close_at
    if opens and closes and closes <= opens:
        errors["entries_close_at"] = [_("Entries close before they open: close them later.")]
    if tournament.capacity is not None and tournament.capacity < 0:
        errors["capacity"] = [_("Places are 0 or more (empty for no limit).")]
    if tournament.entry_fee is not None and tournament.entry_fee < 0:
        errors["entry_fee"] = [_("An entry fee is 0 or more (empty for free).")]
    if tournament.offer_hours is None or tournament.offer_hours <= 0:
        errors["offer_hours"] = [_("The hours to take a place are more than 0.")]
    currency = tournament.currency or ""
    if not (len(currency) == 3 and currency.isascii() and currency.isalpha()) or (
        not currency.isupper()
    ):
        errors["currency"] = [
            _("%(currency)s is not a currency: three capitals of ISO 4217, such as USD or EUR.")
            % {"currency": repr(currency)}
        ]
    if errors:
        raise ValidationError(errors)


@transaction.atomic
def update_details(
    *,
    tournament: Tournament,
    by: AbstractBaseUser,
    division_playoffs: str | None = None,
    listed: bool | None = None,
    practice: bool | None = None,
    **details: Any,
) -> Tournament:
    """Change a tournament's dates, venue, description or time zone (name and set stay); how
    it takes entries (ENTRY_FIELDS, check_entries: a change sends tournament_changed, on which
    the entries app offers the places it freed); whether its divisions share the playoffs
    (until a stage is seated: StateConflict after); and whether it is listed or practice
    (update_visibility). Refused, nothing changes."""
    update_visibility(tournament=tournament, by=by, listed=listed, practice=practice)
    if division_playoffs is not None:
        set_division_playoffs(tournament=tournament, division_playoffs=division_playoffs)
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    zone = tournament.time_zone
    entries_before = [getattr(tournament, field) for field in ENTRY_FIELDS]
    _set_details(tournament, details)
    tournament.save(update_fields=list(details) or None)
    entries_changed = entries_before != [getattr(tournament, field) for field in ENTRY_FIELDS]
    # The standings say when they were updated, in its zone; the public pages say whether it
    # takes entries; and the entries app offers the places a raised cap freed.
    if tournament.time_zone != zone or entries_changed:
        tournament_changed.send(sender=Tournament, tournament=tournament)
    return tournament


def has_results(tournament: Tournament, *, confirmed_only: bool = False) -> bool:
    """Whether a table of the tournament has reported a round (confirmed, `confirmed_only`)."""
    results = Stage.objects.filter(tournament=tournament, round_results__isnull=False)
    if confirmed_only:
        results = results.filter(round_results__status="confirmed")
    return results.exists()


@transaction.atomic
def update_visibility(
    *,
    tournament: Tournament,
    by: AbstractBaseUser,
    listed: bool | None = None,
    practice: bool | None = None,
) -> Tournament:
    """Whether the home page lists the tournament (`listed`), and whether it is a practice one.
    Practice is turned on only while no table has reported a round (StateConflict after: the
    results would become a rehearsal's); turned off at any time, which makes it the real event
    as it stands. Either way its pages answer at their address."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    changed = []
    if practice is not None and practice != tournament.practice:
        if practice and has_results(tournament):
            raise StateConflict(
                _(
                    "%(name)s has results already: it cannot become a practice tournament. To "
                    "keep it off the home page, hide it instead (untick Listed on the home page)."
                )
                % {"name": tournament.name}
            )
        tournament.practice = practice
        changed.append("practice")
    if listed is not None and listed != tournament.listed:
        tournament.listed = listed
        changed.append("listed")
    if changed:
        tournament.save(update_fields=changed)
        # Its pages say "Practice" (or no longer): new versions of them.
        tournament_changed.send(sender=Tournament, tournament=tournament)
    return tournament


def tournament_deletion_refused(tournament: Tournament) -> str | None:
    """Why the tournament may not be deleted, or None: a real event with a confirmed result is
    a record of play (hide it from the home page instead); a practice one goes at any time."""
    if not tournament.practice and has_results(tournament, confirmed_only=True):
        return _(
            "%(name)s has confirmed results, so it cannot be deleted: hide it from the home page "
            "instead (untick Listed on the home page; in the API, listed: false)."
        ) % {"name": tournament.name}
    return None


@transaction.atomic
def delete_tournament(*, tournament: Tournament, by: AbstractBaseUser) -> None:
    """Delete a tournament with everything in it (its players, stages, seats and results not
    confirmed, staff and invitations), if it has no confirmed result or is a practice one;
    StateConflict otherwise, and nothing is deleted. The players' history goes with it
    (signals.forget_players_history)."""
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    if (refused := tournament_deletion_refused(tournament)) is not None:
        raise StateConflict(refused)
    # Its stages first, with their tables, seats and results: a seat and a score protect their
    # player, and deleting the tournament in one go would find them before it reached them.
    tournament.stages.all().delete()
    tournament.delete()
