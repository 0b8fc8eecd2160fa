"""One invitation link for three tablets, in Chromium: the organiser makes it on a phone (at
200% text too), three tablets join with it (one in Spanish), the fourth is told it is used up,
and revoking it, after the page asks, signs all three out."""

import re

import pytest

from tests import factories
from tests.browser.conftest import PHONE, TABLET, at_text_sizes, overflows_sideways, sign_in
from tournaments.models import Staff

pytestmark = pytest.mark.browser


def test_three_tablets_join_with_one_link_the_fourth_is_refused_and_revoking_signs_them_out(
    new_page, transactional_db
):
    tournament = factories.TournamentFactory(name="Lakeside", slug="lakeside")
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    organiser.set_password("a-long-test-password")
    organiser.save()
    desk = new_page(PHONE)
    sign_in(desk, organiser.username, next_path="/t/lakeside/manage/staff/")
    assert desk.input_value("#id_devices") == "1"  # today's one-person invitation unless told
    assert "one link for that many tablets" in desk.inner_text("#invite")
    for size in at_text_sizes(desk):
        assert not overflows_sideways(desk), f"the Staff page scrolls sideways at {size}"
    desk.select_option("#id_role", "official")
    desk.fill("#id_devices", "3")
    desk.click("button[value=invite]")
    desk.wait_for_url(re.compile(r"/manage/staff/invitations/\d+/$"))
    assert "it works for up to 3 tablets" in desk.inner_text("main")
    assert "0 of 3 tablets joined" in desk.inner_text("main")
    link = desk.locator(".invite-link a").get_attribute("href")

    tablets = [new_page(TABLET), new_page(PHONE), new_page(TABLET, locale="es-ES")]
    for tablet in tablets:
        tablet.goto(link)
        main = tablet.inner_text("main")
        assert "Sign in to accept" not in main and "Create an account" not in main
        if tablet is tablets[1]:
            for size in at_text_sizes(tablet):
                assert not overflows_sideways(tablet), f"the link's page scrolls at {size}"
        tablet.click("button[value=tablet]")
        tablet.wait_for_url("**/t/lakeside/enter/")
    assert "Bienvenido" in tablets[2].inner_text("main")
    assert Staff.objects.filter(tournament=tournament, joined_via="tablet").count() == 3

    fourth = new_page(PHONE)
    fourth.goto(link)
    said = fourth.inner_text("main")
    assert "All 3 tablets this link was made for have joined" in said
    assert "Ask an organiser of Lakeside for a new link." in said
    assert fourth.locator("button[value=tablet]").count() == 0
    assert Staff.objects.filter(tournament=tournament, joined_via="tablet").count() == 3

    desk.goto("/t/lakeside/manage/staff/")
    desk.click("text=Earlier invitations")
    assert "3 of 3 tablets joined" in desk.inner_text("main")
    revoke = desk.locator("details.confirm", has_text="every tablet that joined with it")
    revoke.locator("summary").click()
    assert "(3 so far) is signed out at once" in revoke.inner_text()
    revoke.locator("button[value=revoke]").click()
    desk.wait_for_url("**/t/lakeside/manage/staff/")
    assert "its 3 tablets are signed out" in desk.inner_text("main")
    assert not Staff.objects.filter(tournament=tournament, joined_via="tablet").exists()

    for tablet in tablets:
        tablet.goto("/t/lakeside/enter/")
        tablet.wait_for_url(re.compile(r"/accounts/login/"))
    assert "An organiser has ended this tablet's access to score entry." in (
        tablets[0].inner_text("main")
    )
