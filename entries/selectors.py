"""Reads of entries: for the organisers' Entries section (the entries in order with what each
owes and has paid, the counts, an entry's history) and for an entrant (everything kept about
their entry, as they may download it)."""

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.db.models import Case, IntegerField, Q, Sum, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone
from django.utils.translation import gettext as _

from entries import rules
from entries.models import Entry
from entries.services import mail
from tournaments.models import Division, Tournament

Status = Entry.Status

# The list's order: who holds a place first, then the waitlist in its order, then those out.
_STATUS_ORDER = Case(
    When(status=Status.ENTERED, then=Value(0)),
    When(status=Status.OFFERED, then=Value(1)),
    When(status=Status.WAITLISTED, then=Value(2)),
    default=Value(3),
    output_field=IntegerField(),
)


def entries_in_order(tournament: Tournament) -> list[Entry]:
    """The tournament's entries, entered and offered first (in the order they came), then the
    waitlist in its order, then those out; each with `paid` (net of refunds) and `owed`."""
    entries = list(
        tournament.entries.select_related("player", "division")
        .annotate(
            paid_total=Coalesce(Sum("payments__amount"), Value(Decimal(0))),
            rank=_STATUS_ORDER,
        )
        .order_by("rank", "waitlist_position", "entered_at", "pk")
    )
    for entry in entries:
        entry.paid = entry.paid_total
        entry.owed = rules.owes(entry, entry.paid_total)
    return entries


@dataclass(frozen=True)
class Counts:
    entered: int
    offered: int
    waiting: int
    out: int
    places_left: int | None  # None: no cap


def counts(tournament: Tournament) -> Counts:
    by_status = tournament.entries.aggregate(
        entered=Sum(Value(1), filter=Q(status=Status.ENTERED)),
        offered=Sum(Value(1), filter=Q(status=Status.OFFERED)),
        waiting=Sum(Value(1), filter=Q(status=Status.WAITLISTED)),
        out=Sum(Value(1), filter=~Q(status__in=Entry.LIVE)),
    )
    return Counts(
        **{key: value or 0 for key, value in by_status.items()},
        places_left=rules.places_free(tournament),
    )


@dataclass(frozen=True)
class Change:
    field: str
    old: str
    new: str


@dataclass(frozen=True)
class HistoryLine:
    at: datetime
    by: str
    what: str
    changes: list[Change]


HISTORY_FIELDS = (
    "status", "waitlist_position", "offer_expires_at", "name", "email", "phone", "household",
    "age", "birth_year", "division", "club", "chapter", "messages_ok", "fee_due",
)  # fmt: skip


def _shown(field: str, value: object) -> str:
    if value is None or value == "":
        return ""
    if field == "status":
        return str(Status(value).label)
    if field == "division":
        return Division.objects.filter(pk=value).values_list("name", flat=True).first() or "—"
    if field == "messages_ok":
        return _("yes") if value else _("no")
    return str(value)


def entry_history(entry: Entry) -> list[HistoryLine]:
    """Every change to the entry, newest first: when, by whom (empty: the entrant at their
    address, or Roundhouse itself), and each field before and after."""
    records = list(entry.history.select_related("history_user").order_by("history_date", "pk"))
    labels = {name: Entry._meta.get_field(name).verbose_name for name in HISTORY_FIELDS}
    lines = []
    for previous, record in zip([None, *records], records, strict=False):
        changes = []
        if previous is not None:
            delta = record.diff_against(previous, included_fields=list(HISTORY_FIELDS))
            changes = [
                Change(str(labels[c.field]), _shown(c.field, c.old), _shown(c.field, c.new))
                for c in sorted(delta.changes, key=lambda c: HISTORY_FIELDS.index(c.field))
            ]
        what = _("Entry made") if record.history_type == "+" else _("Changed")
        user = record.history_user
        lines.append(HistoryLine(record.history_date, user.get_username() if user else "",
                                 what, changes))  # fmt: skip
    return lines[::-1]


def _when(value) -> str | None:
    return value.isoformat() if value else None


def entry_data(entry: Entry) -> dict[str, Any]:
    """The entry's own data (docs/API.md, "Entries before the day"): its details, its payments
    and every mail sent or to be sent to it, each with its text as it was mailed."""
    tournament = entry.tournament
    payments = [
        {
            "amount": f"{payment.amount:.2f}",
            "method": payment.method,
            "note": payment.note,
            "recorded_at": _when(payment.recorded_at),
        }
        for payment in entry.payments.all()
    ]
    deliveries = entry.deliveries.select_related("message__tournament", "entry__tournament")
    messages = [
        {
            "kind": delivery.message.kind,
            "subject": delivery.message.subject,
            "text": mail.render(delivery).body,
            "email": delivery.email,
            "status": delivery.status,
            "created_at": _when(delivery.message.created_at),
            "sent_at": _when(delivery.sent_at),
        }
        for delivery in deliveries.order_by("message__created_at", "pk")
    ]
    return {
        "tournament": {
            "name": tournament.name,
            "slug": tournament.slug,
            "starts_on": _when(tournament.starts_on),
            "ends_on": _when(tournament.ends_on),
        },
        "entry": {
            "status": entry.status,
            "waitlist_position": entry.waitlist_position,
            "offer_expires_at": _when(entry.offer_expires_at),
            "number": entry.player.number if entry.player_id else None,
            "name": entry.name,
            "email": entry.email,
            "phone": entry.phone,
            "household": entry.household,
            "age": entry.age,
            "birth_year": entry.birth_year,
            "division": entry.division.name if entry.division_id else None,
            "club": entry.club,
            "chapter": entry.chapter,
            "messages_ok": entry.messages_ok,
            "check_in_code": entry.check_in_code or None,
            "fee_due": f"{entry.fee_due:.2f}",
            "paid": f"{rules.paid(entry):.2f}",
            "currency": tournament.currency,
            "language": entry.language,
            "entered_at": _when(entry.entered_at),
            "contact_erased_at": _when(entry.contact_erased_at),
        },
        "payments": payments,
        "messages": messages,
        "downloaded_at": timezone.now().isoformat(),
    }
