"""The projector fits its screen (it cannot be scrolled in a hall): the demo's events, the
Lakeside Samboree mid-stage (its legend of who would advance) and the Silver Games finished (the
medals of three divisions), on 4:3, 720p, WXGA and 1080p screens in English and Spanish. Nothing
below the screen's foot, the legend never over the rows, every medal on the screen and every
name whole. Then Lakeside with a clock and time called: a taller heading, fewer rows a page."""

import pytest

from scoring.demo import DEMO_ORGANISER, DEMO_SLUG
from scoring.demo_events import SILVER_SLUG
from scoring.services import clock
from tests.snapshots import demo_tournaments
from tournaments.models import Tournament

pytestmark = pytest.mark.browser

SCREENS = [(1024, 768), (1280, 720), (1366, 768), (1920, 1080)]

# Each of the selector's boxes shown, as [text, left, top, right, bottom].
BOXES = """(selector) => [...document.querySelectorAll(selector)]
  .filter((e) => e.getClientRects().length)
  .map((e) => { const r = e.getBoundingClientRect();
                return [e.innerText.trim().slice(0, 30), r.left, r.top, r.right, r.bottom]; })"""

# What reaches below the screen's foot, or is cut by a box that hides its overflow.
BELOW_OR_CUT = """() => {
  const problems = [];
  for (const e of document.querySelectorAll("main *")) {
    const r = e.getBoundingClientRect();
    if (r.height && r.bottom > window.innerHeight + 1) problems.push(`${e.tagName} ${r.bottom}`);
  }
  const main = document.querySelector("main");
  if (main.scrollHeight > main.clientHeight + 1) problems.push(`main ${main.scrollHeight}`);
  return problems.slice(0, 5);
}"""

# A name cut short ("Mildred …") in the standings or the medals.
CUT_NAMES = """() => [...document.querySelectorAll(".screen-table td.name, .podium-name")]
  .filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.innerText)"""


def overlapping(first: list, second: list) -> bool:
    _, left, top, right, bottom = first
    _, left2, top2, right2, bottom2 = second
    return left < right2 - 1 and left2 < right - 1 and top < bottom2 - 1 and top2 < bottom - 1


@pytest.fixture
def demo(transactional_db):
    demo_tournaments()  # load_demo()'s, run once per test process (tests/snapshots.py)


def mid_stage_problems(page, where: str, rows_shown: int) -> list[str]:
    """The Lakeside's projector: within the screen, its legend clear of the rows."""
    problems = [f"{where}: {p}" for p in page.evaluate(BELOW_OR_CUT)]
    rows = page.evaluate(BOXES, ".screen-table tr")
    assert len(rows) == rows_shown + 2, where  # two columns and their headings
    legend = page.evaluate(BOXES, ".screen-legend")
    assert len(legend) == 1, f"{where}: the legend of ✓ is not shown"
    return problems + [
        f"{where}: the legend over the row {row[0]!r}"
        for row in rows
        if overlapping(legend[0], row)
    ]


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_projector_fits_every_screen_mid_stage_and_finished(new_page, demo, language):
    problems = []
    for width, height in SCREENS:
        page = new_page({"width": width, "height": height})
        where = f"{width}x{height} {language}"

        page.goto(f"/{language}/t/{DEMO_SLUG}/screen/")
        assert page.evaluate("document.documentElement.scrollHeight") <= height, where
        problems += mid_stage_problems(page, f"{where} lakeside", 30)  # two columns of 15
        problems += [f"{where} lakeside: {name!r} cut" for name in page.evaluate(CUT_NAMES)]

        page.goto(f"/{language}/t/{SILVER_SLUG}/screen/")
        assert page.evaluate("document.documentElement.scrollHeight") <= height, where
        problems += [f"{where} silver: {p}" for p in page.evaluate(BELOW_OR_CUT)]
        medals = page.evaluate(BOXES, ".screen-podium .placings li")
        assert len(medals) == 9, f"{where}: {len(medals)} medals of 9"  # three divisions
        problems += [
            f"{where} silver: the medal of {text!r} is off the screen"
            for text, left, top, right, bottom in medals
            if left < 0 or top < 0 or right > width or bottom > height
        ]
        rows = page.evaluate(BOXES, ".screen-table tbody tr")
        assert len(rows) == 21, where  # the final standings, on one page
        problems += [
            f"{where} silver: the medals over the row {row[0]!r}"
            for row in rows
            for medal in medals
            if overlapping(medal, row)
        ]
        problems += [f"{where} silver: {name!r} cut" for name in page.evaluate(CUT_NAMES)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("language", ["en", "es"])
def test_the_projector_with_a_clock_and_time_called_fits_every_screen(new_page, demo, language):
    lakeside = Tournament.objects.get(slug=DEMO_SLUG)
    stage = lakeside.stages.get(order=1)
    stage.time_limit_minutes = 60
    stage.save()
    organiser = lakeside.staff.get(user__username=DEMO_ORGANISER).user
    clock.start_clock(stage, by=organiser)
    clock.call_time(stage, by=organiser)  # tables 9 and 10 stop after round 3
    problems = []
    for width, height in SCREENS:
        page = new_page({"width": width, "height": height})
        page.goto(f"/{language}/t/{DEMO_SLUG}/screen/")
        assert page.locator(".screen-head .clock").is_visible()
        assert page.locator(".time-called-tables li").count() == 2
        assert page.evaluate("document.documentElement.scrollHeight") <= height
        problems += mid_stage_problems(page, f"{width}x{height} {language}", 22)  # 2 of 11
        smallest = page.evaluate(
            "() => Math.min(...[...document.querySelectorAll('.screen-table td')]"
            ".map(e => parseFloat(getComputedStyle(e).fontSize)))"
        )
        assert smallest >= height / 34, f"{width}x{height}: {smallest}px rows"
    assert not problems, "\n".join(problems)
