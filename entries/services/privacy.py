"""An entrant's contact details erased: by the entrant at their entry's address, or by the beat
ROUNDHOUSE_CONTACT_DAYS after the tournament's last day (docs/DESIGN.md, "Entries and privacy").

Erased are the email, the phone, the age and the year of birth: on the entry, in every row of its
history (simple_history keeps each old value) and in the mails sent to it (a delivery keeps the
address it went to). The entry stays, and its player: the results keep the name, and the
household (which seats people apart), club and chapter stay with it. A club's member record is
the club's own (the clubs app) and is not touched here."""

from datetime import date, timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from entries import rules
from entries.models import Delivery, Entry
from entries.services import entering
from scoring.models import StageStandings
from tournaments.exceptions import StateConflict
from tournaments.models import Stage, Tournament

# The fields erased, and what each becomes.
CONTACT_FIELDS = {"email": "", "phone": "", "age": None, "birth_year": None}
ERASED_REASON = "contact details erased"


def last_day(tournament: Tournament) -> date | None:
    """The tournament's last day: its end date, else its start date, else the day its final
    stage closed (in its time zone); None while none is known."""
    if tournament.ends_on or tournament.starts_on:
        return tournament.ends_on or tournament.starts_on
    final = Stage.objects.final_of(tournament)
    if final is None:
        return None
    built = StageStandings.objects.filter(stage=final).values_list("computed_at", flat=True)
    closed = built.first()
    return timezone.localtime(closed, tournament.zone).date() if closed else None


def erase_on(tournament: Tournament) -> date | None:
    """The day its entrants' contact details are erased: ROUNDHOUSE_CONTACT_DAYS after its last
    day; None while its last day is not known."""
    day = last_day(tournament)
    return day + timedelta(days=settings.ROUNDHOUSE_CONTACT_DAYS) if day else None


@transaction.atomic
def erase_contact(entry: Entry, *, by: AbstractBaseUser | None = None) -> Entry:
    """Erase the entry's contact details now, everywhere they are kept. StateConflict when they
    were erased already (nothing changed)."""
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    if entry.contact_erased_at is not None:
        raise StateConflict(
            _("This entry's contact details were erased on %(when)s: nothing changed.")
            % {"when": timezone.localtime(entry.contact_erased_at).strftime("%Y-%m-%d")}
        )
    old_email = entry.email
    for field, blank in CONTACT_FIELDS.items():
        setattr(entry, field, blank)
    entry.contact_erased_at = timezone.now()
    entry._change_reason = ERASED_REASON
    if by is not None:
        entry._history_user = by
    entry.save(update_fields=[*CONTACT_FIELDS, "contact_erased_at"])
    # Every old value, gone from the history too (the rows stay: who changed what, and when).
    entry.history.all().update(**CONTACT_FIELDS)
    deliveries = Delivery.objects.filter(entry=entry)
    # A mail not sent yet goes nowhere now; the organisers' counts say why.
    deliveries.filter(status=Delivery.Status.PENDING).update(
        status=Delivery.Status.FAILED,
        last_error="Not sent: the entrant's contact details were erased.",
    )
    if old_email:
        # A mail server's refusal may quote the address.
        deliveries.filter(last_error__icontains=old_email).update(last_error="")
    deliveries.update(email="")
    return entry


def erase_by_entrant(entry: Entry) -> tuple[Entry, bool]:
    """The entrant erases their details at their entry's address: a waiting or offered entry,
    or one entered before the first stage is seated, is withdrawn first (it could no longer be
    told of a place or a seat); once play has begun the entry stays, and the results keep the
    name. Returns the entry and whether it was withdrawn."""
    with transaction.atomic():
        # The tournament's row first, as every entry's write takes it (entering.py).
        Tournament.objects.select_for_update().get(pk=entry.tournament_id)
        entry = Entry.objects.select_for_update().get(pk=entry.pk)
        if entry.contact_erased_at is not None:
            return erase_contact(entry), False  # refused: already erased
        withdrawn = rules.erase_withdraws(entry)
        if withdrawn:
            entry = entering.withdraw(entry)
        return erase_contact(entry), withdrawn


def due(now=None) -> list[Tournament]:
    """The tournaments whose entrants still have contact details past their erase day."""
    now = now or timezone.now()
    holding = Tournament.objects.filter(entries__contact_erased_at__isnull=True).distinct()
    return [
        tournament
        for tournament in holding
        if (day := erase_on(tournament)) is not None
        and timezone.localtime(now, tournament.zone).date() >= day
    ]


def erase_old_contacts(now=None) -> int:
    """Erase the contact details of every entry whose tournament's erase day has come (the
    beat, once a day). Returns how many entries."""
    erased = 0
    for tournament in due(now):
        for entry in tournament.entries.filter(contact_erased_at__isnull=True):
            erase_contact(entry)
            erased += 1
    return erased
