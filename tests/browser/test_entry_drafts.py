"""What was typed on the tablet and not saved comes back said, checked and discardable: a draft
put back as the page opens is announced with when it was typed, its problems are marked at once
as if it had just been sent, and "Discard and start again" shows the round as the server has it.
An entry waiting to be resent is not put in question. Each bad score has its own message, and an
unusual score is asked about together with the other errors."""

import re

import pytest
from playwright.sync_api import expect

from scoring.models import RoundResult
from tests.browser.conftest import PHONE, TABLET, sign_in
from tests.browser.test_tablet_entry import (
    fill_round,
    signed_in_at_round_one,
    stored_pips,
    submitted,
)

pytestmark = pytest.mark.browser

WHOLE = "Enter a whole number of pips, 0 or more"
MISSING = "Enter this player's pips (0 if they went out)"
RESTORED = re.compile(
    r"^Restored what was entered on this device at \d{1,2}:\d{2}( [AP]M)?, not yet saved\.$"
)


def refused_then_reopened(page, seated):
    """The walk's entry: -5, abc, nothing and went out; sent, refused, the page opened again."""
    tournament, table, players, _official = seated
    for player, value in zip(players, ["-5", "abc", "", "11"], strict=True):
        page.fill(f"#pips-{player.pk}", value)
    page.check(f"input[name=went_out][value='{players[3].pk}']")  # 11 -> 0
    page.click("#round-form button[type=submit]")
    expect(page.locator(f"#js-error-{players[0].pk}")).to_have_text(WHOLE)
    page.goto(f"/t/{tournament.slug}/enter/{table.pk}/1/")


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["tablet", "phone"])
def test_a_refused_draft_comes_back_announced_with_its_errors_marked(new_page, seated, viewport):
    tournament, table, players, official = seated
    page = new_page(viewport)
    sign_in(page, official.username, next_path=f"/t/{tournament.slug}/enter/{table.pk}/1/")
    refused_then_reopened(page, seated)
    notice = page.locator("#restored-notice")
    expect(notice.locator(".restored-text")).to_have_text(RESTORED)
    expect(notice.get_by_role("button", name="Discard and start again")).to_be_visible()
    values = [page.input_value(f"#pips-{p.pk}") for p in players]
    assert values == ["-5", "abc", "", "0"]
    assert page.is_checked(f"input[name=went_out][value='{players[3].pk}']")
    # Marked at once, each with its own message, as if it had just been sent.
    expect(page.locator(f"#js-error-{players[0].pk}")).to_have_text(WHOLE)
    expect(page.locator(f"#js-error-{players[1].pk}")).to_have_text(WHOLE)
    expect(page.locator(f"#js-error-{players[2].pk}")).to_have_text(MISSING)
    expect(page.locator(f"#js-error-{players[3].pk}")).to_be_hidden()  # 0, went out: right
    expect(page.locator(f"#pips-{players[0].pk}")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#form-errors")).to_contain_text("Not saved: correct what is marked below.")
    assert not RoundResult.objects.exists()


def test_discard_shows_the_saved_round_and_the_draft_does_not_come_back(new_page, seated):
    _tournament, _table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    refused_then_reopened(page, seated)
    expect(page.locator("#restored-notice")).to_be_visible()
    page.click("#restored-notice button:has-text('Discard and start again')")
    expect(page.locator("#restored-notice")).to_be_hidden()
    # The round as the server has it: nothing yet, and nothing marked.
    assert [page.input_value(f"#pips-{p.pk}") for p in players] == ["", "", "", ""]
    assert page.locator("input[name=went_out]:checked").count() == 0
    expect(page.locator(".js-error:not([hidden])")).to_have_count(0)
    expect(page.locator("#form-errors")).to_be_empty()
    assert page.evaluate("() => document.activeElement.id") == f"pips-{players[0].pk}"
    page.reload()
    expect(page.locator("#restored-notice")).to_be_hidden()
    assert [page.input_value(f"#pips-{p.pk}") for p in players] == ["", "", "", ""]
    draft = "() => localStorage.getItem(document.forms['round-form'].dataset.draftKey)"
    assert page.evaluate(draft) is None
    assert not RoundResult.objects.exists()


def test_discard_over_saved_scores_shows_them(new_page, seated):
    _tournament, table, players, official = seated
    submitted(table, players, [0, 10, 20, 30], official)
    page = signed_in_at_round_one(new_page, seated)
    page.fill(f"#pips-{players[1].pk}", "")  # started a correction, then left it
    page.reload()
    expect(page.locator("#restored-notice")).to_be_visible()
    expect(page.locator(f"#js-error-{players[1].pk}")).to_have_text(MISSING)
    page.click("#restored-notice button")
    assert [page.input_value(f"#pips-{p.pk}") for p in players] == ["0", "10", "20", "30"]
    assert page.is_checked(f"input[name=went_out][value='{players[0].pk}']")


def test_a_valid_restored_draft_is_said_unmarked_and_can_be_submitted(new_page, seated):
    _tournament, _table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    fill_round(page, players, ["0", "14", "22", "9"], went_out=0)
    page.reload()  # never sent
    expect(page.locator("#restored-notice .restored-text")).to_have_text(RESTORED)
    assert [page.input_value(f"#pips-{p.pk}") for p in players] == ["0", "14", "22", "9"]
    page.wait_for_load_state("networkidle")  # the check has answered
    expect(page.locator(".js-error:not([hidden])")).to_have_count(0)
    expect(page.locator("#form-errors")).to_be_empty()
    page.click("#round-form button[type=submit]")
    page.wait_for_url("**/check/")
    assert stored_pips() == [0, 14, 22, 9]
    page.go_back()
    page.wait_for_url("**/enter/*/1/")
    expect(page.locator("#restored-notice")).to_be_hidden()  # saved: nothing to restore


def test_an_entry_waiting_to_be_resent_is_not_put_in_question_and_is_sent(new_page, seated):
    _tournament, _table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    api = "**/api/v1/tables/*/rounds/*/"
    page.route(api, lambda route: route.abort("internetdisconnected"))
    fill_round(page, players, ["0", "14", "22", "9"], went_out=0)
    page.click("#round-form button[type=submit]")
    expect(page.locator("#offline-banner")).to_contain_text("Not sent yet")
    page.reload()
    expect(page.locator("#offline-banner")).to_contain_text("Not sent yet")
    expect(page.locator("#restored-notice")).to_be_hidden()
    assert [page.input_value(f"#pips-{p.pk}") for p in players] == ["0", "14", "22", "9"]
    page.unroute(api)
    page.wait_for_url("**/check/", timeout=15_000)  # resent by itself
    assert stored_pips() == [0, 14, 22, 9]


@pytest.mark.parametrize(
    ("typed", "message"),
    [("", MISSING), ("abc", WHOLE), ("-5", WHOLE)],
    ids=["blank", "letters", "negative"],
)
def test_each_bad_score_has_its_own_message_and_nothing_is_saved(new_page, seated, typed, message):
    _tournament, _table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    fill_round(page, players, ["0", typed, "22", "9"], went_out=0)
    page.click("#round-form button[type=submit]")
    expect(page.locator(f"#js-error-{players[1].pk}")).to_have_text(message)
    expect(page.locator(".js-error:not([hidden])")).to_have_count(1)
    assert not RoundResult.objects.exists()


def test_an_unusual_score_is_asked_about_together_with_the_errors(new_page, seated):
    _tournament, _table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    bob, cy, di = (p.pk for p in players[1:])
    fill_round(page, players, ["0", "250", "3x", ""], went_out=0)
    page.click("#round-form button[type=submit]")
    expect(page.locator(f"#unusual-{bob}")).to_be_visible()
    expect(page.locator(f"#warning-{bob}")).to_contain_text("Are you sure?")
    expect(page.locator(f"#js-error-{cy}")).to_have_text(WHOLE)
    expect(page.locator(f"#js-error-{di}")).to_have_text(MISSING)
    top = page.locator("#form-errors")
    # One message for both (as the page without JavaScript says it).
    expect(top.locator("p")).to_have_text(
        [
            "Not saved: correct what is marked below, and check the unusual scores with the "
            "players: correct them, or tick that they are right, then save again."
        ]
    )
    assert not RoundResult.objects.exists()
    # All put right at once: corrected, 250 ticked as checked, saved flagged.
    page.fill(f"#pips-{cy}", "30")
    page.fill(f"#pips-{di}", "7")
    page.check(f"#unusual-{bob} input[type=checkbox]")
    page.click("#round-form button[type=submit]")
    page.wait_for_url("**/check/")
    assert stored_pips() == [0, 250, 30, 7]
    assert [w["checked"] for w in RoundResult.objects.get().warnings] == [True]


def test_the_table_list_says_which_missing_round_waits_typed_on_this_device(new_page, seated):
    tournament, _table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    page.fill(f"#pips-{players[1].pk}", "14")
    page.goto(f"/t/{tournament.slug}/enter/")
    chips = page.locator(".table-link").first.locator(".chip")
    expect(chips.nth(0).locator(".draft-here")).to_be_visible()
    assert chips.nth(0).inner_text() == "R1: ○ missing · typed on this device, not saved"
    expect(chips.nth(1).locator(".draft-here")).to_be_hidden()
    assert chips.nth(1).inner_text() == "R2: ○ missing"
    page.locator(".table-link").first.click()
    page.click("#restored-notice button:has-text('Discard and start again')")
    page.goto(f"/t/{tournament.slug}/enter/")
    expect(chips.nth(0).locator(".draft-here")).to_be_hidden()


def test_a_correction_reason_typed_before_any_score_comes_back(new_page, seated):
    """An official going to correct a confirmed round types the reason first; the page reloads
    (a dropped connection, a tap on the address bar): the reason is there, said as restored."""
    from scoring import services

    tournament, table, players, official = seated
    services.confirm_round_result(
        result=submitted(table, players, [0, 10, 20, 30], official), by=official
    )
    page = new_page(TABLET)
    sign_in(page, official.username, next_path=f"/t/{tournament.slug}/enter/{table.pk}/1/")
    page.fill("#id_reason", "The paper sheet said 29")
    page.reload()
    expect(page.locator("#id_reason")).to_have_value("The paper sheet said 29")
    expect(page.locator("#restored-notice .restored-text")).to_have_text(RESTORED)
    assert [page.input_value(f"#pips-{p.pk}") for p in players] == ["0", "10", "20", "30"]
