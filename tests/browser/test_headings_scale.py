"""A phone's page headings grow with the text: at 200% text a heading was capped at the body
text's size, smaller than the lead under it ("Mesa 9 · Ronda 3" over "Doble inicial: doble
10"). Now it grows by half again or more, and stays at least as large as any text under it."""

import pytest

from tests.browser.conftest import PHONE, sign_in

pytestmark = pytest.mark.browser

SIZES = """() => ({
  heading: parseFloat(getComputedStyle(document.querySelector("main h1")).fontSize),
  text: Math.max(...[...document.querySelectorAll("main p, main li, main label")]
    .filter((e) => e.getClientRects().length && !e.closest(".visually-hidden"))
    .map((e) => parseFloat(getComputedStyle(e).fontSize))),
})"""


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_a_phones_headings_grow_with_the_text(new_page, seated, locale):
    tournament, table, _players, official = seated
    page = new_page(PHONE, locale=locale)
    sign_in(page, official.username, next_path=f"/t/{tournament.slug}/enter/")
    for path in (
        f"/t/{tournament.slug}/enter/",
        f"/t/{tournament.slug}/enter/{table.pk}/1/",
        f"/t/{tournament.slug}/",
    ):
        page.goto(path)
        normal = page.evaluate(SIZES)
        page.evaluate("() => { document.documentElement.style.fontSize = '200%'; }")
        page.wait_for_timeout(50)
        large = page.evaluate(SIZES)
        assert large["heading"] >= 1.45 * normal["heading"], f"{path}: {normal} then {large}"
        assert large["heading"] >= large["text"], f"{path}: the heading smaller than its text"
