"""Reads for the organisers' messages: who each group reaches, and every message sent with its
counts (the console's Messages page and the messages API)."""

from django.db.models import Count, Q, QuerySet

from entries.models import Delivery, Entry, Message
from tournaments.models import Player, Tournament

To = Message.To


def group(tournament: Tournament, to: str) -> QuerySet[Entry]:
    """The entries a message to `to` goes to: entrants (entered or offered a place), the
    waitlist (waiting), players (entered, their player not withdrawn), not checked in (entered,
    their player registered and not checked in); only those who agreed to mail and whose
    address is still kept."""
    reachable = tournament.entries.filter(messages_ok=True, contact_erased_at__isnull=True)
    reachable = reachable.exclude(email="")
    if to == To.ENTRANTS:
        return reachable.filter(status__in=[Entry.Status.ENTERED, Entry.Status.OFFERED])
    if to == To.WAITLIST:
        return reachable.filter(status=Entry.Status.WAITLISTED)
    if to == To.PLAYERS:
        return reachable.filter(status=Entry.Status.ENTERED, player__isnull=False).exclude(
            player__status=Player.Status.WITHDRAWN
        )
    if to == To.NOT_CHECKED_IN:
        return reachable.filter(
            status=Entry.Status.ENTERED, player__status=Player.Status.REGISTERED
        )
    raise ValueError(to)


def group_sizes(tournament: Tournament) -> dict[str, int]:
    return {to: group(tournament, to).count() for to in To.values}


def messages(tournament: Tournament) -> QuerySet[Message]:
    """Every message of the tournament, the newest first, with `recipients` (its deliveries),
    `sent`, `pending` and `failed` counted."""
    return (
        tournament.messages.select_related("stage", "created_by")
        .annotate(
            recipients=Count("deliveries"),
            sent=Count("deliveries", filter=Q(deliveries__status=Delivery.Status.SENT)),
            pending=Count("deliveries", filter=Q(deliveries__status=Delivery.Status.PENDING)),
            failed=Count("deliveries", filter=Q(deliveries__status=Delivery.Status.FAILED)),
        )
        .order_by("-created_at", "-pk")
    )


def failures(message_ids: list[int]) -> dict[int, list[Delivery]]:
    """The failed deliveries of these messages, by message: who, and the mail server's answer."""
    failed: dict[int, list[Delivery]] = {}
    for delivery in (
        Delivery.objects.filter(message_id__in=message_ids, status=Delivery.Status.FAILED)
        .select_related("entry")
        .order_by("pk")
    ):
        failed.setdefault(delivery.message_id, []).append(delivery)
    return failed
