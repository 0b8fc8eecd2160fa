"""A whole club night with no official at the tables, in Chromium with JavaScript on: three tables
of 4, 5 and 6 at a stage of four rounds whose players report. At each table one seat's phone
enters every round and another's confirms it; the seat that entered a round is refused as its
confirmer; a badge from another table is refused at a table's code; one round is disputed and
an official settles it on the officials' own check page; a round entered offline is sent once
the phone is back online, once. With ROUNDHOUSE_SCREENSHOTS=<dir>, the seat's pages are saved
there at phone size, at the browser's text size and at 200%."""

import os
import random
from pathlib import Path

import pytest
from playwright.sync_api import expect

from scoring.models import RoundResult, RoundResultVersion
from tables import reporting
from tables.models import Table
from tests import factories
from tests.browser.conftest import PHONE, TABLET, at_text_sizes, overflows_sideways, sign_in

pytestmark = pytest.mark.browser

SHOTS = os.environ.get("ROUNDHOUSE_SCREENSHOTS", "")
ROUNDS = 4
DISPUTED = (2, 3)  # table 2's round 3: disputed, then settled by the official
OFFLINE = (3, 4)  # table 3's round 4: entered with the phone offline


def shoot(page, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), full_page=True)


@pytest.fixture
def club_night(transactional_db):
    """A players' stage of four rounds: tables 1-3 of 4, 5 and 6 players (badges 1-15)."""
    stage = factories.StageFactory(
        status="seated", rounds=ROUNDS, starting_double=12, reporting="players", name="Club night"
    )
    number = 0
    for table_number, size in enumerate((4, 5, 6), start=1):
        table = factories.TableFactory(stage=stage, number=table_number)
        for position in range(1, size + 1):
            number += 1
            player = factories.PlayerFactory(
                tournament=stage.tournament, number=number, name=f"Player {number:02d}"
            )
            factories.SeatFactory(table=table, player=player, position=position)
    official = factories.StaffFactory(tournament=stage.tournament, role="official").user
    return stage, official


def claimed(new_page, table: Table, position: int):
    """A phone that scanned the table's card and typed the badge of the seat at `position`."""
    seat = table.seats.select_related("player").get(position=position)
    page = new_page(PHONE)
    page.goto(f"/en/seat/{table.code}/")
    expect(page.locator("h1")).to_have_text(f"Table {table.number}")
    page.fill("#seat-number", str(seat.player.number))
    page.click("text=This phone is my seat")
    page.wait_for_url("**/en/seat/table/")
    expect(page.locator(".seat-name")).to_have_text(
        f"Table {table.number} · {reporting.seat_named(seat)}"
    )
    return page


def open_round(page, table: Table, round_no: int) -> None:
    """From the seat's page, the big button: the officials' entry page for the next round."""
    page.goto("/en/seat/table/")
    expect(page.locator("#enter-next")).to_have_text(f"Enter round {round_no}")
    page.click("#enter-next")
    page.wait_for_url(f"**/enter/{table.pk}/{round_no}/")


def enter_round(page, table: Table, rng: random.Random) -> list[int]:
    """The round's pips typed on the entry page, its winner marked, and saved."""
    seats = list(table.seats.order_by("position"))
    winner = rng.randrange(len(seats))
    pips = [0 if i == winner else rng.randint(3, 60) for i in range(len(seats))]
    for seat, value in zip(seats, pips, strict=True):
        page.fill(f"#pips-{seat.player_id}", str(value))
    page.check(f"input[name=went_out][value='{seats[winner].player_id}']")
    page.click("#round-form button[type=submit]")
    return pips


def confirm(page, round_no: int) -> None:
    page.goto("/en/seat/table/")
    page.locator(f"#round-{round_no} button", has_text="Confirm round").click()
    expect(page.locator(".messages")).to_contain_text(f"Round {round_no} is confirmed.")


def test_a_club_night_entered_and_confirmed_on_the_players_phones(new_page, club_night):
    stage, official = club_night
    rng = random.Random(50)
    tables = list(stage.tables.order_by("number"))

    # A badge from table 3 typed at table 1's code: refused, naming table 1 only.
    stranger = new_page(PHONE)
    stranger.goto(f"/en/seat/{tables[0].code}/")
    stranger.fill("#seat-number", "15")
    stranger.click("text=This phone is my seat")
    expect(stranger.locator("#seat-number-error")).to_have_text(
        "Badge 15 is not at table 1: check your badge."
    )
    for size in at_text_sizes(stranger):
        shoot(stranger, f"club-night-claim-refused-{size.rstrip('%')}-phone-en")
        assert not overflows_sideways(stranger), f"the claim page scrolls sideways at {size}"

    for table in tables:
        enters, confirms = claimed(new_page, table, 1), claimed(new_page, table, 2)
        for round_no in range(1, ROUNDS + 1):
            open_round(enters, table, round_no)
            if (table.number, round_no) == OFFLINE:
                enters.context.set_offline(True)
                enter_round(enters, table, rng)
                expect(enters.locator("#offline-banner")).to_have_text(
                    "Not sent yet: will send when the connection returns."
                )
                enters.wait_for_timeout(1500)  # a retry or two fail meanwhile
                assert not RoundResult.objects.filter(table=table, round_no=round_no).exists()
                enters.context.set_offline(False)
                enters.wait_for_url("**/en/seat/table/", timeout=15_000)  # resent by itself
            else:
                enter_round(enters, table, rng)
                enters.wait_for_url("**/en/seat/table/")
            state = enters.locator(f"#round-{round_no} .seat-round-state")
            expect(state).to_contain_text("(this phone): another player at the table confirms it")
            if (table.number, round_no) == (1, 1):
                # The seat that entered it is its own confirmer: refused, and told who confirms.
                enters.locator("#round-1 button", has_text="Confirm round").click()
                expect(enters.locator(".messages")).to_contain_text(
                    "You entered round 1 yourself: another player at table 1 confirms it"
                )
            if (table.number, round_no) == DISPUTED:
                confirms.goto("/en/seat/table/")
                confirms.click(f"#round-{round_no} >> text=Round {round_no} is wrong: dispute it")
                confirms.fill("#dispute-note", "Seat 3 had 21, not 12")
                for size in at_text_sizes(confirms):
                    shoot(confirms, f"club-night-dispute-{size.rstrip('%')}-phone-en")
                    assert not overflows_sideways(confirms), f"dispute page sideways at {size}"
                confirms.click("text=Dispute this round")
                expect(confirms.locator(".messages")).to_contain_text(
                    "it counts for nobody until an official settles it"
                )
                expect(confirms.locator(f"#round-{round_no} .seat-round-state")).to_have_text(
                    "Disputed: an official will settle it."
                )
                settle(new_page, official, table, round_no)
            else:
                confirm(confirms, round_no)

        if table.number == 1:
            for size in at_text_sizes(enters):
                shoot(enters, f"club-night-seat-table-{size.rstrip('%')}-phone-en")
                assert not overflows_sideways(enters), f"the seat's page scrolls sideways at {size}"

    results = RoundResult.objects.filter(stage=stage)
    assert results.count() == 3 * ROUNDS
    assert set(results.values_list("status", flat=True)) == {"confirmed"}
    # Sent once however often the offline phone retried: one version entered.
    offline = results.get(table=tables[2], round_no=OFFLINE[1])
    assert offline.versions.filter(action=RoundResultVersion.Action.SUBMITTED).count() == 1
    history_names_the_seats(new_page, official, stage, tables)


def settle(new_page, official, table: Table, round_no: int) -> None:
    """The official opens the disputed round's check page and confirms it as it stands."""
    page = new_page(TABLET)
    slug = table.stage.tournament.slug
    sign_in(page, official.username, next_path=f"/t/{slug}/enter/{table.pk}/{round_no}/check/")
    page.click("text=The players agree: confirm")
    expect(page.locator(".messages")).to_contain_text(f"Round {round_no} at table")
    result = RoundResult.objects.get(table=table, round_no=round_no)
    assert (result.status, result.confirmed_by) == ("confirmed", official)


def history_names_the_seats(new_page, official, stage, tables) -> None:
    """Every version keeps the seat that made it: the entering seat, the confirming one, the one
    that disputed; the official's history page lists each of them."""
    page = new_page(TABLET)
    table = tables[DISPUTED[0] - 1]
    slug = stage.tournament.slug
    path = f"/t/{slug}/enter/{table.pk}/{DISPUTED[1]}/history/"
    sign_in(page, official.username, next_path=path)
    result = RoundResult.objects.get(table=table, round_no=DISPUTED[1])
    versions = list(result.versions.order_by("version"))
    said = [
        (v.action, reporting.seat_named(s) if (s := reporting.seat_of(v.by_id)) else v.by.username)
        for v in versions
    ]
    assert said == [
        ("submitted", "Seat 1 (Player 05)"),
        ("disputed", "Seat 2 (Player 06)"),
        ("confirmed", official.username),
    ]
    assert versions[1].reason == "Seat 3 had 21, not 12"
    history = page.locator("ol.history")
    for _action, who in said:  # a seat by its seat and player, an official by their username
        expect(history).to_contain_text(who)
    expect(history).to_contain_text("Disputed by Seat 2 (Player 06), from a player's phone")
    expect(history).to_contain_text("Seat 3 had 21, not 12")
    expect(history).not_to_contain_text(reporting.SEAT_PREFIX)  # no seat's raw username
