"""The tablet asks before it stores an unusual score, and never loses a typed value silently:
"Went out" keeps the pips it replaces in view, with a way back; going to another round and back,
the blocked choice, and an offline resend keep what was typed (and what was confirmed)."""

import os

import pytest
from playwright.sync_api import expect

from scoring.models import RoundResult
from tests.browser.conftest import PHONE, TABLET, overflows_sideways, sign_in
from tests.browser.test_tablet_entry import fill_round, signed_in_at_round_one, stored_pips

pytestmark = pytest.mark.browser


SCREENSHOTS = "/tmp/roundhouse-b-screens"


def test_went_out_keeps_the_typed_pips_in_view_and_puts_them_back(new_page, seated):
    _tournament, _table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    ann = players[0].pk
    page.fill(f"#pips-{ann}", "7")
    page.check(f"input[name=went_out][value='{ann}']")
    assert page.input_value(f"#pips-{ann}") == "0"  # going out scores 0...
    note = page.locator(f"#cleared-{ann}")
    expect(note).to_be_visible()  # ...and the 7 is said, not lost
    expect(note).to_contain_text("Went out, so 0: 7 was typed.")
    # Still there after a reload (the draft keeps it).
    page.reload()
    expect(page.locator(f"#cleared-{ann}")).to_contain_text("7 was typed")
    page.click(f"#cleared-{ann} button:has-text('Undo: put back 7')")
    assert page.input_value(f"#pips-{ann}") == "7"
    assert not page.is_checked(f"input[name=went_out][value='{ann}']")
    expect(page.locator(f"#cleared-{ann}")).to_be_hidden()
    assert page.evaluate("() => document.activeElement.id") == f"pips-{ann}"


def test_typing_over_the_0_drops_the_note_as_the_new_value_is_what_counts(new_page, seated):
    _tournament, _table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    cy = players[2].pk
    page.fill(f"#pips-{cy}", "12")
    page.check(f"input[name=went_out][value='{cy}']")
    expect(page.locator(f"#cleared-{cy}")).to_be_visible()
    page.fill(f"#pips-{cy}", "0")
    expect(page.locator(f"#cleared-{cy}")).to_be_hidden()


def test_blocked_after_went_out_gives_the_pips_back(new_page, seated):
    _tournament, _table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    fill_round(page, players, ["9", "14", "22", "5"], went_out=0)
    page.check("input[name=went_out][value='blocked']")
    assert [page.input_value(f"#pips-{p.pk}") for p in players] == ["9", "14", "22", "5"]
    expect(page.locator(f"#cleared-{players[0].pk}")).to_be_hidden()


def test_going_to_another_round_and_back_keeps_what_was_typed(new_page, seated):
    _tournament, table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    fill_round(page, players, ["6", "14", "22", "9"], went_out=0)
    page.click("nav.round-nav >> text=Round 2")
    page.wait_for_url(f"**/enter/{table.pk}/2/")
    page.go_back()
    page.wait_for_url(f"**/enter/{table.pk}/1/")
    assert [page.input_value(f"#pips-{p.pk}") for p in players] == ["0", "14", "22", "9"]
    expect(page.locator(f"#cleared-{players[0].pk}")).to_contain_text("6 was typed")


def ask_about_250(page, players):
    fill_round(page, players, ["0", "250", "22", "9"], went_out=0)
    page.click("#round-form button[type=submit]")
    bob = players[1].pk
    question = page.locator(f"#unusual-{bob}")
    expect(question).to_be_visible()
    return question


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["tablet", "phone"])
def test_an_unusual_score_is_asked_about_then_confirmed_and_stored_checked(
    new_page, seated, viewport
):
    tournament, table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    page.set_viewport_size(viewport)
    question = ask_about_250(page, players)
    bob = players[1].pk
    expect(question).to_contain_text(
        "Are you sure? Bob Ortiz: 250 pips is more than a hand of 12 tiles usually holds (144 on "
        "average, at most 250 without drawing)."
    )
    expect(page.locator("#form-errors")).to_contain_text("Not saved yet: check the scores")
    assert page.get_attribute(f"#pips-{bob}", "aria-invalid") == "true"
    assert f"warning-{bob}" in page.get_attribute(f"#pips-{bob}", "aria-describedby")
    assert page.evaluate("() => document.activeElement.id") == f"pips-{bob}"
    assert not RoundResult.objects.exists()
    page.check(f"#unusual-{bob} input[type=checkbox]")
    page.click("#round-form button[type=submit]")
    page.wait_for_url("**/check/")
    expect(page.locator("main")).to_contain_text(
        "Unusual score checked by the official: Bob Ortiz 250 pips."
    )
    result = RoundResult.objects.get()
    assert [(w["pips"], w["checked"]) for w in result.warnings] == [(250, True)]
    page.goto(f"/t/{tournament.slug}/enter/{table.pk}/1/history/")
    expect(page.locator("main")).to_contain_text("Unusual score checked by the official")


def test_an_unusual_score_corrected_is_saved_without_a_flag(new_page, seated):
    _tournament, _table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    question = ask_about_250(page, players)
    page.fill(f"#pips-{players[1].pk}", "25")  # the typo put right: the question goes
    expect(question).to_be_hidden()
    assert page.get_attribute(f"#pips-{players[1].pk}", "aria-invalid") is None
    page.click("#round-form button[type=submit]")
    page.wait_for_url("**/check/")
    assert RoundResult.objects.get().warnings == []
    assert stored_pips() == [0, 25, 22, 9]


def test_a_confirmation_made_offline_is_sent_with_the_entry(new_page, seated):
    _tournament, _table, players, _official = seated
    page = signed_in_at_round_one(new_page, seated)
    ask_about_250(page, players)
    page.check(f"#unusual-{players[1].pk} input[type=checkbox]")
    api = "**/api/v1/tables/*/rounds/*/"
    page.route(api, lambda route: route.abort("internetdisconnected"))  # the Wi-Fi drops
    page.click("#round-form button[type=submit]")
    expect(page.locator("#offline-banner")).to_contain_text("Not sent yet")
    page.reload()  # the tablet restarted meanwhile: the entry, and its confirmation, are kept
    expect(page.locator("#offline-banner")).to_contain_text("Not sent yet")
    assert not RoundResult.objects.exists()
    page.unroute(api)
    page.wait_for_url("**/check/", timeout=15_000)
    result = RoundResult.objects.get()
    assert [(w["pips"], w["checked"]) for w in result.warnings] == [(250, True)]


@pytest.mark.parametrize("viewport", [PHONE, TABLET], ids=["phone", "tablet"])
@pytest.mark.parametrize("text", ["100%", "200%"])
@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_screens_of_the_questions(new_page, seated, viewport, text, locale):
    """The question and the cleared note in view, for a person to look at (SCREENSHOTS); and the
    page does not scroll sideways."""
    tournament, table, players, official = seated
    page = new_page(viewport, locale=locale)
    sign_in(page, official.username, next_path=f"/t/{tournament.slug}/enter/{table.pk}/1/")
    page.evaluate(f"() => {{ document.documentElement.style.fontSize = '{text}'; }}")
    fill_round(page, players, ["7", "250", "22", "9"], went_out=2)
    page.click("#round-form button[type=submit]")
    expect(page.locator(f"#unusual-{players[1].pk}")).to_be_visible()
    assert not overflows_sideways(page)
    os.makedirs(SCREENSHOTS, exist_ok=True)
    name = f"{viewport['width']}-{text.rstrip('%')}-{locale[:2]}"
    page.screenshot(path=f"{SCREENSHOTS}/entry-{name}.png", full_page=True)
