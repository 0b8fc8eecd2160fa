"""The v1 API of stages: good input, bad input, wrong staff."""

import pytest
from django.core.exceptions import ValidationError

from tests import factories
from tests.conftest import client_for
from tournaments.models import Stage
from tournaments.services.stage_changes import update_stage

pytestmark = pytest.mark.django_db

STAGE = {
    "name": "Qualifying",
    "kind": "qualifying",
    "rounds": 4,
    "starting_double": 12,
    "table_size_min": 3,
    "table_size_max": 4,
}


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
    # ZWNJ between Persian letters that join (Alizadeh), ZWJ after a Devanagari virama and
    # inside an emoji sequence: each changes how the name prints.
    name = "\u0639\u0644\u06cc\u200c\u0632\u0627\u062f\u0647 \u0915\u094d\u200d\u0937 👩\u200d👩"
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
        ({"time_limit_minutes": 0}, "time_limit_minutes", "at least one minute"),
        ({"time_limit_minutes": -60}, "time_limit_minutes", "at least one minute"),
        ({"movement": "move", "move_count": 1}, "movement", "Only a qualifying stage after"),
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


def test_only_the_last_stage_places_everyone_by_total(as_organiser, tournament):
    """A stage that places everyone by total (a preset's setting) ends the event: a stage added
    after one is a 409, and setting it on a stage another follows is refused; neither changes
    anything."""
    url = f"/api/v1/tournaments/{tournament.slug}/stages/"
    first = as_organiser.post(url, STAGE, format="json").json()
    as_organiser.post(url, {**STAGE, "name": "Playoff", "kind": "playoff"}, format="json")
    with pytest.raises(ValidationError) as refused:
        update_stage(stage=Stage.objects.get(pk=first["id"]), changes={"decides_placings": True})
    assert "a stage follows this one" in refused.value.message_dict["decides_placings"][0]
    assert not tournament.stages.filter(decides_placings=True).exists()
    update_stage(stage=tournament.stages.get(name="Playoff"), changes={"decides_placings": True})
    after = as_organiser.post(url, {**STAGE, "name": "Extra"}, format="json")
    assert after.status_code == 409
    assert "Playoff places everyone by total" in after.json()["detail"]
    assert tournament.stages.count() == 2


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


def test_a_seated_stage_named_by_the_product_is_renamed_before_the_first_result(
    as_organiser, tournament
):
    # Its name is a day-of-play setting; typed over, the product's kind of name goes with it
    # (it was refused: "Not changed: name_key", a field nobody had sent).
    stage = factories.StageFactory(
        tournament=tournament, status=Stage.Status.SEATED, name="Qualifying", name_key="qualifying"
    )
    response = as_organiser.patch(
        f"/api/v1/stages/{stage.pk}/", {"name": "Morning session"}, format="json"
    )
    assert response.status_code == 200, response.json()
    stage.refresh_from_db()
    assert (stage.name, stage.name_key) == ("Morning session", "")


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
