"""English and Spanish: the pages follow the browser's language or the language switch, the
Spanish catalogue is complete, and officials' validation messages are translated too."""

import ast
import gettext
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.utils import translation

from scoring.rules import ScoreLine, validate_round
from tests import factories
from tests.conftest import client_for
from tests.scoring.conftest import round_body

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
    assert "1 inscrito: 0 presentes, 1 sin llegar, 0 retirados." in html
    assert 'aria-label="Marcar presente a Rosa Díaz"' in html
    assert "Archivo CSV con una fila de encabezados" in html  # a form label


@pytest.mark.django_db
def test_login_page_speaks_spanish(client):
    html = page(client, "/accounts/login/", **SPANISH)
    assert "<h1>Iniciar sesión</h1>" in html
    assert "Los organizadores y los árbitros inician sesión aquí." in html
    assert ">Usuario</label>" in html and ">Contraseña</label>" in html


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
