"""The entries pages in Spanish: the entry form, an entry's own page, the console's Entries
section and an entry's page there, each in Spanish at its /es/ address (or the organiser's
language), with no English left of what they say."""

from decimal import Decimal

import pytest
from django.test import Client

from tests import factories
from tests.entries.helpers import enter, open_tournament

pytestmark = pytest.mark.django_db


def test_the_entry_form_reads_in_spanish():
    tournament = open_tournament(capacity=10, entry_fee=Decimal(5), currency="EUR")
    page = Client().get(f"/es/t/{tournament.slug}/register/").content.decode()
    assert '<html lang="es">' in page
    assert "Inscribirse en" in page and tournament.name in page
    assert "Quedan 10 plazas de 10." in page
    assert "La cuota de inscripción es de 5" in page and "EUR, que se paga en la mesa" in page
    assert "Su nombre" in page and "Teléfono (opcional)" in page
    assert "Solo los organizadores ven su correo y su teléfono" in page
    for english in ("Your name", "places left", "Only the organisers", "Phone (optional)"):
        assert english not in page


def test_an_entrys_page_reads_in_spanish():
    tournament = open_tournament(capacity=1)
    enter(tournament, "Ann Abbott")
    bob = enter(tournament, "Bob Brown")
    page = Client().get(f"/es/t/{tournament.slug}/entry/{bob.manage_key}/").content.decode()
    assert '<html lang="es">' in page
    assert "Su inscripción" in page and "Es el número 1 de la lista de espera." in page
    assert "You are number" not in page and "Your entry" not in page


def test_the_console_entries_section_reads_in_spanish(client):
    tournament = open_tournament(capacity=1)
    organiser = factories.StaffFactory(tournament=tournament, role="organiser").user
    enter(tournament, "Ann Abbott")
    bob = enter(tournament, "Bob Brown")
    client.force_login(organiser)
    client.cookies["django_language"] = "es"
    section = client.get(f"/t/{tournament.slug}/manage/entries/").content.decode()
    assert "Inscripciones por orden" in section and "Ajustes de inscripción…" in section
    assert "1 inscritos, 0 con plaza ofrecida, 1 en espera." in section
    assert "Entries in order" not in section
    page = client.get(f"/t/{tournament.slug}/manage/entries/{bob.pk}/").content.decode()
    assert "Inscripción de Bob Brown" in page and "Inscribir a mano" in page
    assert "Enter by hand" not in page
