"""A whole event as its people meet it, in Chromium: the organiser sets it up, an official enters
rounds on a tablet, a player follows on a phone, the organiser closes the stage and downloads.
axe-core checks every page on the way."""

import re

import pytest

from scoring.models import RoundResult
from tests import factories
from tests.browser.axe import serious_violations
from tests.browser.conftest import PHONE, TABLET, sign_in

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PLAYERS = [
    "Ann Baker",
    "Bob Ortiz",
    "Cy Young",
    "Di Peña",
    "Ed Lee",
    "Flo Ng",
    "Gus Hall",
    "Hal Ruiz",
    "Ida Cho",
    "Jo Kim",
    "Kay Roe",
    "Lu Díaz",
]


def submit(page, selector: str) -> None:
    """Click a button that posts a form, and wait for the page it leads to."""
    with page.expect_navigation():
        page.click(selector)


def accessible(page) -> None:
    problems = serious_violations(page)
    assert not problems, f"{page.url}: {problems}"


def test_a_whole_event(new_page, transactional_db, tmp_path):
    desk_user = factories.OrganiserAccountFactory(username="desk")
    tablet_user = factories.UserFactory(username="tablet")

    # The organiser creates the event from the Samboree preset.
    desk = new_page(DESKTOP)
    sign_in(desk, desk_user.username)
    accessible(desk)
    desk.goto("/new/")
    accessible(desk)
    desk.fill("#id_name", "Harbour Samboree")
    desk.fill("#id_slug", "harbour")
    desk.select_option("#id_preset", "samboree")
    desk.click("main button[type=submit]")
    desk.wait_for_url("**/t/harbour/manage/")
    accessible(desk)

    # ... imports the players, adds the official, and announces two rounds.
    csv_file = tmp_path / "players.csv"
    csv_file.write_text(
        "number,name\n" + "".join(f"{n},{name}\n" for n, name in enumerate(PLAYERS, 1)),
        encoding="utf-8",
    )
    # On an event with no players yet, adding them is open: the first thing to do.
    assert desk.get_attribute("#add-players", "open") is not None
    desk.set_input_files("#id_file", str(csv_file))
    submit(desk, "button:text-is('Import')")
    assert "Imported 12 players." in desk.inner_text(".messages")
    desk.goto("/t/harbour/manage/staff/")
    accessible(desk)
    desk.select_option("#id_role", "official")
    submit(desk, "button[value=invite]")
    accessible(desk)
    invitation = desk.locator(".invite-link a").get_attribute("href")
    desk.goto("/t/harbour/manage/stages/1/")
    accessible(desk)
    desk.fill("#id_rounds", "2")
    submit(desk, "#day-h ~ form button[type=submit]")
    assert "2 rounds, engines 12, 11" in desk.inner_text(".messages")
    submit(desk, "button:text-is('Seat players')")
    assert "Seated 12 players at 3 tables" in desk.inner_text(".messages")
    accessible(desk)

    # A player watches the standings on a phone.
    phone = new_page(PHONE)
    phone.goto("/t/harbour/")
    accessible(phone)
    phone.evaluate("() => { window.stillTheSamePage = true; }")
    assert "0 of 6 results in." in phone.inner_text(".freshness")

    # The official enters every round at a tablet.
    tablet = new_page(TABLET)
    join = invitation.split("://", 1)[1].split("/", 1)[1]
    sign_in(tablet, tablet_user.username, next_path=f"/{join}")
    accessible(tablet)
    submit(tablet, "text=Accept the invitation")
    assert tablet.url.endswith("/t/harbour/enter/")
    accessible(tablet)
    for table_no in (1, 2, 3):
        for round_no in (1, 2):
            tablet.goto("/t/harbour/enter/")
            tablet.click(f"text=Table {table_no}")
            tablet.wait_for_url(re.compile(rf".*/enter/\d+/{round_no}/$"))
            inputs = tablet.locator("input.pips")
            tablet.locator("input[name=went_out]").nth(round_no - 1).check()
            for index in range(inputs.count()):
                if index != round_no - 1:
                    inputs.nth(index).fill(str(5 * table_no + index))
            if (table_no, round_no) == (1, 1):
                accessible(tablet)
            tablet.click("#round-form button[type=submit]")
            tablet.wait_for_url("**/check/")
            if (table_no, round_no) == (1, 1):
                accessible(tablet)
            submit(tablet, "text=The players agree: confirm")
    assert RoundResult.objects.filter(status="confirmed").count() == 6

    # The phone's standings caught up by themselves, without a reload.
    phone.wait_for_function(
        "() => document.querySelector('.freshness').innerText.includes('6 of 6 results in')",
        timeout=15_000,
    )
    assert phone.evaluate("() => window.stillTheSamePage") is True
    assert phone.locator(".standings .badge").count() == 3  # the three table winners
    phone.click("text=Ann Baker")
    accessible(phone)

    # The organiser closes the stage; the bracket shows the playoff table.
    desk.goto("/t/harbour/manage/stages/")
    submit(desk, "a[aria-label='Close Qualifying…']")  # asks first, saying what follows
    accessible(desk)
    assert "Each table's winner goes on to the next playoff level" in desk.inner_text("main")
    submit(desk, "form button:text-is('Close Qualifying')")
    assert "Qualifying is closed" in desk.inner_text(".messages")
    desk.goto("/t/harbour/bracket/")
    accessible(desk)
    assert "Table 1" in desk.inner_text("main") and "table 3" in desk.inner_text("main")
    winners = desk.locator(".bracket-grid tbody tr").count()
    assert winners == 3

    # Exports download, with the accents intact.
    desk.goto("/t/harbour/manage/downloads/")
    for name in ("players", "seating", "scores", "standings", "bracket"):
        with desk.expect_download() as download:
            desk.click(f"text={name}.csv")
        saved = tmp_path / f"{name}.csv"
        download.value.save_as(saved)
        text = saved.read_bytes().decode("utf-8")
        assert text.startswith("\ufeff")
        assert "Peña" in text or (name == "scores" and "Ann Baker" in text)

    for path in (
        "/t/harbour/screen/",
        "/t/harbour/players/?q=ann",
        "/t/harbour/tables/1/1/",
        "/t/harbour/manage/stages/2/",
        "/t/harbour/manage/scores/import/",
        "/",
    ):
        desk.goto(path)
        accessible(desk)
