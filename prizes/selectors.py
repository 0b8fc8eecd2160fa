"""Prize tables read: each scope's table with its cash worked out (prizes.money) from the pot
of its fees, who gets what once the placings are decided, and the awards put on the results
(scoring.awards asks put_awards; the results page, its PDF and the certificates show them)."""

from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Q, Sum
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from entries.models import Entry, Payment
from prizes import money
from prizes.models import Prize, PrizeTable
from scoring.results import FinalResults
from tournaments.models import Division, Tournament


@dataclass
class Worked:
    """A table with its cash worked out: the pot (None for a table of typed amounts), each
    prize's cash, what rounding left and what the house keeps (both None without a pot)."""

    table: PrizeTable
    prizes: list[Prize]
    offered: list[money.Offered]
    pot: Decimal | None = None
    remainder: Decimal | None = None
    house: Decimal | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def booby(self) -> Prize | None:
        return next((p for p in self.prizes if p.place is None), None)

    @property
    def places(self) -> list[Prize]:
        return [p for p in self.prizes if p.place is not None]

    def cash_of(self, prize: Prize) -> Decimal | None:
        return next((o.cash for o in self.offered if o.place == prize.place), None)


def scope_name(division: Division | None) -> str:
    """'Whole event', 'Division 60-69' or 'Flight A', as the pages and the export name a table (a
    flight is a division made by a split: its prizes are a division's)."""
    if division is None:
        return _("Whole event")
    return division.title


def scope_in_sentence(division: Division | None) -> str:
    """The scope inside a sentence ("the prizes of the whole event", "... of Flight A"): a
    heading's "Whole event" would read with a capital in the middle of one."""
    if division is None:
        return _("the whole event")
    return division.title


def scope_key(division: Division | None) -> str:
    """The scope in the API's addresses and the export: 'event' or 'division-<id>'."""
    return "event" if division is None else f"division-{division.pk}"


def tables_of(tournament: Tournament) -> dict[int | None, PrizeTable]:
    """The tournament's tables by division (None: the whole event's)."""
    tables = PrizeTable.objects.filter(tournament=tournament).prefetch_related("prizes")
    return {table.division_id: table for table in tables}


def pot(tournament: Tournament, division: Division | None, basis: str) -> Decimal:
    """The fees of the scope's entered entries: the money collected (payments less refunds; a
    fee waived brings none), or the fees due (entries times fee, a division's fee where it has one).
    A division's are those of the entries whose player is in it."""
    entered = Q(tournament=tournament, status=Entry.Status.ENTERED)
    if division is not None:
        entered &= Q(player__division=division)
    if basis == PrizeTable.Basis.DUE:
        total = Entry.objects.filter(entered).aggregate(total=Sum("fee_due"))["total"]
    else:
        entries = Entry.objects.filter(entered)
        total = (
            Payment.objects.filter(entry__in=entries)
            .exclude(method=Payment.Method.WAIVED)
            .aggregate(total=Sum("amount"))["total"]
        )
    return max(total or Decimal(0), Decimal(0))


def worked_out(table: PrizeTable, prizes: list[Prize] | None = None) -> Worked:
    """The table's cash: typed amounts as they are; percentages of the pot (the one kept at
    the announcement, else the fees of now) shared out by prizes.money.split_pot."""
    prizes = list(table.prizes.all()) if prizes is None else prizes
    prizes.sort(key=lambda p: (p.place is None, p.place or 0))
    if not table.from_fees:
        offered = [money.Offered(p.place, p.amount, p.item) for p in prizes]
        return Worked(table, prizes, offered)
    total = table.announced_pot
    if total is None:
        total = pot(table.tournament, table.division, table.basis)
    shared = [p for p in prizes if p.percent is not None]
    split = money.split_pot(total, [p.percent for p in shared], table.step, table.remainder_to)
    cash = {id(p): amount for p, amount in zip(shared, split.amounts, strict=True)}
    offered = [money.Offered(p.place, cash.get(id(p)), p.item) for p in prizes]
    return Worked(table, prizes, offered, total, split.remainder, split.house)


def placed_in(results: FinalResults, division: Division | None) -> list[tuple[int, int]]:
    """(player, place) of each placed player of the scope: everyone's places for the whole
    event, the division's own places for a division (a player who withdrew has none)."""
    if division is None:
        return [(p.player.pk, p.place) for p in results.placings]
    return [
        (p.player.pk, p.division_place)
        for p in results.placings
        if p.division is not None and p.division.pk == division.pk and p.division_place
    ]


def cash_text(amount: Decimal, currency: str) -> str:
    """'50.00 USD', in the active language's decimals ('50,00 USD' in Spanish)."""
    return f"{number_format(amount, decimal_pos=2)} {currency}"


def award_text(award: money.Award, currency: str) -> str:
    """What the results say a player won: '50.00 USD · Trophy', '25.00 USD (shared by 2)',
    'Booby prize: Wooden spoon'."""
    parts = []
    if award.cash is not None and award.cash > 0:
        parts.append(cash_text(award.cash, currency))
    parts += award.items
    text = " · ".join(parts)
    if award.shared_by > 1:
        text += " " + ngettext(
            "(shared by %(count)s)", "(shared by %(count)s)", award.shared_by
        ) % {"count": award.shared_by}
    if award.booby:
        text = _("Booby prize: %(prize)s") % {"prize": text}
    return text


def awards_of(worked: Worked, results: FinalResults) -> list[money.Award]:
    """Who gets what of a table, once the placings are decided (prizes.money.awards)."""
    if not results.decided:
        return []
    return money.awards(worked.offered, placed_in(results, worked.table.division))[0]


def put_awards(results: FinalResults) -> None:
    """The announced tables' awards on the placed players of the results: `prize` (the whole
    event's table) and `division_prize` (their division's), as text in the active language.
    Nothing before the placings are decided, nor of a table not announced."""
    if not results.decided:
        return
    currency = results.tournament.currency
    by_player = {placed.player.pk: placed for placed in results.placings}
    for table in tables_of(results.tournament).values():
        if not table.announced:
            continue
        for award in awards_of(worked_out(table), results):
            placed = by_player[award.player]
            text = award_text(award, currency)
            if table.division_id is None:
                placed.prize = text
            else:
                placed.division_prize = text
