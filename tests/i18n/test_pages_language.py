"""The pages follow the browser's language or the language switch; so do the tablet's script
and the table cards."""

import io
import re
from pathlib import Path

import pytest
from django.conf import settings
from pypdf import PdfReader

from tests import factories
from tests.conftest import client_for
from tests.i18n.conftest import SPANISH, page

# --------------------------------------------------------------------------------------------
# Pages in the browser's language


@pytest.mark.django_db
def test_standings_page_speaks_spanish_to_a_spanish_browser(client, table):
    slug = table.stage.tournament.slug
    old_address = client.get(f"/t/{slug}/", **SPANISH)  # a QR code printed before /es/
    assert old_address.status_code == 302 and old_address["Location"] == f"/es/t/{slug}/"
    html = page(client, old_address["Location"])  # the address alone says Spanish
    assert '<html lang="es">' in html
    assert "Buscar un jugador: número de gafete o nombre" in html
    assert ">Clasificación</a>" in html and ">Eliminatorias</a>" in html
    assert ">Puesto</th>" in html and ">Jugador</th>" in html and ">Mesa</th>" in html
    assert "Find a player" not in html


@pytest.mark.django_db
def test_standings_page_stays_english_by_default(client, table):
    html = page(client, f"/en/t/{table.stage.tournament.slug}/")
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
    assert "Guardar y mostrar a los jugadores" in html
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
    response = client.post("/i18n/setlang/", {"language": "es", "next": f"/en/t/{slug}/"})
    # The same page in Spanish: its address says the language.
    assert response.status_code == 302 and response["Location"] == f"/es/t/{slug}/"
    # No Accept-Language from here on: the choice alone keeps the pages in Spanish, those
    # without a language in their address, and the old addresses of those with one.
    assert client.get(f"/t/{slug}/")["Location"] == f"/es/t/{slug}/"
    assert "Buscar un jugador" in page(client, f"/es/t/{slug}/")
    assert "Iniciar sesión" in page(client, "/accounts/login/")
    client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert client.get(f"/t/{slug}/", **SPANISH)["Location"] == f"/en/t/{slug}/"
    assert "Find a player" in page(client, f"/en/t/{slug}/")


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
    scripts = Path(settings.BASE_DIR) / "scoring/static/scoring"
    script = "".join(path.read_text() for path in sorted(scripts.glob("entry*.js")))
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
        "fixAndCheck",
        "areYouSure",
        "checkUnusual",
        "cleared",
        "putBack",
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
