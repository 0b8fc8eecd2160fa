"""The v1 API of a tournament's players: good input, bad input, wrong staff."""

import pytest

from tests import factories
from tournaments.models import Player

pytestmark = pytest.mark.django_db


# ---- players ------------------------------------------------------------------------------------


def test_organiser_adds_a_player(as_organiser, tournament):
    response = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/players/",
        {"number": 12, "name": "José Ramírez", "household": "Ramírez", "club": "Good Sam"},
        format="json",
    )
    assert response.status_code == 201
    body = response.json()
    assert body["id"] == Player.objects.get(tournament=tournament, number=12).pk
    assert body["name"] == "José Ramírez"
    assert body["status"] == "registered"


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"number": 5, "name": "Copy"}, "number", "Number 5 is already taken"),
        ({"number": 0, "name": "Zero"}, "number", "greater than or equal to 1"),
        ({"number": "seven", "name": "Seven"}, "number", "valid integer"),
        ({"number": 8, "name": ""}, "name", "may not be blank"),
        ({"name": "No Number"}, "number", "required"),
        ({"number": 9, "name": "x" * 121}, "name", "no more than 120"),
        ({"number": 9, "name": "Bad", "status": "asleep"}, "status", "not a valid choice"),
        ({"number": 9, "name": "\u200b"}, "name", "does not print (U+200B)"),
        ({"number": 9, "name": "Ann\u202eybaB"}, "name", "does not print (U+202E)"),
        ({"number": 9, "name": "Ann\x1b[31m"}, "name", "does not print (U+001B)"),
        ({"number": 9, "name": "Ann", "club": "Elks\x01"}, "club", "does not print (U+0001)"),
        # A joiner that joins nothing, a private-use and an unassigned character: each makes a
        # second spelling of a name that reads the same, or prints only in some fonts.
        ({"number": 9, "name": "Ann\u200dDoe"}, "name", "does not print (U+200D)"),
        ({"number": 9, "name": "\u200cAnn"}, "name", "does not print (U+200C)"),
        ({"number": 9, "name": "Ann\ue000"}, "name", "does not print (U+E000)"),
        ({"number": 9, "name": "Ann\u0378"}, "name", "does not print (U+0378)"),
        ({"number": 9, "name": "Ann\U000e0041"}, "name", "does not print (U+E0041)"),
    ],
)
def test_add_player_bad_input_is_400_and_stores_nothing(
    as_organiser, tournament, body, field, message
):
    factories.PlayerFactory(tournament=tournament, number=5)
    response = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/players/", body, format="json"
    )
    assert response.status_code == 400
    assert message in " ".join(response.json()[field])
    assert tournament.players.count() == 1


@pytest.mark.parametrize(
    ("client", "status"), [("anon", 401), ("as_official", 403), ("as_other_organiser", 403)]
)
def test_add_player_needs_an_organiser_of_this_tournament(request, tournament, client, status):
    response = request.getfixturevalue(client).post(
        f"/api/v1/tournaments/{tournament.slug}/players/",
        {"number": 1, "name": "Ann"},
        format="json",
    )
    assert response.status_code == status
    assert not tournament.players.exists()


def test_player_list_is_public_but_households_are_for_staff(anon, as_official, tournament):
    factories.PlayerFactory(tournament=tournament, number=1, name="Ann", household="Smith")
    factories.PlayerFactory(number=1, name="Elsewhere")  # another tournament's player
    public = anon.get(f"/api/v1/tournaments/{tournament.slug}/players/").json()
    assert [(p["number"], p["name"]) for p in public] == [(1, "Ann")]
    assert "household" not in public[0]
    staff = as_official.get(f"/api/v1/tournaments/{tournament.slug}/players/").json()
    assert staff[0]["household"] == "Smith"


def test_player_list_search_ignores_case_and_accents(anon, tournament):
    for number, name in [(1, "Renée Peña"), (2, "José García"), (3, "Łukasz Wróbel"), (4, "Ann")]:
        factories.PlayerFactory(tournament=tournament, number=number, name=name)
    url = f"/api/v1/tournaments/{tournament.slug}/players/"

    def found(search: str) -> list[str]:
        return [p["name"] for p in anon.get(url, {"search": search}).json()]

    assert found("pena") == ["Renée Peña"]
    assert found("GARCIA jose") == ["José García"]
    assert found("lukasz") == ["Łukasz Wróbel"]
    assert found("nobody") == []
    assert len(found("")) == 4  # no search: everyone, as before
