"""Parts of a page that refresh themselves (the progress board every 5 s, the standings) do not
take away what someone is doing in them: a half-filled form, or the focus."""

import pytest

from scoring.models import RoundResult
from tables.models import Table
from tests import factories
from tests.browser.conftest import sign_in
from tests.scoring.helpers import play, seat_tables

pytestmark = pytest.mark.browser

DESK = {"width": 1366, "height": 768}


@pytest.fixture
def tied_board(transactional_db):
    """Table 1 has played both rounds with its first two players tied for the win; table 2 has
    round 1 entered, not yet confirmed."""
    stage = factories.StageFactory(status="seated", rounds=2, order=1, table_size_max=3)
    first, second = seat_tables(stage, [["Ann", "Bob", "Cy"], ["Di", "Ed", "Flo"]])
    for round_no in (1, 2):
        play(stage, first, round_no, [0, 0, 10], blocked=True)
    play(stage, second, 1, [0, 5, 10], status="submitted")
    organiser = factories.StaffFactory(tournament=stage.tournament, role="organiser").user
    return stage, first, organiser


def test_the_board_refreshes_around_a_half_filled_tie_break_form_and_a_focused_link(
    new_page, tied_board
):
    stage, (ann, bob, _cy), organiser = tied_board
    page = new_page(DESK)
    board = f"/t/{stage.tournament.slug}/manage/stages/1/progress/"
    sign_in(page, organiser.username, next_path=board)
    form = page.locator("form.tiebreak")
    # The organiser starts the decision: Bob first, a note, and stays in the note field.
    form.locator(f"select[name=place-{bob.pk}]").select_option("1")
    form.locator(f"select[name=place-{ann.pk}]").select_option("2")
    form.locator("input[name=note]").fill("Bob won the tie-break ro")
    page.wait_for_timeout(6_000)  # a refresh was due meanwhile
    assert page.evaluate("() => document.activeElement.name") == "note"
    assert form.locator("input[name=note]").input_value() == "Bob won the tie-break ro"

    # Now they look at the board: the focus moves to a table's round, and the board refreshes
    # with news (table 2's round 1 confirmed meanwhile).
    chip = page.locator(".board a.chip").nth(2)  # table 2, round 1: to check
    href = chip.get_attribute("href")
    chip.focus()
    RoundResult.objects.filter(table=Table.objects.get(stage=stage, number=2)).update(
        status="confirmed", confirmed_by=organiser
    )
    page.wait_for_function(
        "() => document.querySelector('.progress p').innerText.startsWith('3 confirmed')",
        timeout=12_000,
    )
    # What was chosen and typed is still there, and the focus is on the same link.
    assert form.locator(f"select[name=place-{bob.pk}]").input_value() == "1"
    assert form.locator(f"select[name=place-{ann.pk}]").input_value() == "2"
    assert form.locator("input[name=note]").input_value() == "Bob won the tie-break ro"
    assert page.evaluate("() => document.activeElement.getAttribute('href')") == href
