"""Every page a person uses, at a phone, a tablet and a desktop, in English and in Spanish, and
every page fits what people see it on (issue 22; WCAG 1.4.4 and 1.4.10). One sweep, the pages
of each kind of visitor opened once in each language:

- at the phone, in both languages: <html lang> is the page's language, no id is used twice, the
  page says what it is for, and the Spanish page has no English words of the site's own left;
- at the phone, the tablet and the desktop at 100% text: the page never scrolls sideways and
  axe-core finds nothing serious or critical;
- on a phone and a portrait tablet, at 100% and at 200% text: the page never scrolls sideways
  (a table may, inside a `.scroll` box that names itself), no word is broken inside itself
  ("Sambore e 2026"), every touch target is at least 48x48 CSS px (a link inside a sentence is
  exempt, WCAG 2.5.8's inline exception); and axe-core again at the tablet at 200% text.

200% text is the root's font size set to 200%: the media queries stay those of the screen, and
the layouts that must follow the text size do so by container queries in em on <main>.
The event is tests/browser/every_page.py's: the demo half-played, with a tie, a correction and a
withdrawal. With ROUNDHOUSE_SCREENSHOTS=<dir> (`make screenshots`) a full-page PNG of every
page, size, text size and language is saved there: es-phone-standings.png (100% text, as
es-phone-100-standings.png), es-phone-200-standings.png, es-desktop-standings.png.
ROUNDHOUSE_FITS_REPORT=1 prints each page's problems as they are found;
ROUNDHOUSE_FITS_PAGES=login,standings sweeps those pages only.
"""

import os
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import Error as PlaywrightError

from scoring.demo import DEMO_OFFICIAL, DEMO_ORGANISER, DEMO_PASSWORD
from tests.browser.axe import serious_violations, start_check
from tests.browser.conftest import PHONE, overflows_sideways, sign_in
from tests.browser.every_page import (
    LOCALES,
    SAME_ID_TWICE,
    SHOTS,
    TEXT_OF_PAGE,
    build_event,
    claim_seat,
    shoot,
    visits_for,
    wording,
)
from tests.browser.every_page import SIZES as EVERY_SIZE

pytestmark = pytest.mark.browser

SIZES = {"phone": PHONE, "tablet": {"width": 820, "height": 1180}}  # measured at 200% text
TEXT = {"100%": "", "200%": "200%"}  # the root's font size ("": the stylesheet's)

MEASURE = """() => {
  const problems = [];
  const say = (what, el) => {
    const text = (el.innerText || el.value || el.getAttribute("aria-label") || "").trim();
    const classes = String(el.className || "").trim().split(/\\s+/).filter(Boolean);
    const name = [el.tagName.toLowerCase(), ...classes].join(".");
    problems.push(`${what}: <${name}> ${JSON.stringify(text.slice(0, 40))}`);
  };
  const root = document.scrollingElement;
  if (root.scrollWidth > window.innerWidth + 1) {
    // What sticks out, outside a box that scrolls on purpose.
    const wide = [...document.body.querySelectorAll("*")].filter((el) => {
      const r = el.getBoundingClientRect();
      return r.right > window.innerWidth + 1 && r.width > 0 && !el.closest(".scroll");
    });
    problems.push(`the page scrolls sideways (${root.scrollWidth} > ${window.innerWidth} px)` +
      (wide.length ? `: ${wide.slice(-1)[0].outerHTML.slice(0, 120)}` : ""));
  }
  // A box that scrolls sideways says what it holds (a caption, or its own label).
  for (const box of document.querySelectorAll(".scroll")) {
    if (box.scrollWidth > box.clientWidth + 1 && !box.querySelector("caption") &&
        !box.getAttribute("aria-label") && !box.getAttribute("aria-labelledby")) {
      say("scrolls sideways without saying what it holds", box);
    }
  }
  // Words: a word over two lines, or wider than the block that holds it.
  const blockOf = (el) => {
    while (el && getComputedStyle(el).display.startsWith("inline")) el = el.parentElement;
    return el;
  };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  const broken = new Set();
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const parent = node.parentElement;
    // Code (a CSV header line, an invitation's address) is not words: it breaks where it must.
    const skipped = "script, style, code, .skip, .visually-hidden, .print-only";
    if (!parent || parent.closest(skipped)) continue;
    const block = blockOf(parent);
    if (!block || block.clientWidth < 2 || !parent.getClientRects().length) continue;
    const blockWidth = block.getBoundingClientRect().width;
    // A word may break after its own hyphen or slash ("Ellison-Whitfield"), never elsewhere.
    const words = /[^\\s\\-\\u2010\\u2013\\u2014\\/]+[\\-\\u2010\\u2013\\u2014\\/]?/g;
    for (const match of node.nodeValue.matchAll(words)) {
      range.setStart(node, match.index);
      range.setEnd(node, match.index + match[0].length);
      const rects = [...range.getClientRects()].filter((r) => r.width > 0.5);
      if (!rects.length) continue;
      const lines = new Set(rects.map((r) => Math.round(r.bottom)));
      const width = range.getBoundingClientRect().width;
      const word = match[0];
      if (lines.size > 1 && !broken.has(word)) {
        broken.add(word);
        say(`the word ${JSON.stringify(word)} is broken over ${lines.size} lines in`, parent);
      } else if (width > blockWidth + 1 && !parent.closest(".scroll") && !broken.has(word)) {
        broken.add(word);
        say(`the word ${JSON.stringify(word)} (${Math.round(width)} px) is wider than its box ` +
            `(${Math.round(blockWidth)} px) in`, parent);
      }
    }
  }
  // Touch targets.
  const inSentence = (a) => {
    if (getComputedStyle(a).display !== "inline") return false;
    const block = blockOf(a.parentElement);
    const own = (a.textContent || "").trim().length;
    return (block.textContent || "").replace(/\\s+/g, " ").trim().length > own + 3;
  };
  const targets = "a[href], button, input:not([type=hidden]), select, summary, textarea";
  for (const el of document.querySelectorAll(targets)) {
    if (el.closest(".skip, [hidden], .print-only")) continue;
    let box = el.getBoundingClientRect();
    if (!box.width || !box.height || getComputedStyle(el).visibility === "hidden") continue;
    if (el.matches("input[type=checkbox], input[type=radio]")) {
      const label = el.closest("label") ||
        (el.id && document.querySelector(`label[for="${el.id}"]`));
      if (label) box = label.getBoundingClientRect();  // the label is the target
    }
    if (el.tagName === "A" && inSentence(el)) continue;
    if (box.width < 47.5 || box.height < 47.5) {
      say(`a touch target of ${Math.round(box.width)}x${Math.round(box.height)} px`, el);
    }
  }
  return problems;
}"""


def set_text_size(page, size: str) -> None:
    """The text enlarged as the root's font size (as tests/browser/test_pages.py does)."""
    page.evaluate(f"() => {{ document.documentElement.style.fontSize = '{size}'; }}")


def page_problems(page) -> list[str]:
    page.wait_for_timeout(30)  # the layout after the resize
    return page.evaluate(MEASURE)


def shoot_as_well(language: str, size: str, name: str, shot_as: str) -> None:
    """The same picture under a second name (the 100% text one is both sweeps' of old)."""
    if SHOTS:
        folder = Path(SHOTS)
        shutil.copyfile(
            folder / f"{language}-{shot_as}-{name}.png", folder / f"{language}-{size}-{name}.png"
        )


# The pages of each kind of visitor, in this many parts (every part-th page from the part's
# own): the organiser's 38 pages took two minutes in one test, the last of its worker's while the
# other worker had none left.
PARTS = {"anyone": 2, "official": 1, "organiser": 3, "seat": 1}


@pytest.mark.parametrize(
    ("who", "part"),
    [(who, part) for who, parts in PARTS.items() for part in range(1, parts + 1)],
    ids=lambda value: str(value),
)
def test_every_page_at_every_size_in_both_languages_fits_at_200_percent_text(
    new_page, transactional_db, who, part
):
    event = build_event()
    pages = {}
    for language, locale in LOCALES.items():
        pages[language] = new_page(PHONE, locale=locale)  # Accept-Language: es-ES
        if who == "seat":  # a player's phone at a table whose players report
            claim_seat(pages[language], language)
        elif who != "anyone":
            username = DEMO_OFFICIAL if who == "official" else DEMO_ORGANISER
            sign_in(pages[language], username, DEMO_PASSWORD)

    found: dict[str, list[str]] = {}
    only = os.environ.get("ROUNDHOUSE_FITS_PAGES", "")  # "login,standings": those pages only
    for visit in visits_for(event, who)[part - 1 :: PARTS[who]]:
        if only and visit.name not in only.split(","):
            continue
        problems = found.setdefault(visit.name, [])
        words = {}
        for language, page in pages.items():
            page.set_viewport_size(PHONE)
            response = page.goto(visit.path)
            assert response is not None, f"{language} {visit.path} failed"
            assert response.ok or response.status == visit.status, (
                f"{language} {visit.path} failed: {response.status}"
            )
            if visit.then:
                try:
                    visit.then(page)
                except PlaywrightError as error:  # the page as it is then is checked still
                    problems.append(f"{language}: {visit.name}'s step failed: {error.message[:80]}")
            if page.evaluate("() => document.documentElement.lang") != language:
                problems.append(f"{language}: <html lang> is not {language}")
            twice = page.evaluate(SAME_ID_TWICE)  # a label or aria reference finds one of them
            if twice:
                problems.append(f"{language}: ids used twice: {twice}")
            said = visit.spanish if language == "es" else visit.english
            if said not in page.inner_text("main"):
                problems.append(f"{language}: {said!r} is not on the page")
            words[language] = wording(page.evaluate(TEXT_OF_PAGE), event.data)
        untranslated = words["es"] & words["en"]
        if untranslated:
            problems.append(f"es: still in English: {sorted(untranslated)}")

        for text, pixels in TEXT.items():
            for size, viewport in EVERY_SIZE.items():
                measured = size in SIZES  # the phone and the tablet, at both text sizes
                if not measured and text != "100%":
                    continue
                for language, page in pages.items():
                    set_text_size(page, pixels)
                    page.set_viewport_size(viewport)
                    where = f"{language} {size} {text}"
                    if measured:
                        problems.extend(f"{where}: {p}" for p in page_problems(page))
                    if text == "100%" and overflows_sideways(page):
                        problems.append(f"{where}: the page scrolls sideways")
                # axe at every size at 100% text, and at the tablet at 200% (the last one)
                checked = text == "100%" or size == "tablet"
                if checked:
                    for page in pages.values():  # both languages at once, in their own renderers
                        start_check(page)
                for language, page in pages.items():
                    if checked:
                        problems.extend(
                            f"{language} {size} {text} axe: {v}" for v in serious_violations(page)
                        )
                    if measured:
                        shoot(page, language, f"{size}-{text[:-1]}", visit.name)
                        if text == "100%":
                            shoot_as_well(language, size, visit.name, f"{size}-100")
                    else:
                        shoot(page, language, size, visit.name)

    if os.environ.get("ROUNDHOUSE_FITS_REPORT"):
        for name, problems in found.items():
            print(f"FITS ({who!r} {part}, {name!r})", "".join(f"\n    {p}" for p in problems))
    report = [f"{name}: {p}" for name, problems in found.items() for p in dict.fromkeys(problems)]
    assert not report, "\n".join(report)


def test_the_phone_header_is_the_tournaments_name_and_one_menu(new_page, transactional_db):
    """On a phone the header was 233 of 844 px of links; now it is the tournament's name and a
    Menu holding the pages, the language switch and Sign in. A tablet shows them all in the bar."""
    event = build_event()
    page = new_page(PHONE)
    page.goto(f"/t/{event.slug}/")
    header = page.locator(".site-header")
    assert header.bounding_box()["height"] <= 80
    assert page.locator(".brand:visible").inner_text() == "Lakeside Samboree 2026"
    links = page.get_by_role("link", name="Find a player")
    assert not links.is_visible() and not page.get_by_role("link", name="Sign in").is_visible()
    page.get_by_text("Menu").click()  # a <details>: no script needed
    assert links.is_visible() and page.get_by_role("link", name="Sign in").is_visible()
    shoot(page, "en", "phone", "menu-open")
    page.get_by_role("link", name="Español").click()  # the same page, its address in Spanish
    page.wait_for_url(f"**/es/t/{event.slug}/")
    assert page.locator("html").get_attribute("lang") == "es"

    page.set_viewport_size({"width": 820, "height": 1180})
    page.goto(f"/es/t/{event.slug}/")
    assert not page.locator(".menu > summary").is_visible()
    assert page.get_by_role("link", name="Buscar un jugador").is_visible()
    assert page.get_by_role("link", name="Iniciar sesión").is_visible()
    assert page.locator(".brand:visible").inner_text() == "Roundhouse"
