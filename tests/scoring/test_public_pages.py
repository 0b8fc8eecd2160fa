"""The pages players read without logging in."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests import factories
from tests.scoring.helpers import play, play_stage, seat_tables
from tournaments.models import Player

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def stage(tournament):
    stage = factories.StageFactory(tournament=tournament, rounds=2, status="seated", order=1)
    seat_tables(stage, [["Ann Baker", "Bob Ortiz", "Cy Young"], ["Di Peña", "Ed Lee", "Flo Ng"]])
    return stage


def test_standings_page_shows_ranks_rounds_totals_and_who_advances(client, tournament, stage):
    play_stage(stage)
    page = client.get(f"/t/{tournament.slug}/").content.decode()
    assert "4 of 4 results in." in page
    assert "Ann Baker" in page and "✓ advances" in page
    assert page.index("Ann Baker") < page.index("Bob Ortiz") < page.index("Cy Young")
    assert f'href="/t/{tournament.slug}/tables/1/1/"' in page


def test_standings_page_before_seating_says_so(client, tournament):
    page = client.get(f"/t/{tournament.slug}/").content.decode()
    assert "have not been seated yet" in page


def test_unchanged_standings_cost_a_304_and_a_change_a_new_page(client, tournament, stage):
    first = client.get(f"/t/{tournament.slug}/", HTTP_HX_REQUEST="true")
    assert first.status_code == 200
    assert first.content.decode().lstrip().startswith('<section id="standings"')  # the partial
    etag = first["ETag"]
    again = client.get(f"/t/{tournament.slug}/", HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b""
    table = [p for p in Player.objects.filter(tournament=tournament).order_by("number")][:3]
    play(stage, table, 1, [0, 5, 9])
    changed = client.get(f"/t/{tournament.slug}/", HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200 and changed["ETag"] != etag
    assert "1 of 4 results in." in changed.content.decode()


def test_standings_page_takes_the_same_few_queries_for_few_and_many_players(client, tournament):
    small = factories.StageFactory(tournament=tournament, rounds=2, status="seated", order=1)
    seat_tables(small, [["A", "B", "C"]])
    other = factories.TournamentFactory()
    large = factories.StageFactory(tournament=other, rounds=2, status="seated", order=1)
    seat_tables(large, [[f"P{t}-{s}" for s in range(4)] for t in range(60)])
    counts = []
    for slug in (tournament.slug, other.slug):
        client.get(f"/t/{slug}/")  # the first visit builds the snapshot
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"/t/{slug}/").status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1] <= 5


def test_table_sheet_shows_confirmed_rounds_only(client, tournament, stage):
    players = list(Player.objects.filter(tournament=tournament).order_by("number"))[:3]
    play(stage, players, 1, [0, 12, 30])
    play(stage, players, 2, [44, 0, 7], status="submitted")
    page = client.get(f"/t/{tournament.slug}/tables/1/1/").content.decode()
    assert "1 (double-12)" in page and "2 (double-11)" in page
    assert '<td class="num">30' in page
    assert '<td class="num">44' not in page  # round 2 is still being checked
    assert client.get(f"/t/{tournament.slug}/tables/1/9/").status_code == 404


def test_player_page_shows_the_seat_now_and_round_scores(client, tournament, stage):
    play_stage(stage)
    player = Player.objects.get(tournament=tournament, name="Bob Ortiz")
    page = client.get(f"/t/{tournament.slug}/players/{player.number}/").content.decode()
    assert "Now: Qualifying, <strong>table 1</strong>, seat 2" in page
    assert "Rank 3 overall, 2 at the table" in page  # Di went out too: both tables' winners lead


def test_find_a_player_by_number_or_name(client, tournament, stage):
    by_number = client.get(f"/t/{tournament.slug}/players/", {"q": "#2"})
    assert by_number.status_code == 302
    assert by_number["Location"] == f"/t/{tournament.slug}/players/2/"
    by_name = client.get(f"/t/{tournament.slug}/players/", {"q": "peñ"}).content.decode()
    assert "Di Peña" in by_name and "Ann Baker" not in by_name
    nobody = client.get(f"/t/{tournament.slug}/players/", {"q": "Zed"}).content.decode()
    assert "Nobody matches" in nobody


def test_projector_pages_through_the_standings(client, tournament):
    stage = factories.StageFactory(tournament=tournament, rounds=1, status="seated", order=1)
    seat_tables(stage, [[f"P{t}{s}" for s in range(3)] for t in range(6)])  # 18 players
    first = client.get(f"/t/{tournament.slug}/screen/").content.decode()
    assert "page 1 of 2" in first and "?page=2" in first
    second = client.get(f"/t/{tournament.slug}/screen/?page=2", HTTP_HX_REQUEST="true")
    assert "page 2 of 2" in second.content.decode()
    assert "?page=1" in second.content.decode()
