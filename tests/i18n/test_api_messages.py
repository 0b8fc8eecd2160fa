"""The API's own messages: the same shape and status, in the caller's language."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation

from config.api import Conflict
from scoring.models import RoundResult
from tests import factories
from tests.conftest import client_for
from tests.i18n.conftest import SPANISH
from tournaments.models import Player, Stage

# --------------------------------------------------------------------------------------------
# The API's own messages: the same shape and status, in the caller's language


@pytest.mark.django_db
def test_round_api_asks_for_a_json_object_in_the_callers_language(official, table):
    api = client_for(official)
    url = f"/api/v1/tables/{table.pk}/rounds/1/"
    spanish = api.put(url, [{"player": 1, "pips": 0}], format="json", **SPANISH)
    assert spanish.status_code == 400
    assert spanish.json() == {"non_field_errors": ["Envíe un objeto JSON."]}
    english = api.put(url, [{"player": 1, "pips": 0}], format="json")
    assert english.status_code == 400
    assert english.json() == {"non_field_errors": ["Send a JSON object."]}
    assert not RoundResult.objects.exists()


@pytest.mark.django_db
def test_rejected_player_upload_says_nothing_was_imported_in_the_callers_language(
    organiser, tournament
):
    api = client_for(organiser)
    url = f"/api/v1/tournaments/{tournament.slug}/players/import/"

    def upload(content: bytes, **headers):
        csv_file = SimpleUploadedFile("players.csv", content)
        return api.post(url, {"file": csv_file}, format="multipart", **headers)

    two_bad = b"number,name\n1,Ann\n1,Bob\n3,\n"
    spanish = upload(two_bad, **SPANISH)
    assert spanish.status_code == 400
    body = spanish.json()
    assert set(body) == {"detail", "file", "rows"}
    assert body["detail"] == "2 líneas tienen errores; no se importó ningún jugador."
    assert body["rows"][1] == {"line": 4, "message": "El nombre está vacío."}
    one_bad = upload(b"number,name\n1,Ann\n2,\n", **SPANISH).json()
    assert one_bad["detail"] == "1 línea tiene errores; no se importó ningún jugador."
    assert upload(two_bad).json()["detail"] == "2 lines have errors; no player was imported."

    missing = api.post(url, {}, format="multipart", **SPANISH)
    assert missing.status_code == 400
    assert missing.json() == {"file": ["Adjunte el archivo CSV como 'file'."]}
    assert api.post(url, {}, format="multipart").json() == {
        "file": ["Attach the CSV file as 'file'."]
    }
    assert not Player.objects.filter(tournament=tournament).exists()


@pytest.mark.django_db
def test_rejected_scores_upload_says_no_result_was_entered_in_spanish(
    organiser, tournament, table, players
):
    lines = ["stage,table,round,engine,number,name,pips,went_out,status"] + [
        f"Qualifying,1,1,12,{p.number},{p.name},{pips},{'yes' if pips == 0 else 'no'},"
        for p, pips in zip(players, (0, 12, 30, 7), strict=True)
    ]
    lines[2] = lines[2].replace(",12,no,", ",a dozen,no,")  # Bob's pips: one bad line
    response = client_for(organiser).post(
        f"/api/v1/tournaments/{tournament.slug}/scores/import/",
        {"file": SimpleUploadedFile("scores.csv", "\n".join(lines).encode())},
        format="multipart",
        **SPANISH,
    )
    assert response.status_code == 400
    assert response.json()["detail"] == "1 línea tiene errores; no se anotó ningún resultado."
    assert not RoundResult.objects.exists()


@pytest.mark.django_db
def test_table_cards_of_an_unseated_stage_conflict_in_the_callers_language(official, tournament):
    stage = factories.StageFactory(tournament=tournament, order=1, name="Clasificación")
    url = f"/api/v1/stages/{stage.pk}/cards.pdf"
    spanish = client_for(official).get(url, **SPANISH)
    assert spanish.status_code == 409
    assert spanish.json() == {
        "detail": "La fase Clasificación todavía no tiene las mesas repartidas: repártalas para "
        "imprimir sus tarjetas de mesa."
    }
    english = client_for(official).get(url)
    assert english.status_code == 409
    assert english.json() == {
        "detail": "Clasificación is not seated yet: seat it to print its table cards."
    }


@pytest.mark.django_db
def test_officials_limits_on_stage_settings_are_told_in_the_callers_language(official, tournament):
    stage = factories.StageFactory(tournament=tournament, order=2, kind=Stage.Kind.PLAYOFF)
    api = client_for(official)
    url = f"/api/v1/stages/{stage.pk}/"
    spanish = api.patch(url, {"rounds": 3, "name": "Final"}, format="json", **SPANISH)
    assert spanish.status_code == 403
    assert spanish.json() == {
        "detail": "Los árbitros solo pueden fijar el doble inicial y las rondas, no name."
    }
    english = api.patch(url, {"rounds": 3, "name": "Final"}, format="json")
    assert english.json() == {
        "detail": "Officials may set the starting double and rounds only, not name."
    }
    not_an_object = api.patch(url, ["rounds"], format="json", **SPANISH)
    assert not_an_object.status_code == 400
    assert not_an_object.json() == {"non_field_errors": ["Envíe un objeto JSON con los ajustes."]}
    stage.refresh_from_db()
    assert (stage.name, stage.rounds) == ("Qualifying", 4)


@pytest.mark.django_db
def test_locked_out_sign_in_is_told_in_the_callers_language(client, settings):
    factories.UserFactory(username="tablet1")
    venue = "203.0.113.7"

    def sign_in(password: str, **headers):
        return client.post(
            "/api/v1/auth/token/",
            {"username": "tablet1", "password": password},
            REMOTE_ADDR=venue,
            **headers,
        )

    for _ in range(settings.AXES_FAILURE_LIMIT):
        sign_in("wrong")
    spanish = sign_in("a-long-test-password", **SPANISH)
    assert spanish.status_code == 429
    assert spanish.json() == {
        "detail": "Demasiados intentos fallidos de inicio de sesión con este usuario desde esta "
        "dirección. Vuelva a intentarlo dentro de 15 minutos."
    }
    english = sign_in("a-long-test-password")
    assert english.status_code == 429
    assert english.json() == {
        "detail": "Too many failed sign-ins for this username from this address. "
        "Try again in 15 minutes."
    }


def test_conflicts_default_detail_follows_the_active_language():
    with translation.override("es"):
        assert str(Conflict().detail) == "Esto choca con el estado actual."
    with translation.override("en"):
        assert str(Conflict().detail) == "This conflicts with the current state."


@pytest.mark.django_db
def test_refused_permissions_are_told_in_the_callers_language(tournament):
    stranger = factories.StaffFactory(role="official").user  # an official of another tournament
    url = f"/api/v1/tournaments/{tournament.slug}/players/"
    body = {"number": 1, "name": "Ann"}
    spanish = client_for(stranger).post(url, body, format="json", **SPANISH)
    assert spanish.status_code == 403
    assert spanish.json() == {
        "detail": f"Solo un organizador de {tournament.name} puede hacer esto."
    }
    english = client_for(stranger).post(url, body, format="json")
    assert english.json() == {"detail": f"Only an organiser of {tournament.name} may do this."}
    assert not Player.objects.filter(tournament=tournament).exists()
