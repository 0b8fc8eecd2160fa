"""Reads of an entry for its entrant: everything kept about it, as they may download it."""

from typing import Any

from django.utils import timezone

from entries import rules
from entries.models import Entry
from entries.services import mail


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
