"""English and Spanish: the pages follow the browser's language or the language switch, the
Spanish catalogue is complete, and officials' validation messages are translated too."""

import ast
import gettext
import io
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation
from pypdf import PdfReader

from config.api import Conflict
from scoring import standings
from scoring.models import RoundResult
from scoring.rules import ScoreLine, validate_round
from tables import seating
from tests import factories
from tests.conftest import client_for
from tests.scoring.conftest import round_body
from tournaments.models import Player, Staff, Stage, Tournament
from tournaments.presets import PRESETS

LC_MESSAGES = Path(settings.BASE_DIR) / "locale" / "es" / "LC_MESSAGES"
SPANISH = {"HTTP_ACCEPT_LANGUAGE": "es"}
PLACEHOLDER = re.compile(r"%\((\w+)\)s")


@pytest.fixture
def table(tournament):
    """Table 1 of a seated four-round stage from double-12: Ann, Bob, Cy and Di."""
    stage = factories.StageFactory(tournament=tournament, order=1, status="seated")
    table = factories.TableFactory(stage=stage, number=1)
    for position, name in enumerate(["Ann", "Bob", "Cy", "Di"], start=1):
        player = factories.PlayerFactory(tournament=tournament, number=position, name=name)
        factories.SeatFactory(table=table, player=player, position=position)
    return table


@pytest.fixture
def players(table):
    return [seat.player for seat in table.seats.order_by("position")]


def page(client, url: str, **headers) -> str:
    response = client.get(url, **headers)
    assert response.status_code == 200, url
    return response.content.decode()


# --------------------------------------------------------------------------------------------
# Pages in the browser's language


@pytest.mark.django_db
def test_standings_page_speaks_spanish_to_a_spanish_browser(client, table):
    html = page(client, f"/t/{table.stage.tournament.slug}/", **SPANISH)
    assert '<html lang="es">' in html
    assert "Buscar un jugador: número de jugador o nombre" in html
    assert ">Clasificación</a>" in html and ">Eliminatorias</a>" in html
    assert ">Puesto</th>" in html and ">Jugador</th>" in html and ">Mesa</th>" in html
    assert "Find a player" not in html


@pytest.mark.django_db
def test_standings_page_stays_english_by_default(client, table):
    html = page(client, f"/t/{table.stage.tournament.slug}/")
    assert '<html lang="en">' in html
    assert "Find a player: badge number or name" in html and "Clasificación" not in html


@pytest.mark.django_db
def test_tablet_entry_page_speaks_spanish(client, official, table, players):
    client.force_login(official)
    html = page(client, f"/t/{table.stage.tournament.slug}/enter/{table.pk}/1/", **SPANISH)
    assert "Mesa 1 · Ronda 1" in html
    assert "Doble inicial: <strong>doble 12</strong>" in html
    assert "Toque <strong>Salió</strong> en el jugador que jugó su última ficha." in html
    assert "Asiento 1" in html and "Total anterior: <strong>0</strong>" in html
    assert "Nadie salió: la ronda quedó <strong>cerrada</strong>" in html
    assert "Guardar y enseñar a los jugadores" in html
    assert 'aria-label="Rondas"' in html


@pytest.mark.django_db
def test_organiser_console_speaks_spanish(client, organiser, tournament):
    factories.PlayerFactory(tournament=tournament, name="Rosa Díaz")
    client.force_login(organiser)
    html = page(client, f"/t/{tournament.slug}/manage/", **SPANISH)
    assert f"{tournament.name}: panel del organizador" in html
    assert "Añadir un jugador" in html and "Importar jugadores" in html
    assert "1 inscrito: presentes 0, sin llegar 1, retirados 0." in html
    assert 'aria-label="Marcar presente a Rosa Díaz"' in html
    assert "Archivo CSV con una fila de encabezados" in html  # a form label


@pytest.mark.django_db
def test_login_page_speaks_spanish(client):
    html = page(client, "/accounts/login/", **SPANISH)
    assert "<h1>Iniciar sesión</h1>" in html
    assert "Los organizadores y los árbitros inician sesión aquí." in html
    assert ">Usuario o correo electrónico</label>" in html and ">Contraseña</label>" in html
    assert "¿Ha olvidado su contraseña?" in html  # allauth's own Spanish


@pytest.mark.django_db
def test_language_switch_sticks_across_pages(client, table):
    slug = table.stage.tournament.slug
    response = client.post("/i18n/setlang/", {"language": "es", "next": f"/t/{slug}/"})
    assert response.status_code == 302 and response["Location"] == f"/t/{slug}/"
    # No Accept-Language from here on: the choice alone keeps the pages in Spanish.
    assert "Buscar un jugador" in page(client, f"/t/{slug}/")
    assert "Iniciar sesión" in page(client, "/accounts/login/")
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert "Find a player" in page(client, f"/t/{slug}/", **SPANISH)


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
        "La ronda 1 de la mesa 1 ya tiene un resultado (versión 1, enviada). "
        "Envíe If-Match con su ETag para sustituirlo."
    )
    english = api.put(url, changed, format="json")
    assert english.json()["detail"] == (
        "Round 1 at table 1 already has a result (version 1, submitted). "
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
        "La fase Qualifying está cerrada: nadie puede ya anotar ni cambiar sus resultados. "
        "Su clasificación y quién avanzó desde ella quedan como están."
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
    assert "Se sentó a 6 jugadores en 2 mesas (semilla 4)." in seated
    console = page(client, f"/t/{tournament.slug}/manage/", **SPANISH)
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
    spanish = "La familia &#x27;Okafor&#x27; tiene 3 jugadores pero solo hay 2 mesas"
    assert spanish in seated
    english = "Household &#x27;Okafor&#x27; has 3 players but there are only 2 tables"
    assert english in page(client, url, HTTP_ACCEPT_LANGUAGE="en")
    assert spanish in page(client, url, **SPANISH)
    # So is the table where two of them sit together.
    stage.refresh_from_db()
    table = stage.seating_report["household_conflict_details"][0]["table"]
    shared = f"Mesa {table}: dos o más de la familia &#x27;Okafor&#x27;"
    assert shared in seated and shared in page(client, url, **SPANISH)
    assert f"Table {table}: two or more of household &#x27;Okafor&#x27;" in page(
        client, url, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert stage.seating_report["warnings"] == [
        "Household 'Okafor' has 3 players but there are only 2 tables, "
        "so some of them must share a table."
    ]
    assert stage.seating_report["household_conflicts"] == [
        f"Table {table}: two or more of household 'Okafor'"
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
        assert str(RoundResult.Status.SUBMITTED.label) == "Enviada"
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
    cache.clear()  # snapshots are cached by stage id, and ids come round again between tests
    Player.objects.filter(pk=players[3].pk).update(status=Player.Status.WITHDRAWN)
    slug = table.stage.tournament.slug
    assert "(retirado)" in page(client, f"/t/{slug}/", **SPANISH)
    assert "(withdrawn)" in page(client, f"/t/{slug}/")  # the snapshot itself stays English


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
    assert upload(two_bad).json()["detail"] == "2 line(s) have errors; no player was imported."

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


# --------------------------------------------------------------------------------------------
# The tablet's script and the table cards


@pytest.mark.django_db
def test_tablet_banners_come_from_the_page_in_its_language(client, official, table):
    client.force_login(official)
    html = page(client, f"/t/{table.stage.tournament.slug}/enter/{table.pk}/1/", **SPANISH)
    assert 'data-not-sent="Todavía no se ha enviado: se enviará cuando vuelva la conexión."' in html
    assert 'data-sending="Enviando…"' in html
    assert 'data-reload="Recargue la página para ver los puntos tal como están ahora."' in html


@pytest.mark.django_db
def test_entry_script_reads_each_banner_the_page_renders_with_the_same_english(
    client, official, table
):
    client.force_login(official)
    html = page(client, f"/t/{table.stage.tournament.slug}/enter/{table.pk}/1/")
    script = (Path(settings.BASE_DIR) / "tournaments/static/roundhouse/entry.js").read_text()
    said = dict(re.findall(r'say\("(\w+)", "([^"]+)"\)', script))
    assert set(said) == {
        "notSent",
        "sending",
        "signedOut",
        "reload",
        "changedElsewhere",
        "savedNow",
        "youTyped",
        "wentOut",
        "fixFields",
    }
    for name, english in said.items():
        attribute = "data-" + re.sub(r"[A-Z]", lambda m: "-" + m[0].lower(), name)
        assert f'{attribute}="{english}"' in html


@pytest.mark.django_db
def test_table_cards_speak_the_callers_language(official, table):
    response = client_for(official).get(f"/api/v1/stages/{table.stage_id}/cards.pdf", **SPANISH)
    assert response.status_code == 200
    text = " ".join(PdfReader(io.BytesIO(response.content)).pages[0].extract_text().split())
    for words in [
        "Mesa 1",
        "Reparta 12 fichas",
        "Escanee para anotar los puntos",
        "Asiento 1: #1 Ann",
        "Ronda (doble inicial)",
        "4 (doble 9)",
        "Gana el total más bajo.",
        "Firma del árbitro:",
        "Los jugadores comprobaron los totales (iniciales):",
    ]:
        assert words in text, words
    assert "Deal" not in text and "signature" not in text


# --------------------------------------------------------------------------------------------
# The catalogue


def po_entries(path: Path) -> list[dict[str, object]]:
    """The entries of a .po file: msgctxt, msgid, msgid_plural, msgstr (a list) and flags."""
    entries = []
    for block in path.read_text(encoding="utf-8").strip().split("\n\n"):
        entry: dict[str, object] = {"flags": set(), "msgstr": []}
        field = None
        for line in block.splitlines():
            if line.startswith("#,"):
                entry["flags"] |= {flag.strip() for flag in line[2:].split(",")}
            elif line.startswith("#~"):
                entry["obsolete"] = True
            elif line.startswith("#") or not line.strip():
                continue
            elif line.startswith('"'):
                text = ast.literal_eval(line)
                if field == "msgstr":
                    entry["msgstr"][-1] += text
                else:
                    entry[field] += text
            else:
                keyword, _, rest = line.partition(" ")
                text = ast.literal_eval(rest)
                if keyword.startswith("msgstr"):
                    field = "msgstr"
                    entry["msgstr"].append(text)
                else:
                    field = keyword
                    entry[field] = text
        entries.append(entry)
    return entries


def test_spanish_catalogue_is_complete_and_not_fuzzy():
    entries = po_entries(LC_MESSAGES / "django.po")
    header, messages = entries[0], entries[1:]
    assert header["msgid"] == "" and "fuzzy" not in header["flags"]
    assert len(messages) > 200
    for entry in messages:
        assert not entry.get("obsolete"), entry
        assert "fuzzy" not in entry["flags"], entry["msgid"]
        assert entry["msgstr"] and all(entry["msgstr"]), f"untranslated: {entry['msgid']!r}"
        wanted = set(PLACEHOLDER.findall(entry["msgid"]))
        for msgstr in entry["msgstr"]:
            assert set(PLACEHOLDER.findall(msgstr)) == wanted, entry["msgid"]


def test_compiled_catalogue_matches_the_po_file():
    """The .mo is committed so no gettext tool is needed at runtime: it must not be stale."""
    with (LC_MESSAGES / "django.mo").open("rb") as mo:
        compiled = gettext.GNUTranslations(mo)
    for entry in po_entries(LC_MESSAGES / "django.po")[1:]:
        msgid, msgstr = entry["msgid"], entry["msgstr"]
        if "msgid_plural" in entry:
            assert compiled.ngettext(msgid, entry["msgid_plural"], 1) == msgstr[0]
            assert compiled.ngettext(msgid, entry["msgid_plural"], 2) == msgstr[-1]
        elif "msgctxt" in entry:
            assert compiled.pgettext(entry["msgctxt"], msgid) == msgstr[0]
        else:
            assert compiled.gettext(msgid) == msgstr[0], msgid


@pytest.mark.django_db
def test_a_preset_names_its_stages_in_the_language_of_whoever_creates_the_tournament():
    from tournaments import services

    names = {}
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
        names[language] = list(created.stages.order_by("order").values_list("name", flat=True))
    assert names == {"es": ["Clasificatoria", "Eliminatoria"], "en": ["Qualifying", "Playoff"]}


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
