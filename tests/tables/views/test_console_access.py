"""Who may open the organiser's console and its actions, and the error pages it shows."""

import pytest

from tests import factories

pytestmark = pytest.mark.django_db


def test_console_needs_login_and_an_organiser(client, tournament, official):
    response = client.get(f"/t/{tournament.slug}/manage/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    client.force_login(official)
    refused = client.get(f"/t/{tournament.slug}/manage/")
    assert refused.status_code == 403
    # The page says why, on the site's own page, not a bare "403 Forbidden".
    page = refused.content.decode()
    assert f"Only an organiser of {tournament.name} may open this page" in page
    assert f"You are signed in as {official.username}" in page
    missing = client.get("/en/t/no-such-tournament/")
    assert missing.status_code == 404
    assert "There is no page at /en/t/no-such-tournament/" in missing.content.decode()


def test_an_official_sent_away_from_the_console_is_shown_the_way_to_score_entry(
    client, tournament, official
):
    client.force_login(official)
    for path in (f"/t/{tournament.slug}/manage/", f"/t/{tournament.slug}/manage/divisions/"):
        refused = client.get(path)
        assert refused.status_code == 403
        page = refused.content.decode()
        assert f"Only an organiser of {tournament.name} may open this page" in page
        assert f"an official of {tournament.name}: you enter and confirm the scores" in page
        assert f'<a class="button" href="/t/{tournament.slug}/enter/">Score entry</a>' in page
        assert "Ask an organiser" not in page  # nothing to ask for: score entry is theirs
    spanish = client.get(f"/t/{tournament.slug}/manage/", HTTP_ACCEPT_LANGUAGE="es").content
    assert f'href="/t/{tournament.slug}/enter/">Anotar puntos</a>' in spanish.decode()
    assert f"árbitro de {tournament.name}" in spanish.decode()
    # Someone with no role here gets no such way in: an official of another tournament too.
    other = factories.TournamentFactory()
    refused = client.get(f"/t/{other.slug}/manage/").content.decode()
    assert "/enter/" not in refused and "Ask an organiser of the tournament" in refused


def test_the_server_error_page_renders_without_a_request():
    from django.template import loader

    page = loader.get_template("500.html").render()  # as Django's handler renders it: no context
    assert "Something went wrong" in page and "Inténtelo de nuevo" in page


def test_a_form_sent_without_its_csrf_token_is_refused_in_plain_words(db):
    from django.test import Client as CsrfClient

    refused = CsrfClient(enforce_csrf_checks=True).post(
        "/accounts/login/", {"username": "x", "password": "y"}, HTTP_ACCEPT_LANGUAGE="es"
    )
    assert refused.status_code == 403
    page = refused.content.decode()
    assert "El formulario ha caducado" in page and "CSRF" not in page


def test_an_official_may_not_close_a_stage_or_check_in_everyone(client, tournament, official):
    stage = factories.StageFactory(tournament=tournament, order=1, status="seated")
    factories.PlayerFactory(tournament=tournament, number=1, status="registered")
    client.force_login(official)
    for path in (
        f"/t/{tournament.slug}/manage/stages/1/close/",
        f"/t/{tournament.slug}/manage/players/check-in-everyone/",
    ):
        assert client.get(path).status_code == 403
        assert client.post(path).status_code == 403
    stage.refresh_from_db()
    assert stage.status == "seated"
    assert tournament.players.get().status == "registered"
    client.logout()
    asked = client.get(f"/t/{tournament.slug}/manage/stages/1/close/")
    assert asked.status_code == 302 and "/accounts/login/" in asked["Location"]
