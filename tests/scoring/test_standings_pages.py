"""The public standings in pages of rows: a phone following a large stage fetches one page of it
at each new version, not every row; links name each page's places, and every row stays one link
away (all places, to print or search the whole field). Pages of 50 rows here (100 as built):
the same paging with a field a third the size."""

import re

import pytest
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from scoring import standings_html
from tests import factories
from tests.conftest import clear_cache
from tests.scoring.helpers import play_stage, seat_tables
from tests.snapshots import restored
from tournaments.models import Division, Stage, Tournament

pytestmark = pytest.mark.django_db(transaction=True)

NAME = re.compile(r'<a href="/[a-z]{2}/t/[^/]+/players/\d+/">([^<]+)</a>')


@pytest.fixture
def pages_of_50(monkeypatch):
    monkeypatch.setattr(standings_html, "ROWS_PER_PAGE", 50)


def test_a_500_player_stage_as_built_has_five_pages_of_100():
    page = standings_html.TablePage(html="", page=1, pages=standings_html.page_count(500), rows=500)
    assert [(link["first"], link["last"]) for link in page.links()[:-1]] == [
        (1, 100), (101, 200), (201, 300), (301, 400), (401, 500),
    ]  # fmt: skip
    assert standings_html.page_count(100) == 1 and standings_html.page_count(101) == 2


def play_field() -> tuple[int, int]:
    tournament = factories.TournamentFactory()
    stage = factories.StageFactory(tournament=tournament, rounds=2, status="seated", order=1)
    seat_tables(stage, [[f"Player {t:02d}-{s}" for s in range(4)] for t in range(26)])
    play_stage(stage, score_of=lambda seat, round_no: (seat.table.number * 7 + seat.position) % 31)
    return tournament.pk, stage.pk


@pytest.fixture
def tournament(request, transactional_db):
    """The field's tournament for a test of the field; a new one otherwise (tests/conftest.py)."""
    if "field" in request.fixturenames:
        return Tournament.objects.get(pk=request.getfixturevalue("field").tournament_id)
    return factories.TournamentFactory()


@pytest.fixture
def field(transactional_db, pages_of_50):
    """A stage of 104 players at 26 tables of 4, every round played: three pages of rows. Played
    once per test process and put back for each test (tests/snapshots.py)."""
    _, stage = restored("standings_pages.field", play_field)
    return Stage.objects.get(pk=stage)


def names(page: str) -> list[str]:
    return NAME.findall(page)


def get(client, tournament, query: str = "", **headers) -> tuple[str, object]:
    response = client.get(f"/en/t/{tournament.slug}/{query}", **headers)
    assert response.status_code == 200
    return response.content.decode(), response


def test_the_standings_show_the_first_50_places_and_link_every_page(client, tournament, field):
    page, _ = get(client, tournament)
    everyone, _ = get(client, tournament, "?page=all")
    assert len(names(everyone)) == 104
    assert names(page) == names(everyone)[:50]
    links = re.search(r'<nav class="stage-switch rows-switch"[^>]*>(.*?)</nav>', page).group(1)
    assert 'aria-label="Places, 104 in all"' in page
    assert 'class="visually-hidden">Places 51 to 100</span>' in links
    assert [text for text in re.findall(r'aria-hidden="true">([^<]+)</span></a>', links)] == [
        "1\N{EN DASH}50",
        "51\N{EN DASH}100",
        "101\N{EN DASH}104",
    ]
    assert f'href="/en/t/{tournament.slug}/#standings" aria-current="page"' in links
    assert f'href="/en/t/{tournament.slug}/?page=all#standings">All places</a>' in links
    assert f'href="/en/t/{tournament.slug}/?page=2#standings">Next: places 51 to 100' in page


def test_a_page_of_rows_has_its_places_and_stays_on_them_when_it_refreshes(
    client, tournament, field
):
    everyone, _ = get(client, tournament, "?page=all")
    second, response = get(client, tournament, "?page=2", HTTP_HX_REQUEST="true")
    first, first_response = get(client, tournament, "", HTTP_HX_REQUEST="true")
    assert names(second) == names(everyone)[50:100]
    assert f'hx-get="/en/t/{tournament.slug}/?page=2"' in second  # its own refresh keeps it
    assert f'hx-get="/en/t/{tournament.slug}/"' in first
    assert response["ETag"] != first_response["ETag"]
    assert "52 of 52 results in." in second and "52 of 52 results in." in first
    last, _ = get(client, tournament, "?page=3")
    assert names(last) == names(everyone)[100:]
    assert "Next: places" not in last
    # Printed, a page of rows says which places it holds.
    every = len(names(everyone))
    assert f'<p class="print-only">Places 51 to 100 of {every}.</p>' in second
    assert f'<p class="print-only">Places 101 to {every} of {every}.</p>' in last


def test_every_place_is_on_one_page_with_no_next_link(client, tournament, field):
    everyone, _ = get(client, tournament, "?page=all")
    assert '<p class="print-only">Places' not in everyone  # every place: nothing to say
    assert f'href="/en/t/{tournament.slug}/?page=all#standings" aria-current="page"' in everyone
    assert "Next: places" not in everyone
    assert f'hx-get="/en/t/{tournament.slug}/?page=all"' in everyone


@pytest.mark.parametrize("asked", ["?page=", "?page=abc", "?page=0", "?page=-2", "?page=1e3"])
def test_a_page_that_is_not_a_page_number_shows_the_first(client, tournament, field, asked):
    first, first_response = get(client, tournament, "", HTTP_HX_REQUEST="true")
    page, response = get(client, tournament, asked, HTTP_HX_REQUEST="true")
    assert names(page) == names(first)
    assert response["ETag"] == first_response["ETag"]


def test_a_page_beyond_the_last_shows_the_last_and_is_not_kept(client, tournament, field):
    everyone, _ = get(client, tournament, "?page=all")
    beyond_first, _ = get(client, tournament, "?page=12")  # nothing drawn yet: drawn for it
    assert names(beyond_first) == names(everyone)[100:]
    # Every page, as the worker does for a page read in English.
    standings_html.draw_standings_tables(stage_id=field.pk, languages=["en"])
    beyond, _ = get(client, tournament, "?page=9")
    assert names(beyond) == names(everyone)[100:]
    assert f'href="/en/t/{tournament.slug}/?page=3#standings" aria-current="page"' in beyond
    # The last page's own address is kept for the next visitor; one beyond it is not (each
    # number would keep a copy of it).
    get(client, tournament, "?page=3")
    for query, kept in (("?page=3", True), ("?page=9", False)):
        with CaptureQueriesContext(connection) as queries:
            get(Client(), tournament, query)
        assert (len(queries) == 1) is kept, query


def test_a_word_for_a_page_is_not_what_the_next_visitor_gets(tournament, field):
    """?page=abc shows the first page, and its language link carries it: the next visitor of
    the first page gets that page's own links."""
    junk, _ = get(Client(), tournament, "?page=abc")
    assert "/es/t/" in junk
    plain, _ = get(Client(), tournament)
    assert f'href="/es/t/{tournament.slug}/"' in plain and "page=abc" not in plain


def test_a_stage_of_50_players_or_fewer_has_no_page_links(client, tournament, pages_of_50):
    stage = factories.StageFactory(tournament=tournament, rounds=2, status="seated", order=1)
    seat_tables(stage, [[f"P{t}-{s}" for s in range(5)] for t in range(10)])
    play_stage(stage)
    page, _ = get(client, tournament)
    assert len(names(page)) == 50
    assert "rows-switch" not in page and "All places" not in page and "Next: places" not in page


def test_a_divisions_pages_keep_the_division(client, tournament, field):
    division = Division.objects.create(tournament=tournament, name="Gold")
    division.players.set(tournament.players.order_by("number")[:60])
    page, _ = get(client, tournament, f"?division={division.pk}")
    assert len(names(page)) == 50
    assert f'href="/en/t/{tournament.slug}/?division={division.pk}&amp;page=2#standings"' in page
    second, _ = get(client, tournament, f"?division={division.pk}&page=2")
    assert len(names(second)) == 10
    assert f'hx-get="/en/t/{tournament.slug}/?division={division.pk}&amp;page=2"' in second


def test_a_page_of_rows_is_shared_as_the_first_is(tournament, field):
    """Kept for the next visitor (one query: the version) and for the cache in front."""
    for query in ("", "?page=2", "?page=all"):
        response = Client().get(f"/en/t/{tournament.slug}/{query}")
        assert "public" in response["Cache-Control"], query
        assert not response.cookies, query
        with CaptureQueriesContext(connection) as queries:
            again = Client().get(f"/en/t/{tournament.slug}/{query}")
        assert len(queries) == 1 and again.content == response.content, query


def test_the_spanish_page_links_say_places_in_spanish(client, tournament, field):
    page = client.get(f"/es/t/{tournament.slug}/").content.decode()
    assert 'aria-label="Puestos, 104 en total"' in page
    assert ">Todos los puestos</a>" in page
    assert "Siguientes: puestos del 51 al 100" in page


def test_the_printed_results_list_every_place(client, tournament, field):
    field.status = "closed"
    field.save()
    page = client.get(f"/en/t/{tournament.slug}/results/").content.decode()
    assert len(set(names(page))) == 104


def test_another_page_of_a_version_is_its_rows_in_the_part_drawn_for_the_first(tournament, field):
    """The live part around the rows is drawn once a version: a phone on another page of rows
    gets it with that page's rows (drawn by the worker) and address in it, for the one query of
    the version, and the same as if it had been drawn for that page."""
    hx = {"HTTP_HX_REQUEST": "true"}
    # As the worker does, announcing, for pages read in English.
    standings_html.draw_standings_tables(stage_id=field.pk, languages=["en"])
    Client().get(f"/en/t/{tournament.slug}/", **hx)  # the first page: the part drawn and kept
    with CaptureQueriesContext(connection) as queries:
        second = Client().get(f"/en/t/{tournament.slug}/?page=2&v=1", **hx)
    assert len(queries) == 1  # the version
    caches["local"].clear()
    clear_cache()  # nothing kept: drawn for this page alone
    drawn = Client().get(f"/en/t/{tournament.slug}/?page=2&v=2", **hx)
    assert second.content.decode() == drawn.content.decode()
    assert f'hx-get="/en/t/{tournament.slug}/?page=2"' in second.content.decode()
