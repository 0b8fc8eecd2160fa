"""The entries' CSV exports, written as the other exports are (scoring/exports.py: UTF-8 with a
byte-order mark, spreadsheet formulas neutralised), for the organisers only."""

from collections.abc import Iterator
from datetime import datetime
from decimal import Decimal

from django.db.models import Sum
from django.utils import timezone

from entries.models import Entry, Payment
from tournaments.models import Tournament

ENTRIES_HEADER = (
    "id", "status", "waitlist_position", "number", "name", "email", "phone", "household",
    "division", "club", "chapter", "fee_due", "paid", "entered_at",
)  # fmt: skip
PAYMENTS_HEADER = (
    "entry", "number", "name", "amount", "method", "note", "recorded_by", "recorded_at",
)  # fmt: skip


def _local(moment: datetime, tournament: Tournament) -> str:
    """A time in the tournament's zone with its offset, as scoring's exports write it."""
    return timezone.localtime(moment, tournament.zone).isoformat(timespec="seconds")


def _money(amount: Decimal | None) -> Decimal:
    """An amount with its 2 places, as a number: a refund's "-5.00" is not taken for a formula
    (only text cells are neutralised)."""
    return (amount or Decimal(0)).quantize(Decimal("0.01"))


def entries_rows(tournament: Tournament) -> Iterator[tuple]:
    entries = (
        Entry.objects.filter(tournament=tournament)
        .select_related("player", "division")
        .annotate(settled=Sum("payments__amount"))
        .order_by("entered_at", "pk")
    )
    for e in entries.iterator():
        yield (
            e.pk,
            e.status,
            e.waitlist_position or "",
            e.player.number if e.player_id else "",
            e.name,
            e.email,
            e.phone,
            e.household,
            e.division.name if e.division_id else "",
            e.club,
            e.chapter,
            _money(e.fee_due),
            _money(e.settled),
            _local(e.entered_at, tournament),
        )


def payments_rows(tournament: Tournament) -> Iterator[tuple]:
    payments = (
        Payment.objects.filter(entry__tournament=tournament)
        .select_related("entry__player", "recorded_by")
        .order_by("recorded_at", "pk")
    )
    for p in payments.iterator():
        yield (
            p.entry_id,
            p.entry.player.number if p.entry.player_id else "",
            p.entry.name,
            _money(p.amount),
            p.method,
            p.note,
            p.recorded_by.get_username() if p.recorded_by else "",
            _local(p.recorded_at, tournament),
        )


EXPORTS = {
    "entries": (ENTRIES_HEADER, entries_rows),
    "payments": (PAYMENTS_HEADER, payments_rows),
}
