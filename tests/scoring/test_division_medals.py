"""Divisions at the end of an event: everyone placed overall, each division's players placed
among themselves, and its first three given gold, silver and bronze: on the API, placings.csv,
the results page, the podium, the certificates and the player's page. A player of no division
is placed among the others of none."""

import csv
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring.models import Placing, StandingRow
from scoring.rules.medals import medal, places_in_groups
from tests.scoring.helpers import close, play_stage, playoff, qualifying_with_tables
from tournaments.models import Division, Player, Tournament


def test_places_in_a_group_follow_the_overall_places_and_ties_share_them():
    placed = [("a", 1, "x"), ("b", 2, "y"), ("c", 3, "x"), ("d", 3, "x"), ("e", 5, "x"),
              ("f", 6, None), ("g", 7, "y")]  # fmt: skip
    assert places_in_groups(placed) == {
        "a": 1, "c": 2, "d": 2, "e": 4,  # x: tied third overall are both second, then fourth
        "b": 1, "g": 2,  # y
        "f": 1,  # of no division: first of their own group
    }  # fmt: skip
    assert [medal(n) for n in (1, 2, 3, 4, None)] == ["gold", "silver", "bronze", None, None]


@given(
    st.lists(
        st.tuples(st.integers(1, 30), st.sampled_from(["x", "y", None])), min_size=1, max_size=40
    )
)
def test_a_place_in_a_group_is_one_more_than_the_group_players_placed_strictly_ahead(rows):
    placed = [(index, place, group) for index, (place, group) in enumerate(rows)]
    places = places_in_groups(placed)
    for player, place, group in placed:
        ahead = sum(1 for _, other, g in placed if g == group and other < place)
        assert places[player] == ahead + 1


@pytest.fixture
def senior_games(tournament, as_organiser):
    """Twelve players at three tables of four in one game placed by total, in divisions 60-69
    and 70-79 (five each) and two of none; every total different."""
    stage = qualifying_with_tables(tournament, [4, 4, 4], decides_placings=True)
    sixties = Division.objects.create(tournament=tournament, name="60-69", age_min=60, age_max=69)
    seventies = Division.objects.create(
        tournament=tournament, name="70-79", age_min=70, age_max=79, order=2
    )
    players = list(Player.objects.filter(tournament=tournament).order_by("number"))
    for player in players[:5]:
        player.division = sixties
        player.save()
    for player in players[5:10]:
        player.division = seventies
        player.save()
    # Seat k at table t scores 7k + t + round: distinct totals, seat 1 of table 1 lowest.
    play_stage(stage, lambda seat, round_no: 7 * seat.position + seat.table.number + round_no)
    closed = close(as_organiser, stage)
    assert closed.status_code == 202  # three tables, and no playoff follows:
    assert closed.json()["detail"] == "Qualifying is closed. The placings are decided now."
    return stage


def expected_medals(stage) -> dict[str | None, list[str]]:
    """Worked out apart from the code: each division's players by total, the three lowest."""
    rows = StandingRow.objects.filter(stage=stage).select_related("player__division")
    groups: dict[str | None, list] = {}
    for row in rows:
        division = row.player.division.name if row.player.division else None
        groups.setdefault(division, []).append((row.total, row.player.name))
    return {division: [name for _, name in sorted(group)[:3]] for division, group in groups.items()}


@pytest.mark.django_db(transaction=True)
def test_each_division_has_its_gold_silver_and_bronze_by_the_lowest_totals(senior_games, anon):
    expected = expected_medals(senior_games)
    body = anon.get(f"/api/v1/tournaments/{senior_games.tournament.slug}/placings/").json()
    assert len(body) == 12 and [p["place"] for p in body] == list(range(1, 13))
    won = {}
    for placing in body:
        if placing["medal"]:
            won.setdefault(placing["division"], {})[placing["medal"]] = placing["player"]["name"]
    for division, names in expected.items():  # the two of no division: gold and silver only
        assert [won[division][m] for m in ("gold", "silver", "bronze")[: len(names)]] == names
    # A player of no division is placed among the others of none, never in a division's medals.
    nobody = [p for p in body if p["division"] is None]
    assert len(nobody) == 2 and sorted(p["division_place"] for p in nobody) == [1, 2]
    assert {p["division"] for p in body} == {"60-69", "70-79", None}


@pytest.mark.django_db(transaction=True)
def test_placings_csv_says_the_division_its_place_and_the_medal(senior_games, as_organiser):
    slug = senior_games.tournament.slug
    response = as_organiser.get(f"/api/v1/tournaments/{slug}/exports/placings.csv")
    rows = list(
        csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig")))
    )
    assert list(rows[0]) == [
        "place", "number", "name", "division", "division_place", "medal", "went_out_in", "total",
    ]  # fmt: skip
    for division, names in expected_medals(senior_games).items():
        mine = [r for r in rows if r["division"] == (division or "")]
        by_medal = {r["medal"]: r["name"] for r in mine if r["medal"]}
        assert [by_medal[m] for m in ("gold", "silver", "bronze")[: len(names)]] == names
    placing = Placing.objects.get(player__name=rows[0]["name"])
    assert (
        rows[0]["place"] == "1"
        and int(rows[0]["total"])
        == StandingRow.objects.get(stage=senior_games, player=placing.player).total
    )


@pytest.mark.django_db(transaction=True)
def test_the_pages_show_each_divisions_medallists(senior_games, client):
    slug = senior_games.tournament.slug
    expected = expected_medals(senior_games)
    results = client.get(f"/en/t/{slug}/results/").content.decode()
    for division in ("60-69", "70-79"):
        section = results.split(f"Division {division}</h2>")[1].split("</section>")[0]
        for medal_name, name in zip(("Gold", "Silver", "Bronze"), expected[division], strict=True):
            row = section.split(name)[0].rsplit("<tr>", 1)[1]
            assert medal_name in row
    assert "No division</h2>" in results and "Overall placings" in results
    standings = client.get(f"/en/t/{slug}/").content.decode()
    podium = standings.split('class="podium"')[1].split("</section>")[0]
    assert "Division 60-69" in podium and "Division 70-79" in podium
    for names in expected.values():
        assert all(name in podium for name in names)
    certificates = client.get(f"/en/t/{slug}/results/certificates/").content.decode()
    gold = expected["70-79"][0]
    certificate = certificates.split(f'aria-label="{gold}')[1].split("</article>")[0]
    assert "Gold · 1st place in division 70-79" in certificate
    # Three in each of the two divisions and the two of none.
    assert certificates.count('class="certificate"') == 3 + 3 + 2
    number = Player.objects.get(name=gold).number
    player = client.get(f"/en/t/{slug}/players/{number}/").content.decode()
    assert "In division 70-79: 1" in player and "Gold medal" in player


@pytest.mark.django_db(transaction=True)
def test_without_divisions_the_medals_are_the_first_three_overall(tournament, as_organiser, anon):
    stage = qualifying_with_tables(tournament, [3, 3], decides_placings=True)
    play_stage(stage, lambda seat, round_no: 3 * seat.position + seat.table.number)
    assert close(as_organiser, stage).status_code == 202
    body = anon.get(f"/api/v1/tournaments/{tournament.slug}/placings/").json()
    assert [(p["place"], p["division_place"], p["medal"]) for p in body[:4]] == [
        (1, 1, "gold"), (2, 2, "silver"), (3, 3, "bronze"), (4, 4, None),
    ]  # fmt: skip
    assert all(p["division"] is None for p in body)


@pytest.mark.django_db(transaction=True)
def test_a_divisions_standings_rank_its_players_among_themselves(senior_games, client, anon):
    tournament = senior_games.tournament
    seventies = Division.objects.get(tournament=tournament, name="70-79")
    rows = anon.get(f"/api/v1/stages/{senior_games.pk}/standings/").json()["rows"]
    mine = [row for row in rows if row["division"] == "70-79"]
    assert len(mine) == 5 and {row["division"] for row in rows} == {"60-69", "70-79", None}
    page = client.get(f"/en/t/{tournament.slug}/?division={seventies.pk}").content.decode()
    assert "Qualifying: division 70-79" in page
    table = page.split('<table class="standings">')[1].split("</table>")[0]
    for place, row in enumerate(mine, start=1):  # every total differs: ranks 1 to 5
        assert row["player"]["name"] in table
        line = table.split(row["player"]["name"])[0].rsplit("<tr", 1)[1]
        assert f'<td class="num">{place}' in line
    others = [row["player"]["name"] for row in rows if row["division"] != "70-79"]
    assert not any(f">{name}</a>" in table for name in others)
    # The switch names every division and everyone; a division the event lacks is a 404.
    everyone = client.get(f"/en/t/{tournament.slug}/").content.decode()
    assert f"?division={seventies.pk}" in everyone and "Everyone" in everyone
    assert client.get(f"/en/t/{tournament.slug}/?division=999999").status_code == 404
    assert client.get(f"/en/t/{tournament.slug}/?division=x").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_a_player_moved_to_another_division_shows_in_it_at_once(senior_games, client):
    """The division's page reads its players of now, not the names in the snapshot kept before
    the move (nothing is rebuilt when a player changes division)."""
    tournament = senior_games.tournament
    sixties = Division.objects.get(tournament=tournament, name="60-69")
    seventies = Division.objects.get(tournament=tournament, name="70-79")
    moved = Player.objects.filter(division=sixties).order_by("number").first()
    before = client.get(f"/en/t/{tournament.slug}/?division={seventies.pk}")
    assert f">{moved.name}</a>" not in before.content.decode()
    moved.division = seventies
    moved.save()
    after = client.get(
        f"/en/t/{tournament.slug}/?division={seventies.pk}", HTTP_IF_NONE_MATCH=before["ETag"]
    )
    assert after.status_code == 200  # not a 304 of the page before the move
    assert f">{moved.name}</a>" in after.content.decode()
    sixties_page = client.get(f"/en/t/{tournament.slug}/?division={sixties.pk}").content.decode()
    assert f">{moved.name}</a>" not in sixties_page.split('<table class="standings">')[1]


@pytest.mark.django_db(transaction=True)
def test_a_player_who_withdrew_wins_no_medal_and_the_next_takes_it(
    tournament, as_organiser, anon, client
):
    """A division of three whose best player withdrew after the last round: the two who played
    on win gold and silver, nobody bronze; the one who left is placed overall, in no place of
    the division, on the API, the results page and their own page."""
    stage = qualifying_with_tables(tournament, [4, 4, 4], decides_placings=True)
    eighties = Division.objects.create(tournament=tournament, name="80+", age_min=80)
    trio = list(Player.objects.filter(tournament=tournament).order_by("number")[:3])
    for player in trio:
        player.division = eighties
        player.save()
    play_stage(stage, lambda seat, round_no: 7 * seat.position + seat.table.number + round_no)
    by_total = sorted(trio, key=lambda p: StandingRow.objects.get(stage=stage, player=p).total)
    leaving = by_total[0]
    withdrawn = as_organiser.post(
        f"/api/v1/tournaments/{tournament.slug}/players/{leaving.pk}/withdraw/"
    )
    assert withdrawn.status_code == 200, withdrawn.json()
    assert close(as_organiser, stage).status_code == 202
    body = anon.get(f"/api/v1/tournaments/{tournament.slug}/placings/").json()
    mine = {p["player"]["id"]: p for p in body if p["division"] == "80+"}
    assert (mine[leaving.pk]["division_place"], mine[leaving.pk]["medal"]) == (None, None)
    assert [(mine[p.pk]["division_place"], mine[p.pk]["medal"]) for p in by_total[1:]] == [
        (1, "gold"),
        (2, "silver"),
    ]
    assert mine[leaving.pk]["place"] == 12  # placed overall, after everyone who played on
    page = client.get(f"/en/t/{tournament.slug}/players/{leaving.number}/").content.decode()
    assert "Final place: 12" in page and "In division 80+" not in page and "medal" not in page
    results = client.get(f"/en/t/{tournament.slug}/results/").content.decode()
    rows = [row for row in results.split("<tr>") if f"/players/{leaving.number}/" in row]
    assert any("<strong>\u2013</strong>" in row for row in rows)  # in the division's table
    assert "None" not in results


@pytest.mark.django_db(transaction=True)
def test_an_event_placed_by_total_has_final_placings_not_playoffs(tournament, as_organiser, client):
    stage = qualifying_with_tables(tournament, [4, 4], decides_placings=True)
    page = client.get(f"/en/t/{tournament.slug}/bracket/").content.decode()
    assert "The playoffs have not started yet" not in page
    assert "This tournament has no playoffs: when its last stage closes, everyone is placed" in page
    assert f"<h1>{tournament.name}: final placings</h1>" in page
    standings = client.get(f"/en/t/{tournament.slug}/").content.decode()
    assert f'<a href="/en/t/{tournament.slug}/bracket/">Final placings</a>' in standings
    spanish = client.get(f"/es/t/{tournament.slug}/").content.decode()
    assert f'<a href="/es/t/{tournament.slug}/bracket/">Clasificación final</a>' in spanish
    play_stage(stage)
    assert close(as_organiser, stage).status_code == 202
    placed = client.get(f"/en/t/{tournament.slug}/bracket/").content.decode()
    assert '<ol class="placings">' in placed and "This tournament has no playoffs" not in placed
    assert "playoffs" not in placed.lower().split("<main", 1)[1]


def test_a_stage_added_later_renames_the_menus_link_on_the_standings_at_once(tournament, client):
    # The standings page is kept by its version (the snapshot, the names); a stage added after
    # the last one, which decides whether a playoff follows, changes that version too, with no
    # result entered and no rebuild.
    qualifying_with_tables(tournament, [4, 4], decides_placings=True)
    link = '<a href="/en/t/{}/bracket/">{}</a>'
    home = f"/en/t/{tournament.slug}/"
    for _ in range(2):  # the second from the kept page
        assert link.format(tournament.slug, "Final placings") in client.get(home).content.decode()
    playoff(tournament, order=2)
    assert not Tournament.objects.get(pk=tournament.pk).placed_by_total
    page = client.get(home).content.decode()
    assert link.format(tournament.slug, "Playoffs") in page
    fragment = client.get(home, HTTP_HX_REQUEST="true")
    again = client.get(home, HTTP_HX_REQUEST="true", HTTP_IF_NONE_MATCH=fragment["ETag"])
    assert again.status_code == 304  # the same version: the fast path's and the full render's


def test_an_event_with_playoffs_still_says_playoffs(tournament, client):
    qualifying_with_tables(tournament, [4, 4])
    page = client.get(f"/en/t/{tournament.slug}/bracket/").content.decode()
    assert "The playoffs have not started yet" in page
    assert f'<a href="/en/t/{tournament.slug}/bracket/">Playoffs</a>' in page
