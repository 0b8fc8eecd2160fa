"""What the organisers change outside the results reaches the public pages at once: a page's
version (its ETag, the copies kept in Redis and by the cache in front) names the snapshot, so
each of these changes asks for a new one. A phone holding the old page gets the new one, never
a 304 for what it no longer is."""

import pytest
from django.test import Client
from django.urls import reverse

from scoring import standings
from scoring.models import Placing, RoundResult, Score, StageStandings, StandingRow
from tables.models import Seat
from tables.services import withdraw_player
from tests import factories
from tests.admin_forms import change_form
from tests.scoring.helpers import (
    close,
    final_of_two,
    finished_event,
    play,
    play_stage,
    qualifying_of_six,
    seat_tables,
)
from tournaments.models import Player, Stage, Tournament
from tournaments.services.players import update_player
from tournaments.services.stage_changes import create_stage, remove_stage, update_stage
from tournaments.services.tournaments import update_details

pytestmark = pytest.mark.django_db(transaction=True)


def fetch_again(url: str, held) -> str:
    """The page for a visitor (or cache) holding `held`: new, not a 304."""
    again = Client().get(url, HTTP_IF_NONE_MATCH=held["ETag"])
    assert again.status_code == 200, url
    return again.content.decode()


@pytest.fixture
def qualifying(tournament):
    stage = factories.StageFactory(
        tournament=tournament, order=1, rounds=2, starting_double=12, status="seated",
        advance_per_table=1,
    )  # fmt: skip
    seat_tables(stage, [["Ann", "Bob", "Cy"], ["Di", "Eve", "Fay"]])
    return stage


def test_rounds_and_starting_double_changed_before_play_show_on_the_sheet_and_standings(
    tournament, qualifying
):
    # Announced on the day (the Samboree rules): a seated stage's rounds and starting double
    # change until its first result. The sheet's rows and the standings' columns follow.
    sheet_url = f"/en/t/{tournament.slug}/tables/1/1/"
    home = f"/en/t/{tournament.slug}/"
    sheet, standings = Client().get(sheet_url), Client().get(home)
    assert "1 (double-12)" in sheet.content.decode() and "3 (double-" not in sheet.content.decode()
    update_stage(stage=qualifying, changes={"rounds": 3, "starting_double": 9})
    page = fetch_again(sheet_url, sheet)
    assert "1 (double-9)" in page and "3 (double-7)" in page
    assert "0 of 6 results in" in fetch_again(home, standings)


def test_a_later_qualifying_stage_added_or_removed_changes_who_would_advance(
    tournament, qualifying, organiser
):
    play_stage(qualifying)
    home = f"/en/t/{tournament.slug}/"
    before = Client().get(home)
    advancing = before.content.decode().count("✓ advances")
    assert advancing > 0  # the table winners, to a playoff
    # Everyone plays a second qualifying stage: nobody advances from this one.
    later = create_stage(
        tournament=tournament, name="Afternoon", kind="qualifying", rounds=2, starting_double=12,
        table_size_min=3, table_size_max=4,
    )  # fmt: skip
    assert "advances" not in fetch_again(home, before).replace(">Advances<", "")
    held = Client().get(home)
    remove_stage(stage=later)
    assert fetch_again(home, held).count("✓ advances") == advancing


def test_a_medallist_renamed_shows_on_the_podium_though_not_seated_in_the_final(
    tournament, as_organiser, organiser
):
    finished_event(tournament, as_organiser)
    home = f"/en/t/{tournament.slug}/"
    final = Stage.objects.get(tournament=tournament, order=2)
    # Two share the bronze: each went out in the qualifying stage.
    bronze = Placing.objects.filter(tournament=tournament, place=3).first().player
    assert not final.seats.filter(player=bronze).exists()
    held = Client().get(home)
    assert bronze.name in held.content.decode()
    update_player(player=bronze, number=bronze.number, name="Renamed Bronze", by=organiser)
    page = fetch_again(home, held)
    assert "Renamed Bronze" in page and bronze.name not in page


def test_a_new_time_zone_shows_the_standings_time_in_it(tournament, qualifying, organiser):
    play_stage(qualifying)
    home = f"/en/t/{tournament.slug}/"
    held = Client().get(home)
    update_details(tournament=tournament, by=organiser, time_zone="Asia/Tokyo")
    assert "+09:00" in fetch_again(home, held)  # the <time datetime=...> of "Updated"


@pytest.fixture
def superuser_client(client):
    client.force_login(factories.UserFactory(is_staff=True, is_superuser=True))
    return client


def test_an_earlier_stage_renamed_in_the_admin_shows_in_the_stage_switch(
    tournament, qualifying, as_organiser, superuser_client
):
    play_stage(qualifying)
    assert as_organiser.post(f"/api/v1/stages/{qualifying.pk}/close/").status_code == 202
    assert Stage.objects.get(tournament=tournament, order=2).status == "seated"  # the playoff
    home = f"/en/t/{tournament.slug}/"
    held = Client().get(home)
    change = reverse("admin:tournaments_stage_change", args=[qualifying.pk])
    body = change_form(superuser_client.get(change)) | {"name": "Morning Session"}
    assert superuser_client.post(change, body).status_code == 302
    assert ">Morning Session</a>" in fetch_again(home, held)
    # A closed stage's standings stand as they were: who advanced from it to the playoff. The
    # setting they were decided by is refused, as in the console.
    advanced = advancing(qualifying)
    body = change_form(superuser_client.get(change)) | {"advance_per_table": 2}
    assert superuser_client.post(change, body).status_code == 200
    assert Stage.objects.get(pk=qualifying.pk).advance_per_table == 1
    assert advancing(qualifying) == advanced


def advancing(stage) -> set[int]:
    return set(
        StandingRow.objects.filter(stage=stage, advances=True).values_list("player", flat=True)
    )


def test_a_stage_saved_unchanged_tells_no_phone_to_fetch_again(tournament, qualifying):
    # The settings form posts every setting: saved as they are, nothing is rebuilt and no
    # phone is told to fetch every page again.
    standings.request_rebuild(qualifying)  # (its snapshot made: a change would be a new one)
    sheet = f"/en/t/{tournament.slug}/tables/1/1/"
    held = Client().get(sheet)
    built = StageStandings.objects.get(stage=qualifying).built_seq
    same = {field: getattr(qualifying, field) for field in ("name", "rounds", "starting_double")}
    update_stage(stage=qualifying, changes=same)
    assert StageStandings.objects.get(stage=qualifying).built_seq == built
    assert Client().get(sheet, HTTP_IF_NONE_MATCH=held["ETag"]).status_code == 304
    update_stage(stage=qualifying, changes={**same, "rounds": 3})
    assert Client().get(sheet, HTTP_IF_NONE_MATCH=held["ETag"]).status_code == 200


# ---- a player's page: its version is read in three queries ---------------------------------


def player_url(player) -> str:
    return f"/en/t/{player.tournament.slug}/players/{player.number}/"


def at_table(stage, number: int) -> list:
    """The players of a table, by badge number (its seats' order)."""
    seats = Seat.objects.filter(stage=stage, table__number=number)
    return sorted((seat.player for seat in seats), key=lambda p: p.number)


def test_an_unchanged_player_page_is_a_304_in_three_queries(
    tournament, qualifying, django_assert_num_queries
):
    # The phones' safety polls, and the cache in front revalidating: the player with the
    # tournament, their seats with the stages and snapshots, their placing; nothing drawn.
    ann = qualifying.seats.get(position=1, table__number=1).player
    held = Client().get(player_url(ann))
    with django_assert_num_queries(3):
        again = Client().get(player_url(ann), HTTP_IF_NONE_MATCH=held["ETag"])
    assert again.status_code == 304


def test_another_tables_round_that_moves_nothing_of_a_player_leaves_their_page_as_it_was(
    tournament, qualifying
):
    # Ranked like with like: table 2's second round counts once table 1 has played it too.
    # Until then nothing on Ann's page moves, and a phone polling it gets a 304.
    one, two = at_table(qualifying, 1), at_table(qualifying, 2)
    play(qualifying, one, 1, [0, 5, 9])
    play(qualifying, two, 1, [0, 3, 6])
    held = Client().get(player_url(one[0]))
    play(qualifying, two, 2, [4, 0, 2])
    assert Client().get(player_url(one[0]), HTTP_IF_NONE_MATCH=held["ETag"]).status_code == 304
    assert Client().get(player_url(one[0])).content == held.content
    play(qualifying, one, 2, [3, 0, 7])  # now round 2 counts: her rank and total move
    assert "Ranked on" not in fetch_again(player_url(one[0]), held)


def test_a_round_submitted_not_yet_confirmed_leaves_the_players_page_as_it_was(
    tournament, qualifying
):
    one = at_table(qualifying, 1)
    standings.request_rebuild(qualifying)  # (the stage's first snapshot)
    held = Client().get(player_url(one[0]))
    # The public pages show confirmed rounds only; the snapshot is built anew all the same.
    result = play(qualifying, one, 1, [17, 0, 9], status="submitted")
    assert Client().get(player_url(one[0]), HTTP_IF_NONE_MATCH=held["ETag"]).status_code == 304
    result.status, result.confirmed_by = RoundResult.Status.CONFIRMED, result.submitted_by
    result.save()  # (as the confirmation saves it)
    standings.request_rebuild(qualifying, results=True)
    assert '<td class="num provisional">17 ' in fetch_again(player_url(one[0]), held)


def test_a_player_named_in_a_tie_break_renamed_shows_on_the_other_players_page(
    tournament, qualifying, organiser
):
    one, two = at_table(qualifying, 1), at_table(qualifying, 2)
    play(qualifying, one, 1, [0, 5, 9])
    play(qualifying, one, 2, [5, 0, 9])  # Ann and Bob level on 5: a tie-break separates them
    play(qualifying, two, 1, [0, 3, 6])
    play(qualifying, two, 2, [4, 0, 2])
    held = Client().get(player_url(one[0]))
    assert "behind Bob" in held.content.decode()
    update_player(player=one[1], number=one[1].number, name="Robert Ortiz", by=organiser)
    assert "Robert Ortiz" in fetch_again(player_url(one[0]), held)


def confirm_own_table(stage, ann, organiser):
    play(stage, at_table(stage, 1), 2, [17, 0, 8])
    return '<td class="num provisional">17 '  # (not yet counted: table 2 has not played it)


def confirm_other_table(stage, ann, organiser):
    play(stage, at_table(stage, 2), 1, [0, 3, 6])
    return "Ranked on round 1, which every table has reported."


def rename(stage, ann, organiser):
    update_player(player=ann, number=ann.number, name="Annabel Ash", club="Lakeside", by=organiser)
    return "<h1>Annabel Ash"


def withdraw(stage, ann, organiser):
    withdraw_player(player=ann, by=organiser)
    return "Withdrawn from the tournament."


def more_rounds(stage, ann, organiser):
    Score.objects.all().delete()
    RoundResult.objects.all().delete()  # (before any result: announced on the day)
    update_stage(stage=stage, changes={"rounds": 3, "starting_double": 9})
    return "3 (double-7)"


def rename_event(stage, ann, organiser):
    Tournament.objects.filter(pk=stage.tournament_id).update(name="Lakeside Samboree")  # admin
    return "Lakeside Samboree"


@pytest.mark.parametrize(
    "change",
    [confirm_own_table, confirm_other_table, rename, withdraw, more_rounds, rename_event],
)
def test_a_player_page_is_a_new_version_after_each_change_it_shows(
    tournament, qualifying, organiser, change
):
    table_one = at_table(qualifying, 1)
    ann = table_one[0]
    play(qualifying, table_one, 1, [0, 5, 9])
    held = Client().get(player_url(ann))
    shown = change(qualifying, ann, organiser)
    ann.refresh_from_db()
    assert shown not in held.content.decode()
    assert shown in fetch_again(player_url(ann), held)


def test_a_player_page_follows_the_stages_closing_the_next_seating_and_the_placings(
    tournament, as_organiser
):
    first, final = qualifying_of_six(tournament), final_of_two(tournament)
    winner = Player.objects.get(tournament=tournament, number=1)
    url = player_url(winner)
    play_stage(first)
    held = Client().get(url)
    assert close(as_organiser, first).status_code == 202  # the final seated from it
    assert "Now: Gran final" in (page := fetch_again(url, held))
    held = Client().get(url)
    play_stage(final)
    assert close(as_organiser, final).status_code == 202
    assert "Final place: 1" not in page and "Final place: 1" in fetch_again(url, held)
