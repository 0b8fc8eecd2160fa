"""The public standings API is data a shared cache in front (nginx, a CDN) may keep: no cookie,
`Cache-Control: public` with a short max-age and stale-while-revalidate, a strong ETag of the
snapshot in the reader's language, and a 304 while it has not changed."""

import pytest
from django.test import Client

from scoring import standings
from tests import factories
from tests.scoring.helpers import play, seat_tables

pytestmark = pytest.mark.django_db


@pytest.fixture
def seated(tournament):
    stage = factories.StageFactory(tournament=tournament, order=1, rounds=2, status="seated")
    tables = seat_tables(stage, [["Ann", "Bob", "Cy"], ["Di", "Eve", "Fay"]])
    return stage, tables


def test_an_anonymous_reader_gets_public_cacheable_standings_and_no_cookie(anon, seated):
    stage, _ = seated
    for url in (f"/api/v1/stages/{stage.pk}/standings/",
                f"/api/v1/tournaments/{stage.tournament.slug}/standings/"):  # fmt: skip
        response = anon.get(url)
        assert response.status_code == 200
        assert not response.cookies  # nothing personal: a shared cache may keep it
        directives = {d.strip() for d in response["Cache-Control"].split(",")}
        assert {"public", "max-age=1", "stale-while-revalidate=30"} <= directives
        assert response["ETag"].startswith('"') and not response["ETag"].startswith("W/")


def test_a_304_while_unchanged_and_a_new_etag_after_a_confirmed_round(anon, seated):
    stage, (first, _second) = seated
    url = f"/api/v1/stages/{stage.pk}/standings/"
    before = anon.get(url)
    unchanged = anon.get(url, HTTP_IF_NONE_MATCH=before["ETag"])
    assert unchanged.status_code == 304 and not unchanged.content
    assert unchanged["ETag"] == before["ETag"] and "public" in unchanged["Cache-Control"]
    play(stage, first, 1, [0, 5, 9])  # confirmed: a change is owed, then rebuilt
    owed = anon.get(url, HTTP_IF_NONE_MATCH=before["ETag"])
    assert owed.status_code == 200 and owed.json()["stale"] is True
    standings.rebuild_standings(stage=stage)
    after = anon.get(url, HTTP_IF_NONE_MATCH=before["ETag"])
    assert after.status_code == 200 and after["ETag"] not in (before["ETag"], owed["ETag"])
    assert after.json()["results_counted"] == before.json()["results_counted"] + 1


def test_each_language_is_its_own_version(anon, seated):
    stage, _ = seated
    url = f"/api/v1/stages/{stage.pk}/standings/"
    english = anon.get(url, HTTP_ACCEPT_LANGUAGE="en")
    spanish = anon.get(url, HTTP_ACCEPT_LANGUAGE="es", HTTP_IF_NONE_MATCH=english["ETag"])
    assert spanish.status_code == 200 and spanish["ETag"] != english["ETag"]
    assert "Accept-Language" in spanish["Vary"]


def test_the_language_cookie_chooses_the_language_of_a_signed_in_persons_answers_only(
    seated, organiser
):
    """nginx keeps the public answer under its URL and Accept-Language: a copy in one reader's
    cookie's language would go to every reader of that Accept-Language."""
    stage, _ = seated
    url = f"/api/v1/stages/{stage.pk}/standings/"
    plain = Client().get(url, HTTP_ACCEPT_LANGUAGE="en")
    with_cookie = Client(headers={"Cookie": "django_language=es"})
    answer = with_cookie.get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert answer.status_code == 200 and "public" in answer["Cache-Control"]
    assert answer["Content-Language"] == plain["Content-Language"] == "en"
    assert answer["ETag"] == plain["ETag"] and answer.content == plain.content
    assert "Accept-Language" in answer["Vary"]
    spanish = Client().get(url, HTTP_ACCEPT_LANGUAGE="es")
    assert spanish["Content-Language"] == "es" and spanish["ETag"] != plain["ETag"]
    # Signed in (never a shared copy), the language they chose.
    signed_in = Client()
    signed_in.force_login(organiser)
    signed_in.cookies["django_language"] = "es"
    theirs = signed_in.get(url, HTTP_ACCEPT_LANGUAGE="en")
    assert theirs.status_code == 200 and theirs["Content-Language"] == "es"
    missing = signed_in.get("/api/v1/stages/0/standings/", HTTP_ACCEPT_LANGUAGE="en")
    assert missing.status_code == 404 and missing["Content-Language"] == "es"
