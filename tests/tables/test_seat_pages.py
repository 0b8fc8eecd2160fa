"""A player's phone at a table whose players report: type the table's code and a badge number,
then the seat's table page (rounds to enter, confirm, dispute), the same entry page the officials
use, the header of a seat, and what the phone says once its table is handed back."""

import html
import re
from datetime import UTC, datetime

import pytest
import time_machine
from django.test import Client

from scoring import services
from scoring.models import RoundResult
from tables import reporting
from tables.models import CODE_ALPHABET, SeatClaim
from tests import factories

pytestmark = pytest.mark.django_db

NAMES = ["Ann", "Bob", "Cy", "Di"]


@pytest.fixture
def stage(tournament):
    return factories.StageFactory(
        tournament=tournament, order=1, rounds=4, starting_double=12, status="seated",
        reporting="players",
    )  # fmt: skip


@pytest.fixture
def table(stage):
    """Table 1: Ann, Bob, Cy and Di (badges 1-4) in seats 1 to 4."""
    table = factories.TableFactory(stage=stage, number=1)
    for position, name in enumerate(NAMES, start=1):
        player = factories.PlayerFactory(tournament=stage.tournament, number=position, name=name)
        factories.SeatFactory(table=table, player=player, position=position)
    return table


@pytest.fixture
def other_table(stage):
    """Table 2: Eve and Flo (badges 17, 18)."""
    table = factories.TableFactory(stage=stage, number=2)
    for position, (number, name) in enumerate([(17, "Eve"), (18, "Flo")], start=1):
        player = factories.PlayerFactory(tournament=stage.tournament, number=number, name=name)
        factories.SeatFactory(table=table, player=player, position=position)
    return table


def body(table, pips=(0, 12, 30, 7)):
    seats = table.seats.order_by("position")
    return {
        "blocked": False,
        "scores": [
            {"player": seat.player_id, "pips": p, "went_out": p == 0}
            for seat, p in zip(seats, pips, strict=True)
        ],
    }


def phone(table, number) -> Client:
    """A phone that claimed the seat of badge `number` through the claim page."""
    client = Client()
    answer = client.post(f"/en/seat/{table.code}/", {"number": str(number)})
    assert answer.status_code == 302 and answer["Location"] == "/en/seat/table/"
    return client


def text(answer) -> str:
    return html.unescape(re.sub(r"\s+", " ", answer.content.decode()))


def wrong_code(code: str) -> str:
    return "".join(CODE_ALPHABET[0] if c != CODE_ALPHABET[0] else CODE_ALPHABET[1] for c in code)


# ---- the code and the badge ----------------------------------------------------------------


def test_the_first_page_asks_for_the_tables_code_and_goes_on_to_its_badge_page(client, table):
    assert "Table code" in text(client.get("/en/seat/"))
    typed = f" {table.code[:3].lower()}-{table.code[3:]} "
    answer = client.get("/en/seat/", {"code": typed})
    assert answer.status_code == 302 and answer["Location"] == f"/en/seat/{table.code}/"


def test_a_code_too_short_to_be_one_is_said_on_the_first_page(client, table):
    answer = client.get("/en/seat/", {"code": "QX7"})
    assert answer.status_code == 400
    assert "A table's code is 6 letters and digits" in text(answer)


def test_a_wrong_code_says_only_that_no_table_has_it(client, table):
    answer = client.get(f"/en/seat/{wrong_code(table.code)}/")
    assert answer.status_code == 404
    page = text(answer)
    assert "No table has this code: check the card." in page
    assert "Table 1" not in page and table.stage.tournament.name not in page


def test_the_right_code_names_the_table_and_the_stage(client, table):
    page = text(client.get(f"/en/seat/{table.code.lower()}/", follow=True))
    assert "Table 1" in page and table.stage.display_name in page
    assert "Your badge number" in page


def test_a_badge_number_claims_the_seat_and_the_header_names_it(table):
    seat_phone = phone(table, 2)
    page = text(seat_phone.get("/en/seat/table/"))
    assert "This phone is now Seat 2 (Bob) at table 1." in page
    assert "Table 1 · Seat 2 (Bob)" in page and "Leave this seat" in page
    assert "Score entry" not in page and "My tournaments" not in page
    assert SeatClaim.objects.get().seat.player.name == "Bob"


def test_a_badge_not_at_the_table_is_refused_naming_the_table(client, table, other_table):
    answer = client.post(f"/en/seat/{table.code}/", {"number": "17"})
    assert answer.status_code == 404
    assert "Badge 17 is not at table 1: check your badge." in text(answer)
    assert not SeatClaim.objects.exists()


def test_a_badge_that_is_no_number_is_asked_again(client, table):
    answer = client.post(f"/en/seat/{table.code}/", {"number": "Bob"})
    assert answer.status_code == 400
    assert "Type the number on your badge, in digits." in text(answer)
    assert not SeatClaim.objects.exists()


@pytest.fixture
def start_of_a_minute():
    """Failed tries are counted in minutes: start the test at the start of one."""
    with time_machine.travel(datetime(2026, 5, 9, 12, 0, 1, tzinfo=UTC), tick=True) as traveller:
        yield traveller


def test_failed_tries_on_the_pages_and_the_api_count_together(client, table, start_of_a_minute):
    """One door, two ways in: a guesser gets ten wrong tries a minute, not ten on each."""
    for number in range(50, 55):
        assert client.post(f"/en/seat/{table.code}/", {"number": str(number)}).status_code == 404
    api = f"/api/v1/table-codes/{table.code}/seats/"
    for number in range(55, 60):
        answer = client.post(api, {"number": number}, content_type="application/json")
        assert answer.status_code == 404
    assert client.post(api, {"number": 2}, content_type="application/json").status_code == 429
    assert client.get(f"/en/seat/{table.code}/").status_code == 429
    assert not SeatClaim.objects.exists()


def test_a_right_code_and_badge_are_never_counted(client, table, start_of_a_minute):
    for _ in range(12):  # a table's players looking at the page together
        assert client.get(f"/en/seat/{table.code}/").status_code == 200
    answer = client.post(f"/en/seat/{table.code}/", {"number": "2"})
    assert answer.status_code == 302 and SeatClaim.objects.count() == 1


def test_after_ten_failed_tries_from_one_address_every_try_waits(client, table, start_of_a_minute):
    for number in range(50, 55):
        assert client.post(f"/en/seat/{table.code}/", {"number": str(number)}).status_code == 404
    for _ in range(5):
        assert client.get(f"/en/seat/{wrong_code(table.code)}/").status_code == 404
    answer = client.post(f"/en/seat/{table.code}/", {"number": "2"})
    assert answer.status_code == 429
    assert 1 <= int(answer["Retry-After"]) <= 60
    assert f"wait {answer['Retry-After']} second" in text(answer)
    assert not SeatClaim.objects.exists()


def test_an_official_signed_in_is_told_that_taking_a_seat_signs_them_out(client, table, official):
    client.force_login(official)
    answer = client.post(f"/en/seat/{table.code}/", {"number": "2"})
    assert answer.status_code == 200
    assert f"This browser is signed in as {official.username}" in text(answer)
    assert not SeatClaim.objects.exists()
    answer = client.post(f"/en/seat/{table.code}/", {"number": "2", "sign_out": "1"})
    assert answer.status_code == 302
    assert client.get("/en/seat/table/").context["user"] != official
    assert SeatClaim.objects.get().seat.position == 2


def test_a_table_the_officials_report_takes_no_claim_and_says_so(client, table, stage):
    stage.reporting = "officials"
    stage.save()
    page = text(client.get(f"/en/seat/{table.code}/"))
    assert "entered by the officials now" in page and "Your badge number" not in page
    answer = client.post(f"/en/seat/{table.code}/", {"number": "2"})
    assert answer.status_code == 409 and not SeatClaim.objects.exists()


def test_the_pages_are_in_spanish_under_es(client, table):
    assert "Código de la mesa" in text(client.get("/es/seat/"))
    wrong = client.get(f"/es/seat/{wrong_code(table.code)}/")
    assert "Ninguna mesa tiene este código" in text(wrong)


# ---- the seat's table page ---------------------------------------------------------------


def test_the_table_page_lists_rounds_newest_first_up_to_the_next_to_enter(table, official):
    ann = phone(table, 1)
    for round_no in (1, 2):
        services.submit_round_result(table=table, round_no=round_no, data=body(table), by=official)
    page = text(ann.get("/en/seat/table/"))
    assert page.index("Round 3") < page.index("Round 2") < page.index("Round 1")
    assert "Round 4 is still to play." in page and "Round 4</h3>" not in page


def test_the_table_page_says_each_rounds_state_and_offers_the_next_to_enter(table):
    ann = phone(table, 1)
    page = text(ann.get("/en/seat/table/"))
    assert "Enter round 1" in page and page.count("Not entered yet.") == 1
    assert "Rounds 2 to 4 are still to play." in page  # not three empty panels at 200% text
    assert f"/t/{table.stage.tournament.slug}/enter/{table.pk}/1/" in page
    assert "Ann" in page and "Di" in page  # who sits where


def test_a_round_entered_on_one_seat_is_confirmed_on_another_not_on_its_own(table):
    ann, bob = phone(table, 1), phone(table, 2)
    entry = f"/t/{table.stage.tournament.slug}/enter/{table.pk}/1/"
    form = {f"pips-{s['player']}": s["pips"] for s in body(table)["scores"]}
    form["went_out"] = body(table)["scores"][0]["player"]
    saved = ann.post(entry, form)
    assert saved.status_code == 302 and saved["Location"] == "/en/seat/table/"
    result = RoundResult.objects.get()
    assert reporting.seat_named(reporting.seat_of(result.submitted_by_id)) == "Seat 1 (Ann)"
    page = text(ann.get("/en/seat/table/"))
    assert "(this phone): another player at the table confirms it" in page
    mine = ann.post("/en/seat/table/1/confirm/", {"if_match": result.etag}, follow=True)
    assert "You entered round 1 yourself: another player at table 1 confirms it" in text(mine)
    assert RoundResult.objects.get().status == "submitted"
    page = text(bob.get("/en/seat/table/"))
    assert "Entered by Seat 1 (Ann): check it, then confirm or dispute it." in page
    done = bob.post("/en/seat/table/1/confirm/", {"if_match": result.etag}, follow=True)
    assert "Round 1 is confirmed." in text(done)
    assert RoundResult.objects.get().status == "confirmed"
    assert "Enter round 2" in text(done)


def test_a_confirm_of_scores_changed_since_the_page_showed_them_is_refused(table, official):
    bob = phone(table, 2)
    first = services.submit_round_result(table=table, round_no=1, data=body(table), by=official)
    shown = first.result.etag
    services.submit_round_result(
        table=table, round_no=1, data=body(table, (0, 21, 30, 7)), by=official, if_match=shown
    )
    answer = bob.post("/en/seat/table/1/confirm/", {"if_match": shown}, follow=True)
    assert "changed on another phone" in text(answer)
    assert RoundResult.objects.get().status == "submitted"


def test_a_dispute_needs_a_note_then_the_round_waits_for_an_official(table, official):
    services.submit_round_result(table=table, round_no=1, data=body(table), by=official)
    cy = phone(table, 3)
    assert "What is wrong?" in text(cy.get("/en/seat/table/1/dispute/"))
    empty = cy.post("/en/seat/table/1/dispute/", {"note": "  "})
    assert empty.status_code == 400 and "Say what is wrong with this round" in text(empty)
    assert RoundResult.objects.get().status == "submitted"
    done = cy.post("/en/seat/table/1/dispute/", {"note": "Bob had 21"}, follow=True)
    assert "Round 1 is disputed: it counts for nobody until an official settles it" in text(done)
    assert "Disputed: an official will settle it." in text(done)
    result = RoundResult.objects.get()
    assert result.status == "disputed"
    assert result.versions.order_by("version").last().reason == "Bob had 21"
    again = cy.post("/en/seat/table/1/confirm/", {"if_match": result.etag}, follow=True)
    assert "only an official can confirm it now" in text(again)


def test_a_round_not_entered_has_nothing_to_confirm_or_dispute(table):
    ann = phone(table, 1)
    assert ann.post("/en/seat/table/1/confirm/").status_code == 404
    assert ann.get("/en/seat/table/2/dispute/").status_code == 404


def test_the_seat_pages_without_a_seat_send_to_the_code_page(client, table, official):
    for who in (None, official):
        if who:
            client.force_login(who)
        assert client.get("/en/seat/table/")["Location"] == "/en/seat/"
        assert client.post("/en/seat/table/1/confirm/")["Location"] == "/en/seat/"


def test_hand_the_phone_to_another_player_who_claims_their_own_seat_on_it(table):
    ann = phone(table, 1)
    page = text(ann.get("/en/seat/table/"))
    assert "Hand this phone to another player" in page and f"/en/seat/{table.code}/" in page
    assert "This phone is seat 1 at table 1 now" in text(ann.get(f"/en/seat/{table.code}/"))
    ann.post(f"/en/seat/{table.code}/", {"number": "2"})
    assert "Table 1 · Seat 2 (Bob)" in text(ann.get("/en/seat/table/"))


# ---- the entry page, and where a seat's phone may go ---------------------------------------


def test_a_seat_enters_on_the_officials_entry_page_without_their_links(table):
    ann = phone(table, 1)
    page = text(ann.get(f"/t/{table.stage.tournament.slug}/enter/{table.pk}/1/"))
    assert "Save and show the players" in page and "Your table" in page
    assert "All tables" not in page and 'data-check-url="/en/seat/table/"' in page


def test_a_seat_reaches_no_other_tables_entry_page(table, other_table):
    ann = phone(table, 1)
    answer = ann.get(f"/t/{table.stage.tournament.slug}/enter/{other_table.pk}/1/")
    assert answer.status_code == 403
    assert "This phone is seat 1 at table 1: it reaches that table only." in text(answer)


def test_a_seats_phone_goes_to_its_table_instead_of_the_officials_pages(table):
    ann = phone(table, 1)
    slug = table.stage.tournament.slug
    for path in ("/", f"/t/{slug}/enter/", f"/t/{slug}/enter/{table.pk}/", f"/t/{slug}/manage/"):
        assert ann.get(path)["Location"].endswith("/seat/table/"), path
    assert ann.get(f"/en/t/{slug}/").status_code == 200  # the public standings


def test_an_official_still_enters_as_before(client, table, official):
    client.force_login(official)
    page = text(client.get(f"/t/{table.stage.tournament.slug}/enter/{table.pk}/1/"))
    assert "All tables" in page and "/check/" in page


def test_a_table_handed_back_to_the_officials_says_so_on_the_next_page(table):
    ann = phone(table, 1)
    reporting.set_table_reporting(table, players=False)
    answer = ann.get("/en/seat/table/")
    assert answer["Location"] == "/en/seat/"
    page = text(ann.get("/en/seat/"))
    assert "Table 1 is entered by the officials now: give your scores to an official." in page
    assert "Leave this seat" not in page


def test_leaving_the_seat_signs_the_phone_out_and_ends_its_claim(table):
    ann = phone(table, 1)
    answer = ann.post("/accounts/logout/", {"next": "/en/seat/"})
    assert answer["Location"] == "/en/seat/"
    assert not SeatClaim.objects.get().active
    assert ann.get("/en/seat/table/")["Location"] == "/en/seat/"


def test_the_events_standings_page_leads_a_player_to_the_seat_pages(client, table, stage):
    """A player who did not scan the card finds the way in from the event's own page."""
    page = text(client.get(f"/en/t/{stage.tournament.slug}/"))
    assert 'href="/en/seat/"' in page and "Enter your table's scores" in page
    spanish = text(client.get(f"/es/t/{stage.tournament.slug}/"))
    assert 'href="/es/seat/"' in spanish and "anotan aquí sus propias rondas" in spanish
    stage.reporting = "officials"
    stage.save()  # (not update_stage: no rebuild, so a page drawn anew, not the one kept above)
    reporting_by_officials = text(Client().get(f"/en/t/{stage.tournament.slug}/?page=all"))
    assert 'href="/en/seat/"' not in reporting_by_officials


def test_the_table_page_reads_who_entered_each_round_in_one_query(table, official):
    """Each round names the seat that entered it: read for all rounds at once, not per round."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    phone(table, 1)  # Ann's phone enters round 1
    bob = phone(table, 2)
    ann_user = SeatClaim.objects.get(seat__position=1).user

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert bob.get("/en/seat/table/").status_code == 200
        return len(captured)

    services.submit_round_result(table=table, round_no=1, data=body(table), by=ann_user)
    queries()  # the phone's first page writes when it was last seen: not this page's reads
    one = queries()
    for round_no in (2, 3, 4):
        services.submit_round_result(table=table, round_no=round_no, data=body(table), by=official)
    assert queries() == one
    assert "Entered by Seat 1 (Ann)" in text(bob.get("/en/seat/table/"))
