"""Getting in, as people do it in Chromium: an organiser signs up and creates a tournament; an
official joins from the invitation's QR link on a shared tablet, in Spanish; a signed-in official
finds score entry from any page of the tournament."""

import re

import pytest

from tests import factories
from tests.browser.conftest import PHONE, TABLET, overflows_sideways, sign_in
from tournaments.models import Staff, Tournament

pytestmark = pytest.mark.browser


def test_an_organiser_signs_up_and_creates_a_tournament_on_a_phone(new_page, transactional_db):
    page = new_page(PHONE)
    page.goto("/")
    page.click(".menu > summary")  # on a phone the header's links are in its Menu
    page.click("text=Sign up")
    page.fill("#id_username", "rosa")
    page.fill("#id_email", "rosa@example.org")
    page.fill("#id_password1", "abc")
    page.fill("#id_password2", "abc")
    page.click("main button[type=submit]")
    assert "This password is too short" in page.inner_text("main")  # nothing made
    page.fill("#id_password1", "dominoes-on-tuesday")
    page.fill("#id_password2", "dominoes-on-tuesday")
    page.click("main button[type=submit]")
    page.wait_for_url(re.compile(r"/$"))
    assert page.locator("h1").inner_text() == "My tournaments"
    assert not overflows_sideways(page)
    page.click("main >> text=New tournament")
    page.fill("#id_name", "Tuesday Trains")
    page.fill("#id_slug", "tuesday-trains")
    page.click("main button[type=submit]")
    page.wait_for_url("**/t/tuesday-trains/manage/")
    assert Tournament.objects.get(slug="tuesday-trains").staff.get().user.username == "rosa"
    # The navigation bar leads back to the console from the public page.
    page.goto("/t/tuesday-trains/")
    page.click(".menu > summary")
    page.click(".staff-nav >> text=Console")
    page.wait_for_url("**/t/tuesday-trains/manage/")


def test_an_official_joins_from_the_qr_link_on_a_shared_tablet_in_spanish(
    new_page, transactional_db
):
    tournament = factories.TournamentFactory(name="Lakeside", slug="lakeside")
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    organiser.set_password("a-long-test-password")
    organiser.save()
    desk = new_page(TABLET)
    sign_in(desk, organiser.username, next_path="/t/lakeside/manage/staff/")
    desk.select_option("#id_role", "official")
    desk.click("button[value=invite]")
    desk.wait_for_url(re.compile(r"/manage/staff/invitations/\d+/$"))
    assert desk.locator(".qr svg").count() == 1
    link = desk.locator(".invite-link a").get_attribute("href")

    tablet = new_page(TABLET, locale="es-ES")
    tablet.goto(link)
    assert "Invitación" in tablet.locator("h1").inner_text()
    tablet.click("text=Continuar sin cuenta")
    tablet.wait_for_url("**/t/lakeside/enter/")
    assert "Bienvenido" in tablet.inner_text("main")
    assert Staff.objects.get(tournament=tournament, joined_via="tablet").role == "official"
    # The link works once: opened again, it says so, in Spanish.
    again = new_page(PHONE, locale="es-ES")
    again.goto(link)
    assert "solo funciona una vez" in again.inner_text("main")
    # The organiser sees the tablet on the staff page, and how it joined.
    desk.goto("/t/lakeside/manage/staff/")
    assert "Tablet without an account" in desk.inner_text("#people")


def test_a_signed_in_official_finds_score_entry_from_the_public_page(new_page, transactional_db):
    tournament = factories.TournamentFactory(name="Lakeside", slug="lakeside")
    official = factories.StaffFactory(tournament=tournament, role="official").user
    official.set_password("a-long-test-password")
    official.save()
    page = new_page(PHONE)
    sign_in(page, official.username)
    assert page.locator("h1").inner_text() == "My tournaments"
    page.goto("/t/lakeside/")
    assert page.locator(".staff-nav >> text=Console").count() == 0
    page.click(".menu > summary")  # on a phone the staff's pages are in the header's Menu
    page.click(".staff-nav >> text=Score entry")
    page.wait_for_url("**/t/lakeside/enter/")
