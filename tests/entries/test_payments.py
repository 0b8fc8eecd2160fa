"""Fees through the API and the console's Fees page: each method recorded, each bad value a 400
naming its field with nothing stored, a refund at most the money paid, a payment recorded by
mistake deleted with its history kept, the treasurer's totals, and the desk's part of the
check-in page."""

from decimal import Decimal

import pytest
from django.test import Client

from entries.models import Payment
from entries.services import payments
from tests.entries.helpers import enter, open_tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def fee_tournament(tournament):
    from datetime import timedelta

    from django.utils import timezone

    tournament.entries_open_at = timezone.now() - timedelta(hours=1)
    tournament.entry_fee = Decimal("20")
    tournament.currency = "EUR"
    tournament.save()
    return tournament


def url(entry) -> str:
    return f"/api/v1/tournaments/{entry.tournament.slug}/entries/{entry.pk}/payments/"


@pytest.mark.parametrize(
    ("method", "amount"),
    [("cash", "20.00"), ("cheque", "20"), ("card", "12.5"), ("transfer", "1"), ("waived", "20")],
)
def test_each_method_is_recorded_and_counts_as_paid(as_organiser, fee_tournament, method, amount):
    ann = enter(fee_tournament, "Ann Abbott")
    answer = as_organiser.post(url(ann), {"amount": amount, "method": method}, format="json")
    assert answer.status_code == 201, answer.json()
    assert answer.json()["method"] == method
    assert answer.json()["amount"] == f"{Decimal(amount):.2f}"
    assert answer.json()["recorded_by"] == as_organiser.handler._force_user.username
    entry = as_organiser.get(f"/api/v1/tournaments/{fee_tournament.slug}/entries/{ann.pk}/")
    assert entry.json()["paid"] == f"{Decimal(amount):.2f}"
    listed = as_organiser.get(url(ann)).json()
    assert [(p["amount"], p["method"]) for p in listed] == [(f"{Decimal(amount):.2f}", method)]


@pytest.mark.parametrize(
    ("body", "field", "said"),
    [
        ({"amount": "10", "method": "bitcoin"}, "method", "one of"),
        ({"method": "cash"}, "amount", "Give an amount"),
        ({"amount": "", "method": "cash"}, "amount", "Give an amount"),
        ({"amount": "ten", "method": "cash"}, "amount", "must be a number"),
        ({"amount": "NaN", "method": "cash"}, "amount", "must be a number"),
        ({"amount": "1.005", "method": "cash"}, "amount", "2 decimal places"),
        ({"amount": "0", "method": "cash"}, "amount", "cannot be 0"),
        ({"amount": "-5", "method": "cash"}, "amount", "Only a refund is negative"),
        ({"amount": "-5", "method": "waived"}, "amount", "Only a refund is negative"),
        ({"amount": "5", "method": "refund"}, "amount", "negative amount"),
        ({"amount": "1000000", "method": "cash"}, "amount", "at most"),
        ({"amount": "5", "method": "cash", "note": "x" * 301}, "note", "300"),
        ({"amount": "5", "method": "cash", "note": "cheque\x00"}, "note", "NUL"),
        ({"amount": True, "method": "cash"}, "amount", "Give an amount"),
    ],
)
def test_a_bad_payment_is_a_400_naming_the_field_and_stores_nothing(
    as_organiser, fee_tournament, body, field, said
):
    ann = enter(fee_tournament, "Ann Abbott")
    answer = as_organiser.post(url(ann), body, format="json")
    assert answer.status_code == 400
    assert said in " ".join(answer.json()[field])
    assert Payment.objects.count() == 0


def test_a_refund_gives_back_at_most_the_money_paid(as_organiser, fee_tournament):
    ann = enter(fee_tournament, "Ann Abbott")
    as_organiser.post(url(ann), {"amount": "15", "method": "cash"}, format="json")
    as_organiser.post(url(ann), {"amount": "5", "method": "waived"}, format="json")
    # The waived 5 is settled, but no money came: only the 15 can be handed back.
    too_much = as_organiser.post(url(ann), {"amount": "-15.01", "method": "refund"}, format="json")
    assert too_much.status_code == 400 and "15.00" in too_much.json()["amount"][0]
    first = as_organiser.post(url(ann), {"amount": "-10", "method": "refund"}, format="json")
    assert first.status_code == 201 and first.json()["amount"] == "-10.00"
    again = as_organiser.post(url(ann), {"amount": "-5.01", "method": "refund"}, format="json")
    assert again.status_code == 400 and "5.00" in again.json()["amount"][0]
    rest = as_organiser.post(url(ann), {"amount": "-5", "method": "refund"}, format="json")
    assert rest.status_code == 201
    assert sorted(Payment.objects.values_list("amount", flat=True)) == [
        Decimal("-10"), Decimal("-5"), Decimal("5"), Decimal("15"),
    ]  # fmt: skip


def test_nothing_refunds_an_entry_that_paid_nothing(as_organiser, fee_tournament):
    ann = enter(fee_tournament, "Ann Abbott")
    answer = as_organiser.post(url(ann), {"amount": "-1", "method": "refund"}, format="json")
    assert answer.status_code == 400 and "0.00" in answer.json()["amount"][0]
    assert not Payment.objects.exists()


def test_only_the_tournaments_organisers_record_or_list_payments(
    anon, as_official, as_other_organiser, as_organiser, fee_tournament
):
    ann = enter(fee_tournament, "Ann Abbott")
    body = {"amount": "20", "method": "cash"}
    assert anon.post(url(ann), body, format="json").status_code in (401, 403)
    assert as_official.post(url(ann), body, format="json").status_code == 403
    assert as_other_organiser.post(url(ann), body, format="json").status_code == 403
    assert as_official.get(url(ann)).status_code == 403
    assert not Payment.objects.exists()
    other = enter(open_tournament(), "Bob Brown")
    wrong = f"/api/v1/tournaments/{fee_tournament.slug}/entries/{other.pk}/payments/"
    assert as_organiser.post(wrong, body, format="json").status_code == 404


def test_a_payment_recorded_by_mistake_is_deleted_and_its_history_keeps_it(
    as_organiser, as_official, fee_tournament
):
    ann = enter(fee_tournament, "Ann Abbott")
    typo = as_organiser.post(url(ann), {"amount": "200", "method": "cash"}, format="json").json()
    at = f"{url(ann)}{typo['id']}/"
    assert as_official.delete(at, {"reason": "typo"}, format="json").status_code == 403
    no_reason = as_organiser.delete(at, {}, format="json")
    assert no_reason.status_code == 400 and "reason" in no_reason.json()
    nul = as_organiser.delete(at, {"reason": "typo\x00"}, format="json")
    assert nul.status_code == 400 and "NUL" in " ".join(nul.json()["reason"])
    assert Payment.objects.filter(id=typo["id"]).exists()
    assert as_organiser.delete(at, {"reason": "200 typed for 20"}, format="json").status_code == 204
    assert not Payment.objects.exists()
    deleted = Payment.history.get(id=typo["id"], history_type="-")
    assert deleted.amount == Decimal("200") and deleted.history_change_reason == "200 typed for 20"
    assert deleted.history_user.username == as_organiser.handler._force_user.username


def test_a_payment_that_was_refunded_is_not_deleted_before_its_refund(organiser, fee_tournament):
    ann = enter(fee_tournament, "Ann Abbott")
    paid = payments.record_payment(entry=ann, amount="20", method="cash", by=organiser)
    payments.record_payment(entry=ann, amount="-20", method="refund", by=organiser)
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError, match="refund first"):
        payments.delete_payment(payment=paid, by=organiser, reason="mistake")
    assert Payment.objects.count() == 2


def test_the_fees_page_totals_each_method_and_what_is_owed(organiser, official, fee_tournament):
    ann, bob, cid = (enter(fee_tournament, n) for n in ("Ann Abbott", "Bob Brown", "Cid Cruz"))
    payments.record_payment(entry=ann, amount="20", method="cash", by=organiser)
    payments.record_payment(entry=bob, amount="12.50", method="card", by=organiser)
    payments.record_payment(entry=cid, amount="20", method="transfer", by=organiser)
    payments.record_payment(entry=cid, amount="-5", method="refund", by=organiser)
    payments.record_payment(entry=bob, amount="7.50", method="waived", by=organiser)
    browser = Client()
    browser.force_login(official)
    assert browser.get(f"/t/{fee_tournament.slug}/manage/fees/").status_code == 403
    browser.force_login(organiser)
    page = browser.get(f"/t/{fee_tournament.slug}/manage/fees/").content.decode()
    totals = page.split('class="fee-totals"')[1].split("</table>")[0]
    for label, total in [
        ("Cash", "20.00"), ("Cheque", "0.00"), ("Card (taken elsewhere)", "12.50"),
        ("Transfer", "20.00"), ("Waived", "7.50"), ("Refund", "-5.00"),
        ("Money taken, less refunds", "47.50"), ("Fees due by the players entered", "60.00"),
    ]:  # fmt: skip
        assert f'<th scope="row">{label}</th><td>{total}</td>' in totals, label
    assert "<strong>55.00</strong>" in totals  # settled in all, waived included
    assert "Still owed (1 player)" in totals and "<strong>5.00</strong>" in totals


def test_the_desk_records_a_payment_in_one_step_cash_unless_told(organiser, fee_tournament):
    ann = enter(fee_tournament, "Ann Abbott")
    browser = Client()
    browser.force_login(organiser)
    desk = f"/t/{fee_tournament.slug}/manage/fees/desk/"
    part = browser.get(desk).content.decode()
    assert "20.00 EUR" in part and 'value="20.00"' in part
    assert '<option value="cash" selected>' in part
    pay = f"/t/{fee_tournament.slug}/manage/fees/{ann.pk}/pay/"
    answer = browser.post(pay, {"amount": "20.00", "method": "cash"}, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    assert "20.00 (Cash) recorded for Ann Abbott." in answer.content.decode()
    assert "Settled" in answer.content.decode()
    assert Payment.objects.get().method == "cash"
    wrong = browser.post(pay, {"amount": "lots", "method": "cash"}, HTTP_HX_REQUEST="true")
    assert wrong.status_code == 400 and "must be a number" in wrong.content.decode()
    assert Payment.objects.count() == 1
    # Without script: the Fees page again, saying so.
    plain = browser.post(pay, {"amount": "-20", "method": "refund"}, follow=True)
    assert "-20.00 (Refund) recorded for Ann Abbott." in plain.content.decode()


def test_the_check_in_page_loads_the_desks_fees_from_entries(organiser, fee_tournament):
    enter(fee_tournament, "Ann Abbott")
    browser = Client()
    browser.force_login(organiser)
    page = browser.get(f"/t/{fee_tournament.slug}/manage/").content.decode()
    assert f'hx-get="/t/{fee_tournament.slug}/manage/fees/desk/"' in page
    assert f'href="/t/{fee_tournament.slug}/manage/fees/"' in page  # without script, and the tab


def test_deleting_a_payment_on_the_fees_page_asks_why(organiser, fee_tournament):
    ann = enter(fee_tournament, "Ann Abbott")
    payment = payments.record_payment(entry=ann, amount="2", method="cheque", by=organiser)
    browser = Client()
    browser.force_login(organiser)
    at = f"/t/{fee_tournament.slug}/manage/fees/payments/{payment.pk}/delete/"
    refused = browser.post(at, {"reason": " "}, follow=True).content.decode()
    assert "Say why the payment is deleted." in refused and Payment.objects.exists()
    done = browser.post(at, {"reason": "wrong player"}, follow=True).content.decode()
    assert "its history keeps it" in done and not Payment.objects.exists()
