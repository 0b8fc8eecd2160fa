"""The self check-in kiosk in Chromium: a code typed on a tablet (820x1180) and on a phone at 200%
text, in English and Spanish; the answer big and clear, a wrong code told to check it or go to
the desk, and the kiosk empty again for the next person a few seconds later. No sideways scroll,
and its box and buttons at least 48 px."""

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, overflows_sideways
from tests.entries.helpers import enter, open_tournament
from tournaments.models import Player

pytestmark = pytest.mark.browser

TABLET = {"width": 820, "height": 1180}
SAID = {
    "en": (
        "Welcome, #1 Ana Peña: you are checked in.",
        "That code is not one of this tournament's",
    ),
    "es": ("Bienvenida/o, #1 Ana Peña: ya está presente.", "Ese código no es de este torneo"),
}
# The answer's words laid out on more than one line (broken inside themselves).
BROKEN_WORDS = """(selector) => {
  const broken = [];
  const node = document.querySelector(selector).firstChild;
  for (const match of node.data.matchAll(/[^\\s]+/g)) {
    const range = document.createRange();
    range.setStart(node, match.index);
    range.setEnd(node, match.index + match[0].length);
    const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
    if (lines.size > 1) broken.push(match[0]);
  }
  return broken;
}"""
SMALL_TARGETS = """() => [
  ...document.querySelectorAll("main input:not([type=hidden]), main button")]
  .filter((e) => e.getClientRects().length)
  .map((e) => [e.id || e.innerText, e.getBoundingClientRect()])
  .filter(([, r]) => r.width < 47.5 || r.height < 47.5)
  .map(([name, r]) => `${name} ${Math.round(r.width)}x${Math.round(r.height)}`)"""


@pytest.mark.parametrize("language", ["en", "es"])
@pytest.mark.parametrize(("size", "text"), [("tablet", ""), ("phone", "200%")])
def test_a_code_typed_at_the_kiosk_checks_in_and_the_kiosk_resets(
    new_page, transactional_db, language, size, text
):
    tournament = open_tournament()
    ana = enter(tournament, "Ana Peña")
    page = new_page(TABLET if size == "tablet" else PHONE, locale=f"{language}-ES")
    page.goto(f"/{language}/t/{tournament.slug}/check-in/")
    page.evaluate(f"() => {{ document.documentElement.style.fontSize = '{text}'; }}")
    welcome, unknown = SAID[language]
    box = page.locator("#kiosk-code")
    expect(box).to_be_focused()
    assert not overflows_sideways(page)
    assert page.evaluate(SMALL_TARGETS) == []

    box.fill("nope 2345")
    box.press("Enter")
    answer = page.locator("#kiosk-answer")
    expect(answer).to_contain_text(unknown)
    expect(answer).to_have_class("kiosk-answer error")

    code = ana.check_in_code
    box.fill(f"{code[:4].lower()} {code[4:]}")
    page.get_by_role("button", name="Check in" if language == "en" else "Marcar presente").click()
    expect(answer).to_have_text(welcome)
    expect(answer).to_have_class("kiosk-answer success")
    assert not overflows_sideways(page)
    font = page.evaluate(
        "() => parseFloat(getComputedStyle(document.getElementById('kiosk-answer')).fontSize)"
    )
    assert font >= (40 if text else 28)  # big: 1.75rem on a tablet, 1.25rem (x2) on a phone
    assert page.evaluate(BROKEN_WORDS, "#kiosk-answer") == []
    assert Player.objects.get(pk=ana.player_id).status == Player.Status.CHECKED_IN
    # Ready for the next person a few seconds later, without a reload.
    expect(answer).to_be_hidden(timeout=9_000)
    expect(box).to_have_value("")
    expect(box).to_be_focused()


def test_without_script_the_kiosk_answers_and_comes_back_by_itself(new_page, transactional_db):
    tournament = open_tournament()
    ana = enter(tournament, "Ana Peña")
    page = new_page(PHONE, java_script_enabled=False)
    page.goto(f"/en/t/{tournament.slug}/check-in/")
    page.fill("#kiosk-code", ana.check_in_code)
    page.click("main button[type=submit]")
    expect(page.locator("#kiosk-answer")).to_have_text(SAID["en"][0])
    # The answer page goes back to the empty kiosk after its few seconds (a meta refresh).
    page.wait_for_url(f"**/en/t/{tournament.slug}/check-in/", timeout=9_000)
    expect(page.locator("#kiosk-answer")).to_be_hidden(timeout=9_000)
    assert page.locator(".kiosk-scan").is_hidden()  # no camera button without script
