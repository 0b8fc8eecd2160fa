"""The final results: the page, the PDF download and the certificates, in English and Spanish;
and what each says before the final has decided the places."""

import io
import re

import pytest
from django.utils import translation
from pypdf import PdfReader

from scoring.models import Placing
from scoring.results import ordinal, place_text
from tests.scoring.helpers import (
    close,
    final_of_two,
    finished_event,
    play_stage,
    qualifying_of_six,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def event(tournament):
    tournament.name = "Torneo de Año Nuevo en Peñasco"
    tournament.save()
    return tournament


@pytest.fixture
def finished(event, as_organiser):
    finished_event(event, as_organiser)
    return event


def placings(tournament) -> list[Placing]:
    return list(
        Placing.objects.filter(tournament=tournament)
        .select_related("player", "stage")
        .order_by("place", "player__number")
    )


def pdf_text(content: bytes) -> list[str]:
    return [page.extract_text() for page in PdfReader(io.BytesIO(content)).pages]


@pytest.mark.parametrize(
    ("language", "words"),
    [
        (
            "en",
            ["Final results", "Final placings", "Place", "Last stage played", "final standings"],
        ),
        ("es", ["Clasificación final", "Puesto", "Última fase jugada", "Jugador"]),
    ],
)
def test_the_pdf_holds_the_tournament_the_places_and_every_stage_in_the_request_language(
    finished, anon, language, words
):
    response = anon.get(f"/{language}/t/{finished.slug}/results.pdf", HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/pdf"
    assert f'filename="{finished.slug}-results.pdf"' in response["Content-Disposition"]
    pages = pdf_text(response.content)
    text = "\n".join(pages)
    assert "Torneo de Año Nuevo en Peñasco" in pages[0]  # accents as typed, in either language
    for word in words:
        assert word in text, word
    placed = placings(finished)
    assert len(placed) == 6
    # The placings page: each place, name, badge and total in that order, on one line.
    for p in placed:
        line = rf"{p.place}\s+{re.escape(p.player.name)} #{p.player.number}\s+.*\s+"
        assert re.search(line, pages[0]), (p.place, p.player.name)
    assert {"José Ibáñez", "Núria Muñoz", "Ana Peña"} <= {p.player.name for p in placed}
    # Then each stage's final standings, the final first, each from a page of its own.
    assert "Gran final" in pages[1] and "Clasificación" in pages[2]
    for name in ("José Ibáñez", "Ana Peña", "Bob Ortiz", "Núria Muñoz", "Ed Hughes", "Flo Ng"):
        assert name in pages[2]
    assert re.search(r"Bob Ortiz #3\s+1\s+10\s+10\s+20", pages[2])  # table 1, 10 a round


def test_the_results_page_lists_the_places_and_links_the_pdf_and_the_certificates(finished, client):
    page = client.get(f"/en/t/{finished.slug}/results/").content.decode()
    assert "not final" not in page
    assert f"/en/t/{finished.slug}/results.pdf" in page
    assert f"/en/t/{finished.slug}/results/certificates/" in page
    rows = re.findall(
        r"<tr><td class=\"num\"><strong>(\d+)</strong></td><td><a [^>]*>([^<]+)", page
    )
    assert [(int(place), name) for place, name in rows] == [
        (p.place, p.player.name) for p in placings(finished)
    ]
    assert "Gran final: final standings" in page and "Clasificación: final standings" in page
    assert page.index("Gran final: final standings") < page.index("Clasificación: final st")
    assert page.count('class="print-stage"') == 2


def test_the_standings_and_the_console_link_the_results_once_the_places_are_decided(
    finished, client, organiser
):
    standings = client.get(f"/en/t/{finished.slug}/").content.decode()
    assert f'href="/en/t/{finished.slug}/results/"' in standings
    client.force_login(organiser)
    console = client.get(f"/t/{finished.slug}/manage/downloads/").content.decode()
    assert f"/en/t/{finished.slug}/results.pdf" in console
    assert f"/en/t/{finished.slug}/results/certificates/" in console


def test_before_the_final_the_results_say_they_are_not_final_and_the_pdf_is_not_there(
    event, as_organiser, client
):
    first = qualifying_of_six(event)
    final_of_two(event)
    play_stage(first)
    standings = client.get(f"/en/t/{event.slug}/").content.decode()
    assert f"/en/t/{event.slug}/results/" not in standings  # nothing to link to yet
    page = client.get(f"/en/t/{event.slug}/results/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "These results are not final yet." in text
    assert "Final placings" not in text and "results.pdf" not in text
    assert "final standings" not in text  # the stage is still open: no standings called final
    # Qualifying closed: its standings are final, the places are not (the final is to play).
    assert close(as_organiser, first).status_code == 202
    text = client.get(f"/en/t/{event.slug}/results/").content.decode()
    assert "These results are not final yet." in text
    assert "Clasificación: final standings" in text and "José Ibáñez" in text
    assert "Final placings" not in text
    # The PDF and the certificates of an undecided event are not there: the answer says why.
    for path in ("results.pdf", "results/certificates/"):
        response = client.get(f"/en/t/{event.slug}/{path}")
        assert response.status_code == 404
        assert response["Content-Type"].startswith("text/html")
        assert "These results are not final yet." in response.content.decode()


def certificates(page: str) -> list[tuple[str, str]]:
    """(name, place) of each certificate on the page."""
    return re.findall(
        r'<p class="certificate-name">([^<]+)</p>\s*<p class="certificate-place">([^<]+)</p>', page
    )


def test_a_certificate_for_each_placed_player_on_the_podium_unless_more_are_asked_for(
    finished, client
):
    placed = placings(finished)
    page = client.get(f"/en/t/{finished.slug}/results/certificates/").content.decode()
    with translation.override("en"):
        expected = [(p.player.name, place_text(p.place)) for p in placed if p.place <= 3]
    assert certificates(page) == expected
    assert expected[0][1] == "1st place" and page.count('class="certificate"') == len(expected)
    assert "Torneo de Año Nuevo en Peñasco" in page
    every = client.get(f"/en/t/{finished.slug}/results/certificates/?places=6").content.decode()
    assert [name for name, _ in certificates(every)] == [p.player.name for p in placed]


def test_certificates_in_spanish_say_the_place_as_spanish_writes_it(finished, client):
    page = client.get(
        f"/es/t/{finished.slug}/results/certificates/?places=6", HTTP_ACCEPT_LANGUAGE="es"
    ).content.decode()
    places = [place for _, place in certificates(page)]
    assert places[0] == "1.er puesto" and "2.º puesto" in places


@pytest.mark.parametrize(
    ("asked", "why"),
    [
        ("abc", "“abc” is not one"),
        ("0", "“0” is not one"),
        ("7", "from 1 to 6"),  # six players placed
        ("-1", "“-1” is not one"),
        ("2.5", "“2.5” is not one"),
    ],
)
def test_a_number_of_places_that_is_no_place_is_refused_and_shows_no_certificates(
    finished, client, asked, why
):
    response = client.get(f"/en/t/{finished.slug}/results/certificates/?places={asked}")
    assert response.status_code == 400
    page = response.content.decode()
    assert why in page and 'aria-invalid="true"' in page
    assert certificates(page) == []


@pytest.mark.parametrize(
    ("language", "places"),
    [
        ("en", {1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th",
                21: "21st", 22: "22nd", 23: "23rd", 101: "101st", 111: "111th"}),
        ("es", {1: "1.er", 2: "2.º", 3: "3.er", 4: "4.º", 11: "11.º", 12: "12.º", 13: "13.er",
                21: "21.er", 22: "22.º", 23: "23.er", 101: "101.er", 111: "111.º"}),
    ],
)  # fmt: skip
def test_places_are_ordinals_of_the_language(language, places):
    with translation.override(language):
        assert {place: ordinal(place) for place in places} == places
