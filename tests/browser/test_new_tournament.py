"""A new tournament asks its time zone with the device's own first, and the set follows the
preset: in Chromium, with the device's zone set as a venue's would be."""

import pytest

from tests import factories
from tests.browser.conftest import PHONE, overflows_sideways, sign_in
from tournaments.models import Tournament

pytestmark = pytest.mark.browser


@pytest.fixture
def organiser(transactional_db):
    return factories.OrganiserAccountFactory()


def test_a_new_tournament_takes_the_devices_time_zone_and_the_presets_set(new_page, organiser):
    page = new_page(PHONE, timezone_id="America/Chicago")
    sign_in(page, organiser.username, next_path="/new/")
    assert page.input_value("#id_time_zone") == "America/Chicago"
    assert page.is_visible("text=Filled in from this device's time zone")
    assert not overflows_sideways(page)
    page.fill("#id_name", "Club day")
    page.select_option("#id_preset", "eleven_three")
    page.click("main button[type=submit]")
    page.wait_for_url("**/manage/")
    made = Tournament.objects.get(name="Club day")
    assert (made.time_zone, made.domino_set) == ("America/Chicago", 15)


def test_a_saved_time_zone_is_kept_and_the_devices_offered_with_one_tap(new_page, organiser):
    tournament = factories.TournamentFactory(time_zone="UTC")
    factories.StaffFactory(tournament=tournament, user=organiser, role="organiser")
    page = new_page(PHONE, timezone_id="Europe/Madrid", locale="es-ES")
    sign_in(page, organiser.username, next_path=f"/t/{tournament.slug}/manage/details/")
    assert page.input_value("#id_time_zone") == "UTC"  # as saved: never changed unasked
    page.click("text=Usar la zona horaria de este dispositivo: Europe/Madrid")
    assert page.input_value("#id_time_zone") == "Europe/Madrid"
