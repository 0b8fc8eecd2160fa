"""entries.csv and payments.csv: exactly their columns, their values, formula cells neutralised,
a refund's amount still a number, and for the tournament's organisers only."""

import csv
import io
from decimal import Decimal

import pytest

from entries.services import payments
from tests.entries.helpers import enter, open_tournament

pytestmark = pytest.mark.django_db


def rows(answer) -> list[list[str]]:
    body = b"".join(answer.streaming_content)
    assert body.startswith("\ufeff".encode())  # the byte-order mark, as the other exports
    return list(csv.reader(io.StringIO(body.decode("utf-8-sig"), newline="")))


@pytest.fixture
def entered(tournament, organiser):
    from datetime import timedelta

    from django.utils import timezone

    tournament.entries_open_at = timezone.now() - timedelta(hours=1)
    tournament.entry_fee = Decimal("20")
    tournament.capacity = 2
    tournament.save()
    ann = enter(tournament, "Ann Abbott", phone="555-0100", household="Abbott", club="Pines")
    bob = enter(tournament, '=HYPERLINK("x") Bob', email="bob@example.org")
    cid = enter(tournament, "Cid Cruz")  # waiting
    payments.record_payment(
        entry=ann, amount="20", method="cash", note="+ at the desk", by=organiser
    )
    payments.record_payment(entry=ann, amount="-5", method="refund", by=organiser)
    payments.record_payment(entry=bob, amount="20", method="waived", by=organiser)
    return ann, bob, cid


def test_entries_csv_has_its_columns_and_each_entrys_values(as_organiser, tournament, entered):
    ann, bob, cid = entered
    answer = as_organiser.get(f"/api/v1/tournaments/{tournament.slug}/exports/entries.csv")
    assert answer.status_code == 200 and answer["Content-Type"] == "text/csv; charset=utf-8"
    assert answer["Content-Disposition"] == f'attachment; filename="{tournament.slug}-entries.csv"'
    header, *lines = rows(answer)
    assert header == [
        "id", "status", "waitlist_position", "number", "name", "email", "phone", "household",
        "division", "club", "chapter", "fee_due", "paid", "entered_at",
    ]  # fmt: skip
    by_id = {line[0]: dict(zip(header, line, strict=True)) for line in lines}
    first = by_id[str(ann.pk)]
    assert first["status"] == "entered" and first["number"] == "1"
    assert (first["email"], first["phone"], first["household"]) == (
        "ann@example.org", "555-0100", "Abbott",
    )  # fmt: skip
    assert (first["fee_due"], first["paid"], first["waitlist_position"]) == ("20.00", "15.00", "")
    assert first["entered_at"].startswith(str(ann.entered_at.year)) and "+" in first["entered_at"]
    assert by_id[str(bob.pk)]["name"] == '\'=HYPERLINK("x") Bob'  # never run as a formula
    assert by_id[str(bob.pk)]["paid"] == "20.00"
    waiting = by_id[str(cid.pk)]
    assert (waiting["status"], waiting["waitlist_position"], waiting["number"]) == (
        "waitlisted", "1", "",
    )  # fmt: skip
    assert waiting["paid"] == "0.00"


def test_payments_csv_has_its_columns_and_each_payment(
    as_organiser, organiser, tournament, entered
):
    ann, bob, _cid = entered
    answer = as_organiser.get(f"/api/v1/tournaments/{tournament.slug}/exports/payments.csv")
    assert answer.status_code == 200
    header, *lines = rows(answer)
    assert header == [
        "entry", "number", "name", "amount", "method", "note", "recorded_by", "recorded_at",
    ]  # fmt: skip
    assert [line[:7] for line in lines] == [
        [str(ann.pk), "1", "Ann Abbott", "20.00", "cash", "'+ at the desk", organiser.username],
        [str(ann.pk), "1", "Ann Abbott", "-5.00", "refund", "", organiser.username],
        [str(bob.pk), "2", '\'=HYPERLINK("x") Bob', "20.00", "waived", "", organiser.username],
    ]
    assert all("T" in line[7] for line in lines)


@pytest.mark.parametrize("name", ["entries", "payments"])
def test_only_the_organisers_download_them(anon, as_official, as_other_organiser, tournament, name):
    enter(open_tournament(), "Zed Zee")
    at = f"/api/v1/tournaments/{tournament.slug}/exports/{name}.csv"
    assert anon.get(at).status_code in (401, 403)
    assert as_official.get(at).status_code == 403
    assert as_other_organiser.get(at).status_code == 403


def test_the_entries_exports_leave_scorings_as_they_were(as_organiser, tournament):
    base = f"/api/v1/tournaments/{tournament.slug}/exports/"
    assert as_organiser.get(base + "players.csv").status_code == 200
    assert as_organiser.get(base + "entrants.csv").status_code == 404


def test_the_downloads_section_lists_them(organiser, tournament):
    from django.test import Client

    browser = Client()
    browser.force_login(organiser)
    page = browser.get(f"/t/{tournament.slug}/manage/downloads/").content.decode()
    for name in ("entries", "payments"):
        assert f'href="/api/v1/tournaments/{tournament.slug}/exports/{name}.csv"' in page
