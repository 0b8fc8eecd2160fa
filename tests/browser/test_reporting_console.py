"""The organiser's side of tables whose players enter their own rounds, in Chromium: the
organiser lets a seated stage's players enter its rounds, reads each table's code, hands one
table to the officials through its confirm step, and the officials' board lists a disputed
round and one nobody confirmed in time. Screenshots at phone and tablet sizes, at the browser's
text size and at 200%, in English and Spanish, go to test-artifacts/."""

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from scoring import services
from scoring.models import RoundResult
from scoring.services import disputes
from tables import reporting
from tables.models import Table
from tests import factories
from tests.browser.conftest import PHONE, at_text_sizes, overflows_sideways, sign_in
from tests.scoring.conftest import round_body

pytestmark = pytest.mark.browser

ARTIFACTS = Path("test-artifacts")
TABLET = {"width": 820, "height": 1180}


@pytest.fixture
def evening(transactional_db):
    """A seated stage of four rounds, the officials' for now: tables 1 and 2 of four players."""
    stage = factories.StageFactory(status="seated", rounds=4, starting_double=12, name="Club")
    number = 0
    for table_number in (1, 2):
        table = factories.TableFactory(stage=stage, number=table_number)
        for position in range(1, 5):
            number += 1
            player = factories.PlayerFactory(
                tournament=stage.tournament, number=number, name=f"Player {number:02d}"
            )
            factories.SeatFactory(table=table, player=player, position=position)
    organiser = factories.StaffFactory(tournament=stage.tournament, role="organiser").user
    return stage, organiser


def shoot(page, name: str) -> None:
    """The page at 100% and 200% text: nothing scrolls sideways; each saved."""
    ARTIFACTS.mkdir(exist_ok=True)
    for size in at_text_sizes(page):
        assert not overflows_sideways(page), f"{name} at {size}"
        page.screenshot(path=str(ARTIFACTS / f"{name}-{size}.png"), full_page=True)
    page.evaluate("() => { document.documentElement.style.fontSize = ''; }")


def claim(table: Table, position: int):
    seat = table.seats.get(position=position)
    return reporting.claim_seat(seat)[0]


def test_an_organiser_lets_the_players_report_hands_a_table_back_and_settles_on_the_board(
    new_page, evening
):
    stage, organiser = evening
    slug = stage.tournament.slug
    first, second = Table.objects.filter(stage=stage).order_by("number")
    page = new_page(PHONE)
    stage_page = f"/t/{slug}/manage/stages/{stage.order}/"
    sign_in(page, organiser.username, next_path=stage_page)

    # The setting: the minutes are asked only once the players are chosen (no script needed).
    minutes = page.get_by_label("List a round not confirmed after this many minutes")
    expect(minutes).to_be_hidden()
    page.get_by_label("The players at each table").check()
    expect(minutes).to_be_visible()
    minutes.fill("5")
    shoot(page, "reporting-setting-phone-en")
    page.locator("#reporting button[type=submit]").click()
    expect(page.locator(".messages, [role=status]").first).to_contain_text(
        "the players at each table enter its rounds"
    )
    expect(page.locator("main")).to_contain_text(first.code)
    expect(page.locator("main")).to_contain_text(second.code)

    # Phones take seats; table 2 is handed to the officials, asked first.
    ann = claim(first, 1).user
    bob = claim(first, 2)
    phone_at_two = claim(second, 1)
    page.reload()
    expect(page.locator("main")).to_contain_text("Seats taken on a phone: 2 of 4")
    shoot(page, "reporting-tables-phone-en")
    page.get_by_role("link", name="Hand table 2 to the officials…").click()
    expect(page.locator("h1")).to_have_text("Hand table 2 to the officials?")
    expect(page.locator("main")).to_contain_text("(1 phone now)")
    shoot(page, "reporting-hand-back-phone-en")
    page.get_by_role("button", name="Hand table 2 to the officials").click()
    expect(page.locator("main")).to_contain_text("Table 2 is the officials' now")
    expect(page.get_by_role("button", name="Give table 2 back to its players")).to_be_visible()
    phone_at_two.refresh_from_db()
    assert not phone_at_two.active

    # The board: a disputed round, and one nobody confirmed for longer than 5 minutes.
    players = [s.player for s in first.seats.order_by("position")]
    services.submit_round_result(table=first, round_no=1, data=round_body(players), by=ann)
    disputes.dispute_round(table=first, round_no=1, by=bob.user, note="Player 03 had 3")
    services.submit_round_result(table=first, round_no=2, data=round_body(players), by=ann)
    RoundResult.objects.filter(table=first, round_no=2).update(
        updated_at=timezone.now() - timedelta(minutes=8)
    )
    page.goto(f"/t/{slug}/manage/stages/{stage.order}/progress/")
    settle = page.locator(".to-settle")
    expect(settle).to_contain_text("Table 1, round 1: disputed by Seat 2 (Player 02)")
    expect(settle).to_contain_text("Player 03 had 3")
    expect(settle).to_contain_text("entered by Seat 1 (Player 01), not confirmed for 8 minutes")
    expect(page.locator(".board .chip.disputed")).to_have_count(1)
    shoot(page, "reporting-board-phone-en")
    settle.get_by_role("link", name="Confirm or correct table 1, round 1").click()
    page.wait_for_url(f"**/t/{slug}/enter/{first.pk}/1/")

    # The same pages on a tablet, and in Spanish.
    tablet = new_page(TABLET, locale="es-ES")
    sign_in(tablet, organiser.username, next_path=stage_page)
    expect(tablet.locator("main")).to_contain_text("Quién anota las rondas")
    shoot(tablet, "reporting-stage-tablet-es")
    tablet.goto(f"/t/{slug}/manage/stages/{stage.order}/progress/")
    expect(tablet.locator(".to-settle")).to_contain_text("Rondas que un oficial debe resolver")
    shoot(tablet, "reporting-board-tablet-es")
    tablet.goto(f"/t/{slug}/manage/stages/{stage.order}/tables/1/reporting/")
    expect(tablet.locator("h1")).to_have_text("¿Pasar la mesa 1 a los oficiales?")
    shoot(tablet, "reporting-hand-back-tablet-es")


def test_switching_the_whole_stage_to_the_officials_asks_first_without_javascript(
    new_page, evening
):
    stage, organiser = evening
    stage.reporting = "players"
    stage.save()
    phone = claim(Table.objects.get(stage=stage, number=1), 1)
    page = new_page(PHONE, java_script_enabled=False)
    stage_page = f"/t/{stage.tournament.slug}/manage/stages/{stage.order}/"
    sign_in(page, organiser.username, next_path=stage_page)
    page.locator("input[name=reporting][value=officials]").check()
    page.locator("#reporting button[type=submit]").click()
    expect(page.locator("main")).to_contain_text("Every player's phone at 2 tables is signed out")
    shoot(page, "reporting-stage-confirm-phone-en")
    page.get_by_label("Yes, sign every player's phone out").check()
    page.get_by_role("button", name="The officials enter the rounds").click()
    expect(page.locator("main")).to_contain_text("Every player's phone is signed out.")
    phone.refresh_from_db()
    stage.refresh_from_db()
    assert stage.reporting == "officials" and not phone.active
