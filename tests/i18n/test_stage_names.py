"""Stage names in the reader's language: a name the product gave (a preset's stages, a playoff
level named by the worker) is stored as a kind of name and said in the language of whoever reads
it; a name an organiser typed stays exactly as typed."""

import csv
import io
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation

from scoring.models import RoundResult
from tests import factories
from tests.conftest import client_for
from tests.i18n.conftest import SPANISH, page
from tests.scoring.helpers import close, play_stage, qualifying_with_tables
from tournaments.models import Stage, Tournament

ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "en"}


def names(client, slug: str, **headers) -> list[str]:
    response = client.get(f"/api/v1/tournaments/{slug}/stages/", **headers)
    assert response.status_code == 200
    return [stage["name"] for stage in response.json()]


@pytest.fixture
def rally(db):
    """A Samboree created in Spanish through the API, with its preset's stages."""
    organiser = factories.OrganiserAccountFactory()
    body = {"name": "Rally", "slug": "rally", "preset": "samboree", "with_stages": True}
    created = client_for(organiser).post("/api/v1/tournaments/", body, format="json", **SPANISH)
    assert created.status_code == 201
    return Tournament.objects.get(slug="rally"), organiser


def test_a_presets_stages_read_in_the_readers_language(client, rally):
    tournament, organiser = rally
    api = client_for(organiser)
    assert names(api, "rally", **SPANISH) == ["Clasificatoria", "Eliminatoria"]
    assert names(api, "rally", **ENGLISH) == ["Qualifying", "Playoff"]
    listed = api.get("/api/v1/tournaments/rally/stages/", **SPANISH).json()
    assert [s["name_key"] for s in listed] == ["qualifying", "playoff"]
    # Stored in the site's language for whatever reads the column alone, whoever created it.
    assert list(tournament.stages.values_list("name", flat=True)) == ["Qualifying", "Playoff"]
    client.force_login(organiser)
    console = page(client, "/t/rally/manage/stages/", **SPANISH)
    assert ">Clasificatoria</a>" in console and ">Qualifying</a>" not in console
    assert ">Qualifying</a>" in page(client, "/t/rally/manage/stages/", **ENGLISH)


def test_a_typed_name_stays_as_typed_in_both_languages(rally):
    _tournament, organiser = rally
    api = client_for(organiser)
    stage = {"kind": "playoff", "rounds": 4, "starting_double": 12, "table_size_min": 2,
             "table_size_max": 4}  # fmt: skip
    for typed in ("Ronda de la tarde", "Game"):  # "Game" typed is not the preset's "Game"
        created = api.post("/api/v1/tournaments/rally/stages/", {"name": typed, **stage},
                           format="json")  # fmt: skip
        assert created.status_code == 201, created.json()
        assert created.json()["name_key"] == ""
    assert names(api, "rally", **SPANISH)[2:] == ["Ronda de la tarde", "Game"]
    assert names(api, "rally", **ENGLISH)[2:] == ["Ronda de la tarde", "Game"]


def test_a_name_sent_back_as_read_keeps_its_kind_and_a_new_one_is_kept_as_typed(rally):
    tournament, organiser = rally
    api = client_for(organiser)
    qualifying, playoff = tournament.stages.order_by("order")
    # A Spanish client sends back the name it read, with another change: still the product's.
    body = {"name": "Clasificatoria", "rounds": 3}
    sent_back = api.patch(f"/api/v1/stages/{qualifying.pk}/", body, format="json", **SPANISH)
    assert sent_back.status_code == 200, sent_back.json()
    assert names(api, "rally", **ENGLISH)[0] == "Qualifying"
    renamed = api.patch(f"/api/v1/stages/{playoff.pk}/", {"name": "Gran final"}, format="json")
    assert renamed.status_code == 200 and renamed.json()["name_key"] == ""
    assert names(api, "rally", **SPANISH)[1] == names(api, "rally", **ENGLISH)[1] == "Gran final"


def test_a_typed_name_that_another_stage_is_read_as_is_refused(rally):
    tournament, organiser = rally
    body = {"name": "clasificatoria", "kind": "playoff", "rounds": 4, "starting_double": 12,
            "table_size_min": 2, "table_size_max": 4}  # fmt: skip
    refused = client_for(organiser).post("/api/v1/tournaments/rally/stages/", body, format="json")
    assert refused.status_code == 400
    assert refused.json()["name"] == [
        "This tournament has a stage named Clasificatoria already: choose another name."
    ]
    assert tournament.stages.count() == 2


@pytest.mark.django_db(transaction=True)
def test_a_playoff_level_named_by_the_worker_reads_in_each_readers_language(
    as_organiser, anon, tournament
):
    # Ten winners, for tables of 3 or 4 like this stage's: not one table, a level of three.
    stage = qualifying_with_tables(tournament, [3] * 9 + [4])
    play_stage(stage)
    # Closed by a Spanish reader: the worker names the level the same.
    closed = as_organiser.post(f"/api/v1/stages/{stage.pk}/close/", **SPANISH)
    assert closed.status_code == 202, closed.json()
    level = Stage.objects.get(source_stage=stage)
    assert (level.name, level.name_key) == ("Playoff level 1", "playoff_level:1")
    assert names(anon, tournament.slug, **SPANISH)[1] == "Eliminatoria, nivel 1"
    assert names(anon, tournament.slug, **ENGLISH)[1] == "Playoff level 1"
    bracket = page(anon, f"/es/t/{tournament.slug}/bracket/", **SPANISH)
    assert "Eliminatoria, nivel 1" in bracket and "Playoff level 1" not in bracket


@pytest.mark.django_db(transaction=True)
def test_a_final_whose_name_the_organiser_took_is_the_second_in_every_language(
    as_organiser, anon, tournament
):
    stage = qualifying_with_tables(tournament, [3] * 3, name="Final")  # typed by the organiser
    play_stage(stage)
    close(as_organiser, stage)
    final = Stage.objects.get(source_stage=stage)
    assert final.name_key == "final#2"
    assert names(anon, tournament.slug, **SPANISH) == ["Final", "Final (2)"]
    assert names(anon, tournament.slug, **ENGLISH) == ["Final", "Final (2)"]


def read_csv(response) -> list[list[str]]:
    body = b"".join(response.streaming_content).decode("utf-8-sig")
    return list(csv.reader(io.StringIO(body, newline="")))


@pytest.mark.django_db
def test_files_name_a_stage_in_english_and_take_it_back_by_any_name(as_organiser, tournament):
    # Named "Clasificatoria" by a Spanish creator before names had kinds, since filled in.
    stage = factories.StageFactory(tournament=tournament, order=1, name="Clasificatoria",
                                   name_key="qualifying", status="seated")  # fmt: skip
    table = factories.TableFactory(stage=stage, number=1)
    for position, name in enumerate(["Ann", "Bob"], start=1):
        player = factories.PlayerFactory(tournament=tournament, number=position, name=name)
        factories.SeatFactory(table=table, player=player, position=position)
    url = f"/api/v1/tournaments/{tournament.slug}/exports/seating.csv"
    for headers in (SPANISH, ENGLISH):
        rows = read_csv(as_organiser.get(url, **headers))
        assert [row[0] for row in rows[1:]] == ["Qualifying", "Qualifying"]
    for name in ("Clasificatoria", "Qualifying"):
        RoundResult.objects.all().delete()
        text = (
            "stage,table,round,engine,number,name,pips,went_out,status\n"
            f"{name},1,1,12,1,Ann,0,yes,\n{name},1,1,12,2,Bob,12,no,\n"
        )
        response = as_organiser.post(
            f"/api/v1/tournaments/{tournament.slug}/scores/import/",
            {"file": SimpleUploadedFile("scores.csv", text.encode())},
            format="multipart",
        )
        assert response.status_code == 201, response.json()


@pytest.mark.django_db
def test_a_name_typed_over_in_the_admin_stays_as_typed(rally):
    from django.forms.models import model_to_dict, modelform_factory

    from tournaments.admin import StageAdminForm, StageInline

    tournament, _organiser = rally
    qualifying, playoff = tournament.stages.order_by("order")
    form_class = modelform_factory(
        Stage, form=StageAdminForm, exclude=[*StageInline.readonly_fields, "id"]
    )
    for stage, name, key in ((qualifying, "Clasificatoria", "qualifying"), (playoff, "Cup", "")):
        data = {k: v for k, v in model_to_dict(stage).items() if v is not None}
        data["seating_report"] = json.dumps(data["seating_report"])  # as the admin sends it
        form = form_class(data={**data, "name": name}, instance=stage)
        assert form.is_valid(), form.errors
        form.save()
        stage.refresh_from_db()
        with translation.override("en"):
            assert (stage.name, stage.name_key, stage.display_name) == (
                ("Qualifying", key, "Qualifying") if key else ("Cup", "", "Cup")
            )
