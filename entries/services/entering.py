"""Entering, changing and withdrawing an entry; the waitlist's offers, their expiry, and what an
organiser does by hand (enter, refuse, move on the waitlist).

Every write locks the tournament's row first, so entries racing for the last places are served
one after another: never more entered than the cap, waiting places numbered 1..n without gaps.
Offers that ran out are applied before each write (and by the beat, entries.tasks)."""

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models import Max
from django.db.models.functions import Lower
from django.utils import timezone
from django.utils.translation import gettext as _

from entries import rules
from entries.models import Entry, new_check_in_code
from entries.services import mail
from tables import services as table_services
from tournaments.exceptions import StateConflict
from tournaments.models import Division, Player, Tournament
from tournaments.services import players as player_services
from tournaments.services.divisions import OLDEST, ages_said, division_for_age
from tournaments.text import check_printable

Status = Entry.Status


class DuplicateEntry(StateConflict):
    """The same name and email already hold an entry: its address is mailed again."""

    def __init__(self, message: str, entry: Entry) -> None:
        super().__init__(message)
        self.entry = entry


@dataclass(frozen=True)
class Details:
    """What an entrant gives (the entry form, the API's body)."""

    name: str
    email: str
    phone: str = ""
    household: str = ""
    age: int | None = None
    birth_year: int | None = None
    division: Division | None = None
    club: str = ""
    chapter: str = ""
    messages_ok: bool = False


def _locked(tournament: Tournament) -> Tournament:
    return Tournament.objects.select_for_update().get(pk=tournament.pk)


def _check_details(tournament: Tournament, details: Details) -> Division | None:
    """The details checked as a whole (ValidationError by field); the entry's division: the one
    named, else the one its age (or the age its birth year reaches on the first day) falls in."""
    errors: dict[str, list[str]] = {}
    if not details.name.strip():
        errors["name"] = [_("Say the name to enter.")]
    try:
        validate_email(details.email.strip())
    except ValidationError:
        errors["email"] = [
            _("%(email)s is not an email address: the entry's link is mailed there.")
            % {"email": repr(details.email)}
        ]
    try:
        check_printable(name=details.name, household=details.household, club=details.club)
    except ValidationError as error:
        errors.update(error.message_dict)
    division = details.division
    if division is not None and division.tournament_id != tournament.pk:
        errors["division"] = [
            _("%(division)s is not a division of %(tournament)s.")
            % {"division": division.name, "tournament": tournament.name}
        ]
    age = details.age
    if details.birth_year is not None:
        first_year = (tournament.starts_on or timezone.localdate()).year
        if not first_year - OLDEST <= details.birth_year <= first_year:
            errors["birth_year"] = [
                _("%(year)s is not a year of birth from %(first)s to %(last)s.")
                % {"year": details.birth_year, "first": first_year - OLDEST, "last": first_year}
            ]
        elif age is None:
            age = first_year - details.birth_year
    if age is not None and age > OLDEST:
        errors["age"] = [
            _("%(age)s is not an age up to %(oldest)s.") % {"age": age, "oldest": OLDEST}
        ]
    ranged = [
        d for d in tournament.divisions.all() if d.age_min is not None or d.age_max is not None
    ]
    if division is None and not errors and ranged:
        if age is None:
            errors["age"] = [
                _(
                    "Say your age or year of birth: %(tournament)s plays in age divisions "
                    "(%(ranges)s)."
                )
                % {"tournament": tournament.name, "ranges": _ranges(ranged)}
            ]
        else:
            division = division_for_age(tournament, age)
            if division is None:
                errors["age"] = [
                    _("No division of %(tournament)s takes the age %(age)s: %(ranges)s.")
                    % {"tournament": tournament.name, "age": age, "ranges": _ranges(ranged)}
                ]
    if errors:
        raise ValidationError(errors)
    return division


def _ranges(divisions: list[Division]) -> str:
    return ", ".join(f"{d.name} ({ages_said(d)})" for d in divisions)


def _same_entry(tournament: Tournament, name: str, email: str) -> Entry | None:
    return (
        Entry.objects.annotate(lname=Lower("name"), lemail=Lower("email"))
        .filter(tournament=tournament, status__in=Entry.LIVE)
        .filter(lname=name.strip().lower(), lemail=email.strip().lower())
        .first()
    )


def _check_no_other_entry(tournament: Tournament, entry: Entry) -> None:
    """StateConflict when another live entry holds the entry's name and email."""
    same = _same_entry(tournament, entry.name, entry.email)
    if same is not None and same.pk != entry.pk:
        raise StateConflict(
            _("%(name)s has another entry with %(email)s already.")
            % {"name": entry.name, "email": entry.email}
        )


def enter(
    *, tournament: Tournament, details: Details, origin: str = "", language: str = "en"
) -> Entry:
    """A new entry: entered (a player with the next badge number) while places are free, else
    waiting at the end of the waitlist; refused when entries are closed, or full without a
    waitlist (StateConflict). A second live entry with the same name and email is refused with
    DuplicateEntry, and the first one's address is mailed again."""
    try:
        return _enter(tournament, details, origin, language)
    except DuplicateEntry as duplicate:
        mail.entry_mail(duplicate.entry, duplicate.entry.status, again=True)
        raise


@transaction.atomic
def _enter(tournament: Tournament, details: Details, origin: str, language: str) -> Entry:
    tournament = _locked(tournament)
    _apply_expiry(tournament)
    reason = rules.closed_reason(tournament)
    if reason:
        raise StateConflict(reason)
    division = _check_details(tournament, details)
    same = _same_entry(tournament, details.name, details.email)
    if same is not None:
        raise DuplicateEntry(
            _(
                "%(name)s has already entered %(tournament)s with %(email)s: the entry's link "
                "has been mailed there again."
            )
            % {"name": same.name, "tournament": tournament.name, "email": same.email},
            same,
        )
    entry = Entry(
        tournament=tournament,
        name=details.name.strip(),
        email=details.email.strip(),
        phone=details.phone.strip(),
        household=details.household.strip(),
        age=details.age,
        birth_year=details.birth_year,
        division=division,
        club=details.club.strip(),
        chapter=details.chapter.strip(),
        messages_ok=details.messages_ok,
        fee_due=rules.fee_for(tournament, division),
        origin=origin,
        language=language,
    )
    if not rules.waits(tournament):
        _make_player(entry)
    elif tournament.waitlist:
        entry.status = Status.WAITLISTED
        entry.waitlist_position = _last_position(tournament) + 1
        entry.save()
    else:
        raise StateConflict(
            _("%(tournament)s is full (%(capacity)s places) and keeps no waitlist.")
            % {"tournament": tournament.name, "capacity": tournament.capacity}
        )
    mail.entry_mail(entry, entry.status)
    return entry


def _last_position(tournament: Tournament) -> int:
    waiting = Entry.objects.filter(tournament=tournament, status=Status.WAITLISTED)
    return waiting.aggregate(last=Max("waitlist_position"))["last"] or 0


def _make_player(entry: Entry, by: AbstractBaseUser | None = None) -> None:
    """The entry entered: a player of the tournament with the next badge number, and a check-in
    code of its own."""
    tournament = entry.tournament
    last = Player.objects.filter(tournament=tournament).aggregate(last=Max("number"))["last"]
    entry.player = player_services.create_player(
        tournament=tournament,
        number=(last or 0) + 1,
        name=entry.name,
        household=entry.household,
        club=entry.club,
        division=entry.division,
        by=by,
    )
    entry.status = Status.ENTERED
    entry.waitlist_position = None
    entry.offer_expires_at = None
    taken = set(
        Entry.objects.filter(tournament=tournament)
        .exclude(check_in_code="")
        .values_list("check_in_code", flat=True)
    )
    code = new_check_in_code()
    while code in taken:
        code = new_check_in_code()
    entry.check_in_code = code
    if by is not None:
        entry._history_user = by
    entry.save()


def _renumber(tournament: Tournament) -> None:
    """The waiting entries numbered 1..n in their order, without gaps."""
    waiting = list(
        Entry.objects.filter(tournament=tournament, status=Status.WAITLISTED).order_by(
            "waitlist_position", "entered_at", "pk"
        )
    )
    if all(entry.waitlist_position == n for n, entry in enumerate(waiting, start=1)):
        return
    _number(waiting)


def _number(order: list[Entry]) -> None:
    """Places 1..n on the waitlist for `order`, in two passes: first every row moved past the
    highest place any holds, so that no two rows hold one place on the way (the places are
    unique)."""
    shift = max(entry.waitlist_position for entry in order) + len(order) + 1
    for entry in order:
        Entry.objects.filter(pk=entry.pk).update(waitlist_position=entry.waitlist_position + shift)
    for n, entry in enumerate(order, start=1):
        Entry.objects.filter(pk=entry.pk).update(waitlist_position=n)


def _offer_free_places(tournament: Tournament) -> list[Entry]:
    """Each free place offered to the first waiting entry, for the tournament's offer hours;
    none once seating has begun (late arrivals go to the desk). Returns the entries offered."""
    if rules.seating_begun(tournament):
        return []
    free = rules.places_free(tournament)
    waiting = Entry.objects.filter(tournament=tournament, status=Status.WAITLISTED).order_by(
        "waitlist_position"
    )
    chosen = list(waiting if free is None else waiting[:free])
    until = timezone.now() + timedelta(hours=float(tournament.offer_hours))
    for entry in chosen:
        entry.status = Status.OFFERED
        entry.waitlist_position = None
        entry.offer_expires_at = until
        entry.save(update_fields=["status", "waitlist_position", "offer_expires_at"])
        mail.entry_mail(entry, Status.OFFERED)
    if chosen:
        _renumber(tournament)
    return chosen


def _apply_expiry(tournament: Tournament) -> int:
    """Offers not taken in time expire (off the waitlist for good) and pass to the next. The
    tournament's row is locked. Returns how many expired."""
    ran_out = list(
        Entry.objects.filter(
            tournament=tournament, status=Status.OFFERED, offer_expires_at__lte=timezone.now()
        )
    )
    for entry in ran_out:
        entry.status = Status.EXPIRED
        entry.save(update_fields=["status"])
    _offer_free_places(tournament)
    return len(ran_out)


@transaction.atomic
def apply_expiry(tournament: Tournament) -> int:
    """Expire the offers that ran out and offer their places on; for the readers (a page, the
    API's list) and the beat."""
    return _apply_expiry(_locked(tournament))


def _fresh(entry: Entry) -> tuple[Tournament, Entry]:
    tournament = _locked(entry.tournament)
    _apply_expiry(tournament)
    return tournament, Entry.objects.select_for_update().get(pk=entry.pk)


@transaction.atomic
def withdraw(entry: Entry, *, by: AbstractBaseUser | None = None) -> Entry:
    """The entrant (or an organiser) withdraws the entry: a player is withdrawn as at the desk, a
    waiting entry leaves the waitlist. A place freed before the first stage is seated is offered
    to the first waiting entry."""
    tournament, entry = _fresh(entry)
    if not entry.live:
        raise StateConflict(
            _("This entry is already %(status)s: nothing changed.")
            % {"status": entry.get_status_display().lower()}
        )
    was = entry.status
    if entry.player is not None:
        table_services.withdraw_player(player=entry.player, by=by)
    if by is not None:
        entry._history_user = by
    entry.status = Status.WITHDRAWN
    entry.waitlist_position = None
    entry.offer_expires_at = None
    entry.save(update_fields=["status", "waitlist_position", "offer_expires_at"])
    if was == Status.WAITLISTED:
        _renumber(tournament)
    _offer_free_places(tournament)
    mail.entry_mail(entry, Status.WITHDRAWN)
    return entry


@transaction.atomic
def accept_offer(entry: Entry) -> Entry:
    """The entrant takes the place offered: entered, a player from now on. StateConflict
    without an offer still open (never made, already taken, or run out)."""
    _tournament, entry = _fresh(entry)
    if entry.status != Status.OFFERED:
        if entry.status == Status.EXPIRED:
            text = _("The place offered to this entry was not taken in time and has passed on.")
        else:
            text = _("This entry has no place offered to take (it is %(status)s).") % {
                "status": entry.get_status_display().lower()
            }
        raise StateConflict(text)
    _make_player(entry)
    mail.entry_mail(entry, Status.ENTERED)
    return entry


@transaction.atomic
def admit(entry: Entry, *, by: AbstractBaseUser) -> Entry:
    """An organiser enters a waiting, offered, expired or refused entry by hand, over the cap if
    need be (the organiser's choice)."""
    tournament, entry = _fresh(entry)
    if entry.status == Status.ENTERED:
        raise StateConflict(_("%(name)s is already entered.") % {"name": entry.name})
    if entry.status == Status.WITHDRAWN:
        raise StateConflict(
            _("%(name)s withdrew: reinstate their player on the players list, or enter them again.")
            % {"name": entry.name}
        )
    _check_no_other_entry(tournament, entry)
    was = entry.status
    _make_player(entry, by=by)
    if was == Status.WAITLISTED:
        _renumber(tournament)
    mail.entry_mail(entry, Status.ENTERED)
    return entry


@transaction.atomic
def refuse(entry: Entry, *, by: AbstractBaseUser) -> Entry:
    """An organiser turns down a waiting or offered entry; the next waiting one moves up (and an
    offered place passes on)."""
    tournament, entry = _fresh(entry)
    if entry.status not in (Status.WAITLISTED, Status.OFFERED):
        raise StateConflict(
            _("Only a waiting entry or one offered a place can be refused; %(name)s is %(status)s.")
            % {"name": entry.name, "status": entry.get_status_display().lower()}
        )
    entry.status = Status.REFUSED
    entry.waitlist_position = None
    entry.offer_expires_at = None
    entry._history_user = by
    entry.save(update_fields=["status", "waitlist_position", "offer_expires_at"])
    _renumber(tournament)
    _offer_free_places(tournament)
    return entry


@transaction.atomic
def move(entry: Entry, *, position: int, by: AbstractBaseUser) -> Entry:
    """An organiser moves a waiting entry to another place on the waitlist (1 is next); the
    others keep their order around it."""
    tournament, entry = _fresh(entry)
    if entry.status != Status.WAITLISTED:
        raise StateConflict(
            _("%(name)s is not waiting (%(status)s): only a waiting entry has a place to move.")
            % {"name": entry.name, "status": entry.get_status_display().lower()}
        )
    last = _last_position(tournament)
    if not 1 <= position <= last:
        raise ValidationError(
            {"waitlist_position": [_("Say a place from 1 to %(last)s.") % {"last": last}]}
        )
    order = list(
        Entry.objects.filter(tournament=tournament, status=Status.WAITLISTED)
        .exclude(pk=entry.pk)
        .order_by("waitlist_position")
    )
    order.insert(position - 1, entry)
    _number(order)
    entry.refresh_from_db()
    # The moved entry's history says where to and by whom (the others moved with it: unsaid).
    entry._history_user = by
    entry.save(update_fields=["waitlist_position"])
    return entry


# What an entrant may change at their address; an organiser also the fee due.
ENTRANT_FIELDS = ("name", "email", "phone", "household", "club", "chapter", "messages_ok")
ORGANISER_FIELDS = (*ENTRANT_FIELDS, "division", "fee_due")


@transaction.atomic
def update(entry: Entry, *, changes: dict[str, Any], by: AbstractBaseUser | None = None) -> Entry:
    """Change an entry's details; its player's name, household, club and division follow. A
    second live entry with the same name and email is refused."""
    tournament, entry = _fresh(entry)
    if entry.contact_erased_at is not None:
        raise StateConflict(
            _("This entry's details were erased: there is nothing to change. Enter again instead.")
        )
    if not entry.live:
        raise StateConflict(
            _("This entry is %(status)s: enter again instead.")
            % {"status": entry.get_status_display().lower()}
        )
    changed = {k: v for k, v in changes.items() if getattr(entry, k) != v}
    if not changed:
        return entry
    for field, value in changed.items():
        setattr(entry, field, value.strip() if isinstance(value, str) else value)
    _check_details(
        tournament,
        Details(
            name=entry.name,
            email=entry.email,
            household=entry.household,
            club=entry.club,
            division=entry.division,
            age=entry.age,
            birth_year=entry.birth_year,
        ),
    )
    if "fee_due" in changed and entry.fee_due < 0:
        raise ValidationError({"fee_due": [_("A fee due is 0 or more.")]})
    _check_no_other_entry(tournament, entry)
    if by is not None:
        entry._history_user = by
    entry.save(update_fields=list(changed))
    player = entry.player
    if player is not None and {"name", "household", "club", "division"} & set(changed):
        player_services.update_player(
            player=player,
            number=player.number,
            name=entry.name,
            household=entry.household,
            club=entry.club,
            division=entry.division,
            by=by,
        )
    return entry
