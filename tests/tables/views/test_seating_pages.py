"""The organiser's seating pages go through the same services as the API: seating, reseating,
late players, withdrawals and reinstating."""

import pytest

from scoring.models import RoundResult
from tables.models import Seat
from tests import factories
from tests.tables.views.conftest import add_players

pytestmark = pytest.mark.django_db


def test_console_lists_stages_players_and_downloads(organiser_client, tournament, stage):
    add_players(tournament, 3)
    # Each in its section of the console: players first, then stages, then the files.
    page = organiser_client.get(f"/t/{tournament.slug}/manage/").content.decode()
    assert "3 entered: 0 checked in, 3 not checked in, 0 withdrawn" in page
    stages = organiser_client.get(f"/t/{tournament.slug}/manage/stages/").content.decode()
    assert "Qualifying" in stages
    files = organiser_client.get(f"/t/{tournament.slug}/manage/downloads/").content.decode()
    assert f"/api/v1/tournaments/{tournament.slug}/exports/seating.csv" in files


def test_seat_from_the_page_then_see_tables_and_pdf_link(organiser_client, tournament, stage):
    add_players(tournament, 10)
    response = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "4"}, follow=True
    )
    page = response.content.decode()
    assert "Seated 10 players at 3 tables (shuffle number 4)." in page
    assert "Table 3" in page
    assert f"/api/v1/stages/{stage.pk}/cards.pdf" in page
    assert Seat.objects.filter(stage=stage).count() == 10


def test_the_seat_button_says_who_will_be_seated_and_the_answer_who_was(
    organiser_client, tournament, stage
):
    players = add_players(tournament, 10)
    url = f"/t/{tournament.slug}/manage/stages/1/"
    page = organiser_client.get(url).content.decode()
    assert "Nobody has checked in yet: all 10 registered players will be seated." in page
    seated = organiser_client.post(f"{url}seat/", {"seed": "4"}, follow=True).content.decode()
    assert "Nobody had checked in, so every registered player was seated." in seated
    # Once anyone checks in, the page says who will be left out, before anyone is.
    organiser_client.post(f"{url}seat/", {"seed": "4"})  # (reseating a stage with no result)
    stage.tables.all().delete()
    stage.status = "pending"
    stage.save(update_fields=["status"])
    for player in players[:8]:
        player.status = "checked_in"
        player.save(update_fields=["status"])
    page = organiser_client.get(url).content.decode()
    assert "8 players are checked in and will be seated." in page
    assert "2 players have not checked in and will be left out" in page
    seated = organiser_client.post(f"{url}seat/", {"seed": "4"}, follow=True).content.decode()
    assert "Nobody had checked in" not in seated
    assert "2 players who had not checked in were left out: #9" in seated


def test_reseat_from_the_page_warns_and_needs_the_box_ticked(organiser_client, tournament, stage):
    add_players(tournament, 6)
    organiser_client.post(f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "1"})
    factories.RoundResultFactory(table=stage.tables.first(), stage=stage)
    page = organiser_client.get(f"/t/{tournament.slug}/manage/stages/1/").content.decode()
    assert "1 round result already entered will be discarded" in page
    refused = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "2"}, follow=True
    )
    assert "already has 1 round result." in refused.content.decode()
    assert RoundResult.objects.filter(stage=stage).exists()
    organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "2", "force": "on"}
    )
    assert not RoundResult.objects.filter(stage=stage).exists()


def test_bad_seed_is_reported_and_nothing_is_seated(organiser_client, tournament, stage):
    add_players(tournament, 6)
    response = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "-3"}, follow=True
    )
    assert "greater than or equal to 0" in response.content.decode()
    assert not stage.tables.exists()


def test_late_player_and_withdrawal_from_the_pages(organiser_client, tournament, stage):
    players = add_players(tournament, 7)
    organiser_client.post(f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "1"})
    latecomer = factories.PlayerFactory(tournament=tournament, number=80, name="Late Lucy")
    page = organiser_client.get(f"/t/{tournament.slug}/manage/stages/1/").content.decode()
    assert "#80 Late Lucy" in page
    response = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/late/", {"player": latecomer.pk}, follow=True
    )
    assert "#80 Late Lucy sits at table 2, seat 4, from round 1." in response.content.decode()
    response = organiser_client.post(
        f"/t/{tournament.slug}/manage/players/{players[0].pk}/withdraw/", follow=True
    )
    assert f"#1 {players[0].name} is withdrawn." in response.content.decode()
    players[0].refresh_from_db()
    assert players[0].status == "withdrawn"
    again = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/late/", {"player": latecomer.pk}, follow=True
    )
    assert "Choose a player who is not seated" in again.content.decode()


def test_a_seated_playoff_offers_no_late_player(organiser_client, tournament):
    final = factories.StageFactory(
        tournament=tournament, order=1, kind="playoff", status="seated", name="Final"
    )
    factories.TableFactory(stage=final, number=1)
    factories.PlayerFactory(tournament=tournament, number=5, name="Knocked Out")
    page = organiser_client.get(f"/t/{tournament.slug}/manage/stages/1/").content.decode()
    assert "Add a late player" not in page
    response = organiser_client.post(
        f"/t/{tournament.slug}/manage/stages/1/late/",
        {"player": tournament.players.get().pk},
        follow=True,
    )
    assert "Final is a playoff: it seats only the players who advanced to it" in (
        response.content.decode()
    )
    assert not Seat.objects.exists()


def test_a_later_playoffs_page_says_how_it_is_seated_and_offers_no_seating(
    organiser_client, tournament, stage
):
    factories.StageFactory(tournament=tournament, order=2, kind="playoff", name="Final")
    page = organiser_client.get(f"/t/{tournament.slug}/manage/stages/2/").content.decode()
    assert (
        "made with the players who advance from the stage before it, when that stage closes" in page
    )
    assert "Seat players" not in page
    first = organiser_client.get(f"/t/{tournament.slug}/manage/stages/1/").content.decode()
    assert "Seat players" in first


def test_a_withdrawn_player_is_reinstated_from_the_console(organiser_client, tournament):
    player = factories.PlayerFactory(
        tournament=tournament, number=7, name="Ann Smith", status="withdrawn"
    )
    console = organiser_client.get(f"/t/{tournament.slug}/manage/").content.decode()
    url = f"/t/{tournament.slug}/manage/players/{player.pk}/reinstate/"
    assert url in console and "Reinstate…" in console
    page = organiser_client.get(url).content.decode()
    assert "Reinstate #7 Ann Smith?" in page  # asks first, changes nothing
    player.refresh_from_db()
    assert player.status == "withdrawn"
    done = organiser_client.post(url, follow=True).content.decode()
    assert "#7 Ann Smith is back in." in done
    player.refresh_from_db()
    assert player.status == "registered"  # as before the withdrawal: never checked in


def test_reinstating_a_player_before_seating_leaves_everyone_to_be_seated(
    organiser_client, tournament, stage
):
    players = add_players(tournament, 8)  # imported: registered, nobody checked in yet
    base = f"/t/{tournament.slug}/manage/players/{players[1].pk}"
    organiser_client.post(f"{base}/withdraw/")
    organiser_client.post(f"{base}/reinstate/")
    players[1].refresh_from_db()
    assert players[1].status == "registered"
    organiser_client.post(f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "3"})
    assert Seat.objects.filter(stage=stage).count() == 8  # not just the one reinstated
    # One who had checked in comes back checked in.
    checked = players[2]
    organiser_client.post(f"/t/{tournament.slug}/manage/players/{checked.pk}/check-in/")
    organiser_client.post(f"/t/{tournament.slug}/manage/players/{checked.pk}/withdraw/")
    organiser_client.post(f"/t/{tournament.slug}/manage/players/{checked.pk}/reinstate/")
    checked.refresh_from_db()
    assert checked.status == "checked_in"


@pytest.fixture
def full_stage(organiser_client, tournament):
    """A stage of tables of 3 to 4, seated at two full tables of 4, and a late player waiting."""
    stage = factories.StageFactory(
        tournament=tournament, order=1, name="Qualifying", table_size_min=3, table_size_max=4
    )
    add_players(tournament, 8)
    organiser_client.post(f"/t/{tournament.slug}/manage/stages/1/seat/", {"seed": "1"})
    latecomer = factories.PlayerFactory(tournament=tournament, number=41, name="Late Lucy")
    return stage, latecomer


def test_late_player_when_every_table_is_full_the_page_asks_first(
    organiser_client, tournament, full_stage
):
    _stage, latecomer = full_stage
    url = f"/t/{tournament.slug}/manage/stages/1/"
    page = organiser_client.get(url).content.decode()
    assert "Every table has 4 players, the most this stage allows." in page
    assert 'name="allow_over_max"' in page
    refused = organiser_client.post(f"{url}late/", {"player": latecomer.pk}, follow=True)
    text = refused.content.decode()
    assert "Every table of Qualifying has 4 players, the most this stage allows." in text
    assert "choose to seat them above the maximum" in text
    assert not Seat.objects.filter(player=latecomer).exists()
    chosen = organiser_client.post(
        f"{url}late/", {"player": latecomer.pk, "allow_over_max": "on"}, follow=True
    )
    text = chosen.content.decode()
    assert "#41 Late Lucy sits at table 1, seat 5, from round 1." in text
    assert "Table 1: 5 players: above this stage&#x27;s 4. Its card and score sheet say so." in text
    assert text.count("5 players: above this stage&#x27;s 4.") == 2  # the message and table 1


def test_late_player_when_every_table_is_full_is_refused_in_spanish_on_the_page(
    organiser_client, tournament, full_stage
):
    _stage, latecomer = full_stage
    url = f"/t/{tournament.slug}/manage/stages/1/"
    page = organiser_client.get(url, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Todas las mesas tienen 4 jugadores" in page
    refused = organiser_client.post(
        f"{url}late/", {"player": latecomer.pk}, follow=True, HTTP_ACCEPT_LANGUAGE="es"
    )
    assert "tiene 4 jugadores" in refused.content.decode()
    assert not Seat.objects.filter(player=latecomer).exists()


def test_when_every_table_is_full_the_page_offers_a_new_table_for_enough_late_players(
    organiser_client, tournament, full_stage
):
    stage, latecomer = full_stage
    url = f"/t/{tournament.slug}/manage/stages/1/"
    page = organiser_client.get(url).content.decode()
    # One waits: the page says a new table needs three, and offers none yet.
    assert "Once 3 late players are waiting, they can instead sit together at a new table." in page
    assert 'id="new-table"' not in page
    more = [
        factories.PlayerFactory(tournament=tournament, number=n, name=name)
        for n, name in ((42, "Late Max"), (43, "Late Noa"))
    ]
    page = organiser_client.get(url).content.decode()
    assert "Or seat the late players together at a new table: 3 are waiting" in page
    assert 'name="allow_over_max"' in page  # both choices
    assert "Seat them at a new table" in page
    assert "they sit together at table 3 from the round below" in page
    done = organiser_client.post(
        f"{url}late-table/",
        {"players": [latecomer.pk, more[0].pk, more[1].pk], "from_round": "1"},
        follow=True,
    ).content.decode()
    assert (
        "Table 3 is new, from round 1: #41 Late Lucy, #42 Late Max, #43 Late Noa. Print its "
        "card and score sheet." in done
    )
    assert Seat.objects.filter(stage=stage, table__number=3).count() == 3
    assert "Every active player has a seat." in done


def test_a_new_table_refused_on_the_page_says_why_and_seats_nobody(
    organiser_client, tournament, full_stage
):
    stage, latecomer = full_stage
    other = factories.PlayerFactory(tournament=tournament, number=42, name="Late Max")
    factories.PlayerFactory(tournament=tournament, number=43, name="Late Noa")
    url = f"/t/{tournament.slug}/manage/stages/1/"
    page = organiser_client.post(
        f"{url}late-table/", {"players": [latecomer.pk, other.pk], "from_round": "1"}, follow=True
    ).content.decode()
    assert "A new table of Qualifying seats 3 to 4 players, not 2." in page
    nothing = organiser_client.post(f"{url}late-table/", {"from_round": "1"}, follow=True)
    assert "Tick the late players to seat at the new table." in nothing.content.decode()
    assert not Seat.objects.filter(player__in=[latecomer, other]).exists()
    for table in stage.tables.all():  # every table reports round 1: the new one joins round 2
        factories.RoundResultFactory(table=table, stage=stage, round_no=1)
    page = organiser_client.get(url).content.decode()
    assert 'value="2"' in page
    assert "Round 2 at the earliest: every table has reported the rounds before it." in page


def test_the_new_table_in_spanish(organiser_client, tournament, full_stage):
    stage, latecomer = full_stage
    more = [factories.PlayerFactory(tournament=tournament, number=n) for n in (42, 43)]
    url = f"/t/{tournament.slug}/manage/stages/1/"
    page = organiser_client.get(url, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Sentarlos en una mesa nueva" in page
    assert "O siente juntos a los jugadores que llegan tarde en una mesa nueva: esperan 3" in page
    refused = organiser_client.post(
        f"{url}late-table/",
        {"players": [latecomer.pk, more[0].pk], "from_round": "1"},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="es",
    ).content.decode()
    assert "Una mesa nueva de" in refused
    done = organiser_client.post(
        f"{url}late-table/",
        {"players": [latecomer.pk, *[p.pk for p in more]], "from_round": "1"},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="es",
    ).content.decode()
    assert "La mesa 3 es nueva, desde la ronda 1" in done
    assert stage.tables.count() == 3
