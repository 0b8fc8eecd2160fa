"""Every change of a prize table: saved (its settings and rows, all at once), announced (locked,
its pot kept) and unlocked (with a reason, logged). Each locks the tournament's row first, as
entries' writes do, so two organisers saving and announcing at once are served one after the
other: an announcement names the version it showed, and is refused if the table changed since.

A bad input is a ValidationError that names the row and changes nothing; a table announced is a
StateConflict that says how to change it (unlock it, saying why)."""

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from prizes import money
from prizes.models import Prize, PrizeEvent, PrizeTable
from tournaments.exceptions import StateConflict
from tournaments.models import Division, Tournament

LARGEST = Decimal("99999999.99")  # the amount column's 10 digits, 2 of them decimals
ITEM_LONGEST = 120
REASON_LONGEST = 300
MOST_PLACES = 100


@dataclass(frozen=True)
class Row:
    """A row as typed or sent: the place ("" or None for the booby prize), the cash (an amount,
    or a percentage on a table paid from the fees) and the item, each as given."""

    place: object = None
    cash: object = None
    item: object = ""


def _lock(tournament: Tournament, division: Division | None) -> PrizeTable:
    """The scope's table, made if new, with the tournament's row locked for the transaction."""
    Tournament.objects.select_for_update().get(pk=tournament.pk)
    table, _made = PrizeTable.objects.get_or_create(tournament=tournament, division=division)
    return table


def _who(user) -> str:
    return user.get_username() if user is not None and user.is_authenticated else ""


def rows_of(table: PrizeTable) -> list[dict]:
    """The table's prizes as the log and the API keep them."""
    return [
        {
            "place": p.place,
            "amount": None if p.amount is None else f"{p.amount:.2f}",
            "percent": None if p.percent is None else f"{p.percent:.2f}",
            "item": p.item,
        }
        for p in table.prizes.order_by("place")
    ]


def _log(table: PrizeTable, action: str, by, reason: str = "") -> None:
    PrizeEvent.objects.create(
        table=table,
        action=action,
        actor=by if by is not None and by.is_authenticated else None,
        actor_name=_who(by),
        reason=reason,
        rows=rows_of(table),
    )


def _refuse_announced(table: PrizeTable) -> None:
    if table.announced:
        raise StateConflict(
            _(
                "These prizes were announced on %(when)s and are locked: unlock them first, "
                "saying why, to change them."
            )
            % {
                "when": timezone.localtime(table.announced_at, table.tournament.zone).strftime(
                    "%Y-%m-%d %H:%M"
                )
            }
        )


def _place(value: object, number: int) -> int | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, bool):
        value = "x"
    try:
        place = int(str(value).strip())
    except ValueError:
        raise ValidationError(
            _("Row %(row)s: the place “%(value)s” is not a whole number.")
            % {"row": number, "value": str(value)[:20]}
        ) from None
    if not 1 <= place <= MOST_PLACES:
        raise ValidationError(
            _("Row %(row)s: place %(place)s is not a place; places run from 1 to %(most)s.")
            % {"row": number, "place": place, "most": MOST_PLACES}
        )
    return place


def _number(value: object, what: str) -> Decimal | None:
    """A cash figure typed ("12.50", "12,50") or sent, of at most 2 places; None when blank."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    try:
        if isinstance(value, bool):
            raise InvalidOperation
        number = Decimal(str(value).strip().replace(",", "."))
        if not number.is_finite():
            raise InvalidOperation
    except InvalidOperation:
        raise ValidationError(
            _("%(what)s: “%(value)s” is not a number, such as 12.50.")
            % {"what": what, "value": str(value)[:20]}
        ) from None
    if number != number.quantize(Decimal("0.01")):
        raise ValidationError(_("%(what)s: at most 2 decimal places.") % {"what": what})
    if number < 0:
        raise ValidationError(
            _("%(what)s: %(value)s is below 0; a prize is 0 or more.")
            % {"what": what, "value": number}
        )
    if number > LARGEST:
        raise ValidationError(
            _("%(what)s: at most %(largest)s.") % {"what": what, "largest": LARGEST}
        )
    return number


def _item(value: object, what: str) -> str:
    item = "" if value is None else str(value).strip()
    if "\x00" in item or len(item) > ITEM_LONGEST:
        raise ValidationError(
            _("%(what)s: an item's description is at most %(most)s characters.")
            % {"what": what, "most": ITEM_LONGEST}
        )
    return item


def parse_rows(rows: list[Row], booby: Row | None, *, from_fees: bool) -> list[Prize]:
    """The rows as unsaved Prizes, checked; blank rows dropped. ValidationError names the row."""
    prizes: list[Prize] = []
    seen: dict[int, int] = {}
    for number, row in enumerate(rows, start=1):
        place = _place(row.place, number)
        what = (
            _("Row %(row)s") % {"row": number}
            if place is None
            else _("Place %(place)s") % {"place": place}
        )
        cash = _number(row.cash, what)
        item = _item(row.item, what)
        if place is None:
            if cash is None and not item:
                continue  # a blank row of the form
            raise ValidationError(
                _("Row %(row)s has a prize but no place: give its place (1, 2, 3 ...).")
                % {"row": number}
            )
        if place in seen:
            raise ValidationError(
                _("Place %(place)s is in rows %(first)s and %(again)s: give each place one row.")
                % {"place": place, "first": seen[place], "again": number}
            )
        seen[place] = number
        if cash is None and not item:
            raise ValidationError(
                _("Place %(place)s has no prize: give an amount or an item, or empty its row.")
                % {"place": place}
            )
        prizes.append(_prize(place, cash, item, from_fees=from_fees, what=what))
    if booby is not None:
        what = _("The booby prize")
        cash, item = _number(booby.cash, what), _item(booby.item, what)
        if cash is not None or item:
            prizes.append(_prize(None, cash, item, from_fees=from_fees, what=what))
    if from_fees:
        percents = [p.percent for p in prizes if p.percent is not None]
        if (total := sum(percents, Decimal(0))) > money.HUNDRED:
            raise ValidationError(
                _(
                    "The percentages add up to %(total)s%%: at most 100%% of the fees can be "
                    "shared out."
                )
                % {"total": plain(total)}
            )
    return prizes


def _prize(place, cash, item, *, from_fees: bool, what: str) -> Prize:
    if from_fees and cash is not None:
        if not 0 < cash <= money.HUNDRED:
            raise ValidationError(
                _("%(what)s: %(value)s%% is not a share; give a percentage above 0, at most 100.")
                % {"what": what, "value": plain(cash)}
            )
        return Prize(place=place, percent=cash, item=item)
    return Prize(place=place, amount=cash, item=item)


def plain(number: Decimal) -> str:
    """110, 12.5: a figure as typed, never 1.1E+2."""
    return format(number.normalize(), "f")


def _choice(value: object, choices, what: str) -> str:
    if value not in dict(choices):
        raise ValidationError(
            _("%(what)s: “%(value)s” is not one of %(choices)s.")
            % {"what": what, "value": str(value)[:20], "choices": ", ".join(dict(choices))}
        )
    return str(value)


def _step(value: object) -> Decimal:
    try:
        step = Decimal(str(value).strip())
    except InvalidOperation:
        step = None
    if step not in PrizeTable.STEPS:
        raise ValidationError(
            _("Rounding: “%(value)s” is not one of %(choices)s.")
            % {
                "value": str(value)[:20],
                "choices": ", ".join(plain(s) for s in PrizeTable.STEPS),
            }
        )
    return step


@transaction.atomic
def save_table(
    *,
    tournament: Tournament,
    division: Division | None,
    basis: object,
    rows: list[Row],
    booby: Row | None = None,
    step: object = "1",
    remainder_to: object = PrizeTable.RemainderTo.HOUSE,
    by=None,
) -> PrizeTable:
    """The scope's table as given, every row replaced; refused (nothing changed) when a row is
    wrong or the table is announced."""
    basis = _choice(basis, PrizeTable.Basis.choices, _("Paid from"))
    remainder_to = _choice(remainder_to, PrizeTable.RemainderTo.choices, _("Remainder to"))
    step = _step(step)
    prizes = parse_rows(rows, booby, from_fees=basis != PrizeTable.Basis.AMOUNTS)
    table = _lock(tournament, division)
    _refuse_announced(table)
    table.basis, table.step, table.remainder_to = basis, step, remainder_to
    table.version += 1
    table.save()
    table.prizes.all().delete()
    for prize in prizes:
        prize.table = table
    Prize.objects.bulk_create(prizes)
    _log(table, PrizeEvent.Action.SAVED, by)
    return table


@transaction.atomic
def announce(
    *, tournament: Tournament, division: Division | None, by=None, version: int | None = None
) -> PrizeTable:
    """The table announced: locked, its pot (for a table paid from the fees) kept as it is now.
    Refused when already announced, when it has no prizes, or when `version` (what the organiser
    was shown) is not the table's now."""
    from prizes.selectors import pot  # here: the selectors read entries' fees

    table = _lock(tournament, division)
    _refuse_announced(table)
    if version is not None and version != table.version:
        raise StateConflict(
            _(
                "These prizes were changed since you looked at them (by another organiser?): "
                "check them again, then announce."
            )
        )
    if not table.prizes.exists():
        raise StateConflict(_("This table has no prizes yet: add at least one, then announce."))
    if table.from_fees:
        table.announced_pot = pot(tournament, division, table.basis)
    table.announced_at, table.announced_by = timezone.now(), by
    table.version += 1
    table.save()
    _log(table, PrizeEvent.Action.ANNOUNCED, by)
    return table


@transaction.atomic
def unlock(
    *, tournament: Tournament, division: Division | None, reason: object, by=None
) -> PrizeTable:
    """An announced table unlocked to change it, with the reason (kept in its log with who did
    it). The pot is worked out again from the fees of now until it is announced again."""
    reason = "" if reason is None else str(reason).strip()
    if not reason:
        raise ValidationError(
            _("Say why the announced prizes are unlocked (it is kept in the table's log).")
        )
    if len(reason) > REASON_LONGEST or "\x00" in reason:
        raise ValidationError(_("The reason is at most %(most)s characters.") % {"most": 300})
    table = _lock(tournament, division)
    if not table.announced:
        raise StateConflict(_("These prizes are not announced: they can be changed as they are."))
    table.announced_at = table.announced_by = table.announced_pot = None
    table.version += 1
    table.save()
    _log(table, PrizeEvent.Action.UNLOCKED, by, reason)
    return table
