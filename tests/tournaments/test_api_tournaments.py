"""The v1 API's tokens and tournaments: good input, bad input, wrong staff."""

import pytest
from rest_framework.authtoken.models import Token

from tests import factories
from tests.conftest import client_for
from tournaments.models import Staff, Tournament

pytestmark = pytest.mark.django_db


# ---- auth and tournaments -----------------------------------------------------------------------


def test_token_auth_gives_a_token_for_good_credentials_only(anon):
    factories.UserFactory(username="ann", password="a-long-test-password")
    response = anon.post(
        "/api/v1/auth/token/", {"username": "ann", "password": "a-long-test-password"}
    )
    assert response.status_code == 200
    token = response.json()["token"]
    assert Token.objects.get(key=token).user.username == "ann"
    wrong = anon.post("/api/v1/auth/token/", {"username": "ann", "password": "nope"})
    assert wrong.status_code == 400
    assert "non_field_errors" in wrong.json()


def test_create_tournament_makes_the_creator_its_organiser(db):
    user = factories.OrganiserAccountFactory()
    response = client_for(user).post(
        "/api/v1/tournaments/",
        {"name": "Spring Fling", "slug": "spring-fling", "domino_set": 12, "preset": "samboree"},
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert response.json()["slug"] == "spring-fling"
    tournament = Tournament.objects.get(slug="spring-fling")
    assert Staff.objects.get(tournament=tournament, user=user).role == "organiser"
    assert tournament.stages.count() == 0


def test_create_tournament_with_stages_fills_the_preset_stages(db):
    response = client_for(factories.OrganiserAccountFactory()).post(
        "/api/v1/tournaments/",
        {
            "name": "Rally",
            "slug": "rally",
            "domino_set": 12,
            "preset": "samboree",
            "with_stages": True,
        },
        format="json",
    )
    assert response.status_code == 201
    stages = Tournament.objects.get(slug="rally").stages.all()
    assert [(s.order, s.kind, s.rounds, s.engines) for s in stages] == [
        (1, "qualifying", 4, [12, 11, 10, 9]),
        (2, "playoff", 4, [12, 11, 10, 9]),
    ]


@pytest.mark.parametrize("role", [None, "official"])
def test_create_tournament_by_an_official_or_a_plain_account_is_403(db, role):
    """Officials (and accounts that never signed up as organisers) may not create tournaments."""
    user = factories.UserFactory()
    if role:
        factories.StaffFactory(user=user, role=role)
    response = client_for(user).post(
        "/api/v1/tournaments/", {"name": "X", "slug": "x", "domino_set": 12}, format="json"
    )
    assert response.status_code == 403
    assert "Only organisers may create a tournament" in response.json()["detail"]
    assert not Tournament.objects.filter(slug="x").exists()


def test_create_tournament_anonymous_is_401(anon):
    response = anon.post("/api/v1/tournaments/", {"name": "X", "slug": "x", "domino_set": 12})
    assert response.status_code == 401
    assert not Tournament.objects.exists()


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"domino_set": 10}, "domino_set", "not a valid choice"),
        ({"domino_set": 9, "preset": "samboree"}, "domino_set", "deals only with double-12"),
        ({"preset": "cardinal"}, "preset", "not a valid choice"),
        ({"slug": "has spaces"}, "slug", "letters, numbers"),
        ({"name": ""}, "name", "may not be blank"),
        ({"name": "Rally\u200b"}, "name", "does not print (U+200B)"),
    ],
)
def test_create_tournament_bad_input_is_400_and_stores_nothing(db, body, field, message):
    payload = {"name": "Rally", "slug": "rally", "domino_set": 12, "preset": "samboree", **body}
    response = client_for(factories.OrganiserAccountFactory()).post(
        "/api/v1/tournaments/", payload, format="json"
    )
    assert response.status_code == 400
    assert message in " ".join(response.json()[field])
    assert not Tournament.objects.exists()


def test_create_tournament_taken_slug_is_400(tournament):
    response = client_for(factories.OrganiserAccountFactory()).post(
        "/api/v1/tournaments/",
        {"name": "Copy", "slug": tournament.slug, "domino_set": 12, "preset": "samboree"},
        format="json",
    )
    assert response.status_code == 400
    assert "taken" in response.json()["slug"][0]


def test_get_tournament_is_public_and_unknown_is_404(anon, tournament):
    response = anon.get(f"/api/v1/tournaments/{tournament.slug}/")
    assert response.status_code == 200
    assert response.json()["name"] == tournament.name
    assert anon.get("/api/v1/tournaments/nope/").status_code == 404
    assert tournament.slug in [t["slug"] for t in anon.get("/api/v1/tournaments/").json()]
