"""The pages players read without logging in."""

from unittest import mock

import pytest
from django.db import connection
from django.db.models.sql.compiler import SQLCompiler
from django.test import Client
from django.test.utils import CaptureQueriesContext

from scoring.models import StandingRow
from tests import factories
from tests.scoring.helpers import play, play_stage, seat_tables
from tournaments.models import Player, Stage, Tournament
from tournaments.services.divisions import (
    create_division,
    move_division,
    remove_division,
    update_division,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def stage(tournament):
    stage = factories.StageFactory(tournament=tournament, rounds=2, status="seated", order=1)
    seat_tables(stage, [["Ann Baker", "Bob Ortiz", "Cy Young"], ["Di Peña", "Ed Lee", "Flo Ng"]])
    return stage


def test_standings_page_shows_ranks_rounds_totals_and_who_advances(client, tournament, stage):
    play_stage(stage)
    page = client.get(f"/en/t/{tournament.slug}/").content.decode()
    assert "4 of 4 results in." in page
    assert "Ann Baker" in page and "✓ advances" in page
    assert page.index("Ann Baker") < page.index("Bob Ortiz") < page.index("Cy Young")
    assert f'href="/en/t/{tournament.slug}/tables/1/1/"' in page


def test_standings_page_before_seating_says_so(client, tournament):
    page = client.get(f"/en/t/{tournament.slug}/").content.decode()
    assert "have not been seated yet" in page


def test_unchanged_standings_cost_a_304_and_a_change_a_new_page(client, tournament, stage):
    first = client.get(f"/en/t/{tournament.slug}/", HTTP_HX_REQUEST="true")
    assert first.status_code == 200
    assert first.content.decode().lstrip().startswith('<section id="standings"')  # the partial
    etag = first["ETag"]
    again = client.get(f"/en/t/{tournament.slug}/", HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304 and again.content == b""
    table = [p for p in Player.objects.filter(tournament=tournament).order_by("number")][:3]
    play(stage, table, 1, [0, 5, 9])
    changed = client.get(
        f"/en/t/{tournament.slug}/", HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=etag
    )
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
        client.get(f"/en/t/{slug}/")  # the first visit builds the snapshot
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"/en/t/{slug}/").status_code == 200
        counts.append(len(queries))
    # The current stage's version (the ETag, and the key of the page kept for visitors who are
    # not signed in): nothing else is read.
    assert counts == [1, 1]


def test_a_kept_standings_page_is_served_without_compiling_a_query(client, tournament, stage):
    # Compiling the page's ORM query took more of a request than running it: its SQL is
    # compiled once per process, and the kept page needs nothing else.
    play(stage, list(Player.objects.filter(tournament=tournament))[:3], 1, [0, 5, 9])
    first = client.get(f"/en/t/{tournament.slug}/")
    with mock.patch.object(SQLCompiler, "as_sql", autospec=True) as compile_sql:
        again = client.get(f"/en/t/{tournament.slug}/")
        unchanged = client.get(f"/en/t/{tournament.slug}/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert compile_sql.call_count == 0
    assert again.status_code == 200 and again["ETag"] == first["ETag"]
    assert standings_table(again.content.decode()) == standings_table(first.content.decode())
    assert unchanged.status_code == 304


def standings_table(page: str) -> str:
    return page[page.index('<table class="standings">') : page.index("</table>")]


def test_the_standings_table_is_rendered_once_per_snapshot_and_language(client, tournament, stage):
    table = list(Player.objects.filter(tournament=tournament).order_by("number"))[:3]
    play(stage, table, 1, [0, 5, 9])
    english = client.get(f"/en/t/{tournament.slug}/").content.decode()
    with CaptureQueriesContext(connection) as queries:
        again = client.get(f"/en/t/{tournament.slug}/").content.decode()
    assert standings_table(again) == standings_table(english)
    # Served from the cache: the snapshot's rows are not read again.
    assert not [q for q in queries if "scoring_standingrow" in q["sql"]]
    spanish = client.get(f"/es/t/{tournament.slug}/").content.decode()
    assert "Clasificación" in spanish and ">Rank<" not in spanish
    assert ">Total: aún no cuenta ninguna ronda<" in spanish
    assert ">Rank<" in client.get(f"/en/t/{tournament.slug}/").content.decode()
    play(stage, table, 2, [7, 0, 9])  # a new snapshot: a new table
    page = client.get(f"/en/t/{tournament.slug}/").content.decode()
    # The other table has reported nothing: the new round is shown, not yet counted.
    assert "2 of 4 results in." in page and 'round-col provisional">7<' in page


def test_the_standings_page_renders_its_table_when_the_cache_is_down(
    client, tournament, stage, take_cache_down
):
    play_stage(stage)
    take_cache_down()
    response = client.get(f"/en/t/{tournament.slug}/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "4 of 4 results in." in page
    assert page.index("Ann Baker") < page.index("Bob Ortiz") < page.index("Cy Young")


def test_every_visitor_gets_the_same_page_with_a_language_link_and_no_cookie(tournament, stage):
    play_stage(stage)
    pages = []
    for _ in range(2):  # the second visitor is served the page the first one's visit rendered
        visitor = Client(enforce_csrf_checks=True)
        response = visitor.get(f"/en/t/{tournament.slug}/")
        assert not response.cookies  # no CSRF token, no session: nothing of theirs in it
        page = response.content.decode()
        assert "csrfmiddlewaretoken" not in page
        # The language switch is a link to the same page in Spanish.
        assert f'<a href="/es/t/{tournament.slug}/" lang="es" hreflang="es">Español</a>' in page
        spanish = visitor.get(f"/es/t/{tournament.slug}/")
        assert "Clasificación" in spanish.content.decode() and not spanish.cookies
        assert f'<a href="/en/t/{tournament.slug}/" lang="en" hreflang="en">English</a>' in (
            spanish.content.decode()
        )
        pages.append(page)
    assert pages[0] == pages[1]


def test_a_signed_in_visitor_gets_a_page_of_their_own(client, tournament, stage, organiser):
    play_stage(stage)
    anonymous = client.get(f"/en/t/{tournament.slug}/").content.decode()
    assert "Sign in" in anonymous
    signed_in = Client()
    signed_in.force_login(organiser)
    page = signed_in.get(f"/en/t/{tournament.slug}/").content.decode()
    assert organiser.username in page and "Sign out" in page
    assert organiser.username not in client.get(f"/en/t/{tournament.slug}/").content.decode()
    # A query string is linked back to by the language link: such a page is rendered for it.
    with_query = client.get(f"/en/t/{tournament.slug}/?from=qr").content.decode()
    assert f'href="/es/t/{tournament.slug}/?from=qr"' in with_query
    # A signed-in person's switch keeps the choice (a cookie, for the pages without a language
    # in their address): the form, to the same page.
    assert f'name="next" type="hidden" value="/en/t/{tournament.slug}/"' in page


def test_closing_the_stage_shows_on_the_page_at_once(client, tournament, stage):
    play_stage(stage)
    first = client.get(f"/en/t/{tournament.slug}/")
    assert "This stage is over." not in first.content.decode()
    # Closed, before the worker seats what follows: the snapshot is the same, the page is not.
    Stage.objects.filter(pk=stage.pk).update(status="closed")
    again = client.get(f"/en/t/{tournament.slug}/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert again.status_code == 200 and "This stage is over." in again.content.decode()


def test_renaming_the_tournament_or_the_stage_shows_on_the_page_at_once(client, tournament, stage):
    play_stage(stage)
    first = client.get(f"/en/t/{tournament.slug}/")
    # Renamed in the admin: the snapshot is the same, the page is not (nor a phone's copy of it).
    Tournament.objects.filter(pk=tournament.pk).update(name='The "Lakeside" Rally, Peña')
    renamed = client.get(f"/en/t/{tournament.slug}/", HTTP_IF_NONE_MATCH=first["ETag"])
    assert renamed.status_code == 200
    assert "The &quot;Lakeside&quot; Rally, Peña" in renamed.content.decode()
    Stage.objects.filter(pk=stage.pk).update(name="Heats")
    again = client.get(f"/en/t/{tournament.slug}/", HTTP_IF_NONE_MATCH=renamed["ETag"])
    assert again.status_code == 200 and "Heats" in again.content.decode()
    assert (
        client.get(f"/en/t/{tournament.slug}/", HTTP_IF_NONE_MATCH=again["ETag"]).status_code == 304
    )


def test_a_division_added_renamed_moved_or_removed_shows_on_the_standings_at_once(
    client, tournament, stage
):
    # The standings' division switch lists the divisions: an organiser's change must reach the
    # page (and a phone's or the cache's copy of it) before the next result does.
    play_stage(stage)
    url = f"/en/t/{tournament.slug}/"
    first = client.get(url)
    seniors = create_division(tournament=tournament, name="Seniors")
    added = client.get(url, HTTP_IF_NONE_MATCH=first["ETag"])
    assert added.status_code == 200 and ">Seniors</a>" in added.content.decode()
    assert client.get(url).content == added.content  # the page kept for everyone is the new one
    update_division(division=seniors, changes={"name": "Seniors 65+"})
    renamed = client.get(url, HTTP_IF_NONE_MATCH=added["ETag"])
    assert renamed.status_code == 200 and ">Seniors 65+</a>" in renamed.content.decode()
    juniors = create_division(tournament=tournament, name="Juniors")
    both = client.get(url)
    assert move_division(division=juniors, up=True).order == 1
    moved = client.get(url, HTTP_IF_NONE_MATCH=both["ETag"])
    page = moved.content.decode()
    assert moved.status_code == 200 and page.index(">Juniors</a>") < page.index(">Seniors 65+</a>")
    remove_division(division=seniors)
    removed = client.get(url, HTTP_IF_NONE_MATCH=moved["ETag"])
    assert removed.status_code == 200 and "Seniors" not in removed.content.decode()
    assert client.get(url, HTTP_IF_NONE_MATCH=removed["ETag"]).status_code == 304


def test_table_sheet_shows_confirmed_rounds_only(client, tournament, stage):
    players = list(Player.objects.filter(tournament=tournament).order_by("number"))[:3]
    play(stage, players, 1, [0, 12, 30])
    play(stage, players, 2, [44, 0, 7], status="submitted")
    page = client.get(f"/en/t/{tournament.slug}/tables/1/1/").content.decode()
    assert "1 (double-12)" in page and "2 (double-11)" in page
    assert '<td class="num">30' in page
    assert '<td class="num">44' not in page  # round 2 is still being checked
    assert client.get(f"/en/t/{tournament.slug}/tables/1/9/").status_code == 404


def test_player_page_shows_the_seat_now_and_round_scores(client, tournament, stage):
    play_stage(stage)
    player = Player.objects.get(tournament=tournament, name="Bob Ortiz")
    page = client.get(f"/en/t/{tournament.slug}/players/{player.number}/").content.decode()
    assert "Now: Qualifying, <strong>table 1</strong>, seat 2" in page
    # Both tables' winners lead; Bob and Di, second at their tables on the same total, share
    # third place, shown as the standings show it.
    assert 'Rank 3<span aria-hidden="true">=</span> overall, 2 at the table' in page
    assert 'hx-trigger="every 15s"' in page  # keeps itself current, like the standings
    assert '<span class="badge">out</span>' not in page  # Bob, in seat 2, never went out
    winner = Player.objects.get(tournament=tournament, name="Ann Baker")  # seat 1 goes out
    won = client.get(f"/en/t/{tournament.slug}/players/{winner.number}/").content.decode()
    assert won.count('0 <span class="badge">out</span>') == stage.rounds


def test_a_player_page_takes_the_same_few_queries_for_one_stage_or_two(client, tournament, stage):
    play_stage(stage)
    final = factories.StageFactory(
        tournament=tournament, name="Final", rounds=2, status="seated", order=2
    )
    finalist = Player.objects.get(tournament=tournament, name="Ann Baker")
    table = factories.TableFactory(stage=final, number=1)
    factories.SeatFactory(table=table, player=finalist, position=1)
    once = Player.objects.get(tournament=tournament, name="Cy Young")
    client.get(f"/en/t/{tournament.slug}/")  # the tournament's time zone, kept for 30 s
    counts, pages = [], []
    for player in (once, finalist):
        path = f"/en/t/{tournament.slug}/players/{player.number}/"
        with CaptureQueriesContext(connection) as queries:
            pages.append(page := client.get(path).content.decode())
        counts.append(len(queries))
    assert "Now: Final, <strong>table 1</strong>, seat 1" in page  # Ann's, the latest stage first
    headings = [page.index(f'<h2 id="stage-{stage_id}">') for stage_id in (final.pk, stage.pk)]
    assert headings == sorted(headings), headings  # the final's section above the qualifying's
    # The player with their tournament and whether its last stage places everyone (the
    # pages' menu), their seats with their stages and the stages' snapshots, their placing (the
    # page's version: an unchanged page stops there), their standing rows and the rounds they
    # went out in.
    assert counts == [5, 5], counts
    # The snapshot, read with the seat, ranks every round played: none is marked provisional.
    assert "overall" in pages[0] and "provisional" not in pages[0]


def test_a_tied_player_page_shows_the_shared_place_as_the_standings_do(client, tournament, stage):
    play_stage(stage)
    player = Player.objects.get(tournament=tournament, name="Bob Ortiz")
    standings = client.get(f"/en/t/{tournament.slug}/").content.decode()
    assert standings.count('3<span aria-hidden="true">=</span>') == 2  # Bob and Di
    page = client.get(f"/en/t/{tournament.slug}/players/{player.number}/").content.decode()
    assert 'Rank 3<span aria-hidden="true">=</span> overall, 2 at the table' in page
    assert (
        '<span class="visually-hidden"> (tied)</span>' in page
    )  # the "=" is not read out; this is
    spanish = client.get(f"/es/t/{tournament.slug}/players/{player.number}/").content.decode()
    assert 'Puesto 3<span aria-hidden="true">=</span> en general, 2 en la mesa' in spanish
    # Separated (as a tie-break decision does), and tied at the table instead.
    StandingRow.objects.filter(stage=stage, player=player).update(tied=False, table_tied=True)
    page = client.get(f"/en/t/{tournament.slug}/players/{player.number}/").content.decode()
    assert 'Rank 3 overall, 2<span aria-hidden="true">=</span> at the table' in page


def test_find_a_player_by_number_or_name(client, tournament, stage):
    by_number = client.get(f"/en/t/{tournament.slug}/players/", {"q": "#2"})
    assert by_number.status_code == 302
    assert by_number["Location"] == f"/en/t/{tournament.slug}/players/2/"
    by_name = client.get(f"/en/t/{tournament.slug}/players/", {"q": "peñ"}).content.decode()
    assert "Di Peña" in by_name and "Ann Baker" not in by_name
    nobody = client.get(f"/en/t/{tournament.slug}/players/", {"q": "Zed"}).content.decode()
    assert "Nobody matches" in nobody
    no_badge = client.get(f"/en/t/{tournament.slug}/players/", {"q": "99"}).content.decode()
    assert "No player has badge number 99" in no_badge and "Try the badge number" not in no_badge


def test_find_a_player_lists_the_first_matches_by_name_and_says_there_are_more(
    client, tournament, stage
):
    for n in range(100, 160):
        factories.PlayerFactory(tournament=tournament, number=n, name=f"Smith {160 - n:02d}")
    page = client.get(f"/en/t/{tournament.slug}/players/", {"q": "smith " * 300}).content.decode()
    assert "The first 50 matches, by name: add a word to narrow them down." in page
    assert "Smith 01" in page and "Smith 50" in page and "Smith 51" not in page
    # A badge number too long for any player is no player, not a shorter number.
    long = client.get(f"/en/t/{tournament.slug}/players/", {"q": "#0000000000000000001"})
    assert "No player has badge number" in long.content.decode()


@pytest.mark.parametrize("query", ["pena", "PEÑA", "di pena", "pena di", "DI  PEÑA"])
def test_find_a_player_without_accents_case_or_the_names_order(client, tournament, stage, query):
    page = client.get(f"/en/t/{tournament.slug}/players/", {"q": query}).content.decode()
    assert "Di Peña" in page and "Ann Baker" not in page


def test_projector_pages_through_the_standings(client, tournament):
    stage = factories.StageFactory(tournament=tournament, rounds=1, status="seated", order=1)
    seat_tables(stage, [[f"P{t:02}{s}" for s in range(3)] for t in range(12)])  # 36 players
    first = client.get(f"/en/t/{tournament.slug}/screen/").content.decode()
    assert "page 1 of 2" in first and "?page=2" in first
    # A page is 30 players in two columns of 15, each a table of its own.
    assert first.count('<table class="screen-table') == 2
    assert first.count('<td class="name">') == 30
    second = client.get(f"/en/t/{tournament.slug}/screen/?page=2", HTTP_HX_REQUEST="true")
    second = second.content.decode()
    assert "page 2 of 2" in second and "?page=1" in second
    assert second.count('<table class="screen-table') == 1
    assert second.count('<td class="name">') == 6


@pytest.mark.django_db(transaction=True)
def test_pages_of_a_stage_whose_first_snapshot_a_worker_is_building_show_it_coming(
    tournament, client, require_postgres
):
    """Seated a moment ago, its first rebuild running in a worker (holding the stage's lock): the
    public pages wait for nothing and say the standings are on their way, not a server error."""
    import psycopg
    from django.db import connection

    from scoring.models import StageStandings
    from scoring.standings.locks import REBUILD_LOCK
    from tests.scoring.helpers import seat_tables

    stage = factories.StageFactory(tournament=tournament, order=1, status="seated")
    seat_tables(stage, [["Ann", "Bob", "Cy"]])
    StageStandings.objects.filter(stage=stage).delete()
    settings = connection.settings_dict
    worker = psycopg.connect(
        host=settings["HOST"], port=settings["PORT"] or 5432, user=settings["USER"],
        dbname=settings["NAME"], password=settings["PASSWORD"] or None,
    )  # fmt: skip
    try:
        worker.execute("SELECT pg_advisory_xact_lock(%s, %s)", [REBUILD_LOCK, stage.pk])
        for path in ("", "screen/"):
            response = client.get(f"/en/t/{tournament.slug}/{path}")
            assert response.status_code == 200, path
    finally:
        worker.rollback()
        worker.close()
