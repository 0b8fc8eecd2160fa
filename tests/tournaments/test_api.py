"""The v1 API of tournaments, staff, players and stages: good input, bad input, wrong staff."""

import re

import pytest
from rest_framework.authtoken.models import Token

from tests import factories
from tests.conftest import client_for
from tournaments.models import Player, Staff, Stage, Tournament

pytestmark = pytest.mark.django_db

STAGE = {
    "name": "Qualifying",
    "kind": "qualifying",
    "rounds": 4,
    "starting_double": 12,
    "table_size_min": 3,
    "table_size_max": 4,
}


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


# ---- staff --------------------------------------------------------------------------------------


def test_organiser_adds_a_new_official_who_can_then_log_in(as_organiser, tournament, anon):
    response = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/staff/",
        {"username": "tablet7", "role": "official", "password": "table-seven-pass"},
        format="json",
    )
    assert response.status_code == 201
    assert Staff.objects.get(tournament=tournament, user__username="tablet7").role == "official"
    login = anon.post(
        "/api/v1/auth/token/", {"username": "tablet7", "password": "table-seven-pass"}
    )
    assert login.status_code == 200


def test_adding_an_existing_user_changes_the_role_and_never_the_password(
    as_organiser, tournament, official
):
    url = f"/api/v1/tournaments/{tournament.slug}/staff/"
    body = {"username": official.username, "role": "organiser"}
    # API.md: the password creates the user when new. Given for an existing account, it is not
    # used (never a reset from here), and the answer says so instead of dropping it unsaid.
    response = as_organiser.post(url, {**body, "password": "attacker-chosen"}, format="json")
    assert response.status_code == 201  # as API.md has it, for a role given anew or changed
    assert response.json()["detail"] == (
        f"{official.username} has an account already: the password given was not used, and "
        "theirs is unchanged."
    )
    assert Staff.objects.get(tournament=tournament, user=official).role == "organiser"
    official.refresh_from_db()
    assert official.check_password("a-long-test-password")
    # Their own password (a setup script run again) is nothing to say.
    again = as_organiser.post(
        url, {**body, "role": "official", "password": "a-long-test-password"}, format="json"
    )
    assert again.status_code == 201 and "detail" not in again.json()


def test_a_new_users_name_is_checked_and_the_password_kept_as_typed(
    as_organiser, tournament, official
):
    url = f"/api/v1/tournaments/{tournament.slug}/staff/"
    hidden = as_organiser.post(
        url, {"username": "tab\u200blet", "role": "official", "password": "pw"}, format="json"
    )
    assert hidden.status_code == 400 and "does not print (U+200B)" in hidden.json()["username"][0]
    capitals = as_organiser.post(
        url,
        {"username": official.username.upper(), "role": "official", "password": "long-enough"},
        format="json",
    )
    assert capitals.status_code == 400
    assert f"{official.username} has an account already" in capitals.json()["username"][0]
    assert not Staff.objects.filter(user__username__in=["tab\u200blet"]).exists()
    spaced = as_organiser.post(
        url,
        {"username": "tablet9", "role": "official", "password": "  two spaces  "},
        format="json",
    )
    assert spaced.status_code == 201
    login = as_organiser.post(
        "/api/v1/auth/token/", {"username": "tablet9", "password": "  two spaces  "}
    )
    assert login.status_code == 200  # the password as typed, spaces and all


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"username": "newbie", "role": "official"}, "password"),
        ({"username": "newbie", "role": "referee", "password": "long-enough-pw"}, "role"),
        ({"role": "official", "password": "long-enough-pw"}, "username"),
    ],
)
def test_add_staff_bad_input_is_400(as_organiser, tournament, body, field):
    response = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/staff/", body, format="json"
    )
    assert response.status_code == 400
    assert field in response.json()
    assert not Staff.objects.filter(user__username="newbie").exists()


@pytest.mark.parametrize(
    ("client", "status"), [("anon", 401), ("as_official", 403), ("as_other_organiser", 403)]
)
def test_add_staff_needs_an_organiser_of_this_tournament(request, tournament, client, status):
    response = request.getfixturevalue(client).post(
        f"/api/v1/tournaments/{tournament.slug}/staff/",
        {"username": "sneaky", "role": "organiser", "password": "long-enough-pw"},
        format="json",
    )
    assert response.status_code == status
    assert not Staff.objects.filter(user__username="sneaky").exists()


def test_superuser_may_act_in_any_tournament(tournament):
    admin = factories.UserFactory(is_superuser=True)
    response = client_for(admin).post(
        f"/api/v1/tournaments/{tournament.slug}/players/",
        {"number": 1, "name": "Ann"},
        format="json",
    )
    assert response.status_code == 201


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


# ---- stages -------------------------------------------------------------------------------------


def test_organiser_creates_stages_in_order(as_organiser, tournament):
    first = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/stages/", STAGE, format="json"
    )
    assert first.status_code == 201, first.json()
    playoff = {**STAGE, "name": "Playoff", "kind": "playoff", "table_size_max": 10}
    second = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/stages/", playoff, format="json"
    )
    assert (first.json()["order"], first.json()["status"]) == (1, "pending")
    assert second.json()["order"] == 2
    assert first.json()["advance_per_table"] == 1
    listed = as_organiser.get(f"/api/v1/tournaments/{tournament.slug}/stages/").json()
    assert [s["name"] for s in listed] == ["Qualifying", "Playoff"]
    assert listed[0]["engines"] == [12, 11, 10, 9]


def test_a_name_that_joins_letters_with_a_zero_width_joiner_is_kept(as_organiser, tournament):
    name = "Mehr\u200cdad 👩\u200d👩"  # ZWNJ in a Persian name, ZWJ in an emoji
    response = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/players/",
        {"number": 3, "name": name},
        format="json",
    )
    assert response.status_code == 201
    assert tournament.players.get().name == name


def test_a_stage_name_that_does_not_print_is_refused(as_organiser, tournament):
    url = f"/api/v1/tournaments/{tournament.slug}/stages/"
    response = as_organiser.post(url, {**STAGE, "name": "Final\u2066"}, format="json")
    assert response.status_code == 400
    assert "does not print (U+2066)" in response.json()["name"][0]
    assert not tournament.stages.exists()


def test_a_second_stage_of_the_same_name_is_refused(as_organiser, tournament):
    url = f"/api/v1/tournaments/{tournament.slug}/stages/"
    assert as_organiser.post(url, STAGE, format="json").status_code == 201
    # The same request again (a double tap), or the name in other capitals and spaces.
    for name in (STAGE["name"], "  qualifying "):
        again = as_organiser.post(url, {**STAGE, "name": name}, format="json")
        assert again.status_code == 400
        assert again.json()["name"] == [
            "This tournament has a stage named Qualifying already: choose another name."
        ]
    assert tournament.stages.count() == 1
    playoff = as_organiser.post(url, {**STAGE, "name": "Playoff"}, format="json").json()
    renamed = as_organiser.patch(
        f"/api/v1/stages/{playoff['id']}/", {"name": "QUALIFYING"}, format="json"
    )
    assert renamed.status_code == 400 and "named Qualifying already" in renamed.json()["name"][0]
    same = as_organiser.patch(
        f"/api/v1/stages/{playoff['id']}/", {"name": "Playoff"}, format="json"
    )
    assert same.status_code == 200  # its own name is no clash
    assert list(tournament.stages.values_list("name", flat=True).order_by("order")) == [
        "Qualifying",
        "Playoff",
    ]


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"starting_double": 15}, "starting_double", "A double-12 set has no double-15"),
        ({"rounds": 14}, "rounds", "at most 13 rounds"),
        ({"starting_double": 3, "rounds": 5}, "rounds", "at most 4 rounds"),
        ({"rounds": 0}, "rounds", "greater than or equal to 1"),
        ({"table_size_max": 11}, "table_size_max", "at most 10 players"),
        ({"table_size_min": 4, "table_size_max": 3}, "table_size_max", "cannot be smaller"),
        ({"table_size_min": 1}, "table_size_min", "greater than or equal to 2"),
        ({"advance_per_table": 3}, "advance_per_table", "at most 2 players per table"),
        ({"kind": "friendly"}, "kind", "not a valid choice"),
    ],
)
def test_create_stage_bad_settings_are_400_and_store_nothing(
    as_organiser, tournament, changes, field, message
):
    response = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/stages/", {**STAGE, **changes}, format="json"
    )
    assert response.status_code == 400
    assert message in " ".join(response.json()[field])
    assert not tournament.stages.exists()


@pytest.mark.parametrize(
    ("client", "status"), [("anon", 401), ("as_official", 403), ("as_other_organiser", 403)]
)
def test_create_stage_needs_an_organiser_of_this_tournament(request, tournament, client, status):
    response = request.getfixturevalue(client).post(
        f"/api/v1/tournaments/{tournament.slug}/stages/", STAGE, format="json"
    )
    assert response.status_code == status
    assert not tournament.stages.exists()


def test_a_field_the_api_would_not_use_is_named_not_dropped(as_organiser, tournament):
    stage = factories.StageFactory(tournament=tournament, name="Qualifying")
    patch = as_organiser.patch(
        f"/api/v1/stages/{stage.pk}/",
        {"status": "closed", "order": 7, "bogus": "x", "rounds": 3},
        format="json",
    )
    assert patch.status_code == 400
    errors = patch.json()
    assert (
        errors["status"]
        == errors["order"]
        == ["This field is set by Roundhouse and cannot be changed."]
    )
    assert errors["bogus"][0].startswith("Unknown field: the fields are ")
    assert "rounds" in errors["bogus"][0]
    order = stage.order
    stage.refresh_from_db()
    assert (stage.status, stage.order, stage.rounds) == ("pending", order, 4)
    # What was read, sent back unchanged with one change, is taken.
    read = as_organiser.get(f"/api/v1/stages/{stage.pk}/").json()
    again = as_organiser.patch(f"/api/v1/stages/{stage.pk}/", {**read, "rounds": 3}, format="json")
    assert again.status_code == 200, again.json()
    assert again.json()["rounds"] == 3
    player = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/players/",
        {"number": 4, "name": "Ann", "houshold": "Smith"},
        format="json",
    )
    assert player.status_code == 400 and "houshold" in player.json()
    assert not tournament.players.exists()


def test_patch_stage_sets_the_playoff_on_the_day(as_organiser, tournament):
    stage = factories.StageFactory(tournament=tournament, kind="playoff", table_size_max=10)
    response = as_organiser.patch(
        f"/api/v1/stages/{stage.pk}/", {"starting_double": 9, "rounds": 2}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert response.json()["engines"] == [9, 8]
    stage.refresh_from_db()
    assert (stage.starting_double, stage.rounds) == (9, 2)


def test_patch_stage_bad_settings_are_400_and_change_nothing(as_organiser, tournament):
    stage = factories.StageFactory(tournament=tournament)
    response = as_organiser.patch(f"/api/v1/stages/{stage.pk}/", {"rounds": 20}, format="json")
    assert response.status_code == 400
    response = as_organiser.patch(
        f"/api/v1/stages/{stage.pk}/", {"starting_double": 2}, format="json"
    )  # the stage's 4 rounds do not fit below double-2
    assert response.status_code == 400
    assert "at most 3 rounds" in response.json()["rounds"][0]
    stage.refresh_from_db()
    assert (stage.rounds, stage.starting_double) == (4, 12)


def test_patch_seated_stage_sets_the_day_of_play_settings_until_the_first_result(
    as_organiser, tournament
):
    stage = factories.StageFactory(tournament=tournament, status=Stage.Status.SEATED)
    response = as_organiser.patch(
        f"/api/v1/stages/{stage.pk}/", {"starting_double": 9, "rounds": 2}, format="json"
    )
    assert response.status_code == 200
    refused = as_organiser.patch(
        f"/api/v1/stages/{stage.pk}/", {"table_size_max": 5}, format="json"
    )
    assert refused.status_code == 409
    assert "Not changed: table_size_max" in refused.json()["detail"]
    factories.RoundResultFactory(table__stage=stage, stage=stage)
    started = as_organiser.patch(f"/api/v1/stages/{stage.pk}/", {"rounds": 3}, format="json")
    assert started.status_code == 409
    assert "has results" in started.json()["detail"]
    stage.refresh_from_db()
    assert (stage.starting_double, stage.rounds, stage.table_size_max) == (9, 2, 4)


def test_patch_closed_stage_is_409(as_organiser, tournament):
    stage = factories.StageFactory(tournament=tournament, status=Stage.Status.CLOSED)
    response = as_organiser.patch(f"/api/v1/stages/{stage.pk}/", {"rounds": 2}, format="json")
    assert response.status_code == 409
    assert "is closed" in response.json()["detail"]


def test_official_sets_the_playoff_on_the_day_but_nothing_else(as_official, tournament):
    stage = factories.StageFactory(tournament=tournament, kind="playoff", table_size_max=10)
    response = as_official.patch(
        f"/api/v1/stages/{stage.pk}/", {"starting_double": 10, "rounds": 3}, format="json"
    )
    assert response.status_code == 200
    refused = as_official.patch(f"/api/v1/stages/{stage.pk}/", {"table_size_max": 6}, format="json")
    assert refused.status_code == 403
    assert "not table_size_max" in refused.json()["detail"]
    stage.refresh_from_db()
    assert (stage.starting_double, stage.rounds, stage.table_size_max) == (10, 3, 10)


@pytest.mark.parametrize(("client", "status"), [("anon", 401), ("as_other_organiser", 403)])
def test_patch_stage_needs_staff_of_this_tournament(request, tournament, client, status):
    stage = factories.StageFactory(tournament=tournament)
    response = request.getfixturevalue(client).patch(
        f"/api/v1/stages/{stage.pk}/", {"rounds": 2}, format="json"
    )
    assert response.status_code == status
    stage.refresh_from_db()
    assert stage.rounds == 4


def test_unknown_stage_is_404(as_organiser):
    assert (
        as_organiser.patch("/api/v1/stages/999999/", {"rounds": 2}, format="json").status_code
        == 404
    )


def test_openapi_schema_and_docs_are_served(anon):
    schema = anon.get("/api/v1/schema/")
    assert schema.status_code == 200
    assert b"/api/v1/tournaments/{slug}/players/import/" in schema.content
    assert anon.get("/api/v1/docs/").status_code == 200


def test_the_schema_names_each_export_and_nothing_else(anon, organiser, tournament):
    document = anon.get("/api/v1/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = document["paths"]["/api/v1/tournaments/{slug}/exports/{name}.csv"]["get"]
    (name,) = [p for p in operation["parameters"] if p["name"] == "name"]
    exports = {"players", "seating", "scores", "standings", "bracket"}
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


def test_officials_set_a_playoffs_day_of_play_but_not_a_qualifying_stages(tournament, official):
    stage = factories.StageFactory(tournament=tournament, rounds=4)
    as_official = client_for(official)
    refused = as_official.patch(f"/api/v1/stages/{stage.pk}/", {"rounds": 3}, format="json")
    assert refused.status_code == 403
    assert "Only an organiser changes the settings of" in refused.json()["detail"]
    stage.refresh_from_db()
    assert stage.rounds != 3
    final = factories.StageFactory(
        tournament=tournament, order=stage.order + 1, kind="playoff", rounds=2, name="Final"
    )
    allowed = as_official.patch(f"/api/v1/stages/{final.pk}/", {"rounds": 3}, format="json")
    assert allowed.status_code == 200 and allowed.json()["rounds"] == 3
