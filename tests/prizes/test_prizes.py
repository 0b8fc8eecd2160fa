"""Prize tables end to end: set up on the console, worked out from the fees, announced (asked
first, then locked), unlocked with a reason, and shown on the results page, the PDF and the
certificates; the treasurer's prizes.csv; the API."""

import csv
import io
import re
from decimal import Decimal

import pytest
from django.test import Client

from entries.models import Entry, Payment
from prizes import services
from prizes.models import PrizeEvent, PrizeTable
from scoring.models import Placing
from tests.scoring.helpers import finished_event
from tests.scoring.test_print_results import pdf_text

pytestmark = pytest.mark.django_db(transaction=True)
D = Decimal


@pytest.fixture
def finished(tournament, as_organiser):
    finished_event(tournament, as_organiser)
    return tournament


@pytest.fixture
def console(organiser):
    signed_in = Client()
    signed_in.force_login(organiser)
    return signed_in


def placed(tournament) -> list[Placing]:
    return list(
        Placing.objects.filter(tournament=tournament)
        .select_related("player")
        .order_by("place", "player__number")
    )


def form(rows, booby=("", ""), basis="amounts", step="1.00", remainder_to="house") -> dict:
    data = {"basis": basis, "step": step, "remainder_to": remainder_to, "rows": len(rows)}
    for n, (place, cash, item) in enumerate(rows):
        data |= {f"place-{n}": place, f"cash-{n}": cash, f"item-{n}": item}
    return data | {"booby-cash": booby[0], "booby-item": booby[1]}


def pay_fees(tournament, amount="20.00"):
    """An entry for each player, each paid `amount` in cash."""
    for player in tournament.players.all():
        entry = Entry.objects.create(
            tournament=tournament, player=player, status="entered", name=player.name,
            email=f"p{player.number}@example.org", fee_due=D(amount),
        )  # fmt: skip
        Payment.objects.create(entry=entry, amount=D(amount), method="cash")


def test_an_announced_table_shows_each_prize_beside_its_player_on_the_results(
    finished, console, client
):
    url = f"/t/{finished.slug}/manage/prizes/event/"
    saved = console.post(
        url,
        form(
            [("1", "100", "Trophy"), ("2", "50", ""), ("3", "", "Gift card")],
            booby=("", "Wooden spoon"),
        ),
    )
    assert saved.status_code == 302
    first, second, third, *_rest, last = placed(finished)
    page = client.get(f"/en/t/{finished.slug}/results/").content.decode()
    assert "Trophy" not in page  # not announced yet: not on the results
    # Announcing asks first, showing what it pays; nothing is announced until the answer.
    asked = console.post(f"{url}announce/")
    assert asked.status_code == 200
    assert "Announce the prizes of the whole event?" in asked.content.decode()
    assert "100.00 USD" in asked.content.decode()
    assert not PrizeTable.objects.get().announced
    version = PrizeTable.objects.get().version
    done = console.post(f"{url}announce/", {"confirm": "yes", "version": version})
    assert done.status_code == 302 and PrizeTable.objects.get().announced
    page = client.get(f"/en/t/{finished.slug}/results/").content.decode()
    rows = dict(
        re.findall(
            r"<a href=\"/en/t/[^\"]+/players/\d+/\">([^<]+)</a>"
            r".*?<td class=\"prize\"[^>]*>([^<]*)</td>",
            page,
        )
    )
    assert rows[first.player.name] == "100.00 USD · Trophy"
    assert rows[second.player.name] == "50.00 USD"
    spanish = client.get(f"/es/t/{finished.slug}/results/").content.decode()
    assert "100,00 USD · Trophy" in spanish and "100.00" not in spanish  # Spanish decimals
    # The final of two placed 1st and 2nd; the two tied third share the third prize.
    assert third.place == 3 and [p.place for p in placed(finished)].count(3) == 2
    assert rows[third.player.name] == "Gift card (shared by 2)"
    tied_last = [p.place for p in placed(finished)].count(last.place)
    shared = f" (shared by {tied_last})" if tied_last > 1 else ""
    assert rows[last.player.name] == f"Booby prize: Wooden spoon{shared}"
    # The certificates print it under the place.
    certificates = client.get(f"/en/t/{finished.slug}/results/certificates/").content.decode()
    assert '<p class="certificate-prize">100.00 USD · Trophy</p>' in certificates
    # And the PDF, on the placing's line.
    pdf = "\n".join(pdf_text(client.get(f"/en/t/{finished.slug}/results.pdf").content))
    assert "Prize" in pdf
    # The prize in the first's row: after their name, before the second's.
    name, then = re.escape(first.player.name), re.escape(second.player.name)
    row = rf"{name} #{first.player.number}(.*?){then}"
    assert "100.00 USD" in re.search(row, pdf, re.S).group(1)
    assert "50.00 USD" not in re.search(row, pdf, re.S).group(1)


def test_a_table_paid_from_the_fees_shares_the_pot_rounded_down_and_says_the_remainder(
    finished, console
):
    pay_fees(finished, "21.50")  # 6 players: a pot of 129.00
    url = f"/t/{finished.slug}/manage/prizes/event/"
    console.post(url, form([("1", "50", ""), ("2", "30", ""), ("3", "15", "")], basis="collected"))
    page = console.get(url).content.decode()
    # 64.50, 38.70, 19.35 rounded down to the unit: 64, 38, 19; 1.55 left; house 8.00.
    assert "64.00 USD" in page and "38.00 USD" in page and "19.00 USD" in page
    assert "Pot: 129.00 USD. Rounding left 1.55 USD; the house keeps 8.00 USD." in page
    version = PrizeTable.objects.get().version
    console.post(f"{url}announce/", {"confirm": "yes", "version": version})
    # A payment recorded after the announcement changes no announced prize.
    entry = Entry.objects.first()
    Payment.objects.create(entry=entry, amount=D(100), method="cash")
    assert "64.00 USD" in console.get(url).content.decode()
    assert PrizeTable.objects.get().announced_pot == D("129.00")


@pytest.mark.parametrize(
    ("rows", "basis", "said"),
    [
        ([("1", "60", ""), ("2", "50", "")], "collected", "The percentages add up to 110%"),
        ([("1", "-5", "")], "amounts", "Place 1: -5 is below 0; a prize is 0 or more."),
        ([("0", "10", "")], "amounts", "Row 1: place 0 is not a place"),
        ([("1", "10", ""), ("1", "5", "")], "amounts", "Place 1 is in rows 1 and 2"),
        ([("2", "", "")], "amounts", "Place 2 has no prize"),
        ([("", "10", "")], "amounts", "Row 1 has a prize but no place"),
        ([("1", "abc", "")], "amounts", "Place 1: “abc” is not a number"),
    ],
    ids=["over-100", "negative", "place-0", "duplicate", "empty", "no-place", "not-a-number"],
)
def test_a_bad_row_is_refused_with_what_is_wrong_and_changes_nothing(
    finished, console, rows, basis, said
):
    url = f"/t/{finished.slug}/manage/prizes/event/"
    console.post(url, form([("1", "10", "Cup")]))
    answer = console.post(url, form(rows, basis=basis))
    assert answer.status_code == 400
    assert said in answer.content.decode()
    table = PrizeTable.objects.get()
    assert [(p.place, p.amount, p.item) for p in table.prizes.all()] == [(1, D(10), "Cup")]


def test_an_announced_table_refuses_a_change_until_unlocked_with_a_reason(finished, console):
    url = f"/t/{finished.slug}/manage/prizes/event/"
    console.post(url, form([("1", "10", "")]))
    console.post(f"{url}announce/", {"confirm": "yes"})
    refused = console.post(url, form([("1", "99", "")]))
    assert refused.status_code == 409
    assert "are locked: unlock them first, saying why" in refused.content.decode()
    assert PrizeTable.objects.get().prizes.get().amount == D(10)
    no_reason = console.post(f"{url}unlock/", {"reason": " "}, follow=True)
    assert "Say why the announced prizes are unlocked" in no_reason.content.decode()
    assert PrizeTable.objects.get().announced
    console.post(f"{url}unlock/", {"reason": "First prize was raised by the sponsor"})
    table = PrizeTable.objects.get()
    assert not table.announced
    assert table.events.filter(action="unlocked").get().reason.startswith("First prize was")
    assert console.post(url, form([("1", "99", "")])).status_code == 302
    log = console.get(url).content.decode()
    assert "unlocked" in log and "First prize was raised by the sponsor" in log


def test_an_announcement_of_a_table_changed_since_it_was_shown_is_refused(finished, console):
    url = f"/t/{finished.slug}/manage/prizes/event/"
    console.post(url, form([("1", "10", "")]))
    shown = PrizeTable.objects.get().version
    console.post(url, form([("1", "15", "")]))  # another organiser, meanwhile
    said = console.post(f"{url}announce/", {"confirm": "yes", "version": shown}, follow=True)
    assert "were changed since you looked at them" in said.content.decode()
    assert not PrizeTable.objects.get().announced


def test_tied_players_share_the_cash_of_the_places_they_cover(finished, console, client):
    _first, second, *_rest = placed(finished)
    Placing.objects.filter(pk=second.pk).update(place=1)  # a tie for first
    url = f"/t/{finished.slug}/manage/prizes/event/"
    console.post(url, form([("1", "100", "Trophy"), ("2", "51", "")]))
    console.post(f"{url}announce/", {"confirm": "yes"})
    page = client.get(f"/en/t/{finished.slug}/results/").content.decode()
    assert page.count("75.50 USD · Trophy (shared by 2)") == 2


def test_the_treasurer_downloads_who_gets_what(finished, console, as_organiser):
    division = finished.divisions.create(name="Seniors", order=1)
    first, second, *_rest = placed(finished)
    services.save_table(
        tournament=finished, division=None, basis="amounts",
        rows=[services.Row(1, "100", "Trophy"), services.Row(2, "50", "")],
    )  # fmt: skip
    services.announce(tournament=finished, division=None)
    services.save_table(
        tournament=finished, division=division, basis="amounts",
        rows=[services.Row(1, "10", "")],
    )  # fmt: skip
    answer = as_organiser.get(f"/api/v1/tournaments/{finished.slug}/exports/prizes.csv")
    assert answer.status_code == 200
    assert f'filename="{finished.slug}-prizes.csv"' in answer["Content-Disposition"]
    text = b"".join(answer.streaming_content).decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(r["scope"], r["place"], r["name"], r["amount"], r["items"], r["announced"])
            for r in rows] == [
        ("Whole event", "1", first.player.name, "100.00", "Trophy", "yes"),
        ("Whole event", "2", second.player.name, "50.00", "", "yes"),
    ]  # fmt: skip
    # The console's Downloads offer it beside the other files.
    assert "prizes.csv" in console.get(f"/t/{finished.slug}/manage/prizes/").content.decode()


def test_the_prizes_section_is_in_spanish(finished, console):
    console.post(f"/t/{finished.slug}/manage/prizes/event/", form([("1", "10", "")]))
    page = console.get(
        f"/t/{finished.slug}/manage/prizes/event/", HTTP_ACCEPT_LANGUAGE="es"
    ).content.decode()
    assert "Premios" in page and "Guardar los premios" in page


def test_an_official_may_not_open_the_prizes(finished, client, official):
    client.force_login(official)
    assert client.get(f"/t/{finished.slug}/manage/prizes/").status_code == 403


def test_the_api_reads_replaces_and_announces_a_scope_s_table(finished, as_organiser, as_official):
    url = f"/api/v1/tournaments/{finished.slug}/prizes/event/"
    assert as_organiser.get(url).json()["prizes"] == []
    pay_fees(finished, "10.00")  # a pot of 60.00
    body = {
        "basis": "collected",
        "step": "5.00",
        "remainder_to": "first",
        "prizes": [{"place": 1, "percent": "50"}, {"place": 2, "percent": "30", "item": "Cup"},
                   {"place": None, "item": "Spoon"}],
    }  # fmt: skip
    put = as_organiser.put(url, body, format="json")
    assert put.status_code == 200, put.json()
    answer = put.json()
    # 30 and 18 rounded down to 5: 30 and 15; the 3 left goes to first.
    assert [p["cash"] for p in answer["prizes"]] == ["33.00", "15.00", None]
    assert answer["pot"] == "60.00" and answer["remainder"] == "3.00"
    assert answer["house"] == "12.00"
    assert answer["awards"][0]["cash"] == "33.00"
    bad = as_organiser.put(url, {**body, "prizes": [{"place": 1, "percent": "101"}]}, format="json")
    assert bad.status_code == 400
    assert as_official.put(url, body, format="json").status_code == 403
    stale = as_organiser.post(f"{url}announce/", {"version": 0}, format="json")
    assert stale.status_code == 409
    announced = as_organiser.post(f"{url}announce/", {"version": answer["version"]}, format="json")
    assert announced.status_code == 200 and announced.json()["announced_at"]
    locked = as_organiser.put(url, body, format="json")
    assert locked.status_code == 409 and "locked" in locked.json()["detail"]
    unlocked = as_organiser.post(f"{url}unlock/", {"reason": "typo"}, format="json")
    assert unlocked.status_code == 200 and unlocked.json()["announced_at"] is None
    assert PrizeEvent.objects.filter(action="unlocked", reason="typo").exists()
    assert (
        as_organiser.get(f"/api/v1/tournaments/{finished.slug}/prizes/division-999/").status_code
        == 404
    )


def test_a_flight_s_table_is_named_by_its_flight_on_the_console(finished, console):
    # A flight is a division made by a split: its prizes are a division's, called by its name.
    flight = finished.divisions.create(name="A", order=1, flight=True)
    services.save_table(
        tournament=finished, division=flight, basis="amounts", rows=[services.Row(1, "10", "")]
    )
    page = console.get(f"/t/{finished.slug}/manage/prizes/").content.decode()
    assert "Flight A" in page
    assert "Division A" not in page


def test_sentences_name_the_whole_event_in_lower_case_and_no_is_the_quiet_button(finished, console):
    console.post(f"/t/{finished.slug}/manage/prizes/event/", form([("1", "10", "")]))
    page = console.get(f"/t/{finished.slug}/manage/prizes/").content.decode()
    assert "Set up the prizes of the whole event" in page
    spanish = console.get(
        f"/t/{finished.slug}/manage/prizes/", HTTP_ACCEPT_LANGUAGE="es"
    ).content.decode()
    assert "Preparar los premios de todo el torneo" in spanish
    confirm = console.post(f"/t/{finished.slug}/manage/prizes/event/announce/").content.decode()
    assert "Announce the prizes of the whole event?" in confirm
    # "No" must not look like the "Yes" it sits beside.
    assert re.search(r'<a class="button secondary"[^>]*>No, go back</a>', confirm)
