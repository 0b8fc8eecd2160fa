"""What entries are open to, read without writing: whether a tournament takes entries now, how
many places are held, what an entry owes and has paid."""

from decimal import Decimal

from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from entries.models import Entry
from tournaments.models import Division, Player, Tournament
from tournaments.selectors import NOT_STARTED, tournament_status


def seating_begun(tournament: Tournament) -> bool:
    return tournament_status(tournament) != NOT_STARTED


def closed_reason(tournament: Tournament, now=None) -> str | None:
    """Why the tournament takes no entries now, or None while it does: between its opening and
    closing times, or with no closing time until its first stage is seated."""
    now = now or timezone.now()
    zone = tournament.zone
    if tournament.entries_open_at is None:
        return _("%(tournament)s does not take entries here: ask its organisers.") % {
            "tournament": tournament.name
        }
    if now < tournament.entries_open_at:
        return _("Entries to %(tournament)s open on %(when)s.") % {
            "tournament": tournament.name,
            "when": timezone.localtime(tournament.entries_open_at, zone).strftime("%Y-%m-%d %H:%M"),
        }
    if tournament.entries_close_at is not None and now >= tournament.entries_close_at:
        return _("Entries to %(tournament)s closed on %(when)s.") % {
            "tournament": tournament.name,
            "when": timezone.localtime(tournament.entries_close_at, zone).strftime(
                "%Y-%m-%d %H:%M"
            ),
        }
    if seating_begun(tournament):
        return _("Entries to %(tournament)s closed when its first tables were seated.") % {
            "tournament": tournament.name
        }
    return None


def places_held(tournament: Tournament) -> int:
    """Places taken: the tournament's players not withdrawn (entered here, at the desk or by an
    import alike) and the places offered to waiting entries, held until taken or expired."""
    players = Player.objects.filter(tournament=tournament).exclude(status=Player.Status.WITHDRAWN)
    offered = Entry.objects.filter(tournament=tournament, status=Entry.Status.OFFERED)
    return players.count() + offered.count()


def places_free(tournament: Tournament) -> int | None:
    """Places left under the cap (never below 0); None without a cap."""
    if tournament.capacity is None:
        return None
    return max(tournament.capacity - places_held(tournament), 0)


def waits(tournament: Tournament) -> bool:
    """Whether a new entry would wait on the waitlist (or, without one, be refused as full)
    rather than take a place: no place free under the cap, or others waiting already, who come
    first. Entering (entries.services.entering) and the forms that say so read it here."""
    free = places_free(tournament)
    if free is None:
        return False
    return (
        free == 0
        or Entry.objects.filter(tournament=tournament, status=Entry.Status.WAITLISTED).exists()
    )


def fee_for(tournament: Tournament, division: Division | None) -> Decimal:
    """The fee an entry owes: its division's own, else the tournament's, else nothing."""
    if division is not None and division.entry_fee is not None:
        return division.entry_fee
    return tournament.entry_fee or Decimal(0)


def paid(entry: Entry) -> Decimal:
    """What an entry has paid, net of refunds (a waived fee counts as paid)."""
    return entry.payments.aggregate(total=Sum("amount"))["total"] or Decimal(0)


def erase_withdraws(entry: Entry) -> bool:
    """Whether erasing the entrant's details withdraws the entry: a waiting or offered one could
    no longer be told of a place, and one entered before its first stage is seated gives its
    place back; once play has begun an entered entry stays, its name in the results."""
    return entry.live and (
        entry.status != Entry.Status.ENTERED or not seating_begun(entry.tournament)
    )


def owes(entry: Entry, settled: Decimal | None = None) -> Decimal:
    """What an entry still owes: its fee due less what is settled (paid or waived), never below
    0; only an entered entry owes (one waiting owes nothing yet, one out nothing any more)."""
    if entry.status != Entry.Status.ENTERED:
        return Decimal(0)
    settled = paid(entry) if settled is None else settled
    return max(entry.fee_due - settled, Decimal(0))


def fee_totals(tournament: Tournament) -> dict:
    """The treasurer's totals: the sum of each method (refunds negative), what was settled in
    all, the fees due by the entries entered, and what they still owe."""
    from entries.models import Payment

    by_method = dict(
        Payment.objects.filter(entry__tournament=tournament)
        .values_list("method")
        .annotate(total=Sum("amount"))
        .order_by()
    )
    methods = [
        (value, label, by_method.get(value, Decimal(0))) for value, label in Payment.Method.choices
    ]
    entered = Entry.objects.filter(tournament=tournament, status=Entry.Status.ENTERED)
    due = entered.aggregate(total=Sum("fee_due"))["total"] or Decimal(0)
    rows = desk_rows(tournament)
    return {
        "methods": methods,
        "money": sum((t for v, _l, t in methods if v != Payment.Method.WAIVED), Decimal(0)),
        "settled": sum((t for _v, _l, t in methods), Decimal(0)),
        "due": due,
        "owed": sum((row["owes"] for row in rows), Decimal(0)),
        "owing": sum(1 for row in rows if row["owes"] > 0),
    }


def desk_rows(tournament: Tournament) -> list[dict]:
    """Each player with an entry (entered), by badge number: the fee due, what is settled, and
    what they still owe."""
    entries = (
        Entry.objects.filter(tournament=tournament, status=Entry.Status.ENTERED)
        .select_related("player")
        .annotate(settled=Sum("payments__amount"))
        .order_by("player__number", "pk")
    )
    return [
        {
            "entry": entry,
            "number": entry.player.number if entry.player_id else None,
            "settled": entry.settled or Decimal(0),
            "owes": owes(entry, entry.settled or Decimal(0)),
        }
        for entry in entries
    ]
