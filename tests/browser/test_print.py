"""Printing from Chromium: the standings and the final results print without the site's
navigation, with a line naming the tournament and the time, each stage from a new page."""

import io
import unicodedata

import pytest
from pypdf import PdfReader

from tests import factories
from tests.browser.conftest import PHONE
from tests.conftest import client_for
from tests.scoring.helpers import finished_event, play_stage, qualifying_of_six, seat_tables

pytestmark = pytest.mark.browser


@pytest.fixture
def tournament_of(transactional_db):
    tournament = factories.TournamentFactory(name="Torneo de Año Nuevo en Peñasco")
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    return tournament, client_for(organiser)


def test_printed_standings_have_no_navigation_and_say_which_event_and_when(new_page, tournament_of):
    tournament, _ = tournament_of
    play_stage(qualifying_of_six(tournament))
    page = new_page(PHONE)
    page.goto(f"/t/{tournament.slug}/")
    head = page.locator(".print-head")
    assert page.locator(".site-header").is_visible() and not head.is_visible()  # on screen
    page.emulate_media(media="print")
    assert not page.locator(".site-header").is_visible()
    assert not page.locator("form.find").is_visible()
    assert not page.locator(".site-footer").is_visible()
    assert head.is_visible()
    text = head.inner_text()
    assert "Torneo de Año Nuevo en Peñasco · Clasificación · standings as of" in text
    # Every round's column prints, even on a phone where the screen hides them.
    assert page.locator("th.round-col").first.is_visible()


def test_printed_results_start_each_stage_on_a_new_page(new_page, tournament_of):
    tournament, organiser = tournament_of
    finished_event(tournament, organiser)
    page = new_page()
    page.goto(f"/t/{tournament.slug}/results/")
    page.emulate_media(media="print")
    assert not page.locator(".site-header").is_visible()
    assert not page.get_by_role("button", name="Print").is_visible()
    assert (
        page.locator(".print-head")
        .inner_text()
        .startswith("Torneo de Año Nuevo en Peñasco · final results, printed")
    )
    printed = PdfReader(io.BytesIO(page.pdf(format="Letter"))).pages
    # NFKC: Chromium sets "fi" as one letter, the ligature "ﬁ".
    pages = [unicodedata.normalize("NFKC", p.extract_text()) for p in printed]

    def page_of(text: str) -> int:
        return next(n for n, content in enumerate(pages) if text in content)

    assert "Roundhouse" not in pages[0] and "API documentation" not in "".join(pages)
    assert page_of("Final placings") == 0
    final, qualifying = (
        page_of("Gran final: final standings"),
        page_of("Clasificación: final standings"),
    )
    assert final == 0 and qualifying == 1  # the placings, the final, then a new page
    assert not pages[qualifying].split("Clasificación: final standings")[0].strip()
    assert "R1" in pages[qualifying] and "R2" in pages[qualifying]


def test_certificates_print_one_to_a_landscape_page(new_page, tournament_of):
    tournament, organiser = tournament_of
    finished_event(tournament, organiser)
    page = new_page()
    page.goto(f"/t/{tournament.slug}/results/certificates/?places=6")
    page.emulate_media(media="print")
    pdf = PdfReader(io.BytesIO(page.pdf(format="Letter", prefer_css_page_size=True)))
    assert len(pdf.pages) == 6
    for printed in pdf.pages:
        width, height = printed.mediabox.width, printed.mediabox.height
        assert width > height  # landscape
        text = unicodedata.normalize("NFKC", printed.extract_text())
        assert "Torneo de Año Nuevo en Peñasco" in text and "place" in text
        assert "Certificates for places" not in text  # the form is not printed


WALL_ROWS = """() => [...document.querySelectorAll(".wall-rows li")].map((li) => {
  const box = li.getBoundingClientRect();
  return {left: Math.round(box.left), size: parseFloat(getComputedStyle(li).fontSize),
          split: getComputedStyle(li).breakInside};
})"""


def test_the_wall_chart_prints_in_two_columns_to_a_landscape_page(new_page, tournament_of):
    tournament, _ = tournament_of
    stage = factories.StageFactory(tournament=tournament, order=1, status="seated")
    names = ["Ángel", "Beatriz", "Carmen", "Dolores", "Émile", "Fátima", "Gonzalo", "Héctor"]
    seat_tables(stage, [[f"{name} Ruiz {n}" for name in names[n % 2 :: 2]] for n in range(12)])
    page = new_page(PHONE)
    page.goto(f"/t/{tournament.slug}/find-your-table/")
    assert page.locator(".letter-index").is_visible()  # 48 players: the index opens the page
    page.emulate_media(media="print")
    assert not page.locator(".site-header").is_visible()
    assert not page.locator(".letter-index").is_visible()
    assert not page.get_by_role("button", name="Print the wall chart").is_visible()
    assert (
        page.locator(".print-head")
        .inner_text()
        .startswith("Torneo de Año Nuevo en Peñasco · Qualifying · find your table, printed")
    )
    rows = page.evaluate(WALL_ROWS)
    assert len(rows) == 48
    assert all(row["size"] >= 21 and row["split"] == "avoid" for row in rows)  # 16pt, whole
    printed = PdfReader(io.BytesIO(page.pdf(format="A4", prefer_css_page_size=True))).pages
    first = printed[0]
    assert first.mediabox.width > first.mediabox.height  # landscape
    text = unicodedata.normalize("NFKC", "".join(p.extract_text() for p in printed))
    assert "Ángel Ruiz 0" in text and "Table 1" in text and "Seat 1" in text
    assert "Roundhouse" not in text
    # Two columns on the printed page: the rows stand at two distances from its left edge.
    page.set_viewport_size({"width": 1040, "height": 720})  # about A4 landscape, at 96 dpi
    assert len({row["left"] for row in page.evaluate(WALL_ROWS)}) == 2
