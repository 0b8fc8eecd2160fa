"""The "Find your table" page (scoring/find_your_table.py): every player who has not withdrawn,
A to Z by name ignoring accents and case, with their table and seat in the latest seated stage
or "Not seated"; a seat changed is a new version of the page, and an unchanged page a 304."""

import re
from datetime import date

import pytest
from django.test import Client

from scoring.find_your_table import NO_LETTER, chart, letter_of
from tables.services import add_late_player, withdraw_player
from tests import factories
from tests.scoring.helpers import seat_tables

pytestmark = pytest.mark.django_db

ROW = re.compile(
    r'<li><span class="wall-name"><bdi dir="auto">(?P<name>[^<]*)</bdi>.*?'
    r'<span class="wall-seat(?P<seat>[^"]*)">(?P<where>.*?)</span></li>',
    re.S,
)


def rows(response) -> list[tuple[str, str]]:
    """The page's lines, in order: (name, where), where "Table 2 · Seat 1" as it reads (the
    stylesheet puts the dot between the two) or "Not seated"."""
    html = response.content.decode()
    said = []
    for row in ROW.finditer(html):
        parts = re.findall(r"<span>([^<]*)</span>", row["where"]) or [row["where"]]
        said.append((row["name"], " · ".join(part.strip() for part in parts)))
    return said


def letters(response) -> list[str]:
    return re.findall(r'<h2 id="letter-\d+">([^<]*)</h2>', response.content.decode())


@pytest.fixture
def seated(tournament, stage):
    names = [["émile Zola", "Ángel Ruiz", "bob Marsh"], ["Zoë Adams", "Adam Ng"]]
    tables = seat_tables(stage, names)
    return stage, tables


def url(tournament, language="en", query=""):
    return f"/{language}/t/{tournament.slug}/find-your-table/{query}"


def test_every_player_a_to_z_ignoring_accents_and_case_with_their_table_and_seat(
    tournament, seated
):
    factories.PlayerFactory(tournament=tournament, number=40, name="Łukasz Nowak")
    factories.PlayerFactory(tournament=tournament, number=41, name="adam Ng")
    response = Client().get(url(tournament))
    assert response.status_code == 200
    assert rows(response) == [
        ("Adam Ng", "Table 2 · Seat 2"),
        ("adam Ng", "Not seated"),  # the same name but for its case: by badge number
        ("Ángel Ruiz", "Table 1 · Seat 2"),  # with the A's, not after the Z's
        ("bob Marsh", "Table 1 · Seat 3"),
        ("émile Zola", "Table 1 · Seat 1"),
        ("Łukasz Nowak", "Not seated"),
        ("Zoë Adams", "Table 2 · Seat 1"),
    ]
    assert letters(response) == ["A", "B", "E", "L", "Z"]


def test_the_page_is_in_spanish_with_names_marked_for_their_own_direction(tournament, seated):
    factories.PlayerFactory(tournament=tournament, number=40, name="דוד כהן")
    response = Client().get(url(tournament, "es"))
    html = response.content.decode()
    assert "Busque su mesa" in html
    assert ("Ángel Ruiz", "Mesa 1 · Asiento 2") in rows(response)
    assert ("דוד כהן", "Sin mesa") in rows(response)
    assert '<bdi dir="auto">דוד כהן</bdi>' in html
    assert letters(response)[-1] == "ד"  # a letter of its own script, after the Latin ones


def test_withdrawn_players_are_left_out(tournament, seated, organiser):
    _, tables = seated
    withdraw_player(player=tables[0][1], by=organiser)  # Ángel Ruiz
    names = [name for name, _ in rows(Client().get(url(tournament)))]
    assert "Ángel Ruiz" not in names
    assert names == ["Adam Ng", "bob Marsh", "émile Zola", "Zoë Adams"]


def test_a_late_player_seated_is_a_new_version_of_the_page(tournament, seated, organiser):
    stage, _ = seated
    late = factories.PlayerFactory(tournament=tournament, number=30, name="Carmen Peña")
    visitor = Client()
    before = visitor.get(url(tournament))
    assert ("Carmen Peña", "Not seated") in rows(before)
    etag = before["ETag"]
    again = visitor.get(url(tournament), HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304  # unchanged: the cache in front keeps its copy
    add_late_player(stage=stage, player=late, by=organiser)
    after = visitor.get(url(tournament), HTTP_IF_NONE_MATCH=etag)
    assert after.status_code == 200 and after["ETag"] != etag
    assert ("Carmen Peña", "Table 2 · Seat 3") in rows(after)  # the smallest table, with room
    assert "public" in after["Cache-Control"]


def test_a_name_corrected_or_a_seat_moved_changes_the_version(tournament, seated):
    _, tables = seated
    etag = Client().get(url(tournament))["ETag"]
    seat = tables[1][1].seats.get()
    seat.position = 3
    seat.save()
    moved = Client().get(url(tournament), HTTP_IF_NONE_MATCH=etag)
    assert moved.status_code == 200 and ("Adam Ng", "Table 2 · Seat 3") in rows(moved)
    player = tables[1][1]
    player.name = "Adam Nguyen"
    player.save()
    renamed = Client().get(url(tournament), HTTP_IF_NONE_MATCH=moved["ETag"])
    assert renamed.status_code == 200 and ("Adam Nguyen", "Table 2 · Seat 3") in rows(renamed)


def test_the_latest_seated_stage_and_an_earlier_one_by_choice(tournament, seated):
    stage, tables = seated
    stage.status = "closed"
    stage.save()
    final = factories.StageFactory(tournament=tournament, order=2, name="Final", status="seated")
    table = factories.TableFactory(stage=final, number=1)
    factories.SeatFactory(table=table, player=tables[0][1], position=4)  # Ángel Ruiz
    now = Client().get(url(tournament))
    assert ("Ángel Ruiz", "Table 1 · Seat 4") in rows(now)
    assert ("bob Marsh", "Not seated") in rows(now)
    assert "Final: every player by name" in now.content.decode()
    earlier = Client().get(url(tournament, query="?stage=1"))
    assert ("bob Marsh", "Table 1 · Seat 3") in rows(earlier)
    assert "This stage is over." in earlier.content.decode()
    assert earlier["ETag"] != now["ETag"]
    missing = Client().get(url(tournament, query="?stage=3"))
    assert missing.status_code == 404


def test_before_seating_everyone_is_not_seated(tournament):
    factories.PlayerFactory(tournament=tournament, number=1, name="Ruth Baker")
    response = Client().get(url(tournament))
    assert response.status_code == 200
    assert rows(response) == [("Ruth Baker", "Not seated")]
    assert "The tables have not been seated yet" in response.content.decode()


def test_a_long_list_opens_with_its_letter_index(tournament):
    for number, name in enumerate(["Ann", "Bea", "Cy", "Dot"] * 6, start=1):
        factories.PlayerFactory(tournament=tournament, number=number, name=f"{name} {number}")
    html = Client().get(url(tournament)).content.decode()
    index = re.search(r'<nav class="letter-index[^>]*>(.*?)</nav>', html, re.S)
    assert index is not None
    assert re.findall(r'<a href="#(letter-\d+)">(\w)</a>', index[1]) == [
        ("letter-1", "A"),
        ("letter-2", "B"),
        ("letter-3", "C"),
        ("letter-4", "D"),
    ]


def test_names_that_start_with_no_letter_come_last():
    assert letter_of("  ángel") == "A"
    assert letter_of("'t Hooft") == NO_LETTER
    grouped = chart([(1, 1, "9 Lives"), (2, 2, "zed"), (3, 3, "Ábel")], {2: (4, 1)})
    assert [(group.letter, [row.name for row in group.rows]) for group in grouped] == [
        ("A", ["Ábel"]),
        ("Z", ["zed"]),
        (NO_LETTER, ["9 Lives"]),
    ]
    assert grouped[1].rows[0].table == 4 and grouped[0].rows[0].table is None


def test_an_unknown_tournament_is_404():
    assert Client().get("/en/t/no-such-event/find-your-table/").status_code == 404


def test_the_standings_and_the_player_search_link_to_it(tournament, seated):
    target = f'href="/en/t/{tournament.slug}/find-your-table/"'
    for path in ("", "players/"):
        assert target in Client().get(f"/en/t/{tournament.slug}/{path}").content.decode(), path


def test_the_consoles_downloads_offer_the_wall_chart_and_the_calendar_once_days_are_set(
    client, organiser, tournament
):
    client.force_login(organiser)
    downloads = f"/t/{tournament.slug}/manage/downloads/"
    files = client.get(downloads).content.decode()
    assert f'href="/en/t/{tournament.slug}/find-your-table/">Find your table (wall chart)' in files
    assert "event.ics" not in files  # no days yet: no calendar to give
    tournament.starts_on = date(2027, 3, 5)
    tournament.save()
    assert f'href="/en/t/{tournament.slug}/event.ics"' in client.get(downloads).content.decode()
