"""Fees taken for entries: a payment recorded (at the desk, or by the treasurer), a refund, a fee
waived, and a payment recorded by mistake deleted with its record kept in its history.

Why a mistake is deleted rather than corrected by a counter-entry: the treasurer's totals are
per method (docs/guide, "Fees at the desk"), so a cash payment typed as 100 instead of 10 and
"corrected" by a refund of 90 would say that 100 came into the cash box and 90 went out of it,
neither of which happened; and a fee waived by mistake has no counter-entry at all (only a refund
is negative, and a refund is money handed back). Deleting it leaves every total true, and its
history (who recorded it, who deleted it, and why) says what was put right."""

from decimal import Decimal, InvalidOperation

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Sum
from django.utils.translation import gettext as _

from entries.models import Entry, Payment

Method = Payment.Method

# The largest amount the column holds (8 digits, 2 of them decimals).
LARGEST = Decimal("999999.99")
# The methods that take money in (a waived fee is settled, but no money came).
MONEY_IN = (Method.CASH, Method.CHEQUE, Method.CARD, Method.TRANSFER)


def money_paid(entry: Entry) -> Decimal:
    """The money an entry has paid and not had back: what a refund may give back at most."""
    money = entry.payments.filter(method__in=[*MONEY_IN, Method.REFUND])
    return money.aggregate(total=Sum("amount"))["total"] or Decimal(0)


def _amount(value) -> Decimal:
    """The amount typed, as a Decimal of at most 2 places (ValidationError by field)."""
    if isinstance(value, bool) or value is None or (isinstance(value, str) and not value.strip()):
        raise ValidationError({"amount": [_("Give an amount.")]})
    try:
        amount = Decimal(str(value).strip().replace(",", "."))
    except InvalidOperation:
        raise ValidationError(
            {"amount": [_("The amount must be a number, such as 12.50.")]}
        ) from None
    if not amount.is_finite():
        raise ValidationError(
            {"amount": [_("The amount must be a number, such as 12.50.")]}
        ) from None
    if amount != amount.quantize(Decimal("0.01")):
        raise ValidationError({"amount": [_("The amount has at most 2 decimal places.")]})
    if abs(amount) > LARGEST:
        raise ValidationError(
            {"amount": [_("The amount is at most %(largest)s.") % {"largest": LARGEST}]}
        )
    return amount.quantize(Decimal("0.01"))


def _text(value, field: str, too_long: str, *, most: int) -> str:
    """A note or reason as stored, stripped; not a text, too long, or holding a NUL character
    (which PostgreSQL refuses in text) is a ValidationError naming the field."""
    value = "" if value is None else value
    if not isinstance(value, str) or len(value) > most:
        raise ValidationError({field: [too_long]})
    if "\x00" in value:
        raise ValidationError({field: [_("The text contains a NUL character: type it again.")]})
    return value.strip()


@transaction.atomic
def record_payment(*, entry: Entry, amount, method: str, note: str = "", by=None) -> Payment:
    """Record a payment for the entry: a positive amount by cash, cheque, card, transfer or
    waived (a waived amount counts as settled), or a refund, a negative amount of at most the
    money paid. Each wrong value is a ValidationError naming its field; nothing is stored then.
    The entry's row is locked while its payments are summed, so that two refunds at once cannot
    give back more than was paid."""
    if method not in Method.values:
        choices = ", ".join(Method.values)
        raise ValidationError(
            {"method": [_("The method is one of: %(choices)s.") % {"choices": choices}]}
        )
    note = _text(note, "note", _("The note is a text of at most 300 characters."), most=300)
    amount = _amount(amount)
    if amount == 0:
        raise ValidationError({"amount": [_("The amount cannot be 0.")]})
    entry = Entry.objects.select_for_update().get(pk=entry.pk)
    if method == Method.REFUND:
        if amount > 0:
            raise ValidationError({"amount": [_("A refund is a negative amount, such as -10.00.")]})
        paid = money_paid(entry)
        if -amount > paid:
            message = _("A refund is at most the money paid and not yet given back: %(paid)s.") % {
                "paid": f"{paid:.2f}"
            }
            raise ValidationError({"amount": [message]})
    elif amount < 0:
        raise ValidationError(
            {"amount": [_("Only a refund is negative: record this as a positive amount.")]}
        )
    payment = Payment(entry=entry, amount=amount, method=method, note=note, recorded_by=by)
    if by is not None:
        payment._history_user = by
    payment.save()
    return payment


@transaction.atomic
def delete_payment(*, payment: Payment, by=None, reason: str = "") -> None:
    """Delete a payment recorded by mistake; its history keeps it, with who deleted it and why.
    A deletion that would leave more refunded than paid is refused (delete the refund first)."""
    reason = _text(reason, "reason", _("The reason is at most 100 characters."), most=100)
    if not reason:
        raise ValidationError({"reason": [_("Say why the payment is deleted.")]})
    entry = Entry.objects.select_for_update().get(pk=payment.entry_id)
    payment = Payment.objects.get(pk=payment.pk)
    if payment.method in MONEY_IN and money_paid(entry) - payment.amount < 0:
        raise ValidationError(
            {
                "payment": [
                    _("Deleting it would leave more refunded than paid: delete the refund first.")
                ]
            }
        )
    if by is not None:
        payment._history_user = by
    payment._change_reason = reason
    payment.delete()
