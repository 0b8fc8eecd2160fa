"""Officials' validation messages and what the services say, through the API and the pages'
messages, are translated too."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation

from scoring import standings
from scoring.models import RoundResult
from scoring.rules import ScoreLine, validate_round
from tables import seating
from tests import factories
from tests.conftest import clear_cache, client_for
from tests.i18n.conftest import SPANISH, page
from tests.scoring.conftest import round_body
from tournaments.models import Player, Staff, Stage, Tournament
from tournaments.presets import PRESETS

# --------------------------------------------------------------------------------------------
# Validation messages


@pytest.mark.django_db
def test_round_api_rejects_in_the_callers_language(official, table, players):
    api = client_for(official)
    body = round_body(players, pips=(0, 12, 30, 7))
    body["scores"] = body["scores"][:3]  # Di's line is missing
    body["scores"][1]["pips"] = "a dozen"
    response = api.put(f"/api/v1/tables/{table.pk}/rounds/1/", body, format="json", **SPANISH)
    assert response.status_code == 400
    errors = response.json()
    assert errors[f"scores.{players[1].pk}"] == ["Escriba un número entero de puntos, 0 o más"]
    assert errors[f"scores.{players[3].pk}"] == ["Faltan los puntos de Di"]

    english = api.put(f"/api/v1/tables/{table.pk}/rounds/1/", body, format="json").json()
    assert english[f"scores.{players[3].pk}"] == ["No score for Di"]


def test_validate_round_messages_follow_the_active_language():
    seated = {1: "Ann", 2: "Bob", 3: "Cy"}
    lines = [ScoreLine(1, 0, went_out=True), ScoreLine(2, 600), ScoreLine(3, 500)]
    with translation.override("es"):
        errors = validate_round(seated=seated, lines=lines, blocked=False, domino_set=12, engine=12)
    assert errors == {
        "scores": [
            "El total de 1\xa0100 puntos es más de lo que tiene un juego de doble 12 en una ronda "
            "con el doble inicial 12 (1\xa0068)"
        ]
    }
    twice = [ScoreLine(1, 0, went_out=True), ScoreLine(2, 0, went_out=True), ScoreLine(3, 4)]
    with translation.override("es"):
        errors = validate_round(seated=seated, lines=twice, blocked=False, domino_set=12, engine=5)
    assert errors["scores"] == [
        "Dos jugadores están marcados como «salió»: solo un jugador puede salir en cada ronda"
    ]
    with translation.override("en"):
        errors = validate_round(seated=seated, lines=lines, blocked=False, domino_set=12, engine=12)
    assert errors["scores"] == [
        "Total 1,100 is more than a double-12 set holds in a round with the 12 engine (1,068)"
    ]


# --------------------------------------------------------------------------------------------
# What the services say, through the API and the pages' messages


@pytest.mark.django_db
def test_replacing_a_round_without_if_match_is_refused_in_the_callers_language(
    official, table, players
):
    api = client_for(official)
    url = f"/api/v1/tables/{table.pk}/rounds/1/"
    assert api.put(url, round_body(players), format="json").status_code == 201
    changed = round_body(players, pips=(0, 15, 30, 7))
    refused = api.put(url, changed, format="json", **SPANISH)
    assert refused.status_code == 428
    assert refused.json()["detail"] == (
        "La ronda 1 de la mesa 1 ya tiene un resultado (versión 1, por comprobar). "
        "Envíe If-Match con su ETag para sustituirlo."
    )
    english = api.put(url, changed, format="json")
    assert english.json()["detail"] == (
        "Round 1 at table 1 already has a result (version 1, to check). "
        "Send If-Match with its ETag to replace it."
    )


@pytest.mark.django_db
def test_closed_stage_conflict_speaks_spanish(official, table, players):
    Stage.objects.filter(pk=table.stage_id).update(status=Stage.Status.CLOSED)
    response = client_for(official).put(
        f"/api/v1/tables/{table.pk}/rounds/1/", round_body(players), format="json", **SPANISH
    )
    assert response.status_code == 409
    assert response.json()["detail"] == (
        "La fase Qualifying está cerrada: solo un organizador puede corregir sus resultados. "
        "Corregir uno reabre la fase y deshace lo que hizo su cierre (los asientos de la fase "
        "siguiente, la clasificación final): pídaselo a un organizador."
    )
    assert not RoundResult.objects.exists()


@pytest.mark.django_db
def test_console_messages_speak_spanish(client, organiser, tournament):
    client.force_login(organiser)
    slug = tournament.slug
    added = client.post(
        f"/t/{slug}/manage/players/add/",
        {"number": "5", "name": "Ann Smith"},
        follow=True,
        **SPANISH,
    )
    assert "Se añadió a #5 Ann Smith." in added.content.decode()
    bad = SimpleUploadedFile("p.csv", b"number,name\n1,Ann\n1,Bob\n3,\n")
    refused = client.post(f"/t/{slug}/manage/players/import/", {"file": bad}, **SPANISH)
    assert refused.status_code == 400
    html = refused.content.decode()
    assert "Línea 3: El número 1 aparece dos veces (también en la línea 2)." in html
    assert "Línea 4: El nombre está vacío." in html
    good = SimpleUploadedFile("p.csv", b"number,name\n1,Ann\n2,Bob\n")
    imported = client.post(
        f"/t/{slug}/manage/players/import/", {"file": good}, follow=True, **SPANISH
    )
    html = imported.content.decode()
    assert "Se importaron 2 jugadores." in html
    assert "<td>Sin llegar</td>" in html  # the players' status, a model choice


@pytest.mark.django_db
def test_seating_messages_speak_spanish_and_english_is_unchanged(client, organiser, tournament):
    factories.StageFactory(tournament=tournament, order=1, table_size_min=3, table_size_max=4)
    for number in range(1, 6):
        factories.PlayerFactory(tournament=tournament, number=number)
    client.force_login(organiser)
    url = f"/t/{tournament.slug}/manage/stages/1/seat/"
    refused = client.post(url, {"seed": "4"}, follow=True, **SPANISH).content.decode()
    assert (
        "5 jugadores no se pueden repartir en mesas de 3 a 4 jugadores cuyos tamaños difieran "
        "como mucho en uno. Pruebe con mesas de 2 a 4 o de 3 a 5."
    ) in refused
    # The translated message is rebuilt from the error: in English it is seating's own.
    with pytest.raises(seating.NoBalancedSplit) as split:
        seating.table_sizes(5, size_min=3, size_max=4)
    assert str(split.value) in client.post(url, {"seed": "4"}, follow=True).content.decode()

    factories.PlayerFactory(tournament=tournament, number=6)
    seated = client.post(url, {"seed": "4"}, follow=True, **SPANISH).content.decode()
    assert "Se sentó a 6 jugadores en 2 mesas (número de sorteo 4)." in seated
    console = page(client, f"/t/{tournament.slug}/manage/stages/", **SPANISH)
    assert "<td>Mesas repartidas</td>" in console and "(Clasificatoria)" in console


@pytest.mark.django_db
def test_seating_warnings_are_shown_in_the_readers_language(client, organiser, tournament):
    # Three of one household, two tables: they cannot all sit apart. The organiser who seats
    # reads Spanish; the stage page shows the warning in each reader's language, and the
    # report kept for the API is in the site's.
    stage = factories.StageFactory(tournament=tournament, order=1, table_size_min=4,
                                   table_size_max=4)  # fmt: skip
    for number in range(1, 9):
        household = "Okafor" if number <= 3 else ""
        factories.PlayerFactory(tournament=tournament, number=number, household=household)
    client.force_login(organiser)
    url = f"/t/{tournament.slug}/manage/stages/1/"
    seated = client.post(f"{url}seat/", {"seed": "7"}, follow=True, **SPANISH).content.decode()
    spanish = "La familia «Okafor» tiene 3 jugadores pero solo hay 2 mesas"
    assert spanish in seated
    english = "Household “Okafor” has 3 players but there are only 2 tables"
    assert english in page(client, url, HTTP_ACCEPT_LANGUAGE="en")
    assert spanish in page(client, url, **SPANISH)
    # So is the table where two of them sit together.
    stage.refresh_from_db()
    table = stage.seating_report["household_conflict_details"][0]["table"]
    shared = f"Mesa {table}: dos o más de la familia «Okafor»"
    assert shared in seated and shared in page(client, url, **SPANISH)
    assert f"Table {table}: two or more of household “Okafor”" in page(
        client, url, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert stage.seating_report["warnings"] == [
        "Household “Okafor” has 3 players but there are only 2 tables, "
        "so some of them must share a table."
    ]
    assert stage.seating_report["household_conflicts"] == [
        f"Table {table}: two or more of household “Okafor”"
    ]


@pytest.mark.django_db
def test_scores_import_lines_speak_spanish(organiser, tournament, table, players):
    header = "stage,table,round,engine,number,name,pips,went_out,status\n"
    text = header + "Qualifying,1,1,11,1,Zed,0,maybe,\n"
    response = client_for(organiser).post(
        f"/api/v1/tournaments/{tournament.slug}/scores/import/",
        {"file": SimpleUploadedFile("scores.csv", text.encode())},
        format="multipart",
        **SPANISH,
    )
    assert response.status_code == 400
    lines = response.json()["file"]
    assert lines[0] == (
        "Línea 2: La ronda 1 se juega con el doble inicial 12, no con 11; el número 1 es Ann, "
        "no 'Zed'; el valor 'maybe' de went_out no es yes ni no."
    )
    # The line is still checked with its round, whose other players have no line.
    assert "Línea 2: mesa 1, ronda 1: Faltan los puntos de Bob." in lines


def test_choice_labels_follow_the_active_language():
    with translation.override("es"):
        assert str(Stage.Status.SEATED.label) == "Mesas repartidas"
        assert str(Stage.Kind.PLAYOFF.label) == "Eliminatoria"
        assert str(Player.Status.CHECKED_IN.label) == "Presente"
        assert str(Staff.Role.OFFICIAL.label) == "Árbitro"
        assert str(RoundResult.Status.SUBMITTED.label) == "Por comprobar"
        assert str(Tournament.DominoSet.DOUBLE_12.label) == "doble 12"
    with translation.override("en"):
        assert str(Stage.Status.SEATED.label) == "Seated"
        # The preset labels are spelled out in the model to be translated: still the presets'.
        labels = {key: str(label) for key, label in Tournament.Preset.choices}
        assert labels == {key: preset.label for key, preset in PRESETS.items()}


def test_tie_message_follows_the_active_language():
    flag = {"table": 2, "players": [7, 8, 9], "names": ["Ann", "Bob", "Cy"], "place": 1}
    with translation.override("en"):
        assert standings.tie_message(flag) == (
            "Table 2: Ann and Bob and Cy are tied for place 1, which decides who advances. "
            "Record a tie-break decision."
        )
    with translation.override("es"):
        assert standings.tie_message(flag) == (
            "Mesa 2: Ann y Bob y Cy empatan en el puesto 1, que decide quién avanza. "
            "Registre una decisión de desempate."
        )


@pytest.mark.django_db
def test_standings_notes_are_shown_in_the_readers_language(client, table, players):
    clear_cache()  # snapshots are cached by stage id, and ids come round again between tests
    Player.objects.filter(pk=players[3].pk).update(status=Player.Status.WITHDRAWN)
    slug = table.stage.tournament.slug
    assert "(retirado)" in page(client, f"/es/t/{slug}/", **SPANISH)
    assert "(withdrawn)" in page(client, f"/en/t/{slug}/")  # the snapshot itself stays English


@pytest.mark.django_db
def test_a_presets_stages_are_named_in_the_readers_language_whoever_created_them():
    from tournaments import services

    for language, slug in (("es", "rally-es"), ("en", "rally-en")):
        with translation.override(language):
            created = services.create_tournament(
                name="Rally",
                slug=slug,
                domino_set=12,
                preset="samboree",
                by=factories.UserFactory(),
                with_stages=True,
            )
        stages = list(created.stages.order_by("order"))
        for reader, names in (
            ("es", ["Clasificatoria", "Eliminatoria"]),
            ("en", ["Qualifying", "Playoff"]),
        ):
            with translation.override(reader):
                assert [stage.display_name for stage in stages] == names, (language, reader)
