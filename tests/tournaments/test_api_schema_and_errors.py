"""The v1 API as a whole: its schema and docs, and its answers to addresses and methods it lacks."""

import re

import pytest

from tests.conftest import client_for

pytestmark = pytest.mark.django_db


def test_openapi_schema_and_docs_are_served(anon):
    schema = anon.get("/api/v1/schema/")
    assert schema.status_code == 200
    assert b"/api/v1/tournaments/{slug}/players/import/" in schema.content
    assert anon.get("/api/v1/docs/").status_code == 200


def test_the_schema_names_each_export_and_nothing_else(anon, organiser, tournament):
    document = anon.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = document["paths"]["/api/v1/tournaments/{slug}/exports/{name}.csv"]["get"]
    (name,) = [p for p in operation["parameters"] if p["name"] == "name"]
    exports = {"players", "seating", "scores", "standings", "bracket", "placings"}
    assert set(name["schema"]["enum"]) == exports
    if "pattern" in name["schema"]:  # then it must not admit more than the names
        pattern = re.compile(name["schema"]["pattern"])
        assert all(pattern.search(export) for export in exports)
        assert not any(pattern.search(f"x{export}x") for export in exports)
    # The route takes exactly those names: not one that merely starts or ends with one.
    as_organiser = client_for(organiser)
    base = f"/api/v1/tournaments/{tournament.slug}/exports"
    assert as_organiser.get(f"{base}/players.csv").status_code == 200
    for wrong in ("playersx", "xbracket", "seating-2"):
        assert as_organiser.get(f"{base}/{wrong}.csv").status_code == 404


def test_an_address_outside_the_api_routes_answers_json_404(as_organiser, client):
    for path in ("/api/v1/stages/abc/", "/api/v1/tables/1/rounds/-1/", "/api/v1/nothing/"):
        response = as_organiser.get(path)
        assert response.status_code == 404
        assert response["Content-Type"] == "application/json"
        assert response.json() == {"detail": "Not found."}
    page = client.get("/no/such/page/")
    assert page.status_code == 404 and "Page not found" in page.content.decode()
    spanish = as_organiser.get("/api/v1/nothing/", HTTP_ACCEPT_LANGUAGE="es")
    assert spanish.json() == {"detail": "No encontrado."}


@pytest.mark.parametrize(
    ("path", "english", "spanish"),
    [
        (
            "/api/v1/tournaments/no-such-event/",
            "There is no tournament at this address.",
            "No hay ningún torneo en esta dirección.",
        ),
        ("/api/v1/stages/99999/", "There is no stage with this id.", "No hay ninguna fase con"),
        (
            "/api/v1/tables/99999/rounds/1/",
            "This round has no result at this table yet",
            "Esta ronda aún no tiene resultado en esta mesa",
        ),
    ],
)
def test_a_404_of_the_api_says_what_is_missing_in_the_readers_language(
    as_organiser, path, english, spanish
):
    response = as_organiser.get(path)
    assert response.status_code == 404
    assert response.json()["detail"].startswith(english)
    assert "matches the given query" not in response.json()["detail"]
    assert as_organiser.get(path, HTTP_ACCEPT_LANGUAGE="es").json()["detail"].startswith(spanish)


def test_the_api_docs_page_answers_other_methods_405_not_500(anon):
    for method in ("options", "post", "delete"):
        assert getattr(anon, method)("/api/v1/docs/").status_code == 405
